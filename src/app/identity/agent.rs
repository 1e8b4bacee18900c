//! Finding or creating the agent and the runtime environment on the
//! platform, reusing what an earlier run made.

use serde_json::Value;

use crate::app::identity::register;
use crate::app::identity::registrar::Registrar;
use crate::app::installation::LeftBehind;
use crate::app::session::outcome::{Doing, Outcome};
use crate::output;
use crate::platform::{self, Agent, PlatformError};
use crate::values::{self, Problem, Problems, Secret};

/// Candidate names: the wanted one, then `_1`, `_2`, … (as the old wizard
/// did on a clash), each cut before its suffix so that none is longer than
/// the platform allows.
pub(crate) fn candidates(wanted: &str) -> impl Iterator<Item = String> + '_ {
    let cut = move |max: usize| wanted.chars().take(max).collect::<String>();
    std::iter::once(cut(platform::MAX_NAME_LEN)).chain((1..20).map(move |n| {
        let suffix = format!("_{n}");
        format!("{}{suffix}", cut(platform::MAX_NAME_LEN - suffix.len()))
    }))
}

/// The agent `--agent-token` belongs to, found as the old CLI does: the
/// key's subject (`GET /api/auth/key/{keyId}`), then `GET /api/agent/{ref}`.
/// A `--name` for another agent is refused. `Ok(None)` when the platform
/// does not let this API key look the token up (the agent is then found by
/// name, with a warning).
pub(crate) async fn agent_of_token(
    platform: &impl Registrar,
    values: &values::Values,
) -> Result<Option<Agent>, Outcome> {
    let Some(token) = &values.agent_token else {
        return Ok(None);
    };
    let bad = |why: String, fix: &str| {
        Outcome::BadInput(Problems(vec![Problem::new(
            "AgentToken",
            None,
            why,
            fix.to_string(),
        )]))
    };
    let subject = match platform.key_subject(token).await {
        Ok(Some(s)) => s,
        Ok(None) => {
            return Err(bad(
                "is not a token the Codefresh platform knows (--agent-token)".into(),
                "pass the token the platform issued when the agent was created, or drop --agent-token to create an agent",
            ))
        }
        Err(PlatformError::Forbidden { .. }) => {
            output::warn(
                "the API key may not look up whom --agent-token belongs to (403 on GET /api/auth/key): \
                 the agent is found by its name instead, which does not prove the token is its own",
            );
            return Ok(None);
        }
        Err(e) => return Err(Outcome::from_platform(e, "finding the agent --agent-token belongs to")),
    };
    if subject.kind != "agent" {
        return Err(bad(
            format!(
                "belongs to a {} (not to an agent): it cannot be a runner's token (--agent-token)",
                if subject.kind.is_empty() {
                    "subject of unknown type"
                } else {
                    subject.kind.as_str()
                }
            ),
            "pass the agent token the platform issued when the agent was created, not an API key",
        ));
    }
    let agent = match platform.agent(&subject.reference).await {
        Ok(Some(a)) => a,
        Ok(None) => {
            return Err(bad(
                "belongs to an agent the platform no longer has (--agent-token)".into(),
                "drop --agent-token to create a new agent",
            ))
        }
        Err(e) => {
            return Err(Outcome::from_platform(
                e,
                "reading the agent --agent-token belongs to",
            ))
        }
    };
    if let Some(name) = &values.agent_name {
        if *name != agent.name {
            return Err(Outcome::BadInput(Problems(vec![Problem::new(
                "AgentId",
                Some(&Value::String(name.clone())),
                format!(
                    "(--name) differs from the agent --agent-token belongs to, {}: the runner would poll as one agent with another's token",
                    agent.name
                ),
                format!("pass --name {} or leave --name out", agent.name),
            )])));
        }
    }
    Ok(Some(agent))
}

/// Where the agent of this install came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AgentSource {
    /// `--agent-token`, whose agent the platform confirmed.
    VerifiedToken,
    /// `--agent-token`, its agent found by name.
    GivenToken,
    /// The agent and token an earlier run of this install saved.
    EarlierInstall,
    /// Created by this run.
    Created,
}

impl AgentSource {
    /// How the progress line says it.
    pub(crate) fn word(self) -> &'static str {
        match self {
            AgentSource::VerifiedToken => "reused (--agent-token, verified)",
            AgentSource::GivenToken => "reused (--agent-token)",
            AgentSource::EarlierInstall => "reused from the earlier install",
            AgentSource::Created => "created",
        }
    }
}

/// Where the runtime environment of this install came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RuntimeSource {
    /// The one an earlier run of this install recorded.
    EarlierInstall,
    /// One already registered for this cluster and namespace.
    Reused,
    /// Registered by this run.
    Registered,
}

impl RuntimeSource {
    /// How the progress line says it.
    pub(crate) fn word(self) -> &'static str {
        match self {
            RuntimeSource::EarlierInstall => "reused from the earlier install",
            RuntimeSource::Reused => "reused",
            RuntimeSource::Registered => "registered",
        }
    }
}

/// The agent to use and its token: the earlier run's, the one named by
/// `--agent-token`'s `AgentId`, or a new one.
pub(crate) async fn ensure_agent(
    platform: &impl Registrar,
    values: &values::Values,
    wanted: &str,
    context: &str,
    left: &LeftBehind,
    verified: Option<Agent>,
) -> Result<(Agent, Secret, AgentSource), Outcome> {
    let doing = "looking up the agent on the platform";
    if let (Some(token), Some(agent)) = (&values.agent_token, verified) {
        return Ok((agent, token.clone(), AgentSource::VerifiedToken));
    }
    if let Some(token) = &values.agent_token {
        let name = values
            .agent_name
            .clone()
            .unwrap_or_else(|| wanted.to_string());
        let agents = platform.agents_named(&name).await.doing(doing)?;
        return match agents.into_iter().next() {
            Some(agent) => Ok((agent, token.clone(), AgentSource::GivenToken)),
            None => Err(Outcome::BadInput(Problems(vec![Problem::new(
                "AgentId",
                Some(&Value::String(name)),
                "names no agent on the platform, but --agent-token is for an existing agent",
                "pass --name with the agent's name, or drop --agent-token to create an agent",
            )]))),
        };
    }
    if let (Some(name), Some(token)) = (&left.agent_name, &left.agent_token) {
        let agents = platform.agents_named(name).await.doing(doing)?;
        if let Some(agent) = agents.into_iter().next() {
            return Ok((agent, token.clone(), AgentSource::EarlierInstall));
        }
    }
    let Some(name) = agent_name_for_install(platform, values, wanted, context, left).await? else {
        return Err(Outcome::failed(
            anyhow::anyhow!("agent names {wanted} and {wanted}_1…_19 are all taken"),
            Some("pass --name with a free agent name".into()),
        ));
    };
    let agent = platform
        .create_agent(&name)
        .await
        .doing("creating the agent")?;
    let token = agent.token.clone().map(Secret::new).ok_or_else(|| {
        Outcome::failed(
            anyhow::anyhow!("the platform created agent {name} but sent no token"),
            Some("delete the agent in Codefresh and re-run".into()),
        )
    })?;
    Ok((agent, token, AgentSource::Created))
}

/// The name of this install's new agent: the first of the [`candidates`]
/// for `wanted` that names no agent, skipping agents of other installs.
/// An agent that the platform lists with this install's runtime
/// environment is this install's, and is never doubled: without its token
/// (the cluster lost it) the run stops, naming it.
async fn agent_name_for_install(
    platform: &impl Registrar,
    values: &values::Values,
    wanted: &str,
    context: &str,
    left: &LeftBehind,
) -> Result<Option<String>, Outcome> {
    let doing = "looking up agent names";
    for name in candidates(wanted) {
        let agents = platform.agents_named(&name).await.doing(doing)?;
        let Some(agent) = agents.into_iter().next() else {
            return Ok(Some(name));
        };
        if let Some(runtime) = serves_this_install(platform, values, context, &agent, left).await? {
            return Err(Outcome::failed(
                anyhow::anyhow!(
                    "agent {name} on the Codefresh platform serves runtime environment {runtime} of this install, \
                     but its token is not in namespace {}: a second agent would leave one of the two serving builds nobody runs",
                    values.namespace
                ),
                Some(format!(
                    "pass --agent-token with agent {name}'s token, or remove agent {name} in Codefresh \
                     (Account settings → Runners) and re-run `cf-runner init`"
                )),
            ));
        }
    }
    Ok(None)
}

/// The runtime environment of this install that `agent` serves, if any:
/// the recorded one, or one registered for this cluster and namespace.
async fn serves_this_install(
    platform: &impl Registrar,
    values: &values::Values,
    context: &str,
    agent: &Agent,
    left: &LeftBehind,
) -> Result<Option<String>, Outcome> {
    for runtime in &agent.runtimes {
        if left.runtime_name.as_ref() == Some(runtime) {
            return Ok(Some(runtime.clone()));
        }
        let found = platform
            .runtime(runtime)
            .await
            .doing("looking up the agent's runtime environments")?;
        let here = found.as_ref().is_some_and(|re| {
            re.pointer("/runtimeScheduler/cluster/namespace")
                .and_then(Value::as_str)
                == Some(values.namespace.as_str())
                && re
                    .pointer("/runtimeScheduler/cluster/clusterProvider/selector")
                    .and_then(Value::as_str)
                    == Some(context)
        });
        if here {
            return Ok(Some(runtime.clone()));
        }
    }
    Ok(None)
}

/// The first of the [`candidates`] for `wanted` that names no agent on the
/// platform, looked up in order; `None` when all are taken. `doing` says
/// what the run was doing if a look-up fails.
pub(crate) async fn free_agent_name(
    platform: &impl Registrar,
    wanted: &str,
    doing: &str,
) -> Result<Option<String>, Outcome> {
    for name in candidates(wanted) {
        let agents = platform.agents_named(&name).await.doing(doing)?;
        if agents.is_empty() {
            return Ok(Some(name));
        }
    }
    Ok(None)
}

/// The runtime environment: the earlier run's, one already registered for
/// this cluster and namespace, or a newly registered one.
pub(crate) async fn ensure_runtime(
    platform: &impl Registrar,
    values: &values::Values,
    context: &str,
    wanted: &str,
    left: &LeftBehind,
) -> Result<(String, RuntimeSource), Outcome> {
    let doing = "looking up the runtime environment";
    let ours = |re: &Value| register::runs_in(re, &values.namespace, context);
    if let Some(name) = &left.runtime_name {
        if platform.runtime(name).await.doing(doing)?.is_some() {
            return Ok((name.clone(), RuntimeSource::EarlierInstall));
        }
    }
    for name in candidates(wanted) {
        match platform.runtime(&name).await.doing(doing)? {
            Some(re) if ours(&re) => return Ok((name, RuntimeSource::Reused)),
            Some(_) => continue,
            None => {
                let request = register::registration(values, context, &name);
                platform
                    .register_runtime(&request)
                    .await
                    .doing("registering the runtime environment")?;
                return Ok((name, RuntimeSource::Registered));
            }
        }
    }
    Err(Outcome::failed(
        anyhow::anyhow!("runtime environment names {wanted} and {wanted}_1…_19 are all taken"),
        Some("pass --set-value RuntimeEnvironmentName=<a free name>".into()),
    ))
}
