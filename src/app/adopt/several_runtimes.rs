//! What `adopt` of venonactl's agent cannot keep serving, refused before
//! any write (exit 3). Several runtimes in Secret `runnerconf` move
//! (`runtimes`); these do not:
//!
//! - an agent whose only `runnerconf` runtime is not the one its runner
//!   names (the two would disagree on what the agent serves);
//! - an agent in a namespace of its own, whose runtime builds in another
//!   namespace: cf-runner's model always has a runtime in the agent's
//!   namespace, and the move would send that runtime's builds there.

use serde_json::Value;

use crate::app::Outcome;
use crate::output;

/// Refuses (exit 3) when `runnerconf` names more than one runtime, or
/// another runtime than `runtime` (the one the install names, if any).
/// Asks nothing of the platform: it runs before.
pub(super) fn refuse_several(
    namespace: &str,
    runtime: Option<&str>,
    runnerconf: &[String],
) -> Result<(), Outcome> {
    let others: Vec<&str> = runnerconf
        .iter()
        .map(String::as_str)
        .filter(|r| Some(*r) != runtime)
        .collect();
    if runnerconf.len() < 2 && (runtime.is_none() || others.is_empty()) {
        return Ok(());
    }
    output::error(
        &anyhow::anyhow!(
            "the agent in namespace {namespace} serves {} runtime(s) from Secret runnerconf ({}), and its runner \
             names runtime {}: adopt cannot tell which the agent serves, and the agent would drop the others' builds",
            runnerconf.len(),
            runnerconf.join(", "),
            runtime.unwrap_or("(none)")
        ),
        Some(&format!(
            "make Secret runnerconf and the runner name the same runtime of namespace {namespace} (or detach \
             the others with the tool that attached them), adopt, then attach each other one with \
             `cf-runner runtime attach --agent-namespace {namespace} --runtime-name <name> \
             --kube-namespace <its namespace>`; nothing was changed"
        )),
    );
    Err(Outcome::PreflightFailed)
}

/// Refuses (exit 3) when `runtime`'s builds run in another namespace than
/// `namespace` (as its spec on the platform says).
pub(super) fn refuse_elsewhere(
    namespace: &str,
    agent: &str,
    runtime: &str,
    spec: &Value,
) -> Result<(), Outcome> {
    let elsewhere = spec
        .pointer("/runtimeScheduler/cluster/namespace")
        .and_then(Value::as_str)
        .filter(|ns| *ns != namespace);
    if let Some(ns) = elsewhere {
        output::error(
            &anyhow::anyhow!(
                "the runtime environment {runtime} that agent {agent} in namespace {namespace} serves runs its \
                 builds in namespace {ns}: the agent has a namespace of its own, and adopt would move those \
                 builds into {namespace}"
            ),
            Some(&format!(
                "adopting an agent without a runtime in its own namespace is not supported yet; nothing was \
                 changed. Adopt namespace {ns} if it holds a runner, or install one with `cf-runner init` and \
                 attach {runtime} to it with `cf-runner runtime attach`"
            )),
        );
        return Err(Outcome::PreflightFailed);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_runtime_in_its_own_namespace_moves() {
        let spec = json!({"runtimeScheduler": {"cluster": {"namespace": "cf"}}});
        assert!(refuse_several("cf", Some("ctx/cf"), &["ctx/cf".into()]).is_ok());
        assert!(refuse_several("cf", None, &["ctx/cf".into()]).is_ok());
        assert!(refuse_several("cf", Some("ctx/cf"), &[]).is_ok());
        assert!(refuse_elsewhere("cf", "a", "ctx/cf", &spec).is_ok());
    }

    #[test]
    fn another_runtime_in_runnerconf_or_builds_elsewhere_refuse() {
        let two = ["ctx/cf".to_string(), "ctx/far".to_string()];
        assert!(matches!(
            refuse_several("cf", None, &two),
            Err(Outcome::PreflightFailed)
        ));
        assert!(matches!(
            refuse_several("cf", Some("ctx/cf"), &["ctx/far".into()]),
            Err(Outcome::PreflightFailed)
        ));
        let far = json!({"runtimeScheduler": {"cluster": {"namespace": "builds"}}});
        assert!(matches!(
            refuse_elsewhere("cf", "a", "ctx/far", &far),
            Err(Outcome::PreflightFailed)
        ));
    }
}
