//! Proves the test control plane (tests/support/controlplane.rs) is a real,
//! working Kubernetes: version, rollouts on kwok nodes, RBAC, audit log.
//! All tests share one control plane (support::controlplane::shared).

use crate::support;

use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::api::{Api, ListParams, PostParams};
use support::controlplane::{self, poll_until, ControlPlane, ADMIN_USER, FAKE_NODES, LIMITED_USER};

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn control_plane_runs_kubernetes_1_36() {
    let cp = controlplane::shared();
    eprintln!("warm start took {:.1}s", cp.started_in().as_secs_f64());
    let version = cp.client().apiserver_version().await.unwrap();
    assert_eq!(version.major, "1");
    assert_eq!(version.minor, "36", "{version:?}");
    assert!(version.git_version.starts_with("v1.36."), "{version:?}");
    assert!(cp.server().starts_with("https://127.0.0.1:"));
    assert!(cp.admin_kubeconfig().is_file());
    assert!(cp.limited_kubeconfig().is_file());
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn deployment_becomes_available_on_kwok_nodes() {
    let cp = controlplane::shared();
    let ns = cp.create_namespace("rollout").await.unwrap();
    let client = cp.client();
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), &ns);
    let deployment: Deployment = serde_json::from_value(serde_json::json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": { "name": "pause" },
        "spec": {
            "replicas": 2,
            "selector": { "matchLabels": { "app": "pause" } },
            "template": {
                "metadata": { "labels": { "app": "pause" } },
                "spec": {
                    "nodeSelector": {
                        "kubernetes.io/arch": "amd64",
                        "topology.kubernetes.io/zone": controlplane::NODE_ZONE,
                    },
                    "containers": [{
                        "name": "pause",
                        "image": "registry.k8s.io/pause:3.10",
                        "resources": { "requests": { "cpu": "100m", "memory": "64Mi" } },
                    }],
                },
            },
        },
    }))
    .unwrap();
    deployments
        .create(&PostParams::default(), &deployment)
        .await
        .unwrap();

    poll_until(
        "Deployment pause to be Available",
        Duration::from_secs(60),
        || async {
            let status = deployments.get("pause").await?.status.unwrap_or_default();
            let available = status
                .conditions
                .unwrap_or_default()
                .iter()
                .any(|c| c.type_ == "Available" && c.status == "True");
            Ok(available && status.available_replicas == Some(2))
        },
    )
    .await
    .unwrap();

    let pods: Api<Pod> = Api::namespaced(client, &ns);
    let pods = pods.list(&ListParams::default()).await.unwrap();
    assert_eq!(pods.items.len(), 2);
    for pod in pods.items {
        let node = pod.spec.and_then(|s| s.node_name).unwrap_or_default();
        assert!(FAKE_NODES.contains(&node.as_str()), "pod on node {node:?}");
        assert_eq!(pod.status.and_then(|s| s.phase).as_deref(), Some("Running"));
    }
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn job_completes_on_kwok_nodes() {
    let cp = controlplane::shared();
    let ns = cp.create_namespace("job").await.unwrap();
    let jobs: Api<Job> = Api::namespaced(cp.client(), &ns);
    let job: Job = serde_json::from_value(serde_json::json!({
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": { "name": "once" },
        "spec": {
            "backoffLimit": 0,
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{ "name": "main", "image": "registry.k8s.io/pause:3.10" }],
                },
            },
        },
    }))
    .unwrap();
    jobs.create(&PostParams::default(), &job).await.unwrap();
    poll_until("Job once to complete", Duration::from_secs(60), || async {
        let status = jobs.get("once").await?.status.unwrap_or_default();
        Ok(status.succeeded == Some(1)
            && status
                .conditions
                .unwrap_or_default()
                .iter()
                .any(|c| c.type_ == "Complete" && c.status == "True"))
    })
    .await
    .unwrap();
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn limited_user_is_forbidden_by_rbac() {
    let cp = controlplane::shared();
    let ns = cp.create_namespace("rbac").await.unwrap();

    let admin_pods: Api<Pod> = Api::namespaced(cp.client(), &ns);
    admin_pods.list(&ListParams::default()).await.unwrap();

    let limited_pods: Api<Pod> = Api::namespaced(cp.limited_client(), &ns);
    match limited_pods.list(&ListParams::default()).await {
        Err(kube::Error::Api(status)) => {
            assert_eq!(status.code, 403, "{status:?}");
            assert!(
                status.message.contains(&format!(
                    "User \"{LIMITED_USER}\" cannot list resource \"pods\""
                )),
                "{status:?}"
            );
        }
        other => panic!("the limited user could list pods: {other:?}"),
    }
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn audit_log_records_every_request() {
    let cp = controlplane::shared();
    let ns = cp.create_namespace("audit").await.unwrap();
    // A request only this test makes: GET of a ConfigMap that does not exist.
    let configmaps: Api<ConfigMap> = Api::namespaced(cp.client(), &ns);
    assert!(configmaps.get_opt("audit-probe").await.unwrap().is_none());
    let limited: Api<ConfigMap> = Api::namespaced(cp.limited_client(), &ns);
    assert!(limited.get_opt("audit-probe").await.is_err());

    let matching = |user: &str| {
        let events = cp.audit_events().unwrap();
        events.into_iter().find(|e| {
            e["user"]["username"] == user
                && e["verb"] == "get"
                && e["objectRef"]["resource"] == "configmaps"
                && e["objectRef"]["namespace"] == ns.as_str()
                && e["objectRef"]["name"] == "audit-probe"
                && e["stage"] == "ResponseComplete"
        })
    };
    // The log backend writes in blocking mode, but allow for buffering.
    poll_until("the audit events", Duration::from_secs(10), || async {
        Ok(matching(ADMIN_USER).is_some() && matching(LIMITED_USER).is_some())
    })
    .await
    .unwrap();

    let admin = matching(ADMIN_USER).unwrap();
    assert_eq!(admin["level"], "Metadata");
    assert_eq!(admin["responseStatus"]["code"], 404);
    assert!(admin.get("requestObject").is_none() && admin.get("responseObject").is_none());
    let limited = matching(LIMITED_USER).unwrap();
    assert_eq!(limited["responseStatus"]["code"], 403);
    assert_eq!(
        limited["annotations"]["authorization.k8s.io/decision"],
        "forbid"
    );
}

/// A private control plane (not the shared one): its API server can be
/// stopped and started again without losing data, and dropping it removes
/// everything.
#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn private_control_plane_restarts_its_apiserver() {
    let cp = ControlPlane::start().unwrap();
    let configmap: ConfigMap = serde_json::from_value(serde_json::json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": { "name": "survivor" },
        "data": { "key": "value" },
    }))
    .unwrap();
    let configmaps: Api<ConfigMap> = Api::default_namespaced(cp.client());
    configmaps
        .create(&PostParams::default(), &configmap)
        .await
        .unwrap();

    cp.stop_apiserver();
    assert!(!cp.apiserver_running());
    let mut config = cp.admin_config().clone();
    config.default_retry = false;
    config.connect_timeout = Some(Duration::from_secs(2));
    let offline: Api<ConfigMap> = Api::default_namespaced(kube::Client::try_from(config).unwrap());
    assert!(offline.get("survivor").await.is_err());

    cp.start_apiserver().unwrap();
    assert!(cp.apiserver_running());
    let configmaps: Api<ConfigMap> = Api::default_namespaced(cp.client());
    let survivor = configmaps.get("survivor").await.unwrap();
    assert_eq!(survivor.data.unwrap()["key"], "value");

    let dir = cp.dir().to_path_buf();
    drop(cp);
    assert!(!dir.exists(), "{} left behind", dir.display());
}
