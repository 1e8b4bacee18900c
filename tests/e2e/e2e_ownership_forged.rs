//! Patch rights are not delete rights (issue 42, item 5). A user granted
//! `get, list, create, patch` but not `delete` on ConfigMaps in the
//! runner's namespace makes a ConfigMap of their own and dresses it as
//! cf-runner's: its labels plus either the adopt mark with the object's own
//! uid, or a forged `cf-runner` `Apply` entry in `metadata.managedFields`
//! (the API server keeps what a patch sends there). Before the ledger, the
//! admin's `upgrade` pruned it and `delete --yes` removed it: the narrow
//! user borrowed the admin's delete right. Now both leave it and name it,
//! while cf-runner's own objects still go; and an install made before the
//! ledger (none on its Namespace) is warned about by `delete` and gets its
//! ledger from the next `upgrade` without losing an object.

use crate::support;

use std::process::Output;

use serde_json::{json, Value};
use support::cli::{self, run as cf_runner, text};
use support::controlplane::{self, ControlPlane};
use support::namespace::unique;

const ADMIN: &str = "admin@cf-runner-test";
const AGENT_TOKEN: &str = "agent-token-for-e2e-forged-0123456789";
const LEDGER: &str = "cf-runner.codefresh.io/ledger";

/// The narrow user of namespace `ns`, impersonated by the admin (a user of
/// its own: other tests of the shared control plane grant `limited` more).
fn team_user(ns: &str) -> String {
    format!("team-{ns}")
}

/// `kubectl` as the admin, or as `user` (impersonated); panics with its
/// output when it fails.
fn kubectl_as(cp: &ControlPlane, user: Option<&str>, args: &[&str]) -> String {
    let mut cmd = cp.kubectl();
    if let Some(user) = user {
        cmd.arg(format!("--as={user}"));
    }
    let out = cmd.args(args).output().unwrap();
    assert!(out.status.success(), "kubectl {args:?}: {}", text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn kubectl(cp: &ControlPlane, args: &[&str]) -> String {
    kubectl_as(cp, None, args)
}

/// The object as the API server holds it, or `None`.
fn get(cp: &ControlPlane, kind: &str, name: &str, ns: Option<&str>) -> Option<Value> {
    let mut cmd = cp.kubectl();
    cmd.args(["get", kind, name, "-o", "json", "--ignore-not-found"]);
    cmd.arg("--show-managed-fields");
    if let Some(ns) = ns {
        cmd.args(["-n", ns]);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "kubectl get: {}", text(&out));
    (!out.stdout.is_empty()).then(|| serde_json::from_slice(&out.stdout).unwrap())
}

/// `init` of the `local` example, offline, not waiting.
fn init(cp: &ControlPlane, ns: &str) -> Output {
    let home = tempfile::tempdir().unwrap();
    cli::init(cp.admin_kubeconfig(), home.path(), "local", ns, ADMIN)
        .args([
            "--agent-token",
            AGENT_TOKEN,
            "--no-wait",
            "--skip-cluster-test",
        ])
        .output()
        .unwrap()
}

fn upgrade(cp: &ControlPlane, ns: &str) -> Output {
    cf_runner(
        cp.admin_kubeconfig(),
        &[
            "upgrade",
            "--yes",
            "--no-wait",
            "--kube-namespace",
            ns,
            "--kube-context-name",
            ADMIN,
        ],
    )
}

fn delete(cp: &ControlPlane, ns: &str) -> Output {
    cf_runner(
        cp.admin_kubeconfig(),
        &[
            "delete",
            "--yes",
            "--keep-platform",
            "--kube-namespace",
            ns,
            "--kube-context-name",
            ADMIN,
            "--timeout",
            "90s",
        ],
    )
}

/// The ledger annotation on the Namespace, if any.
fn ledger(cp: &ControlPlane, ns: &str) -> Option<String> {
    get(cp, "namespace", ns, None).unwrap()["metadata"]["annotations"][LEDGER]
        .as_str()
        .map(str::to_string)
}

/// Grants the team's user everything on ConfigMaps in `ns` but `delete`,
/// and waits until the authorizer says so.
async fn grant_patch_not_delete(cp: &ControlPlane, ns: &str) {
    let user = team_user(ns);
    let as_user = format!("--as={user}");
    kubectl(
        cp,
        &[
            "create",
            "role",
            "configmap-editor",
            "--verb=get,list,watch,create,patch,update",
            "--resource=configmaps",
            "-n",
            ns,
        ],
    );
    kubectl(
        cp,
        &[
            "create",
            "rolebinding",
            "configmap-editor",
            "--role=configmap-editor",
            &format!("--user={user}"),
            "-n",
            ns,
        ],
    );
    controlplane::poll_until(
        "the team user may patch configmaps",
        std::time::Duration::from_secs(20),
        || async {
            let out = cp
                .kubectl()
                .args(["auth", "can-i", "patch", "configmaps", "-n", ns, &as_user])
                .output()?;
            Ok(out.status.success())
        },
    )
    .await
    .unwrap();
    // The whole point: this user may not delete it, nor write the ledger.
    for (verb, resource) in [("delete", "configmaps"), ("patch", "namespaces")] {
        let out = cp
            .kubectl()
            .args(["auth", "can-i", verb, resource, "-n", ns, &as_user])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{user} may {verb} {resource}");
    }
}

/// As the team's user: a ConfigMap `name` of their own, labelled as
/// cf-runner's for `ns`, then given the adopt mark with its own uid
/// (`adopt_mark`) or a forged `cf-runner` Apply entry dated at its
/// creation. Gives it as the API server then holds it.
fn forge(cp: &ControlPlane, ns: &str, name: &str, adopt_mark: bool) -> Value {
    let user = team_user(ns);
    let team = |args: &[&str]| kubectl_as(cp, Some(&user), args);
    team(&[
        "create",
        "configmap",
        name,
        "--from-literal=team=mine",
        "-n",
        ns,
    ]);
    team(&[
        "label",
        "configmap",
        name,
        "-n",
        ns,
        "app.kubernetes.io/managed-by=cf-runner",
        &format!("app.kubernetes.io/instance={ns}"),
    ]);
    let live = get(cp, "configmap", name, Some(ns)).unwrap();
    let uid = live["metadata"]["uid"].as_str().unwrap().to_string();
    let created = live["metadata"]["creationTimestamp"].as_str().unwrap();
    let patch = if adopt_mark {
        json!({"metadata": {"annotations": {"cf-runner.codefresh.io/adopted-uid": uid}}})
    } else {
        json!({"metadata": {"managedFields": [{
            "manager": "cf-runner", "operation": "Apply", "apiVersion": "v1",
            "time": created, "fieldsType": "FieldsV1",
            "fieldsV1": {"f:data": {"f:team": {}}, "f:metadata": {"f:labels": {
                "f:app.kubernetes.io/instance": {}, "f:app.kubernetes.io/managed-by": {}}}},
        }]}})
    };
    team(&[
        "patch",
        "configmap",
        name,
        "-n",
        ns,
        "--type=merge",
        "-p",
        &patch.to_string(),
    ]);
    let forged = get(cp, "configmap", name, Some(ns)).unwrap();
    if !adopt_mark {
        // The API server kept the forgery: the only writer it names is
        // cf-runner, applying at the creation.
        let managers: Vec<&str> = forged["metadata"]["managedFields"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|e| e["manager"].as_str())
            .collect();
        assert_eq!(managers, ["cf-runner"], "{forged}");
    }
    forged
}

/// `data` of a ConfigMap: what the team would lose.
fn data(o: &Value) -> Value {
    o["data"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn forged_marks_survive_upgrade_and_delete() {
    let cp = controlplane::shared();
    let ns = unique("cfforged");
    let out = init(cp, &ns);
    assert!(out.status.success(), "{}", text(&out));
    let runner = get(cp, "deployment", "runner", Some(&ns)).unwrap();
    let recorded = ledger(cp, &ns).expect("init records a ledger");
    assert!(
        recorded.contains(runner["metadata"]["uid"].as_str().unwrap()),
        "{recorded}"
    );

    grant_patch_not_delete(cp, &ns).await;
    // Two cases: the adopt mark with the object's own uid, and a forged
    // managedFields entry.
    let cases = [("team-adopt-mark", true), ("team-managed-fields", false)];
    let forged: Vec<Value> = cases
        .iter()
        .map(|(name, mark)| forge(cp, &ns, name, *mark))
        .collect();

    // upgrade: neither is pruned, both are named.
    let out = upgrade(cp, &ns);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    for ((name, _), before) in cases.iter().zip(&forged) {
        let after = get(cp, "configmap", name, Some(&ns));
        assert!(after.is_some(), "upgrade pruned ConfigMap/{name}: {said}");
        assert_eq!(data(&after.unwrap()), data(before), "{said}");
        assert!(
            said.contains(&format!("ConfigMap/{name}")),
            "not named: {said}"
        );
    }
    assert!(said.contains("not in the ledger"), "{said}");

    // delete --yes: cf-runner's objects go, the team's stay and are named.
    let out = delete(cp, &ns);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    for ((name, _), before) in cases.iter().zip(&forged) {
        let after = get(cp, "configmap", name, Some(&ns));
        assert!(after.is_some(), "delete removed ConfigMap/{name}: {said}");
        assert_eq!(data(&after.unwrap()), data(before), "{said}");
        assert!(
            said.contains(&format!("ConfigMap/{name}")),
            "not named: {said}"
        );
    }
    assert!(
        get(cp, "deployment", "runner", Some(&ns)).is_none(),
        "{said}"
    );
    assert!(get(cp, "secret", "runner", Some(&ns)).is_none(), "{said}");
    kubectl(cp, &["delete", "namespace", &ns, "--wait=false"]);
}

/// An install of a version before the ledger: `delete` warns and names
/// the command that records one; `upgrade` records it from the objects the
/// marks call cf-runner's, and everything of cf-runner's then still goes
/// with `delete`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn an_install_without_a_ledger_gets_one_on_first_use() {
    let cp = controlplane::shared();
    let ns = unique("cfnoledger");
    let out = init(cp, &ns);
    assert!(out.status.success(), "{}", text(&out));
    // As an earlier version left it: no ledger.
    kubectl(cp, &["annotate", "namespace", &ns, &format!("{LEDGER}-")]);
    assert_eq!(ledger(cp, &ns), None);

    let out = upgrade(cp, &ns);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    let recorded = ledger(cp, &ns).expect("the upgrade records a ledger");
    for (kind, name) in [("deployment", "runner"), ("secret", "runner")] {
        let live = get(cp, kind, name, Some(&ns)).unwrap();
        let uid = live["metadata"]["uid"].as_str().unwrap();
        assert!(
            recorded.contains(uid),
            "{kind}/{name} not recorded: {recorded}"
        );
    }
    // The record Secret is rendered too; the ServiceAccount's token Secret
    // is not cf-runner's (Kubernetes filled it).
    let cluster_role = kubectl(
        cp,
        &[
            "get",
            "clusterroles",
            "-l",
            &format!("app.kubernetes.io/instance={ns}"),
            "-o",
            "jsonpath={.items[*].metadata.uid}",
        ],
    );
    for uid in cluster_role.split_whitespace() {
        assert!(
            recorded.contains(uid),
            "a ClusterRole not recorded: {recorded}"
        );
    }

    // Without a ledger again, delete warns and still deletes as before.
    kubectl(cp, &["annotate", "namespace", &ns, &format!("{LEDGER}-")]);
    let out = delete(cp, &ns);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("holds no ledger"), "{said}");
    assert!(said.contains("cf-runner upgrade"), "{said}");
    assert!(
        get(cp, "deployment", "runner", Some(&ns)).is_none(),
        "{said}"
    );
    kubectl(cp, &["delete", "namespace", &ns, "--wait=false"]);
}

/// The third case: a forged object under a name cf-runner renders (its own
/// was gone) is not written over by the admin's `upgrade`: nothing is
/// applied, and the object is named.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_forged_object_under_cf_runners_name_is_not_written_over() {
    let cp = controlplane::shared();
    let ns = unique("cfforgedname");
    let out = init(cp, &ns);
    assert!(out.status.success(), "{}", text(&out));
    grant_patch_not_delete(cp, &ns).await;
    let name = "codefresh-dind-config";
    kubectl(cp, &["delete", "configmap", name, "-n", &ns]);
    let forged = forge(cp, &ns, name, false);

    let out = upgrade(cp, &ns);
    let said = text(&out);
    assert_eq!(
        out.status.code(),
        Some(3),
        "the upgrade wrote over it: {said}"
    );
    assert!(said.contains(&format!("ConfigMap/{name}")), "{said}");
    assert!(said.contains("not in the ledger"), "{said}");
    let after = get(cp, "configmap", name, Some(&ns)).unwrap();
    assert_eq!(data(&after), data(&forged), "{said}");
    assert_eq!(
        after["metadata"]["resourceVersion"], forged["metadata"]["resourceVersion"],
        "{said}"
    );
    kubectl(cp, &["delete", "namespace", &ns, "--wait=false"]);
}
