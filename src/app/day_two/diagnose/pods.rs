//! Which pods of a runtime namespace are a build's, and how long each one
//! waited. The agent creates two bare pods per build from the runtime
//! environment's spec: the engine (`engine-<build>`) and the docker daemon
//! (`dind-<build>`, labelled `app: dind`, which the runtime's headless
//! Service `dind` selects). Pods that a controller owns (the runner, the
//! volume provisioner, the monitor, whose names may also start with
//! `dind-`) are never build pods.

use serde_json::Value;

use crate::app::identity::register::epoch_seconds;
use crate::cluster::probe::condition;
use crate::output::diagnose::BuildPod;

/// The build role of a pod: `engine` or `dind`; `None` for any other pod.
pub(crate) fn build_role(pod: &Value) -> Option<&'static str> {
    let owned = pod
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .is_some_and(|o| !o.is_empty());
    if owned {
        return None;
    }
    let name = text(pod, "/metadata/name");
    let app = text(pod, "/metadata/labels/app");
    if app == "dind" || name.starts_with("dind-") {
        Some("dind")
    } else if app == "runtime" || app == "engine" || name.starts_with("engine-") {
        Some("engine")
    } else {
        None
    }
}

/// A string at `pointer`, or "".
pub(crate) fn text<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

/// Seconds since the epoch of the RFC 3339 time at `pointer`.
pub(crate) fn time_at(v: &Value, pointer: &str) -> Option<i64> {
    epoch_seconds(v.pointer(pointer)?)
}

/// When the pod was given a node: the `PodScheduled=True` condition's time.
fn scheduled_at(pod: &Value) -> Option<i64> {
    let c = condition(pod, "PodScheduled")?;
    if c.get("status").and_then(Value::as_str) != Some("True") {
        return None;
    }
    epoch_seconds(c.get("lastTransitionTime")?)
}

/// When the first of its containers started running.
fn started_at(pod: &Value) -> Option<i64> {
    crate::app::day_two::cluster_reads::container_statuses(pod)
        .filter_map(|c| {
            time_at(c, "/state/running/startedAt")
                .or_else(|| time_at(c, "/state/terminated/startedAt"))
                .or_else(|| time_at(c, "/lastState/terminated/startedAt"))
        })
        .min()
}

/// The build pods of `pods` created at or after `from` (seconds since the
/// epoch), newest first, without causes yet. `now` measures the wait of a
/// pod that still has no node.
pub(crate) fn build_pods(pods: &[Value], from: i64, now: i64) -> Vec<(&Value, BuildPod)> {
    let mut out: Vec<(&Value, BuildPod)> = pods
        .iter()
        .filter_map(|pod| {
            let role = build_role(pod)?;
            let created = time_at(pod, "/metadata/creationTimestamp")?;
            if created < from {
                return None;
            }
            let name = text(pod, "/metadata/name").to_string();
            let node = Some(text(pod, "/spec/nodeName"))
                .filter(|n| !n.is_empty())
                .map(str::to_string);
            let phase = text(pod, "/status/phase");
            let waited = match (scheduled_at(pod), &node) {
                (Some(at), _) => Some(at - created),
                (None, None) if matches!(phase, "Pending" | "") => Some(now - created),
                _ => None,
            };
            let build = name
                .strip_prefix(&format!("{role}-"))
                .map(str::to_string)
                .filter(|b| !b.is_empty());
            Some((
                pod,
                BuildPod {
                    name,
                    role: role.to_string(),
                    build,
                    phase: if phase.is_empty() { "Unknown" } else { phase }.to_string(),
                    created: text(pod, "/metadata/creationTimestamp").to_string(),
                    waited_for_node_seconds: waited.map(|w| w.max(0)),
                    started_after_seconds: started_at(pod).map(|s| (s - created).max(0)),
                    node,
                    causes: Vec::new(),
                },
            ))
        })
        .collect();
    out.sort_by(|a, b| b.1.created.cmp(&a.1.created).then(a.1.name.cmp(&b.1.name)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn build_pods_are_the_bare_engine_and_dind_pods() {
        let bare = |name: &str| json!({"metadata": {"name": name}});
        assert_eq!(build_role(&bare("dind-5f1a")), Some("dind"));
        assert_eq!(build_role(&bare("engine-5f1a")), Some("engine"));
        assert_eq!(build_role(&bare("runner-7c9")), None);
        let provisioner = json!({"metadata": {"name": "dind-volume-provisioner-x",
            "ownerReferences": [{"kind": "ReplicaSet", "name": "dind-volume-provisioner"}]}});
        assert_eq!(build_role(&provisioner), None);
    }

    #[test]
    fn the_wait_runs_from_creation_to_the_node_or_to_now() {
        let pods = vec![
            json!({"metadata": {"name": "dind-a", "creationTimestamp": "2026-01-01T00:00:00Z"},
                "spec": {"nodeName": "n1"},
                "status": {"phase": "Running", "conditions": [{"type": "PodScheduled", "status": "True",
                    "lastTransitionTime": "2026-01-01T00:03:00Z"}],
                    "containerStatuses": [{"name": "dind", "state": {"running": {"startedAt": "2026-01-01T00:03:30Z"}}}]}}),
            json!({"metadata": {"name": "dind-b", "creationTimestamp": "2026-01-01T00:10:00Z"},
                "status": {"phase": "Pending"}}),
            json!({"metadata": {"name": "dind-old", "creationTimestamp": "2025-01-01T00:00:00Z"}}),
        ];
        let from = epoch_seconds(&json!("2026-01-01T00:00:00Z")).unwrap();
        let found = build_pods(&pods, from, from + 900);
        let names: Vec<&str> = found.iter().map(|(_, p)| p.name.as_str()).collect();
        assert_eq!(names, ["dind-b", "dind-a"]);
        assert_eq!(found[1].1.waited_for_node_seconds, Some(180));
        assert_eq!(found[1].1.started_after_seconds, Some(210));
        assert_eq!(found[1].1.build.as_deref(), Some("a"));
        assert_eq!(found[0].1.waited_for_node_seconds, Some(300));
    }
}
