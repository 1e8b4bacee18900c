//! Why a build pod did not get a node, or never came to exist: the
//! scheduler's words (the pod's `PodScheduled` condition, else its newest
//! `FailedScheduling` event) taken apart into the causes a person can act
//! on, the volume claim that was not provisioned or not attached, and the
//! `FailedCreate` refusals of admission (Pod Security, a quota, a
//! LimitRange, a webhook, a missing PriorityClass), whose fixes are worded
//! as the preflight words them (`cluster::preflight::fix_for`).

use serde_json::Value;

use crate::app::day_two::diagnose::pods::text;
use crate::app::day_two::diagnose::reads::{event_time, newest_message, Context};
use crate::cluster::preflight::{fix_for, refuser, Level, Refuser, Requests, EVERY_BUILD};
use crate::cluster::probe::condition;
use crate::output::diagnose::Cause;
use crate::values::quantity_value;

/// Why the scheduler gives the pod no node, in its words; `None` when it
/// has a node or the scheduler has not said.
fn unschedulable_message<'a>(pod: &'a Value, events: &[&'a Value]) -> Option<&'a str> {
    let scheduled = condition(pod, "PodScheduled")
        .is_some_and(|c| c.get("status").and_then(Value::as_str) == Some("True"));
    // A pod that got its node keeps the FailedScheduling events of its wait.
    if scheduled || !text(pod, "/spec/nodeName").is_empty() {
        return None;
    }
    let from_condition = condition(pod, "PodScheduled")
        .filter(|c| c.get("status").and_then(Value::as_str) == Some("False"))
        .and_then(|c| c.get("message").and_then(Value::as_str))
        .filter(|m| !m.is_empty());
    from_condition.or_else(|| newest_message(events, "FailedScheduling"))
}

/// The causes of a pod the scheduler leaves without a node.
pub(crate) fn scheduling(ctx: &Context<'_>, pod: &Value, events: &[&Value]) -> Vec<Cause> {
    let Some(message) = unschedulable_message(pod, events) else {
        return Vec::new();
    };
    // The part before the scheduler's note on preemption names the nodes' reasons.
    let reasons = message.split(". preemption:").next().unwrap_or(message);
    let mut causes = Vec::new();
    if reasons.contains("Insufficient cpu") || reasons.contains("Insufficient memory") {
        causes.push(insufficient(ctx, pod, reasons));
    }
    if let Some(taint) = taint_in(reasons) {
        causes.push(Cause::new(
            "untolerated-taint",
            format!("not scheduled: the nodes carry the taint {taint}, which the pod does not tolerate ({message})"),
            "add a toleration for it to the runtime's tolerations (values Runtime.tolerations) and upgrade, or give builds nodes without it",
        ));
    }
    if reasons.contains("node affinity/selector")
        || reasons.contains("node(s) didn't match Pod's node affinity")
    {
        let selector = pod
            .pointer("/spec/nodeSelector")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "(an affinity)".into());
        causes.push(Cause::new(
            "no-matching-node",
            format!("not scheduled: no node matches the pod's node selector {selector} ({message})"),
            "label the build nodes so (`kubectl label node <node> key=value`), or correct Runtime.NodeSelector in the values and upgrade",
        ));
    }
    let waits_for_volume = reasons.contains("PersistentVolumeClaim")
        || reasons.contains("volume node affinity conflict");
    if causes.is_empty() && !waits_for_volume {
        causes.push(Cause::new(
            "not-scheduled",
            format!("not scheduled: {message}"),
            "compare the pod's requests, selector and tolerations with the nodes (`kubectl describe pod`)",
        ));
    }
    causes
}

/// The taint named in the scheduler's reasons (`{key: value}`).
fn taint_in(reasons: &str) -> Option<&str> {
    let at = reasons
        .find("untolerated taint")
        .or_else(|| reasons.find("had taint"))?;
    let rest = &reasons[at..];
    let open = rest.find('{')?;
    let close = rest[open..].find('}')?;
    Some(&rest[open..=open + close])
}

/// Too little CPU or memory: what the pod asks, and the most any node has free.
fn insufficient(ctx: &Context<'_>, pod: &Value, reasons: &str) -> Cause {
    let which = match (
        reasons.contains("Insufficient cpu"),
        reasons.contains("Insufficient memory"),
    ) {
        (true, true) => "CPU and memory",
        (true, false) => "CPU",
        _ => "memory",
    };
    let asked = pod.get("spec").map(Requests::of_pod).unwrap_or_default();
    let room = match largest_free(ctx) {
        Some((node, free)) => format!("the node with the most free is {node}, with {free}"),
        None => {
            "the nodes' free room is not known (your user may not list nodes and pods cluster-wide)"
                .into()
        }
    };
    Cause::new(
        "insufficient-resources",
        format!("not scheduled: insufficient {which}: the pod requests {asked}; {room}"),
        "lower the dind and engine requests in the values (Runtime resources) or add larger nodes; with an autoscaler, allow a node group this size",
    )
}

/// The node with the most free memory (then CPU): allocatable less what
/// the pods on it request.
fn largest_free(ctx: &Context<'_>) -> Option<(String, Requests)> {
    let nodes = ctx.reads.nodes.as_ref()?;
    let pods = ctx.reads.pods_on_nodes.as_ref()?;
    let amount = |n: &Value, what: &str| {
        quantity_value(text(n, &format!("/status/allocatable/{what}"))).unwrap_or(0.0)
    };
    nodes
        .iter()
        .map(|n| {
            let name = text(n, "/metadata/name");
            let mut free = Requests {
                cpu: amount(n, "cpu"),
                memory: amount(n, "memory"),
            };
            for p in pods.iter().filter(|p| {
                text(p, "/spec/nodeName") == name
                    && !matches!(text(p, "/status/phase"), "Succeeded" | "Failed")
            }) {
                let used = p.get("spec").map(Requests::of_pod).unwrap_or_default();
                free.cpu -= used.cpu;
                free.memory -= used.memory;
            }
            free.cpu = free.cpu.max(0.0);
            free.memory = free.memory.max(0.0);
            (name.to_string(), free)
        })
        .max_by(|a, b| {
            (a.1.memory, a.1.cpu)
                .partial_cmp(&(b.1.memory, b.1.cpu))
                .unwrap_or(std::cmp::Ordering::Equal)
        })
}

/// Build pods admission refused (`FailedCreate` events of pods in the
/// window): a quota, a LimitRange, a missing PriorityClass, Pod Security,
/// a webhook or a policy.
pub(crate) fn refusals(ctx: &Context<'_>, from: i64) -> Vec<Cause> {
    let mut seen = Vec::new();
    let mut causes = Vec::new();
    for e in ctx.reads.events.iter().filter(|e| {
        text(e, "/reason") == "FailedCreate"
            && event_time(e) >= from
            && (text(e, "/involvedObject/kind") == "Pod"
                || ["dind", "engine"]
                    .iter()
                    .any(|p| text(e, "/involvedObject/name").starts_with(p)))
    }) {
        let message = text(e, "/message");
        if seen.contains(&message) {
            continue;
        }
        seen.push(message);
        let object = format!(
            "{}/{}",
            text(e, "/involvedObject/kind"),
            text(e, "/involvedObject/name")
        );
        causes.push(refusal(ctx.namespace, &object, message));
    }
    causes
}

/// One refusal, as a cause with its fix.
fn refusal(namespace: &str, object: &str, message: &str) -> Cause {
    let what = format!("{object} in namespace {namespace} was not created: {message}");
    if let Some(rest) = message.split("no PriorityClass with name ").nth(1) {
        let class = rest.split_whitespace().next().unwrap_or("?");
        return Cause::new(
            "missing-priorityclass",
            what,
            format!("create PriorityClass {class}, or drop it from the runtime's pod settings in the values and upgrade"),
        );
    }
    let fix = fix_for(message, EVERY_BUILD, namespace, Level::Privileged, &[]);
    let kind = match refuser(message) {
        Refuser::Quota | Refuser::LimitRange => "quota-or-limitrange",
        _ => "admission-refused",
    };
    Cause::new(kind, what, fix)
}

/// The dind volume claims the pod mounts that were not provisioned, and
/// volumes that were not attached (a multi-attach among them).
pub(crate) fn volumes(ctx: &Context<'_>, pod: &Value, events: &[&Value]) -> Vec<Cause> {
    let mut causes = Vec::new();
    for claim_name in pod
        .pointer("/spec/volumes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| {
            v.pointer("/persistentVolumeClaim/claimName")
                .and_then(Value::as_str)
        })
    {
        let Some(claim) = ctx
            .reads
            .claims
            .iter()
            .find(|c| text(c, "/metadata/name") == claim_name)
        else {
            continue;
        };
        if text(claim, "/status/phase") != "Pending" {
            continue;
        }
        let claim_events = ctx.events.about("PersistentVolumeClaim", claim_name);
        let Some(message) = newest_message(claim_events, "ProvisioningFailed") else {
            continue;
        };
        causes.push(provisioning(
            claim_name,
            text(claim, "/spec/storageClassName"),
            message,
        ));
    }
    for reason in ["FailedAttachVolume", "FailedMount"] {
        if let Some(message) = newest_message(events, reason) {
            causes.push(attaching(message));
            break;
        }
    }
    causes
}

fn provisioning(claim: &str, class: &str, message: &str) -> Cause {
    let lower = message.to_ascii_lowercase();
    let (why, fix) = if [
        "credential",
        "unauthorized",
        "accessdenied",
        "access denied",
        "forbidden",
    ]
    .iter()
    .any(|w| lower.contains(w))
    {
        ("the cloud refused the provisioner's credentials", "give the volume provisioner working cloud credentials (values Storage credentials, or its ServiceAccount's IAM role) and upgrade")
    } else if lower.contains("zone") {
        ("the volume and the node are in different zones", "pin builds to the volumes' zone (Runtime.NodeSelector topology.kubernetes.io/zone) or use a StorageClass with volumeBindingMode WaitForFirstConsumer")
    } else if lower.contains("driver") && lower.contains("not found") {
        ("the StorageClass's CSI driver is not installed", "install the CSI driver the StorageClass names, or pick another StorageClass (values Storage)")
    } else {
        ("the provisioner failed", "read the volume provisioner's log (`cf-runner support-bundle`) and the StorageClass's settings")
    };
    Cause::new(
        "volume-not-provisioned",
        format!("volume claim {claim} (StorageClass {class}) not provisioned: {why}: {message}"),
        fix,
    )
}

fn attaching(message: &str) -> Cause {
    if message.contains("Multi-Attach") {
        Cause::new(
            "volume-not-attached",
            format!("dind volume in use on another node (multi-attach): {message}"),
            "a volume of access mode ReadWriteOnce mounts on one node at a time: wait for the other build to end, or let the volume be detached from a node that is gone",
        )
    } else {
        Cause::new(
            "volume-not-attached",
            format!("dind volume not attached or mounted: {message}"),
            "check the CSI driver's pods on the node and the volume's zone against the node's",
        )
    }
}

#[cfg(test)]
mod tests;
