//! Inventory: what an installation consists of, read back from the cluster.
//!
//! Everything `init` applies carries our labels, so an installation is found
//! by them alone: one LIST per kind cf-runner renders (namespaced kinds in
//! the installation's namespace, cluster-scoped kinds cluster-wide), plus the
//! record Secret that says which values made it. dind volumes are not ours
//! in the label sense (the runtime and the provisioner create them at build
//! time), so they are found by their `codefresh-app=dind` label and by the
//! StorageClass they were provisioned from.
//!
//! `info`, `delete` and `upgrade` (prune) all read the cluster through here,
//! so they agree on what "our objects" are.

use std::collections::BTreeSet;

use futures::future::join_all;
use kube::api::{DynamicObject, ListParams};
use kube::Client;
use serde_json::Value;

use super::{api_for, request, KubeError};
use crate::render::{
    record_keys, LABEL_COMPONENT, LABEL_INSTANCE, LABEL_MANAGED_BY, RECORD_SECRET,
};

/// Label the Codefresh runtime puts on dind PVCs and PVs.
pub const DIND_VOLUME_LABEL: (&str, &str) = ("codefresh-app", "dind");

/// A kind cf-runner renders (or ever rendered): where to list it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KindRef {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub namespaced: bool,
}

const fn kind(api_version: &'static str, kind: &'static str, namespaced: bool) -> KindRef {
    KindRef {
        api_version,
        kind,
        namespaced,
    }
}

/// Every kind the templates produce. A kind dropped from the templates stays
/// listed here, so `upgrade` can still prune and `delete` still remove what
/// an older version installed.
pub const RENDERED_KINDS: &[KindRef] = &[
    kind("v1", "Namespace", false),
    kind("storage.k8s.io/v1", "StorageClass", false),
    kind("rbac.authorization.k8s.io/v1", "ClusterRole", false),
    kind("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", false),
    kind("v1", "ServiceAccount", true),
    kind("rbac.authorization.k8s.io/v1", "Role", true),
    kind("rbac.authorization.k8s.io/v1", "RoleBinding", true),
    kind("v1", "Secret", true),
    kind("v1", "ConfigMap", true),
    kind("v1", "Service", true),
    kind("apps/v1", "Deployment", true),
    kind("apps/v1", "DaemonSet", true),
    kind("batch/v1", "CronJob", true),
    kind("networking.k8s.io/v1", "Ingress", true),
    // Served only where the prometheus-operator's CRDs are installed.
    kind("monitoring.coreos.com/v1", "ServiceMonitor", true),
    kind("monitoring.coreos.com/v1", "PodMonitor", true),
    kind("scheduling.k8s.io/v1", "PriorityClass", false),
    kind("gateway.networking.k8s.io/v1", "HTTPRoute", true),
];

/// True for a kind of an API the cluster may not serve (a CRD's kind: the
/// prometheus-operator's monitors, the Gateway API's HTTPRoute): where
/// listing it answers 404, none of ours exists, so `upgrade`, `delete` and
/// the ledger go on without it.
pub fn may_be_unserved(kind: &KindRef) -> bool {
    !super::served::is_builtin(kind.api_version)
}

/// True for a kind cf-runner renders only when a values key asks for it
/// (warm capacity's PriorityClass, the monitors, the app-proxy's
/// HTTPRoute). Users whose
/// role predates these kinds may not list them; reading them as none keeps
/// `info`, `delete` and `upgrade` working for every install without them.
/// Such a user could not have created one either.
pub fn rendered_on_request(kind: &KindRef) -> bool {
    may_be_unserved(kind) || kind.kind == "PriorityClass"
}

/// A LIST's answer, with the 404 of a kind [`may_be_unserved`], and the 403
/// of a kind [`rendered_on_request`], read as "nothing there" (`None`).
pub fn served<T>(kind: &KindRef, answer: Result<T, KubeError>) -> Result<Option<T>, KubeError> {
    match answer {
        Err(e) if e.code() == Some(404) && may_be_unserved(kind) => Ok(None),
        Err(e) if e.code() == Some(403) && rendered_on_request(kind) => Ok(None),
        other => other.map(Some),
    }
}

/// One object as it is in the cluster. Secret payloads are dropped on
/// reading, so nothing built from an inventory can leak them.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveObject {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    /// `None` for cluster-scoped objects.
    pub namespace: Option<String>,
    /// The object (without `data`/`stringData` for Secrets).
    pub object: Value,
}

impl LiveObject {
    /// Builds one from a listed item (LIST items carry no apiVersion/kind).
    pub fn from_dynamic(api_version: &str, kind: &str, item: &DynamicObject) -> LiveObject {
        let mut object = serde_json::to_value(item).unwrap_or(Value::Null);
        if kind == "Secret" {
            if let Some(map) = object.as_object_mut() {
                map.remove("data");
                map.remove("stringData");
            }
        }
        LiveObject {
            api_version: api_version.to_string(),
            kind: kind.to_string(),
            name: item.metadata.name.clone().unwrap_or_default(),
            namespace: item.metadata.namespace.clone(),
            object,
        }
    }

    /// `Kind/name`, for messages.
    pub fn display_name(&self) -> String {
        format!("{}/{}", self.kind, self.name)
    }

    /// A label's value.
    pub fn label(&self, key: &str) -> Option<&str> {
        self.object
            .pointer("/metadata/labels")
            .and_then(|l| l.get(key))
            .and_then(Value::as_str)
    }

    /// The `app.kubernetes.io/component` label (`runner`, `monitor`, …).
    pub fn component(&self) -> Option<&str> {
        self.label(LABEL_COMPONENT)
    }

    /// The object's uid, to tell it from a namesake created later.
    pub fn uid(&self) -> Option<&str> {
        self.object.pointer("/metadata/uid").and_then(Value::as_str)
    }

    /// True when a deletion has been requested and is in progress.
    pub fn is_deleting(&self) -> bool {
        self.object
            .pointer("/metadata/deletionTimestamp")
            .is_some_and(|v| !v.is_null())
    }

    /// A string field by JSON pointer, e.g. `/spec/storageClassName`.
    pub fn text(&self, pointer: &str) -> Option<&str> {
        self.object.pointer(pointer).and_then(Value::as_str)
    }

    /// True when both name the same object (kind, namespace and name).
    pub fn same_object(&self, kind: &str, namespace: Option<&str>, name: &str) -> bool {
        self.kind == kind && self.namespace.as_deref() == namespace && self.name == name
    }
}

/// What the record Secret says about the installation that made it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Record {
    /// The namespace it lives in (the installation's instance).
    pub namespace: String,
    /// The cf-runner version that last installed or upgraded it.
    pub cf_runner_version: Option<String>,
    /// The record layout; absent in records older than format 1.
    pub record_format: Option<String>,
    pub agent_name: Option<String>,
    pub runtime_name: Option<String>,
    /// Whether `init` registered the agent and runtime on the platform;
    /// `None` in records written before this was recorded.
    pub registered: Option<bool>,
    /// The merged values as YAML, secrets redacted.
    pub values_yaml: Option<String>,
}

/// The label selector of every object of one installation.
pub fn instance_selector(instance: &str) -> String {
    format!("{LABEL_MANAGED_BY}=cf-runner,{LABEL_INSTANCE}={instance}")
}

/// `Deployments in namespace ns` / `StorageClasses`, for messages.
fn list_what(kind: &str, namespace: Option<&str>) -> String {
    let plural = match kind.strip_suffix("ss") {
        Some(_) => format!("{kind}es"),
        None => format!("{kind}s"),
    };
    match namespace {
        Some(ns) => format!("{plural} in namespace {ns}"),
        None => plural,
    }
}

/// The namespaces holding an installation: every record Secret, plus the
/// instance label of our cluster-scoped objects (which outlive a namespace
/// that was deleted by hand, or an init that stopped before the record).
pub async fn installations(client: &Client) -> Result<Vec<String>, KubeError> {
    let record_selector = format!("{LABEL_MANAGED_BY}=cf-runner,{LABEL_COMPONENT}=record");
    let secrets = api_for(client, "v1", "Secret", None);
    let params = ListParams::default().labels(&record_selector);
    let records = request(
        "listing",
        &list_what("Secret", None),
        secrets.list_metadata(&params),
    )
    .await?;
    let mut found: BTreeSet<String> = records
        .items
        .into_iter()
        .filter(|s| s.metadata.name.as_deref() == Some(RECORD_SECRET))
        .filter_map(|s| s.metadata.namespace)
        .collect();
    let ours = ListParams::default().labels(&format!("{LABEL_MANAGED_BY}=cf-runner"));
    let cluster_kinds: Vec<&KindRef> = RENDERED_KINDS.iter().filter(|k| !k.namespaced).collect();
    let lists = join_all(cluster_kinds.iter().map(|k| {
        let api = api_for(client, k.api_version, k.kind, None);
        let lp = ours.clone();
        async move { request("listing", &list_what(k.kind, None), api.list_metadata(&lp)).await }
    }))
    .await;
    for (k, list) in cluster_kinds.iter().zip(lists) {
        let Some(list) = served(k, list)? else {
            continue;
        };
        found.extend(list.items.into_iter().filter_map(|o| {
            o.metadata
                .labels
                .and_then(|l| l.get(LABEL_INSTANCE).cloned())
        }));
    }
    Ok(found.into_iter().collect())
}

/// Reads the record Secret of the installation in `namespace`, if any.
pub async fn record(client: &Client, namespace: &str) -> Result<Option<Record>, KubeError> {
    let secret = super::secrets::read_text(client, namespace, RECORD_SECRET).await?;
    Ok(secret.map(|data| {
        let field = |k: &str| data.get(k).cloned();
        Record {
            namespace: namespace.to_string(),
            cf_runner_version: field(record_keys::VERSION),
            record_format: field(record_keys::FORMAT),
            agent_name: field(record_keys::AGENT_NAME),
            // An agent installed alone records none (an empty name).
            runtime_name: field(record_keys::RUNTIME_NAME).filter(|n| !n.is_empty()),
            registered: field(record_keys::REGISTERED).map(|v| v == "true"),
            values_yaml: field(record_keys::VALUES),
        }
    }))
}

/// One object by name, whoever manages it (e.g. a StorageClass the user
/// brought); `None` when it does not exist.
pub async fn get(
    client: &Client,
    api_version: &str,
    kind: &str,
    namespace: Option<&str>,
    name: &str,
) -> Result<Option<LiveObject>, KubeError> {
    let api = api_for(client, api_version, kind, namespace);
    let item = request("reading", &format!("{kind}/{name}"), api.get_opt(name)).await?;
    Ok(item.map(|i| LiveObject::from_dynamic(api_version, kind, &i)))
}

/// Every object carrying the labels of installation `instance`, in the
/// order of [`RENDERED_KINDS`] and by name within a kind.
pub async fn labelled(client: &Client, instance: &str) -> Result<Vec<LiveObject>, KubeError> {
    let lp = ListParams::default().labels(&instance_selector(instance));
    let lists = join_all(RENDERED_KINDS.iter().map(|k| {
        let ns = k.namespaced.then_some(instance);
        let api = api_for(client, k.api_version, k.kind, ns);
        let lp = lp.clone();
        async move {
            (
                k,
                request("listing", &list_what(k.kind, ns), api.list(&lp)).await,
            )
        }
    }))
    .await;
    let mut out = Vec::new();
    for (k, list) in lists {
        let Some(mut list) = served(k, list)? else {
            continue;
        };
        list.items
            .sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
        out.extend(
            list.items
                .iter()
                .map(|item| LiveObject::from_dynamic(k.api_version, k.kind, item)),
        );
    }
    Ok(out)
}

/// Which PVCs and PVs are the dind volumes of an installation.
#[derive(Debug, Clone, Default)]
pub struct VolumeScope {
    /// The installation's namespace (where the dind PVCs are).
    pub namespace: String,
    /// StorageClasses that exist only for this installation: every volume of
    /// such a class is a dind volume of it.
    pub own_classes: Vec<String>,
}

impl VolumeScope {
    /// True for a dind PVC of this installation.
    pub fn has_claim(&self, pvc: &LiveObject) -> bool {
        pvc.namespace.as_deref() == Some(&self.namespace)
            && (pvc.label(DIND_VOLUME_LABEL.0) == Some(DIND_VOLUME_LABEL.1)
                || self.is_own_class(pvc.text("/spec/storageClassName")))
    }

    /// True for a dind PV of this installation: of one of our classes, or
    /// labelled as a dind volume and claimed from our namespace.
    pub fn has_volume(&self, pv: &LiveObject) -> bool {
        self.is_own_class(pv.text("/spec/storageClassName"))
            || (pv.label(DIND_VOLUME_LABEL.0) == Some(DIND_VOLUME_LABEL.1)
                && pv.text("/spec/claimRef/namespace") == Some(&self.namespace))
    }

    fn is_own_class(&self, class: Option<&str>) -> bool {
        class.is_some_and(|c| self.own_classes.iter().any(|o| o == c))
    }
}

/// The dind PVCs (in the namespace) and PVs (cluster-wide) of an installation.
pub async fn volumes(client: &Client, scope: &VolumeScope) -> Result<Vec<LiveObject>, KubeError> {
    let pvcs = api_for(
        client,
        "v1",
        "PersistentVolumeClaim",
        Some(&scope.namespace),
    );
    let pvs = api_for(client, "v1", "PersistentVolume", None);
    let lp = ListParams::default();
    let pvc_what = list_what("PersistentVolumeClaim", Some(&scope.namespace));
    let pv_what = list_what("PersistentVolume", None);
    let (pvcs, pvs) = futures::join!(
        request("listing", &pvc_what, pvcs.list(&lp)),
        request("listing", &pv_what, pvs.list(&lp))
    );
    let (pvcs, pvs) = (pvcs?, pvs?);
    let mut out: Vec<LiveObject> = pvcs
        .items
        .iter()
        .map(|i| LiveObject::from_dynamic("v1", "PersistentVolumeClaim", i))
        .filter(|o| scope.has_claim(o))
        .collect();
    out.extend(
        pvs.items
            .iter()
            .map(|i| LiveObject::from_dynamic("v1", "PersistentVolume", i))
            .filter(|o| scope.has_volume(o)),
    );
    out.sort_by(|a, b| (&a.kind, &a.name).cmp(&(&b.kind, &b.name)));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn live(kind: &str, ns: Option<&str>, object: Value) -> LiveObject {
        LiveObject {
            api_version: "v1".into(),
            kind: kind.into(),
            name: object["metadata"]["name"].as_str().unwrap_or("x").into(),
            namespace: ns.map(str::to_string),
            object,
        }
    }

    fn scope() -> VolumeScope {
        VolumeScope {
            namespace: "ci".into(),
            own_classes: vec!["dind-local-volumes-runner-ci".into()],
        }
    }

    #[test]
    fn a_pvc_is_ours_by_label_or_by_our_class_and_only_in_our_namespace() {
        let labelled = live(
            "PersistentVolumeClaim",
            Some("ci"),
            json!({"metadata": {"name": "a", "labels": {"codefresh-app": "dind"}}, "spec": {"storageClassName": "fast"}}),
        );
        let by_class = live(
            "PersistentVolumeClaim",
            Some("ci"),
            json!({"metadata": {"name": "b"}, "spec": {"storageClassName": "dind-local-volumes-runner-ci"}}),
        );
        let users = live(
            "PersistentVolumeClaim",
            Some("ci"),
            json!({"metadata": {"name": "c"}, "spec": {"storageClassName": "fast"}}),
        );
        let elsewhere = live(
            "PersistentVolumeClaim",
            Some("other"),
            json!({"metadata": {"name": "d", "labels": {"codefresh-app": "dind"}}}),
        );
        assert!(scope().has_claim(&labelled));
        assert!(scope().has_claim(&by_class));
        assert!(!scope().has_claim(&users));
        assert!(!scope().has_claim(&elsewhere));
    }

    #[test]
    fn a_pv_of_a_shared_class_is_ours_only_when_claimed_from_our_namespace() {
        let ours = live(
            "PersistentVolume",
            None,
            json!({"metadata": {"name": "a"}, "spec": {"storageClassName": "dind-local-volumes-runner-ci"}}),
        );
        let claimed = live(
            "PersistentVolume",
            None,
            json!({"metadata": {"name": "b", "labels": {"codefresh-app": "dind"}},
                   "spec": {"storageClassName": "fast", "claimRef": {"namespace": "ci"}}}),
        );
        let other_runner = live(
            "PersistentVolume",
            None,
            json!({"metadata": {"name": "c", "labels": {"codefresh-app": "dind"}},
                   "spec": {"storageClassName": "fast", "claimRef": {"namespace": "other"}}}),
        );
        let users = live(
            "PersistentVolume",
            None,
            json!({"metadata": {"name": "d"}, "spec": {"storageClassName": "fast", "claimRef": {"namespace": "ci"}}}),
        );
        assert!(scope().has_volume(&ours));
        assert!(scope().has_volume(&claimed));
        assert!(!scope().has_volume(&other_runner));
        assert!(!scope().has_volume(&users));
    }

    #[test]
    fn secret_payloads_are_dropped_on_reading() {
        let item: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "runner", "namespace": "ci"},
            "data": {"codefresh.token": "c2VjcmV0"}
        }))
        .unwrap();
        let o = LiveObject::from_dynamic("v1", "Secret", &item);
        assert!(o.object.get("data").is_none());
        assert_eq!(o.display_name(), "Secret/runner");
    }
}
