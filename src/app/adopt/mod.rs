//! `cf-runner adopt`: move a runner made by another tool (the cf-runtime
//! Helm chart, venonactl or `codefresh runner init`) to cf-runner, and end
//! with what `info` shows of it. `detect` reads the namespace into a values
//! tree and a plan, `carry` moves the runner, `report` shows the plan and
//! saves the values; `credentials` places the old install's keys.
//!
//! It reads the namespace, tells which tool made the runner, refuses what
//! cannot be adopted safely, saves what the install is as a cf-runner values
//! file (tokens left out) and prints the plan; `--dry-run` stops there.
//! Otherwise, after confirmation, it moves the runner in an order where one
//! always serves builds: cf-runner's runner comes up with the same agent
//! token and is ready, then the old runner goes, then the rest (the Helm
//! release record last). The record Secret is written first and marked
//! while the move is under way, so an interrupted adopt re-runs to the end.

use serde_json::Value;

use crate::app::adopt::found::Start;
use crate::app::adopt::objects::AdoptOptions;
use crate::app::adopt::objects::{kind, label, name};
use crate::app::installation::record;
use crate::app::session::outcome::{Doing, Outcome};
use crate::app::session::{connect, lock};
use crate::cluster;
use crate::output;
use crate::render::{self, LABEL_MANAGED_BY};

/// Reads the namespace `args` names and, unless `--dry-run`, moves the
/// runner found there (or finishes a move under way). Gives the namespace
/// to show `info` of, or `None` when nothing was moved.
pub(crate) fn adopt(args: &AdoptOptions) -> Result<Option<String>, Outcome> {
    connect::runtime().block_on(async {
        let cluster = connect::connect_flags(&args.kube).await?;
        let namespace = args
            .kube
            .kube_namespace
            .clone()
            .unwrap_or_else(|| "codefresh".into());
        // The move takes the install's lock once confirmed (`move_runner`);
        // until then it only reads, and names a run that holds the lock.
        lock::note_holder(&cluster, &namespace).await;
        adopt_in(args, &cluster, namespace).await
    })
}

/// [`adopt`] once connected.
async fn adopt_in(
    args: &AdoptOptions,
    cluster: &cluster::Cluster,
    namespace: String,
) -> Result<Option<String>, Outcome> {
    let path = args.values_file.as_path();
    {
        let objects = cluster::adopt::scan(cluster, &namespace)
            .await
            .doing("reading the namespace failed")?;
        let resuming = objects
            .iter()
            .find(|o| kind(o) == "Secret" && name(o) == render::RECORD_SECRET)
            .and_then(|o| o["metadata"]["annotations"][ADOPTING_ANNOTATION].as_str())
            .map(str::to_string);
        if let (Some(tool), false) = (&resuming, args.dry_run) {
            output::say(&format!(
                "namespace {namespace}: an earlier adopt (from {tool}) did not finish; continuing it"
            ));
            // What is not cf-runner's yet is what is left of the old install.
            let others: Vec<Value> = objects
                .iter()
                .filter(|o| label(o, LABEL_MANAGED_BY) != Some("cf-runner"))
                .cloned()
                .collect();
            let found = detect(&others, &namespace, &cluster.context).ok().flatten();
            let record = record::read(cluster, &namespace)
                .await
                .doing("reading the installation record failed")?
                .unwrap_or_else(|| record::Record {
                    namespace: namespace.clone(),
                    ..Default::default()
                });
            let tree = record::values_tree(&record)?;
            let start = Start {
                found,
                tree,
                tool: tool.clone(),
                resuming: true,
            };
            return move_runner(args, cluster, &namespace, &objects, start)
                .await
                .map(|moved| moved.then_some(namespace));
        }
        if let Some(tool) = &resuming {
            output::say(&format!(
                "namespace {namespace}: a move from {tool} to cf-runner is under way (an earlier adopt did not finish); \
                 run `cf-runner adopt` without --dry-run to finish it"
            ));
            return Ok(None);
        }
        let mut found = match detect(&objects, &namespace, &cluster.context) {
            Ok(Some(f)) => f,
            Ok(None) => {
                output::say(&format!(
                    "namespace {namespace} already holds a cf-runner install: nothing to adopt"
                ));
                return Ok(None);
            }
            Err(p) => return Err(Outcome::BadInput(p)),
        };
        let names = credentials::runnerconf_runtimes(cluster, &namespace, &objects).await?;
        use_runnerconf(&mut found, names);
        credentials::pod_identity::read(cluster, &namespace, &mut found).await?;
        if args.dry_run {
            report(&found, &namespace, path)?;
            return Ok(None);
        }
        let tree = found.values.clone();
        let tool = found.tool.describe();
        let start = Start {
            found: Some(found),
            tree,
            tool,
            resuming: false,
        };
        move_runner(args, cluster, &namespace, &objects, start)
            .await
            .map(|moved| moved.then_some(namespace))
    }
}

mod carry;
mod classify;
mod cluster_move;
mod component_settings;
mod credentials;
mod detect;
mod extra_objects;
pub mod found;
mod gather;
mod handover;
pub mod objects;
mod old_extras;
mod old_metrics;
mod old_security;
mod old_values;
mod report;
mod runtimes;
mod several_runtimes;
mod spec_settings;

use carry::move_runner;
use detect::{detect, ADOPTING_ANNOTATION};
use old_values::use_runnerconf;
pub(crate) use report::check_save_path;
use report::report;

#[cfg(test)]
mod tests;
