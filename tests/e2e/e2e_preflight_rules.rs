//! The preflight's permission check reads one SelfSubjectRulesReview per
//! namespace instead of one SelfSubjectAccessReview per permission, and
//! still finds what access reviews find:
//! - an admin's preflight of one namespace sends two rules reviews (the
//!   namespace, cluster scope) and no access review;
//! - everything granted in the namespace (cluster-admin by a RoleBinding) is
//!   still not a cluster-wide right: the cluster-scoped ones are named
//!   missing, as an access review names them;
//! - when a rules review is `incomplete` (here: a node's identity, which
//!   the Node authorizer does not list rules for), the preflight falls back
//!   to an access review per permission.

use crate::support;

use k8s_openapi::api::authorization::v1::SubjectAccessReview;
use k8s_openapi::api::rbac::v1::{ClusterRoleBinding, RoleBinding};
use kube::api::{Api, PostParams};
use support::cli::{example, run as cf_runner, text};
use support::controlplane::{self, ControlPlane};
use support::namespace::unique;

const CONTEXT: &str = "admin@cf-runner-test";

/// The preflight's requests by `user` since `since`, by resource.
fn requests_by(cp: &ControlPlane, user: &str, since: usize) -> Vec<String> {
    cp.audit_events()
        .unwrap()
        .into_iter()
        .skip(since)
        .filter(|e| e["stage"] == "ResponseComplete")
        .filter(|e| {
            e["user"]["username"] == user
                || e["impersonatedUser"]["username"].as_str() == Some(user)
        })
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

fn access_reviews(requests: &[String]) -> usize {
    requests
        .iter()
        .filter(|r| r.ends_with(" selfsubjectaccessreviews"))
        .count()
}

/// The admin's kubeconfig, impersonating `user`.
fn kubeconfig_as(cp: &ControlPlane, user: &str, dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join(format!("{user}.kubeconfig"));
    let admin = std::fs::read_to_string(cp.admin_kubeconfig()).unwrap();
    let mut config: serde_json::Value = serde_yaml_ng::from_str(&admin).unwrap();
    config["users"][0]["user"]["as"] = serde_json::Value::String(user.into());
    std::fs::write(&path, serde_yaml_ng::to_string(&config).unwrap()).unwrap();
    path
}

fn check(kubeconfig: &std::path::Path, ns: &str, extra: &[&str]) -> std::process::Output {
    let ex = example("local");
    let mut args = vec![
        "check",
        "--values",
        ex.to_str().unwrap(),
        "--kube-namespace",
        ns,
        "--kube-context-name",
        CONTEXT,
    ];
    args.extend_from_slice(extra);
    cf_runner(kubeconfig, &args)
}

async fn allowed(cp: &ControlPlane, user: &str, verb: &str, resource: &str, ns: &str) -> bool {
    let api: Api<SubjectAccessReview> = Api::all(cp.client());
    let review: SubjectAccessReview = serde_json::from_value(serde_json::json!({
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SubjectAccessReview",
        "spec": {"user": user, "groups": ["system:authenticated"],
                 "resourceAttributes": {"verb": verb, "resource": resource, "namespace": ns}}
    }))
    .unwrap();
    let answer = api.create(&PostParams::default(), &review).await.unwrap();
    answer.status.is_some_and(|s| s.allowed)
}

async fn wait_until_allowed(cp: &ControlPlane, user: &str, verb: &str, resource: &str, ns: &str) {
    controlplane::poll_until(
        &format!("{user} may {verb} {resource}"),
        std::time::Duration::from_secs(20),
        || async { Ok(allowed(cp, user, verb, resource, ns).await) },
    )
    .await
    .unwrap();
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn permissions_are_read_from_rules_reviews_with_what_access_reviews_find() {
    let cp = controlplane::shared();
    let dir = tempfile::tempdir().unwrap();

    // An admin (cluster-admin by a ClusterRoleBinding): every permission is
    // answered by the rules.
    let admin = unique("rulesadmin");
    Api::<ClusterRoleBinding>::all(cp.client())
        .create(
            &PostParams::default(),
            &serde_json::from_value(serde_json::json!({
                "metadata": {"name": admin},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
                "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": admin}]
            }))
            .unwrap(),
        )
        .await
        .unwrap();
    wait_until_allowed(cp, &admin, "create", "clusterroles", "").await;
    let kubeconfig = kubeconfig_as(cp, &admin, dir.path());
    let ns = unique("cfrules");
    let mark = cp.audit_events().unwrap().len();
    let out = check(&kubeconfig, &ns, &[]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(0), "{shown}");
    assert!(shown.contains("✓ permissions"), "{shown}");
    // Two rules reviews (the namespace, and cluster scope), no access
    // review: the ~124 reviews of before are gone.
    let requests = requests_by(cp, &admin, mark);
    println!(
        "admin's check: {} requests, {} access reviews",
        requests.len(),
        access_reviews(&requests)
    );
    assert_eq!(access_reviews(&requests), 0, "{requests:#?}");
    assert_eq!(
        requests
            .iter()
            .filter(|r| r.ends_with(" selfsubjectrulesreviews"))
            .count(),
        2,
        "{requests:#?}"
    );

    // cluster-admin in one namespace only: a rules review of that
    // namespace allows everything, yet nothing cluster-wide is held.
    let ns_admin = unique("rulesnsadmin");
    let ns = cp.create_namespace("cfrulesns").await.unwrap();
    Api::<RoleBinding>::namespaced(cp.client(), &ns)
        .create(
            &PostParams::default(),
            &serde_json::from_value(serde_json::json!({
                "metadata": {"name": ns_admin},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
                "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": ns_admin}]
            }))
            .unwrap(),
        )
        .await
        .unwrap();
    wait_until_allowed(cp, &ns_admin, "create", "roles", &ns).await;
    assert!(!allowed(cp, &ns_admin, "create", "clusterroles", "").await);
    let out = check(
        &kubeconfig_as(cp, &ns_admin, dir.path()),
        &ns,
        &["-o", "json"],
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let permissions = &report["checks"][1];
    assert_eq!(permissions["name"], "permissions");
    assert_eq!(permissions["status"], "fail", "{permissions:#}");
    let missing: Vec<&str> = permissions["details"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d.as_str())
        .collect();
    for cluster_wide in [
        "create clusterroles (rbac.authorization.k8s.io) cluster-wide",
        "create clusterrolebindings (rbac.authorization.k8s.io) cluster-wide",
        "create persistentvolumes cluster-wide (granted by ClusterRole/",
    ] {
        assert!(
            missing.iter().any(|m| m.starts_with(cluster_wide)),
            "{cluster_wide:?} not named in {missing:#?}"
        );
    }
    assert!(
        missing.iter().all(|m| m.contains("cluster-wide")),
        "a right held in the namespace was named missing: {missing:#?}"
    );

    // A node's identity: the Node authorizer cannot list what it allows a
    // node, so every rules review of this user is `incomplete`. The rules
    // are not trusted, each permission gets its access review, and the
    // check fails on what those say.
    let node = "system:node:kwok-node-0";
    let path = dir.path().join("node.kubeconfig");
    let admin = std::fs::read_to_string(cp.admin_kubeconfig()).unwrap();
    let mut config: serde_json::Value = serde_yaml_ng::from_str(&admin).unwrap();
    config["users"][0]["user"]["as"] = node.into();
    config["users"][0]["user"]["as-groups"] = serde_json::json!(["system:nodes"]);
    std::fs::write(&path, serde_yaml_ng::to_string(&config).unwrap()).unwrap();
    let ns = unique("cfrulesinc");
    let mark = cp.audit_events().unwrap().len();
    let out = check(&path, &ns, &[]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(3), "{shown}");
    assert!(shown.contains("✗ permissions"), "{shown}");
    assert!(
        shown.contains("create clusterroles (rbac.authorization.k8s.io) cluster-wide"),
        "{shown}"
    );
    let requests = requests_by(cp, node, mark);
    println!(
        "a node's check (rules incomplete): {} requests, {} access reviews",
        requests.len(),
        access_reviews(&requests)
    );
    assert!(
        access_reviews(&requests) > 50,
        "an incomplete rules review was trusted: {requests:#?}"
    );
}
