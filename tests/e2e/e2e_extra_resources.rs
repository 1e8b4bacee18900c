//! `ExtraResources` against a real control plane: the user's objects are
//! installed with the runner, `upgrade` removes one that left the values
//! (and nothing else), and `delete` leaves none of them behind.

use crate::support;

use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::api::rbac::v1::{Role, RoleBinding};
use kube::api::Api;
use support::cli::{self, isolated, shared_home, text};
use support::controlplane;
use support::namespace::unique;

const AGENT_TOKEN: &str = "agent-token-for-extra-objects-012345";
const CONTEXT: &str = "admin@cf-runner-test";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn extra_objects_come_and_go_with_the_values_and_the_install() {
    let cp = controlplane::shared();
    let client = cp.client();
    let ns = unique("extra");
    let kubeconfig = cp.admin_kubeconfig();
    let out = cli::init(kubeconfig, shared_home(), "extra-objects", &ns, CONTEXT)
        .args([
            "--skip-cluster-test",
            "--no-wait",
            "--agent-token",
            AGENT_TOKEN,
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "init: {}", text(&out));

    let maps: Api<ConfigMap> = Api::namespaced(client.clone(), &ns);
    let roles: Api<Role> = Api::namespaced(client.clone(), &ns);
    let bindings: Api<RoleBinding> = Api::namespaced(client.clone(), &ns);
    let settings = maps.get("ci-settings").await.expect("the extra ConfigMap");
    let labels = settings.metadata.labels.unwrap_or_default();
    assert_eq!(labels["app.kubernetes.io/component"], "extra");
    assert_eq!(labels["app.kubernetes.io/managed-by"], "cf-runner");
    assert_eq!(
        settings.data.unwrap()["artifact-bucket"],
        "s3://ci-artifacts-example"
    );
    assert!(roles.get_opt("ci-settings-reader").await.unwrap().is_some());

    // The user drops the ConfigMap from the values and keeps the rest.
    let dir = tempfile::tempdir().unwrap();
    let fewer = dir.path().join("fewer.yaml");
    let example = std::fs::read_to_string(cli::example("extra-objects")).unwrap();
    let mut tree: serde_yaml_ng::Value = serde_yaml_ng::from_str(&example).unwrap();
    let items = tree["ExtraResources"].as_sequence_mut().unwrap();
    items.retain(|o| o["kind"] != "ConfigMap");
    let kept = serde_yaml_ng::to_string(&serde_yaml_ng::Value::Mapping(
        [("ExtraResources".into(), tree["ExtraResources"].clone())]
            .into_iter()
            .collect(),
    ))
    .unwrap();
    std::fs::write(&fewer, kept).unwrap();
    let out = isolated(kubeconfig, shared_home())
        .args(["upgrade", "--yes", "--no-wait", "--kube-namespace", &ns])
        .args(["--kube-context-name", CONTEXT, "--values"])
        .arg(&fewer)
        .output()
        .unwrap();
    let said = text(&out);
    assert!(out.status.success(), "upgrade: {said}");
    assert!(
        said.contains("ConfigMap/ci-settings"),
        "the plan names it: {said}"
    );
    assert!(
        maps.get_opt("ci-settings").await.unwrap().is_none(),
        "{said}"
    );
    assert!(roles.get_opt("ci-settings-reader").await.unwrap().is_some());
    assert!(bindings
        .get_opt("ci-settings-reader")
        .await
        .unwrap()
        .is_some());

    let out = isolated(kubeconfig, shared_home())
        .args(["delete", "--yes", "--kube-namespace", &ns])
        .args(["--kube-context-name", CONTEXT, "--timeout", "90s"])
        .output()
        .unwrap();
    assert!(out.status.success(), "delete: {}", text(&out));
    assert!(roles.get_opt("ci-settings-reader").await.unwrap().is_none());
    assert!(bindings
        .get_opt("ci-settings-reader")
        .await
        .unwrap()
        .is_none());
}
