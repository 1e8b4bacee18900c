//! Why a build pod that had a node did not run to its end: an image that
//! would not pull (the image, its registry, and whether the registry
//! refused the credentials or has no such image), an eviction (ephemeral
//! storage or memory), a container killed for going over its memory limit,
//! or the node going away under it (spot reclaim, scale-down).

use serde_json::Value;

use crate::app::day_two::cluster_reads::container_statuses;
use crate::app::day_two::diagnose::pods::text;
use crate::app::day_two::diagnose::reads::newest_message;
use crate::cluster::probe::condition;
use crate::output::diagnose::Cause;

const PULL_FAILURES: [&str; 3] = ["ErrImagePull", "ImagePullBackOff", "InvalidImageName"];

/// The registry an image reference points at (Docker Hub when it names none).
pub(crate) fn registry_of(image: &str) -> &str {
    match image.split_once('/') {
        Some((first, _)) if first.contains('.') || first.contains(':') || first == "localhost" => {
            first
        }
        _ => "docker.io",
    }
}

/// The image of each container that cannot be pulled. `mirror` is the
/// registry the values name for the runner's images, if any.
pub(crate) fn image_pull(pod: &Value, events: &[&Value], mirror: Option<&str>) -> Vec<Cause> {
    let mut causes = Vec::new();
    for c in container_statuses(pod) {
        let reason = text(c, "/state/waiting/reason");
        if !PULL_FAILURES.contains(&reason) {
            continue;
        }
        let image = text(c, "/image");
        // The kubelet's `Failed` event carries the registry's answer; the
        // back-off status often only says it is backing off.
        let message = newest_message(events, "Failed")
            .filter(|m| m.contains(image) || m.contains("pull"))
            .unwrap_or_else(|| text(c, "/state/waiting/message"));
        let lower = message.to_ascii_lowercase();
        let registry = registry_of(image);
        let (why, fix) = if [
            "unauthorized",
            "authentication required",
            "no basic auth",
            "denied",
            "401",
            "403",
        ]
        .iter()
        .any(|w| lower.contains(w))
        {
            ("the registry refused the credentials", format!("give the build pods a pull secret that {registry} accepts (values Runtime imagePullSecrets), or make the image readable"))
        } else if [
            "not found",
            "manifest unknown",
            "does not exist",
            "name unknown",
        ]
        .iter()
        .any(|w| lower.contains(w))
        {
            ("the registry has no such image", format!("push {image} to {registry} (`cf-runner images` lists what an install needs), or correct the image in the values"))
        } else {
            (
                "it could not be pulled",
                format!("check that the nodes reach {registry}"),
            )
        };
        let mirror_note = match mirror {
            Some(m) if registry != m && !image.starts_with(m) => {
                format!("; the values name the registry {m}, but this image comes from {registry}")
            }
            Some(m) => format!(" (the registry the values name, {m})"),
            None => String::new(),
        };
        causes.push(Cause::new(
            "image-pull",
            format!("image {image} from {registry}: {why}{mirror_note} ({reason}: {message})"),
            fix,
        ));
    }
    causes
}

/// An eviction by the kubelet, for ephemeral storage or memory.
pub(crate) fn eviction(pod: &Value) -> Option<Cause> {
    if text(pod, "/status/reason") != "Evicted" {
        return None;
    }
    let message = text(pod, "/status/message");
    let fix = if message.contains("ephemeral-storage") {
        "the node's disk filled up: keep docker's data on the dind volume (the default), give build nodes larger disks, or set dind's ephemeral-storage request in the values so the scheduler counts it"
    } else if message.contains("memory") {
        "the node ran out of memory: set the dind and engine memory requests in the values near what builds use, so the scheduler does not overfill nodes"
    } else {
        "see the node's pressure conditions (`kubectl describe node`)"
    };
    Some(Cause::new("evicted", format!("evicted: {message}"), fix))
}

/// A container killed for going over its memory limit, with that limit.
pub(crate) fn oom_killed(pod: &Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    for c in container_statuses(pod) {
        let killed = ["/state/terminated/reason", "/lastState/terminated/reason"]
            .iter()
            .any(|p| text(c, p) == "OOMKilled");
        if !killed {
            continue;
        }
        let name = text(c, "/name");
        let limit = ["containers", "initContainers"]
            .iter()
            .filter_map(|k| pod.pointer(&format!("/spec/{k}")).and_then(Value::as_array))
            .flatten()
            .find(|s| text(s, "/name") == name)
            .map(|s| text(s, "/resources/limits/memory"))
            .filter(|l| !l.is_empty());
        let what = match limit {
            Some(l) => format!("container {name} was OOM-killed at its memory limit of {l}"),
            None => format!("container {name} was OOM-killed (no memory limit: the node ran out)"),
        };
        causes.push(Cause::new(
            "oom-killed",
            what,
            "raise the memory limit of the build's dind (or engine) in the values and upgrade, or lower what the build runs in parallel",
        ));
    }
    causes
}

/// The node went away under the pod (deleted, shut down, lost).
pub(crate) fn node_gone(pod: &Value, events: &[&Value]) -> Option<Cause> {
    let reason = text(pod, "/status/reason");
    let disruption = condition(pod, "DisruptionTarget")
        .filter(|c| c.get("status").and_then(Value::as_str) == Some("True"))
        .map(|c| text(c, "/reason"))
        .filter(|r| matches!(*r, "DeletionByPodGC" | "TerminationByKubelet"));
    let lost = matches!(
        reason,
        "NodeLost" | "NodeShutdown" | "Shutdown" | "Terminated"
    ) || disruption.is_some()
        || newest_message(events, "NodeNotReady").is_some();
    if !lost {
        return None;
    }
    let why = [reason, disruption.unwrap_or_default()]
        .into_iter()
        .filter(|r| !r.is_empty())
        .collect::<Vec<_>>()
        .join(", ");
    let message = text(pod, "/status/message");
    Some(Cause::new(
        "node-gone",
        format!(
            "its node{} went away{}{}",
            Some(text(pod, "/spec/nodeName"))
                .filter(|n| !n.is_empty())
                .map(|n| format!(" {n}"))
                .unwrap_or_default(),
            if why.is_empty() { String::new() } else { format!(" ({why})") },
            if message.is_empty() { String::new() } else { format!(": {message}") }
        ),
        "restart the build; for spot or autoscaled nodes, mark build pods not to be evicted (annotation cluster-autoscaler.kubernetes.io/safe-to-evict=false in the runtime's pod annotations) or build on on-demand nodes",
    ))
}
