//! `cf-runner info`: what is installed and whether it is healthy, for one
//! namespace or every namespace holding an installation, as a table or as
//! JSON/YAML. The view model is the `status` step, which `adopt` also ends
//! with.

use crate::app::commands::flags;
use crate::app::day_two::{health, status};
use crate::app::session::connect::{connect_flags, runtime, SlowNote};
use crate::app::session::outcome::Outcome;
use crate::cli::{InfoArgs, OutputFormat};
use crate::cluster::{inventory, Cluster};
use crate::output::{self, info as info_table, Structured};

/// Runs `info`.
pub fn run(args: &InfoArgs) -> Outcome {
    runtime().block_on(info(args)).into()
}

async fn info(args: &InfoArgs) -> Result<(), Outcome> {
    let cluster = connect_flags(&flags::kube(&args.kube)).await?;
    let namespaces = match &args.kube.kube_namespace {
        Some(ns) => vec![ns.clone()],
        None => installed_namespaces(&cluster).await?,
    };
    if args.wait {
        health::wait_healthy(
            &cluster,
            &namespaces,
            &flags::platform(&args.platform),
            args.timeout,
        )
        .await?;
    }
    let report = status::report(&cluster, &namespaces, &flags::platform(&args.platform)).await?;
    match args.output {
        OutputFormat::Json => output::print_structured(&report, Structured::Json),
        OutputFormat::Yaml => output::print_structured(&report, Structured::Yaml),
        OutputFormat::Table => {
            info_table::print_table(&report, args.kube.kube_namespace.as_deref())
        }
    }
    Ok(())
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
