//! A binary of its own: it registers admission webhooks (cluster-wide
//! objects, failing closed, served from this process) and waits for the API
//! server and the quota controller to take up each change. Their namespace
//! selectors keep them to this file's namespaces, but a webhook whose server
//! thread has gone is left behind in the cluster until the binary exits,
//! and the waits stretch on a busy control plane; kept off the shared one.
//!
//! Admission before the install, on a control plane whose API server
//! enforces Pod Security, ResourceQuotas, LimitRanges and webhooks:
//! `check` and `init` stop (exit 3, nothing written) where admission would
//! refuse the runner's pods or a build's dind pod and claim, naming the
//! component, admission's message and the fix; namespaces that let them in
//! pass as before; and a wait for a workload whose pods are refused says
//! why, from the `FailedCreate` event. A webhook that refuses privileged
//! pods and one that injects a sidecar are served by the test on loopback.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::Output;
use std::sync::Arc;

use k8s_openapi::api::apps::v1::{DaemonSet, Deployment};
use kube::api::{Api, ListParams};
use support::cli::{self, example, run as cf_runner, text};
use support::controlplane::{self, ControlPlane};

const ADMIN: &str = "admin@cf-runner-test";
const LIMITED: &str = "limited@cf-runner-test";
const AGENT_TOKEN: &str = "agent-token-for-e2e-admission-0123456789";
const PSA: &str = "pod-security.kubernetes.io/enforce";

fn check_as(cp: &ControlPlane, context: &str, ns: &str) -> Output {
    let ex = example("local");
    let kubeconfig = if context == ADMIN {
        cp.admin_kubeconfig()
    } else {
        cp.limited_kubeconfig()
    };
    cf_runner(
        kubeconfig,
        &[
            "check",
            "--values",
            ex.to_str().unwrap(),
            "--kube-namespace",
            ns,
            "--kube-context-name",
            context,
        ],
    )
}

fn check(cp: &ControlPlane, ns: &str) -> Output {
    check_as(cp, ADMIN, ns)
}

fn init(cp: &ControlPlane, ns: &str, extra: &[&str]) -> Output {
    let home = tempfile::tempdir().unwrap();
    cli::init(cp.admin_kubeconfig(), home.path(), "local", ns, ADMIN)
        .args(["--agent-token", AGENT_TOKEN])
        .args(extra)
        .output()
        .unwrap()
}

fn kubectl(cp: &ControlPlane, args: &[&str]) -> String {
    let out = cp.kubectl().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "kubectl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn kubectl_apply(cp: &ControlPlane, object: serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("object.json");
    std::fs::write(&file, object.to_string()).unwrap();
    kubectl(cp, &["apply", "-f", file.to_str().unwrap()]);
}

/// A namespace of the test's, with Pod Security `level` enforced (none
/// when `None`).
async fn namespace(cp: &ControlPlane, prefix: &str, level: Option<&str>) -> String {
    let ns = cp.create_namespace(prefix).await.unwrap();
    if let Some(level) = level {
        kubectl(
            cp,
            &[
                "label",
                "namespace",
                &ns,
                &format!("{PSA}={level}"),
                "--overwrite",
            ],
        );
    }
    ns
}

/// Workloads cf-runner wrote in `ns` (none, when it stopped before writing).
async fn workloads(cp: &ControlPlane, ns: &str) -> usize {
    let client = cp.client();
    let lp = ListParams::default();
    Api::<Deployment>::namespaced(client.clone(), ns)
        .list(&lp)
        .await
        .unwrap()
        .items
        .len()
        + Api::<DaemonSet>::namespaced(client, ns)
            .list(&lp)
            .await
            .unwrap()
            .items
            .len()
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn pod_security_is_named_before_anything_is_written() {
    let cp = controlplane::shared();

    // The API server itself enforces Pod Security: a privileged pod is
    // refused in a baseline namespace.
    let probe_ns = namespace(cp, "psa-on", Some("baseline")).await;
    let out = cp
        .kubectl()
        .args(["run", "privileged", "-n", &probe_ns, "--image=busybox"])
        .args([
            "--overrides",
            r#"{"spec":{"containers":[{"name":"privileged","image":"busybox","securityContext":{"privileged":true}}]}}"#,
        ])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("violates PodSecurity"),
        "the control plane does not enforce Pod Security: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    for level in ["restricted", "baseline"] {
        let ns = namespace(cp, &format!("psa-{level}"), Some(level)).await;
        let out = check(cp, &ns);
        let shown = text(&out);
        assert_eq!(out.status.code(), Some(3), "{shown}");
        assert!(shown.contains("pod admission"), "{shown}");
        assert!(
            shown.contains(&format!("violates PodSecurity \"{level}:")),
            "{shown}"
        );
        assert!(shown.contains("every build (its dind pod)"), "{shown}");
        assert!(
            shown.contains(&format!(
                "kubectl label --overwrite namespace {ns} {PSA}=privileged"
            )),
            "{shown}"
        );
        assert!(
            shown.contains(&format!("namespace {ns} enforces Pod Security `{level}`")),
            "{shown}"
        );

        let out = init(cp, &ns, &["--no-wait"]);
        let shown = text(&out);
        assert_eq!(out.status.code(), Some(3), "{shown}");
        assert!(shown.contains("violates PodSecurity"), "{shown}");
        assert!(shown.contains("every build (its dind pod)"), "{shown}");
        assert_eq!(workloads(cp, &ns).await, 0, "init wrote before refusing");
    }

    // Privileged, or no label at all: as before.
    for level in [Some("privileged"), None] {
        let ns = namespace(cp, "psa-open", level).await;
        let out = check(cp, &ns);
        let shown = text(&out);
        assert_eq!(out.status.code(), Some(0), "{level:?}: {shown}");
        assert!(shown.contains("✓ pod admission"), "{shown}");
    }

    // A namespace that does not exist yet: reasoned from the levels.
    let out = check(cp, &support::namespace::unique("psa-missing"));
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(0), "{shown}");
    assert!(shown.contains("does not exist yet"), "{shown}");
    assert!(shown.contains("the runner needs `privileged`"), "{shown}");

    // A user who may read the namespace but not create pods still hears
    // what its labels say.
    let ns = namespace(cp, "psa-reader", Some("baseline")).await;
    kubectl(
        cp,
        &[
            "create",
            "clusterrole",
            "cf-admission-reader",
            "--verb=get,list",
            "--resource=namespaces,resourcequotas,limitranges",
        ],
    );
    kubectl(
        cp,
        &[
            "create",
            "clusterrolebinding",
            "cf-admission-reader",
            "--clusterrole=cf-admission-reader",
            "--user=limited",
        ],
    );
    let out = check_as(cp, LIMITED, &ns);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(3), "{shown}");
    assert!(
        shown.contains(&format!("namespace {ns} enforces Pod Security `baseline`")),
        "{shown}"
    );
    assert!(
        shown.contains("every build (its dind pod) needs `privileged`"),
        "{shown}"
    );
    assert!(
        shown.contains("may not create PersistentVolumeClaim or Pod"),
        "{shown}"
    );
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn quotas_limit_ranges_and_policy_webhooks_are_named() {
    let cp = controlplane::shared();

    // A quota with no room for a build's dind volume.
    let ns = namespace(cp, "quota", None).await;
    kubectl_apply(
        cp,
        serde_json::json!({
            "apiVersion": "v1", "kind": "ResourceQuota",
            "metadata": {"name": "tiny-storage", "namespace": ns},
            "spec": {"hard": {"requests.storage": "1Gi"}},
        }),
    );
    wait_quota_status(cp, &ns, "tiny-storage");
    let out = check(cp, &ns);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(3), "{shown}");
    assert!(
        shown.contains("every build (its dind volume claim): persistentvolumeclaims")
            && shown.contains("exceeded quota: tiny-storage"),
        "{shown}"
    );
    assert!(
        shown.contains(&format!("kubectl edit resourcequota tiny-storage -n {ns}")),
        "{shown}"
    );

    // A quota too small for the runner's own requests.
    let ns = namespace(cp, "quota-cpu", None).await;
    kubectl_apply(
        cp,
        serde_json::json!({
            "apiVersion": "v1", "kind": "ResourceQuota",
            "metadata": {"name": "tiny-memory", "namespace": ns},
            "spec": {"hard": {"requests.memory": "1Mi"}},
        }),
    );
    wait_quota_status(cp, &ns, "tiny-memory");
    let out = check(cp, &ns);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(3), "{shown}");
    assert!(shown.contains("Deployment/runner: "), "{shown}");
    assert!(
        shown.contains("ResourceQuota tiny-memory: requests.memory has 1Mi left"),
        "{shown}"
    );

    // A LimitRange whose max is below a component's limits.
    let ns = namespace(cp, "limits", None).await;
    kubectl_apply(
        cp,
        serde_json::json!({
            "apiVersion": "v1", "kind": "LimitRange",
            "metadata": {"name": "small-containers", "namespace": ns},
            "spec": {"limits": [{"type": "Container", "max": {"cpu": "100m"}}]},
        }),
    );
    let out = check(cp, &ns);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(3), "{shown}");
    assert!(
        shown.contains("every build (its dind pod): ")
            && shown.contains("maximum cpu usage per Container is 100m"),
        "{shown}"
    );
    assert!(shown.contains("LimitRange small-containers"), "{shown}");

    // A policy webhook that refuses privileged pods.
    let ns = namespace(cp, "webhook", None).await;
    kubectl(
        cp,
        &[
            "label",
            "namespace",
            &ns,
            "cf-admission-test=deny-privileged",
        ],
    );
    let (port, ca) = serve_webhook(deny_privileged);
    kubectl_apply(
        cp,
        serde_json::json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": "cf-admission-test"},
            "webhooks": [{
                "name": "deny-privileged.cf-runner.test",
                "admissionReviewVersions": ["v1"],
                "sideEffects": "None",
                "failurePolicy": "Fail",
                "timeoutSeconds": 5,
                "clientConfig": {"url": format!("https://127.0.0.1:{port}/validate"), "caBundle": ca},
                "namespaceSelector": {"matchLabels": {"cf-admission-test": "deny-privileged"}},
                "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}],
            }],
        }),
    );
    // The API server picks a new configuration up within a moment.
    let mut shown = String::new();
    for _ in 0..20 {
        let out = check(cp, &ns);
        shown = text(&out);
        if shown.contains(DENIAL) {
            assert_eq!(out.status.code(), Some(3), "{shown}");
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    assert!(shown.contains(DENIAL), "{shown}");
    assert!(
        shown.contains("admission webhook \"deny-privileged.cf-runner.test\" denied the request"),
        "{shown}"
    );
    assert!(shown.contains("every build (its dind pod): "), "{shown}");
    assert!(shown.contains("for an exception"), "{shown}");
    kubectl(
        cp,
        &[
            "delete",
            "validatingwebhookconfiguration",
            "cf-admission-test",
        ],
    );
    // A mutating webhook that injects a sidecar: a warning naming it.
    let ns = namespace(cp, "mutating", None).await;
    kubectl(cp, &["label", "namespace", &ns, "cf-admission-test=inject"]);
    let (port, ca) = serve_webhook(inject_sidecar);
    kubectl_apply(
        cp,
        serde_json::json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "MutatingWebhookConfiguration",
            "metadata": {"name": "cf-admission-test-inject"},
            "webhooks": [{
                "name": "inject.cf-runner.test",
                "admissionReviewVersions": ["v1"],
                "sideEffects": "None",
                "failurePolicy": "Fail",
                "timeoutSeconds": 5,
                "clientConfig": {"url": format!("https://127.0.0.1:{port}/mutate"), "caBundle": ca},
                "namespaceSelector": {"matchLabels": {"cf-admission-test": "inject"}},
                "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}],
            }],
        }),
    );
    let mut shown = String::new();
    for _ in 0..20 {
        let out = check(cp, &ns);
        shown = text(&out);
        if shown.contains("mesh-proxy") {
            assert_eq!(out.status.code(), Some(0), "{shown}");
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    assert!(shown.contains("! pod admission"), "{shown}");
    assert!(
        shown.contains(
            "every build (its dind pod): admission changed the pod: spec.containers[mesh-proxy] added"
        ),
        "{shown}"
    );
    kubectl(
        cp,
        &[
            "delete",
            "mutatingwebhookconfiguration",
            "cf-admission-test-inject",
        ],
    );
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_wait_for_pods_admission_refuses_says_why() {
    let cp = controlplane::shared();
    let ns = namespace(cp, "failed-create", Some("baseline")).await;
    let out = init(cp, &ns, &["--skip-cluster-test", "--timeout", "10s"]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(1), "{shown}");
    assert!(shown.contains("DaemonSet/dind-lv-monitor"), "{shown}");
    assert!(
        shown.contains("no pod was created: DaemonSet/dind-lv-monitor could not create one:"),
        "{shown}"
    );
    assert!(
        shown.contains("violates PodSecurity \"baseline:"),
        "{shown}"
    );
    assert!(!shown.contains("check the ReplicaSet events"), "{shown}");
}

/// Waits until the quota controller has filled the quota's status (until
/// then, admission refuses every pod it covers).
fn wait_quota_status(cp: &ControlPlane, ns: &str, name: &str) {
    for _ in 0..100 {
        let used = kubectl(
            cp,
            &[
                "get",
                "resourcequota",
                name,
                "-n",
                ns,
                "-o",
                "jsonpath={.status.hard}",
            ],
        );
        if !used.trim().is_empty() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("ResourceQuota {name} got no status");
}

const DENIAL: &str = "privileged pods are not allowed here (cf-runner admission test)";

/// What a test webhook answers to one AdmissionReview's request.
type Decide = fn(&serde_json::Value) -> serde_json::Value;

/// Refuses every pod with a privileged container, with [`DENIAL`].
fn deny_privileged(request: &serde_json::Value) -> serde_json::Value {
    let privileged = request
        .pointer("/object/spec/containers")
        .and_then(|c| c.as_array())
        .is_some_and(|cs| {
            cs.iter()
                .any(|c| c.pointer("/securityContext/privileged") == Some(&true.into()))
        });
    if privileged {
        serde_json::json!({"allowed": false, "status": {"code": 403, "message": DENIAL}})
    } else {
        serde_json::json!({"allowed": true})
    }
}

/// Injects a sidecar into every pod, as a service mesh does.
fn inject_sidecar(_: &serde_json::Value) -> serde_json::Value {
    let patch = serde_json::json!([{"op": "add", "path": "/spec/containers/-",
        "value": {"name": "mesh-proxy", "image": "mesh/proxy:1"}}]);
    serde_json::json!({
        "allowed": true,
        "patchType": "JSONPatch",
        "patch": base64_encode(patch.to_string().as_bytes()),
    })
}

/// Serves a webhook on loopback with TLS that answers with `decide`.
/// Gives the port and the CA bundle (its self-signed certificate, base64).
fn serve_webhook(decide: Decide) -> (u16, String) {
    controlplane::ensure_crypto_provider();
    let key = rcgen::KeyPair::generate().unwrap();
    let params = rcgen::CertificateParams::new(vec!["127.0.0.1".to_string()]).unwrap();
    let cert = params.self_signed(&key).unwrap();
    let config = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(
            vec![cert.der().clone()],
            rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
        )
        .unwrap();
    let config = Arc::new(config);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let config = config.clone();
            std::thread::spawn(move || {
                let conn = rustls::ServerConnection::new(config).unwrap();
                let tls = rustls::StreamOwned::new(conn, stream);
                let _ = answer_reviews(tls, decide);
            });
        }
    });
    let ca = base64_encode(cert.pem().as_bytes());
    (port, ca)
}

/// Answers AdmissionReviews on one connection until it closes.
fn answer_reviews(stream: impl Read + Write, decide: Decide) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream);
    loop {
        let mut length = 0usize;
        let mut line = String::new();
        loop {
            line.clear();
            if reader.read_line(&mut line)? == 0 {
                return Ok(());
            }
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        let review: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
        let request = review.get("request").cloned().unwrap_or_default();
        let mut response = decide(&request);
        response["uid"] = request.get("uid").cloned().unwrap_or_default();
        let answer = serde_json::json!({
            "apiVersion": "admission.k8s.io/v1",
            "kind": "AdmissionReview",
            "response": response,
        })
        .to_string();
        let stream = reader.get_mut();
        write!(
            stream,
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{answer}",
            answer.len()
        )?;
        stream.flush()?;
    }
}

fn base64_encode(bytes: &[u8]) -> String {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(TABLE[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Refuses privileged pods, but only when they are really created: a
/// policy the preflight's dry-run cannot see.
fn deny_privileged_for_real(request: &serde_json::Value) -> serde_json::Value {
    if request.get("dryRun") == Some(&true.into()) {
        return serde_json::json!({"allowed": true});
    }
    deny_privileged(request)
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn the_probe_names_admissions_refusal_of_its_dind_pod() {
    let cp = controlplane::shared();
    let ns = namespace(cp, "probe-refused", None).await;
    // The probe runs on an installed namespace (the engine's ServiceAccount).
    let out = init(cp, &ns, &["--no-wait"]);
    assert!(out.status.success(), "{}", text(&out));
    kubectl(
        cp,
        &["label", "namespace", &ns, "cf-admission-test=deny-real"],
    );
    let (port, ca) = serve_webhook(deny_privileged_for_real);
    kubectl_apply(
        cp,
        serde_json::json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": "cf-admission-test-real"},
            "webhooks": [{
                "name": "deny-real.cf-runner.test",
                "admissionReviewVersions": ["v1"],
                "sideEffects": "None",
                "failurePolicy": "Fail",
                "timeoutSeconds": 5,
                "clientConfig": {"url": format!("https://127.0.0.1:{port}/validate"), "caBundle": ca},
                "namespaceSelector": {"matchLabels": {"cf-admission-test": "deny-real"}},
                "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}],
            }],
        }),
    );
    let ex = example("local");
    let args = [
        "check",
        "--values",
        ex.to_str().unwrap(),
        "--kube-namespace",
        &ns,
        "--kube-context-name",
        ADMIN,
        "--probe",
        "--probe-timeout",
        "20s",
    ];
    let mut shown = String::new();
    for _ in 0..20 {
        let out = cf_runner(cp.admin_kubeconfig(), &args);
        shown = text(&out);
        if shown.contains(DENIAL) {
            assert_eq!(out.status.code(), Some(3), "{shown}");
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    assert!(shown.contains("✗ probe: admitted"), "{shown}");
    assert!(
        shown.contains("admission refused the dind-like pod")
            && shown.contains("admission webhook \"deny-real.cf-runner.test\" denied the request"),
        "{shown}"
    );
    assert!(
        shown.contains("for an exception for every build in namespace"),
        "{shown}"
    );
    kubectl(
        cp,
        &[
            "delete",
            "validatingwebhookconfiguration",
            "cf-admission-test-real",
        ],
    );
}
