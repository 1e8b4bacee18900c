//! The order of an apply: which object waits for which (`dependencies`),
//! from what Kubernetes needs and from what the user may `bind`, so that
//! each object starts as soon as what it waits for is in place and a
//! failure stops only what depends on it.

use std::collections::HashSet;

use futures::future::join_all;
use kube::Client;
use serde_json::Value;

use crate::cluster::request;
use crate::render::Manifest;

/// What each object waits for before it is applied (indices into
/// `manifests`), from what Kubernetes itself needs and one promise:
/// - an object in a namespace, for that Namespace when it does not exist
///   yet (`namespace_exists` false);
/// - a binding, for the Role or ClusterRole it grants, when that is applied
///   too ([`needs_peers_first`]), unless `may_bind` says the user may
///   `bind` that role: the API server then takes the binding without
///   looking the role up;
/// - a ServiceAccount token Secret, for its ServiceAccount;
/// - a workload (stage 2 and later), for every object of an earlier stage
///   but ServiceAccount token Secrets (no pod of the install mounts one):
///   workloads are not started without their RBAC, config and secrets.
pub(super) fn dependencies(
    manifests: &[&Manifest],
    namespace_exists: bool,
    may_bind: &dyn Fn(&Manifest) -> bool,
) -> Vec<Vec<usize>> {
    let text = |m: &Manifest, pointer: &str| {
        m.object
            .pointer(pointer)
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    manifests
        .iter()
        .map(|m| {
            let role = (m.kind.ends_with("Binding") && !may_bind(m))
                .then(|| (text(m, "/roleRef/kind"), text(m, "/roleRef/name")));
            let account = (needs_peers_first(m) && m.kind == "Secret")
                .then(|| {
                    text(
                        m,
                        "/metadata/annotations/kubernetes.io~1service-account.name",
                    )
                })
                .flatten();
            manifests
                .iter()
                .enumerate()
                .filter(|(_, other)| {
                    let namespace = !namespace_exists
                        && other.kind == "Namespace"
                        && m.namespace.as_deref() == Some(other.name.as_str());
                    let granted = role.as_ref().is_some_and(|(kind, name)| {
                        kind.as_deref() == Some(other.kind.as_str())
                            && name.as_deref() == Some(other.name.as_str())
                            && (other.kind == "ClusterRole" || other.namespace == m.namespace)
                    });
                    let owner = account.as_deref().is_some_and(|a| {
                        other.kind == "ServiceAccount"
                            && other.name == a
                            && other.namespace == m.namespace
                    });
                    let token = other.kind == "Secret" && needs_peers_first(other);
                    let earlier_stage = m.stage >= 2 && other.stage < m.stage && !token;
                    namespace || granted || owner || earlier_stage
                })
                .map(|(j, _)| j)
                .collect()
        })
        .collect()
}

/// Where binding a binding's role is authorized: the role's resource
/// (`roles` or `clusterroles`) and the binding's namespace (`None` for a
/// ClusterRoleBinding). `None` for anything but a binding.
pub(super) fn role_scope(m: &Manifest) -> Option<(String, Option<String>)> {
    if !m.kind.ends_with("Binding") {
        return None;
    }
    let resource = match m.object.pointer("/roleRef/kind").and_then(Value::as_str) {
        Some("ClusterRole") => "clusterroles",
        Some("Role") => "roles",
        _ => return None,
    };
    Some((resource.to_string(), m.namespace.clone()))
}

/// Where the user may `bind` any role, asked with one access review per
/// place the bindings of `manifests` grant in (side by side with the
/// apply's reads). An error or a refusal counts as "may not": the binding
/// then waits for its role, as it always may.
pub(super) async fn bind_rights(
    client: &Client,
    manifests: &[&Manifest],
) -> HashSet<(String, Option<String>)> {
    use k8s_openapi::api::authorization::v1::{
        ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
    };
    let mut scopes: Vec<(String, Option<String>)> =
        manifests.iter().filter_map(|m| role_scope(m)).collect();
    scopes.sort();
    scopes.dedup();
    let api: kube::Api<SelfSubjectAccessReview> = kube::Api::all(client.clone());
    let answers = join_all(scopes.iter().map(|(resource, namespace)| {
        let review = SelfSubjectAccessReview {
            spec: SelfSubjectAccessReviewSpec {
                resource_attributes: Some(ResourceAttributes {
                    verb: Some("bind".into()),
                    group: Some("rbac.authorization.k8s.io".into()),
                    resource: Some(resource.clone()),
                    namespace: namespace.clone(),
                    ..Default::default()
                }),
                ..Default::default()
            },
            ..Default::default()
        };
        let api = &api;
        async move {
            request(
                "asking whether this user may bind",
                resource,
                api.create(&kube::api::PostParams::default(), &review),
            )
            .await
            .ok()
            .and_then(|r| r.status)
            .is_some_and(|s| s.allowed)
        }
    }))
    .await;
    scopes
        .into_iter()
        .zip(answers)
        .filter_map(|(scope, allowed)| allowed.then_some(scope))
        .collect()
}

/// True for objects that must go after a peer of their stage:
/// - bindings, after their roles: the API server checks a binding against its
///   role's rules, and refuses anyone without `bind` (everyone but cluster
///   admins) while that role does not exist yet;
/// - ServiceAccount token Secrets, after their ServiceAccount: the token
///   controller deletes such a Secret when its account does not exist.
pub(super) fn needs_peers_first(m: &Manifest) -> bool {
    m.kind.ends_with("Binding")
        || (m.kind == "Secret"
            && m.object.get("type").and_then(Value::as_str)
                == Some("kubernetes.io/service-account-token"))
}
