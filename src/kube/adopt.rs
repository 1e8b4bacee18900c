//! `adopt`'s read-only look at a namespace: every object another installer
//! (the cf-runtime Helm chart, venonactl or `codefresh runner init`) may
//! have left there, as plain JSON. Secrets come back with their values
//! blanked: the scan learns which keys a Secret has, never what they hold.
//! Nothing here writes to the cluster.

use kube::api::{Api, DynamicObject, ListParams};
use serde_json::Value;

use super::{request, resource_for, Cluster, KubeError};

/// Namespaced kinds the old installers create, by apiVersion and kind.
const NAMESPACED: &[(&str, &str)] = &[
    ("apps/v1", "Deployment"),
    ("apps/v1", "DaemonSet"),
    ("batch/v1", "CronJob"),
    ("batch/v1", "Job"),
    ("v1", "Secret"),
    ("v1", "ConfigMap"),
    ("v1", "ServiceAccount"),
    ("v1", "Service"),
    ("v1", "PersistentVolumeClaim"),
    ("rbac.authorization.k8s.io/v1", "Role"),
    ("rbac.authorization.k8s.io/v1", "RoleBinding"),
    ("networking.k8s.io/v1", "Ingress"),
];

/// Cluster-scoped kinds the old installers create.
const CLUSTER: &[(&str, &str)] = &[
    ("storage.k8s.io/v1", "StorageClass"),
    ("rbac.authorization.k8s.io/v1", "ClusterRole"),
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"),
];

/// Lists what `adopt` needs to judge `namespace`: its objects of the kinds
/// above, plus the cluster-scoped ones (all of them; the caller picks those
/// that belong to the install). Each object carries `apiVersion` and `kind`.
pub async fn scan(cluster: &Cluster, namespace: &str) -> Result<Vec<Value>, KubeError> {
    let mut out = Vec::new();
    for (api_version, kind) in NAMESPACED {
        let resource = resource_for(api_version, kind);
        let api: Api<DynamicObject> =
            Api::namespaced_with(cluster.client.clone(), namespace, &resource);
        let what = format!("{kind}s in namespace {namespace}");
        let list = request("listing", &what, api.list(&ListParams::default())).await?;
        for item in list.items {
            out.push(plain(item, api_version, kind));
        }
    }
    for (api_version, kind) in CLUSTER {
        let resource = resource_for(api_version, kind);
        let api: Api<DynamicObject> = Api::all_with(cluster.client.clone(), &resource);
        let what = format!("{kind}s");
        let list = request("listing", &what, api.list(&ListParams::default())).await?;
        for item in list.items {
            out.push(plain(item, api_version, kind));
        }
    }
    Ok(out)
}

/// One listed object as JSON with its type filled in; a Secret's values
/// are replaced by empty strings (its keys stay, so the caller can tell an
/// agent-token Secret from another).
fn plain(item: DynamicObject, api_version: &str, kind: &str) -> Value {
    let mut object = serde_json::to_value(&item).unwrap_or(Value::Null);
    object["apiVersion"] = Value::String(api_version.to_string());
    object["kind"] = Value::String(kind.to_string());
    if kind == "Secret" {
        for field in ["data", "stringData"] {
            if let Some(map) = object.get_mut(field).and_then(Value::as_object_mut) {
                for value in map.values_mut() {
                    *value = Value::String(String::new());
                }
            }
        }
    }
    object
}
