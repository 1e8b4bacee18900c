//! A binary of its own: its tests add kwok nodes to the control plane and
//! delete them when done. An untainted node (the small one here) takes
//! other tests' pods while it exists, and deleting it evicts them, which
//! would break any test of the shared `e2e` control plane waiting for a
//! rollout at that moment.
//!
//! The preflight used to pass installs that can never become ready: the
//! runner pinned where no node is got a warning, and builds pinned (ebs-csi)
//! to a zone without nodes got nothing at all; a node whose taints the
//! builds do not tolerate, or too small for their requests, counted as room.
//! Each component no node takes now fails the check, named with what it
//! needs and why the nodes do not fit.

mod support;

use support::cli::{example, run as cf_runner, text};
use support::controlplane::{self, NodeShape, TestNode, NODE_ZONE};
use support::namespace::unique;

const ADMIN: &str = "admin@cf-runner-test";

/// Adds a node of its own (labelled `cf-runner-preflight-test=<name>`, so
/// only what is pinned there looks at it), with `taints` and allocatable
/// `cpu` and `memory`. Removed when the guard drops.
fn own_node(name: &str, taints: serde_json::Value, cpu: &str, memory: &str) -> TestNode {
    controlplane::add_node(
        name,
        NodeShape {
            labels: &[("cf-runner-preflight-test", name)],
            taints,
            cpu,
            memory,
            pods: "110",
        },
    )
}

/// A values file pinning the builds to `node`, with `extra` YAML under `Runtime:`.
fn builds_on(dir: &std::path::Path, node: &str, extra: &str) -> String {
    let path = dir.join(format!("{node}.yaml"));
    std::fs::write(
        &path,
        format!("Runtime:\n  NodeSelector:\n    cf-runner-preflight-test: {node}\n{extra}"),
    )
    .unwrap();
    path.display().to_string()
}

fn check(ns: &str, example_name: &str, extra: &[&str]) -> (Option<i32>, String) {
    let cp = controlplane::shared();
    let ex = example(example_name);
    let out = cf_runner(
        cp.admin_kubeconfig(),
        &[
            &[
                "check",
                "--values",
                ex.to_str().unwrap(),
                "--kube-namespace",
                ns,
                "--kube-context-name",
                ADMIN,
            ][..],
            extra,
        ]
        .concat(),
    );
    (out.status.code(), text(&out))
}

#[test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
fn builds_pinned_to_a_zone_without_nodes_fail_the_preflight() {
    assert_ne!(NODE_ZONE, "us-east-1c");
    let (code, shown) = check(
        "cfzone",
        "ebs-csi",
        &[
            "--set-value",
            "Storage.AvailabilityZone=us-east-1c",
            "--set-value",
            "Runtime.NodeSelector=topology.kubernetes.io/zone=us-east-1c",
        ],
    );
    assert_eq!(code, Some(3), "{shown}");
    assert!(shown.contains("could never be scheduled"), "{shown}");
    for component in ["build engine pods", "build dind pods"] {
        assert!(
            shown.contains(&format!(
                "- {component}: no schedulable node with labels topology.kubernetes.io/zone=us-east-1c"
            )),
            "{shown}"
        );
    }
    // The zone the nodes are in passes.
    let (code, shown) = check(
        "cfzone",
        "ebs-csi",
        &[
            "--set-value",
            &format!("Storage.AvailabilityZone={NODE_ZONE}"),
            "--set-value",
            &format!("Runtime.NodeSelector=topology.kubernetes.io/zone={NODE_ZONE}"),
        ],
    );
    assert_eq!(code, Some(0), "{shown}");
}

#[test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
fn a_runner_pinned_where_no_node_is_fails_the_preflight() {
    let (code, shown) = check(
        "cfpinned",
        "local",
        &["--set-value", "NodeSelector=pool=nowhere"],
    );
    assert_eq!(code, Some(3), "{shown}");
    // Other tests of this file add nodes of their own meanwhile (listed by
    // name, so maybe before these): each fake node is named on the line.
    let line = shown
        .lines()
        .find(|l| {
            l.trim_start().starts_with(
                "- Deployment/runner: no schedulable node with labels pool=nowhere, its taints tolerated (",
            )
        })
        .unwrap_or_else(|| panic!("no line for Deployment/runner: {shown}"));
    for node in ["kwok-node-0", "kwok-node-1"] {
        assert!(
            line.contains(&format!("{node}: not labelled pool=nowhere")),
            "{shown}"
        );
    }
}

#[test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
fn builds_pinned_to_a_node_whose_taint_they_do_not_tolerate_fail_the_preflight() {
    let name = unique("cf-tainted");
    let _node = own_node(
        &name,
        serde_json::json!([{"key": "dedicated", "value": "builds", "effect": "NoSchedule"}]),
        "4",
        "16Gi",
    );
    let dir = tempfile::tempdir().unwrap();
    let values = builds_on(dir.path(), &name, "");
    let (code, shown) = check("cftaint", "local", &["--values", &values]);
    assert_eq!(code, Some(3), "{shown}");
    for component in ["build engine pods", "build dind pods"] {
        assert!(
            shown.contains(&format!(
                "- {component}: no schedulable node with labels cf-runner-preflight-test={name}"
            )),
            "{shown}"
        );
    }
    assert!(
        shown.contains(&format!(
            "({name}: taint dedicated=builds:NoSchedule not tolerated)"
        )),
        "{shown}"
    );
    // The local volumes' monitor runs where the builds do, and is held out too.
    assert!(
        shown.contains("- DaemonSet/dind-lv-monitor: no schedulable node with labels"),
        "{shown}"
    );
    // Tolerated, the same node takes them.
    let values = builds_on(
        dir.path(),
        &name,
        "  tolerations:\n  - {key: dedicated, operator: Equal, value: builds, effect: NoSchedule}\n",
    );
    let (code, shown) = check("cftaint", "local", &["--values", &values]);
    assert_eq!(code, Some(0), "{shown}");
}

#[test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
fn builds_that_request_more_than_any_matching_node_has_fail_the_preflight() {
    let name = unique("cf-small");
    let _node = own_node(&name, serde_json::json!([]), "500m", "1Gi");
    let dir = tempfile::tempdir().unwrap();
    let values = builds_on(
        dir.path(),
        &name,
        "  resources:\n    requests: {cpu: '2', memory: 512Mi}\n    limits: {cpu: '4', memory: 4Gi}\n",
    );
    let (code, shown) = check("cfsmall", "local", &["--values", &values]);
    assert_eq!(code, Some(3), "{shown}");
    // Runtime.resources are the dind pods' requests.
    assert!(
        shown.contains(&format!(
            "- build dind pods: no schedulable node with labels cf-runner-preflight-test={name}, \
             2 CPU and 512Mi memory allocatable, its taints tolerated \
             ({name}: 500m CPU and 1Gi memory allocatable)"
        )),
        "{shown}"
    );
    // The engine's (100m, 128Mi) fit: the node takes it.
    assert!(!shown.contains("- build engine pods"), "{shown}");
    // Requests that fit pass.
    let values = builds_on(
        dir.path(),
        &name,
        "  resources:\n    requests: {cpu: 250m, memory: 512Mi}\n    limits: {cpu: '4', memory: 4Gi}\n",
    );
    let (code, shown) = check("cfsmall", "local", &["--values", &values]);
    assert_eq!(code, Some(0), "{shown}");
}
