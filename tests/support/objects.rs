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
