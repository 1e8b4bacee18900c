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

use std::collections::BTreeMap;

use serde_json::Value;

use crate::app::day_two::status;
use crate::app::installation::record;
use crate::app::session::connect;
use crate::app::session::lock;
use crate::app::Outcome;
use crate::cli::AdoptArgs;
use crate::cluster;
use crate::output;
use crate::render::{self, LABEL_MANAGED_BY};

/// The chart version whose layout `adopt` knows (the one cf-runner follows).
pub const COVERED_CHART: &str = "cf-runtime-10.5.2";
/// The label the chart puts on every object it renders.
pub(super) const HELM_CHART_LABEL: &str = "helm.sh/chart";
/// The Secret type Helm stores a release in.
pub(super) const HELM_RELEASE_TYPE: &str = "helm.sh/release.v1";
/// The Secret cf-runner keeps the agent token in (templates/runner.yaml).
pub(super) const RUNNER_TOKEN_SECRET: &str = render::RUNNER_SECRET;
/// The first line of a values file `adopt` wrote (and may write over).
pub(super) const SAVED_MARK: &str = "# cf-runner values, read by `cf-runner adopt`";

/// Which tool made the runner found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tool {
    /// The cf-runtime chart, installed as Helm release `release`.
    Helm { release: String },
    /// venonactl, or `codefresh runner init` (which drives it).
    Venonactl,
}

impl Tool {
    fn describe(&self) -> String {
        match self {
            Tool::Helm { release } => {
                format!("the cf-runtime Helm chart ({COVERED_CHART}, release {release:?})")
            }
            Tool::Venonactl => "venonactl / `codefresh runner init`".to_string(),
        }
    }
}

/// One object of the old install, by kind and name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ObjectRef {
    pub kind: String,
    pub name: String,
}

impl std::fmt::Display for ObjectRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.kind, self.name)
    }
}

/// What a namespace holds, as `adopt` reads it.
#[derive(Debug, Clone)]
pub struct Found {
    pub tool: Tool,
    /// The old install's objects (dind volumes and the namespace excluded).
    pub objects: Vec<ObjectRef>,
    /// The install as a cf-runner values tree (no tokens in it).
    pub values: Value,
    /// Settings the install has that this version of `adopt` does not read.
    pub not_read: Vec<String>,
    /// The Secret holding the agent token (kept; its value is never read here).
    pub token_secret: Option<String>,
    /// The dind volume claims (left alone).
    pub volume_claims: Vec<String>,
    /// The StorageClass of the dind volumes, with its provisioner.
    pub storage_class: Option<(String, String)>,
    /// The pod selector of each workload (`Kind/name`), which Kubernetes
    /// does not let an update change.
    pub selectors: BTreeMap<String, Value>,
    /// The credentials the install gives its components, and where each goes.
    pub credentials: Vec<credentials::Credential>,
    /// The runtime environments Secret runnerconf names (venonactl).
    pub runnerconf_runtimes: Vec<String>,
    /// Objects the old install's objects made at run time (Jobs of its
    /// CronJobs, token Secrets of its service accounts).
    pub run_time: Vec<ObjectRef>,
    /// Secrets named like an old installer's credentials (or holding keys
    /// under the runner's credential names) that adopt cannot tell are the
    /// old tool's (they lack its labels): left as they are, and named by
    /// the plan and by `delete` with the command that removes them.
    pub stray_credentials: Vec<String>,
}

/// What happens to each object of the old install.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// Same kind and name in cf-runner's install: applied over, then labelled.
    pub taken_over: Vec<ObjectRef>,
    /// A cf-runner object of another name does its job: the new one comes up
    /// first, then the old one is deleted. (old, new)
    pub replaced: Vec<(ObjectRef, ObjectRef)>,
    /// Same kind and name, but a different pod selector, which cannot be
    /// changed in place: the old one must go before cf-runner's of that
    /// name can exist, so the move needs a runner under another name first.
    pub selector_clash: Vec<ObjectRef>,
    /// Only the old tool needed it: deleted (the Helm release record last).
    pub removed: Vec<ObjectRef>,
    /// Never touched.
    pub left_alone: Vec<String>,
    /// Objects of the old tool no rule places, with why: the move stops.
    pub unclassified: Vec<(ObjectRef, String)>,
}

/// Moves the runner to cf-runner: checks everything, asks, then brings
/// cf-runner's runner up with the same agent token before the old one goes.
/// Where a move starts from.
struct Start {
    /// What is left of the old install (`None`: nothing, on a re-run).
    pub(super) found: Option<Found>,
    /// The values: read from the install, or recorded by the earlier run.
    pub(super) tree: Value,
    /// The old tool, in words (kept on the record while the move runs).
    pub(super) tool: String,
    /// True when continuing an earlier, interrupted run.
    pub(super) resuming: bool,
}

fn label<'a>(object: &'a Value, key: &str) -> Option<&'a str> {
    object["metadata"]["labels"][key].as_str()
}

fn name(object: &Value) -> &str {
    object["metadata"]["name"].as_str().unwrap_or_default()
}

fn kind(object: &Value) -> &str {
    object["kind"].as_str().unwrap_or_default()
}

fn reference(object: &Value) -> ObjectRef {
    ObjectRef {
        kind: kind(object).to_string(),
        name: name(object).to_string(),
    }
}

fn in_namespace(object: &Value, namespace: &str) -> bool {
    object["metadata"]["namespace"].as_str() == Some(namespace)
}

/// Runs `adopt`.
pub fn run(args: &AdoptArgs) -> Outcome {
    if !args.dry_run && !args.yes && !output::stdin_is_tty() {
        return connect::need_yes("adopt", "the move of the runner");
    }
    if let Err(problems) = check_save_path(&args.values_file, args.overwrite) {
        return problems.into();
    }
    adopt(args)
        .and_then(|moved| match moved {
            // `info`'s view opens its own runtime: after the move's is done.
            Some(namespace) => show_installed(args, namespace),
            None => Ok(()),
        })
        .into()
}

/// Reads the namespace `args` names and, unless `--dry-run`, moves the
/// runner found there (or finishes a move under way). Gives the namespace
/// to show `info` of, or `None` when nothing was moved.
fn adopt(args: &AdoptArgs) -> Result<Option<String>, Outcome> {
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

/// What `info` shows of the install in `namespace`, once it is moved.
fn show_installed(args: &AdoptArgs, namespace: String) -> Result<(), Outcome> {
    connect::runtime().block_on(async {
        let cluster = connect::connect_flags(&args.kube).await?;
        let report =
            status::report(&cluster, std::slice::from_ref(&namespace), &args.platform).await?;
        output::info::print_table(&report, Some(&namespace));
        Ok(())
    })
}

/// [`adopt`] once connected.
async fn adopt_in(
    args: &AdoptArgs,
    cluster: &cluster::Cluster,
    namespace: String,
) -> Result<Option<String>, Outcome> {
    let path = args.values_file.as_path();
    {
        let objects = cluster::adopt::scan(cluster, &namespace)
            .await
            .map_err(|e| connect::failed(e, "reading the namespace failed"))?;
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
                .map_err(|e| connect::failed(e, "reading the installation record failed"))?
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
mod credentials;
mod detect;
mod report;
mod runtimes;
mod several_runtimes;

use carry::move_runner;
use detect::{detect, use_runnerconf, ADOPTING_ANNOTATION};
use report::{check_save_path, report};

#[cfg(test)]
mod tests;
