//! The preflight used to pass installs that can never become ready: the
//! runner pinned where no node is got a warning, and builds pinned (ebs-csi)
//! to a zone without nodes got nothing at all. Each component whose node
//! selector no node matches now fails the check, named with its selector.

mod support;

use support::cli::{example, run as cf_runner, text};
use support::controlplane::{self, skip_e2e, NODE_ZONE};

const ADMIN: &str = "admin@cf-runner-test";

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
    if skip_e2e() {
        return;
    }
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
                "- {component}: no schedulable node with 500m CPU and 1Gi memory matches topology.kubernetes.io/zone=us-east-1c"
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
    if skip_e2e() {
        return;
    }
    let (code, shown) = check(
        "cfpinned",
        "local",
        &["--set-value", "NodeSelector=pool=nowhere"],
    );
    assert_eq!(code, Some(3), "{shown}");
    assert!(
        shown.contains("- Deployment/runner: no schedulable node with 500m CPU and 1Gi memory matches pool=nowhere"),
        "{shown}"
    );
}
