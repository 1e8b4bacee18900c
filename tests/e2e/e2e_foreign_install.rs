//! A runner installed by another tool, in the namespace `init` targets:
//! the cf-runtime Helm chart's objects and release record. `init` used to
//! report "no installation found", then half-install next to it and
//! suggest `--force-conflicts` over the chart's objects. It must stop
//! before writing anything, name what is there, and never offer a takeover.

use crate::support;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, ListParams, PostParams};
use support::cli::{self, text};
use support::controlplane;

const ADMIN: &str = "admin@cf-runner-test";

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn init_stops_before_writing_next_to_a_helm_installed_runner() {
    let cp = controlplane::shared();
    let ns = cp.create_namespace("cfhelm").await.unwrap();
    // What `helm install cf-runtime codefresh/cf-runtime` leaves behind:
    // labelled workloads and the release record Secret.
    let chart_labels = serde_json::json!({
        "app.kubernetes.io/managed-by": "Helm",
        "app.kubernetes.io/instance": "cf-runtime",
        "app.kubernetes.io/name": "cf-runtime",
        "helm.sh/chart": "cf-runtime-10.5.2",
        "app": "runner",
    });
    let runner: Deployment = serde_json::from_value(serde_json::json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "cf-runtime-runner", "labels": chart_labels},
        "spec": {
            "replicas": 0,
            "selector": {"matchLabels": {"app": "runner"}},
            "template": {
                "metadata": {"labels": {"app": "runner"}},
                "spec": {"containers": [{"name": "runner", "image": "quay.io/codefresh/venona:2.0.0"}]}
            }
        }
    }))
    .unwrap();
    Api::<Deployment>::namespaced(cp.client(), &ns)
        .create(&PostParams::default(), &runner)
        .await
        .unwrap();
    let release: Secret = serde_json::from_value(serde_json::json!({
        "apiVersion": "v1",
        "kind": "Secret",
        "type": "helm.sh/release.v1",
        "metadata": {
            "name": "sh.helm.release.v1.cf-runtime.v1",
            "labels": {"owner": "helm", "name": "cf-runtime", "status": "deployed", "version": "1"}
        },
        "data": {"release": "e30="}
    }))
    .unwrap();
    let secrets = Api::<Secret>::namespaced(cp.client(), &ns);
    secrets
        .create(&PostParams::default(), &release)
        .await
        .unwrap();
    let secrets_before = secrets.list_metadata(&ListParams::default()).await.unwrap();

    let home = tempfile::tempdir().unwrap();
    let out = cli::init(cp.admin_kubeconfig(), home.path(), "local", &ns, ADMIN)
        .args([
            "--agent-token",
            "agent-token-for-e2e-foreign-0123456789",
            "--no-wait",
        ])
        .output()
        .unwrap();
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(3), "{shown}");
    assert!(shown.contains("cf-runtime Helm chart"), "{shown}");
    assert!(
        shown
            .contains("Deployment/cf-runtime-runner (chart cf-runtime-10.5.2, release cf-runtime)"),
        "{shown}"
    );
    assert!(
        shown.contains("Secret/sh.helm.release.v1.cf-runtime.v1"),
        "{shown}"
    );
    assert!(!shown.contains("--force-conflicts to take"), "{shown}");
    assert!(!shown.contains("older installer"), "{shown}");

    // Nothing was written: no Deployment of ours, no new Secret.
    let deployments = Api::<Deployment>::namespaced(cp.client(), &ns)
        .list_metadata(&ListParams::default())
        .await
        .unwrap();
    let names: Vec<_> = deployments
        .items
        .iter()
        .filter_map(|d| d.metadata.name.clone())
        .collect();
    assert_eq!(names, vec!["cf-runtime-runner".to_string()], "{shown}");
    let secrets_after = secrets.list_metadata(&ListParams::default()).await.unwrap();
    assert_eq!(
        secrets_after.items.len(),
        secrets_before.items.len(),
        "{shown}"
    );
}

/// `--force-conflicts` took over a user's pre-existing object, and a later
/// `delete` removed it. Now no flag takes over an object cf-runner did not
/// create: the install stops before writing, and the object stays as it was.
#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn force_conflicts_does_not_take_over_a_users_object() {
    use k8s_openapi::api::core::v1::ConfigMap;
    let cp = controlplane::shared();
    let ns = cp.create_namespace("cfadopt").await.unwrap();
    let users: ConfigMap = serde_json::from_value(serde_json::json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "codefresh-dind-config"},
        "data": {"daemon.json": "{\"mine\": true}"}
    }))
    .unwrap();
    let config_maps = Api::<ConfigMap>::namespaced(cp.client(), &ns);
    config_maps
        .create(
            &PostParams {
                field_manager: Some("the-user".into()),
                ..Default::default()
            },
            &users,
        )
        .await
        .unwrap();
    let before = config_maps.get("codefresh-dind-config").await.unwrap();
    let init = |extra: &[&str]| {
        let home = tempfile::tempdir().unwrap();
        cli::init(cp.admin_kubeconfig(), home.path(), "local", &ns, ADMIN)
            .args([
                "--agent-token",
                "agent-token-for-e2e-adopt-0123456789",
                "--no-wait",
                "--skip-cluster-test",
            ])
            .args(extra)
            .output()
            .unwrap()
    };
    for extra in [&[][..], &["--force-conflicts"]] {
        let out = init(extra);
        let shown = text(&out);
        assert_eq!(out.status.code(), Some(3), "{extra:?}: {shown}");
        assert!(shown.contains("the-user"), "{shown}");
        assert!(
            shown.contains(&format!(
                "ConfigMap/codefresh-dind-config in namespace {ns}: carries no cf-runner labels"
            )),
            "{shown}"
        );
    }
    let after = config_maps.get("codefresh-dind-config").await.unwrap();
    assert_eq!(
        after.metadata.resource_version,
        before.metadata.resource_version
    );
    assert_eq!(after.data, before.data);
}
