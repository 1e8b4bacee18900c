//! The scheduler's, admission's and the provisioner's words taken apart
//! into causes, on objects shaped as the API server returns them.

use serde_json::{json, Value};

use super::*;
use crate::app::day_two::diagnose::reads::Context;
use crate::cluster::builds::BuildReads;

fn ctx(reads: &BuildReads) -> Context<'_> {
    Context::new("ci", reads, None)
}

fn pending(message: &str) -> Value {
    json!({"metadata": {"name": "dind-1"},
        "spec": {"nodeSelector": {"pool": "builds"}, "containers": [{"name": "dind",
            "resources": {"requests": {"cpu": "2", "memory": "64Gi"}}}]},
        "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
            "reason": "Unschedulable", "message": message}]}})
}

#[test]
fn too_large_a_request_names_it_and_the_node_with_the_most_free() {
    let reads = BuildReads {
        nodes: Some(vec![
            json!({"metadata": {"name": "small"}, "status": {"allocatable": {"cpu": "2", "memory": "4Gi"}}}),
            json!({"metadata": {"name": "big"}, "status": {"allocatable": {"cpu": "8", "memory": "32Gi"}}}),
        ]),
        pods_on_nodes: Some(vec![json!({"spec": {"nodeName": "big", "containers": [
            {"resources": {"requests": {"cpu": "1", "memory": "8Gi"}}}]}, "status": {"phase": "Running"}})]),
        ..BuildReads::default()
    };
    let pod = pending("0/2 nodes are available: 2 Insufficient memory. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.");
    let causes = scheduling(&ctx(&reads), &pod, &[]);
    assert_eq!(causes.len(), 1, "{causes:?}");
    assert_eq!(causes[0].kind, "insufficient-resources");
    assert!(
        causes[0]
            .what
            .contains("insufficient memory: the pod requests 2 CPU and 64Gi memory"),
        "{}",
        causes[0].what
    );
    assert!(
        causes[0]
            .what
            .contains("node with the most free is big, with 7 CPU and 24Gi memory"),
        "{}",
        causes[0].what
    );
}

#[test]
fn a_taint_and_a_selector_are_each_named() {
    let reads = BuildReads::default();
    let pod = pending("0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 2 node(s) didn't match Pod's node affinity/selector.");
    let kinds: Vec<String> = scheduling(&ctx(&reads), &pod, &[])
        .into_iter()
        .map(|c| c.kind)
        .collect();
    assert_eq!(kinds, ["untolerated-taint", "no-matching-node"]);
    let c = &scheduling(&ctx(&reads), &pod, &[])[1];
    assert!(c.what.contains("pool=builds"), "{}", c.what);
}

#[test]
fn a_pod_waiting_for_its_volume_is_not_called_unschedulable() {
    let reads = BuildReads::default();
    let pod = pending("0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims.");
    assert!(scheduling(&ctx(&reads), &pod, &[]).is_empty());
}

#[test]
fn refusals_are_told_apart() {
    let q = refusal("ci", "Pod/dind-1", "pods \"dind-1\" is forbidden: exceeded quota: builds, requested: limits.memory=8Gi, used: limits.memory=8Gi, limited: limits.memory=8Gi");
    assert_eq!(q.kind, "quota-or-limitrange");
    assert!(q.fix.contains("ResourceQuota builds"), "{}", q.fix);
    let p = refusal(
        "ci",
        "Pod/dind-1",
        "pods \"dind-1\" is forbidden: no PriorityClass with name builds-high was found",
    );
    assert_eq!(p.kind, "missing-priorityclass");
    assert!(
        p.fix.contains("create PriorityClass builds-high"),
        "{}",
        p.fix
    );
    let w = refusal(
        "ci",
        "Pod/dind-1",
        "admission webhook \"policy.example.com\" denied the request: privileged",
    );
    assert_eq!(w.kind, "admission-refused");
}

#[test]
fn a_provisioner_failure_says_which_kind() {
    let zone = provisioning(
        "pvc-1",
        "dind-ebs",
        "failed to provision volume: volume in zone us-east-1a, node in us-east-1b",
    );
    assert!(zone.what.contains("different zones"), "{}", zone.what);
    let creds = provisioning(
        "pvc-1",
        "dind-ebs",
        "UnauthorizedOperation: You are not authorized",
    );
    assert!(creds.what.contains("credentials"), "{}", creds.what);
    let csi = provisioning(
        "pvc-1",
        "x",
        "driver name ebs.csi.aws.com not found in the list of registered CSI drivers",
    );
    assert!(
        csi.what.contains("CSI driver is not installed"),
        "{}",
        csi.what
    );
    assert!(attaching("Multi-Attach error for volume \"pv-1\"")
        .what
        .contains("multi-attach"));
}

/// The benchmark found every running pod called unschedulable: a pod keeps
/// the FailedScheduling events of its wait after it gets its node.
#[test]
fn a_scheduled_pod_is_not_judged_by_the_failed_scheduling_events_of_its_wait() {
    let reads = BuildReads::default();
    let pod = json!({"metadata": {"name": "dind-1"}, "spec": {},
        "status": {"phase": "Running", "conditions": [{"type": "PodScheduled", "status": "True"}]}});
    let old = json!({"reason": "FailedScheduling", "message": "0/3 nodes are available: 3 Insufficient memory."});
    assert!(scheduling(&ctx(&reads), &pod, &[&old]).is_empty());
    let waiting =
        json!({"metadata": {"name": "dind-1"}, "spec": {}, "status": {"phase": "Pending"}});
    assert_eq!(
        scheduling(&ctx(&reads), &waiting, &[&old])[0].kind,
        "insufficient-resources"
    );
}
