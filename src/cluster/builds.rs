//! What `diagnose` reads about the builds of one runtime namespace: its
//! pods, events and volume claims (the namespace's own objects, which a
//! user who may only read the namespace can see), and, when the user may,
//! the cluster-wide objects that explain them: nodes, the pods on them
//! (for the free room of each node) and the dind PersistentVolumes. Only
//! reads: nothing here creates, changes or deletes anything.

use kube::Client;
use serde_json::Value;

use super::support::list;
use super::KubeError;

/// The objects one runtime namespace's builds are judged from.
#[derive(Debug, Clone, Default)]
pub struct BuildReads {
    /// Every pod of the namespace (build pods are picked out by the caller).
    pub pods: Vec<Value>,
    /// Every event of the namespace.
    pub events: Vec<Value>,
    /// The namespace's PersistentVolumeClaims (empty when they may not be read).
    pub claims: Vec<Value>,
    /// The nodes, when the user may list them.
    pub nodes: Option<Vec<Value>>,
    /// Every pod of the cluster, when the user may list them: what the
    /// scheduler already gave away on each node.
    pub pods_on_nodes: Option<Vec<Value>>,
    /// The PersistentVolumes, when the user may list them.
    pub volumes: Option<Vec<Value>>,
    /// What could not be read, each as `what: why`.
    pub unread: Vec<String>,
}

/// Reads the builds' objects of `namespace`. Fails only when the pods or
/// the events cannot be read: without them there is nothing to judge.
pub async fn read(client: &Client, namespace: &str) -> Result<BuildReads, KubeError> {
    let mut unread = Vec::new();
    let mut optional = |what: &str, got: Result<Vec<Value>, KubeError>| match got {
        Ok(items) => Some(items),
        Err(e) => {
            unread.push(format!("{what}: {e}"));
            None
        }
    };
    let nodes = optional("Nodes", list(client, "v1", "Node", None).await);
    // Where every pod may be listed, the namespace's are among them: one
    // list instead of two (the larger part of the time on a busy namespace).
    let pods_on_nodes = match nodes {
        Some(_) => optional("pods cluster-wide", list(client, "v1", "Pod", None).await),
        None => None,
    };
    let pods = match &pods_on_nodes {
        Some(all) => all
            .iter()
            .filter(|p| p.pointer("/metadata/namespace").and_then(Value::as_str) == Some(namespace))
            .cloned()
            .collect(),
        None => list(client, "v1", "Pod", Some(namespace)).await?,
    };
    let events = list(client, "v1", "Event", Some(namespace)).await?;
    let claims = optional(
        "PersistentVolumeClaims",
        list(client, "v1", "PersistentVolumeClaim", Some(namespace)).await,
    )
    .unwrap_or_default();
    let volumes = optional(
        "PersistentVolumes",
        list(client, "v1", "PersistentVolume", None).await,
    );
    Ok(BuildReads {
        pods,
        events,
        claims,
        nodes,
        pods_on_nodes,
        volumes,
        unread,
    })
}
