//! A brief API-server outage while `init` waits for the workloads used to
//! end the install at once (exit 1, 45 ms after the loss). It must be
//! waited out within `--timeout`, saying so.

use crate::support;

use std::io::BufRead;
use std::process::Stdio;
use std::time::Duration;

use k8s_openapi::api::core::v1::Node;
use kube::api::{Api, Patch, PatchParams};
use support::cli::{self, shared_home};
use support::controlplane::{ControlPlane, FAKE_NODES};

#[test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
fn a_brief_outage_while_waiting_is_retried_within_the_timeout() {
    // A private control plane: stopping the shared one would break other tests.
    let cp = ControlPlane::start().expect("a private control plane");
    // Pinned to a label no node has yet, the runner cannot become ready, so
    // the wait is surely under way when the API server goes.
    let mut child = cli::init(
        cp.admin_kubeconfig(),
        shared_home(),
        "local",
        "cfoutage",
        "admin@cf-runner-test",
    )
    .args([
        "--agent-token",
        "agent-token-for-outage-test-0123456789",
        "--kube-node-selector",
        "pool=later",
        // The preflight would (rightly) refuse a selector no node matches yet.
        "--skip-cluster-test",
        "--timeout",
        "3m",
    ])
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "init ended before applying:\n{seen}"
        );
        seen.push_str(&line);
        if line.contains("objects applied") {
            break;
        }
    }
    cp.stop_apiserver();
    std::thread::sleep(Duration::from_secs(3));
    cp.start_apiserver().unwrap();
    // Now let the runner schedule.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let nodes: Api<Node> = Api::all(cp.client());
        for node in FAKE_NODES {
            nodes
                .patch(
                    node,
                    &PatchParams::default(),
                    &Patch::Merge(serde_json::json!({"metadata": {"labels": {"pool": "later"}}})),
                )
                .await
                .unwrap();
        }
    });
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    let out = child.wait_with_output().unwrap();
    let shown = format!(
        "{seen}{rest}--- stderr\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0), "{shown}");
    assert!(
        shown.contains("the API server did not answer (no connection); retrying until the timeout"),
        "{shown}"
    );
}
