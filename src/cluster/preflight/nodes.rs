//! Nodes: every component has a node it can be scheduled on. A node fits a
//! component when it is schedulable (not cordoned), carries the labels of
//! the component's node selector, has no NoSchedule or NoExecute taint the
//! component does not tolerate, and has at least the component's CPU and
//! memory requests allocatable. The requests are read from the rendered
//! objects (summed over a pod's containers) and, for the build pods, from
//! the runtime environment's spec.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Node;
use kube::api::{Api, ListParams};
use kube::Client;
use serde_json::Value;

use super::{api_message, names, Check};
use crate::cluster::KubeError;
use crate::render::Manifest;
use crate::values::quantity_value;

/// How many nodes a failure names with the reason each one does not fit.
const SHOWN_NODES: usize = 3;

/// A taint on a node.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Taint {
    pub key: String,
    pub value: String,
    /// `NoSchedule`, `PreferNoSchedule` or `NoExecute`.
    pub effect: String,
}

impl std::fmt::Display for Taint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.value.is_empty() {
            write!(f, "{}:{}", self.key, self.effect)
        } else {
            write!(f, "{}={}:{}", self.key, self.value, self.effect)
        }
    }
}

/// A toleration of a pod, as the API server reads it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Toleration {
    /// Empty with `Exists`: every key.
    pub key: String,
    /// `Equal` (the default) or `Exists`.
    pub operator: String,
    pub value: String,
    /// Empty: every effect.
    pub effect: String,
}

impl Toleration {
    /// The Kubernetes rule: the effect matches (or is empty), the key
    /// matches (or is empty with `Exists`), and with `Equal` the value too.
    pub fn tolerates(&self, taint: &Taint) -> bool {
        if !self.effect.is_empty() && self.effect != taint.effect {
            return false;
        }
        let exists = self.operator == "Exists";
        if self.key.is_empty() {
            return exists;
        }
        self.key == taint.key && (exists || self.value == taint.value)
    }

    fn from_value(v: &Value) -> Toleration {
        let text = |k: &str| match v.get(k) {
            Some(Value::String(s)) => s.clone(),
            _ => String::new(),
        };
        Toleration {
            key: text("key"),
            operator: text("operator"),
            value: text("value"),
            effect: text("effect"),
        }
    }
}

/// CPU (cores) and memory (bytes) a pod requests.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Requests {
    pub cpu: f64,
    pub memory: f64,
}

impl Requests {
    /// The requests of one `resources` object (`requests.cpu`, `requests.memory`).
    fn of_resources(resources: Option<&Value>) -> Requests {
        let amount =
            |name: &str| match resources.and_then(|r| r.pointer(&format!("/requests/{name}"))) {
                Some(Value::String(s)) => quantity_value(s).unwrap_or(0.0),
                Some(Value::Number(n)) => n.as_f64().unwrap_or(0.0),
                _ => 0.0,
            };
        Requests {
            cpu: amount("cpu"),
            memory: amount("memory"),
        }
    }

    /// A pod's requests as the scheduler counts them: the sum over its
    /// containers, or the largest init container's when that is more.
    pub fn of_pod(spec: &Value) -> Requests {
        let list = |key: &str| -> Vec<Requests> {
            spec.get(key)
                .and_then(Value::as_array)
                .map(|cs| {
                    cs.iter()
                        .map(|c| Requests::of_resources(c.get("resources")))
                        .collect()
                })
                .unwrap_or_default()
        };
        let mut total = Requests::default();
        for r in list("containers") {
            total.cpu += r.cpu;
            total.memory += r.memory;
        }
        for r in list("initContainers") {
            total.cpu = total.cpu.max(r.cpu);
            total.memory = total.memory.max(r.memory);
        }
        total
    }

    fn is_zero(&self) -> bool {
        self.cpu <= 0.0 && self.memory <= 0.0
    }
}

impl std::fmt::Display for Requests {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} CPU and {} memory",
            cpu_text(self.cpu),
            memory_text(self.memory)
        )
    }
}

fn cpu_text(cores: f64) -> String {
    let milli = (cores * 1000.0).round() as u64;
    if milli % 1000 == 0 {
        format!("{}", milli / 1000)
    } else {
        format!("{milli}m")
    }
}

fn memory_text(bytes: f64) -> String {
    const MI: f64 = 1024.0 * 1024.0;
    let mi = (bytes / MI).round() as u64;
    if mi >= 1024 && mi % 1024 == 0 {
        format!("{}Gi", mi / 1024)
    } else {
        format!("{mi}Mi")
    }
}

/// What must be true of a node for one component's pods to run there.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Component {
    /// `Deployment/runner`, `build dind pods`, …
    pub name: String,
    pub selector: BTreeMap<String, String>,
    pub tolerations: Vec<Toleration>,
    pub requests: Requests,
}

/// What the node check needs to know about one node.
#[derive(Debug, Clone, Default)]
pub struct NodeInfo {
    pub name: String,
    pub allocatable_cpu: Option<String>,
    pub allocatable_memory: Option<String>,
    pub labels: BTreeMap<String, String>,
    pub taints: Vec<Taint>,
    pub unschedulable: bool,
}

impl NodeInfo {
    /// Why `component` cannot run on this node; `None` when it can.
    pub fn why_not(&self, component: &Component) -> Option<String> {
        if self.unschedulable {
            return Some("cordoned".into());
        }
        let unmatched: Vec<String> = component
            .selector
            .iter()
            .filter(|(k, v)| self.labels.get(*k) != Some(*v))
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        if !unmatched.is_empty() {
            return Some(format!("not labelled {}", unmatched.join(",")));
        }
        let untolerated: Vec<String> = self
            .taints
            .iter()
            .filter(|t| t.effect == "NoSchedule" || t.effect == "NoExecute")
            .filter(|t| !component.tolerations.iter().any(|tol| tol.tolerates(t)))
            .map(ToString::to_string)
            .collect();
        if !untolerated.is_empty() {
            return Some(format!("taint {} not tolerated", untolerated.join(", ")));
        }
        let have = |q: &Option<String>| q.as_deref().and_then(quantity_value).unwrap_or(0.0);
        let (cpu, memory) = (have(&self.allocatable_cpu), have(&self.allocatable_memory));
        let need = component.requests;
        if cpu < need.cpu || memory < need.memory {
            return Some(format!("{} allocatable", Requests { cpu, memory }));
        }
        None
    }
}

/// Decides the node check: every component needs at least one node that
/// fits it; those without one are named, with what they need and why the
/// first nodes do not fit.
pub fn node_check(nodes: &[NodeInfo], components: &[Component]) -> Check {
    if nodes.is_empty() {
        return Check::fail(
            names::NODES,
            "the cluster has no nodes",
            "add a node (or a node pool), then re-run",
        );
    }
    let mut stuck = Vec::new();
    for c in components {
        let reasons: Vec<(bool, String)> = nodes
            .iter()
            .filter_map(|n| {
                n.why_not(c).map(|why| {
                    (
                        why.starts_with("not labelled"),
                        format!("{}: {why}", n.name),
                    )
                })
            })
            .collect();
        if reasons.len() < nodes.len() {
            continue;
        }
        // The nodes the selector picks say more than those it leaves out.
        let picked = reasons.iter().filter(|(unlabelled, _)| !unlabelled).count();
        let reasons: Vec<String> = reasons
            .into_iter()
            .filter(|(unlabelled, _)| picked == 0 || !unlabelled)
            .map(|(_, why)| why)
            .collect();
        let mut needs = Vec::new();
        if !c.selector.is_empty() {
            let shown: Vec<String> = c.selector.iter().map(|(k, v)| format!("{k}={v}")).collect();
            needs.push(format!("labels {}", shown.join(",")));
        }
        if !c.requests.is_zero() {
            needs.push(format!("{} allocatable", c.requests));
        }
        needs.push("its taints tolerated".into());
        let more = reasons.len().saturating_sub(SHOWN_NODES);
        let mut shown: Vec<String> = reasons.into_iter().take(SHOWN_NODES).collect();
        if more > 0 {
            shown.push(format!("{more} more"));
        }
        stuck.push(format!(
            "{}: no schedulable node with {} ({})",
            c.name,
            needs.join(", "),
            shown.join("; ")
        ));
    }
    if stuck.is_empty() {
        return Check::pass(
            names::NODES,
            format!(
                "each of the {} component(s) has a node that takes it ({} node(s): selectors, taints and requests checked)",
                components.len(),
                nodes.len()
            ),
        );
    }
    Check::fail(
        names::NODES,
        format!(
            "{} component(s) could never be scheduled: no node fits them",
            stuck.len()
        ),
        "label nodes to match (kubectl label node NAME key=value), add tolerations for the nodes' taints \
         (--tolerations, Runtime.tolerations), lower the requests, or change the node selector \
         (--kube-node-selector, --build-node-selector, Storage.AvailabilityZone)",
    )
    .with_details(stuck)
}

fn node_info(node: &Node) -> NodeInfo {
    let allocatable = node.status.as_ref().and_then(|s| s.allocatable.as_ref());
    let get = |k: &str| allocatable.and_then(|a| a.get(k)).map(|q| q.0.clone());
    let spec = node.spec.as_ref();
    NodeInfo {
        name: node.metadata.name.clone().unwrap_or_default(),
        allocatable_cpu: get("cpu"),
        allocatable_memory: get("memory"),
        labels: node.metadata.labels.clone().unwrap_or_default(),
        taints: spec
            .and_then(|s| s.taints.as_ref())
            .map(|ts| {
                ts.iter()
                    .map(|t| Taint {
                        key: t.key.clone(),
                        value: t.value.clone().unwrap_or_default(),
                        effect: t.effect.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        unschedulable: spec.and_then(|s| s.unschedulable).unwrap_or(false),
    }
}

/// What each component needs of a node: the workloads rendered (Deployments
/// and DaemonSets, from their pod template), and the build pods (engine and
/// dind) of the runtime environment.
pub fn components(manifests: &[Manifest], runtime_environment: Option<&Value>) -> Vec<Component> {
    let as_map = |v: Option<&Value>| -> BTreeMap<String, String> {
        v.and_then(Value::as_object)
            .map(|o| {
                o.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                    .collect()
            })
            .unwrap_or_default()
    };
    let tolerations = |v: Option<&Value>| -> Vec<Toleration> {
        v.and_then(Value::as_array)
            .map(|a| a.iter().map(Toleration::from_value).collect())
            .unwrap_or_default()
    };
    let mut out: Vec<Component> = manifests
        .iter()
        .filter(|m| m.kind == "Deployment" || m.kind == "DaemonSet")
        .map(|m| {
            let pod = m
                .object
                .pointer("/spec/template/spec")
                .unwrap_or(&Value::Null);
            Component {
                name: m.display_name(),
                selector: as_map(pod.get("nodeSelector")),
                tolerations: tolerations(pod.get("tolerations")),
                requests: Requests::of_pod(pod),
            }
        })
        .collect();
    if let Some(re) = runtime_environment {
        for (what, scheduler, resources) in [
            ("build engine pods", "runtimeScheduler", "resources"),
            (
                "build dind pods",
                "dockerDaemonScheduler",
                "defaultDindResources",
            ),
        ] {
            let Some(s) = re.get(scheduler) else { continue };
            out.push(Component {
                name: what.to_string(),
                selector: as_map(s.pointer("/cluster/nodeSelector")),
                tolerations: tolerations(s.get("tolerations")),
                requests: Requests::of_resources(s.get(resources)),
            });
        }
    }
    out
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
                    "your user may not list nodes, so which of them can take the runner was not checked".to_string(),
                    "make sure nodes match the node selectors, carry no taint the components do not tolerate, and have room for their requests; or ask for `list nodes` to have it checked",
                )
            } else {
                (
                    format!("could not list nodes: {}", api_message(&err)),
                    "make sure nodes match the node selectors, carry no taint the components do not tolerate, and have room for their requests",
                )
            };
            return Check::warn(names::NODES, reason, fix);
        }
    };
    let infos: Vec<NodeInfo> = nodes.iter().map(node_info).collect();
    node_check(&infos, &components(manifests, runtime_environment))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::preflight::Status;

    fn node(name: &str, cpu: &str, memory: &str) -> NodeInfo {
        NodeInfo {
            name: name.into(),
            allocatable_cpu: Some(cpu.into()),
            allocatable_memory: Some(memory.into()),
            ..Default::default()
        }
    }

    fn component(name: &str, cpu: f64, memory: f64) -> Component {
        Component {
            name: name.into(),
            requests: Requests { cpu, memory },
            ..Default::default()
        }
    }

    const GI: f64 = 1024.0 * 1024.0 * 1024.0;

    #[test]
    fn a_node_fits_a_component_with_room_for_its_requests() {
        let c = component("Deployment/runner", 0.5, GI);
        assert_eq!(node("a", "500m", "1Gi").why_not(&c), None);
        assert_eq!(node("a", "4", "16Gi").why_not(&c), None);
        assert_eq!(node("a", "1", "1100M").why_not(&c), None);
        assert_eq!(
            node("a", "499m", "8Gi").why_not(&c).as_deref(),
            Some("499m CPU and 8Gi memory allocatable")
        );
        assert!(
            node("a", "2", "1G").why_not(&c).is_some(),
            "1G is less than 1Gi"
        );
        assert!(node("a", "garbage", "8Gi").why_not(&c).is_some());
        // No requests: any schedulable node will do.
        assert_eq!(
            node("a", "100m", "64Mi").why_not(&component("x", 0.0, 0.0)),
            None
        );
        let cordoned = NodeInfo {
            unschedulable: true,
            ..node("a", "8", "32Gi")
        };
        assert_eq!(cordoned.why_not(&c).as_deref(), Some("cordoned"));
    }

    #[test]
    fn a_taint_keeps_out_what_does_not_tolerate_it() {
        let tainted = NodeInfo {
            taints: vec![Taint {
                key: "dedicated".into(),
                value: "ci".into(),
                effect: "NoSchedule".into(),
            }],
            ..node("builds-1", "4", "16Gi")
        };
        let mut c = component("build dind pods", 0.0, 0.0);
        assert_eq!(
            tainted.why_not(&c).as_deref(),
            Some("taint dedicated=ci:NoSchedule not tolerated")
        );
        let equal = |value: &str, effect: &str| Toleration {
            key: "dedicated".into(),
            operator: "Equal".into(),
            value: value.into(),
            effect: effect.into(),
        };
        c.tolerations = vec![equal("other", "NoSchedule")];
        assert!(tainted.why_not(&c).is_some(), "another value");
        c.tolerations = vec![equal("ci", "NoExecute")];
        assert!(tainted.why_not(&c).is_some(), "another effect");
        c.tolerations = vec![equal("ci", "NoSchedule")];
        assert_eq!(tainted.why_not(&c), None);
        c.tolerations = vec![equal("ci", "")];
        assert_eq!(tainted.why_not(&c), None, "an empty effect matches all");
        c.tolerations = vec![Toleration {
            operator: "Exists".into(),
            ..Default::default()
        }];
        assert_eq!(
            tainted.why_not(&c),
            None,
            "Exists without a key matches all"
        );
        // PreferNoSchedule only prefers.
        let preferred = NodeInfo {
            taints: vec![Taint {
                key: "spot".into(),
                value: String::new(),
                effect: "PreferNoSchedule".into(),
            }],
            ..node("b", "4", "16Gi")
        };
        assert_eq!(preferred.why_not(&component("x", 0.0, 0.0)), None);
    }

    #[test]
    fn the_check_names_each_component_no_node_takes_and_why() {
        assert_eq!(node_check(&[], &[]).status, Status::Fail);
        let nodes = [node("small", "250m", "512Mi"), node("big", "1", "2Gi")];
        let runner = component("Deployment/runner", 0.5, GI);
        assert_eq!(
            node_check(&nodes, std::slice::from_ref(&runner)).status,
            Status::Pass
        );
        let huge = component("build dind pods", 8.0, 32.0 * GI);
        let c = node_check(&nodes, &[runner, huge]);
        assert_eq!(c.status, Status::Fail);
        assert_eq!(
            c.details,
            vec![
                "build dind pods: no schedulable node with 8 CPU and 32Gi memory allocatable, \
                 its taints tolerated (small: 250m CPU and 512Mi memory allocatable; \
                 big: 1 CPU and 2Gi memory allocatable)"
                    .to_string()
            ]
        );
    }

    #[test]
    fn a_component_pinned_where_no_node_is_cannot_be_scheduled() {
        let mut in_zone = node("n", "2", "4Gi");
        in_zone
            .labels
            .insert("topology.kubernetes.io/zone".into(), "us-east-1a".into());
        let pinned = |name: &str, zone: &str| Component {
            name: name.into(),
            selector: BTreeMap::from([(
                "topology.kubernetes.io/zone".to_string(),
                zone.to_string(),
            )]),
            ..Default::default()
        };
        let c = node_check(
            &[in_zone],
            &[
                component("Deployment/runner", 0.0, 0.0),
                pinned("build dind pods", "us-east-1b"),
                pinned("DaemonSet/dind-lv-monitor", "us-east-1a"),
            ],
        );
        assert_eq!(
            c.details,
            vec![
                "build dind pods: no schedulable node with labels topology.kubernetes.io/zone=us-east-1b, \
                 its taints tolerated (n: not labelled topology.kubernetes.io/zone=us-east-1b)"
                    .to_string()
            ]
        );
    }

    #[test]
    fn requests_are_read_from_the_pod_template_and_the_runtime_spec() {
        let pod = serde_json::json!({
            "containers": [
                {"resources": {"requests": {"cpu": "250m", "memory": "256Mi"}}},
                {"resources": {"requests": {"cpu": 1, "memory": "1Gi"}}},
            ],
            "initContainers": [{"resources": {"requests": {"cpu": "2"}}}],
        });
        let r = Requests::of_pod(&pod);
        assert_eq!(r.cpu, 2.0);
        assert_eq!(r.memory, 1280.0 * 1024.0 * 1024.0);
        assert_eq!(r.to_string(), "2 CPU and 1280Mi memory");
        let spec = serde_json::json!({
            "runtimeScheduler": {
                "cluster": {"nodeSelector": {"pool": "ci"}},
                "tolerations": [{"key": "ci", "operator": "Exists", "effect": "NoSchedule"}],
                "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
            },
            "dockerDaemonScheduler": {"defaultDindResources": {"requests": null}},
        });
        let cs = components(&[], Some(&spec));
        assert_eq!(cs[0].name, "build engine pods");
        assert_eq!(cs[0].requests.to_string(), "100m CPU and 128Mi memory");
        assert_eq!(cs[0].tolerations[0].operator, "Exists");
        assert_eq!(cs[0].selector["pool"], "ci");
        assert!(cs[1].requests.is_zero());
    }
}
