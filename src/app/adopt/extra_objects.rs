//! The chart's `extraResources` in an install that adopt takes over. Helm
//! marks them as the release's (`meta.helm.sh/release-name`), so they were
//! counted among the old install's objects, which adopt replaces or
//! deletes: a user's ConfigMap would have gone with the old runner.
//!
//! The chart renders them as the user wrote them, without its own
//! `helm.sh/chart` label, which is how they are told apart from the
//! chart's objects (the gencerts hook's RBAC, the other unlabelled ones,
//! ends in `-dind-gencerts`). Each is then either carried, as an item of
//! `ExtraResources` that cf-runner applies over the same object and owns
//! from then on, or left alone, out of the move: what `ExtraResources`
//! refuses (a Secret, a cluster-wide object, another kind) stays as it is,
//! and adopt says so.

use serde_json::{Map, Value};

use crate::app::adopt::credentials::provisioner::is_tool_annotation;
use crate::app::adopt::objects::{kind, label, name, HELM_CHART_LABEL};
use crate::values::extra_resources;

/// The suffix of the chart's own unlabelled objects (its gencerts RBAC).
const CHART_UNLABELLED_SUFFIX: &str = "-dind-gencerts";

/// True when `object` is one of release `release`'s `extraResources`.
fn is_extra(object: &Value, release: &str) -> bool {
    object["metadata"]["annotations"]["meta.helm.sh/release-name"].as_str() == Some(release)
        && label(object, HELM_CHART_LABEL).is_none()
        && !name(object).ends_with(CHART_UNLABELLED_SUFFIX)
        && object["metadata"]["annotations"]["helm.sh/hook"].is_null()
}

/// The object as a values item: what the user wrote, without what the API
/// server and Helm added (status, uid, versions, managed fields, Helm's
/// and kubectl's annotations).
fn as_written(object: &Value) -> Value {
    let mut out = Map::new();
    for (k, v) in object.as_object().into_iter().flatten() {
        if k != "status" && k != "metadata" {
            out.insert(k.clone(), v.clone());
        }
    }
    let meta = &object["metadata"];
    let mut metadata = Map::new();
    metadata.insert("name".into(), meta["name"].clone());
    if let Some(labels) = meta["labels"].as_object().filter(|l| !l.is_empty()) {
        metadata.insert("labels".into(), Value::Object(labels.clone()));
    }
    let annotations: Map<String, Value> = meta["annotations"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| !is_tool_annotation(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if !annotations.is_empty() {
        metadata.insert("annotations".into(), Value::Object(annotations));
    }
    out.insert("metadata".into(), Value::Object(metadata));
    Value::Object(out)
}

/// Takes the release's extra objects out of `mine` unless they are
/// carried: the items for `ExtraResources`, and a line for each object
/// left alone, with why.
pub(crate) fn split(
    mine: &mut Vec<&Value>,
    release: &str,
    namespace: &str,
) -> (Vec<Value>, Vec<String>) {
    let mut carried = Vec::new();
    let mut left = Vec::new();
    mine.retain(|o| {
        if !is_extra(o, release) {
            return true;
        }
        match extra_resources::check(&as_written(o), namespace) {
            Ok(item) => {
                carried.push(item);
                true
            }
            Err((why, _)) => {
                left.push(format!(
                    "{}/{} of the chart's extraResources: left as it is, outside the move (it {why})",
                    kind(o),
                    name(o)
                ));
                false
            }
        }
    });
    (carried, left)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn released(mut object: Value) -> Value {
        object["metadata"]["annotations"] = json!({
            "meta.helm.sh/release-name": "cf-runtime",
            "meta.helm.sh/release-namespace": "cf",
        });
        object["metadata"]["uid"] = json!("u-1");
        object["metadata"]["managedFields"] = json!([{"manager": "helm"}]);
        object
    }

    #[test]
    fn the_users_config_map_is_carried_and_a_secret_or_cluster_role_left_alone() {
        let cm = released(json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "ci-settings", "namespace": "cf"}, "data": {"k": "v"}}));
        let secret = released(json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "registry", "namespace": "cf"}, "data": {}}));
        let role = released(json!({"apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole", "metadata": {"name": "codefresh-role"}, "rules": []}));
        let mut chart_runner = released(json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "cf-runtime-runner", "namespace": "cf"}}));
        chart_runner["metadata"]["labels"] = json!({"helm.sh/chart": "cf-runtime-10.5.2"});
        let gencerts = released(json!({"apiVersion": "v1", "kind": "ServiceAccount",
            "metadata": {"name": "cf-runtime-dind-gencerts", "namespace": "cf"}}));

        let mut mine: Vec<&Value> = vec![&cm, &secret, &role, &chart_runner, &gencerts];
        let (carried, left) = split(&mut mine, "cf-runtime", "cf");
        assert_eq!(
            carried,
            vec![json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "ci-settings", "namespace": "cf"}, "data": {"k": "v"}})]
        );
        let names: Vec<&str> = mine.iter().map(|o| name(o)).collect();
        assert_eq!(
            names,
            [
                "ci-settings",
                "cf-runtime-runner",
                "cf-runtime-dind-gencerts"
            ]
        );
        assert_eq!(left.len(), 2, "{left:?}");
        assert!(
            left[0].starts_with("Secret/registry") && left[0].contains("record"),
            "{left:?}"
        );
        assert!(
            left[1].starts_with("ClusterRole/codefresh-role"),
            "{left:?}"
        );
    }
}
