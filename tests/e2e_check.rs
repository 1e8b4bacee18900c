//! Preflight against a real control plane: `cf-runner check` as a user who
//! may install (every check passes), as one with no RBAC at all (it names
//! every missing permission, exits 3 and creates nothing), after an install
//! (the installation is named), next to an older installer's objects, and as
//! the first step of `init`.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, DynamicObject, ListParams, PostParams};
use support::controlplane::{self, skip_e2e, ControlPlane};

const ADMIN: &str = "admin@cf-runner-test";
const LIMITED: &str = "limited@cf-runner-test";
const AGENT_TOKEN: &str = "agent-token-for-e2e-check-0123456789";
const CHECKS: [&str; 5] = [
    "server version",
    "permissions",
    "cluster-scoped objects",
    "node capacity",
    "existing installation",
];

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("values-examples")
        .join(format!("{name}.yaml"))
}

fn cf_runner(kubeconfig: &Path, args: &[&str]) -> Output {
    let tmp = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_cf-runner"))
        .args(args)
        .current_dir(tmp.path())
        .env("KUBECONFIG", kubeconfig)
        .env("HOME", tmp.path())
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `cf-runner check` with the `local` example into `ns`.
fn check(cp: &ControlPlane, context: &str, ns: &str, extra: &[&str]) -> Output {
    let ex = example("local");
    let kubeconfig = if context == ADMIN {
        cp.admin_kubeconfig()
    } else {
        cp.limited_kubeconfig()
    };
    let mut args = vec![
        "check",
        "--values",
        ex.to_str().unwrap(),
        "--kube-namespace",
        ns,
        "--kube-context-name",
        context,
    ];
    args.extend_from_slice(extra);
    cf_runner(kubeconfig, &args)
}

/// `cf-runner init` with the `local` example into `ns`, without waiting.
fn init(cp: &ControlPlane, context: &str, ns: &str) -> Output {
    let ex = example("local");
    let kubeconfig = if context == ADMIN {
        cp.admin_kubeconfig()
    } else {
        cp.limited_kubeconfig()
    };
    cf_runner(
        kubeconfig,
        &[
            "init",
            "--yes",
            "--values",
            ex.to_str().unwrap(),
            "--kube-namespace",
            ns,
            "--kube-context-name",
            context,
            "--agent-token",
            AGENT_TOKEN,
            "--no-wait",
        ],
    )
}

fn unique(prefix: &str) -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    format!(
        "{prefix}-{}-{}",
        std::process::id() % 100000,
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// The line of the check named `name` in a table.
fn line<'a>(out: &'a str, name: &str) -> &'a str {
    out.lines()
        .find(|l| {
            l.split_once(' ')
                .is_some_and(|(_, rest)| rest.starts_with(name))
        })
        .unwrap_or_else(|| panic!("no line for {name:?} in:\n{out}"))
}

/// Requests of `user` since `since` that changed something: a mutating verb
/// that succeeded, other than a SelfSubjectAccessReview or a dry-run.
fn writes_by(cp: &ControlPlane, user: &str, since: usize) -> Vec<String> {
    cp.audit_events()
        .unwrap()
        .into_iter()
        .skip(since)
        .filter(|e| e["user"]["username"] == user && e["stage"] == "ResponseComplete")
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
        .filter(|e| e["responseStatus"]["code"].as_u64().unwrap_or(0) < 400)
        .map(|e| format!("{} {}", e["verb"], e["requestURI"]))
        .collect()
}

/// Objects anywhere that carry our instance label for `ns`.
async fn installed_objects(cp: &ControlPlane, ns: &str) -> Vec<String> {
    let client = cp.client();
    let selector = format!("app.kubernetes.io/instance={ns}");
    let mut out = Vec::new();
    for (api_version, kind, namespaced) in [
        ("v1", "ServiceAccount", true),
        ("v1", "Secret", true),
        ("apps/v1", "Deployment", true),
        ("rbac.authorization.k8s.io/v1", "ClusterRole", false),
        ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", false),
        ("storage.k8s.io/v1", "StorageClass", false),
    ] {
        let api: Api<DynamicObject> =
            cf_runner::kube::api_for(&client, api_version, kind, namespaced.then_some(ns));
        let list = api
            .list(&ListParams::default().labels(&selector))
            .await
            .unwrap();
        out.extend(
            list.items
                .into_iter()
                .map(|o| format!("{kind}/{}", o.metadata.name.unwrap_or_default())),
        );
    }
    out
}

#[tokio::test]
async fn check_as_admin_passes_with_a_line_per_check() {
    if skip_e2e() {
        return;
    }
    let cp = controlplane::shared();
    let ns = unique("cfchk");
    let out = check(cp, ADMIN, &ns, &[]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(0), "{shown}");
    for name in CHECKS {
        assert!(line(&shown, name).starts_with("✓ "), "{shown}");
    }
    assert!(!shown.contains('✗'), "{shown}");
    assert!(line(&shown, "server version").contains("supported range"));
    assert!(line(&shown, "existing installation").contains(&ns));
    // A check creates nothing, not even the namespace.
    let namespaces: Api<Namespace> = Api::all(cp.client());
    assert!(namespaces.get_opt(&ns).await.unwrap().is_none());
}

#[tokio::test]
async fn check_json_and_yaml_list_every_check() {
    if skip_e2e() {
        return;
    }
    let cp = controlplane::shared();
    let ns = unique("cfjson");
    let out = check(cp, ADMIN, &ns, &["-o", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", text(&out)));
    assert_eq!(report["passed"], true);
    assert_eq!(report["namespace"], ns.as_str());
    assert_eq!(report["context"], ADMIN);
    let checks = report["checks"].as_array().unwrap();
    let names: Vec<&str> = checks.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, CHECKS);
    for c in checks {
        assert_eq!(c["status"], "pass", "{c}");
        assert!(!c["reason"].as_str().unwrap().is_empty(), "{c}");
    }

    let out = check(cp, ADMIN, &ns, &["-o", "yaml"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let report: serde_json::Value = serde_yaml_ng::from_slice(&out.stdout).unwrap();
    assert_eq!(report["checks"].as_array().unwrap().len(), CHECKS.len());
}

#[tokio::test]
async fn check_as_a_user_without_rbac_names_what_is_missing_and_creates_nothing() {
    if skip_e2e() {
        return;
    }
    let cp = controlplane::shared();
    let ns = unique("cflim");
    let mark = cp.audit_events().unwrap().len();
    let out = check(cp, LIMITED, &ns, &[]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(3), "{shown}");
    assert!(line(&shown, "permissions").starts_with("✗ "), "{shown}");
    for missing in [
        format!("create deployments (apps) in namespace {ns}"),
        format!("patch secrets in namespace {ns}"),
        format!("list daemonsets (apps) in namespace {ns}"),
        "create clusterroles (rbac.authorization.k8s.io) cluster-wide".to_string(),
        "create namespaces cluster-wide".to_string(),
        "create storageclasses (storage.k8s.io) cluster-wide".to_string(),
        // A rule of the provisioner's ClusterRole: granting it needs holding it.
        "create persistentvolumes cluster-wide (granted by ClusterRole/".to_string(),
    ] {
        assert!(
            shown.contains(&missing),
            "{missing:?} not named in:\n{shown}"
        );
    }
    assert!(
        line(&shown, "cluster-scoped objects").starts_with("✗ "),
        "{shown}"
    );
    // Nodes cannot be listed: a warning with a fix, not a crash.
    assert!(line(&shown, "node capacity").starts_with("! "), "{shown}");
    assert!(shown.contains("fix:"), "{shown}");
    assert!(shown.contains("preflight failed"), "{shown}");

    let json = check(cp, LIMITED, &ns, &["-o", "json"]);
    assert_eq!(json.status.code(), Some(3), "{}", text(&json));
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(report["passed"], false);
    let permissions = &report["checks"][1];
    assert_eq!(permissions["status"], "fail");
    assert!(permissions["details"].as_array().unwrap().len() > 40);

    let writes = writes_by(cp, "limited", mark);
    assert!(writes.is_empty(), "check changed something: {writes:?}");
    let namespaces: Api<Namespace> = Api::all(cp.client());
    assert!(namespaces.get_opt(&ns).await.unwrap().is_none());
    assert_eq!(installed_objects(cp, &ns).await, Vec::<String>::new());
}

#[tokio::test]
async fn init_as_a_user_without_rbac_stops_at_preflight_and_creates_nothing() {
    if skip_e2e() {
        return;
    }
    let cp = controlplane::shared();
    let ns = unique("cfinitlim");
    let mark = cp.audit_events().unwrap().len();
    let out = init(cp, LIMITED, &ns);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(3), "{shown}");
    assert!(
        shown.contains(&format!("create deployments (apps) in namespace {ns}")),
        "{shown}"
    );
    assert!(
        shown.contains("preflight failed") && shown.contains("nothing was applied"),
        "{shown}"
    );
    assert!(!shown.contains(" created "), "{shown}");
    let writes = writes_by(cp, "limited", mark);
    assert!(writes.is_empty(), "init changed something: {writes:?}");
    // Apply was not even attempted: no patch request at all, dry-runs aside.
    let applies: Vec<String> = cp
        .audit_events()
        .unwrap()
        .into_iter()
        .skip(mark)
        .filter(|e| e["user"]["username"] == "limited" && e["verb"] == "patch")
        .filter_map(|e| e["requestURI"].as_str().map(str::to_string))
        .filter(|uri| !uri.contains("dryRun=All"))
        .collect();
    assert!(applies.is_empty(), "init tried to apply: {applies:?}");
    assert_eq!(installed_objects(cp, &ns).await, Vec::<String>::new());
}

#[tokio::test]
async fn check_after_an_install_names_the_installation() {
    if skip_e2e() {
        return;
    }
    let cp = controlplane::shared();
    let ns = unique("cfagain");
    let installed = init(cp, ADMIN, &ns);
    let shown = text(&installed);
    assert!(installed.status.success(), "{shown}");
    assert!(shown.contains("preflight passed"), "{shown}");

    let out = check(cp, ADMIN, &ns, &[]);
    let shown = text(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "a warning is not a failure:\n{shown}"
    );
    let existing = line(&shown, "existing installation");
    assert!(existing.starts_with("! "), "{shown}");
    assert!(
        existing.contains(&format!(
            "an installation exists (made by cf-runner {}, agent {ADMIN}_{ns}); init will update it in place",
            env!("CARGO_PKG_VERSION")
        )),
        "{shown}"
    );
    // Our own namespace and cluster-scoped objects still pass the dry-run.
    assert!(
        line(&shown, "cluster-scoped objects").starts_with("✓ "),
        "{shown}"
    );

    // init goes ahead, and says why it is an update.
    let again = init(cp, ADMIN, &ns);
    let shown = text(&again);
    assert!(again.status.success(), "{shown}");
    assert!(shown.contains("an installation exists"), "{shown}");
    assert!(
        shown.contains("preflight passed (5 checks, 1 warning(s))"),
        "{shown}"
    );
}

#[tokio::test]
async fn check_names_the_objects_of_an_older_installer() {
    if skip_e2e() {
        return;
    }
    let cp = controlplane::shared();
    let ns = cp.create_namespace("cfold").await.unwrap();
    let old: Deployment = serde_json::from_value(serde_json::json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "venona", "labels": {"app": "venona"}},
        "spec": {
            "replicas": 0,
            "selector": {"matchLabels": {"app": "venona"}},
            "template": {
                "metadata": {"labels": {"app": "venona"}},
                "spec": {"containers": [{"name": "venona", "image": "codefresh/venona:1.0.0"}]}
            }
        }
    }))
    .unwrap();
    Api::<Deployment>::namespaced(cp.client(), &ns)
        .create(&PostParams::default(), &old)
        .await
        .unwrap();

    let out = check(cp, ADMIN, &ns, &[]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(0), "{shown}");
    assert!(
        line(&shown, "existing installation").starts_with("! "),
        "{shown}"
    );
    assert!(shown.contains("older installer"), "{shown}");
    assert!(shown.contains("- Deployment/venona"), "{shown}");
    // The namespace is someone else's: left out of the dry-run, and said so.
    assert!(
        shown.contains(&format!(
            "namespace {ns} exists and was not created by cf-runner"
        )),
        "{shown}"
    );
}
