//! `ExtraResources`: objects of the user's own, installed, upgraded and
//! removed with the runner (the chart's `extraResources`).
//!
//! They are applied with the user's credentials, so what is taken is kept
//! to what cf-runner can own safely with the machinery it has:
//!
//! - **namespaced kinds that cf-runner already installs**, in the runner's
//!   namespace only: its inventory lists exactly these kinds, so `upgrade`
//!   prunes an object dropped from the values and `delete` removes it, both
//!   only while it is as cf-runner applied it (the ownership rules of every
//!   cf-runner object). A kind outside that list could be applied but
//!   never found again, and would be left behind: refused.
//! - **no cluster-scoped object and no other namespace**: `delete` of one
//!   install must not reach what other installs or teams rely on.
//! - **no Secret**: the values are kept in the install's record, and a
//!   Secret's data would be kept there with them. A Secret of the user's is
//!   made with their own tools and named by `*SecretKeyRef` keys.
//! - **no name cf-runner uses itself** ([`RESERVED_NAMES`]): an extra object
//!   must never replace one of cf-runner's.
//! - **no Helm template** (`{{ … }}`): cf-runner does not render them; the
//!   chart does, so such a text would mean one thing there and another here.
//!
//! Each object is checked against its Kubernetes type here, so a mistake
//! exits 2 naming the item, before anything is applied.

use serde_json::Value;

use super::model::is_dns_subdomain;
use super::model::reader::Reader;
use super::Problem;

/// The values key.
pub const KEY: &str = "ExtraResources";

/// The kinds accepted: the namespaced kinds cf-runner's inventory lists,
/// Secrets excepted.
pub const ACCEPTED_KINDS: &[(&str, &str)] = &[
    ("v1", "ConfigMap"),
    ("v1", "ServiceAccount"),
    ("v1", "Service"),
    ("rbac.authorization.k8s.io/v1", "Role"),
    ("rbac.authorization.k8s.io/v1", "RoleBinding"),
    ("apps/v1", "Deployment"),
    ("apps/v1", "DaemonSet"),
    ("batch/v1", "CronJob"),
    ("networking.k8s.io/v1", "Ingress"),
];

/// Names cf-runner gives its own namespaced objects (a render test keeps
/// this list complete).
pub const RESERVED_NAMES: &[&str] = &[
    "app-proxy",
    "cf-runner-ca-bundle",
    "cf-runner-values",
    "codefresh-certs-server",
    "codefresh-cluster-reader",
    "codefresh-cluster-reader-token",
    "codefresh-dind-config",
    "codefresh-engine",
    "dind",
    "dind-ballast",
    "dind-lv-monitor",
    "dind-volume-cleanup",
    "dind-volume-provisioner",
    "engine",
    "engine-ballast",
    "event-exporter",
    "monitor",
    "openshift-scc-privileged",
    "runner",
    "volume-provisioner",
];

/// Reads and checks `ExtraResources` for an install in `namespace`.
pub(super) fn resolve(r: &mut Reader, namespace: &str) -> Vec<Value> {
    let Some(raw) = r.raw_value(KEY) else {
        return Vec::new();
    };
    let items = match raw {
        Value::Null => return Vec::new(),
        Value::Array(items) => items.clone(),
        _ => {
            r.problems.push(Problem::new(
                KEY,
                None,
                "is not a list of objects",
                "write a YAML list, each item a Kubernetes object with apiVersion, kind and metadata.name",
            ));
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        let key = format!("{KEY}[{i}]");
        match check(&item, namespace) {
            Ok(object) => out.push(object),
            Err((why, fix)) => r.problems.push(Problem::new(&key, None, why, fix)),
        }
    }
    out
}

/// Why an item is refused, and what to do instead.
pub type Refusal = (String, String);

/// One item, checked for an install in `namespace`: the object with its
/// namespace made explicit, or why it is refused and what to do instead.
pub fn check(item: &Value, namespace: &str) -> Result<Value, Refusal> {
    let field = |path: &str| item.pointer(path).and_then(Value::as_str).unwrap_or("");
    let (api_version, kind, name) = (
        field("/apiVersion"),
        field("/kind"),
        field("/metadata/name"),
    );
    let what = format!("{kind} {name:?} ({api_version})");
    if kind == "Secret" {
        return Err((
            "is a Secret: its data would be kept in the install's record with the values".into(),
            "create the Secret with your own tools and name it where a key takes a SecretKeyRef"
                .into(),
        ));
    }
    if !ACCEPTED_KINDS.contains(&(api_version, kind)) {
        let kinds: Vec<&str> = ACCEPTED_KINDS.iter().map(|(_, k)| *k).collect();
        return Err((
            format!("is a {what}: cf-runner installs only the namespaced kinds it can find again to prune and delete ({})", kinds.join(", ")),
            "install other kinds, and anything cluster-wide, with your own GitOps or kubectl".into(),
        ));
    }
    if serde_json::to_string(item).is_ok_and(|t| t.contains("{{")) {
        return Err((
            "holds a Helm template ({{ … }}), which cf-runner does not render".into(),
            "write the value itself (e.g. the namespace's name)".into(),
        ));
    }
    if !is_dns_subdomain(name) || name.is_empty() {
        return Err((
            format!("has no valid metadata.name ({name:?})"),
            "give the object a lowercase DNS name, e.g. ci-settings".into(),
        ));
    }
    if RESERVED_NAMES.contains(&name) {
        return Err((
            format!("is named {name:?}, a name cf-runner gives an object of its own"),
            "rename the object; cf-runner's own objects are set with their values keys".into(),
        ));
    }
    match item.pointer("/metadata/namespace").and_then(Value::as_str) {
        None => {}
        Some(ns) if ns == namespace => {}
        Some(ns) => {
            return Err((
                format!("is in namespace {ns:?}, and the runner is in {namespace:?}"),
                "leave metadata.namespace out: extra objects go into the runner's namespace".into(),
            ))
        }
    }
    typed(api_version, kind, item).map_err(|e| {
        (
            format!("is not a valid {kind}: {e}"),
            "fix the field the message names; `kubectl explain` shows the schema".into(),
        )
    })?;
    let mut object = item.clone();
    object["metadata"]["namespace"] = Value::String(namespace.to_string());
    Ok(object)
}

/// Deserializes the item into its k8s-openapi type (unknown fields are
/// ignored by these types; the API server's strict apply catches them).
fn typed(api_version: &str, kind: &str, item: &Value) -> Result<(), String> {
    use k8s_openapi::api::{apps, batch, core, networking, rbac};
    fn de<T: serde::de::DeserializeOwned>(v: &Value) -> Result<(), String> {
        T::deserialize(v).map(|_| ()).map_err(|e| e.to_string())
    }
    match (api_version, kind) {
        ("v1", "ConfigMap") => de::<core::v1::ConfigMap>(item),
        ("v1", "ServiceAccount") => de::<core::v1::ServiceAccount>(item),
        ("v1", "Service") => de::<core::v1::Service>(item),
        (_, "Role") => de::<rbac::v1::Role>(item),
        (_, "RoleBinding") => de::<rbac::v1::RoleBinding>(item),
        (_, "Deployment") => de::<apps::v1::Deployment>(item),
        (_, "DaemonSet") => de::<apps::v1::DaemonSet>(item),
        (_, "CronJob") => de::<batch::v1::CronJob>(item),
        _ => de::<networking::v1::Ingress>(item),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn refused(item: Value) -> String {
        check(&item, "cf").unwrap_err().0
    }

    #[test]
    fn a_config_map_of_the_users_is_taken_into_the_runners_namespace() {
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ci-settings"}, "data": {"a": "b"}});
        assert_eq!(check(&cm, "cf").unwrap()["metadata"]["namespace"], "cf");
    }

    #[test]
    fn secrets_cluster_wide_foreign_and_reserved_objects_are_refused() {
        let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "stringData": {"k": "hunter2"}});
        assert!(refused(secret).contains("record"));
        let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "r"}});
        assert!(refused(role).contains("namespaced kinds"));
        let other = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "kube-system"}});
        assert!(refused(other).contains("kube-system"));
        let mine =
            json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "runner"}});
        assert!(refused(mine).contains("cf-runner gives"));
        let templated = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "{{ .Release.Namespace }}"}});
        assert!(refused(templated).contains("Helm template"));
        let bad = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"replicas": "two"}});
        assert!(refused(bad).contains("not a valid Deployment"));
    }
}
