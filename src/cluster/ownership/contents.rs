//! What a namespace holds besides cf-runner's objects, their dependents and
//! what Kubernetes keeps in every namespace: what `delete
//! --delete-namespace` would take with it that is not cf-runner's.

use std::collections::{BTreeMap, BTreeSet};

use futures::future::join_all;
use kube::api::{Api, ApiResource, DynamicObject, ListParams};
use kube::discovery::{verbs, Discovery, Scope};
use kube::Client;
use serde_json::Value;

use super::{label, other_managers, text};
use crate::cluster::{request, KubeError};

/// What a namespace holds besides cf-runner's objects and what Kubernetes
/// puts in every namespace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Contents {
    /// `Kind/name` of every other object, sorted.
    pub others: Vec<String>,
    /// Resource types that could not be listed, with why
    /// (`secrets: forbidden`).
    pub unlisted: Vec<String>,
}

impl Contents {
    /// True when the namespace holds nothing else, as far as could be seen.
    pub fn is_empty(&self) -> bool {
        self.others.is_empty() && self.unlisted.is_empty()
    }

    /// The first `max` objects, then how many more.
    pub fn first(&self, max: usize) -> String {
        let mut out = self
            .others
            .iter()
            .take(max)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        if self.others.len() > max {
            out.push_str(&format!(" and {} more", self.others.len() - max));
        }
        out
    }
}

/// True for what Kubernetes itself keeps in every namespace, and for
/// events, which are records of what happened rather than workloads.
pub(super) fn is_kubernetes_own(group: &str, kind: &str, object: &Value) -> bool {
    let name = text(object, "/metadata/name").unwrap_or_default();
    (group.is_empty() || group == "events.k8s.io") && kind == "Event"
        || group.is_empty() && kind == "ConfigMap" && name == "kube-root-ca.crt"
        || group.is_empty() && kind == "ServiceAccount" && name == "default"
}

/// True for the install's lock (`cluster::lock`): the Lease the deleting
/// run itself holds, or one a run of cf-runner left. It is made by a plain
/// create (two runs must not both win it), so it has no `Apply` entry, and
/// it goes with the namespace.
pub(super) fn is_install_lock(group: &str, kind: &str, object: &Value) -> bool {
    group == "coordination.k8s.io"
        && kind == "Lease"
        && text(object, "/metadata/name") == Some(crate::cluster::marks::LEASE_NAME)
        && label(object, crate::render::LABEL_MANAGED_BY) == Some("cf-runner")
}

/// Lists every namespaced resource type the user may list (found by
/// discovery) in `namespace`, and gives what is not cf-runner's:
/// `ours` are the uids of the objects cf-runner deletes with the
/// namespace; their dependents (pods of their ReplicaSets, EndpointSlices
/// and Endpoints of their Services, …) go with them. A type that cannot be
/// listed is named in [`Contents::unlisted`].
pub async fn namespace_contents(
    client: &Client,
    namespace: &str,
    ours: &BTreeSet<String>,
) -> Result<Contents, KubeError> {
    let types = listable_types(client).await?;
    let lists = join_all(types.iter().map(|ar| async move {
        let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), namespace, ar);
        let what = format!("{} in namespace {namespace}", ar.plural);
        request("listing", &what, api.list_metadata(&ListParams::default())).await
    }))
    .await;
    let mut contents = Contents::default();
    let mut items: Vec<Item> = Vec::new();
    for (ar, list) in types.iter().zip(lists) {
        match list {
            Ok(list) => {
                for item in list.items {
                    let value = serde_json::to_value(&item).unwrap_or(Value::Null);
                    if !is_kubernetes_own(&ar.group, &ar.kind, &value)
                        && !is_install_lock(&ar.group, &ar.kind, &value)
                    {
                        items.push((ar.group.clone(), ar.kind.clone(), value));
                    }
                }
            }
            Err(e) => {
                let why = match e.code() {
                    Some(403) => "your user may not list them".to_string(),
                    _ => crate::cluster::root_cause(&e),
                };
                let name = if ar.group.is_empty() {
                    ar.plural.clone()
                } else {
                    format!("{}.{}", ar.plural, ar.group)
                };
                contents.unlisted.push(format!("{name} ({why})"));
            }
        }
    }
    let gone = gone_with(ours, &items);
    let mut others: BTreeMap<String, ()> = BTreeMap::new();
    for (_, kind, v) in &items {
        if !gone.contains(&uid(v)) {
            others.insert(format!("{kind}/{}", name(v)), ());
        }
    }
    contents.others = others.into_keys().collect();
    contents.unlisted.sort();
    Ok(contents)
}

/// One listed object: its API group, its kind, its metadata.
type Item = (String, String, Value);

fn uid(v: &Value) -> String {
    text(v, "/metadata/uid").unwrap_or_default().to_string()
}

fn name(v: &Value) -> String {
    text(v, "/metadata/name").unwrap_or_default().to_string()
}

/// Every namespaced resource type that may be listed, found by discovery
/// (aggregated when the server has it). Metrics are views of pods, not
/// objects of their own.
async fn listable_types(client: &Client) -> Result<Vec<ApiResource>, KubeError> {
    let discovery = match Discovery::new(client.clone()).run_aggregated().await {
        Ok(d) => d,
        Err(_) => Discovery::new(client.clone())
            .run()
            .await
            .map_err(|e| KubeError::from_kube("discovering", "the cluster's resource types", e))?,
    };
    let mut types = Vec::new();
    for group in discovery.groups() {
        if group.name() == "metrics.k8s.io" {
            continue;
        }
        for (ar, caps) in group.recommended_resources() {
            if caps.scope == Scope::Namespaced && caps.supports_operation(verbs::LIST) {
                types.push(ar);
            }
        }
    }
    Ok(types)
}

/// The uids that go when cf-runner deletes `ours`: those, and anything
/// owned (through ownerReferences, however deep) by one of them, the
/// Endpoints named after its Services, and the token Secrets of its
/// accounts.
fn gone_with(ours: &BTreeSet<String>, items: &[Item]) -> BTreeSet<String> {
    let mut gone: BTreeSet<String> = ours.clone();
    let mut service_names: BTreeSet<String> = BTreeSet::new();
    let mut account_names: BTreeSet<String> = ["default".to_string()].into();
    for (group, kind, v) in items {
        if gone.contains(&uid(v)) && group.is_empty() {
            match kind.as_str() {
                "Service" => {
                    service_names.insert(name(v));
                }
                "ServiceAccount" => {
                    account_names.insert(name(v));
                }
                _ => {}
            }
        }
    }
    loop {
        let before = gone.len();
        for (group, kind, v) in items {
            if gone.contains(&uid(v)) {
                continue;
            }
            let owned = v
                .pointer("/metadata/ownerReferences")
                .and_then(Value::as_array)
                .is_some_and(|refs| {
                    refs.iter()
                        .any(|r| text(r, "/uid").is_some_and(|u| gone.contains(u)))
                });
            let endpoints =
                group.is_empty() && kind == "Endpoints" && service_names.contains(&name(v));
            let token = group.is_empty()
                && kind == "Secret"
                && text(
                    v,
                    "/metadata/annotations/kubernetes.io~1service-account.name",
                )
                .is_some_and(|a| account_names.contains(a))
                && other_managers(v).is_empty();
            if owned || endpoints || token {
                gone.insert(uid(v));
            }
        }
        if gone.len() == before {
            break;
        }
    }
    gone
}
