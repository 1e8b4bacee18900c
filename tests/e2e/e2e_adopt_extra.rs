//! `adopt` of a chart install with `extraResources`: the user's objects
//! outlive the old runner. A ConfigMap becomes an `ExtraResources` item
//! that cf-runner owns from then on; a Secret, which `ExtraResources`
//! refuses, is left exactly as it was.

use crate::support;

use std::time::Duration;

use serde_json::Value;
use support::adopt::*;
use support::cli::text;
use support::controlplane::{self, ControlPlane};
use support::fake_platform::FakePlatform;

const EXTRA: &str = "extraResources:
  - apiVersion: v1
    kind: ConfigMap
    metadata:
      name: ci-settings
    data:
      artifact-bucket: s3://ci-artifacts-example
  - apiVersion: v1
    kind: Secret
    metadata:
      name: ci-registry
    stringData:
      password: not-a-real-password
";

fn get(cp: &ControlPlane, ns: &str, what: &str) -> Option<Value> {
    let out = cp
        .kubectl()
        .args(["-n", ns, "get", what, "-o", "json"])
        .output()
        .unwrap();
    out.status
        .success()
        .then(|| serde_json::from_slice(&out.stdout).unwrap())
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn the_charts_extra_objects_are_carried_or_left_as_they_were() {
    let cp = controlplane::shared();
    let ns = cp.create_namespace("adoptextra").await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let fake = FakePlatform::start(USER_TOKEN);
    register_like_the_chart(&fake, &ns);
    install_chart_with(cp, &ns, home.path(), EXTRA);
    let secret_before = get(cp, &ns, "secret/ci-registry").expect("the chart made it");
    let runner_ready = || {
        let out = cp
            .kubectl()
            .args(["-n", &ns, "get", "deployment", "cf-runtime-runner"])
            .args(["-o", "jsonpath={.status.readyReplicas}"])
            .output()
            .unwrap();
        let ready = String::from_utf8_lossy(&out.stdout).trim() == "1";
        async move { Ok(ready) }
    };
    controlplane::poll_until("the old runner", Duration::from_secs(90), runner_ready)
        .await
        .unwrap();

    let moved = adopt(
        cp,
        home.path(),
        &["--yes", "--kube-namespace", &ns, "--token", fake.token()]
            .into_iter()
            .chain(["--url", &fake.url(), "--timeout", "90s"])
            .collect::<Vec<_>>(),
    );
    let shown = text(&moved);
    assert_eq!(moved.status.code(), Some(0), "{shown}");

    let cm = get(cp, &ns, "configmap/ci-settings").expect("the ConfigMap outlived the move");
    assert_eq!(cm["data"]["artifact-bucket"], "s3://ci-artifacts-example");
    let labels = &cm["metadata"]["labels"];
    assert_eq!(labels["app.kubernetes.io/managed-by"], "cf-runner", "{cm}");
    assert_eq!(labels["app.kubernetes.io/component"], "extra", "{cm}");

    let secret = get(cp, &ns, "secret/ci-registry").expect("the Secret outlived the move");
    assert_eq!(secret["metadata"]["uid"], secret_before["metadata"]["uid"]);
    assert_eq!(secret["data"], secret_before["data"]);
    assert!(!shown.contains("not-a-real-password"), "{shown}");
}
