//! Objects cf-runner did not create are never its to write or delete
//! (issues 31 and 32). A team's ConfigMap, Secret and ServiceAccount that
//! share a name with cf-runner's, a StorageClass and a ClusterRole made
//! with kubectl: `check` and `init` used to pass and merge into them, and
//! `delete` then removed them. An object relabelled by hand looked like
//! cf-runner's to `delete`. And `delete --delete-namespace` took the team's
//! Deployment and Secret with the namespace.

use crate::support;

use std::io::Write;
use std::process::{Output, Stdio};

use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, DeleteParams};
use serde_json::{json, Value};
use support::cli::{self, run as cf_runner, text};
use support::controlplane::{self, ControlPlane};
use support::namespace::unique;

const ADMIN: &str = "admin@cf-runner-test";
const LIMITED: &str = "limited@cf-runner-test";
const AGENT_TOKEN: &str = "agent-token-for-e2e-ownership-0123456789";

/// `kubectl` as the admin; panics with its output when it fails.
fn kubectl(cp: &ControlPlane, args: &[&str]) -> String {
    let out = cp.kubectl().args(args).output().unwrap();
    assert!(out.status.success(), "kubectl {args:?}: {}", text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `kubectl create -f -` of a YAML/JSON document.
fn kubectl_create(cp: &ControlPlane, document: &Value) {
    let mut child = cp
        .kubectl()
        .args(["create", "-f", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(document.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "kubectl create: {}", text(&out));
}

/// The object as the API server holds it, or `None`.
fn get(cp: &ControlPlane, kind: &str, name: &str, ns: Option<&str>) -> Option<Value> {
    let mut cmd = cp.kubectl();
    cmd.args(["get", kind, name, "-o", "json", "--ignore-not-found"]);
    if let Some(ns) = ns {
        cmd.args(["-n", ns]);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "kubectl get: {}", text(&out));
    if out.stdout.is_empty() {
        return None;
    }
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

/// `init` of the `local` example, offline, not waiting.
fn init(cp: &ControlPlane, ns: &str, extra: &[&str]) -> Output {
    let home = tempfile::tempdir().unwrap();
    cli::init(cp.admin_kubeconfig(), home.path(), "local", ns, ADMIN)
        .args(["--agent-token", AGENT_TOKEN, "--no-wait"])
        .args(extra)
        .output()
        .unwrap()
}

fn check(cp: &ControlPlane, ns: &str) -> Output {
    let ex = cli::example("local");
    cf_runner(
        cp.admin_kubeconfig(),
        &[
            "check",
            "--values",
            ex.to_str().unwrap(),
            "--kube-namespace",
            ns,
            "--kube-context-name",
            ADMIN,
        ],
    )
}

fn delete_as(cp: &ControlPlane, limited: bool, ns: &str, extra: &[&str]) -> Output {
    let (kubeconfig, context) = if limited {
        (cp.limited_kubeconfig(), LIMITED)
    } else {
        (cp.admin_kubeconfig(), ADMIN)
    };
    let mut args = vec![
        "delete",
        "--yes",
        "--keep-platform",
        "--kube-namespace",
        ns,
        "--kube-context-name",
        context,
        "--timeout",
        "90s",
    ];
    args.extend_from_slice(extra);
    cf_runner(kubeconfig, &args)
}

fn delete(cp: &ControlPlane, ns: &str, extra: &[&str]) -> Output {
    delete_as(cp, false, ns, extra)
}

/// Objects carrying cf-runner's labels for `ns`, cluster-wide too.
fn labelled(cp: &ControlPlane, ns: &str) -> String {
    let selector =
        format!("app.kubernetes.io/managed-by=cf-runner,app.kubernetes.io/instance={ns}");
    let namespaced = kubectl(
        cp,
        &[
            "get",
            "configmaps,secrets,serviceaccounts,deployments,daemonsets,roles,rolebindings",
            "-n",
            ns,
            "-l",
            &selector,
            "-o",
            "name",
        ],
    );
    let cluster = kubectl(
        cp,
        &[
            "get",
            "storageclasses,clusterroles,clusterrolebindings,namespaces",
            "-l",
            &selector,
            "-o",
            "name",
        ],
    );
    format!("{namespaced}{cluster}")
}

async fn namespace_exists(cp: &ControlPlane, ns: &str) -> bool {
    let nss: Api<Namespace> = Api::all(cp.client());
    nss.get_opt(ns)
        .await
        .unwrap()
        .is_some_and(|n| n.metadata.deletion_timestamp.is_none())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn objects_made_by_others_stop_check_and_init_and_survive_delete() {
    let cp = controlplane::shared();
    // A shared namespace, and a team's own objects in it, unrelated to any
    // runner, that happen to share cf-runner's names.
    let ns = cp.create_namespace("cfown").await.unwrap();
    kubectl(
        cp,
        &[
            "create",
            "configmap",
            "codefresh-dind-config",
            "--from-literal=team-setting=on",
            "-n",
            &ns,
        ],
    );
    kubectl(
        cp,
        &[
            "create",
            "secret",
            "generic",
            "runner",
            "--from-literal=password=team-password",
            "-n",
            &ns,
        ],
    );
    kubectl(cp, &["create", "serviceaccount", "runner", "-n", &ns]);
    let class = format!("dind-local-volumes-runner-{ns}");
    kubectl_create(
        cp,
        &json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                "metadata": {"name": class}, "provisioner": "example.com/team-disks"}),
    );
    let role = format!("volume-provisioner-{ns}");
    kubectl(
        cp,
        &[
            "create",
            "clusterrole",
            &role,
            "--verb=get",
            "--resource=pods",
        ],
    );
    let theirs: [(&str, &str, Option<&str>); 5] = [
        ("configmap", "codefresh-dind-config", Some(&ns)),
        ("secret", "runner", Some(&ns)),
        ("serviceaccount", "runner", Some(&ns)),
        ("storageclass", &class, None),
        ("clusterrole", &role, None),
    ];
    let before: Vec<Value> = theirs
        .iter()
        .map(|(k, n, ns)| get(cp, k, n, *ns).unwrap())
        .collect();
    let named = [
        format!("ConfigMap/codefresh-dind-config in namespace {ns}"),
        format!("Secret/runner in namespace {ns}"),
        format!("ServiceAccount/runner in namespace {ns}"),
        format!("StorageClass/{class} (cluster-wide)"),
        format!("ClusterRole/{role} (cluster-wide)"),
    ];

    let out = check(cp, &ns);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(3), "check passed: {shown}");
    for n in &named {
        assert!(
            shown.contains(n.as_str()),
            "check does not name {n}: {shown}"
        );
    }
    assert!(shown.contains("kubectl-create"), "who made them: {shown}");
    assert!(shown.contains("cf-runner adopt"), "{shown}");

    // init, with the preflight, without it, and with --force-conflicts:
    // each stops before writing, naming every object.
    for extra in [&[][..], &["--skip-cluster-test"], &["--force-conflicts"]] {
        let out = init(cp, &ns, extra);
        let shown = text(&out);
        assert_eq!(out.status.code(), Some(3), "init {extra:?}: {shown}");
        for n in &named {
            assert!(
                shown.contains(n.as_str()),
                "init {extra:?} does not name {n}: {shown}"
            );
        }
        assert_eq!(labelled(cp, &ns), "", "init {extra:?} wrote: {shown}");
        assert!(
            get(cp, "secret", "cf-runner-values", Some(&ns)).is_none(),
            "{shown}"
        );
    }

    let out = delete(cp, &ns, &[]);
    assert!(out.status.success(), "{}", text(&out));
    // Byte for byte as they were: nothing wrote to them, nothing deleted them.
    for ((kind, name, ns), was) in theirs.iter().zip(&before) {
        assert_eq!(
            get(cp, kind, name, *ns).as_ref(),
            Some(was),
            "{kind}/{name} changed"
        );
    }
    kubectl(cp, &["delete", "storageclass", &class]);
    kubectl(cp, &["delete", "clusterrole", &role]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn delete_leaves_objects_cf_runner_did_not_create() {
    let cp = controlplane::shared();
    let ns = unique("cfown-later");
    let out = init(cp, &ns, &["--skip-cluster-test"]);
    assert!(out.status.success(), "{}", text(&out));

    // Later, the team makes an object of a cf-runner name (cf-runner's was
    // deleted by hand), with no labels; a re-run of init must not merge
    // into it.
    kubectl(
        cp,
        &["delete", "configmap", "codefresh-dind-config", "-n", &ns],
    );
    kubectl(
        cp,
        &[
            "create",
            "configmap",
            "codefresh-dind-config",
            "--from-literal=team=mine",
            "-n",
            &ns,
        ],
    );
    let out = init(cp, &ns, &["--skip-cluster-test"]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(3), "the re-run merged: {shown}");
    assert!(
        shown.contains(&format!(
            "ConfigMap/codefresh-dind-config in namespace {ns}"
        )),
        "{shown}"
    );
    // And one relabelled by hand to look like cf-runner's.
    kubectl(
        cp,
        &[
            "create",
            "configmap",
            "team-notes",
            "--from-literal=notes=keep",
            "-n",
            &ns,
        ],
    );
    kubectl(
        cp,
        &[
            "label",
            "configmap",
            "team-notes",
            "-n",
            &ns,
            "app.kubernetes.io/managed-by=cf-runner",
            &format!("app.kubernetes.io/instance={ns}"),
        ],
    );
    let dind_config = get(cp, "configmap", "codefresh-dind-config", Some(&ns)).unwrap();
    let notes = get(cp, "configmap", "team-notes", Some(&ns)).unwrap();

    let out = delete(cp, &ns, &[]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("ConfigMap/team-notes"), "not named: {said}");
    assert!(said.contains("cf-runner did not create"), "{said}");
    assert_eq!(
        get(cp, "configmap", "team-notes", Some(&ns)),
        Some(notes),
        "{said}"
    );
    assert_eq!(
        get(cp, "configmap", "codefresh-dind-config", Some(&ns)),
        Some(dind_config),
        "{said}"
    );
    // cf-runner's own objects went.
    assert!(get(cp, "secret", "runner", Some(&ns)).is_none(), "{said}");
    assert!(
        get(cp, "deployment", "runner", Some(&ns)).is_none(),
        "{said}"
    );
    kubectl(cp, &["delete", "namespace", &ns, "--wait=false"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn delete_namespace_keeps_the_teams_workloads() {
    let cp = controlplane::shared();
    let ns = unique("cf-nsuser");
    let only_ours = unique("cf-nsours");
    for n in [&ns, &only_ours] {
        let out = init(cp, n, &["--skip-cluster-test"]);
        assert!(out.status.success(), "{}", text(&out));
    }
    kubectl(
        cp,
        &[
            "create",
            "deployment",
            "team-app",
            "--image=nginx:1.27",
            "-n",
            &ns,
        ],
    );
    kubectl(
        cp,
        &[
            "create",
            "secret",
            "generic",
            "team-secret",
            "--from-literal=k=v",
            "-n",
            &ns,
        ],
    );

    let out = delete(cp, &ns, &["--delete-namespace"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        namespace_exists(cp, &ns).await,
        "the namespace went: {said}"
    );
    assert!(
        get(cp, "deployment", "team-app", Some(&ns)).is_some(),
        "{said}"
    );
    assert!(
        get(cp, "secret", "team-secret", Some(&ns)).is_some(),
        "{said}"
    );
    assert!(
        said.contains(&format!("the namespace {ns} stays")),
        "{said}"
    );
    assert!(said.contains("Deployment/team-app"), "{said}");
    assert!(said.contains("Secret/team-secret"), "{said}");
    assert!(
        said.contains(&format!("kubectl delete namespace {ns}")),
        "{said}"
    );
    // cf-runner's own objects went, the namespace aside.
    assert_eq!(labelled(cp, &ns), format!("namespace/{ns}\n"), "{said}");

    // The explicit flag lists what is there, then deletes it all.
    let out = delete(cp, &ns, &["--delete-namespace-with-contents"]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("Deployment/team-app"), "{said}");
    assert!(!namespace_exists(cp, &ns).await, "{said}");

    // A namespace holding only cf-runner's objects (and their pods,
    // ReplicaSets, …) goes as before.
    let out = delete(cp, &only_ours, &["--delete-namespace"]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(!namespace_exists(cp, &only_ours).await, "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_user_who_may_not_list_some_types_keeps_the_namespace() {
    let cp = controlplane::shared();
    let ns = unique("cf-nslimited");
    let out = init(cp, &ns, &["--skip-cluster-test"]);
    assert!(out.status.success(), "{}", text(&out));
    // The limited user may do everything `delete` needs, but not list pods.
    let role = format!("cf-runner-deleter-{ns}");
    let all = ["*"];
    kubectl_create(
        cp,
        &json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
        "metadata": {"name": role},
        "rules": [
            {"apiGroups": [""], "resources": [
                "configmaps", "secrets", "serviceaccounts", "services", "endpoints",
                "persistentvolumeclaims", "persistentvolumes", "namespaces", "events",
                "limitranges", "resourcequotas", "podtemplates", "replicationcontrollers"],
             "verbs": all},
            {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "delete", "create", "watch"]},
            {"apiGroups": ["apps", "batch", "rbac.authorization.k8s.io", "storage.k8s.io",
                           "networking.k8s.io", "discovery.k8s.io", "coordination.k8s.io",
                           "policy", "autoscaling", "events.k8s.io", "resource.k8s.io",
                           "authorization.k8s.io", "authentication.k8s.io"],
             "resources": all, "verbs": all}
        ]}),
    );
    kubectl(
        cp,
        &[
            "create",
            "clusterrolebinding",
            &role,
            &format!("--clusterrole={role}"),
            "--user=limited",
        ],
    );
    // RBAC takes a moment to reach the authorizer.
    controlplane::poll_until(
        "the limited user may delete configmaps",
        std::time::Duration::from_secs(20),
        || async {
            let out = cp
                .kubectl()
                .args([
                    "auth",
                    "can-i",
                    "delete",
                    "configmaps",
                    "-n",
                    &ns,
                    "--as=limited",
                ])
                .output()?;
            Ok(out.status.success())
        },
    )
    .await
    .unwrap();

    let out = delete_as(cp, true, &ns, &["--delete-namespace"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        namespace_exists(cp, &ns).await,
        "the namespace went: {said}"
    );
    assert!(
        said.contains(&format!("the namespace {ns} stays")),
        "{said}"
    );
    assert!(
        said.contains("pods (your user may not list them)"),
        "{said}"
    );

    kubectl(cp, &["delete", "clusterrolebinding", &role]);
    kubectl(cp, &["delete", "clusterrole", &role]);
    let nss: Api<Namespace> = Api::all(cp.client());
    let _ = nss.delete(&ns, &DeleteParams::default()).await;
}
