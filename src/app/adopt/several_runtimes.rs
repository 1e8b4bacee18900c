//! What `adopt` of venonactl's agent cannot keep serving, refused before
//! any write (exit 3). Several runtimes in Secret `runnerconf` move
//! (`runtimes`); these do not:
//!
//! - an agent whose only `runnerconf` runtime is not the one its runner
//!   names (the two would disagree on what the agent serves);
//! - an agent whose runner runs in in-cluster mode (no `runnerconf`) with a
//!   runtime that builds in another namespace: the move would send that
//!   runtime's builds to the agent's namespace.
//!
//! An agent in a namespace of its own in config-dir mode (every runtime of
//! `runnerconf` builds elsewhere) moves to an agent installed alone
//! ([`as_agent_alone`]), unless its namespace still holds a runtime's
//! objects that no listed runtime explains.

use serde_json::Value;

use crate::app::adopt::objects::{in_namespace, kind, name};
use crate::app::session::outcome::Outcome;
use crate::output;
use crate::values::{self, agent_only, Input, Loaded, Problems, ValuesFile};

/// The namespace `spec` builds in, when it is not `namespace`.
pub(super) fn builds_elsewhere<'a>(namespace: &str, spec: &'a Value) -> Option<&'a str> {
    spec.pointer("/runtimeScheduler/cluster/namespace")
        .and_then(Value::as_str)
        .filter(|ns| *ns != namespace)
}

/// The move's values as an agent alone: `AgentOnly: true`, without the
/// keys that describe a runtime of the agent's namespace (it has none;
/// each is said).
pub(super) fn as_agent_alone(input: &Input, namespace: &str) -> Result<(Input, Loaded), Outcome> {
    let mut problems = Vec::new();
    let mut tree = values::merge_layers(input, &mut problems);
    if !problems.is_empty() {
        return Err(Outcome::BadInput(Problems(problems)));
    }
    if let Some(map) = tree.as_object_mut() {
        for key in agent_only::RUNTIME_ONLY_KEYS {
            if map.remove(*key).is_some() {
                output::note(&format!(
                    "{key} of the old install is left out: the agent in namespace {namespace} has no runtime of its own"
                ));
            }
        }
        map.insert("AgentOnly".into(), Value::Bool(true));
    }
    let input = Input {
        files: vec![ValuesFile {
            origin: format!("the install in namespace {namespace}"),
            text: serde_yaml_ng::to_string(&tree).expect("a tree serializes"),
        }],
        ..Input::default()
    };
    let loaded = values::load(&input)?;
    Ok((input, loaded))
}

/// Refuses (exit 3) an agent in a namespace of its own whose namespace
/// holds objects under a runtime's names (`runtime_names`, kind and name)
/// that another installer made: builds may still use them, and an agent
/// alone would remove them.
pub(super) fn refuse_runtime_objects_here(
    namespace: &str,
    objects: &[Value],
    runtime_names: &[(String, String)],
    ledger: &crate::cluster::ownership::Ledger,
) -> Result<(), Outcome> {
    let here: Vec<String> = objects
        .iter()
        .filter(|o| in_namespace(o, namespace))
        .filter(|o| {
            runtime_names
                .iter()
                .any(|(k, n)| k == kind(o) && n == name(o))
        })
        .filter(|o| !crate::cluster::ownership::is_ours(o, namespace, ledger))
        .map(|o| format!("{}/{}", kind(o), name(o)))
        .collect();
    if here.is_empty() {
        return Ok(());
    }
    output::error(
        &anyhow::anyhow!(
            "the agent in namespace {namespace} serves only runtimes that build elsewhere, yet its namespace holds a \
             runtime's objects ({}): builds may still use them, and adopting it as an agent alone would remove them",
            here.join(", ")
        ),
        Some(&format!(
            "attach the runtime of namespace {namespace} to the agent with the tool that installed it (or remove those \
             objects if nothing uses them), then re-run adopt; nothing was changed"
        )),
    );
    Err(Outcome::PreflightFailed)
}

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
    if let Some(ns) = builds_elsewhere(namespace, spec) {
        output::error(
            &anyhow::anyhow!(
                "the runtime environment {runtime} that agent {agent} in namespace {namespace} serves runs its \
                 builds in namespace {ns}: the agent has a namespace of its own, and adopt would move those \
                 builds into {namespace}"
            ),
            Some(&format!(
                "the runner names no runtime file (in-cluster mode), so it cannot move as an agent alone; nothing \
                 was changed. Adopt namespace {ns} if it holds a runner, or install one with `cf-runner init \
                 --agent-only` and attach {runtime} to it with `cf-runner runtime attach`"
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
