//! Preflight: can this cluster, with this user, take the install? Five
//! checks, one file each, run concurrently and read-only (the only writes are
//! self-reviews of access and rules, and server-side dry-runs, which
//! persist nothing):
//!
//! - the server version is one the rendered objects work on;
//! - the user holds every permission the install uses, including every rule
//!   of the Roles and ClusterRoles it creates (RBAC refuses to grant what the
//!   granter does not hold, unless they hold `escalate` and `bind`), read
//!   from one rules review per namespace where that is exact (`rules_review`);
//! - the API server accepts the cluster-scoped objects (strict dry-run);
//! - every component has a node that takes it (selector, taints, requests);
//! - an installation already in the namespace (ours or an older installer's)
//!   is found and named, and so is every object the install would write
//!   that exists and is not cf-runner's (`cluster::ownership`);
//! - admission lets the pods in: Pod Security, quotas, LimitRanges and
//!   policy webhooks, asked by dry-run and read from the namespace.
//!
//! Each check ends as pass, warn or fail with a reason and, unless it passed,
//! a fix. The deciding logic is kept in pure functions so it is unit-tested
//! without a cluster.

mod admission;
mod dry_run;
mod existing;
mod nodes;
pub mod openshift;
mod permissions;
mod rules_review;
mod version;

use kube::Client;
use serde::Serialize;
use serde_json::Value;

use super::{api_for, KubeError};
use crate::render::Manifest;

pub use admission::{
    dind_claim, dind_pod, explain_refusal, fix_for, refuser, Level, Refuser, ENFORCE_LABEL,
    EVERY_BUILD,
};
pub use existing::{existing_installation, HelmInstall, OLD_INSTALLER_APPS};
pub use nodes::{components, node_check, Component, NodeInfo, Requests, Taint, Toleration};
pub use permissions::{
    check_diff_permissions, diff_permissions, granted_permissions, install_permissions,
    missing_permissions, permissions_to_review, Grant, Permission,
};
pub use version::{
    deploy_step_note, server_deploy_step_note, version_check, DEPLOY_STEP_MINORS,
    FIRST_ANSWER_TIMEOUT, MAX_TESTED_MINOR, MIN_MINOR,
};

/// How a check ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    /// Worth knowing, does not stop an install.
    Warn,
    /// The install would fail: `check` exits 3 and `init` stops.
    Fail,
}

/// One check's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    pub name: String,
    pub status: Status,
    /// Why it ended that way, in one line.
    pub reason: String,
    /// Itemised findings (missing permissions, rejected objects, …).
    pub details: Vec<String>,
    /// What the user can do; `None` when the check passed.
    pub fix: Option<String>,
    /// The API server did not answer at all (no status came back).
    #[serde(skip)]
    pub unreachable: bool,
}

impl Check {
    fn pass(name: &str, reason: impl Into<String>) -> Self {
        Check {
            name: name.into(),
            status: Status::Pass,
            reason: reason.into(),
            details: Vec::new(),
            fix: None,
            unreachable: false,
        }
    }
    fn warn(name: &str, reason: impl Into<String>, fix: impl Into<String>) -> Self {
        Check {
            name: name.into(),
            status: Status::Warn,
            reason: reason.into(),
            details: Vec::new(),
            fix: Some(fix.into()),
            unreachable: false,
        }
    }
    fn fail(name: &str, reason: impl Into<String>, fix: impl Into<String>) -> Self {
        Check {
            status: Status::Fail,
            ..Check::warn(name, reason, fix)
        }
    }
    fn with_details(mut self, details: Vec<String>) -> Self {
        self.details = details;
        self
    }
}

/// True when any check failed.
pub fn failed(checks: &[Check]) -> bool {
    checks.iter().any(|c| c.status == Status::Fail)
}

/// Check names, as shown and as keys in `-o json`.
pub mod names {
    pub const VERSION: &str = "server version";
    pub const PERMISSIONS: &str = "permissions";
    pub const DRY_RUN: &str = "cluster-scoped objects";
    pub const NODES: &str = "node capacity";
    pub const EXISTING: &str = "existing installation";
    pub const ADMISSION: &str = "pod admission";
    /// Shown only on OpenShift, or where the install binds its SCC.
    pub const OPENSHIFT: &str = "openshift";
    /// Not one of the install's checks: `diff` runs it alone.
    pub const DIFF_PERMISSIONS: &str = "diff permissions";
}

/// Runs every check against the cluster for installing `manifests` into
/// `namespace`. Never fails as a whole: a check that cannot be made says so.
pub async fn run(
    client: &Client,
    manifests: &[Manifest],
    runtime_environment: Option<&Value>,
    namespace: &str,
) -> Vec<Check> {
    run_seeing_namespace(client, manifests, runtime_environment, namespace)
        .await
        .0
}

/// [`run`], and the namespace as the checks found it (`Unknown` when they
/// did not get that far): an install takes its lock with it, so that the
/// lock does not read the namespace again.
pub async fn run_seeing_namespace(
    client: &Client,
    manifests: &[Manifest],
    runtime_environment: Option<&Value>,
    namespace: &str,
) -> (Vec<Check>, NamespaceState) {
    // One probe first, with one deadline: when the API server does not
    // answer, every other check would wait out its own timeout in turn. The
    // probe is the namespace's GET, which four checks wait for anyway; the
    // server version then goes with everything else, not a round trip
    // before it.
    let (version, read) = first_answer(client, manifests).await;
    if let Some(version) = version.as_ref().filter(|v| v.unreachable) {
        let not_run = |name: &str| {
            Check::fail(
                name,
                "not run: the API server did not answer the first request",
                "see the server version check",
            )
        };
        let checks = vec![
            version.clone(),
            not_run(names::PERMISSIONS),
            not_run(names::DRY_RUN),
            not_run(names::NODES),
            not_run(names::EXISTING),
            not_run(names::ADMISSION),
        ];
        return (checks, NamespaceState::Unknown);
    }
    let version = async {
        match version {
            Some(version) => version,
            None => version::check_version(client).await,
        }
    };
    // Whether the namespace is someone else's changes what the install does
    // with it (only reads it), so both of these checks wait for the answer.
    // Admission reads the namespace's labels from the same answer, and a
    // namespace that does not exist has nothing in it to look for.
    let (state, live) = namespace_state(read);
    let view = admission::NamespaceView {
        name: namespace,
        state,
        live: live.as_ref(),
    };
    let (version, permissions, dry_run, admission, existing, nodes, openshift) = futures::join!(
        version,
        permissions::check_permissions(client, manifests, state),
        dry_run::check_dry_run(client, manifests, state),
        admission::check_admission(client, manifests, runtime_environment, view),
        existing::check_existing(client, manifests, namespace, state),
        nodes::check_nodes(client, manifests, runtime_environment),
        openshift::check_openshift(client, manifests),
    );
    let mut checks = vec![version, permissions, dry_run, nodes, existing, admission];
    checks.extend(openshift);
    (checks, state)
}

/// What the namespace's GET gave: `None` when there is no Namespace to
/// read (or it got no answer).
type NamespaceRead = Option<Result<Option<kube::api::DynamicObject>, kube::Error>>;

/// The preflight's first request, with [`FIRST_ANSWER_TIMEOUT`]: the
/// namespace's GET, or `/version` when the install renders no Namespace.
/// Gives the version check when it is already decided (asked first, or the
/// server did not answer: then it says so as it always has, asking
/// `/version` for the cause of a failed connection), and the GET's answer.
async fn first_answer(client: &Client, manifests: &[Manifest]) -> (Option<Check>, NamespaceRead) {
    let Some(ns) = manifests.iter().find(|m| m.kind == "Namespace") else {
        return (Some(version::check_version(client).await), None);
    };
    let api = api_for(client, "v1", "Namespace", None);
    match tokio::time::timeout(FIRST_ANSWER_TIMEOUT, api.get_opt(&ns.name)).await {
        Err(_) => (Some(version::unanswered()), None),
        Ok(Err(e)) if !matches!(e, kube::Error::Api(_)) => {
            (Some(version::check_version(client).await), Some(Err(e)))
        }
        Ok(read) => (None, Some(read)),
    }
}

/// The runner's namespace as it is before the install.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NamespaceState {
    Missing,
    /// Exists, labelled as cf-runner's: the install applies it.
    Ours,
    /// Exists, made by someone else: the install only reads it.
    Foreign,
    /// Could not be read.
    Unknown,
}

/// The namespace's state, and the namespace as read when it exists, from
/// its GET (`None`: not read).
fn namespace_state(read: NamespaceRead) -> (NamespaceState, Option<Value>) {
    match read {
        Some(Ok(None)) => (NamespaceState::Missing, None),
        Some(Ok(Some(live))) => {
            let live = serde_json::to_value(&live).unwrap_or(Value::Null);
            let state = if foreign_namespace(&live) {
                NamespaceState::Foreign
            } else {
                NamespaceState::Ours
            };
            (state, Some(live))
        }
        Some(Err(_)) | None => (NamespaceState::Unknown, None),
    }
}

/// True when a namespace that exists is left alone: it is not cf-runner's
/// by the ownership rule.
fn foreign_namespace(live: &Value) -> bool {
    !crate::cluster::namespace_is_ours(live)
}

// ----------------------------------------------------------------- errors

/// The API server's message, or the error chain when it did not answer.
fn api_message(err: &KubeError) -> String {
    match err {
        KubeError::Api { message, .. } => message.clone(),
        other => other.chain_text(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::LABEL_MANAGED_BY;
    use serde_json::json;

    #[test]
    fn a_namespace_is_foreign_unless_labelled_ours() {
        assert!(foreign_namespace(&json!({"metadata": {"name": "x"}})));
        // Labelled by hand: still not ours.
        assert!(foreign_namespace(&json!({"metadata": {
            "name": "ci",
            "labels": {LABEL_MANAGED_BY: "cf-runner", "app.kubernetes.io/instance": "ci"},
            "managedFields": [{"manager": "kubectl-label", "operation": "Update"}]
        }})));
        assert!(!foreign_namespace(&json!({"metadata": {
            "name": "ci",
            "labels": {LABEL_MANAGED_BY: "cf-runner", "app.kubernetes.io/instance": "ci"},
            "managedFields": [{"manager": "cf-runner", "operation": "Apply"}]
        }})));
    }
}
