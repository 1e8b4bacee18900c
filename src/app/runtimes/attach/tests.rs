//! Unit tests of `app/runtimes/attach.rs`.

use super::*;
use crate::render::runtimes::AGENT_DEPLOYMENT;
use crate::render::Component;
use crate::render::Manifest;

fn write(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runtimes.yaml");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

#[test]
fn a_runtimes_file_names_the_key_of_each_problem() {
    let (_d, path) =
        write("Runtimes:\n  - Namespace: b\n    Context: c2\n  - Context: c3\n    Colour: red\n");
    let Problems(p) = read_runtimes_file(&path).unwrap_err();
    let keys: Vec<&str> = p.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ["Runtimes[1].Colour", "Runtimes[1].Namespace"]);
}

#[test]
fn a_runtimes_file_gives_each_runtime_its_cluster_and_namespace() {
    let (_d, path) = write(
        "Runtimes:\n  - Namespace: b\n  - Namespace: c\n    Context: other\n    Name: eu/c\n",
    );
    let t = read_runtimes_file(&path).unwrap();
    assert_eq!(t.len(), 2);
    assert_eq!(t[1].context.as_deref(), Some("other"));
    assert_eq!(t[1].name.as_deref(), Some("eu/c"));
    assert!(target_problems(&t[1]).is_empty());
}

/// venona reads NODE_TLS_REJECT_UNAUTHORIZED with viper's GetBool:
/// only Go's true spellings (and an empty value, the default) verify.
/// 9 cases.
#[test]
fn an_agent_that_does_not_verify_tls_is_told_by_its_env() {
    let with = |env: Value| Manifest {
        api_version: "apps/v1".into(),
        kind: "Deployment".into(),
        name: AGENT_DEPLOYMENT.into(),
        namespace: Some("a".into()),
        component: Component::Runner,
        stage: 1,
        object: serde_json::json!({"spec": {"template": {"spec": {"containers": [
            {"name": "runner", "env": env}]}}}}),
    };
    let env = |v: &str| serde_json::json!([{"name": "NODE_TLS_REJECT_UNAUTHORIZED", "value": v}]);
    for insecure in ["0", "false", "no", "off"] {
        let p = insecure_agent_problem(&with(env(insecure)), "a").expect(insecure);
        assert_eq!(p.key, "--accept-agent-insecure-tls");
    }
    let from_secret = serde_json::json!([{"name": "NODE_TLS_REJECT_UNAUTHORIZED",
        "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]);
    assert!(insecure_agent_problem(&with(from_secret), "a").is_some());
    for secure in ["1", "true", ""] {
        assert!(
            insecure_agent_problem(&with(env(secure)), "a").is_none(),
            "{secure}"
        );
    }
    assert!(insecure_agent_problem(&with(serde_json::json!([])), "a").is_none());
}

#[test]
fn a_bad_namespace_or_name_is_named_by_the_flag() {
    let t = Target {
        namespace: Some("Not_Valid".into()),
        name: Some("a b".into()),
        ..Target::default()
    };
    let keys: Vec<String> = target_problems(&t).into_iter().map(|p| p.key).collect();
    assert_eq!(keys, ["--kube-namespace", "--runtime-name"]);
}
