//! Preflight against a real control plane: `cf-runner check` as a user who
//! may install (every check passes), as one with no RBAC at all (it names
//! every missing permission, exits 3 and creates nothing), after an install
//! (the installation is named), next to an older installer's objects, and as
//! the first step of `init`.

use crate::support;

use std::process::Output;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::authorization::v1::SubjectAccessReview;
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, RoleBinding};
use kube::api::{Api, DynamicObject, ListParams, PostParams};
use support::cli::{self, example, run as cf_runner, text};
use support::controlplane::{self, ControlPlane};
use support::namespace::unique;

const ADMIN: &str = "admin@cf-runner-test";
const LIMITED: &str = "limited@cf-runner-test";
const AGENT_TOKEN: &str = "agent-token-for-e2e-check-0123456789";
const CHECKS: [&str; 7] = [
    "server version",
    "permissions",
    "cluster-scoped objects",
    "node capacity",
    "existing installation",
    "pod admission",
    "dind bridge",
];

/// `cf-runner check` of the `local` example into `ns`.
fn check(cp: &ControlPlane, context: &str, ns: &str, extra: &[&str]) -> Output {
    check_example(cp, context, ns, "local", extra)
}

/// `cf-runner check` of an example into `ns`.
fn check_example(
    cp: &ControlPlane,
    context: &str,
    ns: &str,
    example_name: &str,
    extra: &[&str],
) -> Output {
    let ex = example(example_name);
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

/// `cf-runner init` of the `local` example into `ns`, without waiting.
fn init(cp: &ControlPlane, context: &str, ns: &str) -> Output {
    init_example(cp, context, ns, "local")
}

/// `cf-runner init` of an example into `ns`, without waiting.
fn init_example(cp: &ControlPlane, context: &str, ns: &str, example_name: &str) -> Output {
    let kubeconfig = if context == ADMIN {
        cp.admin_kubeconfig()
    } else {
        cp.limited_kubeconfig()
    };
    // A fresh home for each run, as every other command here gets.
    let home = tempfile::tempdir().unwrap();
    cli::init(kubeconfig, home.path(), example_name, ns, context)
        .args(["--agent-token", AGENT_TOKEN, "--no-wait"])
        .output()
        .unwrap()
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
/// that succeeded, other than a self-review (access or rules) or a dry-run.
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
        .filter(|e| {
            !matches!(
                e["objectRef"]["resource"].as_str(),
                Some("selfsubjectaccessreviews" | "selfsubjectrulesreviews")
            )
        })
        .filter(|e| !crate::support::audit::is_dry_run(e))
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
            cf_runner::cluster::api_for(&client, api_version, kind, namespaced.then_some(ns));
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

/// Waits until RBAC lets `user` do `verb` on `resource` (the authorizer
/// reads bindings from a cache, so a new one takes a moment to count).
async fn wait_until_allowed(
    cp: &ControlPlane,
    user: &str,
    verb: &str,
    resource: &str,
    ns: Option<&str>,
) {
    let api: Api<SubjectAccessReview> = Api::all(cp.client());
    let review: SubjectAccessReview = serde_json::from_value(serde_json::json!({
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SubjectAccessReview",
        "spec": {"user": user, "resourceAttributes": {"verb": verb, "resource": resource, "namespace": ns.unwrap_or_default()}}
    }))
    .unwrap();
    controlplane::poll_until(
        &format!("{user} may {verb} {resource}"),
        std::time::Duration::from_secs(20),
        || async {
            let answer = api.create(&PostParams::default(), &review).await?;
            Ok(answer.status.is_some_and(|s| s.allowed))
        },
    )
    .await
    .unwrap();
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn check_as_admin_passes_with_a_line_per_check() {
    let _together = crate::together().await;
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
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn check_json_and_yaml_list_every_check() {
    let _together = crate::together().await;
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
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn check_as_a_user_without_rbac_names_what_is_missing_and_creates_nothing() {
    let _together = crate::together().await;
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
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn init_as_a_user_without_rbac_stops_at_preflight_and_creates_nothing() {
    let _together = crate::together().await;
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

/// `SkipClusterTest: true` in a values file was parsed and never read: the
/// preflight ran anyway. As a user without RBAC, `init` with that file goes
/// straight to the apply (which the API server refuses), where the flag-less
/// run above stops at the preflight.
#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn skip_cluster_test_in_a_values_file_skips_the_preflight() {
    let _together = crate::together().await;
    let cp = controlplane::shared();
    let ns = unique("cfskipval");
    let dir = tempfile::tempdir().unwrap();
    let skip = dir.path().join("skip.yaml");
    std::fs::write(&skip, "SkipClusterTest: true\n").unwrap();
    let out = cli::init(cp.limited_kubeconfig(), dir.path(), "local", &ns, LIMITED)
        .args(["--values", skip.to_str().unwrap()])
        .args(["--agent-token", AGENT_TOKEN, "--no-wait"])
        .output()
        .unwrap();
    let shown = text(&out);
    assert!(!shown.contains("preflight"), "{shown}");
    // The install went straight to its first write, the namespace (made
    // first for the install's lock), and met the missing permission there.
    assert!(
        shown.contains(&format!(
            "making namespace {ns} for the install's lock failed"
        )) && shown.contains(&format!("Namespace/{ns}: forbidden to get")),
        "{shown}"
    );
    assert_eq!(out.status.code(), Some(1), "{shown}");
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn check_after_an_install_names_the_installation() {
    let _together = crate::together().await;
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
        shown.contains("preflight passed (6 checks, 1 warning(s))"),
        "{shown}"
    );
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn check_names_the_objects_of_an_older_installer() {
    let _together = crate::together().await;
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
    // Another installer's runner stops the install (issue 14): exit 3.
    assert_eq!(out.status.code(), Some(3), "{shown}");
    assert!(
        line(&shown, "existing installation").starts_with("✗ "),
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

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_namespace_admin_passes_and_installs_into_that_namespace() {
    let _together = crate::together().await;
    let cp = controlplane::shared();
    // An admin made the namespace and gave the user the built-in `admin`
    // role in it, nothing cluster-wide. With a StorageClass of the cluster's
    // own, the install touches nothing outside the namespace.
    let ns = cp.create_namespace("cfnsadmin").await.unwrap();
    let binding: RoleBinding = serde_json::from_value(serde_json::json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {"name": "limited-is-admin"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "admin"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "limited"}]
    }))
    .unwrap();
    Api::<RoleBinding>::namespaced(cp.client(), &ns)
        .create(&PostParams::default(), &binding)
        .await
        .unwrap();
    wait_until_allowed(cp, "limited", "create", "pods", Some(&ns)).await;

    let out = check_example(cp, LIMITED, &ns, "custom-storage-class", &[]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(0), "{shown}");
    assert!(line(&shown, "permissions").starts_with("✓ "), "{shown}");
    assert!(
        line(&shown, "cluster-scoped objects").starts_with("✓ "),
        "{shown}"
    );
    assert!(
        shown.contains(&format!(
            "namespace {ns} exists and was not created by cf-runner"
        )),
        "{shown}"
    );
    // Nodes are not the user's to list: a warning, not a failure.
    assert!(line(&shown, "node capacity").starts_with("! "), "{shown}");

    // And the preflight was right: the install goes through.
    let installed = init_example(cp, LIMITED, &ns, "custom-storage-class");
    let shown = text(&installed);
    assert!(installed.status.success(), "{shown}");
    assert!(shown.contains("preflight passed"), "{shown}");
    assert!(shown.contains("created    Deployment/runner"), "{shown}");
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_user_without_bind_passes_and_installs_roles_before_bindings() {
    let _together = crate::together().await;
    let cp = controlplane::shared();
    // Every verb on everything, except `bind` and `escalate`: such a user
    // may create the roles (it holds their rules) and their bindings, but
    // the API server checks a binding against its role, so the role must
    // exist first. Not in system:masters, unlike the admin user.
    let user = unique("installer");
    let rights: ClusterRole = serde_json::from_value(serde_json::json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": user},
        "rules": [{
            "apiGroups": ["*"],
            "resources": ["*"],
            "verbs": ["get", "list", "watch", "create", "update", "patch", "delete"]
        }]
    }))
    .unwrap();
    Api::<ClusterRole>::all(cp.client())
        .create(&PostParams::default(), &rights)
        .await
        .unwrap();
    let binding: ClusterRoleBinding = serde_json::from_value(serde_json::json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": user},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": user},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}]
    }))
    .unwrap();
    Api::<ClusterRoleBinding>::all(cp.client())
        .create(&PostParams::default(), &binding)
        .await
        .unwrap();
    wait_until_allowed(cp, &user, "create", "clusterroles", None).await;

    // The admin's kubeconfig, impersonating that user.
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("installer.kubeconfig");
    let admin = std::fs::read_to_string(cp.admin_kubeconfig()).unwrap();
    let mut config: serde_json::Value = serde_yaml_ng::from_str(&admin).unwrap();
    config["users"][0]["user"]["as"] = serde_json::Value::String(user.clone());
    std::fs::write(&kubeconfig, serde_yaml_ng::to_string(&config).unwrap()).unwrap();

    let ns = unique("cfnobind");
    let ex = example("local");
    let common = [
        "--values",
        ex.to_str().unwrap(),
        "--kube-namespace",
        &ns,
        "--kube-context-name",
        ADMIN,
    ];
    let out = cf_runner(&kubeconfig, &[&["check"][..], &common].concat());
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(0), "{shown}");
    for name in CHECKS {
        assert!(line(&shown, name).starts_with("✓ "), "{shown}");
    }

    let installed = cf_runner(
        &kubeconfig,
        &[
            &["init", "--yes", "--agent-token", AGENT_TOKEN, "--no-wait"][..],
            &common,
        ]
        .concat(),
    );
    let shown = text(&installed);
    assert!(installed.status.success(), "{shown}");
    assert!(
        shown.contains("created    RoleBinding/runner")
            && shown.contains("created    ClusterRoleBinding/"),
        "{shown}"
    );
}

#[test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
fn check_with_bad_values_exits_2_before_touching_a_cluster() {
    let _together = crate::together_blocking();
    // No kubeconfig at all: the values are rejected before it is looked for.
    let dir = tempfile::tempdir().unwrap();
    let out = cf_runner(
        &dir.path().join("absent"),
        &[
            "check",
            "--set-value",
            "Namespace=Not_A_Namespace",
            "-o",
            "json",
        ],
    );
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(2), "{shown}");
    assert!(shown.contains("Namespace"), "{shown}");
    assert!(out.stdout.is_empty(), "{shown}");
}
