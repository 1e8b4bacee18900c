//! The agent's side of every runtime operation (attach, detach, a
//! runtime's delete, upgrade and rotation, `delete --all-runtimes`): its
//! install as it stands, its lock, its client on the platform, its files
//! and their rollout, and the runtimes the platform says it serves.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::app::identity::register;
use crate::app::installation::standing;
use crate::app::runtimes::target::{AgentSide, AgentState, Resolved};
use crate::app::session::connect::{connect_with, ContextFrom};
use crate::app::session::converge;
use crate::app::session::lock::{self, LockWait};
use crate::app::session::options::PlatformOptions;
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster::{runtimes as live, Cluster};
use crate::output;
use crate::platform::{Agent, Platform};
use crate::render::runtimes::{
    config_dir_mode, config_manifest, file_runtime_name, AGENT_DEPLOYMENT, CONFIG_SECRET,
};

pub(crate) async fn read_agent(
    cluster: Cluster,
    namespace: &str,
    command: &str,
) -> Result<AgentState, Outcome> {
    let plan = standing::as_it_stands(&cluster, namespace).await?;
    let agent_only = plan.loaded.values.agent_only;
    let registered = if agent_only {
        plan.identity.registered
    } else {
        plan.runtime_name.is_some()
    };
    if !registered {
        return Err(Outcome::Failed(
            anyhow::anyhow!(
                "the agent in namespace {namespace} is not registered on the Codefresh platform (an offline install)"
            ),
            Some(format!(
                "`cf-runner {command}` sets the agent's runtimes on the platform: re-install the agent with `cf-runner init` online first"
            )),
        ));
    }
    let values = &plan.loaded.values;
    let deployment = plan
        .rendered
        .manifests
        .iter()
        .find(|m| m.kind == "Deployment" && m.name == AGENT_DEPLOYMENT)
        .cloned()
        .ok_or_else(|| {
            Outcome::Failed(
                anyhow::anyhow!("the render of namespace {namespace} holds no agent Deployment"),
                None,
            )
        })?;
    let files = match live::read_config(&cluster.client, namespace, CONFIG_SECRET).await {
        Ok(Some(c)) if c.ours => c.files,
        Ok(Some(_)) => {
            output::error(
                &anyhow::anyhow!(
                    "Secret {CONFIG_SECRET} in namespace {namespace} exists and is not cf-runner's"
                ),
                Some(
                    "it may be venonactl's: move that install with `cf-runner adopt` first, or remove the Secret if nothing uses it",
                ),
            );
            return Err(Outcome::PreflightFailed);
        }
        Ok(None) => BTreeMap::new(),
        Err(e) => {
            return Err(Outcome::from_cluster(
                e,
                "reading the agent's runtimes failed",
            ))
        }
    };
    Ok(AgentState {
        agent_name: plan.identity.agent_name(values),
        own_runtime: (!agent_only).then(|| plan.identity.runtime_name(values)),
        codefresh_host: values.codefresh_host.clone(),
        deployment,
        files,
        namespace: namespace.to_string(),
        cluster,
        values: plan.loaded.values.clone(),
        identity: plan.identity.clone(),
        record_tree: plan.record_tree.clone(),
    })
}

/// Connects to the agent's cluster and runs `steps` under the agent's lock.
pub(crate) async fn under_agent_lock<F>(
    agent: &AgentSide,
    command: &str,
    timeout: Duration,
    steps: F,
) -> Outcome
where
    F: AsyncFnOnce(&Cluster) -> Result<(), Outcome>,
{
    let cluster = match connect_with(&agent.connect, ContextFrom::Flags).await {
        Ok(c) => c,
        Err(o) => return o,
    };
    let ns = &agent.namespace;
    let held = match lock::take(&cluster, ns, command, LockWait::of(false, timeout), None).await {
        Ok(h) => h,
        Err(o) => return o,
    };
    let outcome = match steps(&cluster).await {
        Ok(()) => Outcome::Ok,
        Err(o) => o,
    };
    lock::release(held, ns).await;
    outcome
}

pub(crate) fn platform_client(
    args: &PlatformOptions,
    state: &AgentState,
    command: &str,
) -> Result<Platform, Outcome> {
    let auth = register::resolve(
        args,
        Some(crate::platform::auth::NamedUrl {
            url: &state.codefresh_host,
            origin: register::RECORDED_HOST,
        }),
    )
    .doing("finding the Codefresh API token")?
    .ok_or_else(|| {
        register::token_needed(
            command,
            "set the agent's runtimes on the Codefresh platform",
            "",
        )
    })?;
    register::client(&auth, args)
}

/// The agent named `name` on the platform, if it is there (a `delete`
/// re-run after the platform was cleaned finds none).
pub(crate) async fn agent_if_there(
    platform: &Platform,
    name: &str,
) -> Result<Option<Agent>, Outcome> {
    let list = platform
        .agents_named(name)
        .await
        .doing("reading the agent on the Codefresh platform")?;
    Ok(list.into_iter().find(|a| a.name == name))
}

/// The agent named `name` on the platform; its absence is a failure.
pub(crate) async fn agent_on_platform(platform: &Platform, name: &str) -> Result<Agent, Outcome> {
    agent_if_there(platform, name).await?.ok_or_else(|| {
        Outcome::Failed(
            anyhow::anyhow!("the Codefresh platform has no agent named {name}"),
            Some("re-install the agent with `cf-runner init` to register it again".into()),
        )
    })
}

/// Writes the files (0 writes when unchanged), then rolls the agent to
/// them and waits for the rollout, saying the fewest ready replicas seen.
pub(crate) async fn roll_agent(
    state: &AgentState,
    files: &BTreeMap<String, String>,
    timeout: Duration,
    command: &str,
) -> Result<(), Outcome> {
    let config = config_manifest(&state.namespace, files);
    let mut deployment = state.deployment.clone();
    config_dir_mode(&mut deployment, files);
    converge::apply_with_progress(
        &state.cluster,
        &[config, deployment.clone()],
        &state.namespace,
        false,
        command,
    )
    .await?;
    let fewest = Arc::new(AtomicI32::new(i32::MAX));
    let watcher = {
        let fewest = fewest.clone();
        let client = state.cluster.client.clone();
        let ns = state.namespace.clone();
        tokio::spawn(async move {
            loop {
                if let Ok(Some(n)) = live::ready_replicas(&client, &ns, AGENT_DEPLOYMENT).await {
                    fewest.fetch_min(n, Ordering::Relaxed);
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        })
    };
    let waited = converge::wait_with_progress(
        &state.cluster,
        std::slice::from_ref(&deployment),
        timeout,
        command,
    )
    .await;
    watcher.abort();
    waited?;
    let fewest = fewest.load(Ordering::Relaxed);
    if files.is_empty() {
        output::note(&format!(
            "the agent (Deployment {AGENT_DEPLOYMENT} in namespace {}) now runs no replica: it serves no runtime, and venona does not start without one; the next `cf-runner runtime attach` starts it",
            state.namespace
        ));
    } else if state.files.is_empty() && state.own_runtime.is_none() {
        output::note(&format!(
            "the agent (Deployment {AGENT_DEPLOYMENT} in namespace {}) starts with its first runtime: without one it ran no replica",
            state.namespace
        ));
    } else if fewest != i32::MAX {
        output::note(&format!(
            "the agent (Deployment {AGENT_DEPLOYMENT} in namespace {}) had at least {fewest} ready replica(s) throughout",
            state.namespace
        ));
    }
    Ok(())
}

pub(crate) async fn set_platform_runtimes(
    platform: &Platform,
    agent: &Agent,
    wanted: Vec<String>,
) -> Result<(), Outcome> {
    let mut have = agent.runtimes.clone();
    have.sort();
    let mut sorted = wanted.clone();
    sorted.sort();
    sorted.dedup();
    if have == sorted {
        output::applied(
            "unchanged",
            &format!("agent {}'s runtimes on the platform", agent.name),
            None,
        );
        return Ok(());
    }
    platform
        .update_agent(agent, &sorted)
        .await
        .doing("setting the agent's runtimes on the Codefresh platform")?;
    output::applied(
        "configured",
        &format!(
            "agent {}'s runtimes on the platform: {}",
            agent.name,
            sorted.join(", ")
        ),
        None,
    );
    Ok(())
}

/// Takes runtime `r` off the agent's list on the platform (when `on_platform`
/// is given) and off its runtimes file, and rolls the agent to the files
/// left. Returns the runtimes the agent still lists on the platform.
pub(crate) async fn stop_serving(
    state: &AgentState,
    r: &Resolved,
    on_platform: Option<(&Platform, &Agent)>,
    timeout: Duration,
    command: &str,
) -> Result<Vec<String>, Outcome> {
    let mut serves = Vec::new();
    if let Some((platform, agent)) = on_platform {
        serves = agent
            .runtimes
            .iter()
            .filter(|n| **n != r.name)
            .cloned()
            .collect();
        set_platform_runtimes(platform, agent, serves.clone()).await?;
    }
    let mut files = state.files.clone();
    // By key, and by the name a file holds (a key written by another rule);
    // never a key whose file names another runtime (`team.x` is not
    // `team/x`, though both map to one key).
    files.retain(|k, text| {
        let named = file_runtime_name(text);
        let other = named.as_deref().is_some_and(|n| n != r.name);
        (*k != r.key || other) && named.as_deref() != Some(&r.name)
    });
    // An agent installed alone rolls to no file at all when its last
    // runtime goes: it then runs no replica (venona does not start
    // without a runtime) until the next attach.
    if !files.is_empty() || state.own_runtime.is_none() {
        roll_agent(state, &files, timeout, command).await?;
    }
    Ok(serves)
}
