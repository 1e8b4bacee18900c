//! Unit tests of the apply: what counts as unchanged, conflict messages,
//! the order objects wait in, the applied hash.

use super::order::needs_peers_first;
use super::*;
use serde_json::json;

#[test]
fn unchanged_ignores_server_defaults_and_normalized_quantities() {
    let live = json!({"spec": {"replicas": 1, "x": "default", "resources": {"limits": {"cpu": "1"}}}, "status": {}});
    let want = json!({"spec": {"replicas": 1, "resources": {"limits": {"cpu": "1000m"}}, "nodeSelector": {}}});
    assert!(first_difference(&live, &want).is_none());
    let want = json!({"spec": {"replicas": 2}});
    assert!(first_difference(&live, &want).is_some());
    let want = json!({"spec": {"tolerations": [{"key": "a"}]}});
    assert!(first_difference(&live, &want).is_some());
}

#[test]
fn conflicts_are_parsed_with_field_and_owner() {
    let one = r#"Apply failed with 1 conflict: conflict with "kubectl-edit" using apps/v1: .spec.replicas"#;
    assert_eq!(
        parse_conflicts(one),
        vec![(".spec.replicas".to_string(), "kubectl-edit".to_string())]
    );
    let many =
        "Apply failed with 2 conflicts: conflicts with \"helm\" using v1:\n- .data.a\n- .data.b";
    assert_eq!(
        parse_conflicts(many),
        vec![
            (".data.a".to_string(), "helm".to_string()),
            (".data.b".to_string(), "helm".to_string())
        ]
    );
}

#[test]
fn bindings_and_token_secrets_wait_for_their_peers() {
    let m = |kind: &str, object: Value| Manifest {
        api_version: "v1".into(),
        kind: kind.into(),
        name: "x".into(),
        namespace: Some("ns".into()),
        component: crate::render::Component::Runner,
        stage: 1,
        object,
    };
    assert!(needs_peers_first(&m("RoleBinding", json!({}))));
    assert!(needs_peers_first(&m(
        "Secret",
        json!({"type": "kubernetes.io/service-account-token"})
    )));
    assert!(!needs_peers_first(&m("Secret", json!({"type": "Opaque"}))));
    assert!(!needs_peers_first(&m("ServiceAccount", json!({}))));
}

#[test]
fn each_object_waits_only_for_what_it_needs() {
    let m = |kind: &str, name: &str, stage: u8, object: Value| Manifest {
        api_version: "v1".into(),
        kind: kind.into(),
        name: name.into(),
        namespace: (!matches!(kind, "Namespace" | "ClusterRole" | "ClusterRoleBinding"))
            .then(|| "ns".to_string()),
        component: crate::render::Component::Runner,
        stage,
        object,
    };
    let all = [
        m("Namespace", "ns", 0, json!({})),
        m("ServiceAccount", "runner", 1, json!({})),
        m("Role", "runner", 1, json!({})),
        m("ClusterRole", "runner-ns", 1, json!({})),
        m(
            "RoleBinding",
            "runner",
            1,
            json!({"roleRef": {"kind": "Role", "name": "runner"}}),
        ),
        m(
            "ClusterRoleBinding",
            "runner-ns",
            1,
            json!({"roleRef": {"kind": "ClusterRole", "name": "runner-ns"}}),
        ),
        m(
            "Secret",
            "runner-token",
            1,
            json!({"type": "kubernetes.io/service-account-token",
                   "metadata": {"annotations": {"kubernetes.io/service-account.name": "runner"}}}),
        ),
        m("ConfigMap", "config", 1, json!({})),
        m("Deployment", "runner", 2, json!({})),
    ];
    let refs: Vec<&Manifest> = all.iter().collect();
    let no_bind = |_: &Manifest| false;
    // The namespace exists (init's lock made it): nothing waits for it.
    let deps = dependencies(&refs, true, &no_bind);
    assert!(deps[0].is_empty() && deps[1].is_empty() && deps[7].is_empty());
    assert_eq!(deps[4], [2], "the RoleBinding waits for its Role only");
    assert_eq!(
        deps[5],
        [3],
        "the ClusterRoleBinding waits for its ClusterRole"
    );
    assert_eq!(
        deps[6],
        [1],
        "the token Secret waits for its ServiceAccount"
    );
    assert_eq!(
        deps[8],
        [0, 1, 2, 3, 4, 5, 7],
        "the Deployment waits for everything of the earlier stages but the token Secret"
    );
    // A namespace still to make: what goes into it waits for it.
    let deps = dependencies(&refs, false, &no_bind);
    assert_eq!(deps[7], [0]);
    assert_eq!(deps[4], [0, 2]);
    assert!(deps[3].is_empty(), "a ClusterRole waits for no namespace");
    // A user who may bind roles: bindings go with their roles.
    let deps = dependencies(&refs, true, &|m: &Manifest| role_scope(m).is_some());
    assert!(deps[4].is_empty() && deps[5].is_empty());
    assert_eq!(
        deps[6],
        [1],
        "the token Secret still waits for its ServiceAccount"
    );
}

#[test]
fn the_hash_is_stable_and_sensitive() {
    let a = json!({"a": 1, "b": [1, 2]});
    assert_eq!(applied_hash(&a), applied_hash(&a.clone()));
    assert_ne!(
        applied_hash(&a),
        applied_hash(&json!({"a": 1, "b": [2, 1]}))
    );
}
