//! `cf-runner info`: what is installed and whether it is healthy, for one
//! namespace or every namespace holding an installation, as a table or as
//! JSON/YAML. The view model is the `status` step, which `adopt` also ends
//! with.

use super::steps::session::{connect_flags, runtime, SlowNote};
use super::steps::status;
use super::Outcome;
use crate::cli::{InfoArgs, OutputFormat};
use crate::cluster::{inventory, Cluster};
use crate::output::{self, info as info_table};

/// Runs `info`.
pub fn run(args: &InfoArgs) -> Outcome {
    runtime().block_on(async {
        let cluster = match connect_flags(&args.kube).await {
            Ok(c) => c,
            Err(outcome) => return outcome,
        };
        let namespaces = match &args.kube.kube_namespace {
            Some(ns) => vec![ns.clone()],
            None => match installed_namespaces(&cluster).await {
                Ok(found) => found,
                Err(outcome) => return outcome,
            },
        };
        let report = match status::report(&cluster, &namespaces, &args.platform).await {
            Ok(r) => r,
            Err(outcome) => return outcome,
        };
        match args.output {
            OutputFormat::Json => output::print_raw(&format!(
                "{}\n",
                serde_json::to_string_pretty(&report).expect("the report serializes")
            )),
            OutputFormat::Yaml => output::print_raw(
                &serde_yaml_ng::to_string(&report).expect("the report serializes"),
            ),
            OutputFormat::Table => {
                info_table::print_table(&report, args.kube.kube_namespace.as_deref())
            }
        }
        Outcome::Ok
    })
}

/// Every namespace holding an installation, found by its labels.
async fn installed_namespaces(cluster: &Cluster) -> Result<Vec<String>, Outcome> {
    let slow = SlowNote::start(cluster);
    let found = inventory::installations(&cluster.client).await;
    drop(slow);
    found.map_err(|e| {
        let hint = if e.code() == Some(403) {
            Some(
                "your user may not list Secrets cluster-wide: name the namespace with --kube-namespace"
                    .to_string(),
            )
        } else {
            e.hint()
        };
        Outcome::Failed(
            anyhow::Error::new(e).context(format!(
                "looking for installations at {} failed",
                cluster.server
            )),
            hint,
        )
    })
}
