//! Unit tests of `app/adopt/runtimes.rs`.

use base64::Engine;
use serde_json::json;

use super::*;
use crate::app::adopt::runtimes::survey::{claim_class, file_facts, old_access, TOKEN_TYPE};

fn token_for(account: &str, secret: &str) -> String {
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let claims = json!({
        "kubernetes.io/serviceaccount/namespace": "far",
        "kubernetes.io/serviceaccount/service-account.name": account,
        "kubernetes.io/serviceaccount/secret.name": secret,
    });
    format!("e30.{}.c2ln", b64.encode(claims.to_string()))
}

#[test]
fn the_claim_s_class_is_read_from_the_map_and_the_list_form() {
    let map = json!({"dockerDaemonScheduler": {"pvcs": {"dind": {"storageClassName": "a"}}}});
    let list =
        json!({"dockerDaemonScheduler": {"pvcs": [{"name": "dind", "storageClassName": "b"}]}});
    assert_eq!(claim_class(&map).as_deref(), Some("a"));
    assert_eq!(claim_class(&list).as_deref(), Some("b"));
    assert_eq!(claim_class(&json!({})), None);
}

#[test]
fn a_file_tells_the_account_its_token_is_of_without_keeping_the_token() {
    let text = format!(
        "type: runtime\nname: c/far\nhost: https://kubernetes.default.svc\ntoken: {}\ncrt: CA\n",
        token_for("runner", "runner-token-abc")
    );
    let f = file_facts(&text);
    assert_eq!(f.name.as_deref(), Some("c/far"));
    assert_eq!(f.account.as_deref(), Some("runner"));
    assert_eq!(f.token_secret.as_deref(), Some("runner-token-abc"));
}

#[test]
fn the_old_access_is_the_token_s_account_and_what_binds_only_it() {
    let objects = [
        json!({"kind": "ServiceAccount", "metadata": {"name": "runner"}}),
        json!({"kind": "ServiceAccount", "metadata": {"name": "codefresh-engine"}}),
        json!({"kind": "Secret", "type": TOKEN_TYPE, "metadata": {"name": "runner-token-abc",
               "annotations": {"kubernetes.io/service-account.name": "runner"}}}),
        json!({"kind": "Secret", "type": TOKEN_TYPE, "metadata": {"name": "users-token",
               "annotations": {"kubernetes.io/service-account.name": "someone"}}}),
        json!({"kind": "RoleBinding", "metadata": {"name": "runner"},
               "roleRef": {"kind": "Role", "name": "runner"},
               "subjects": [{"kind": "ServiceAccount", "name": "runner"}]}),
        json!({"kind": "Role", "metadata": {"name": "runner"}}),
        // A Role someone else's binding uses too stays.
        json!({"kind": "RoleBinding", "metadata": {"name": "shared"},
               "roleRef": {"kind": "Role", "name": "shared"},
               "subjects": [{"kind": "ServiceAccount", "name": "runner"}, {"kind": "User", "name": "bob"}]}),
        json!({"kind": "RoleBinding", "metadata": {"name": "runner-too"},
               "roleRef": {"kind": "Role", "name": "shared"},
               "subjects": [{"kind": "ServiceAccount", "name": "runner"}]}),
        json!({"kind": "Role", "metadata": {"name": "shared"}}),
        // cf-runner's own are never in it.
        json!({"kind": "ServiceAccount", "metadata": {"name": "runner",
               "labels": {"app.kubernetes.io/managed-by": "cf-runner"}}}),
    ];
    let local: Vec<&Value> = objects.iter().collect();
    let got: Vec<String> = old_access(&local, Some("runner"), Some("runner-token-abc"))
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        got,
        [
            "Role/runner",
            "RoleBinding/runner",
            "RoleBinding/runner-too",
            "Secret/runner-token-abc",
            "ServiceAccount/runner"
        ]
    );
    assert!(old_access(&local, None, None).is_empty());
}

#[test]
fn an_account_something_else_runs_as_keeps_all_but_the_old_token() {
    let objects = [
        json!({"kind": "ServiceAccount", "metadata": {"name": "builder"}}),
        json!({"kind": "Secret", "type": TOKEN_TYPE, "metadata": {"name": "builder-token-x",
               "annotations": {"kubernetes.io/service-account.name": "builder"}}}),
        json!({"kind": "Secret", "type": TOKEN_TYPE, "metadata": {"name": "builder-token-own",
               "annotations": {"kubernetes.io/service-account.name": "builder"}}}),
        json!({"kind": "RoleBinding", "metadata": {"name": "builder"},
               "roleRef": {"kind": "Role", "name": "builder"},
               "subjects": [{"kind": "ServiceAccount", "name": "builder"}]}),
        json!({"kind": "Role", "metadata": {"name": "builder"}}),
        json!({"kind": "Deployment", "metadata": {"name": "users-app"},
               "spec": {"template": {"spec": {"serviceAccountName": "builder"}}}}),
        json!({"kind": "ServiceAccount", "metadata": {"name": "default"}}),
        json!({"kind": "Secret", "type": TOKEN_TYPE, "metadata": {"name": "default-token-y"}}),
    ];
    let local: Vec<&Value> = objects.iter().collect();
    let names = |got: Vec<ObjectRef>| got.iter().map(ToString::to_string).collect::<Vec<_>>();
    assert_eq!(
        names(old_access(&local, Some("builder"), Some("builder-token-x"))),
        ["Secret/builder-token-x"]
    );
    assert_eq!(
        names(old_access(&local, Some("default"), Some("default-token-y"))),
        ["Secret/default-token-y"]
    );
}
