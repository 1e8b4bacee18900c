//! Removing what an install registered on the platform: the agent (and any
//! stray agents that racing runs left under the install's name pattern), the
//! runtime environment, and the cluster integration no runtime uses any more.
//! Anything already gone is fine, so a removal can run again.

use serde_json::Value;

use crate::app::identity::agent::candidates;
use crate::output;
use crate::platform::{Platform, PlatformError};

/// Agents the platform lists with this install's runtime whose names
/// follow the install's pattern (`<context>_<namespace>` or the recorded
/// agent's name, then `_1` … `_19`), besides the recorded agent: left by
/// runs that raced before the install had a lock, each one holds a
/// runtime that no runner serves. Sorted by name.
pub(crate) async fn stray_agents(
    platform: &Platform,
    recorded_agent: Option<&str>,
    runtime: Option<&str>,
    context: &str,
    namespace: &str,
) -> Result<Vec<String>, PlatformError> {
    let Some(runtime) = runtime else {
        return Ok(Vec::new());
    };
    let default = format!("{context}_{namespace}");
    let mut pattern: Vec<String> = candidates(&default).collect();
    if let Some(name) = recorded_agent {
        pattern.extend(candidates(name));
    }
    let mut found: Vec<String> = platform
        .agents()
        .await?
        .into_iter()
        .filter(|a| Some(a.name.as_str()) != recorded_agent)
        .filter(|a| pattern.contains(&a.name))
        .filter(|a| a.runtimes.iter().any(|r| r == runtime))
        .map(|a| a.name)
        .collect();
    found.sort();
    found.dedup();
    Ok(found)
}

/// Removes what `init` registered: detaches and deletes the runtime
/// environment, deletes each agent (the recorded one, and `strays` of
/// [`stray_agents`]) when it has no other runtime, and the cluster
/// integration of `context` when no runtime uses that cluster any more.
/// Anything already gone is fine, so it can run again.
pub(crate) async fn clean_up(
    platform: &Platform,
    agent: Option<&str>,
    strays: &[String],
    runtime: Option<&str>,
    context: &str,
) -> Result<(), PlatformError> {
    let mut remaining_runtimes = Vec::new();
    let names = agent
        .map(str::to_string)
        .into_iter()
        .chain(strays.iter().cloned());
    for agent_name in names {
        let agent_name = agent_name.as_str();
        for a in platform.agents_named(agent_name).await? {
            let keep: Vec<String> = a
                .runtimes
                .iter()
                .filter(|r| Some(r.as_str()) != runtime)
                .cloned()
                .collect();
            if keep.len() != a.runtimes.len() {
                platform.update_agent(&a, &keep).await?;
            }
            if keep.is_empty() {
                platform.delete_agent(&a.id).await?;
                output::removed(&format!("agent {agent_name}"), None);
            } else {
                output::note(&format!(
                    "agent {agent_name} stays: it still serves {}",
                    keep.join(", ")
                ));
            }
            remaining_runtimes.extend(keep);
        }
    }
    if let Some(name) = runtime {
        platform.delete_runtime(name).await?;
        output::removed(&format!("runtime environment {name}"), None);
    }
    let uses_context = |re: &Value| {
        re.pointer("/runtimeScheduler/cluster/clusterProvider/selector")
            .and_then(Value::as_str)
            == Some(context)
    };
    let still_used =
        platform.runtimes().await?.iter().any(uses_context) || !remaining_runtimes.is_empty();
    if !still_used {
        for c in platform.clusters().await? {
            if c.get("selector").and_then(Value::as_str) == Some(context) {
                let id = c
                    .get("_id")
                    .or(c.get("id"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let provider = c.get("provider").and_then(Value::as_str).unwrap_or("local");
                platform.delete_cluster_integration(provider, id).await?;
                output::removed(&format!("cluster integration {context}"), None);
            }
        }
    }
    Ok(())
}
