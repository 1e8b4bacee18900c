//! What `adopt` works with: the tools it knows, the objects it reads from
//! a namespace (as JSON) and how it names them, and the plan it makes.

use serde_json::Value;

use crate::app::session::options::{KubeOptions, PlatformOptions};
use crate::render;

/// The chart version whose layout `adopt` knows (the one cf-runner follows).
pub const COVERED_CHART: &str = "cf-runtime-10.5.2";
/// The label the chart puts on every object it renders.
pub(crate) const HELM_CHART_LABEL: &str = "helm.sh/chart";
/// The Secret type Helm stores a release in.
pub(crate) const HELM_RELEASE_TYPE: &str = "helm.sh/release.v1";
/// The Secret cf-runner keeps the agent token in (templates/runner.yaml).
pub(crate) const RUNNER_TOKEN_SECRET: &str = render::RUNNER_SECRET;
/// The first line of a values file `adopt` wrote (and may write over).
pub(crate) const SAVED_MARK: &str = "# cf-runner values, read by `cf-runner adopt`";

/// Which tool made the runner found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tool {
    /// The cf-runtime chart, installed as Helm release `release`.
    Helm { release: String },
    /// venonactl, or `codefresh runner init` (which drives it).
    Venonactl,
}

impl Tool {
    pub(crate) fn describe(&self) -> String {
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

pub(crate) fn label<'a>(object: &'a Value, key: &str) -> Option<&'a str> {
    object["metadata"]["labels"][key].as_str()
}

pub(crate) fn name(object: &Value) -> &str {
    object["metadata"]["name"].as_str().unwrap_or_default()
}

pub(crate) fn kind(object: &Value) -> &str {
    object["kind"].as_str().unwrap_or_default()
}

pub(crate) fn reference(object: &Value) -> ObjectRef {
    ObjectRef {
        kind: kind(object).to_string(),
        name: name(object).to_string(),
    }
}

pub(crate) fn in_namespace(object: &Value, namespace: &str) -> bool {
    object["metadata"]["namespace"].as_str() == Some(namespace)
}

/// Which part of the runner a workload's name says it is.
pub(crate) fn component_of(name: &str) -> Option<&'static str> {
    if name.contains("lv-monitor") {
        Some("lv-monitor")
    } else if name.contains("volume-provisioner") {
        Some("volume-provisioner")
    } else if name.contains("volume-cleanup") {
        Some("volume-cleanup")
    } else if name.contains("app-proxy") {
        Some("app-proxy")
    } else if name.contains("monitor") {
        Some("monitor")
    } else if name.contains("runner") {
        Some("runner")
    } else {
        None
    }
}

/// What `adopt` is asked to do, from its flags.
#[derive(Debug, Clone)]
pub struct AdoptOptions {
    /// Where the runner to move is (namespace: `codefresh` when not given).
    pub kube: KubeOptions,
    /// How the platform is reached.
    pub platform: PlatformOptions,
    /// Read and plan only: move nothing.
    pub dry_run: bool,
    /// Never ask.
    pub yes: bool,
    /// How long each wait of the move may take.
    pub timeout: std::time::Duration,
    /// Fail at once when another run holds the install's lock.
    pub no_wait_for_lock: bool,
    /// Where the values read from the install are saved.
    pub values_file: std::path::PathBuf,
    /// Write over a values file `adopt` did not write.
    pub overwrite: bool,
}
