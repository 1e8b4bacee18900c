//! `cf-runner renew agent-token`: the agent's Codefresh token replaced,
//! with audited platform calls only (`platform-contract-audit.md` rows 2-5
//! and the agent's own poll). The platform hands out an agent token only
//! when it creates the agent, and no client calls anything that mints a
//! second key for an agent or revokes one, so a rotation is a new agent:
//!
//! 1. the pending rotation is recorded on the installation record (old
//!    name and id, new name) before the platform is asked for anything;
//! 2. `POST /api/agents` creates `<name>-r<N>`, whose answer holds its token;
//! 3. `PUT /api/agent/{new}` gives it the old agent's runtimes (attached
//!    runtimes included);
//! 4. the runner Secret, the Deployment's `AGENT_ID` and the record are
//!    applied as `upgrade` renders them, and the rollout is waited for
//!    (a pod is added before one is removed; the fewest ready replicas seen
//!    are said);
//! 5. `PUT /api/agent/{old}` with no runtimes, then `DELETE /api/agent/{old}`;
//! 6. the record's pending rotation is removed;
//! 7. whether deleting the agent revoked its token is unknown: the deleted
//!    agent's own `GET /api/agent/{old}/tasks` is sent with the old token,
//!    and the answer says which.
//!
//! A run that stopped half-way leaves the pending rotation recorded: the
//! next run completes it rather than starting another. A new agent whose
//! token never reached the cluster is cf-runner's own (named in the
//! record), and is replaced.

pub(crate) mod pending;

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::app::identity::agent_token::pending::{
    check_pending, check_runtimes_moved, next_name, refused, refused_pending, rotate_command,
    Pending,
};
use crate::app::installation::standing;
use crate::app::session::converge;
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster::{rotation, runtimes as live, Cluster};
use crate::output;
use crate::platform::{Agent, Platform, TokenProbe};
use crate::render::runtimes::AGENT_DEPLOYMENT;
use crate::render::{self, RECORD_SECRET, RUNNER_SECRET};
use crate::values::Secret;

fn bug(what: String) -> Outcome {
    Outcome::Failed(
        anyhow::anyhow!(what),
        Some("a bug in cf-runner: please report it".into()),
    )
}

fn platform_failed(e: crate::platform::PlatformError, doing: &str, namespace: &str) -> Outcome {
    let outcome = Outcome::from_platform(e, doing);
    match outcome {
        Outcome::Failed(e, hint) => Outcome::Failed(
            e,
            Some(format!(
                "{}re-run `{}`: it finishes the rotation where it stopped",
                hint.map(|h| format!("{h}; then ")).unwrap_or_default(),
                rotate_command(namespace)
            )),
        ),
        other => other,
    }
}

/// The one agent named exactly `name`, if any.
async fn named(platform: &Platform, name: &str, namespace: &str) -> Result<Option<Agent>, Outcome> {
    platform
        .agents_named(name)
        .await
        .map(|list| list.into_iter().next())
        .map_err(|e| platform_failed(e, "reading the agents on the Codefresh platform", namespace))
}

/// Rotates the agent token of the install in `namespace`, under its lock:
/// a new agent takes over the old one's runtimes, the cluster switches to
/// its token, then the old agent goes. A run that stopped half-way is
/// finished, under the same name.
pub(crate) async fn rotate(
    cluster: &Cluster,
    namespace: &str,
    platform: &Platform,
    timeout: Duration,
) -> Result<(), Outcome> {
    // The install as `upgrade` would write it, from its record.
    let plan = standing::as_it_stands(cluster, namespace).await?;
    let held_token = plan
        .identity
        .agent_token
        .clone()
        .or_else(|| plan.loaded.values.agent_token.clone());
    let running = running_agent(cluster, namespace).await?;
    let (pending, mut old, resumed) = begin(cluster, namespace, platform, &plan, &running).await?;

    // The new agent, and its token.
    let switched = running == pending.to;
    let existing = named(platform, &pending.to, namespace).await?;
    check_runtimes_moved(
        &pending,
        old.as_ref(),
        existing.as_ref(),
        switched,
        namespace,
    )?;
    let (new_agent, new_token) = match (switched, existing, held_token.clone()) {
        // The cluster already runs the new agent, with its token.
        (true, Some(agent), Some(token)) => (agent, token),
        (_, existing, _) => new_agent(platform, &pending, existing, namespace).await?,
    };
    let wanted = give_runtimes(platform, &new_agent, old.as_ref(), &plan, namespace).await?;

    // The runner Secret, AGENT_ID and the record, then the rollout.
    let manifests = switch_manifests(cluster, namespace, &plan, &pending.to, &new_token).await?;
    converge::apply_with_progress(cluster, &manifests, namespace, false, "renew").await?;
    let deployment: Vec<render::Manifest> = manifests
        .iter()
        .filter(|m| m.kind == "Deployment")
        .cloned()
        .collect();
    roll(cluster, namespace, &deployment, timeout).await?;

    if let Some(agent) = old.take() {
        retire(platform, agent, namespace).await?;
    }
    rotation::set_pending(&cluster.client, namespace, RECORD_SECRET, None)
        .await
        .doing("clearing the finished rotation from the installation record failed")?;
    output::done(&format!(
        "the agent token of namespace {namespace} is rotated: agent {} replaced agent {}, with the same runtimes ({})",
        pending.to,
        pending.from,
        if wanted.is_empty() { "none".to_string() } else { wanted.join(", ") }
    ));
    say_revoked(platform, &pending, resumed, held_token).await;
    Ok(())
}

/// The agent the runner's Deployment runs: the only one rotated (the plan
/// checked the record against it; `verified`).
async fn running_agent(cluster: &Cluster, namespace: &str) -> Result<String, Outcome> {
    match crate::app::installation::verified::running_agent(cluster, namespace).await? {
        Some(running) => Ok(running),
        None => Err(refused(
            format!(
                "no runner Deployment in namespace {namespace} runs an agent: cf-runner rotates only the agent \
                 the Deployment runs, and the record alone does not show which that is; nothing was changed"
            ),
            format!("re-install the runner with `cf-runner upgrade --kube-namespace {namespace}`, then re-run `{}`", rotate_command(namespace)),
        )),
    }
}

/// The rotation to carry out: the one an earlier run recorded and did not
/// finish, else a new one, recorded before anything changes. Gives it, the
/// old agent as the platform has it, and whether it was resumed.
async fn begin(
    cluster: &Cluster,
    namespace: &str,
    platform: &Platform,
    plan: &standing::Standing,
    running: &str,
) -> Result<(Pending, Option<Agent>, bool), Outcome> {
    let recorded = rotation::pending(&cluster.client, namespace, RECORD_SECRET)
        .await
        .doing("reading the installation record failed")?;
    let pending = recorded
        .as_deref()
        .and_then(|t| serde_json::from_str::<Pending>(t).ok());
    match pending {
        Some(p) => {
            check_pending(&p, running, namespace)?;
            let old = resume(platform, &p, namespace).await?;
            Ok((p, old, true))
        }
        None => {
            let current = plan.identity.agent_name(&plan.loaded.values);
            let (p, old) = record_new(cluster, namespace, platform, &current).await?;
            Ok((p, Some(old), false))
        }
    }
}

/// The old agent of a rotation an earlier run stopped, checked against
/// the platform: its recorded id must still be its name.
async fn resume(
    platform: &Platform,
    p: &Pending,
    namespace: &str,
) -> Result<Option<Agent>, Outcome> {
    output::note(&format!(
        "an earlier run was replacing agent {} with agent {} and stopped: finishing that rotation",
        p.from, p.to
    ));
    let old = platform.agent(&p.from_id).await.map_err(|e| {
        platform_failed(
            e,
            "reading the old agent on the Codefresh platform",
            namespace,
        )
    })?;
    if let Some(o) = old.as_ref().filter(|o| o.name != p.from) {
        return Err(refused_pending(
            format!(
                "the recorded rotation names agent {} with id {}, but on the Codefresh platform that id is agent {}",
                p.from, p.from_id, o.name
            ),
            namespace,
        ));
    }
    Ok(old)
}

/// A new rotation of agent `current`: the next free name, recorded on the
/// installation record before anything changes.
async fn record_new(
    cluster: &Cluster,
    namespace: &str,
    platform: &Platform,
    current: &str,
) -> Result<(Pending, Agent), Outcome> {
    let Some(old) = named(platform, current, namespace).await? else {
        return Err(Outcome::Failed(
            anyhow::anyhow!(
                "the installation in namespace {namespace} runs agent {current}, which the Codefresh platform at {} does not know",
                platform.url()
            ),
            Some(format!(
                "check --url and --token (the account the runner was installed with); nothing was changed. \
                 To register the runner again, run `cf-runner init --kube-namespace {namespace}`"
            )),
        ));
    };
    let mut skip = 0;
    let to = loop {
        let candidate = next_name(current, skip);
        if named(platform, &candidate, namespace).await?.is_none() {
            break candidate;
        }
        skip += 1;
    };
    let p = Pending {
        from: current.to_string(),
        from_id: old.id.clone(),
        to,
    };
    let text = serde_json::to_string(&p).expect("a rotation serializes");
    rotation::set_pending(&cluster.client, namespace, RECORD_SECRET, Some(&text))
        .await
        .doing("recording the rotation on the installation record failed")?;
    output::applied(
        "recorded",
        &format!(
            "the rotation of agent {} to agent {} on Secret/{RECORD_SECRET}",
            p.from, p.to
        ),
        Some(namespace),
    );
    Ok((p, old))
}

/// Makes the new agent and gives its token, after deleting one an earlier
/// run made whose token never reached the cluster.
async fn new_agent(
    platform: &Platform,
    pending: &Pending,
    existing: Option<Agent>,
    namespace: &str,
) -> Result<(Agent, Secret), Outcome> {
    if let Some(orphan) = existing {
        // Made by the run that stopped, before its token reached
        // the cluster: nothing can use it.
        platform.delete_agent(&orphan.id).await.map_err(|e| {
            platform_failed(
                e,
                "removing the agent an earlier run left without a token",
                namespace,
            )
        })?;
        output::applied(
            "deleted",
            &format!("agent {} on the platform (an earlier run made it; its token never reached the cluster)", orphan.name),
            None,
        );
    }
    let created = platform.create_agent(&pending.to).await.map_err(|e| {
        platform_failed(
            e,
            "creating the new agent on the Codefresh platform",
            namespace,
        )
    })?;
    let Some(token) = created.token.clone().filter(|t| !t.is_empty()) else {
        return Err(Outcome::Failed(
            anyhow::anyhow!(
                "the Codefresh platform created agent {} without handing out its token",
                pending.to
            ),
            Some(format!(
                "nothing in the cluster was changed; re-run `{}`",
                rotate_command(namespace)
            )),
        ));
    };
    output::applied(
        "created",
        &format!("agent {} on the platform", created.name),
        None,
    );
    Ok((created, Secret::new(token)))
}

/// Gives the new agent the old one's runtimes, attached ones included
/// (with those a stopped run already moved: the old agent may have none
/// left). Gives the runtimes it serves.
async fn give_runtimes(
    platform: &Platform,
    new_agent: &Agent,
    old: Option<&Agent>,
    plan: &standing::Standing,
    namespace: &str,
) -> Result<Vec<String>, Outcome> {
    let wanted = sorted(
        old.iter()
            .flat_map(|o| o.runtimes.iter())
            .chain(new_agent.runtimes.iter())
            .cloned()
            .collect(),
    );
    // The old agent vanished before its runtimes moved (deleted by hand):
    // the install's own runtime at least, rather than an agent with none.
    // (An agent installed alone has no runtime of its own to give it.)
    let wanted = if old.is_none() && wanted.is_empty() && !plan.loaded.values.agent_only {
        vec![plan.identity.runtime_name(&plan.loaded.values)]
    } else {
        wanted
    };
    if sorted(new_agent.runtimes.clone()) != wanted {
        platform
            .update_agent(new_agent, &wanted)
            .await
            .map_err(|e| {
                platform_failed(
                    e,
                    "giving the new agent its runtimes on the Codefresh platform",
                    namespace,
                )
            })?;
        output::applied(
            "configured",
            &format!(
                "agent {}'s runtimes on the platform: {}",
                new_agent.name,
                wanted.join(", ")
            ),
            None,
        );
    }

    Ok(wanted)
}

/// The old agent: no runtimes, then gone.
async fn retire(platform: &Platform, agent: Agent, namespace: &str) -> Result<(), Outcome> {
    if !agent.runtimes.is_empty() {
        platform.update_agent(&agent, &[]).await.map_err(|e| {
            platform_failed(e, "detaching the runtimes from the old agent", namespace)
        })?;
        output::applied(
            "configured",
            &format!("agent {}: no runtimes", agent.name),
            None,
        );
    }
    platform.delete_agent(&agent.id).await.map_err(|e| {
        platform_failed(
            e,
            "deleting the old agent on the Codefresh platform",
            namespace,
        )
    })?;
    output::applied(
        "deleted",
        &format!("agent {} on the platform", agent.name),
        None,
    );
    Ok(())
}

/// Whether the old token is revoked: only the old token of this run is
/// known for sure.
async fn say_revoked(platform: &Platform, pending: &Pending, resumed: bool, held: Option<Secret>) {
    let revoke_step = format!(
        "revoke it by hand: in the Codefresh UI, click your avatar, select User Settings, and delete the key of agent {} under API Keys; \
         if it is not listed there, ask Codefresh support to revoke the keys of the deleted agent {}",
        pending.from, pending.from
    );
    match (resumed, held) {
        (false, Some(token)) => match platform.probe_agent_token(&pending.from, &token).await {
            TokenProbe::Refused(code) => output::done(&format!(
                "old token revoked: the platform refuses it (HTTP {code}) on agent {}'s own call, GET /api/agent/{{agent}}/tasks",
                pending.from
            )),
            TokenProbe::Accepted => output::warn(&format!(
                "the old token still works: deleting agent {} did not revoke it (the platform accepted it on GET /api/agent/{{agent}}/tasks); {revoke_step}",
                pending.from
            )),
            TokenProbe::Unclear(why) => output::warn(&format!(
                "could not tell whether the old token is revoked ({why}); {revoke_step}"
            )),
        },
        _ => output::warn(&format!(
            "could not check that the old token is revoked: the run that replaced it in the cluster stopped before it could; {revoke_step}"
        )),
    }
}

fn sorted(mut list: Vec<String>) -> Vec<String> {
    list.sort();
    list.dedup();
    list
}

/// The runner Secret, the agent's Deployment and the record, rendered as
/// `upgrade` renders them with the new agent's name and token.
async fn switch_manifests(
    cluster: &Cluster,
    namespace: &str,
    plan: &standing::Standing,
    to: &str,
    token: &Secret,
) -> Result<Vec<render::Manifest>, Outcome> {
    let mut identity = plan.identity.clone();
    identity.agent_name = Some(to.to_string());
    identity.agent_token = Some(token.clone());
    let mut record_tree = plan.record_tree.clone();
    if let Some(map) = record_tree.as_object_mut() {
        if map.contains_key("AgentId") {
            map.insert("AgentId".into(), Value::String(to.to_string()));
        }
    }
    let rendered = render::render(&plan.loaded.values, &identity, &record_tree)
        .map_err(Outcome::render_failed)?;
    let mut manifests: Vec<render::Manifest> = rendered
        .manifests
        .into_iter()
        .filter(|m| {
            (m.kind == "Secret" && (m.name == RUNNER_SECRET || m.name == RECORD_SECRET))
                || (m.kind == "Deployment" && m.name == AGENT_DEPLOYMENT)
        })
        .collect();
    if manifests.len() != 3 {
        return Err(bug(format!(
            "the render of namespace {namespace} lacks the runner Secret, Deployment or record"
        )));
    }
    // An agent serving attached runtimes stays in config-dir mode.
    crate::app::installation::attached::keep_attached(
        cluster,
        namespace,
        &mut manifests,
        &mut Vec::new(),
    )
    .await?;
    Ok(manifests)
}

/// Waits for the agent's rollout, watching its ready replicas; says the
/// fewest seen.
async fn roll(
    cluster: &Cluster,
    namespace: &str,
    deployment: &[render::Manifest],
    timeout: Duration,
) -> Result<(), Outcome> {
    let fewest = Arc::new(AtomicI32::new(i32::MAX));
    let watcher = {
        let fewest = fewest.clone();
        let client = cluster.client.clone();
        let ns = namespace.to_string();
        tokio::spawn(async move {
            loop {
                if let Ok(Some(n)) = live::ready_replicas(&client, &ns, AGENT_DEPLOYMENT).await {
                    fewest.fetch_min(n, Ordering::Relaxed);
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        })
    };
    let waited = converge::wait_with_progress(cluster, deployment, timeout, "renew").await;
    watcher.abort();
    waited?;
    let fewest = fewest.load(Ordering::Relaxed);
    if fewest != i32::MAX {
        output::note(&format!(
            "the agent (Deployment {AGENT_DEPLOYMENT} in namespace {namespace}) had at least {fewest} ready replica(s) throughout"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
