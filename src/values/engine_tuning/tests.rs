//! What `engine_tuning` takes and what it refuses, by key.

use super::*;
use serde_json::json;

fn read(values: Value) -> (EngineTuning, Vec<String>, String) {
    let mut r = Reader::new(&values);
    let t = resolve(&mut r);
    let text = r
        .problems
        .iter()
        .map(|p| format!("{p:?}"))
        .collect::<Vec<_>>()
        .join("\n");
    (t, r.problems.into_iter().map(|p| p.key).collect(), text)
}

#[test]
fn every_setting_is_taken_when_well_formed() {
    let (t, problems, _) = read(json!({"Runtime": {
    "ReuseVolumeSortOrder": "pipeline_id",
    "Dind": {"Image": "mirror.example.com/codefresh/dind:3.0.25", "TerminationGracePeriodSeconds": 60},
    "Engine": {
        "Image": "codefresh/engine:3.3.13@sha256:ff57",
        "resources": {"limits": {"memory": "4Gi"}},
        "TerminationGracePeriodSeconds": "300",
        "RuntimeImages": {"GIT_CLONE_IMAGE": "mirror.example.com/cf-git-cloner:10.3.13"},
        "UserEnvVars": [
            {"name": "GIT_SSL_NO_VERIFY", "value": "false"},
            {"name": "GITHUB_TOKEN", "valueFrom": {"secretKeyRef": {"name": "github", "key": "token"}}},
        ]}}}));
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        (t.engine_grace_seconds, t.dind_grace_seconds),
        (Some(300), Some(60))
    );
    assert_eq!(t.engine_resources.limits["memory"], "4Gi");
    assert_eq!(t.runtime_images.len(), 1);
    assert_eq!(t.user_env_vars.len(), 2);
}

#[test]
fn each_mistake_names_its_key() {
    let (_, problems, _) = read(json!({"Runtime": {
        "ReuseVolumeSortOrder": "by age",
        "Dind": {"Image": "codefresh/dind:latest", "TerminationGracePeriodSeconds": 0},
        "Engine": {
            "Image": "codefresh/engine@sha256:ff57",
            "TerminationGracePeriodSeconds": "three minutes",
            "RuntimeImages": {"GIT_CLONER": "x/y:1"},
            "UserEnvVars": [{"name": "COMPOSE_IMAGE", "value": "x"}]}}}));
    assert_eq!(
        problems,
        [
            "Runtime.Engine.Image",
            "Runtime.Dind.Image",
            "Runtime.Engine.RuntimeImages.GIT_CLONER",
            "Runtime.Engine.TerminationGracePeriodSeconds",
            "Runtime.Dind.TerminationGracePeriodSeconds",
            "Runtime.Engine.UserEnvVars[0] (COMPOSE_IMAGE)",
            "Runtime.ReuseVolumeSortOrder",
        ]
    );
}

/// A credential written as plain text would sit in clear in the spec the
/// platform stores: refused, and the refusal does not repeat it.
#[test]
fn a_plain_text_credential_is_refused_without_being_shown() {
    let (t, problems, text) = read(json!({"Runtime": {"Engine": {"UserEnvVars": [
        {"name": "NPM_TOKEN", "value": "npm_s3cr3tvalue"}]}}}));
    assert_eq!(problems, ["Runtime.Engine.UserEnvVars[0] (NPM_TOKEN)"]);
    assert!(text.contains("secretKeyRef"), "{text}");
    assert!(!text.contains("s3cr3t"), "{text}");
    assert!(t.user_env_vars.is_empty());
}

#[test]
fn cf_runners_own_secret_is_not_a_source() {
    let (_, problems, _) = read(json!({"Runtime": {"Engine": {"UserEnvVars": [
        {"name": "AGENT", "valueFrom": {"secretKeyRef": {"name": "runner", "key": "codefresh.token"}}}]}}}));
    assert_eq!(problems, ["Runtime.Engine.UserEnvVars[0] (AGENT)"]);
}

/// Laid over the chart's default request of 128Mi, a 64Mi limit would make
/// a pod Kubernetes refuses at every build.
#[test]
fn a_limit_below_the_default_request_is_refused() {
    let (_, problems, _) = read(json!({"Runtime": {"Engine": {
        "resources": {"limits": {"memory": "64Mi"}, "requests": {"cpu": "2"}}}}}));
    assert_eq!(
        problems,
        [
            "Runtime.Engine.resources.limits.memory",
            "Runtime.Engine.resources.requests.cpu",
        ]
    );
}
