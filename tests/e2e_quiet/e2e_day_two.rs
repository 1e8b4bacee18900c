//! Day two on the real test control plane and the fake platform (which
//! signs, and can sign a certificate that has already expired): `info` and
//! `check` show the dind certificate's expiry and name the renewal; `renew
//! certificate` works on an expired one and writes only the Secret; `info
//! --wait` is a gate that says what it waits for and fails at its deadline
//! naming what is not ready.

use crate::support;

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

/// The bridge test adds a node whose pod CIDR overlaps docker's bridge:
/// it runs alone (write), the others side by side (read), so no install
/// of theirs sees that node.
static NODES: std::sync::RwLock<()> = std::sync::RwLock::new(());

fn shared_nodes() -> std::sync::RwLockReadGuard<'static, ()> {
    NODES.read().unwrap_or_else(|e| e.into_inner())
}

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
        .filter(|e| !crate::support::audit::is_dry_run(e))
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
    let _together = crate::together().await;
    let _nodes = shared_nodes();
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

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn delete_ends_with_a_verified_statement_of_what_is_left() {
    let _together = crate::together().await;
    let _nodes = shared_nodes();
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let home = tempfile::tempdir().unwrap();

    // Everything asked to go: one statement that nothing is left.
    let ns = unique("day2gone");
    install(cp, &fake, home.path(), &ns);
    let agent = format!("{CONTEXT}_{ns}");
    let runtime = format!("{CONTEXT}/{ns}");
    let out = run(
        cp,
        home.path(),
        &[
            "delete",
            "--yes",
            "--kube-namespace",
            &ns,
            "--delete-namespace",
            "--purge-volumes",
            "--token",
            USER_TOKEN,
            "--url",
            &fake.url(),
        ],
    );
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    let line = said
        .lines()
        .find(|l| l.contains("verified: nothing is left"))
        .unwrap_or_else(|| panic!("no verified statement:\n{said}"));
    assert!(
        line.contains(&format!(
            "agent {agent}, runtime environment {runtime} and the cluster integration of {CONTEXT} are gone"
        )),
        "{line}"
    );
    let deleted: usize = line
        .split_once(&format!("namespace {ns}: "))
        .and_then(|(_, t)| t.split(" objects deleted").next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no count in {line}"));
    assert!(deleted >= 10, "{line}");
    assert!(fake.agents().iter().all(|a| a["name"] != agent.as_str()));
    assert!(!fake.runtimes().contains_key(&runtime));

    // The namespace kept and the platform left alone: each thing left is
    // named with why.
    let ns = unique("day2left");
    install(cp, &fake, home.path(), &ns);
    let agent = format!("{CONTEXT}_{ns}");
    let out = run(
        cp,
        home.path(),
        &[
            "delete",
            "--yes",
            "--kube-namespace",
            &ns,
            "--keep-platform",
        ],
    );
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(!said.contains("verified: nothing is left"), "{said}");
    assert!(
        said.contains(&format!(
            "Left of the runner in namespace {ns}, verified (2):"
        )),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            "Namespace/{ns}: namespaces stay unless --delete-namespace"
        )),
        "{said}"
    );
    assert!(
        said.contains(&format!("agent {agent} and runtime environment"))
            && said.contains("(--keep-platform)"),
        "{said}"
    );
}

fn kubectl(cp: &ControlPlane, args: &[&str]) {
    let out = cp.kubectl().args(args).output().unwrap();
    assert!(out.status.success(), "kubectl {args:?}: {}", text(&out));
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn info_and_check_say_when_a_newer_cf_runner_installed_it_and_when_an_image_was_edited() {
    let _together = crate::together().await;
    let _nodes = shared_nodes();
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let home = tempfile::tempdir().unwrap();
    let ns = unique("day2skew");
    install(cp, &fake, home.path(), &ns);
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
    // As installed: no skew.
    let check = run(cp, home.path(), &check_args);
    let entry = check_entry(&check, "version skew");
    assert_eq!(entry["status"], "pass", "{entry:#}");

    // Someone sets the runner's image by hand, and a newer cf-runner wrote
    // the record (no network is needed to tell either).
    kubectl(
        cp,
        &[
            "set",
            "image",
            "deployment/runner",
            "runner=registry.example/venona:edited",
            "-n",
            &ns,
        ],
    );
    kubectl(
        cp,
        &[
            "patch",
            "secret",
            "cf-runner-values",
            "-n",
            &ns,
            "--type",
            "merge",
            "-p",
            r#"{"stringData":{"cf-runner-version":"99.0.0"}}"#,
        ],
    );
    let info = run(
        cp,
        home.path(),
        &["info", "--kube-namespace", &ns, "-o", "json"],
    );
    assert_eq!(info.status.code(), Some(0), "{}", text(&info));
    let report: Value = serde_json::from_slice(&info.stdout).unwrap();
    let notes = report["installations"][0]["notes"].to_string();
    assert!(
        notes.contains("installed by cf-runner 99.0.0, newer than this cf-runner"),
        "{notes}"
    );
    assert!(
        notes.contains("Deployment/runner container runner runs registry.example/venona:edited, set by kubectl"),
        "{notes}"
    );
    let check = run(cp, home.path(), &check_args);
    let entry = check_entry(&check, "version skew");
    assert_eq!(entry["status"], "warn", "{entry:#}");
    let details = entry["details"].to_string();
    assert!(
        details.contains("99.0.0") && details.contains("venona:edited"),
        "{details}"
    );
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn check_compares_dind_s_bridge_with_the_pod_cidrs_and_suggests_a_bip() {
    let _alone = crate::alone().await;
    let _nodes = NODES.write().unwrap_or_else(|e| e.into_inner());
    let cp = controlplane::shared();
    let home = tempfile::tempdir().unwrap();
    let ns = unique("day2net");
    let example = cli::example("local");
    let args = [
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
    // The control plane's Service CIDR (10.96.0.0/16) is apart from docker's bridge.
    let out = run(cp, home.path(), &args);
    let entry = check_entry(&out, "dind bridge");
    assert_eq!(entry["status"], "pass", "{entry:#}");
    assert!(
        entry["reason"].as_str().unwrap().contains("172.17.0.0/16"),
        "{entry:#}"
    );

    // A node whose pods get addresses inside docker's default bridge.
    let node = format!("{ns}-node");
    let manifest = serde_json::json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": node},
        "spec": {"podCIDR": "172.17.8.0/24", "podCIDRs": ["172.17.8.0/24"],
                 "taints": [{"key": "day2", "effect": "NoSchedule"}]},
    });
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("node.json");
    std::fs::write(&file, manifest.to_string()).unwrap();
    kubectl(cp, &["create", "-f", file.to_str().unwrap()]);
    let out = run(cp, home.path(), &args);
    // `diagnose` of a namespace whose dind ConfigMap keeps docker's default
    // bridge names the same overlap as a cause of failed builds.
    let diag_ns = unique("day2diag");
    kubectl(cp, &["create", "namespace", &diag_ns]);
    kubectl(
        cp,
        &[
            "-n",
            &diag_ns,
            "create",
            "configmap",
            "codefresh-dind-config",
            "--from-literal=daemon.json={\"hosts\": [\"unix:///var/run/docker.sock\"]}",
        ],
    );
    let diagnosed = run(
        cp,
        home.path(),
        &[
            "diagnose",
            "--kube-namespace",
            &diag_ns,
            "--kube-context-name",
            CONTEXT,
        ],
    );
    kubectl(cp, &["delete", "node", &node]);
    kubectl(cp, &["delete", "namespace", &diag_ns, "--wait=false"]);
    let said = text(&diagnosed);
    assert_eq!(diagnosed.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!(
            "pod CIDR of node {node} 172.17.8.0/24 overlaps dind's bridge 172.17.0.0/16"
        )) && said.contains("Runtime.Bip")
            && said.contains("docs/guide/diagnose.md#bridge-overlap"),
        "{said}"
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let entry = check_entry(&out, "dind bridge");
    assert_eq!(entry["status"], "fail", "{entry:#}");
    let details = entry["details"].to_string();
    assert!(
        details.contains(&format!(
            "pod CIDR of node {node} 172.17.8.0/24 overlaps dind's bridge 172.17.0.0/16"
        )),
        "{details}"
    );
    assert!(
        entry["fix"]
            .as_str()
            .unwrap()
            .contains("\"bip\": \"192.168.254.1/24\""),
        "{entry:#}"
    );
}

/// A Secret of `ns`, its keys decoded.
fn secret_data(
    cp: &ControlPlane,
    ns: &str,
    name: &str,
) -> std::collections::BTreeMap<String, String> {
    let out = cp
        .kubectl()
        .args(["get", "secret", name, "-n", ns, "-o", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let secret: Value = serde_json::from_slice(&out.stdout).unwrap();
    secret["data"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| {
            use base64::Engine;
            let b = base64::engine::general_purpose::STANDARD
                .decode(v.as_str().unwrap())
                .unwrap();
            (k.clone(), String::from_utf8(b).unwrap())
        })
        .collect()
}

/// `info -o json` printed `EnvVars.SEED_DB_PASSWORD` in clear. Values of
/// credential-named environment variables are secret whole: never in
/// `info`, `diff`, `upgrade`'s plan, the record or a Deployment, kept only
/// by the credentials Secret, and kept across an upgrade.
#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn credential_named_env_values_never_show_in_info_diff_or_upgrade() {
    let _together = crate::together().await;
    let _nodes = shared_nodes();
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let home = tempfile::tempdir().unwrap();
    let ns = unique("day2env");
    let (pw, npm, pw2) = (
        "seed-db-pw-5Kq8Zr1x",
        "npm-seed-tok-7Hw2Lp",
        "seed-db-pw-next-9Vc3",
    );
    let out = cli::init(cp.admin_kubeconfig(), home.path(), "local", &ns, CONTEXT)
        .env("CF_RUNNER_RETRY_BASE_MS", "20")
        .args(["--url", &fake.url(), "--token", USER_TOKEN])
        .args(["--skip-cluster-integration", "--no-wait"])
        .args(["--env-vars", &format!("SEED_DB_PASSWORD={pw}")])
        .args([
            "--set-value",
            &format!("Runtime.AdditionalEnvVars.NPM_TOKEN={npm}"),
        ])
        .output()
        .unwrap();
    let mut printed = text(&out);
    assert_eq!(out.status.code(), Some(0), "{printed}");
    let platform = ["--token", USER_TOKEN, "--url", &fake.url()];
    let change = format!("EnvVars.SEED_DB_PASSWORD={pw2}");

    let info = run(cp, home.path(), &["info", "--kube-namespace", &ns]);
    assert_eq!(info.status.code(), Some(0), "{}", text(&info));
    printed.push_str(&text(&info));
    let info_json = run(
        cp,
        home.path(),
        &["info", "--kube-namespace", &ns, "-o", "json"],
    );
    assert_eq!(info_json.status.code(), Some(0), "{}", text(&info_json));
    let report: Value = serde_json::from_slice(&info_json.stdout).unwrap();
    let values = &report["installations"][0]["values"];
    assert_eq!(
        values["EnvVars"]["SEED_DB_PASSWORD"], "<redacted>",
        "{report:#}"
    );
    printed.push_str(&text(&info_json));

    let mut diff_args = vec!["diff", "--kube-namespace", &ns, "--set-value", &change];
    diff_args.extend(platform);
    let diff = run(cp, home.path(), &diff_args);
    let said = text(&diff);
    assert!(
        said.contains("EnvVars.SEED_DB_PASSWORD: (secret value, changed)"),
        "{said}"
    );
    printed.push_str(&said);
    let mut upgrade_args = vec![
        "upgrade",
        "--yes",
        "--no-wait",
        "--kube-namespace",
        &ns,
        "--set-value",
        &change,
    ];
    upgrade_args.extend(platform);
    let upgrade = run(cp, home.path(), &upgrade_args);
    let said = text(&upgrade);
    assert_eq!(upgrade.status.code(), Some(0), "{said}");
    assert!(
        said.contains("EnvVars.SEED_DB_PASSWORD: credentials changed"),
        "{said}"
    );
    printed.push_str(&said);
    let info_json = run(
        cp,
        home.path(),
        &["info", "--kube-namespace", &ns, "-o", "json"],
    );
    printed.push_str(&text(&info_json));

    for seeded in [pw, npm, pw2] {
        assert!(!printed.contains(seeded), "{seeded} was shown:\n{printed}");
    }
    // Not in the record, nor in any Deployment: only the credentials
    // Secret holds them, the new password and the one kept from init.
    let record = secret_data(cp, &ns, "cf-runner-values")
        .values()
        .cloned()
        .collect::<String>();
    let out = cp
        .kubectl()
        .args(["get", "deployments", "-n", &ns, "-o", "json"])
        .output()
        .unwrap();
    let deployments = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(deployments.contains("SEED_DB_PASSWORD"), "{deployments}");
    for seeded in [pw, npm, pw2] {
        assert!(!record.contains(seeded), "{seeded} in the record: {record}");
        assert!(!deployments.contains(seeded), "{seeded} in a Deployment");
    }
    let held = secret_data(cp, &ns, "cf-runner-credentials");
    assert_eq!(
        held.get("EnvVars.SEED_DB_PASSWORD").map(String::as_str),
        Some(pw2)
    );
    assert_eq!(
        held.get("Runtime.AdditionalEnvVars.NPM_TOKEN")
            .map(String::as_str),
        Some(npm)
    );
}
