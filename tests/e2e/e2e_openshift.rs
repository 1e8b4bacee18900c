//! OpenShift, as `init` and `check` find it: on a control plane that serves
//! `security.openshift.io`, `init --dry-run` (with `OpenShift` left to
//! auto) renders the binding of the runner's and the provisioner's accounts
//! to the privileged SCC, fixes no user ids and records `OpenShift: true`;
//! `check` says which accounts need which SCC. There is no OpenShift here:
//! a CustomResourceDefinition of the same name stands in for OpenShift's
//! built-in SCC API, which is all discovery shows. A private control plane,
//! because every other test's `auto` would see OpenShift too.

use crate::support;

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use kube::api::{Api, DynamicObject, PostParams};
use kube::core::{ApiResource, GroupVersionKind};
use serde_json::{json, Value};
use support::cli::{example, run as cf_runner, text};
use support::controlplane::{self, ControlPlane};

const CONTEXT: &str = "admin@cf-runner-test";

/// A minimal CRD with the name and group of OpenShift's SCC API (which
/// OpenShift serves built in, not as a CRD): enough for discovery to list
/// the group, which is all cf-runner asks.
fn scc_crd() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "securitycontextconstraints.security.openshift.io"},
        "spec": {
            "group": "security.openshift.io",
            "scope": "Cluster",
            "names": {"plural": "securitycontextconstraints", "singular": "securitycontextconstraint",
                      "kind": "SecurityContextConstraints"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                          "schema": {"openAPIV3Schema": {"type": "object",
                              "x-kubernetes-preserve-unknown-fields": true}}}]
        }
    })
}

async fn serve_scc_api(cp: &ControlPlane) {
    let gvk = GroupVersionKind::gvk("apiextensions.k8s.io", "v1", "CustomResourceDefinition");
    let api: Api<DynamicObject> = Api::all_with(cp.client(), &ApiResource::from_gvk(&gvk));
    let crd: DynamicObject = serde_json::from_value(scc_crd()).unwrap();
    api.create(&PostParams::default(), &crd).await.unwrap();
    let client = cp.client();
    controlplane::poll_until("the SCC API to be served", Duration::from_secs(60), || {
        let client = client.clone();
        async move {
            let groups = client.list_api_groups().await?;
            Ok(groups
                .groups
                .iter()
                .any(|g| g.name == "security.openshift.io"))
        }
    })
    .await
    .unwrap();
}

fn dry_run(cp: &ControlPlane, out: &Path, extra: &[&str]) -> Output {
    let ex = example("local");
    let mut args = vec![
        "init",
        "--dry-run",
        "--yes",
        "--values",
        ex.to_str().unwrap(),
        "--kube-context-name",
        CONTEXT,
        "--output-dir",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let output = cf_runner(cp.admin_kubeconfig(), &args);
    assert!(output.status.success(), "init --dry-run: {}", text(&output));
    output
}

fn yaml(path: &Path) -> Value {
    serde_yaml_ng::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The `openshift` check of `check -o json`, if it shows.
fn openshift_check(cp: &ControlPlane, extra: &[&str]) -> Option<Value> {
    let ex = example("local");
    let mut args = vec!["check", "-o", "json", "--values", ex.to_str().unwrap()];
    args.extend_from_slice(&[
        "--kube-namespace",
        "openshift-check",
        "--kube-context-name",
        CONTEXT,
    ]);
    args.extend_from_slice(extra);
    let output = cf_runner(cp.admin_kubeconfig(), &args);
    let report: Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&output)));
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "openshift")
        .cloned()
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn on_a_cluster_serving_the_scc_api_init_binds_the_scc_and_check_says_it() {
    let cp =
        tokio::task::spawn_blocking(|| ControlPlane::start().expect("a private control plane"))
            .await
            .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let binding = "1-rolebinding-openshift-scc-privileged.yaml";

    // Plain Kubernetes: nothing of OpenShift, and `check` does not mention it.
    let plain = dir.path().join("plain");
    dry_run(&cp, &plain, &[]);
    assert!(!plain.join(binding).exists());
    assert!(openshift_check(&cp, &[]).is_none());

    serve_scc_api(&cp).await;

    let out = dir.path().join("openshift");
    let said = dry_run(&cp, &out, &[]);
    assert!(
        text(&said).contains("security.openshift.io"),
        "{}",
        text(&said)
    );
    let rb = yaml(&out.join(binding));
    assert_eq!(rb["roleRef"]["kind"], "ClusterRole");
    assert_eq!(rb["roleRef"]["name"], "system:openshift:scc:privileged");
    let subjects: Vec<&str> = rb["subjects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(subjects, ["runner", "volume-provisioner"]);
    // No fixed user where the SCC assigns one.
    let runner = yaml(&out.join("2-deployment-runner.yaml"));
    assert!(runner["spec"]["template"]["spec"]["securityContext"].is_null());
    // Recorded, so upgrade and diff render the same without asking.
    let record = std::fs::read_to_string(out.join("1-secret-cf-runner-values.yaml")).unwrap();
    assert!(record.contains("OpenShift: true"), "{record}");

    let check = openshift_check(&cp, &[]).expect("an openshift check");
    assert_eq!(check["status"], "pass", "{check:#}");
    let details = check["details"].to_string();
    for account in ["runner", "volume-provisioner"] {
        assert!(
            details.contains(&format!("ServiceAccount {account}: SCC privileged")),
            "{check:#}"
        );
    }
    // Turned off on OpenShift: the check warns and says how to grant it.
    let off = openshift_check(&cp, &["--set-value", "OpenShift=false"]).expect("a check");
    assert_eq!(off["status"], "warn", "{off:#}");
    assert!(off["fix"]
        .as_str()
        .unwrap()
        .contains("add-scc-to-user privileged"));
}
