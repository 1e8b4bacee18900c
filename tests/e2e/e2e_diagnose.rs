//! `cf-runner diagnose` on the shared test control plane: build pods
//! shaped as the agent creates them (bare `dind-<build>` pods labelled
//! `app: dind`), each broken one way, and the cause line a user reads for
//! each. Where the cluster itself produces the failure it does: the real
//! scheduler's `FailedScheduling` for a request no node has room for and a
//! selector no node matches, kwok's failed image pull. The rest (a taint,
//! which would need a node of its own and so a binary of its own; an
//! eviction, an OOM kill, a lost node, admission's and the provisioner's
//! refusals) are written as the kubelet, the controllers and admission
//! write them: the pod's status and the namespace's events. Those pods
//! name a scheduler that does not exist, so nothing rewrites them.
//!
//! One test has the real agent (venona 2.0.10) create the build pod from a
//! `CreatePod` task of the fake platform, built from the runtime spec
//! cf-runner registered, with a node selector no node has. Not reached
//! here: the build id the platform knows for a pod.

use crate::support;

use k8s_openapi::api::core::v1::{Event, PersistentVolumeClaim, Pod, Secret};
use k8s_openapi::api::rbac::v1::RoleBinding;
use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::{json, Value};
use support::audit;
use support::cli::{self, isolated, text};
use support::controlplane::{self, poll_until, ControlPlane, LIMITED_USER};

const CONTEXT: &str = "admin@cf-runner-test";
/// A scheduler no control plane runs: pods naming it keep the status a test gives them.
const NO_SCHEDULER: &str = "cf-runner-test-no-scheduler";

fn from_json<T: serde::de::DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).unwrap()
}

/// A dind pod of build `build`, with `spec` merged into its spec.
fn dind_pod(build: &str, spec: Value) -> Value {
    let mut pod = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": format!("dind-{build}"), "labels": {"app": "dind"}},
        "spec": {"containers": [{"name": "dind", "image": "quay.io/codefresh/dind:26.1",
            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]},
    });
    for (k, v) in spec.as_object().unwrap() {
        pod["spec"][k] = v.clone();
    }
    pod
}

async fn create_pod(cp: &ControlPlane, ns: &str, pod: Value) -> String {
    let name = pod["metadata"]["name"].as_str().unwrap().to_string();
    Api::<Pod>::namespaced(cp.client(), ns)
        .create(&PostParams::default(), &from_json(pod))
        .await
        .unwrap();
    name
}

/// A pod no scheduler touches, with the status the kubelet or a controller
/// would have written.
async fn pod_with_status(cp: &ControlPlane, ns: &str, build: &str, spec: Value, status: Value) {
    let mut spec = spec;
    spec["schedulerName"] = json!(NO_SCHEDULER);
    let name = create_pod(cp, ns, dind_pod(build, spec)).await;
    Api::<Pod>::namespaced(cp.client(), ns)
        .patch_status(
            &name,
            &PatchParams::default(),
            &Patch::Merge(json!({"status": status})),
        )
        .await
        .unwrap();
}

/// An event about `kind`/`name`, as a controller or the kubelet writes it.
async fn event(cp: &ControlPlane, ns: &str, kind: &str, name: &str, reason: &str, message: &str) {
    let now = k8s_openapi::jiff::Timestamp::now().to_string();
    let e = json!({
        "metadata": {"generateName": format!("{name}.")},
        "involvedObject": {"kind": kind, "name": name, "namespace": ns, "apiVersion": "v1"},
        "reason": reason, "message": message, "type": "Warning",
        "firstTimestamp": now, "lastTimestamp": now, "count": 1,
        "source": {"component": "cf-runner-test"},
    });
    Api::<Event>::namespaced(cp.client(), ns)
        .create(&PostParams::default(), &from_json(e))
        .await
        .unwrap();
}

/// `diagnose` of `ns` with the admin's kubeconfig: its exit code and what it said.
async fn diagnose(cp: &ControlPlane, ns: &str) -> (Option<i32>, String) {
    let home = tempfile::tempdir().unwrap();
    let out = cli::run_blocking(
        cp.admin_kubeconfig(),
        home.path(),
        vec!["diagnose".into(), "--kube-namespace".into(), ns.into()],
    )
    .await;
    (out.status.code(), text(&out))
}

/// Runs `diagnose` until its output holds `wanted` (the scheduler and kwok
/// answer in their own time), and asserts that it exits 1 naming it.
async fn assert_cause(cp: &ControlPlane, ns: &str, wanted: &[&str]) -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let (code, said) = diagnose(cp, ns).await;
        if code == Some(1) && wanted.iter().all(|w| said.contains(w)) {
            return said;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "wanted {wanted:?} and exit 1 within 30s, got {code:?}:\n{said}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    }
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_request_no_node_has_room_for_names_the_request_and_the_largest_free_node() {
    let cp = controlplane::shared();
    let ns = cp.create_namespace("cfdiag-cpu").await.unwrap();
    let spec = json!({"containers": [{"name": "dind", "image": "quay.io/codefresh/dind:26.1",
        "resources": {"requests": {"cpu": "1", "memory": "5000Gi"}}}]});
    create_pod(cp, &ns, dind_pod("big", spec)).await;
    assert_cause(
        cp,
        &ns,
        &[
            "dind-big: not scheduled: insufficient memory: the pod requests 1 CPU and 5000Gi memory",
            "the node with the most free is ",
            "docs/guide/diagnose.md#insufficient-resources",
        ],
    )
    .await;
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_selector_no_node_matches_is_named() {
    let cp = controlplane::shared();
    let ns = cp.create_namespace("cfdiag-selector").await.unwrap();
    let spec = json!({"nodeSelector": {"cf-runner-diagnose": "nowhere"}});
    create_pod(cp, &ns, dind_pod("sel", spec)).await;
    assert_cause(
        cp,
        &ns,
        &[
            "no node matches the pod's node selector cf-runner-diagnose=nowhere",
            "#no-matching-node",
        ],
    )
    .await;
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_taint_without_a_toleration_is_named() {
    let cp = controlplane::shared();
    let ns = cp.create_namespace("cfdiag-taint").await.unwrap();
    let message = "0/2 nodes are available: 2 node(s) had untolerated taint {dedicated: builds}. \
                   preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.";
    let status = json!({"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
        "reason": "Unschedulable", "message": message}]});
    pod_with_status(cp, &ns, "taint", json!({}), status).await;
    assert_cause(
        cp,
        &ns,
        &[
            "the nodes carry the taint {dedicated: builds}",
            "#untolerated-taint",
        ],
    )
    .await;
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn refusals_by_a_quota_a_missing_priorityclass_and_a_webhook_are_told_apart() {
    let cp = controlplane::shared();
    let ns = cp.create_namespace("cfdiag-refused").await.unwrap();
    event(cp, &ns, "Pod", "dind-q", "FailedCreate",
        "pods \"dind-q\" is forbidden: exceeded quota: builds, requested: requests.memory=8Gi, used: requests.memory=8Gi, limited: requests.memory=8Gi").await;
    event(
        cp,
        &ns,
        "Pod",
        "dind-p",
        "FailedCreate",
        "pods \"dind-p\" is forbidden: no PriorityClass with name builds-high was found",
    )
    .await;
    event(cp, &ns, "Pod", "dind-w", "FailedCreate",
        "admission webhook \"policy.example.com\" denied the request: privileged containers are not allowed").await;
    let said = assert_cause(
        cp,
        &ns,
        &[
            "Pod/dind-q in namespace",
            "raise ResourceQuota builds",
            "#quota-or-limitrange",
            "create PriorityClass builds-high",
            "#missing-priorityclass",
            "policy.example.com",
            "#admission-refused",
        ],
    )
    .await;
    assert!(said.contains("diagnose found 3 cause(s)"), "{said}");
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_volume_not_provisioned_and_a_multi_attach_are_named() {
    let cp = controlplane::shared();
    let ns = cp.create_namespace("cfdiag-volume").await.unwrap();
    let claim = json!({"metadata": {"name": "pvc-build-1"}, "spec": {"accessModes": ["ReadWriteOnce"],
        "storageClassName": format!("cf-runner-diagnose-none-{ns}"),
        "resources": {"requests": {"storage": "1Gi"}}}});
    Api::<PersistentVolumeClaim>::namespaced(cp.client(), &ns)
        .create(&PostParams::default(), &from_json(claim))
        .await
        .unwrap();
    event(cp, &ns, "PersistentVolumeClaim", "pvc-build-1", "ProvisioningFailed",
        "failed to provision volume: could not create volume in zone \"us-east-1b\": the node is in us-east-1a").await;
    let volumes = json!({"volumes": [{"name": "dind", "persistentVolumeClaim": {"claimName": "pvc-build-1"}}]});
    let pending = json!({"phase": "Pending"});
    pod_with_status(cp, &ns, "vol", volumes, pending.clone()).await;
    pod_with_status(cp, &ns, "attach", json!({}), pending).await;
    event(cp, &ns, "Pod", "dind-attach", "FailedAttachVolume",
        "Multi-Attach error for volume \"pvc-9\" Volume is already exclusively attached to one node and can't be attached to another").await;
    assert_cause(
        cp,
        &ns,
        &[
            "volume claim pvc-build-1 (StorageClass cf-runner-diagnose-none-",
            "the volume and the node are in different zones",
            "#volume-not-provisioned",
            "in use on another node (multi-attach)",
            "#volume-not-attached",
        ],
    )
    .await;
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn an_image_that_is_not_found_names_the_image_and_registry() {
    let cp = controlplane::shared();
    let ns = cp.create_namespace("cfdiag-image").await.unwrap();
    let spec = json!({"containers": [{"name": "dind",
        "image": "registry.does-not-exist.test/codefresh/dind:26.1"}]});
    create_pod(cp, &ns, dind_pod("img", spec)).await;
    assert_cause(
        cp,
        &ns,
        &[
            "image registry.does-not-exist.test/codefresh/dind:26.1 from registry.does-not-exist.test: the registry has no such image",
            "#image-pull",
        ],
    )
    .await;
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn an_eviction_an_oom_kill_and_a_lost_node_are_each_named() {
    let cp = controlplane::shared();
    let ns = cp.create_namespace("cfdiag-killed").await.unwrap();
    let evicted = json!({"phase": "Failed", "reason": "Evicted",
        "message": "The node was low on resource: ephemeral-storage. Threshold quantity: 1Gi, available: 512Mi."});
    pod_with_status(cp, &ns, "evicted", json!({}), evicted).await;
    let limited = json!({"containers": [{"name": "dind", "image": "quay.io/codefresh/dind:26.1",
        "resources": {"limits": {"memory": "2Gi"}}}]});
    let oom = json!({"phase": "Failed", "containerStatuses": [{"name": "dind", "image": "quay.io/codefresh/dind:26.1",
        "imageID": "", "ready": false, "restartCount": 0,
        "state": {"terminated": {"reason": "OOMKilled", "exitCode": 137}}}]});
    pod_with_status(cp, &ns, "oom", limited, oom).await;
    let gone = json!({"phase": "Failed", "conditions": [{"type": "DisruptionTarget", "status": "True",
        "reason": "DeletionByPodGC", "message": "PodGC: node no longer exists"}]});
    pod_with_status(cp, &ns, "gone", json!({}), gone).await;
    assert_cause(
        cp,
        &ns,
        &[
            "dind-evicted: evicted: The node was low on resource: ephemeral-storage",
            "#evicted",
            "container dind was OOM-killed at its memory limit of 2Gi",
            "#oom-killed",
            "dind-gone: its node went away (DeletionByPodGC)",
            "#node-gone",
        ],
    )
    .await;
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn an_expired_dind_certificate_is_named() {
    let cp = controlplane::shared();
    let ns = cp.create_namespace("cfdiag-cert").await.unwrap();
    let key = rcgen::KeyPair::generate().unwrap();
    let mut params = rcgen::CertificateParams::new(vec!["dind".to_string()]).unwrap();
    params.not_before = rcgen::date_time_ymd(2020, 1, 1);
    params.not_after = rcgen::date_time_ymd(2021, 1, 1);
    let pem = params.self_signed(&key).unwrap().pem();
    let secret = json!({"metadata": {"name": cf_runner::render::DIND_CERTS_SECRET},
        "stringData": {"server-cert.pem": pem}});
    Api::<Secret>::namespaced(cp.client(), &ns)
        .create(&PostParams::default(), &from_json(secret))
        .await
        .unwrap();
    assert_cause(
        cp,
        &ns,
        &[
            "EXPIRED on 2021-01-01",
            "cf-runner renew certificate",
            "#dind-certificate",
        ],
    )
    .await;
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_healthy_installation_says_nothing_wrong_and_exits_0() {
    let cp = controlplane::shared();
    let ns = support::namespace::unique("cfdiag-ok");
    let home = tempfile::tempdir().unwrap();
    let out = cli::init(cp.admin_kubeconfig(), home.path(), "local", &ns, CONTEXT)
        .args([
            "--agent-token",
            "agent-token-for-e2e-diagnose-0123456789",
            "--no-wait",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    create_pod(cp, &ns, dind_pod("fine", json!({}))).await;
    let pods = Api::<Pod>::namespaced(cp.client(), &ns);
    poll_until(
        "kwok runs dind-fine",
        std::time::Duration::from_secs(30),
        || async {
            let p = pods.get("dind-fine").await?;
            Ok(p.status.and_then(|s| s.phase).as_deref() == Some("Running"))
        },
    )
    .await
    .unwrap();
    let (code, said) = diagnose(cp, &ns).await;
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains("nothing wrong: 1 build pod(s) of the last 1h"),
        "{said}"
    );
    assert!(said.contains("dind-fine"), "{said}");
    // The installation's own pods (the runner, the provisioner) are not builds.
    assert!(!said.contains("dind-volume-provisioner"), "{said}");
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_user_who_may_only_read_the_namespace_gets_the_causes_and_nothing_is_written() {
    let cp = controlplane::shared();
    let ns = cp.create_namespace("cfdiag-reader").await.unwrap();
    let binding = json!({"metadata": {"name": "limited-view"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": LIMITED_USER}]});
    Api::<RoleBinding>::namespaced(cp.client(), &ns)
        .create(&PostParams::default(), &from_json(binding))
        .await
        .unwrap();
    let oom = json!({"phase": "Failed", "containerStatuses": [{"name": "dind", "image": "quay.io/codefresh/dind:26.1",
        "imageID": "", "ready": false, "restartCount": 0,
        "state": {"terminated": {"reason": "OOMKilled", "exitCode": 137}}}]});
    pod_with_status(cp, &ns, "oom", json!({}), oom).await;
    let mark = cp.audit_events().unwrap().len();
    let home = tempfile::tempdir().unwrap();
    let out = isolated(cp.limited_kubeconfig(), home.path())
        .args(["diagnose", "--kube-namespace", &ns, "-o", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let report: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    let pod = &report["runtimes"][0]["pods"][0];
    assert_eq!(pod["name"], "dind-oom", "{report:#}");
    assert_eq!(pod["causes"][0]["kind"], "oom-killed", "{report:#}");
    assert_eq!(report["nothingWrong"], false);
    // What it may not read is named, not fatal.
    let notes = report["notes"].to_string();
    assert!(notes.contains("Nodes"), "{notes}");
    // The admin's run (which may read the record and the Secrets) writes nothing either.
    diagnose(cp, &ns).await;
    let writes = audit::cf_runner_writes(cp, mark, &[ns.as_str()]);
    assert!(writes.is_empty(), "diagnose wrote: {writes:?}");
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn slow_starts_and_the_volume_pool_are_patterns_not_failures() {
    let cp = controlplane::shared();
    let ns = cp.create_namespace("cfdiag-patterns").await.unwrap();
    // Two dind pods that got a node three minutes after they were created
    // (an autoscaler adding one), one at once.
    for (build, after) in [("slow1", 180), ("slow2", 200), ("quick", 2)] {
        let created = k8s_openapi::jiff::Timestamp::now();
        let at = (created + k8s_openapi::jiff::SignedDuration::from_secs(after)).to_string();
        let status = json!({"phase": "Running", "conditions": [{"type": "PodScheduled", "status": "True",
            "lastTransitionTime": at}]});
        pod_with_status(cp, &ns, build, json!({}), status).await;
    }
    // Two dind volume claims of the runtime's StorageClass, neither mounted.
    for name in ["pvc-a", "pvc-b"] {
        let claim = json!({"metadata": {"name": name}, "spec": {"accessModes": ["ReadWriteOnce"],
            "storageClassName": format!("dind-local-volumes-runner-{ns}"),
            "resources": {"requests": {"storage": "1Gi"}}}});
        Api::<PersistentVolumeClaim>::namespaced(cp.client(), &ns)
            .create(&PostParams::default(), &from_json(claim))
            .await
            .unwrap();
    }
    let (code, said) = diagnose(cp, &ns).await;
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains("pattern: 2 of the last 3 dind pods waited more than 2 minutes for a node"),
        "{said}"
    );
    assert!(said.contains("#slow-scheduling"), "{said}");
    assert!(
        said.contains(&format!(
            "dind volumes in namespace {ns}: 2 claims, 0 in use by a build, 2 in the pool"
        )),
        "{said}"
    );
    assert!(said.contains("nothing wrong: 3 build pod(s)"), "{said}");
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn the_builds_of_a_runtime_attached_to_the_agent_are_looked_at_too() {
    use support::fake_platform::FakePlatform;
    const TOKEN: &str = "api-token-for-diagnose-0123456789abcdef";
    let cp = controlplane::shared();
    let fake = FakePlatform::start(TOKEN);
    let home = tempfile::tempdir().unwrap();
    let agent = cp.create_namespace("cfdiag-agent").await.unwrap();
    let builds = cp.create_namespace("cfdiag-attached").await.unwrap();
    let kubeconfig = cp.admin_kubeconfig().to_path_buf();
    let (k, h, a, url) = (
        kubeconfig.clone(),
        home.path().to_path_buf(),
        agent.clone(),
        fake.url(),
    );
    let out = tokio::task::spawn_blocking(move || {
        cli::init(&k, &h, "local", &a, CONTEXT)
            .args([
                "--skip-cluster-test",
                "--timeout=90s",
                "--token",
                TOKEN,
                "--url",
                &url,
            ])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(out.status.success(), "init: {}", text(&out));
    let near = format!("{CONTEXT}/{builds}");
    fake.add_runtime(&near, CONTEXT, &builds);
    let platform = |mut args: Vec<String>| {
        args.extend(["--token".into(), TOKEN.into(), "--url".into(), fake.url()]);
        args
    };
    let attach = platform(
        [
            "runtime",
            "attach",
            "--allow-builds-to-read-tokens",
            "--agent-namespace",
            &agent,
            "--agent-context",
            CONTEXT,
            "--kube-namespace",
            &builds,
        ]
        .map(String::from)
        .to_vec(),
    );
    let out = cli::run_blocking(&kubeconfig, home.path(), attach).await;
    assert!(out.status.success(), "attach: {}", text(&out));
    let status = json!({"phase": "Failed", "reason": "Evicted",
        "message": "The node was low on resource: memory. Container dind was using 9Gi."});
    pod_with_status(cp, &builds, "far", json!({}), status).await;

    let args = platform(
        ["diagnose", "--kube-namespace", &agent]
            .map(String::from)
            .to_vec(),
    );
    let out = cli::run_blocking(&kubeconfig, home.path(), args).await;
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!(
            "in namespace {builds} (context {CONTEXT}, runtime {near})"
        )),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            "✗ {builds}/dind-far: evicted: The node was low on resource: memory"
        )),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            "Build pods of the last 1h in namespace {agent} (context {CONTEXT}, runtime {CONTEXT}/{agent})"
        )),
        "{said}"
    );
}

/// The build pod the real agent (venona 2.0.10) creates from a platform
/// task, with a node selector no node has: the scheduler refuses it for
/// real, and `diagnose` names the selector.
#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_build_pod_the_real_agent_created_and_no_node_takes_is_diagnosed() {
    use support::fake_platform::{BuildPod, FakePlatform};
    use support::venona::Agent;
    const TOKEN: &str = "user-api-key.diagnose0123456789";
    const CONTEXT: &str = "admin@cf-runner-test";
    let cp = controlplane::shared();
    let fake = FakePlatform::start(TOKEN);
    let ns = support::namespace::unique("cfdiag-agent");
    let home = tempfile::tempdir().unwrap();
    let out = cli::init(cp.admin_kubeconfig(), home.path(), "local", &ns, CONTEXT)
        .args(["--url", &fake.url(), "--token", TOKEN])
        .args(["--skip-cluster-integration", "--timeout", "90s"])
        .env("CF_RUNNER_RETRY_BASE_MS", "20")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let agent_name = format!("{CONTEXT}_{ns}");
    let runtime = format!("{CONTEXT}/{ns}");
    let agent = Agent::start(cp, &ns, "runner").await.unwrap();

    let mut task = fake.create_pod_task(&runtime, BuildPod::Engine, "wf-nowhere");
    task["spec"]["spec"]["nodeSelector"] = json!({"cf-runner-diagnose": "nowhere"});
    fake.queue_task(&agent_name, task);
    let pods: Api<Pod> = Api::namespaced(cp.client(), &ns);
    poll_until(
        "the agent to create the build's engine pod",
        std::time::Duration::from_secs(60),
        || {
            let pods = pods.clone();
            async move { Ok(pods.get_opt("engine-wf-nowhere").await?.is_some()) }
        },
    )
    .await
    .unwrap_or_else(|e| panic!("{e:#}\n--- agent log:\n{}", agent.log()));

    let said = assert_cause(
        cp,
        &ns,
        &[
            "engine-wf-nowhere",
            "no node matches the pod's node selector cf-runner-diagnose=nowhere",
        ],
    )
    .await;
    assert!(!said.contains(TOKEN), "{said}");
}
