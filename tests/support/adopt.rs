//! Helpers of the `adopt` tests: old installs laid out the way the old
//! tools leave them (the chart rendered by `helm template`, Helm's release
//! record), requests to the fake platform the way old tools send them, and
//! reading what a move left.
#![allow(dead_code)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use base64::Engine;
use serde_json::{json, Value};

use super::cli::{isolated, text};
use super::controlplane::ControlPlane;
use super::fake_platform::FakePlatform;
use super::helm;

/// The control plane's admin user (whose requests the audit log shows).
pub const ADMIN_USER: &str = "admin";
/// The old install's agent token.
pub const AGENT_TOKEN: &str = "agent-token-adopt-e2e-0123456789abcdef";
/// The user's Codefresh API token (the fake platform's).
pub const USER_TOKEN: &str = "user-api-token-adopt-e2e-fedcba9876543210";

/// `cf-runner adopt args`, with the control plane's admin kubeconfig.
pub fn adopt(cp: &ControlPlane, home: &Path, args: &[&str]) -> Output {
    let mut cmd = isolated(cp.admin_kubeconfig(), home);
    cmd.arg("adopt").args(args);
    cmd.output().unwrap()
}

/// Applies `objects` into `ns` with kubectl (server-side, like `helm install`
/// writes them, under Helm's field manager).
pub fn apply(cp: &ControlPlane, ns: &str, objects: &[Value]) {
    let mut stream = String::new();
    for o in objects {
        stream.push_str("---\n");
        stream.push_str(&serde_json::to_string(o).unwrap());
        stream.push('\n');
    }
    let mut child = cp
        .kubectl()
        .args([
            "apply",
            "--server-side",
            "--field-manager=helm",
            "-n",
            ns,
            "-f",
            "-",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stream.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "kubectl apply failed: {}", text(&out));
}

/// The release record Helm 4 writes: a `helm.sh/release.v1` Secret whose
/// `release` key holds the release as gzipped JSON, base64-encoded.
pub fn release_secret(release: &str, ns: &str) -> Value {
    let record = json!({
        "name": release,
        "namespace": ns,
        "version": 1,
        "info": {"status": "deployed"},
        "chart": {"metadata": {"name": "cf-runtime", "version": helm::CHART_VERSION}},
    });
    let mut gzip = Command::new("gzip")
        .arg("-c")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("gzip is needed to build a Helm release record");
    gzip.stdin
        .take()
        .unwrap()
        .write_all(record.to_string().as_bytes())
        .unwrap();
    let zipped = gzip.wait_with_output().unwrap().stdout;
    let b64 = base64::engine::general_purpose::STANDARD;
    json!({
        "apiVersion": "v1",
        "kind": "Secret",
        "type": "helm.sh/release.v1",
        "metadata": {
            "name": format!("sh.helm.release.v1.{release}.v1"),
            "labels": {"name": release, "owner": "helm", "status": "deployed", "version": "1"},
        },
        "data": {"release": b64.encode(b64.encode(zipped))},
    })
}

/// The chart as `helm install` leaves it in `ns` (see `install_chart` in
/// e2e_adopt.rs), with `extra_values` of the caller's (YAML appended to the
/// chart values: `runner`, `storage`, `volumeProvisioner` …).
pub fn install_chart_with(cp: &ControlPlane, ns: &str, dir: &Path, extra_values: &str) {
    let values = dir.join("chart-values.yaml");
    std::fs::write(
        &values,
        format!(
            "global:\n  codefreshToken: {USER_TOKEN}\n  accountId: acc-1\n  agentName: adopt-agent\n  \
             runtimeName: adopt-cluster/{ns}\n  context: adopt-cluster\n{extra_values}"
        ),
    )
    .unwrap();
    let mut objects: Vec<Value> = helm::template(ns, &[&values])
        .unwrap()
        .into_iter()
        .filter(|o| {
            !o["metadata"]["annotations"]["helm.sh/hook"]
                .as_str()
                .is_some_and(|h| h.contains("pre-delete"))
        })
        .collect();
    for o in &mut objects {
        o["metadata"]["annotations"]["meta.helm.sh/release-name"] = json!("cf-runtime");
        o["metadata"]["annotations"]["meta.helm.sh/release-namespace"] = json!(ns);
        o["metadata"]["labels"]["app.kubernetes.io/managed-by"] = json!("Helm");
    }
    objects.push(json!({
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "cf-runtime-runner", "labels": {"codefresh.io/internal": "true"}},
        "stringData": {"agent-codefresh-token": AGENT_TOKEN},
    }));
    objects.push(release_secret("cf-runtime", ns));
    objects.push(json!({
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "dind-vol-build-1"},
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "storageClassName": format!("dind-local-volumes-runner-{ns}"),
            "resources": {"requests": {"storage": "1Gi"}},
        },
    }));
    apply(cp, ns, &objects);
}

/// The items listed under a heading of the plan `adopt` prints.
pub fn section<'a>(out: &'a str, heading: &str) -> Vec<&'a str> {
    out.lines()
        .skip_while(|l| !l.trim_start().starts_with(heading))
        .skip(1)
        .take_while(|l| l.starts_with("    - ") || l.trim() == "(none)")
        .map(|l| l.trim().trim_start_matches("- "))
        .collect()
}

/// One request to the fake platform, as the platform's own tools would
/// send it (the test seeds the agent and runtime an old installer made).
pub fn platform_call(fake: &FakePlatform, method: &str, path: &str, body: &Value) -> Value {
    use std::io::Read;
    let address = fake.url().trim_start_matches("http://").to_string();
    let mut stream = std::net::TcpStream::connect(&address).unwrap();
    let body = body.to_string();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: {}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        fake.token(),
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, rest) = answer.split_once("\r\n\r\n").unwrap();
    assert!(
        head.starts_with("HTTP/1.1 2"),
        "{method} {path}: {head}\n{rest}"
    );
    serde_json::from_str(rest).unwrap_or(Value::Null)
}

/// One key of a Secret in `ns`, decoded.
pub fn secret_text(cp: &ControlPlane, ns: &str, secret: &str, key: &str) -> String {
    let out = cp
        .kubectl()
        .args(["-n", ns, "get", "secret", secret, "-o"])
        .arg(format!("jsonpath={{.data.{}}}", key.replace('.', "\\.")))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    String::from_utf8(
        base64::engine::general_purpose::STANDARD
            .decode(String::from_utf8(out.stdout).unwrap().trim())
            .unwrap(),
    )
    .unwrap()
}

/// The agent and runtime environment the chart's init container registered.
pub fn register_like_the_chart(fake: &FakePlatform, ns: &str) {
    let agent = platform_call(fake, "POST", "/api/agents", &json!({"name": "adopt-agent"}));
    let runtime = format!("adopt-cluster/{ns}");
    platform_call(
        fake,
        "POST",
        "/api/custom_clusters/register",
        &json!({"clusterName": "adopt-cluster", "namespace": ns, "runtimeEnvironmentName": runtime,
                "storageClassName": format!("dind-local-volumes-runner-{ns}"), "agent": true,
                "serviceAccount": "codefresh-engine", "dockerDaemonScheduler": {"userAccess": true}}),
    );
    platform_call(
        fake,
        "PUT",
        &format!("/api/agent/{}", agent["id"].as_str().unwrap()),
        &json!({"runtimes": [runtime]}),
    );
}

/// What `codefresh runner init` and its `attach` registered on the platform
/// for venonactl's agent `venona-agent`: each runtime (name, namespace) as
/// a cluster runtime of context `venona-cluster`, and the agent's list of
/// them. The agent as the platform answered its creation (id, token).
pub fn venonactl_registered(fake: &FakePlatform, runtimes: &[(&str, &str)]) -> Value {
    let agent = platform_call(
        fake,
        "POST",
        "/api/agents",
        &json!({"name": "venona-agent"}),
    );
    for (name, in_ns) in runtimes {
        platform_call(
            fake,
            "POST",
            "/api/custom_clusters/register",
            &json!({"clusterName": "venona-cluster", "namespace": in_ns, "runtimeEnvironmentName": name,
                    "storageClassName": format!("dind-local-volumes-runner-{in_ns}"), "agent": true}),
        );
    }
    let names: Vec<&str> = runtimes.iter().map(|(name, _)| *name).collect();
    platform_call(
        fake,
        "PUT",
        &format!("/api/agent/{}", agent["id"].as_str().unwrap()),
        &json!({ "runtimes": names }),
    );
    agent
}
