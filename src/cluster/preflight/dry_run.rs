//! Cluster-scoped objects: the API server accepts them (server-side
//! dry-run, strict validation), which nothing persists.

use kube::api::{Patch, PatchParams, ValidationDirective};
use kube::Client;
use serde_json::Value;

use super::{api_message, names, Check, NamespaceState};
use crate::cluster::{api_for, KubeError, FIELD_MANAGER};
use crate::render::Manifest;

pub(super) async fn check_dry_run(
    client: &Client,
    manifests: &[Manifest],
    namespace: NamespaceState,
) -> Check {
    let mut targets: Vec<&Manifest> = manifests.iter().filter(|m| m.namespace.is_none()).collect();
    let mut notes = Vec::new();
    if namespace == NamespaceState::Foreign {
        if let Some(pos) = targets.iter().position(|m| m.kind == "Namespace") {
            notes.push(format!(
                "namespace {} exists and was not created by cf-runner; it is used as it is",
                targets[pos].name
            ));
            targets.remove(pos);
        }
    }
    let results = dry_run_each(client, &targets).await;
    let rendered_cluster_roles: Vec<&str> = manifests
        .iter()
        .filter(|m| m.kind == "ClusterRole")
        .map(|m| m.name.as_str())
        .collect();
    let mut rejected = Vec::new();
    let mut blame = Blame::default();
    for (m, result) in targets.iter().zip(results) {
        let Err(e) = result else { continue };
        if m.kind == "ClusterRoleBinding"
            && binds_role_not_yet_created(m, &e, &rendered_cluster_roles)
        {
            notes.push(format!(
                "{} can only be fully checked once its ClusterRole exists",
                m.display_name()
            ));
            continue;
        }
        blame.forbidden |= e.code() == Some(403);
        blame.unauthorized |= e.code() == Some(401);
        blame.unreachable |= e.code().is_none();
        rejected.push(format!("{}: {}", m.display_name(), api_message(&e)));
    }
    let checked = targets.len();
    if rejected.is_empty() {
        let mut reason = format!(
            "the API server accepts {} (server-side dry-run, strict validation)",
            targets
                .iter()
                .map(|m| m.display_name())
                .collect::<Vec<_>>()
                .join(", ")
        );
        if checked == 0 {
            reason = "no cluster-scoped object to check".into();
        }
        return Check::pass(names::DRY_RUN, reason).with_details(notes);
    }
    let (reason, fix) = blame.told(rejected.len(), checked);
    rejected.extend(notes);
    Check::fail(names::DRY_RUN, reason, fix).with_details(rejected)
}

/// Sends each object as a server-side dry-run apply, side by side.
async fn dry_run_each(client: &Client, targets: &[&Manifest]) -> Vec<Result<(), KubeError>> {
    let params = PatchParams::apply(FIELD_MANAGER)
        .dry_run()
        .validation(ValidationDirective::Strict);
    futures::future::join_all(targets.iter().map(|m| {
        let api = api_for(client, &m.api_version, &m.kind, None);
        let params = params.clone();
        async move {
            api.patch(&m.name, &params, &Patch::Apply(&m.object))
                .await
                .map(|_| ())
                .map_err(|e| KubeError::from_kube("dry-running", &m.display_name(), e))
        }
    }))
    .await
}

/// What the rejections say about the run rather than the objects.
#[derive(Default)]
struct Blame {
    /// A 403: the user may not create them.
    forbidden: bool,
    /// A 401: the credentials were rejected.
    unauthorized: bool,
    /// No answer from the API server.
    unreachable: bool,
}

impl Blame {
    /// The failed check's reason and fix for `rejected` of `checked`
    /// objects. Blames what happened: no answer, no valid credentials, no
    /// permission, and only then the objects themselves.
    fn told(&self, rejected: usize, checked: usize) -> (String, &'static str) {
        let fix = if self.unreachable {
            "the API server did not answer: check the server address in the kubeconfig, the network (VPN, HTTPS_PROXY/NO_PROXY) and the CA, then re-run"
        } else if self.unauthorized {
            "the cluster rejected your credentials (401): refresh them (e.g. re-run your cloud's get-credentials command), then re-run"
        } else if self.forbidden {
            "you may not create these objects: see the permissions check for what to ask a cluster admin for"
        } else {
            "another object or an admission policy rejects them: read the message, fix the cluster or the values, and re-run"
        };
        let reason = if self.unreachable {
            format!("could not dry-run {rejected} of {checked} cluster-scoped object(s): the API server did not answer")
        } else if self.unauthorized {
            format!("could not dry-run {rejected} of {checked} cluster-scoped object(s): the credentials were rejected")
        } else {
            format!("the API server rejects {rejected} of {checked} cluster-scoped object(s) (server-side dry-run)")
        };
        (reason, fix)
    }
}

/// A ClusterRoleBinding to a ClusterRole the install also creates fails a
/// dry-run for a user without `bind`: the API server checks the binding
/// against the role's rules, and the role does not exist yet. It answers
/// NotFound (naming the binding, not the role). That says nothing about the
/// real apply, which creates the role first.
fn binds_role_not_yet_created(binding: &Manifest, err: &KubeError, rendered: &[&str]) -> bool {
    let Some(role) = binding
        .object
        .pointer("/roleRef/name")
        .and_then(Value::as_str)
    else {
        return false;
    };
    rendered.contains(&role) && (err.code() == Some(404) || api_message(err).contains("not found"))
}
