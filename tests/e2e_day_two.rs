//! Day two on the real test control plane and the fake platform (which
//! signs, and can sign a certificate that has already expired): `info` and
//! `check` show the dind certificate's expiry and name the renewal; `renew
//! certificate` works on an expired one and writes only the Secret; `info
//! --wait` is a gate that says what it waits for and fails at its deadline
//! naming what is not ready.

mod support;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use support::cli::{self, isolated, text};
use support::controlplane::{self, ControlPlane, ADMIN_USER};
use support::fake_platform::FakePlatform;
use support::namespace::unique;

const USER_TOKEN: &str = "user-api-key.day2-0123456789abcdef";
const CONTEXT: &str = "admin@cf-runner-test";
const DAY: u64 = 86_400;

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn command(cp: &ControlPlane, home: &Path, args: &[&str]) -> Command {
    let mut cmd = isolated(cp.admin_kubeconfig(), home);
    cmd.args(args).env("CF_RUNNER_RETRY_BASE_MS", "20");
    cmd
}

fn run(cp: &ControlPlane, home: &Path, args: &[&str]) -> Output {
    command(cp, home, args).output().unwrap()
}

/// A registered install of the local example in `ns`, not waited for.
fn install(cp: &ControlPlane, fake: &FakePlatform, home: &Path, ns: &str) {
    let out = cli::init(cp.admin_kubeconfig(), home, "local", ns, CONTEXT)
        .env("CF_RUNNER_RETRY_BASE_MS", "20")
        .args(["--url", &fake.url(), "--token", USER_TOKEN])
        .args([
            "--skip-cluster-integration",
            "--no-wait",
            "--timeout",
            "90s",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

/// Writes cf-runner made since audit event `since` in namespace `ns` (or
/// to a cluster-wide object named after it), as `verb resource/name`.
fn writes_since(cp: &ControlPlane, since: usize, ns: &str) -> Vec<String> {
    cp.audit_events()
        .unwrap()
        .into_iter()
        .skip(since)
        .filter(|e| e["user"]["username"] == ADMIN_USER && e["stage"] == "ResponseComplete")
        .filter(|e| {
            e["userAgent"]
                .as_str()
                .unwrap_or_default()
                .to_ascii_lowercase()
                .starts_with("cf-runner")
        })
        .filter(|e| {
            matches!(
                e["verb"].as_str(),
                Some("create" | "update" | "patch" | "delete" | "deletecollection")
            )
        })
        .filter(|e| e["objectRef"]["resource"] != "selfsubjectaccessreviews")
        .filter(|e| {
            !e["requestURI"]
                .as_str()
                .unwrap_or_default()
                .contains("dryRun=All")
        })
        .filter(|e| {
            e["objectRef"]["namespace"] == ns
                || e["objectRef"]["name"]
                    .as_str()
                    .is_some_and(|n| n == ns || n.ends_with(&format!("-{ns}")))
        })
        .map(|e| {
            format!(
                "{} {}/{}",
                e["verb"].as_str().unwrap_or_default(),
                e["objectRef"]["resource"].as_str().unwrap_or_default(),
                e["objectRef"]["name"].as_str().unwrap_or_default()
            )
        })
        .collect()
}

/// The dind Secret's certificate and key as the cluster holds them.
fn dind_material(cp: &ControlPlane, ns: &str) -> (String, String) {
    let out = cp
        .kubectl()
        .args([
            "get",
            "secret",
            "codefresh-certs-server",
            "-n",
            ns,
            "-o",
            "json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let secret: Value = serde_json::from_slice(&out.stdout).unwrap();
    let decode = |k: &str| {
        use base64::Engine;
        let b = base64::engine::general_purpose::STANDARD
            .decode(secret["data"][k].as_str().unwrap())
            .unwrap();
        String::from_utf8(b).unwrap()
    };
    (decode("server-cert.pem"), decode("server-key.pem"))
}

fn not_after(pem: &str) -> u64 {
    let (_, block) = x509_parser::pem::parse_x509_pem(pem.as_bytes()).unwrap();
    let cert = block.parse_x509().unwrap();
    cert.validity().not_after.timestamp() as u64
}

/// The `check -o json` entry named `name`.
fn check_entry(out: &Output, name: &str) -> Value {
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("check -o json: {e}\n{}", text(out)));
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("no check {name:?}: {}", text(out)))
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn an_expired_dind_certificate_is_reported_gates_info_wait_and_is_renewed_in_one_write() {
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let home = tempfile::tempdir().unwrap();
    let ns = unique("day2cert");
    // The platform signs a certificate that expired yesterday.
    fake.sign_valid_between(now() - 400 * DAY, now() - DAY);
    install(cp, &fake, home.path(), &ns);
    let (old_cert, old_key) = dind_material(cp, &ns);
    assert!(not_after(&old_cert) < now());
    let renew_cmd = format!("cf-runner renew certificate --kube-namespace {ns}");

    // info: the expiry date, and the command that renews it.
    let info = run(
        cp,
        home.path(),
        &["info", "--kube-namespace", &ns, "-o", "json"],
    );
    assert_eq!(info.status.code(), Some(0), "{}", text(&info));
    let report: Value = serde_json::from_slice(&info.stdout).unwrap();
    let inst = &report["installations"][0];
    let shown = inst["summary"]["dind certificate"]
        .as_str()
        .unwrap_or_default();
    assert!(shown.starts_with("EXPIRED on "), "{inst:#}");
    assert_eq!(inst["healthy"], false, "{inst:#}");
    let notes = inst["notes"].to_string();
    assert!(notes.contains(&renew_cmd), "{notes}");

    // check: the same, and exit 3.
    let example = cli::example("local");
    let check_args = [
        "check",
        "--values",
        example.to_str().unwrap(),
        "--kube-namespace",
        &ns,
        "--kube-context-name",
        CONTEXT,
        "-o",
        "json",
    ];
    let check = run(cp, home.path(), &check_args);
    assert_eq!(check.status.code(), Some(3), "{}", text(&check));
    let entry = check_entry(&check, "dind certificate");
    assert_eq!(entry["status"], "fail", "{entry:#}");
    assert!(
        entry["fix"].as_str().unwrap().contains(&renew_cmd),
        "{entry:#}"
    );

    // info --wait: says what it waits for and how long, then exit 1 naming
    // the certificate.
    let waited = run(
        cp,
        home.path(),
        &["info", "--kube-namespace", &ns, "--wait", "--timeout", "3s"],
    );
    let said = text(&waited);
    assert_eq!(waited.status.code(), Some(1), "{said}");
    assert!(said.contains("waiting up to 3s"), "{said}");
    assert!(said.contains("the dind certificate valid"), "{said}");
    assert!(
        said.contains("not healthy after 3s") && said.contains("dind certificate: EXPIRED"),
        "{said}"
    );

    // Renewal of the expired certificate: one platform call, one write of
    // the Secret (plus the install's lock), a new key and a year ahead.
    fake.sign_valid_between(now() - 60, now() + 365 * DAY);
    fake.clear_requests();
    let mark = cp.audit_events().unwrap().len();
    let renewed = run(
        cp,
        home.path(),
        &[
            "renew",
            "certificate",
            "--kube-namespace",
            &ns,
            "--token",
            USER_TOKEN,
            "--url",
            &fake.url(),
        ],
    );
    let said = text(&renewed);
    assert_eq!(renewed.status.code(), Some(0), "{said}");
    assert!(said.contains("the old one expired on"), "{said}");
    assert_eq!(
        fake.calls(),
        ["POST /api/custom_clusters/signServerCerts"],
        "{said}"
    );
    let writes = writes_since(cp, mark, &ns);
    let not_lock: Vec<&String> = writes.iter().filter(|w| !w.contains(" leases/")).collect();
    assert_eq!(
        not_lock,
        ["patch secrets/codefresh-certs-server"],
        "{writes:?}"
    );
    eprintln!("writes of a renewal: {writes:?}");
    let (new_cert, new_key) = dind_material(cp, &ns);
    assert_ne!(new_key, old_key, "a new key");
    assert!(not_after(&new_cert) > now() + 300 * DAY);
    assert!(!said.contains(&new_key) && !said.contains("PRIVATE KEY"));

    let check = run(cp, home.path(), &check_args);
    let entry = check_entry(&check, "dind certificate");
    assert_eq!(entry["status"], "pass", "{entry:#}");
    assert!(entry["reason"].as_str().unwrap().starts_with("valid until"));

    // Now healthy: the gate opens (the fake control plane makes the pods
    // ready), with the platform asked for the runtime.
    let waited = run(
        cp,
        home.path(),
        &[
            "info",
            "--kube-namespace",
            &ns,
            "--wait",
            "--timeout",
            "90s",
            "--token",
            USER_TOKEN,
            "--url",
            &fake.url(),
        ],
    );
    let said = text(&waited);
    assert_eq!(waited.status.code(), Some(0), "{said}");
    assert!(said.contains("is healthy"), "{said}");
}
