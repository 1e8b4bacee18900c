//! How many requests `cf-runner check` sends, and that the cheaper reads
//! still find every object in the way:
//! - into a namespace that does not exist, the check reads nothing in it
//!   (a fixed count of requests in all), yet still names a cluster-wide object
//!   someone else made under one of the install's names;
//! - in a namespace that exists, the objects of one kind are read by one
//!   metadata LIST, not a GET each, and an object someone else made under
//!   one of the install's names is named;
//! - a user who may get but not list that kind is read object by object
//!   and the same object is named.

use crate::support;

use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
use kube::api::{Api, PostParams};
use support::cli::text;
use support::controlplane::{self, ControlPlane};
use support::namespace::unique;

const CONTEXT: &str = "admin@cf-runner-test";

/// What a user's audit log shows of one `check` into a namespace that does
/// not exist (the local example's values); one of them, `GET /apis`,
/// asks whether the cluster is OpenShift.
const MISSING_NAMESPACE_REQUESTS: usize = 15;

/// cf-runner's requests since `since`: `verb resource` (or the URI when
/// there is no resource).
fn requests(cp: &ControlPlane, since: usize) -> Vec<String> {
    support::audit::answered_for(cp, since, "cf-runner")
        .into_iter()
        .map(|e| {
            format!(
                "{} {}",
                e["verb"].as_str().unwrap_or_default(),
                e["objectRef"]["resource"]
                    .as_str()
                    .or(e["requestURI"].as_str())
                    .unwrap_or_default()
            )
        })
        .collect()
}

fn count(requests: &[String], which: &str) -> usize {
    requests.iter().filter(|r| *r == which).count()
}

fn check_json(kubeconfig: &std::path::Path, ns: &str) -> (std::process::Output, serde_json::Value) {
    support::cli::check_json(kubeconfig, ns, CONTEXT)
}

/// The details of the existing-installation check.
fn in_the_way(report: &serde_json::Value) -> Vec<String> {
    let check = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "existing installation")
        .unwrap_or_else(|| panic!("no existing-installation check in {report:#}"));
    check["details"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d.as_str().map(String::from))
        .collect()
}

fn foreign_service_account(name: &str) -> ServiceAccount {
    serde_json::from_value(serde_json::json!({"metadata": {"name": name}})).unwrap()
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn check_reads_by_kind_and_nothing_in_a_missing_namespace_yet_finds_what_is_in_the_way() {
    let _alone = crate::alone().await;
    let cp = controlplane::shared();
    let admin = cp.admin_kubeconfig().to_path_buf();

    // A namespace that does not exist: at most 20 requests.
    let ns = unique("cfreqnew");
    let mark = cp.audit_events().unwrap().len();
    let (out, _) = check_json(&admin, &ns);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let sent = requests(cp, mark);
    println!("check into a new namespace: {} requests", sent.len());
    // The namespace's GET is the only request about it: its 404 says the
    // install, its dind certificate, its agent's files and its lock are
    // not there, so none of them is read.
    let inside: Vec<String> = support::audit::answered_for(cp, mark, "cf-runner")
        .into_iter()
        .filter_map(|e| e["requestURI"].as_str().map(String::from))
        .filter(|uri| uri.contains(&format!("/namespaces/{ns}/")))
        .collect();
    assert_eq!(inside, Vec::<String>::new());
    assert!(
        text(&out).contains(&format!("namespace {ns} does not exist")),
        "{}",
        text(&out)
    );
    assert_eq!(sent.len(), MISSING_NAMESPACE_REQUESTS, "{sent:#?}");

    // The same, with a ClusterRole someone else made under the install's
    // name for that namespace: named, though nothing namespaced was read.
    let ns = unique("cfreqcr");
    Api::<ClusterRole>::all(cp.client())
        .create(
            &PostParams::default(),
            &serde_json::from_value(serde_json::json!({
                "metadata": {"name": format!("volume-provisioner-{ns}")},
                "rules": []
            }))
            .unwrap(),
        )
        .await
        .unwrap();
    let (out, report) = check_json(&admin, &ns);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let named = in_the_way(&report);
    assert!(
        named.iter().any(|d| d.starts_with(&format!(
            "ClusterRole/volume-provisioner-{ns} (cluster-wide)"
        ))),
        "{named:#?}"
    );

    // A namespace that exists, with a ServiceAccount of the install's name
    // that someone else made: one LIST of ServiceAccounts, no GET of any.
    let ns = cp.create_namespace("cfreqns").await.unwrap();
    Api::<ServiceAccount>::namespaced(cp.client(), &ns)
        .create(&PostParams::default(), &foreign_service_account("runner"))
        .await
        .unwrap();
    let mark = cp.audit_events().unwrap().len();
    let (out, report) = check_json(&admin, &ns);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let named = in_the_way(&report);
    let runner = format!("ServiceAccount/runner in namespace {ns}: carries no cf-runner labels");
    assert!(named.iter().any(|d| d.starts_with(&runner)), "{named:#?}");
    let sent = requests(cp, mark);
    println!("check of an existing namespace: {} requests", sent.len());
    assert_eq!(count(&sent, "get serviceaccounts"), 0, "{sent:#?}");
    assert_eq!(count(&sent, "list serviceaccounts"), 1, "{sent:#?}");

    // A user who may get ServiceAccounts but not list them: each is read on
    // its own, and the same one is named.
    let user = unique("reqgetonly");
    let reads = |verbs: &[&str], groups: &[&str], resources: &[&str]| serde_json::json!({"apiGroups": groups, "resources": resources, "verbs": verbs});
    Api::<ClusterRole>::all(cp.client())
        .create(
            &PostParams::default(),
            &serde_json::from_value(serde_json::json!({
                "metadata": {"name": user},
                "rules": [
                    reads(&["get", "list"], &["", "apps", "rbac.authorization.k8s.io",
                        "storage.k8s.io", "coordination.k8s.io", "networking.k8s.io"],
                        &["namespaces", "nodes", "secrets", "configmaps", "services",
                          "deployments", "daemonsets", "roles", "rolebindings",
                          "clusterroles", "clusterrolebindings", "storageclasses",
                          "leases", "servicecidrs", "persistentvolumes"]),
                    reads(&["get"], &[""], &["serviceaccounts"]),
                ]
            }))
            .unwrap(),
        )
        .await
        .unwrap();
    Api::<ClusterRoleBinding>::all(cp.client())
        .create(
            &PostParams::default(),
            &serde_json::from_value(serde_json::json!({
                "metadata": {"name": user},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": user},
                "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}]
            }))
            .unwrap(),
        )
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("getonly.kubeconfig");
    let mut config: serde_json::Value =
        serde_yaml_ng::from_str(&std::fs::read_to_string(&admin).unwrap()).unwrap();
    config["users"][0]["user"]["as"] = serde_json::Value::String(user.clone());
    std::fs::write(&kubeconfig, serde_yaml_ng::to_string(&config).unwrap()).unwrap();
    controlplane::poll_until(
        &format!("{user} may get serviceaccounts"),
        std::time::Duration::from_secs(20),
        || async {
            let (_, report) = check_json(&kubeconfig, &ns);
            Ok(in_the_way(&report).iter().any(|d| d.starts_with(&runner)))
        },
    )
    .await
    .unwrap_or_else(|e| {
        let (out, report) = check_json(&kubeconfig, &ns);
        panic!("{e}: {report:#} {}", text(&out))
    });
}
