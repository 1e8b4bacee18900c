//! What the support bundle reads from the cluster about a runner: its
//! pods (described, their statuses, images and logs), events, nodes and
//! zones, and the dind volumes' storage.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::app::installation::own_classes;
use crate::app::session::options::PlatformOptions;
use crate::bundle::Bundle;
use crate::cluster::inventory;
use crate::cluster::support::{self as reads, LogLimits};
use crate::values;

/// The annotation `kubectl apply` keeps a copy of the object in (a
/// Secret's data included): never taken into a bundle.
pub(crate) const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// What the collection needs besides the cluster.
pub(crate) struct Request<'a> {
    pub namespace: &'a str,
    pub platform: &'a PlatformOptions,
    pub since: std::time::Duration,
    pub max_log_bytes: u64,
    pub max_size: u64,
    /// What `info -o json` printed for the namespace, or why it failed.
    pub info: Result<String, String>,
}

/// A pod as `kubectl describe` would show it, as data: a summary of each
/// container's state first, then the object (without the noise), then the
/// pod's events.
pub(crate) fn describe_pod(pod: &Value, events: &[Value]) -> Value {
    let mut containers = Vec::new();
    for list in ["initContainerStatuses", "containerStatuses"] {
        for c in pod
            .pointer(&format!("/status/{list}"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let state = |which: &str| -> Option<String> {
                let s = c.get(which)?.as_object()?;
                let (phase, detail) = s.iter().next()?;
                let reason = detail.get("reason").and_then(Value::as_str).unwrap_or("");
                let message = detail.get("message").and_then(Value::as_str).unwrap_or("");
                let code = detail
                    .get("exitCode")
                    .map(|c| format!(" (exit code {c})"))
                    .unwrap_or_default();
                Some(
                    format!("{phase}: {reason}{code} {message}")
                        .trim()
                        .trim_end_matches(':')
                        .to_string(),
                )
            };
            containers.push(json!({
                "name": c["name"],
                "image": c["image"],
                "ready": c["ready"],
                "restarts": c["restartCount"],
                "state": state("state"),
                "last state": state("lastState"),
            }));
        }
    }
    let mut object = pod.clone();
    drop_last_applied(&mut object);
    json!({
        "pod": pod.pointer("/metadata/name"),
        "phase": pod.pointer("/status/phase"),
        "node": pod.pointer("/spec/nodeName"),
        "conditions": pod.pointer("/status/conditions").map(conditions),
        "containers": containers,
        "events": events.iter().map(event_line).collect::<Vec<_>>(),
        "object": object,
    })
}

/// `Type=Status (reason: message)` of each condition.
pub(crate) fn conditions(list: &Value) -> Vec<String> {
    list.as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let text = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or("");
            let mut line = format!("{}={}", text("type"), text("status"));
            if !text("reason").is_empty() || !text("message").is_empty() {
                line.push_str(&format!(" ({}: {})", text("reason"), text("message")));
            }
            line
        })
        .collect()
}

pub(crate) fn drop_last_applied(object: &mut Value) {
    if let Some(a) = object
        .pointer_mut("/metadata/annotations")
        .and_then(Value::as_object_mut)
    {
        a.remove(LAST_APPLIED);
    }
}

/// One event as a line: when, type, reason, object, message, count.
pub(crate) fn event_line(e: &Value) -> Value {
    let text = |p: &str| e.pointer(p).and_then(Value::as_str).unwrap_or("");
    let when = [
        text("/lastTimestamp"),
        text("/eventTime"),
        text("/metadata/creationTimestamp"),
    ]
    .into_iter()
    .find(|t| !t.is_empty())
    .unwrap_or("");
    let count = e.get("count").and_then(Value::as_u64).unwrap_or(1);
    Value::String(format!(
        "{when} {} {} {}/{}: {}{}",
        text("/type"),
        text("/reason"),
        text("/involvedObject/kind"),
        text("/involvedObject/name"),
        text("/message"),
        if count > 1 {
            format!(" (x{count})")
        } else {
            String::new()
        }
    ))
}

/// The zone of an object by its labels (current, then the older beta key).
pub(crate) fn zone_label(object: &Value) -> Option<String> {
    let labels = object.pointer("/metadata/labels")?;
    [
        "topology.kubernetes.io/zone",
        "failure-domain.beta.kubernetes.io/zone",
    ]
    .iter()
    .find_map(|k| labels.get(*k).and_then(Value::as_str))
    .map(str::to_string)
}

/// The zone a PV is pinned to: its label, else its node affinity (a zone,
/// or a node whose zone is known).
pub(crate) fn pv_zone(pv: &Value, node_zones: &BTreeMap<String, String>) -> Option<String> {
    if let Some(z) = zone_label(pv) {
        return Some(z);
    }
    let terms = pv.pointer("/spec/nodeAffinity/required/nodeSelectorTerms")?;
    for term in terms.as_array()? {
        for expr in term["matchExpressions"].as_array().into_iter().flatten() {
            let key = expr["key"].as_str().unwrap_or("");
            let values: Vec<&str> = expr["values"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            if key.ends_with("/zone") {
                return Some(values.join(","));
            }
            if key == "kubernetes.io/hostname" {
                let zones: Vec<&str> = values
                    .iter()
                    .filter_map(|n| node_zones.get(*n).map(String::as_str))
                    .collect();
                if !zones.is_empty() {
                    return Some(zones.join(","));
                }
            }
        }
    }
    None
}

/// The namespace's events, sorted; the pods and claims show their own.
pub(crate) async fn add_events(
    bundle: &mut Bundle,
    client: &kube::Client,
    ns: &str,
    step: &dyn Fn(&str),
) -> Vec<Value> {
    step("reading the events of the namespace");
    match reads::list(client, "v1", "Event", Some(ns)).await {
        Ok(mut events) => {
            events.sort_by_key(|e| event_line(e).as_str().unwrap_or_default().to_string());
            bundle.add_value(
                "events.yaml",
                &Value::Array(events.iter().map(event_line).collect()),
            );
            events
        }
        Err(e) => {
            bundle.failed("events.yaml", e.chain_text());
            Vec::new()
        }
    }
}

/// The events of one object.
pub(crate) fn events_of(events: &[Value], kind: &str, name: &str) -> Vec<Value> {
    events
        .iter()
        .filter(|e| {
            e.pointer("/involvedObject/kind").and_then(Value::as_str) == Some(kind)
                && e.pointer("/involvedObject/name").and_then(Value::as_str) == Some(name)
        })
        .cloned()
        .collect()
}

/// The nodes; returns each node's zone, for the volumes.
pub(crate) async fn add_nodes(
    bundle: &mut Bundle,
    client: &kube::Client,
    step: &dyn Fn(&str),
) -> BTreeMap<String, String> {
    step("reading the nodes");
    let mut node_zones = BTreeMap::new();
    match reads::list(client, "v1", "Node", None).await {
        Ok(nodes) => {
            let shown: Vec<Value> = nodes
                .iter()
                .map(|n| {
                    let name = n
                        .pointer("/metadata/name")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    let zone = zone_label(n);
                    if let Some(z) = &zone {
                        node_zones.insert(name.to_string(), z.clone());
                    }
                    json!({
                        "name": name,
                        "zone": zone,
                        "conditions": n.pointer("/status/conditions").map(conditions),
                        "unschedulable": n.pointer("/spec/unschedulable"),
                        "taints": n.pointer("/spec/taints"),
                        "allocatable": n.pointer("/status/allocatable"),
                        "labels": n.pointer("/metadata/labels"),
                        "kubelet": n.pointer("/status/nodeInfo/kubeletVersion"),
                        "pod CIDRs": n.pointer("/spec/podCIDRs"),
                    })
                })
                .collect();
            bundle.add_value("nodes.yaml", &Value::Array(shown));
        }
        Err(e) => bundle.failed("nodes.yaml", e.chain_text()),
    }

    node_zones
}

/// The dind volumes: their StorageClass, the namespace's claims and the
/// volumes, with zones.
pub(crate) async fn add_storage(
    bundle: &mut Bundle,
    client: &kube::Client,
    ns: &str,
    values: Option<&values::Values>,
    events: &[Value],
    node_zones: &BTreeMap<String, String>,
    step: &dyn Fn(&str),
) {
    step("reading the dind volumes and their StorageClass");
    let objects = inventory::labelled(client, ns).await;
    let classes = own_classes(ns, values, objects.as_deref().unwrap_or_default());
    let mut storage = Map::new();
    let mut storage_failed = Vec::new();
    match reads::list(client, "storage.k8s.io/v1", "StorageClass", None).await {
        Ok(list) => {
            let named: Vec<Value> = list
                .into_iter()
                .filter(|c| {
                    c.pointer("/metadata/name")
                        .and_then(Value::as_str)
                        .is_some_and(|n| classes.iter().any(|k| k == n))
                })
                .collect();
            storage.insert("storage classes".into(), Value::Array(named));
        }
        Err(e) => storage_failed.push(("StorageClasses", e.chain_text())),
    }
    match reads::list(client, "v1", "PersistentVolumeClaim", Some(ns)).await {
        Ok(list) => {
            let claims: Vec<Value> = list
                .iter()
                .map(|c| {
                    let name = c.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("");
                    let node = c
                        .pointer("/metadata/annotations/volume.kubernetes.io~1selected-node")
                        .and_then(Value::as_str);
                    json!({
                        "name": name,
                        "phase": c.pointer("/status/phase"),
                        "storage class": c.pointer("/spec/storageClassName"),
                        "requested": c.pointer("/spec/resources/requests/storage"),
                        "volume": c.pointer("/spec/volumeName"),
                        "selected node": node,
                        "zone": node.and_then(|n| node_zones.get(n)),
                        "events": events_of(events, "PersistentVolumeClaim", name).iter().map(event_line).collect::<Vec<_>>(),
                    })
                })
                .collect();
            storage.insert("claims in the namespace".into(), Value::Array(claims));
        }
        Err(e) => storage_failed.push(("PersistentVolumeClaims", e.chain_text())),
    }
    match reads::list(client, "v1", "PersistentVolume", None).await {
        Ok(list) => {
            let volumes: Vec<Value> = list
                .iter()
                .filter(|v| {
                    v.pointer("/spec/claimRef/namespace")
                        .and_then(Value::as_str)
                        == Some(ns)
                        || v.pointer("/spec/storageClassName")
                            .and_then(Value::as_str)
                            .is_some_and(|c| classes.iter().any(|k| k == c))
                })
                .map(|v| {
                    json!({
                        "name": v.pointer("/metadata/name"),
                        "phase": v.pointer("/status/phase"),
                        "storage class": v.pointer("/spec/storageClassName"),
                        "capacity": v.pointer("/spec/capacity/storage"),
                        "claim": v.pointer("/spec/claimRef/name"),
                        "zone": pv_zone(v, node_zones),
                        "node affinity": v.pointer("/spec/nodeAffinity"),
                        "reclaim policy": v.pointer("/spec/persistentVolumeReclaimPolicy"),
                    })
                })
                .collect();
            storage.insert("volumes".into(), Value::Array(volumes));
        }
        Err(e) => storage_failed.push(("PersistentVolumes", e.chain_text())),
    }
    bundle.add_value("storage.yaml", &Value::Object(storage));
    for (what, why) in storage_failed {
        bundle.failed(format!("the {what} of storage.yaml"), why);
    }
}

/// Each pod, described; returns the pods for their logs and images.
pub(crate) async fn add_pods(
    bundle: &mut Bundle,
    client: &kube::Client,
    ns: &str,
    events: &[Value],
    step: &dyn Fn(&str),
) -> Vec<Value> {
    step("reading the pods");
    let pods = match reads::list(client, "v1", "Pod", Some(ns)).await {
        Ok(p) => p,
        Err(e) => {
            bundle.failed("pods/", e.chain_text());
            Vec::new()
        }
    };
    for pod in &pods {
        let name = pod
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        bundle.add_value(
            &format!("pods/{name}.yaml"),
            &describe_pod(pod, &events_of(events, "Pod", &name)),
        );
    }
    pods
}

/// The container statuses of a pod, init containers first.
pub(crate) fn container_statuses(pod: &Value) -> impl Iterator<Item = &Value> {
    ["initContainerStatuses", "containerStatuses"]
        .into_iter()
        .filter_map(|l| {
            pod.pointer(&format!("/status/{l}"))
                .and_then(Value::as_array)
        })
        .flatten()
}

/// The image of every container that runs.
pub(crate) fn running_images(pods: &[Value]) -> Vec<Value> {
    let mut images = Vec::new();
    for pod in pods {
        let name = pod
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        for c in container_statuses(pod) {
            images.push(json!({
                "pod": name, "container": c["name"], "image": c["image"], "image id": c["imageID"],
            }));
        }
    }
    images
}

/// Logs last: they are the largest, and what the size cap leaves out.
pub(crate) async fn add_logs(
    bundle: &mut Bundle,
    client: &kube::Client,
    ns: &str,
    pods: &[Value],
    req: &Request<'_>,
    step: &dyn Fn(&str),
) {
    let limits = LogLimits {
        since_seconds: req.since.as_secs() as i64,
        max_bytes: req.max_log_bytes as i64,
    };
    for pod in pods {
        let name = pod
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        step(&format!("reading the logs of Pod/{name}"));
        for c in container_statuses(pod) {
            let container = c["name"].as_str().unwrap_or("");
            let entry = format!("pods/{name}/{container}.log");
            if let Some(waiting) = c.pointer("/state/waiting") {
                if c.pointer("/lastState/terminated").is_none() {
                    let reason = waiting["reason"].as_str().unwrap_or("waiting");
                    bundle.left_out(
                        entry,
                        format!("the container never started ({reason}): no log"),
                    );
                    continue;
                }
            }
            for previous in [false, true] {
                if previous && c.pointer("/lastState/terminated").is_none() {
                    continue;
                }
                let entry = if previous {
                    format!("pods/{name}/{container}.previous.log")
                } else {
                    entry.clone()
                };
                match reads::container_log(client, ns, name, container, previous, limits).await {
                    Ok(text) => bundle.add_text(&entry, &text),
                    Err(e) => bundle.failed(entry, e.chain_text()),
                }
            }
        }
    }
}
