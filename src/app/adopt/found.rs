//! What `adopt` found in a namespace ([`Found`]: the old tool, the values
//! it read, the old install's credentials) and the plan it makes of it.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::app::adopt::credentials;
use crate::app::adopt::objects::{ObjectRef, Tool};

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

/// Where a move starts from.
pub(crate) struct Start {
    /// What is left of the old install (`None`: nothing, on a re-run).
    pub(crate) found: Option<Found>,
    /// The values: read from the install, or recorded by the earlier run.
    pub(crate) tree: Value,
    /// The old tool, in words (kept on the record while the move runs).
    pub(crate) tool: String,
    /// True when continuing an earlier, interrupted run.
    pub(crate) resuming: bool,
}
