//! Read-only look-ups that let the `init` wizard suggest answers: the
//! kubeconfig's contexts, and a cluster's namespaces, StorageClasses, node
//! zones and IngressClasses. Nothing here writes to a cluster, and every
//! list is optional: a cluster that cannot be reached, or a user who may not
//! list nodes, only means fewer suggestions.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, Node};
use k8s_openapi::api::networking::v1::IngressClass;
use k8s_openapi::api::storage::v1::StorageClass;
use kube::api::{Api, ListParams};
use kube::core::{ObjectList, PartialObjectMeta};

use super::{connect, root_cause, ConnectOptions, KubeError};
use crate::render::runtimes::AGENT_DEPLOYMENT;

/// The label every node carries with its zone (cloud providers set it).
pub const ZONE_LABEL: &str = "topology.kubernetes.io/zone";

/// The annotation that marks the default StorageClass or IngressClass.
const DEFAULT_CLASS_ANNOTATIONS: &[&str] = &[
    "storageclass.kubernetes.io/is-default-class",
    "ingressclass.kubernetes.io/is-default-class",
];

/// The contexts of a kubeconfig file (read from disk; no cluster contacted).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Contexts {
    /// The file they were read from.
    pub path: Option<PathBuf>,
    /// Context names, in the file's order.
    pub names: Vec<String>,
    /// The file's `current-context`, when it names one of `names`.
    pub current: Option<String>,
}

/// Lists the contexts of the kubeconfig `connect` would read. A missing
/// file gives no contexts; a file that does not parse is an error.
pub fn contexts(explicit: Option<&PathBuf>) -> Result<Contexts, KubeError> {
    let Some((config, _)) = super::read_kubeconfig(explicit)? else {
        return Ok(Contexts::default());
    };
    let path = super::kubeconfig_path(explicit);
    let names: Vec<String> = config.contexts.iter().map(|c| c.name.clone()).collect();
    let current = config.current_context.filter(|c| names.contains(c));
    Ok(Contexts {
        path,
        names,
        current,
    })
}

/// A StorageClass already in the cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageClassInfo {
    /// The class's name.
    pub name: String,
    /// Who provisions its volumes, e.g. `ebs.csi.aws.com`.
    pub provisioner: String,
    /// Marked as the cluster's default class.
    pub is_default: bool,
}

/// An IngressClass already in the cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IngressClassInfo {
    /// The class's name.
    pub name: String,
    /// Annotated as the cluster's default class.
    pub is_default: bool,
}

/// A namespace already in the cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamespaceInfo {
    /// The namespace's name.
    pub name: String,
    /// Carries cf-runner's `managed-by` label: an earlier install lives there.
    pub managed_by_us: bool,
}

/// What the wizard could learn about a cluster. `None` means "could not be
/// listed"; an empty list means "listed, none there".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    /// The namespaces.
    pub namespaces: Option<Vec<NamespaceInfo>>,
    /// The StorageClasses.
    pub storage_classes: Option<Vec<StorageClassInfo>>,
    /// Distinct values of the nodes' zone label, sorted.
    pub zones: Option<Vec<String>>,
    /// The IngressClasses.
    pub ingress_classes: Option<Vec<IngressClassInfo>>,
    /// Namespaces holding a cf-runner agent (its Deployment carries
    /// cf-runner's labels), sorted; empty when they could not be listed.
    pub agents: Vec<String>,
}

/// Connects with `options` and lists what the wizard suggests from, all
/// within `budget`. Fails only when the cluster cannot be reached at all;
/// a single list the user may not read is left `None`.
pub async fn facts(options: &ConnectOptions, budget: Duration) -> Result<Facts, String> {
    let work = async {
        let cluster = connect(options).await.map_err(|e| e.chain_text())?;
        let client = cluster.client;
        let lp = ListParams::default();
        let namespaces = Api::<Namespace>::all(client.clone());
        let classes = Api::<StorageClass>::all(client.clone());
        let nodes = Api::<Node>::all(client.clone());
        let ingress = Api::<IngressClass>::all(client.clone());
        let deployments = Api::<Deployment>::all(client);
        let agent_labels = ListParams::default().labels(&format!(
            "{}=cf-runner,{}={}",
            crate::render::LABEL_MANAGED_BY,
            crate::render::LABEL_COMPONENT,
            crate::render::Component::Runner.as_str()
        ));
        let (namespaces, classes, nodes, ingress, agents) = futures::join!(
            namespaces.list_metadata(&lp),
            classes.list(&lp),
            nodes.list_metadata(&lp),
            ingress.list_metadata(&lp),
            deployments.list_metadata(&agent_labels),
        );
        // Only when every list failed for the same transport reason is the
        // cluster unreachable; a 403 on one list is just a missing permission.
        if let (Err(e), Err(_), Err(_), Err(_)) = (&namespaces, &classes, &nodes, &ingress) {
            if !matches!(e, kube::Error::Api(_)) {
                return Err(root_cause(e));
            }
        }
        let agents: BTreeSet<String> = agents
            .map(|list| list.items)
            .unwrap_or_default()
            .into_iter()
            .filter(|d| d.metadata.name.as_deref() == Some(AGENT_DEPLOYMENT))
            .filter_map(|d| d.metadata.namespace)
            .collect();
        Ok(Facts {
            agents: agents.into_iter().collect(),
            namespaces: namespaces.ok().map(namespace_infos),
            storage_classes: classes.ok().map(storage_class_infos),
            zones: nodes.ok().map(node_zones),
            ingress_classes: ingress.ok().map(ingress_class_infos),
        })
    };
    match tokio::time::timeout(budget, work).await {
        Ok(result) => result,
        Err(_) => Err(format!(
            "no answer within {}s",
            budget.as_secs_f32().round() as u64
        )),
    }
}

/// True for a class annotated as the cluster's default.
fn is_default_class(annotations: &Option<std::collections::BTreeMap<String, String>>) -> bool {
    annotations.as_ref().is_some_and(|a| {
        DEFAULT_CLASS_ANNOTATIONS
            .iter()
            .any(|k| a.get(*k).is_some_and(|v| v == "true"))
    })
}

/// The namespaces, each marked when cf-runner manages it.
fn namespace_infos(list: ObjectList<PartialObjectMeta<Namespace>>) -> Vec<NamespaceInfo> {
    list.items
        .into_iter()
        .filter_map(|n| {
            let managed_by_us = n.metadata.labels.as_ref().is_some_and(|l| {
                l.get("app.kubernetes.io/managed-by")
                    .is_some_and(|v| v == "cf-runner")
            });
            n.metadata.name.map(|name| NamespaceInfo {
                name,
                managed_by_us,
            })
        })
        .collect()
}

/// The StorageClasses, with their provisioners.
fn storage_class_infos(list: ObjectList<StorageClass>) -> Vec<StorageClassInfo> {
    list.items
        .into_iter()
        .filter_map(|c| {
            Some(StorageClassInfo {
                is_default: is_default_class(&c.metadata.annotations),
                name: c.metadata.name?,
                provisioner: c.provisioner,
            })
        })
        .collect()
}

/// The zones the nodes are in, each once, sorted.
fn node_zones(list: ObjectList<PartialObjectMeta<Node>>) -> Vec<String> {
    list.items
        .into_iter()
        .filter_map(|n| n.metadata.labels?.get(ZONE_LABEL).cloned())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// The IngressClasses.
fn ingress_class_infos(list: ObjectList<PartialObjectMeta<IngressClass>>) -> Vec<IngressClassInfo> {
    list.items
        .into_iter()
        .filter_map(|c| {
            Some(IngressClassInfo {
                is_default: is_default_class(&c.metadata.annotations),
                name: c.metadata.name?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contexts_come_from_the_file_with_the_current_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config");
        std::fs::write(
            &path,
            "apiVersion: v1\nkind: Config\ncurrent-context: b\nclusters: []\nusers: []\n\
             contexts:\n- name: a\n  context: {cluster: x, user: y}\n- name: b\n  context: {cluster: x, user: y}\n",
        )
        .unwrap();
        let found = contexts(Some(&path)).unwrap();
        assert_eq!(found.names, vec!["a", "b"]);
        assert_eq!(found.current.as_deref(), Some("b"));
    }

    #[test]
    fn a_missing_kubeconfig_has_no_contexts() {
        let dir = tempfile::tempdir().unwrap();
        let found = contexts(Some(&dir.path().join("nope"))).unwrap();
        assert_eq!(found, Contexts::default());
    }

    #[test]
    fn an_unreachable_cluster_is_reported_within_the_budget() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config");
        std::fs::write(
            &path,
            "apiVersion: v1\nkind: Config\ncurrent-context: nowhere\n\
             clusters:\n- name: x\n  cluster: {server: 'https://127.0.0.1:1'}\n\
             users:\n- name: y\n  user: {token: t}\n\
             contexts:\n- name: nowhere\n  context: {cluster: x, user: y}\n",
        )
        .unwrap();
        let _ = rustls::crypto::ring::default_provider().install_default();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let started = std::time::Instant::now();
        let result = rt.block_on(facts(
            &ConnectOptions {
                kubeconfig: Some(path),
                context: None,
            },
            Duration::from_secs(5),
        ));
        assert!(result.is_err(), "{result:?}");
        assert!(started.elapsed() < Duration::from_secs(6));
    }
}
