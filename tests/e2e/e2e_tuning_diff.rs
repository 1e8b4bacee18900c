//! The engine's and the components' settings of issue 44 against the real
//! control plane: after an `init`, `diff` shows a changed grace period in
//! the runtime spec and a changed pod annotation in the lv-monitor's
//! DaemonSet, and `upgrade` sends the new spec to the platform and applies
//! the annotation, which the stored values then keep.

use crate::support;

use std::process::Output;

use serde_json::Value;
use support::cli::{self, isolated, shared_home, text};
use support::controlplane::{self, ControlPlane};
use support::fake_platform::FakePlatform;
use support::namespace::unique;

const CONTEXT: &str = "admin@cf-runner-test";
const API_TOKEN: &str = "api-token-for-tuning-5432109876";

fn cf_runner(cp: &ControlPlane, args: &[&str]) -> Output {
    isolated(cp.admin_kubeconfig(), shared_home())
        .args(args)
        .output()
        .unwrap()
}

const CHANGES: [&str; 4] = [
    "--set-value",
    "Runtime.Engine.TerminationGracePeriodSeconds=600",
    "--set-value",
    "Storage.LocalVolumeMonitor.PodAnnotations.team=ci",
];

#[test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
fn a_changed_grace_period_and_annotation_show_in_diff_and_land_with_upgrade() {
    let cp = controlplane::shared();
    let ns = unique("tune");
    let fake = FakePlatform::start(API_TOKEN);
    let url = fake.url();
    let out = cli::init(cp.admin_kubeconfig(), shared_home(), "local", &ns, CONTEXT)
        .args([
            "--skip-cluster-test",
            "--skip-cluster-integration",
            "--no-wait",
        ])
        .args(["--token", API_TOKEN, "--url", &url])
        .output()
        .unwrap();
    assert!(out.status.success(), "init: {}", text(&out));

    let scope = ["--kube-namespace", &ns, "--kube-context-name", CONTEXT];
    let platform = ["--token", API_TOKEN, "--url", &url];
    let mut args = vec!["diff", "-o", "json"];
    args.extend(scope);
    args.extend(platform);
    args.extend(CHANGES);
    let out = cf_runner(cp, &args);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let r: Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    let differences = r["runtimeSpec"]["differences"].to_string();
    assert!(differences.contains("terminationGracePeriodSeconds"), "{r}");
    let daemon_set = r["objects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["object"] == "DaemonSet/dind-lv-monitor")
        .expect("the lv-monitor in the report");
    assert_eq!(daemon_set["action"], "change", "{daemon_set}");
    assert!(
        daemon_set["diff"]
            .as_str()
            .unwrap()
            .contains("+        team: ci"),
        "{daemon_set}"
    );

    let mut args = vec!["upgrade", "--yes", "--no-wait"];
    args.extend(scope);
    args.extend(platform);
    args.extend(CHANGES);
    let out = cf_runner(cp, &args);
    assert!(out.status.success(), "upgrade: {}", text(&out));
    let spec = fake
        .runtimes()
        .into_values()
        .next()
        .expect("a runtime on the platform");
    assert_eq!(
        spec["runtimeScheduler"]["terminationGracePeriodSeconds"], 600,
        "{spec}"
    );
    // The stored values keep the change: a plain diff shows nothing.
    let mut args = vec!["diff", "-o", "json"];
    args.extend(scope);
    args.extend(platform);
    let out = cf_runner(cp, &args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}
