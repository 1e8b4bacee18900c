//! Nodes: a schedulable node with room exists for every component, matching
//! its node selector.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Node;
use kube::api::{Api, ListParams};
use kube::Client;
use serde_json::Value;

use super::{api_message, names, Check, Status};
use crate::kube::KubeError;
use crate::render::Manifest;
use crate::values::quantity_value;

/// Allocatable CPU (cores) a node needs for the runner.
pub const MIN_NODE_CPU: f64 = 0.5;
/// Allocatable memory (bytes) a node needs for the runner.
pub const MIN_NODE_MEMORY: f64 = 1024.0 * 1024.0 * 1024.0;

/// What the node check needs to know about one node.
#[derive(Debug, Clone, Default)]
pub struct NodeInfo {
    pub name: String,
    pub allocatable_cpu: Option<String>,
    pub allocatable_memory: Option<String>,
    pub labels: BTreeMap<String, String>,
    pub unschedulable: bool,
}

impl NodeInfo {
    /// True when the node is schedulable and has the CPU and memory.
    pub fn fits(&self) -> bool {
        let at_least = |q: &Option<String>, min: f64| {
            q.as_deref()
                .and_then(quantity_value)
                .is_some_and(|v| v >= min)
        };
        !self.unschedulable
            && at_least(&self.allocatable_cpu, MIN_NODE_CPU)
            && at_least(&self.allocatable_memory, MIN_NODE_MEMORY)
    }
}

/// Decides the node check. `selector` is the runner Deployment's node
/// selector: a node that fits but does not match it is no use to the runner.
pub fn node_capacity(nodes: &[NodeInfo], selector: &BTreeMap<String, String>) -> Check {
    let need = "500m CPU and 1Gi memory allocatable";
    let fitting: Vec<&NodeInfo> = nodes.iter().filter(|n| n.fits()).collect();
    if fitting.is_empty() {
        return Check::fail(
            names::NODES,
            if nodes.is_empty() {
                "the cluster has no nodes".to_string()
            } else {
                format!(
                    "none of the {} node(s) is schedulable with {need}",
                    nodes.len()
                )
            },
            "add a node (or a node pool) with at least 500m CPU and 1Gi memory, or uncordon one",
        );
    }
    if selector.is_empty() {
        return Check::pass(
            names::NODES,
            format!("{} of {} node(s) have {need}", fitting.len(), nodes.len()),
        );
    }
    let shown: Vec<String> = selector.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let shown = shown.join(",");
    let matching = fitting
        .iter()
        .filter(|n| selector.iter().all(|(k, v)| n.labels.get(k) == Some(v)))
        .count();
    if matching == 0 {
        return Check::warn(
            names::NODES,
            format!(
                "{} node(s) have {need}, but none matches the runner's node selector {shown}",
                fitting.len()
            ),
            "label a node to match (kubectl label node NAME key=value) or change --kube-node-selector; \
             until then the runner stays Pending",
        );
    }
    Check::pass(
        names::NODES,
        format!("{matching} node(s) matching {shown} have {need}"),
    )
}

fn node_info(node: &Node) -> NodeInfo {
    let allocatable = node.status.as_ref().and_then(|s| s.allocatable.as_ref());
    let get = |k: &str| allocatable.and_then(|a| a.get(k)).map(|q| q.0.clone());
    NodeInfo {
        name: node.metadata.name.clone().unwrap_or_default(),
        allocatable_cpu: get("cpu"),
        allocatable_memory: get("memory"),
        labels: node.metadata.labels.clone().unwrap_or_default(),
        unschedulable: node
            .spec
            .as_ref()
            .and_then(|s| s.unschedulable)
            .unwrap_or(false),
    }
}

/// Every component's node selector: the workloads rendered, and the build
/// pods (engine and dind) of the runtime environment.
pub fn component_selectors(
    manifests: &[Manifest],
    runtime_environment: Option<&Value>,
) -> Vec<(String, BTreeMap<String, String>)> {
    let as_map = |v: Option<&Value>| -> BTreeMap<String, String> {
        v.and_then(Value::as_object)
            .map(|o| {
                o.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut out: Vec<(String, BTreeMap<String, String>)> = manifests
        .iter()
        .filter(|m| m.kind == "Deployment" || m.kind == "DaemonSet")
        .map(|m| {
            (
                m.display_name(),
                as_map(m.object.pointer("/spec/template/spec/nodeSelector")),
            )
        })
        .collect();
    if let Some(re) = runtime_environment {
        for (what, pointer) in [
            (
                "build engine pods",
                "/runtimeScheduler/cluster/nodeSelector",
            ),
            (
                "build dind pods",
                "/dockerDaemonScheduler/cluster/nodeSelector",
            ),
        ] {
            out.push((what.to_string(), as_map(re.pointer(pointer))));
        }
    }
    out
}

/// The components no schedulable node with room can take, each with its
/// selector: those would stay Pending for ever.
pub fn unschedulable(
    nodes: &[NodeInfo],
    components: &[(String, BTreeMap<String, String>)],
) -> Vec<String> {
    let fitting: Vec<&NodeInfo> = nodes.iter().filter(|n| n.fits()).collect();
    components
        .iter()
        .filter(|(_, selector)| !selector.is_empty())
        .filter(|(_, selector)| {
            !fitting
                .iter()
                .any(|n| selector.iter().all(|(k, v)| n.labels.get(k) == Some(v)))
        })
        .map(|(component, selector)| {
            let shown: Vec<String> = selector.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!(
                "{component}: no schedulable node with 500m CPU and 1Gi memory matches {}",
                shown.join(",")
            )
        })
        .collect()
}

pub(super) async fn check_nodes(
    client: &Client,
    manifests: &[Manifest],
    runtime_environment: Option<&Value>,
) -> Check {
    let api: Api<Node> = Api::all(client.clone());
    let nodes = match api.list(&ListParams::default()).await {
        Ok(list) => list.items,
        Err(e) => {
            let err = KubeError::from_kube("listing", "nodes", e);
            let (reason, fix) = if err.code() == Some(403) {
                (
                    "your user may not list nodes, so their capacity was not checked".to_string(),
                    "make sure a node has 500m CPU and 1Gi memory allocatable, or ask for `list nodes` to have it checked",
                )
            } else {
                (
                    format!("could not list nodes: {}", api_message(&err)),
                    "make sure a node has 500m CPU and 1Gi memory allocatable",
                )
            };
            return Check::warn(names::NODES, reason, fix);
        }
    };
    let selector: BTreeMap<String, String> = manifests
        .iter()
        .find(|m| m.kind == "Deployment" && m.name == "runner")
        .and_then(|m| m.object.pointer("/spec/template/spec/nodeSelector"))
        .and_then(Value::as_object)
        .map(|o| {
            o.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default();
    let infos: Vec<NodeInfo> = nodes.iter().map(node_info).collect();
    let capacity = node_capacity(&infos, &selector);
    if capacity.status == Status::Fail {
        return capacity;
    }
    let stuck = unschedulable(&infos, &component_selectors(manifests, runtime_environment));
    if stuck.is_empty() {
        return capacity;
    }
    Check::fail(
        names::NODES,
        format!(
            "{} component(s) could never be scheduled: no node matches their node selector",
            stuck.len()
        ),
        "label nodes to match (kubectl label node NAME key=value), or change the node selector \
         (--kube-node-selector, --build-node-selector, Storage.AvailabilityZone)",
    )
    .with_details(stuck)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(cpu: &str, memory: &str) -> NodeInfo {
        NodeInfo {
            name: "n".into(),
            allocatable_cpu: Some(cpu.into()),
            allocatable_memory: Some(memory.into()),
            ..Default::default()
        }
    }

    #[test]
    fn node_capacity_parses_quantities() {
        assert!(node("500m", "1Gi").fits());
        assert!(node("4", "16Gi").fits());
        assert!(node("0.5", "1073741824").fits());
        assert!(node("1", "1100M").fits());
        assert!(!node("499m", "8Gi").fits());
        assert!(!node("2", "1000Mi").fits());
        assert!(!node("2", "1G").fits(), "1G is less than 1Gi");
        assert!(!node("garbage", "8Gi").fits());
        let cordoned = NodeInfo {
            unschedulable: true,
            ..node("8", "32Gi")
        };
        assert!(!cordoned.fits());
    }

    #[test]
    fn node_check_fails_without_capacity_and_warns_on_an_unmatched_selector() {
        let none = BTreeMap::new();
        assert_eq!(node_capacity(&[], &none).status, Status::Fail);
        assert_eq!(
            node_capacity(&[node("250m", "512Mi")], &none).status,
            Status::Fail
        );
        assert_eq!(
            node_capacity(&[node("250m", "512Mi"), node("1", "2Gi")], &none).status,
            Status::Pass
        );
        let selector = BTreeMap::from([("pool".to_string(), "ci".to_string())]);
        let unmatched = node_capacity(&[node("1", "2Gi")], &selector);
        assert_eq!(unmatched.status, Status::Warn);
        assert!(unmatched.reason.contains("pool=ci"), "{}", unmatched.reason);
        let labelled = NodeInfo {
            labels: selector.clone(),
            ..node("1", "2Gi")
        };
        assert_eq!(node_capacity(&[labelled], &selector).status, Status::Pass);
    }

    #[test]
    fn a_component_pinned_where_no_node_is_cannot_be_scheduled() {
        let mut in_zone = node("2", "4Gi");
        in_zone
            .labels
            .insert("topology.kubernetes.io/zone".into(), "us-east-1a".into());
        let pinned = |zone: &str| {
            BTreeMap::from([("topology.kubernetes.io/zone".to_string(), zone.to_string())])
        };
        let components = vec![
            ("Deployment/runner".to_string(), BTreeMap::new()),
            ("build dind pods".to_string(), pinned("us-east-1b")),
            (
                "DaemonSet/dind-lv-monitor".to_string(),
                pinned("us-east-1a"),
            ),
        ];
        assert_eq!(
            unschedulable(&[in_zone], &components),
            vec![
                "build dind pods: no schedulable node with 500m CPU and 1Gi memory matches \
                 topology.kubernetes.io/zone=us-east-1b"
                    .to_string()
            ]
        );
    }
}
