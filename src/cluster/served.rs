//! Kinds served only where a CustomResourceDefinition is installed (the
//! prometheus-operator's ServiceMonitor and PodMonitor): whether this
//! cluster serves them, asked of the API server's discovery for their
//! group version. Kubernetes' own kinds are always served and never asked.

use std::collections::BTreeSet;

use kube::Client;

use super::{request, KubeError};
use crate::render::Manifest;

/// The API groups of Kubernetes itself (`v1` is the core group).
pub(super) fn is_builtin(api_version: &str) -> bool {
    match api_version.split_once('/') {
        None => true,
        Some((group, _)) => !group.contains('.') || group.ends_with(".k8s.io"),
    }
}

/// The `apiVersion kind` of every object in `manifests` of a kind the
/// cluster does not serve (its CRD is not installed), sorted.
pub async fn unserved(client: &Client, manifests: &[Manifest]) -> Result<Vec<String>, KubeError> {
    let wanted: BTreeSet<(&str, &str)> = manifests
        .iter()
        .filter(|m| !is_builtin(&m.api_version))
        .map(|m| (m.api_version.as_str(), m.kind.as_str()))
        .collect();
    let versions: BTreeSet<&str> = wanted.iter().map(|(v, _)| *v).collect();
    let mut missing = Vec::new();
    for version in versions {
        let what = format!("the kinds of {version}");
        let served: BTreeSet<String> = match request(
            "discovering",
            &what,
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
                .map(|(v, k)| format!("{v} {k}")),
        );
    }
    Ok(missing)
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_groups_outside_kubernetes_need_a_crd() {
        for builtin in ["v1", "apps/v1", "rbac.authorization.k8s.io/v1", "batch/v1"] {
            assert!(super::is_builtin(builtin), "{builtin}");
        }
        assert!(!super::is_builtin("monitoring.coreos.com/v1"));
    }
}
