//! What the test control plane holds of cf-runner's.
#![allow(dead_code)]

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Secret, Service, ServiceAccount};
use k8s_openapi::api::rbac::v1::{Role, RoleBinding};
use kube::api::{Api, ListParams};
use kube::Client;

/// The objects in `ns` that carry cf-runner's `managed-by` label, as
/// `Kind/name`, sorted: the kinds an install, a runtime or its access
/// writes in a namespace.
pub async fn labelled_in(client: &Client, ns: &str) -> Vec<String> {
    let lp = ListParams::default().labels("app.kubernetes.io/managed-by=cf-runner");
    let mut out = Vec::new();
    macro_rules! list {
        ($t:ty, $kind:expr) => {
            for o in Api::<$t>::namespaced(client.clone(), ns)
                .list(&lp)
                .await
                .unwrap()
            {
                out.push(format!("{}/{}", $kind, o.metadata.name.unwrap()));
            }
        };
    }
    list!(ServiceAccount, "ServiceAccount");
    list!(Role, "Role");
    list!(RoleBinding, "RoleBinding");
    list!(Secret, "Secret");
    list!(ConfigMap, "ConfigMap");
    list!(Service, "Service");
    list!(Deployment, "Deployment");
    out.sort();
    out
}

/// A Namespace manifest as the install renders one: `name`, with cf-runner's
/// `managed-by` label and `labels` beside it (the ones that matter to the
/// ownership rule, or a test's own mark).
pub fn namespace_manifest(name: &str, labels: &[(&str, &str)]) -> cf_runner::render::Manifest {
    let mut all = serde_json::Map::new();
    all.insert("app.kubernetes.io/managed-by".into(), "cf-runner".into());
    for (k, v) in labels {
        all.insert((*k).into(), (*v).into());
    }
    cf_runner::render::Manifest {
        api_version: "v1".into(),
        kind: "Namespace".into(),
        name: name.into(),
        namespace: None,
        component: cf_runner::render::Component::Namespace,
        stage: 0,
        object: serde_json::json!({
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": name, "labels": all},
        }),
    }
}

/// The field managers that wrote an object, as (manager, operation), in
/// the object's order.
pub fn managers(
    meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
) -> Vec<(String, String)> {
    meta.managed_fields
        .iter()
        .flatten()
        .map(|e| {
            (
                e.manager.clone().unwrap_or_default(),
                e.operation.clone().unwrap_or_default(),
            )
        })
        .collect()
}
