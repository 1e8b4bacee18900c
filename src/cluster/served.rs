//! Whether the cluster serves every kind an install renders. Kubernetes'
//! own kinds always are; a kind from a set of CRDs (the prometheus-
//! operator's ServiceMonitor and PodMonitor, the Gateway API's HTTPRoute)
//! only where someone installed them. Asked of the API server's discovery
//! before the first write, so that a missing API is said as what it is (a
//! setting the cluster cannot hold) rather than as a failed apply halfway
//! through.

use std::collections::BTreeSet;

use kube::Client;

use super::{request, KubeError};
use crate::render::Manifest;

/// The API groups Kubernetes itself serves (the core group is `v1`, with
/// no group). A name under `k8s.io` is not enough: the Gateway API
/// (`gateway.networking.k8s.io`) and volume snapshots are CRDs.
const BUILTIN_GROUPS: &[&str] = &[
    "admissionregistration.k8s.io",
    "apiextensions.k8s.io",
    "apiregistration.k8s.io",
    "authentication.k8s.io",
    "authorization.k8s.io",
    "certificates.k8s.io",
    "coordination.k8s.io",
    "discovery.k8s.io",
    "events.k8s.io",
    "flowcontrol.apiserver.k8s.io",
    "internal.apiserver.k8s.io",
    "networking.k8s.io",
    "node.k8s.io",
    "rbac.authorization.k8s.io",
    "resource.k8s.io",
    "scheduling.k8s.io",
    "storage.k8s.io",
    "storagemigration.k8s.io",
];

/// True for an `apiVersion` of Kubernetes' own API groups, which every
/// cluster serves; false for a group some CRDs add.
pub(super) fn is_builtin(api_version: &str) -> bool {
    match api_version.split_once('/') {
        None => true,
        Some((group, _)) => !group.contains('.') || BUILTIN_GROUPS.contains(&group),
    }
}

/// The `apiVersion` and kind of each rendered object whose API the cluster
/// does not serve (its CRDs are not installed), sorted; Kubernetes' own
/// kinds are never asked about.
pub async fn unserved(
    client: &Client,
    manifests: &[Manifest],
) -> Result<Vec<(String, String)>, KubeError> {
    let wanted: BTreeSet<(&str, &str)> = manifests
        .iter()
        .filter(|m| !is_builtin(&m.api_version))
        .map(|m| (m.api_version.as_str(), m.kind.as_str()))
        .collect();
    let versions: BTreeSet<&str> = wanted.iter().map(|(v, _)| *v).collect();
    let mut missing = Vec::new();
    for version in versions {
        let served: BTreeSet<String> = match request(
            "discovering",
            &format!("the kinds of {version}"),
            client.list_api_group_resources(version),
        )
        .await
        {
            Ok(list) => list.resources.into_iter().map(|r| r.kind).collect(),
            Err(e) if e.code() == Some(404) => BTreeSet::new(),
            Err(e) => return Err(e),
        };
        missing.extend(
            wanted
                .iter()
                .filter(|(v, k)| *v == version && !served.contains(*k))
                .map(|(v, k)| (v.to_string(), k.to_string())),
        );
    }
    Ok(missing)
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_groups_outside_kubernetes_need_a_crd() {
        for builtin in [
            "v1",
            "apps/v1",
            "rbac.authorization.k8s.io/v1",
            "scheduling.k8s.io/v1",
        ] {
            assert!(super::is_builtin(builtin), "{builtin}");
        }
        assert!(!super::is_builtin("monitoring.coreos.com/v1"));
        assert!(!super::is_builtin("gateway.networking.k8s.io/v1"));
    }
}
