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
    // Served only with the prometheus-operator's CRDs: a 404 means none.
    ("monitoring.coreos.com/v1", "ServiceMonitor"),
    ("monitoring.coreos.com/v1", "PodMonitor"),
];

/// Cluster-scoped kinds the old installers create.
const CLUSTER: &[(&str, &str)] = &[
    ("storage.k8s.io/v1", "StorageClass"),
    ("rbac.authorization.k8s.io/v1", "ClusterRole"),
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"),
    // The chart's warm-capacity class (`cf-ballast`).
    ("scheduling.k8s.io/v1", "PriorityClass"),
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
        let list = match request("listing", &what, api.list(&ListParams::default())).await {
            // A CRD's kind the cluster does not serve, or the user may not
            // list: the old install can have none the scan could act on.
            Err(e)
                if matches!(e.code(), Some(404 | 403))
                    && !super::served::is_builtin(api_version) =>
            {
                continue
            }
            other => other?,
        };
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

/// Labels the old tools put on their objects that say "Helm manages this";
/// left on an object cf-runner took over, they would make `helm` and
/// people believe the chart still owns it.
const OLD_TOOL_LABELS: &[&str] = &["helm.sh/chart", "app.kubernetes.io/version"];

/// Annotations of the old tools: Helm's ownership and hooks, and the
/// client-side apply record (which, on a Secret, repeats its values).
const OLD_TOOL_ANNOTATIONS: &[&str] = &[
    "meta.helm.sh/release-name",
    "meta.helm.sh/release-namespace",
    "helm.sh/hook",
    "helm.sh/hook-weight",
    "helm.sh/hook-delete-policy",
    "helm.sh/resource-policy",
    "kubectl.kubernetes.io/last-applied-configuration",
    super::apply::ADOPTED_ANNOTATION,
];

/// The finalizer the chart's scripts put on the Secrets they create
/// (agent token, dind certificates), which only its uninstall hook removes.
const OLD_TOOL_FINALIZER: &str = "kubernetes";

/// The merge patch that removes the old tool's marks from `live`, or
/// `None` when it carries none.
pub fn old_marks_patch(live: &Value) -> Option<Value> {
    let mut patch = serde_json::Map::new();
    let mut labels = serde_json::Map::new();
    for key in OLD_TOOL_LABELS {
        if live["metadata"]["labels"].get(*key).is_some() {
            labels.insert((*key).to_string(), Value::Null);
        }
    }
    let mut annotations = serde_json::Map::new();
    for key in OLD_TOOL_ANNOTATIONS {
        if live["metadata"]["annotations"].get(*key).is_some() {
            annotations.insert((*key).to_string(), Value::Null);
        }
    }
    if !labels.is_empty() {
        patch.insert("labels".into(), Value::Object(labels));
    }
    if !annotations.is_empty() {
        patch.insert("annotations".into(), Value::Object(annotations));
    }
    if let Some(finalizers) = live["metadata"]["finalizers"].as_array() {
        if finalizers.iter().any(|f| f == OLD_TOOL_FINALIZER) {
            let kept: Vec<Value> = finalizers
                .iter()
                .filter(|f| *f != OLD_TOOL_FINALIZER)
                .cloned()
                .collect();
            patch.insert("finalizers".into(), Value::Array(kept));
        }
    }
    (!patch.is_empty()).then(|| serde_json::json!({ "metadata": patch }))
}

/// Removes the old tool's labels, annotations and Secret finalizer from one
/// object, if it still carries any. `Ok(false)`: nothing to remove, or the
/// object is gone.
pub async fn remove_old_marks(
    cluster: &Cluster,
    api_version: &str,
    kind: &str,
    namespace: Option<&str>,
    name: &str,
) -> Result<bool, KubeError> {
    let api = super::api_for(&cluster.client, api_version, kind, namespace);
    let what = format!("{kind}/{name}");
    let Some(live) = request("reading", &what, api.get_opt(name)).await? else {
        return Ok(false);
    };
    let live = serde_json::to_value(&live).unwrap_or(Value::Null);
    let Some(patch) = old_marks_patch(&live) else {
        return Ok(false);
    };
    let params = kube::api::PatchParams {
        field_manager: Some(super::FIELD_MANAGER.into()),
        ..Default::default()
    };
    request(
        "removing the old installer's marks from",
        &what,
        api.patch(name, &params, &kube::api::Patch::Merge(&patch)),
    )
    .await?;
    Ok(true)
}

/// One scanned object as an inventory entry (for `delete`'s machinery).
pub fn live_object(object: &Value) -> super::inventory::LiveObject {
    let mut plain = object.clone();
    if let Some(map) = plain.as_object_mut() {
        map.remove("data");
        map.remove("stringData");
    }
    super::inventory::LiveObject {
        api_version: object["apiVersion"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        kind: object["kind"].as_str().unwrap_or_default().to_string(),
        name: object["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        namespace: object["metadata"]["namespace"].as_str().map(str::to_string),
        object: plain,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_old_marks_patch_removes_helms_labels_and_the_secret_finalizer_only() {
        let live = json!({"metadata": {
            "labels": {"helm.sh/chart": "cf-runtime-10.5.2", "app.kubernetes.io/managed-by": "cf-runner", "keep": "me"},
            "annotations": {"meta.helm.sh/release-name": "cf-runtime", "other": "x"},
            "finalizers": ["kubernetes", "example.com/theirs"],
        }});
        let patch = old_marks_patch(&live).unwrap();
        assert_eq!(
            patch,
            json!({"metadata": {
                "labels": {"helm.sh/chart": null},
                "annotations": {"meta.helm.sh/release-name": null},
                "finalizers": ["example.com/theirs"],
            }})
        );
        let clean = json!({"metadata": {"labels": {"app.kubernetes.io/managed-by": "cf-runner"}}});
        assert_eq!(old_marks_patch(&clean), None);
    }
}
