//! `runtime upgrade`: one attached runtime's objects rendered again from the
//! agent's values, and its spec on the platform kept in step, refusing to
//! drop the scheduling and storage it was attached with.

use std::time::Duration;

use serde_json::Value;

use crate::app::identity::register;
use crate::app::runtimes::life::{is_attached, named_problems, refuse_own};
use crate::app::runtimes::target::{self, AgentSide, Resolved, Target};
use crate::app::runtimes::{access, agent_side};
use crate::app::session::converge;
use crate::app::session::options::PlatformOptions;
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster::Cluster;
use crate::output;
use crate::platform::Platform;
use crate::values::{Problem, Problems};

/// Runs `cf-runner runtime upgrade`: the runtime's objects rendered again
/// from the agent's values (images, dind config), applied in its
/// namespace only. The agent, its files and the other runtimes are not
/// written. Its spec goes to the platform unless the platform registered it
/// for another place (see [`access::on_platform`]).
pub(crate) async fn upgrade_runtime(
    agent: AgentSide,
    target: Target,
    platform_args: &PlatformOptions,
    timeout: Duration,
) -> Outcome {
    let command = "runtime upgrade";
    let problems = named_problems(&target);
    if !problems.is_empty() {
        return Outcome::BadInput(Problems(problems));
    }
    let ns = agent.namespace.clone();
    agent_side::under_agent_lock(&agent, command, timeout, async |cluster: &Cluster| {
        let state = agent_side::read_agent(cluster.clone(), &ns, command).await?;
        let platform = agent_side::platform_client(platform_args, &state, command)?;
        let r = target::resolve(&state.cluster, &ns, &target).await?;
        target::refuse_key_clash(&state, &target, &r)?;
        refuse_own(
            &state,
            &r,
            "upgrade",
            format!("upgrade the agent and its own runtime with `cf-runner upgrade --kube-namespace {ns}`"),
        )?;
        if !is_attached(&state, &r) {
            output::error(
                &anyhow::anyhow!(
                    "runtime {} (namespace {}, context {}) is not attached to agent {} in namespace {ns}",
                    r.name,
                    r.namespace,
                    r.cluster.context,
                    state.agent_name
                ),
                Some(&format!(
                    "attach it first: `cf-runner runtime attach --agent-namespace {ns} --kube-namespace {}`",
                    r.namespace
                )),
            );
            return Err(Outcome::PreflightFailed);
        }
        // The platform's copy, read once: the guard and the send compare with it.
        let current = platform
            .runtime(&r.name)
            .await
            .doing("reading the runtime environment's spec")?;
        // A runtime environment registered for another place (another
        // cluster's name) keeps its spec, as `runtime attach` leaves it;
        // with settings of the runtime's own it is refused before any write.
        let fix = format!(
            "drop --set-value: cf-runner then upgrades the runtime's objects in namespace {} and leaves the spec of runtime environment {} as it is; or register it for namespace {} of cluster {} on the platform first",
            r.namespace, r.name, r.namespace, r.cluster.context
        );
        let found = access::on_platform(&r, current.as_ref(), &fix)?;
        let send = !matches!(found, target::OnPlatform::Elsewhere);
        let account_id = access::account_of(&platform, &state).await?;
        let render = access::runtime_objects(&state, &r, &platform, &account_id).await?;
        if let (true, Some(current)) = (send, &current) {
            keeps_own_scheduling(&r, &render.spec, current)?;
        }
        let report = converge::apply_with_progress(
            &r.cluster,
            &render.manifests,
            &r.namespace,
            false,
            command,
        )
        .await?;
        let counts: Vec<String> = report
            .counts()
            .into_iter()
            .map(|(word, n)| format!("{n} {word}"))
            .collect();
        if send {
            send_spec(&r, render.spec, current.as_ref(), &platform).await?;
        }
        output::done(&format!(
            "upgraded runtime {} in namespace {} of context {} from agent {}'s values ({}{}); the agent and its other runtimes were not touched",
            r.name,
            r.namespace,
            r.cluster.context,
            state.agent_name,
            counts.join(", "),
            if send { "" } else { "; its spec on the platform was left as it is" }
        ));
        Ok(())
    })
    .await
}

/// Sends runtime `r`'s spec (rendered from the agent's values for its
/// namespace and context, with the runtime's own settings) when the
/// platform's differs: the images and dind settings of its builds live
/// there, as `upgrade` of the agent keeps its own runtime's. A runtime
/// environment the platform does not hold is left to whoever registers it.
pub(crate) async fn send_spec(
    r: &Resolved,
    spec: Value,
    current: Option<&Value>,
    platform: &Platform,
) -> Result<(), Outcome> {
    let what = format!("runtime environment {} on the platform", r.name);
    let Some(current) = current else {
        output::warn(&format!(
            "{what} does not exist: its spec was not sent (register it, then re-run)"
        ));
        return Ok(());
    };
    let sent = register::put_spec(
        platform,
        &r.name,
        &spec,
        Some(current),
        "sending the runtime environment's spec",
    )
    .await?;
    output::applied(if sent { "configured" } else { "unchanged" }, &what, None);
    Ok(())
}

/// The runtime's own scheduling and storage (node selector, tolerations,
/// StorageClass) live only in its spec on the platform, given when it was
/// attached. An upgrade that does not give them again would silently drop
/// them: refused (exit 2), naming `--set-value`, before anything is written.
pub(crate) fn keeps_own_scheduling(
    r: &Resolved,
    spec: &Value,
    current: &Value,
) -> Result<(), Outcome> {
    let mut was = Vec::new();
    let mut now = Vec::new();
    scheduling_keys(current, "", &mut was);
    scheduling_keys(spec, "", &mut now);
    let lost: Vec<String> = was
        .iter()
        .filter(|(path, value)| now.iter().all(|(p, v)| p != path || v != value))
        .map(|(path, _)| path.clone())
        .collect();
    if lost.is_empty() {
        return Ok(());
    }
    Err(Outcome::BadInput(Problems(vec![Problem::new(
        "--set-value",
        None,
        format!(
            "runtime {} has settings of its own on the platform ({}) that this upgrade would replace with the agent's",
            r.name,
            lost.join(", ")
        ),
        "give the runtime's own settings again with --set-value (NodeSelector, Tolerations, Storage...), as at attach, or re-run `cf-runner runtime attach -f <runtimes file>`",
    )])))
}

/// Every `nodeSelector`, `tolerations` and `storageClassName` in `v`, by path.
pub(crate) fn scheduling_keys(v: &Value, path: &str, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                let here = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                if matches!(
                    k.as_str(),
                    "nodeSelector" | "tolerations" | "storageClassName"
                ) {
                    let empty = child.is_null()
                        || child.as_object().is_some_and(|m| m.is_empty())
                        || child.as_array().is_some_and(|a| a.is_empty());
                    if !empty {
                        out.push((here.clone(), child.clone()));
                    }
                }
                scheduling_keys(child, &here, out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                // A named item by its name: the chart and venonactl register
                // `pvcs` as a map by name, cf-runner as a list of named items.
                let here = match child["name"].as_str() {
                    Some(name) => format!("{path}.{name}"),
                    None => format!("{path}[{i}]"),
                };
                scheduling_keys(child, &here, out);
            }
        }
        _ => {}
    }
}
