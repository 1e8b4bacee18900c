//! `cf-runner init` against a real control plane: install, re-run without a
//! single write, conflicts with another field manager, RBAC denials, waiting
//! with reasons, and recovery after the API server goes away mid-apply.

use crate::support;

use std::process::Output;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DynamicObject, ListParams, Patch, PatchParams};
use support::cli::{self, example, run as cf_runner, text};
use support::controlplane::{self, ControlPlane};
use support::namespace::unique;

const AGENT_TOKEN: &str = "agent-token-for-e2e-0123456789";

fn init(cp: &ControlPlane, ns: &str, example_name: &str, extra: &[&str]) -> Output {
    // A fresh home for each run, as every other command here gets.
    let home = tempfile::tempdir().unwrap();
    let mut cmd = cli::init(
        cp.admin_kubeconfig(),
        home.path(),
        example_name,
        ns,
        "admin@cf-runner-test",
    );
    cmd.args(["--agent-token", AGENT_TOKEN]);
    if !extra.contains(&"--timeout") {
        cmd.args(["--timeout", "90s"]);
    }
    cmd.args(extra).output().unwrap()
}

/// resourceVersion of every object carrying our instance label.
async fn versions(cp: &ControlPlane, ns: &str) -> Vec<(String, String)> {
    let client = cp.client();
    let selector =
        format!("app.kubernetes.io/instance={ns},app.kubernetes.io/managed-by=cf-runner");
    let mut out = Vec::new();
    for (api_version, kind, namespaced) in [
        ("v1", "ServiceAccount", true),
        ("v1", "Secret", true),
        ("v1", "ConfigMap", true),
        ("v1", "Service", true),
        ("apps/v1", "Deployment", true),
        ("apps/v1", "DaemonSet", true),
        ("rbac.authorization.k8s.io/v1", "Role", true),
        ("rbac.authorization.k8s.io/v1", "RoleBinding", true),
        ("rbac.authorization.k8s.io/v1", "ClusterRole", false),
        ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", false),
        ("storage.k8s.io/v1", "StorageClass", false),
    ] {
        let api = cf_runner::cluster::api_for(&client, api_version, kind, namespaced.then_some(ns));
        let list = api
            .list(&ListParams::default().labels(&selector))
            .await
            .unwrap();
        for item in list.items {
            out.push((
                format!("{kind}/{}", item.metadata.name.unwrap()),
                item.metadata.resource_version.unwrap(),
            ));
        }
    }
    out.sort();
    out
}

fn mutating_requests_since(cp: &ControlPlane, since: usize, ns: &str) -> Vec<String> {
    cp.audit_events()
        .unwrap()
        .into_iter()
        .skip(since)
        .filter(|e| e["user"]["username"] == "admin")
        .filter(|e| e["stage"] == "ResponseComplete")
        .filter(|e| {
            matches!(
                e["verb"].as_str(),
                Some("create" | "update" | "patch" | "delete" | "deletecollection")
            )
        })
        // The preflight's server-side dry-runs persist nothing.
        .filter(|e| !crate::support::audit::is_dry_run(e))
        .filter(|e| {
            let uri = e["requestURI"].as_str().unwrap_or_default();
            // The install's lock (its Lease) is the run's, not the install's.
            uri.contains(ns) && !uri.contains("/leases")
        })
        .map(|e| format!("{} {}", e["verb"], e["requestURI"]))
        .collect()
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn install_then_rerun_changes_nothing() {
    let cp = controlplane::shared();
    let ns = unique("cfr");
    let first_mark = cp.audit_events().unwrap().len();
    let first = init(cp, &ns, "local", &[]);
    assert!(first.status.success(), "{}", text(&first));
    let out = text(&first);
    assert!(
        out.contains("created") && out.contains("Deployment/runner"),
        "{out}"
    );
    // The namespace is made once, for the install's lock, as the apply
    // would write it: the apply does not write it again, and says it was
    // created by this run. (The ledger of what cf-runner created is
    // recorded on it after the apply, by a field manager of its own.)
    assert!(out.contains(&format!("created    Namespace/{ns}")), "{out}");
    let namespace_uri = format!("/api/v1/namespaces/{ns}?");
    let namespace_writes: Vec<String> = mutating_requests_since(cp, first_mark, &ns)
        .into_iter()
        .filter(|w| w.contains(&namespace_uri) && !w.contains("fieldManager=cf-runner-ledger"))
        .collect();
    assert_eq!(
        namespace_writes.len(),
        1,
        "the namespace was written more than once: {namespace_writes:?}\n{out}"
    );
    // The shared count of the install's writes sees that one too, so the
    // "nothing written" checks built on it cover the Namespace object.
    let seen: Vec<String> = crate::support::audit::cf_runner_writes(cp, first_mark, &[&ns])
        .into_iter()
        .filter(|w| w.contains(&namespace_uri) && !w.contains("fieldManager=cf-runner-ledger"))
        .collect();
    assert_eq!(seen, namespace_writes, "{out}");
    assert!(out.contains("the runner is running"), "{out}");
    assert!(!out.contains(AGENT_TOKEN), "the agent token was printed");

    let before = versions(cp, &ns).await;
    assert!(before.len() >= 15, "{before:?}");
    let audit_mark = cp.audit_events().unwrap().len();

    let second = init(cp, &ns, "local", &[]);
    assert!(second.status.success(), "{}", text(&second));
    let out = text(&second);
    assert!(out.contains("unchanged"), "{out}");
    assert!(!out.contains(" created "), "{out}");
    assert_eq!(
        before,
        versions(cp, &ns).await,
        "a resourceVersion moved on re-run"
    );
    let writes = mutating_requests_since(cp, audit_mark, &ns);
    assert!(writes.is_empty(), "the second run wrote: {writes:?}");

    // The agent token lives in the runner Secret, not in any env literal.
    let secrets: Api<k8s_openapi::api::core::v1::Secret> = Api::namespaced(cp.client(), &ns);
    let runner = secrets.get("runner").await.unwrap();
    let token = runner.data.unwrap()["codefresh.token"].0.clone();
    assert_eq!(String::from_utf8(token).unwrap(), AGENT_TOKEN);
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_field_owned_by_another_manager_is_reported_and_force_takes_it() {
    let cp = controlplane::shared();
    let ns = unique("cfc");
    let first = init(cp, &ns, "local", &["--no-wait"]);
    assert!(first.status.success(), "{}", text(&first));

    // Someone else takes over a field we set.
    let cms: Api<ConfigMap> = Api::namespaced(cp.client(), &ns);
    let patch = serde_json::json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "codefresh-dind-config"},
        "data": {"daemon.json": "{}"}
    });
    cms.patch(
        "codefresh-dind-config",
        &PatchParams::apply("someone-else").force(),
        &Patch::Apply(&patch),
    )
    .await
    .unwrap();

    let second = init(cp, &ns, "local", &["--no-wait"]);
    assert_eq!(second.status.code(), Some(1), "{}", text(&second));
    let out = text(&second);
    assert!(out.contains("ConfigMap/codefresh-dind-config"), "{out}");
    assert!(
        out.contains(".data.daemon.json") && out.contains("someone-else"),
        "{out}"
    );
    assert!(out.contains("--force-conflicts"), "{out}");
    assert!(
        out.contains("not applied:") && out.contains("Deployment/runner"),
        "{out}"
    );

    let third = init(cp, &ns, "local", &["--no-wait", "--force-conflicts"]);
    assert!(third.status.success(), "{}", text(&third));
    let cm = cms.get("codefresh-dind-config").await.unwrap();
    assert!(cm.data.unwrap()["daemon.json"].contains("tlsverify"));
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn an_rbac_denial_names_the_object_and_the_verb() {
    let cp = controlplane::shared();
    let ns = cp.create_namespace("cfdeny").await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = cli::init(
        cp.limited_kubeconfig(),
        home.path(),
        "local",
        &ns,
        "limited@cf-runner-test",
    )
    .args([
        "--agent-token",
        AGENT_TOKEN,
        "--no-wait",
        // Past the preflight, which would stop it first (tests/e2e_quiet/e2e_check.rs).
        "--skip-cluster-test",
    ])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let out = text(&out);
    // `<Kind>/<name> …: forbidden to <verb>: <the API server's message>`:
    // the object and the verb RBAC denied, not just "forbidden".
    let denial = out
        .lines()
        .find_map(|l| l.split_once(": forbidden to "))
        .unwrap_or_else(|| panic!("no `<object>: forbidden to <verb>` line:\n{out}"));
    let (object, rest) = denial;
    let verb = rest.split(':').next().unwrap_or_default().trim();
    assert!(
        ["get", "list", "create", "patch", "update", "apply"].contains(&verb),
        "the verb is {verb:?}:\n{out}"
    );
    let (kind, name) = object
        .split_whitespace()
        .find(|t| t.contains('/'))
        .and_then(|o| o.split_once('/'))
        .unwrap_or_else(|| panic!("the object {object:?} is not Kind/name:\n{out}"));
    assert!(
        kind.chars().next().is_some_and(char::is_uppercase) && !name.is_empty(),
        "the object {object:?} is not Kind/name:\n{out}"
    );
    // Nothing was created in the namespace.
    let api: Api<DynamicObject> =
        cf_runner::cluster::api_for(&cp.client(), "v1", "ServiceAccount", Some(&ns));
    let items = api
        .list(&ListParams::default().labels("app.kubernetes.io/managed-by=cf-runner"))
        .await
        .unwrap();
    assert!(items.items.is_empty());
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_workload_that_cannot_schedule_reports_why() {
    let cp = controlplane::shared();
    let ns = unique("cfp");
    let out = init(
        cp,
        &ns,
        "local",
        &[
            "--kube-node-selector",
            "pool=does-not-exist",
            "--timeout",
            "8s",
            // Past the preflight, which now stops it first (tests/e2e_preflight_nodes.rs).
            "--skip-cluster-test",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let out = text(&out);
    assert!(out.contains("timed out"), "{out}");
    assert!(out.contains("Deployment/runner"), "{out}");
    assert!(
        out.contains("Pending") && out.contains("Unschedulable"),
        "{out}"
    );
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_wrong_context_lists_the_available_ones() {
    let cp = controlplane::shared();
    let ex = example("local");
    let out = cf_runner(
        cp.admin_kubeconfig(),
        &[
            "init",
            "--yes",
            "--values",
            ex.to_str().unwrap(),
            "--kube-context-name",
            "nope",
            "--agent-token",
            AGENT_TOKEN,
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let out = text(&out);
    assert!(
        out.contains("nope") && out.contains("admin@cf-runner-test"),
        "{out}"
    );
}
