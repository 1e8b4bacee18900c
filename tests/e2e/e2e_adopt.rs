//! `cf-runner adopt --dry-run` against a real control plane: a runner the
//! cf-runtime Helm chart installed (the reference chart rendered by `helm
//! template`, applied, plus a release Secret shaped the way Helm 4 stores
//! one) is read into a cf-runner values file and a plan, and nothing in the
//! cluster changes. Namespaces holding two runners, or a chart version whose
//! layout adopt does not know, are refused with exit 2. Without --dry-run,
//! a Helm install is moved to cf-runner with a runner always ready, its
//! agent token, certificates and volumes kept, and nothing of Helm's left.

use crate::support;

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::{json, Value};
use support::adopt::*;
use support::cli::{isolated, text};
use support::controlplane::{self, ControlPlane};
use support::fake_platform::FakePlatform;

/// Requests cf-runner made since audit event `since` (by its user agent:
/// the controllers share the admin user), and those of them that wrote in
/// namespace `ns` or to a cluster-wide object named after it (tests run
/// side by side on one control plane).
fn requests_since(cp: &ControlPlane, since: usize, ns: &str) -> (usize, Vec<String>) {
    let ours: Vec<Value> = cp
        .audit_events()
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
        .collect();
    let writes = ours
        .iter()
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
        // A server-side dry-run (the diff shown before asking) stores nothing.
        .filter(|e| !crate::support::audit::is_dry_run(e))
        .filter(|e| {
            e["objectRef"]["namespace"] == ns
                || e["objectRef"]["name"]
                    .as_str()
                    .is_some_and(|n| n == ns || n.ends_with(&format!("-{ns}")))
        })
        .map(|e| format!("{} {}", e["verb"], e["requestURI"]))
        .collect();
    (ours.len(), writes)
}

/// The chart as `helm install` leaves it in `ns`: every object but the
/// pre-delete hooks (those run only at uninstall), with the ownership
/// annotations Helm adds, the agent-token Secret the runner's init
/// container creates, the release record, and one dind volume claim.
fn install_chart(cp: &ControlPlane, ns: &str, dir: &Path) {
    install_chart_with(
        cp,
        ns,
        dir,
        "runner:\n  nodeSelector:\n    pool: ci\n  env:\n    HTTP_PROXY: http://proxy.internal:3128\n",
    );
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn adopt_dry_run_reads_a_helm_install_into_values_and_a_plan_and_writes_nothing() {
    let cp = controlplane::shared();
    let ns = cp.create_namespace("adopthelm").await.unwrap();
    let home = tempfile::tempdir().unwrap();
    install_chart(cp, &ns, home.path());

    let mark = cp.audit_events().unwrap().len();
    let file = home.path().join("adopted.yaml");
    let out = adopt(
        cp,
        home.path(),
        &[
            "--dry-run",
            "--kube-namespace",
            &ns,
            "--values-file",
            file.to_str().unwrap(),
        ],
    );
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(0), "{shown}");
    assert!(
        shown.contains("cf-runtime Helm chart (cf-runtime-10.5.2, release \"cf-runtime\")"),
        "{shown}"
    );
    assert!(
        !shown.contains(AGENT_TOKEN) && !shown.contains(USER_TOKEN),
        "{shown}"
    );

    // What the install is, as a values file `init --values` takes.
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(
        !saved.contains(AGENT_TOKEN) && !saved.contains(USER_TOKEN),
        "{saved}"
    );
    let values: Value = serde_yaml_ng::from_str(&saved).unwrap();
    assert_eq!(values["Namespace"], json!(ns), "{saved}");
    assert_eq!(values["AgentId"], json!("adopt-agent"), "{saved}");
    assert_eq!(
        values["RuntimeEnvironmentName"],
        json!(format!("adopt-cluster/{ns}")),
        "{saved}"
    );
    assert_eq!(values["NodeSelector"], json!({"pool": "ci"}), "{saved}");
    assert_eq!(
        values["EnvVars"]["HTTP_PROXY"],
        json!("http://proxy.internal:3128"),
        "{saved}"
    );
    assert_eq!(values["Storage"]["Backend"], json!("local"), "{saved}");
    assert_eq!(
        values["Storage"]["StorageClassName"],
        json!(format!("dind-local-volumes-runner-{ns}")),
        "{saved}"
    );
    assert_eq!(values["Monitor"]["Enabled"], json!(false), "{saved}");
    // cf-runner accepts the file it wrote.
    let check = isolated(cp.admin_kubeconfig(), home.path())
        .args([
            "init",
            "--dry-run",
            "--output-dir",
            "-",
            "--values",
            file.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(check.status.code(), Some(0), "{}", text(&check));

    // The plan.
    assert!(
        shown.contains("keep the agent token from Secret/cf-runtime-runner"),
        "{shown}"
    );
    let removed = section(&shown, "removed");
    for gone in [
        "CronJob/cf-runtime-runtime-patch",
        "Job/cf-runtime-dind-gencerts",
    ] {
        assert!(
            removed.contains(&gone),
            "{gone} not in removed: {removed:?}\n{shown}"
        );
    }
    assert_eq!(
        removed.last(),
        Some(&"Secret/sh.helm.release.v1.cf-runtime.v1"),
        "the release record goes last: {removed:?}"
    );
    let replaced = section(&shown, "replaced");
    assert!(
        replaced
            .iter()
            .any(|l| l.starts_with("Deployment/cf-runtime-runner -> Deployment/")),
        "{replaced:?}\n{shown}"
    );
    let alone = section(&shown, "left alone");
    assert!(
        alone.iter().any(|l| l.contains("dind-vol-build-1")),
        "{alone:?}"
    );
    assert!(
        !removed
            .iter()
            .chain(replaced.iter())
            .any(|l| l.contains("dind-vol-build-1")),
        "{shown}"
    );

    // A dry run changes nothing in the cluster.
    let (requests, writes) = requests_since(cp, mark, &ns);
    assert!(requests > 0, "no request of cf-runner's in the audit log");
    assert_eq!(writes, Vec::<String>::new());

    // Re-running writes over adopt's own file; a file of the user's is refused.
    let again = adopt(
        cp,
        home.path(),
        &[
            "--dry-run",
            "--kube-namespace",
            &ns,
            "--values-file",
            file.to_str().unwrap(),
        ],
    );
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    let mine = home.path().join("mine.yaml");
    std::fs::write(&mine, "Namespace: keep-me\n").unwrap();
    let refused = adopt(
        cp,
        home.path(),
        &[
            "--dry-run",
            "--kube-namespace",
            &ns,
            "--values-file",
            mine.to_str().unwrap(),
        ],
    );
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    assert!(
        text(&refused).contains("--values-file"),
        "{}",
        text(&refused)
    );
    assert_eq!(
        std::fs::read_to_string(&mine).unwrap(),
        "Namespace: keep-me\n"
    );
}

fn deployment(name: &str, labels: Value) -> Value {
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": labels},
        "spec": {
            "replicas": 0,
            "selector": {"matchLabels": {"x": name}},
            "template": {
                "metadata": {"labels": {"x": name}},
                "spec": {"containers": [{"name": "runner", "image": "quay.io/codefresh/venona:1.0.0"}]}
            }
        }
    })
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn adopt_refuses_two_runners_and_an_uncovered_chart_version() {
    let cp = controlplane::shared();
    let home = tempfile::tempdir().unwrap();

    let old = cp.create_namespace("adoptold").await.unwrap();
    apply(
        cp,
        &old,
        &[deployment(
            "cf-runtime-runner",
            json!({"helm.sh/chart": "cf-runtime-6.3.0", "app.kubernetes.io/instance": "cf-runtime",
                   "codefresh.io/application": "runner"}),
        )],
    );
    let out = adopt(cp, home.path(), &["--dry-run", "--kube-namespace", &old]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(2), "{shown}");
    assert!(
        shown.contains("cf-runtime-6.3.0") && shown.contains("cf-runtime-10.5.2"),
        "{shown}"
    );
    assert!(
        !home.path().join("cf-runner-values.yaml").exists(),
        "{shown}"
    );

    let two = cp.create_namespace("adopttwo").await.unwrap();
    apply(
        cp,
        &two,
        &[
            deployment(
                "cf-runtime-runner",
                json!({"helm.sh/chart": "cf-runtime-10.5.2", "app.kubernetes.io/instance": "cf-runtime",
                       "codefresh.io/application": "runner"}),
            ),
            deployment("runner", json!({"app": "runner"})),
        ],
    );
    let out = adopt(cp, home.path(), &["--dry-run", "--kube-namespace", &two]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(2), "{shown}");
    assert!(shown.contains("more than one runner"), "{shown}");
    assert!(
        shown.contains("Helm release \"cf-runtime\"") && shown.contains("venonactl"),
        "{shown}"
    );

    let empty = cp.create_namespace("adoptnone").await.unwrap();
    let out = adopt(cp, home.path(), &["--dry-run", "--kube-namespace", &empty]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("holds no runner"), "{}", text(&out));

    // Without --dry-run and without a terminal, --yes is needed; and with
    // it, two runners are still refused before anything is written.
    let out = adopt(cp, home.path(), &["--kube-namespace", &two]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--yes"), "{}", text(&out));
    let out = adopt(cp, home.path(), &["--yes", "--kube-namespace", &two]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("more than one runner"),
        "{}",
        text(&out)
    );
}

/// A runner as venonactl 2.0 leaves one, written from the reference notes
/// (old-installer-venonactl.md): the `runner` Deployment, its token Secret
/// `runner`, the runtime's RBAC and dind objects, the volume provisioner
/// with its StorageClass and cluster role.
fn install_venonactl(cp: &ControlPlane, ns: &str) {
    install_venonactl_with(cp, ns, false);
}

/// [`install_venonactl`]; `runnable`: one replica that kwok's nodes can run
/// (no node selector), plus the dind certificates.
fn install_venonactl_with(cp: &ControlPlane, ns: &str, runnable: bool) {
    let provisioner = format!("codefresh.io/dind-volume-provisioner-runner-{ns}");
    let workload = |kind: &str, name: &str, app: &str, env: Value| {
        json!({
            "apiVersion": "apps/v1", "kind": kind,
            "metadata": {"name": name, "labels": {"app": app, "version": "2.0.7"}},
            "spec": {
                "selector": {"matchLabels": {"app": app}},
                "template": {
                    "metadata": {"labels": {"app": app}},
                    "spec": {
                        "nodeSelector": if runnable { json!({}) } else { json!({"pool": "builders"}) },
                        "containers": [{"name": "runner", "image": "quay.io/codefresh/venona:2.0.7", "env": env}],
                    },
                },
            },
        })
    };
    let mut runner = workload(
        "Deployment",
        "runner",
        "runner",
        json!([{"name": "AGENT_ID", "value": "venona-agent"},
               {"name": "CODEFRESH_HOST", "value": "https://g.codefresh.io"},
               {"name": "AGENT_MODE", "value": "InCluster"}]),
    );
    runner["spec"]["replicas"] = json!(i32::from(runnable));
    let mut objects = vec![
        runner,
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "runner"},
               "stringData": {"codefresh.token": AGENT_TOKEN}}),
        json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "runner"}}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "runner"},
               "rules": [{"apiGroups": [""], "resources": ["pods", "persistentvolumeclaims"],
                          "verbs": ["get", "create", "delete"]}]}),
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "codefresh-dind-config"},
               "data": {"daemon.json": "{}"}}),
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "dind", "labels": {"app": "dind"}},
               "spec": {"clusterIP": "None", "selector": {"app": "dind"},
                        "ports": [{"name": "dind-port", "port": 1300}]}}),
        json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
               "metadata": {"name": format!("dind-local-volumes-runner-{ns}")},
               "provisioner": provisioner,
               "parameters": {"volumeBackend": "local", "volumeParentDir": "/var/lib/codefresh/dind-volumes"}}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
               "metadata": {"name": format!("volume-provisioner-runner-{ns}")},
               "rules": [{"apiGroups": [""], "resources": ["persistentvolumes"], "verbs": ["get"]}]}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
               "metadata": {"name": format!("volume-provisioner-runner-{ns}")},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                           "name": format!("volume-provisioner-runner-{ns}")},
               "subjects": [{"kind": "ServiceAccount", "name": "volume-provisioner-runner", "namespace": ns}]}),
    ];
    if runnable {
        objects.push(json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "codefresh-certs-server", "labels": {"app": "venona"}},
            "stringData": {"ca.pem": "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n",
                           "server-cert.pem": "-----BEGIN CERTIFICATE-----\nSERVER\n-----END CERTIFICATE-----\n",
                           "server-key.pem": "-----BEGIN PRIVATE KEY-----\nVENONA-KEY\n-----END PRIVATE KEY-----\n"}}));
    }
    apply(cp, ns, &objects);
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn adopt_dry_run_reads_a_venonactl_install_and_writes_nothing() {
    let cp = controlplane::shared();
    let ns = cp.create_namespace("adoptvenona").await.unwrap();
    let home = tempfile::tempdir().unwrap();
    install_venonactl(cp, &ns);

    let mark = cp.audit_events().unwrap().len();
    let out = adopt(cp, home.path(), &["--dry-run", "--kube-namespace", &ns]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(0), "{shown}");
    assert!(
        shown.contains("venonactl / `codefresh runner init`"),
        "{shown}"
    );
    assert!(!shown.contains(AGENT_TOKEN), "{shown}");
    let saved = std::fs::read_to_string(home.path().join("cf-runner-values.yaml")).unwrap();
    assert!(!saved.contains(AGENT_TOKEN), "{saved}");
    let values: Value = serde_yaml_ng::from_str(&saved).unwrap();
    assert_eq!(values["AgentId"], json!("venona-agent"), "{saved}");
    assert_eq!(
        values["NodeSelector"],
        json!({"pool": "builders"}),
        "{saved}"
    );
    assert_eq!(values["Storage"]["Backend"], json!("local"), "{saved}");
    // The runtime name is not guessed: the output says to set it.
    assert!(values.get("RuntimeEnvironmentName").is_none(), "{saved}");
    assert!(shown.contains("set RuntimeEnvironmentName"), "{shown}");

    assert!(
        shown.contains("keep the agent token from Secret/runner"),
        "{shown}"
    );
    // venonactl's runner Deployment has cf-runner's name but another
    // selector: it cannot be taken over in place, and the plan says so.
    let clash = section(&shown, "same name, different pod selector");
    assert_eq!(clash, vec!["Deployment/runner"], "{shown}");
    assert!(
        !section(&shown, "taken over").contains(&"Deployment/runner"),
        "{shown}"
    );
    let removed = section(&shown, "removed");
    assert!(
        removed.contains(&format!("ClusterRoleBinding/volume-provisioner-runner-{ns}").as_str()),
        "{shown}"
    );

    let (requests, writes) = requests_since(cp, mark, &ns);
    assert!(requests > 0, "no request of cf-runner's in the audit log");
    assert_eq!(writes, Vec::<String>::new());
}

/// What the chart's scripts leave at run time: the dind certificates (the
/// gencerts Job) and finalizers on both Secrets; a dind volume bound to
/// its claim.
fn add_runtime_leftovers(cp: &ControlPlane, ns: &str) {
    apply(
        cp,
        ns,
        &[
            json!({"apiVersion": "v1", "kind": "Secret",
                   "metadata": {"name": "codefresh-certs-server", "labels": {"codefresh.io/internal": "true"}},
                   "stringData": {"ca.pem": "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n",
                                  "server-cert.pem": "-----BEGIN CERTIFICATE-----\nSERVER\n-----END CERTIFICATE-----\n",
                                  "server-key.pem": "-----BEGIN PRIVATE KEY-----\nKEY\n-----END PRIVATE KEY-----\n"}}),
            json!({"apiVersion": "v1", "kind": "PersistentVolume",
                   "metadata": {"name": format!("dind-pv-{ns}"), "labels": {"codefresh-app": "dind"}},
                   "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                            "storageClassName": format!("dind-local-volumes-runner-{ns}"),
                            "persistentVolumeReclaimPolicy": "Retain",
                            "hostPath": {"path": "/var/lib/codefresh/dind-volumes/v1"},
                            "claimRef": {"namespace": ns, "name": "dind-vol-build-1"}}}),
        ],
    );
    // The runner's init container makes the old runner own the token
    // Secret (with the kind the chart writes, `Deploy`).
    let uid = cp
        .kubectl()
        .args([
            "-n",
            ns,
            "get",
            "deployment",
            "cf-runtime-runner",
            "-o",
            "jsonpath={.metadata.uid}",
        ])
        .output()
        .unwrap();
    let uid = String::from_utf8(uid.stdout).unwrap();
    let out = cp
        .kubectl()
        .args([
            "-n",
            ns,
            "patch",
            "secret",
            "cf-runtime-runner",
            "--type=merge",
            "-p",
        ])
        .arg(
            json!({"metadata": {"ownerReferences": [
                {"apiVersion": "apps/v1", "kind": "Deploy", "name": "cf-runtime-runner", "uid": uid}
            ]}})
            .to_string(),
        )
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    for secret in ["codefresh-certs-server", "cf-runtime-runner"] {
        let out = cp
            .kubectl()
            .args(["-n", ns, "patch", "secret", secret, "--type=merge", "-p"])
            .arg(r#"{"metadata":{"finalizers":["kubernetes"]}}"#)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
    }
}

/// The uids of the dind claim and volume.
fn volume_uids(cp: &ControlPlane, ns: &str) -> (String, String) {
    let uid = |args: &[&str]| {
        let out = cp.kubectl().args(args).output().unwrap();
        assert!(out.status.success(), "{}", text(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    (
        uid(&[
            "-n",
            ns,
            "get",
            "pvc",
            "dind-vol-build-1",
            "-o",
            "jsonpath={.metadata.uid}",
        ]),
        uid(&[
            "get",
            "pv",
            &format!("dind-pv-{ns}"),
            "-o",
            "jsonpath={.metadata.uid}",
        ]),
    )
}

/// Ready replicas of every runner Deployment in `ns` (the old one, the
/// new one, any interim one), summed.
async fn ready_runners(client: &kube::Client, ns: &str) -> i64 {
    use k8s_openapi::api::apps::v1::Deployment;
    let api: kube::Api<Deployment> = kube::Api::namespaced(client.clone(), ns);
    let list = api.list(&Default::default()).await.unwrap();
    list.items
        .iter()
        .filter(|d| {
            d.metadata
                .name
                .as_deref()
                .is_some_and(|n| n.contains("runner") && !n.contains("volume"))
        })
        .map(|d| {
            i64::from(
                d.status
                    .as_ref()
                    .and_then(|s| s.ready_replicas)
                    .unwrap_or(0),
            )
        })
        .sum()
}

/// Every object in `ns` or cluster-wide (of the kinds either tool makes)
/// that still carries one of Helm's marks.
fn helm_marked(cp: &ControlPlane, ns: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (scope, kinds) in [
        (Some(ns), "deployments,daemonsets,cronjobs,jobs,secrets,configmaps,serviceaccounts,services,roles,rolebindings,persistentvolumeclaims"),
        (None, "storageclasses,clusterroles,clusterrolebindings,persistentvolumes"),
    ] {
        let mut cmd = cp.kubectl();
        match scope {
            Some(ns) => cmd.args(["-n", ns]),
            None => &mut cmd,
        };
        let out = cmd.args(["get", kinds, "-o", "json"]).output().unwrap();
        assert!(out.status.success(), "{}", text(&out));
        let list: Value = serde_json::from_slice(&out.stdout).unwrap();
        for item in list["items"].as_array().unwrap() {
            let labels = &item["metadata"]["labels"];
            let annotations = &item["metadata"]["annotations"];
            let of_ns = scope.is_some()
                || annotations["meta.helm.sh/release-namespace"] == json!(ns)
                || item["provisioner"].as_str().is_some_and(|p| p.ends_with(ns))
                || item["metadata"]["name"].as_str().is_some_and(|n| n.ends_with(ns));
            let marked = labels.get("helm.sh/chart").is_some()
                || labels["app.kubernetes.io/managed-by"] == json!("Helm")
                || item["type"] == json!("helm.sh/release.v1");
            if of_ns && marked {
                found.push(format!("{}/{}", item["kind"].as_str().unwrap_or("?"), item["metadata"]["name"].as_str().unwrap_or("?")));
            }
        }
    }
    found
}

/// Waits until the old install's runner serves (a move starts from there).
async fn wait_for_a_ready_runner(cp: &ControlPlane, ns: &str, whose: &str) {
    let client = cp.client();
    controlplane::poll_until(
        &format!("{whose} to be ready"),
        Duration::from_secs(90),
        || {
            let client = client.clone();
            let ns = ns.to_string();
            async move { Ok(ready_runners(&client, &ns).await > 0) }
        },
    )
    .await
    .unwrap();
}

/// Runs `adopt args` while watching the runner Deployments of `ns`: the
/// output, the fewest ready runner replicas seen, and how many looks.
pub(crate) async fn adopt_watching(
    cp: &ControlPlane,
    home: &Path,
    ns: &str,
    args: &[&str],
) -> (Output, i64, u32) {
    let client = cp.client();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watcher = {
        let (client, ns, done) = (client.clone(), ns.to_string(), done.clone());
        tokio::spawn(async move {
            let (mut lowest, mut looks) = (i64::MAX, 0u32);
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                lowest = lowest.min(ready_runners(&client, &ns).await);
                looks += 1;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            (lowest, looks)
        })
    };
    let started = std::time::Instant::now();
    let out = {
        let home = home.to_path_buf();
        let kubeconfig = cp.admin_kubeconfig().to_path_buf();
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        tokio::task::spawn_blocking(move || {
            isolated(&kubeconfig, &home)
                .arg("adopt")
                .args(&args)
                .output()
                .unwrap()
        })
        .await
        .unwrap()
    };
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let (lowest, looks) = watcher.await.unwrap();
    eprintln!(
        "adopt in {ns}: {:.1}s, {looks} looks at the runners, fewest ready replicas {lowest}",
        started.elapsed().as_secs_f64()
    );
    (out, lowest, looks)
}

/// The flags of a move with the fake platform's token.
pub(crate) fn move_args(ns: &str, fake: &FakePlatform) -> Vec<String> {
    let args = [
        "--yes",
        "--kube-namespace",
        ns,
        "--token",
        fake.token(),
        "--url",
    ];
    let mut args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    args.extend([fake.url(), "--timeout".into(), "90s".into()]);
    args
}

/// Runs a move with `args` and checks what holds for every move, whole or
/// stopped: the exit code, a runner ready at every look, and no token in
/// the output. Gives the output's text.
async fn move_never_without_a_runner(
    cp: &ControlPlane,
    home: &Path,
    ns: &str,
    args: &[String],
    code: i32,
) -> String {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (out, lowest, looks) = adopt_watching(cp, home, ns, &args).await;
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(code), "{shown}");
    assert!(looks > 5, "the watch looked only {looks} times");
    assert!(
        lowest >= 1,
        "a moment with {lowest} ready runner replicas during the move\n{shown}"
    );
    assert!(
        !shown.contains(AGENT_TOKEN) && !shown.contains(USER_TOKEN),
        "{shown}"
    );
    shown
}

/// `delete` with a token removes everything of the install in `ns`, and
/// leaves the dind volumes.
fn delete_leaves_nothing(cp: &ControlPlane, home: &Path, ns: &str, fake: &FakePlatform) {
    let url = fake.url();
    let gone = isolated(cp.admin_kubeconfig(), home)
        .args([
            "delete",
            "--yes",
            "--kube-namespace",
            ns,
            "--token",
            fake.token(),
            "--url",
            &url,
            "--timeout",
            "90s",
        ])
        .output()
        .unwrap();
    assert_eq!(gone.status.code(), Some(0), "{}", text(&gone));
    let left = cp
        .kubectl()
        .args([
            "-n",
            ns,
            "get",
            "deployments,daemonsets,cronjobs,jobs,secrets,configmaps,services,serviceaccounts,roles,rolebindings",
            "-o",
            "name",
        ])
        .output()
        .unwrap();
    let left: Vec<String> = String::from_utf8(left.stdout)
        .unwrap()
        .lines()
        .filter(|l| *l != "serviceaccount/default" && *l != "configmap/kube-root-ca.crt")
        .map(str::to_string)
        .collect();
    assert_eq!(left, Vec::<String>::new(), "{}", text(&gone));
    let cluster_left = cp
        .kubectl()
        .args([
            "get",
            "storageclasses,clusterroles,clusterrolebindings",
            "-o",
            "name",
        ])
        .output()
        .unwrap();
    let cluster_left: Vec<String> = String::from_utf8(cluster_left.stdout)
        .unwrap()
        .lines()
        .filter(|l| l.ends_with(ns))
        .map(str::to_string)
        .collect();
    assert_eq!(cluster_left, Vec::<String>::new());
    assert!(fake.agents().is_empty() && fake.runtimes().is_empty());
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn adopt_moves_a_helm_install_with_a_runner_always_ready_and_keeps_token_and_volumes() {
    let cp = controlplane::shared();
    let ns = cp.create_namespace("adoptmove").await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let fake = FakePlatform::start(USER_TOKEN);
    register_like_the_chart(&fake, &ns);
    // kwok's nodes carry no special labels: the runner runs anywhere.
    install_chart_with(
        cp,
        &ns,
        home.path(),
        "runner:\n  env:\n    HTTP_PROXY: http://proxy.internal:3128\n",
    );
    add_runtime_leftovers(cp, &ns);
    let volumes_before = volume_uids(cp, &ns);
    wait_for_a_ready_runner(cp, &ns, "the chart's runner").await;

    // Without a token the platform's runtime spec cannot be checked: exit
    // 2 naming --token, before anything is written.
    let mark = cp.audit_events().unwrap().len();
    let no_token = adopt(cp, home.path(), &["--yes", "--kube-namespace", &ns]);
    assert_eq!(no_token.status.code(), Some(2), "{}", text(&no_token));
    assert!(text(&no_token).contains("--token"), "{}", text(&no_token));
    assert_eq!(requests_since(cp, mark, &ns).1, Vec::<String>::new());

    let args = move_args(&ns, &fake);
    let shown = move_never_without_a_runner(cp, home.path(), &ns, &args, 0).await;
    // It ends with `info`.
    assert!(shown.contains(&format!("adopt-cluster/{ns}")), "{shown}");

    // The agent token and the certificates are kept.
    assert_eq!(
        secret_text(cp, &ns, "runner", "codefresh.token"),
        AGENT_TOKEN
    );
    assert!(secret_text(cp, &ns, "codefresh-certs-server", "server-key.pem").contains("KEY"));
    // The volumes are untouched.
    assert_eq!(volume_uids(cp, &ns), volumes_before);
    // Nothing of Helm's is left, the release record neither.
    assert_eq!(helm_marked(cp, &ns), Vec::<String>::new());
    // The platform has cf-runner's spec for the same runtime (the chart's
    // registration had no engine image in it).
    let runtime = fake.runtimes()[&format!("adopt-cluster/{ns}")].clone();
    assert!(
        runtime["runtimeScheduler"]["image"].is_string(),
        "{runtime}"
    );
    assert_eq!(fake.agents().len(), 1);

    // Twice is a no-op.
    let mark = cp.audit_events().unwrap().len();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let again = adopt(cp, home.path(), &args);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    assert!(
        text(&again).contains("nothing to adopt"),
        "{}",
        text(&again)
    );
    let (_, writes) = requests_since(cp, mark, &ns);
    assert_eq!(writes, Vec::<String>::new());

    // `info` and `delete` work on it; delete leaves nothing of ours.
    let info = isolated(cp.admin_kubeconfig(), home.path())
        .args([
            "info",
            "--kube-namespace",
            &ns,
            "--token",
            fake.token(),
            "--url",
            &fake.url(),
        ])
        .output()
        .unwrap();
    assert_eq!(info.status.code(), Some(0), "{}", text(&info));
    delete_leaves_nothing(cp, home.path(), &ns, &fake);
    // The volumes stay (delete keeps them unless --purge-volumes).
    assert_eq!(volume_uids(cp, &ns), volumes_before);
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn adopt_moves_a_venonactl_install_through_an_interim_runner_and_an_interrupted_run_finishes()
{
    let cp = controlplane::shared();
    let ns = cp.create_namespace("adoptvmove").await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let fake = FakePlatform::start(USER_TOKEN);
    // What `codefresh runner init` registered: the agent and its runtime.
    let runtime = format!("venona-cluster/{ns}");
    venonactl_registered(&fake, &[(&runtime, &ns)]);
    install_venonactl_with(cp, &ns, true);
    wait_for_a_ready_runner(cp, &ns, "venonactl's runner").await;

    // The platform refuses the spec once: the move stops at its end.
    fake.fail("PUT /api/runtime-environments", 400, 1);

    let args = move_args(&ns, &fake);
    let shown = move_never_without_a_runner(cp, home.path(), &ns, &args, 1).await;
    // venonactl's runner held cf-runner's name with another selector: an
    // interim runner served while it went.
    assert!(shown.contains("Deployment/runner-adopting"), "{shown}");

    // The re-run finishes the move.
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (again, lowest, _) = adopt_watching(cp, home.path(), &ns, &args).await;
    let shown = text(&again);
    assert_eq!(again.status.code(), Some(0), "{shown}");
    assert!(shown.contains("did not finish; continuing it"), "{shown}");
    assert!(lowest >= 1, "{shown}");
    assert!(
        !shown.contains(AGENT_TOKEN) && !shown.contains(USER_TOKEN),
        "{shown}"
    );
    assert!(fake.runtimes()[&runtime]["runtimeScheduler"]["image"].is_string());

    // cf-runner's runner, under its own selector, with the same token and certificates.
    let out = cp
        .kubectl()
        .args(["-n", &ns, "get", "deployments", "-o", "json"])
        .output()
        .unwrap();
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["metadata"]["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"runner") && !names.contains(&"runner-adopting"),
        "{names:?}"
    );
    let runner = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["metadata"]["name"] == "runner")
        .unwrap();
    assert_eq!(
        runner["metadata"]["labels"]["app.kubernetes.io/managed-by"],
        json!("cf-runner")
    );
    assert!(
        runner["spec"]["selector"]["matchLabels"]
            .get("app")
            .is_none(),
        "{runner}"
    );
    assert_eq!(
        secret_text(cp, &ns, "runner", "codefresh.token"),
        AGENT_TOKEN
    );
    assert!(
        secret_text(cp, &ns, "codefresh-certs-server", "server-key.pem").contains("VENONA-KEY")
    );
    // The record names the runtime the agent serves (venonactl kept it elsewhere).
    let record = secret_text(cp, &ns, "cf-runner-values", "runtime-name");
    assert_eq!(record, runtime);

    // Twice is a no-op; then delete leaves nothing.
    let third = adopt(cp, home.path(), &args);
    assert_eq!(third.status.code(), Some(0), "{}", text(&third));
    assert!(
        text(&third).contains("nothing to adopt"),
        "{}",
        text(&third)
    );
    delete_leaves_nothing(cp, home.path(), &ns, &fake);
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn adopt_on_a_terminal_shows_the_changes_and_asks_and_no_changes_nothing() {
    use rexpect::process::WaitStatus;
    let cp = controlplane::shared();
    let ns = cp.create_namespace("adoptask").await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let fake = FakePlatform::start(USER_TOKEN);
    register_like_the_chart(&fake, &ns);
    install_chart_with(cp, &ns, home.path(), "");
    let mark = cp.audit_events().unwrap().len();
    fake.clear_requests();

    let url = fake.url();
    let mut cmd = Command::new(crate::support::cli::binary());
    cmd.args([
        "adopt",
        "--kube-namespace",
        &ns,
        "--token",
        fake.token(),
        "--url",
        &url,
    ])
    .current_dir(home.path())
    .env("KUBECONFIG", cp.admin_kubeconfig())
    .env("HOME", home.path())
    .env("NO_COLOR", "1")
    .env("TERM", "xterm")
    .env_remove("CF_API_KEY")
    .env_remove("CFCONFIG");
    let options = rexpect::reader::Options::new()
        .timeout_ms(Some(60_000))
        .strip_ansi_escape_codes(true);
    let mut session = rexpect::session::spawn_with_options(cmd, options).unwrap();
    // The changes to what it takes over, and to the platform's spec.
    let before = session.exp_string("Move the runner to cf-runner?").unwrap();
    assert!(
        before.contains("cf-runner's spec replaces the old installer's"),
        "{before}"
    );
    assert!(before.contains("~ "), "no diff shown: {before}");
    assert!(!before.contains(AGENT_TOKEN) && !before.contains(USER_TOKEN));
    session.send_line("n").unwrap();
    session.exp_string("Nothing was changed.").unwrap();
    session.exp_eof().unwrap();
    let status = session.process().wait().unwrap();
    assert!(matches!(status, WaitStatus::Exited(_, 0)), "{status:?}");
    assert_eq!(requests_since(cp, mark, &ns).1, Vec::<String>::new());
    assert!(
        fake.requests().iter().all(|r| r.method == "GET"),
        "only reads on the platform: {:?}",
        fake.calls()
    );
}

/// venonactl's layout of one agent with several runtimes: Secret
/// `runnerconf` with a `*.runtime.yaml` entry per runtime (unlabelled, as
/// venonactl's attach writes it), and an agent in a namespace of its own.
/// Adopt moves several runtimes (`e2e_adopt_runtimes`), but not one whose
/// namespace is gone (its builds could not run), nor an agent in a
/// namespace of its own whose namespace still holds a runtime's objects: it
/// refuses both before any write, naming what is in the way.
#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn adopt_refuses_an_agent_with_a_runtime_it_cannot_keep_serving() {
    let cp = controlplane::shared();
    let ns = cp.create_namespace("adoptvmulti").await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let fake = FakePlatform::start(USER_TOKEN);
    let agent = platform_call(
        &fake,
        "POST",
        "/api/agents",
        &json!({"name": "venona-agent"}),
    );
    let own = format!("venona-cluster/{ns}");
    let far = "venona-cluster/far-builds".to_string();
    for (name, in_ns) in [(&own, ns.as_str()), (&far, "far-builds")] {
        platform_call(
            &fake,
            "POST",
            "/api/custom_clusters/register",
            &json!({"clusterName": "venona-cluster", "namespace": in_ns, "runtimeEnvironmentName": name,
                    "storageClassName": format!("dind-local-volumes-runner-{in_ns}"), "agent": true}),
        );
    }
    let put_runtimes = |runtimes: Value| {
        platform_call(
            &fake,
            "PUT",
            &format!("/api/agent/{}", agent["id"].as_str().unwrap()),
            &json!({ "runtimes": runtimes }),
        )
    };
    put_runtimes(json!([own, far]));
    install_venonactl(cp, &ns);
    let file = |name: &str| {
        format!(
            "type: runtime\nname: {name}\nhost: https://kubernetes.default.svc\ntoken: venonactl-sa-token\ncrt: CA\n"
        )
    };
    let key = |name: &str| format!("{}.runtime.yaml", name.replace(['/', '@', ':'], "."));
    let runnerconf = |names: &[&String]| {
        let data: serde_json::Map<String, Value> =
            names.iter().map(|n| (key(n), json!(file(n)))).collect();
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "runnerconf"},
               "stringData": data})
    };
    apply(cp, &ns, &[runnerconf(&[&own, &far])]);

    let mark = cp.audit_events().unwrap().len();
    let args = move_args(&ns, &fake);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = adopt(cp, home.path(), &args);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(3), "{shown}");
    assert!(
        shown.contains(&far) && shown.contains("namespace far-builds, which does not exist"),
        "{shown}"
    );
    assert!(shown.contains("nothing was changed"), "{shown}");
    assert!(!shown.contains("venonactl-sa-token"), "{shown}");
    let (_, writes) = requests_since(cp, mark, &ns);
    let writes: Vec<String> = writes
        .into_iter()
        .filter(|w| !w.contains("/leases"))
        .collect();
    assert_eq!(writes, Vec::<String>::new());

    // A runtime whose namespace holds another installer's object under a
    // name cf-runner's runtime uses (the chart's engine ServiceAccount).
    let helm_ns = cp.create_namespace("adoptvmulti-helm").await.unwrap();
    let helm_rt = format!("venona-cluster/{helm_ns}");
    platform_call(
        &fake,
        "POST",
        "/api/custom_clusters/register",
        &json!({"clusterName": "venona-cluster", "namespace": helm_ns, "runtimeEnvironmentName": helm_rt,
                "storageClassName": format!("dind-local-volumes-runner-{helm_ns}"), "agent": true}),
    );
    put_runtimes(json!([own, helm_rt]));
    apply(
        cp,
        &helm_ns,
        &[json!({"apiVersion": "v1", "kind": "ServiceAccount",
                 "metadata": {"name": "codefresh-engine", "labels": {"helm.sh/chart": "cf-runtime-10.5.2"}}})],
    );
    let deleted = cp
        .kubectl()
        .args(["-n", &ns, "delete", "secret", "runnerconf"])
        .output()
        .unwrap();
    assert!(deleted.status.success(), "{}", text(&deleted));
    apply(cp, &ns, &[runnerconf(&[&own, &helm_rt])]);
    let mark = cp.audit_events().unwrap().len();
    let home3 = tempfile::tempdir().unwrap();
    let out = adopt(cp, home3.path(), &args);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(3), "{shown}");
    assert!(
        shown.contains("ServiceAccount/codefresh-engine") && shown.contains("another installer"),
        "{shown}"
    );
    for in_ns in [&ns, &helm_ns] {
        let (_, writes) = requests_since(cp, mark, in_ns);
        let writes: Vec<String> = writes
            .into_iter()
            .filter(|w| !w.contains("/leases"))
            .collect();
        assert_eq!(writes, Vec::<String>::new());
    }

    // An agent in a namespace of its own (its one runtime builds
    // elsewhere) whose namespace still holds venonactl's runtime objects:
    // builds may use them, and an agent alone would remove them.
    put_runtimes(json!([far]));
    let deleted = cp
        .kubectl()
        .args(["-n", &ns, "delete", "secret", "runnerconf"])
        .output()
        .unwrap();
    assert!(deleted.status.success(), "{}", text(&deleted));
    apply(cp, &ns, &[runnerconf(&[&far])]);
    let mark = cp.audit_events().unwrap().len();
    // A fresh home: the values file the first run saved is not read.
    let home2 = tempfile::tempdir().unwrap();
    let out = adopt(cp, home2.path(), &args);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(3), "{shown}");
    assert!(
        shown.contains("holds a runtime's objects") && shown.contains("Service/dind"),
        "{shown}"
    );
    let (_, writes) = requests_since(cp, mark, &ns);
    let writes: Vec<String> = writes
        .into_iter()
        .filter(|w| !w.contains("/leases"))
        .collect();
    assert_eq!(writes, Vec::<String>::new());
}
