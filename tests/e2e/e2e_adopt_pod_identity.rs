//! `adopt` of a chart install whose volume provisioner takes its AWS rights
//! from EKS Pod Identity. The chart's values say nothing of it; EKS's
//! webhook puts `AWS_CONTAINER_CREDENTIALS_FULL_URI` into the pods of the
//! associated account, which is played here by the chart's own `env` key.

use crate::support;

use std::time::Duration;

use support::adopt::*;
use support::cli::text;
use support::controlplane;
use support::fake_platform::FakePlatform;

const EBS_WITH_POD_IDENTITY: &str = "storage:
  backend: ebs-csi
  ebs:
    availabilityZone: us-east-1a
volumeProvisioner:
  env:
    AWS_CONTAINER_CREDENTIALS_FULL_URI: http://169.254.170.23/v1/credentials
";

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn pod_identity_of_the_charts_provisioner_is_carried_with_the_association_to_add() {
    let cp = controlplane::shared();
    let ns = cp.create_namespace("adoptpodid").await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let fake = FakePlatform::start(USER_TOKEN);
    register_like_the_chart(&fake, &ns);
    install_chart_with(cp, &ns, home.path(), EBS_WITH_POD_IDENTITY);
    let provisioner_pod = || {
        let out = cp
            .kubectl()
            .args(["-n", &ns, "get", "pods", "-o", "name"])
            .output()
            .unwrap();
        let up = String::from_utf8_lossy(&out.stdout).contains("volume-provisioner");
        async move { Ok(up) }
    };
    controlplane::poll_until(
        "the provisioner's pod",
        Duration::from_secs(90),
        provisioner_pod,
    )
    .await
    .unwrap();

    let file = home.path().join("adopted.yaml");
    let out = adopt(
        cp,
        home.path(),
        &["--dry-run", "--kube-namespace", &ns, "--values-file"]
            .into_iter()
            .chain([file.to_str().unwrap()])
            .collect::<Vec<_>>(),
    );
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(0), "{shown}");
    assert!(shown.contains("EKS Pod Identity"), "{shown}");
    assert!(
        shown.contains(&format!(
            "--namespace {ns} --service-account volume-provisioner"
        )),
        "the association cf-runner's provisioner needs: {shown}"
    );
    let saved: serde_json::Value =
        serde_yaml_ng::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(saved["Storage"]["AwsPodIdentity"], true, "{saved}");
}
