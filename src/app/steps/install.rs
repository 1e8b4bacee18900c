//! `init` into a cluster: the order of every step of an install.
//!
//! With a Codefresh API token: validate it → connect → preflight → agent →
//! dind key and CSR, signed by the platform → runtime environment → apply
//! → attach the runtime to the agent → runtime spec → default → cluster
//! integration → demo pipeline → wait. Each step first looks at what an
//! earlier run left (in the cluster and on the platform) and reuses it, so a
//! failed install re-runs to completion without creating anything twice and
//! without a local state file.
//!
//! With only `--agent-token` (no API token anywhere): offline, the platform
//! is not contacted, and the run says so.

use std::time::Duration;

use serde_json::{json, Value};

use super::installation::{left_behind, LeftBehind};
use super::session::{connect, runtime};
use super::{converge, identity, preflight, register};
use crate::app::Outcome;
use crate::cluster::{self, apply, secrets};
use crate::output;
use crate::platform::{
    self, certs, Agent, Auth, Need, Platform, PlatformError, RegisterRuntime, Transport,
};
use crate::render::{self, Identity, Manifest};
use crate::values::{self, Problem, Problems, Secret};

/// How an install runs, decided once by `init` from its flags.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// `--force-conflicts`: take over fields another manager owns.
    pub force_conflicts: bool,
    /// How long to wait for the workloads; `None` with `--no-wait`.
    pub wait: Option<Duration>,
    /// How the platform is reached (`--insecure`, `--allow-http`).
    pub transport: Transport,
}

/// Whether the install registers on the platform, and with which token.
#[derive(Debug)]
pub(crate) enum Registration {
    /// With a Codefresh API token: everything is registered.
    Platform(Auth),
    /// Only `--agent-token`: the platform is not contacted.
    Offline,
}

/// Where the platform token for `init` may come from, besides `CF_API_KEY`
/// and the cfconfig.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TokenPlaces<'a> {
    /// True when `--token` was given (its value is the values' `Token`).
    pub flag_given: bool,
    /// `--url`, else `CodefreshHost` when a values file or `--set-value` set it.
    pub explicit_url: Option<&'a str>,
}

/// Resolves the platform token the way an install does; no token is bad
/// input, unless an agent token allows an offline install.
pub(crate) fn registration(
    places: TokenPlaces<'_>,
    values: &values::Values,
) -> Result<Registration, Outcome> {
    let (flag, in_values) = if places.flag_given {
        (values.token.as_ref(), None)
    } else {
        (None, values.token.as_ref())
    };
    let found = register::find_token(register::TokenFrom {
        flag,
        values: in_values,
        url: places.explicit_url,
    })
    .map_err(|e| register::failed(e, "finding the Codefresh API token"))?;
    match found {
        Some(auth) => Ok(Registration::Platform(auth)),
        None if values.agent_token.is_some() => Ok(Registration::Offline),
        None => Err(Outcome::BadInput(Problems(vec![Problem::new(
            "Token",
            None,
            format!(
                "is required to register the runner on the Codefresh platform (none in --token, CF_API_KEY or {})",
                platform::auth::cfconfig_path().display()
            ),
            format!(
                "pass --token with an API key that has the scopes {}, or set CF_API_KEY",
                Need::describe(&needs(values))
            ),
        )]))),
    }
}

/// The scopes a run with these options will use.
pub(crate) fn needs(values: &values::Values) -> Vec<Need> {
    let mut needs = vec![Need::Agents, Need::RuntimeEnvironments];
    if !values.skip_cluster_integration {
        needs.push(Need::Clusters);
    }
    if values.exec_demo_pipeline {
        needs.extend([Need::Projects, Need::Pipelines]);
    }
    needs
}

/// Runs the install.
pub(crate) fn run(
    options: &Options,
    registration: &Registration,
    loaded: &values::Loaded,
) -> Outcome {
    runtime().block_on(async {
        match registration {
            Registration::Platform(auth) => with_platform(options, loaded, auth).await,
            Registration::Offline => offline(options, loaded).await,
        }
    })
}

/// For `--generate-helm-values-file` without `--dry-run`: the account id and
/// free agent and runtime names, from the platform (nothing is created).
pub(crate) fn helm_identity(
    registration: &Registration,
    transport: Transport,
    values: &values::Values,
    mut identity: Identity,
) -> Result<Identity, Outcome> {
    let Registration::Platform(auth) = registration else {
        return Err(Outcome::BadInput(Problems(vec![Problem::new(
            "Token",
            None,
            "is required to fill the Helm values from the platform",
            "pass --token or set CF_API_KEY, or add --dry-run to leave the account id for you to fill",
        )])));
    };
    runtime().block_on(async {
        let (platform, who) = register::checked_client(auth, transport, None).await?;
        identity.account_id = who.account_id;
        let wanted = identity.agent_name(values);
        for name in candidates(&wanted) {
            let agents = platform
                .agents_named(&name)
                .await
                .map_err(|e| register::failed(e, "looking up agent names"))?;
            if agents.is_empty() {
                identity.agent_name = Some(name);
                break;
            }
        }
        let wanted: String = identity.runtime_name(values).chars().take(63).collect();
        for name in candidates(&wanted) {
            let existing = platform
                .runtime(&name)
                .await
                .map_err(|e| register::failed(e, "looking up runtime environment names"))?;
            if existing.is_none() {
                identity.runtime_name = Some(name);
                break;
            }
        }
        Ok(identity)
    })
}

fn failed(err: impl Into<anyhow::Error>, hint: Option<String>) -> Outcome {
    Outcome::Failed(err.into(), hint)
}

fn render_or_fail(
    values: &values::Values,
    identity: &Identity,
    record: &Value,
) -> Result<render::Rendered, Outcome> {
    render::render(values, identity, record).map_err(|e| {
        failed(
            anyhow::Error::new(e).context("rendering failed (a bug in cf-runner)"),
            Some("please report it with the values file (secrets removed)".into()),
        )
    })
}

/// Connects and says where the runner goes.
async fn connect_and_announce(values: &values::Values) -> Result<cluster::Cluster, Outcome> {
    let cluster = connect(values).await?;
    output::say(&format!(
        "Installing the Codefresh Runner into namespace {} of context {} ({})",
        values.namespace, cluster.context, cluster.server
    ));
    Ok(cluster)
}

/// The preflight against what `identity` renders, unless `SkipClusterTest`.
async fn preflight(
    cluster: &cluster::Cluster,
    values: &values::Values,
    identity: &Identity,
    record: &Value,
) -> Result<(), Outcome> {
    if values.skip_cluster_test {
        return Ok(());
    }
    let prelim = render_or_fail(values, identity, record)?;
    preflight::gate_install(
        cluster,
        &prelim.manifests,
        &prelim.runtime_environment,
        &values.namespace,
    )
    .await
}

async fn offline(options: &Options, loaded: &values::Loaded) -> Outcome {
    match offline_steps(options, loaded).await {
        Ok(()) => Outcome::Ok,
        Err(outcome) => outcome,
    }
}

async fn offline_steps(options: &Options, loaded: &values::Loaded) -> Result<(), Outcome> {
    let values = &loaded.values;
    let cluster = connect_and_announce(values).await?;
    output::warn(
        "offline mode (no Codefresh API token, only --agent-token): the platform is not contacted; \
         the dind TLS Secret holds placeholders and the runtime environment is not registered",
    );
    output::warn(&format!(
        "the agent name {} and runtime environment name {} were NOT verified: without an API key cf-runner \
         cannot check that --agent-token belongs to that agent, nor that the runtime is attached to it \
         (pass --token to verify)",
        values.agent_name.clone().unwrap_or_else(|| format!("{}_{}", cluster.context, values.namespace)),
        values.runtime_name.clone().unwrap_or_else(|| format!("{}/{}", cluster.context, values.namespace)),
    ));
    let identity = identity::seed(values, Some(cluster.context.clone()));
    let rendered = render_or_fail(values, &identity, &loaded.redacted_tree)?;
    if !values.skip_cluster_test {
        preflight::gate_install(
            &cluster,
            &rendered.manifests,
            &rendered.runtime_environment,
            &values.namespace,
        )
        .await?;
    }
    converge::apply_with_progress(
        &cluster,
        &rendered.manifests,
        &values.namespace,
        options.force_conflicts,
        "install",
    )
    .await?;
    wait_for_install(&cluster, &rendered.manifests, &values.namespace, options).await
}

/// What finding or creating the agent and the runtime environment asks of
/// the platform: a seam, so the order of those steps is tested against a
/// fake. The real one is [`Platform`].
pub(crate) trait Registrar {
    async fn agents_named(&self, name: &str) -> Result<Vec<Agent>, PlatformError>;
    async fn create_agent(&self, name: &str) -> Result<Agent, PlatformError>;
    async fn runtime(&self, name: &str) -> Result<Option<Value>, PlatformError>;
    async fn register_runtime(&self, request: &RegisterRuntime) -> Result<(), PlatformError>;
}

impl Registrar for Platform {
    async fn agents_named(&self, name: &str) -> Result<Vec<Agent>, PlatformError> {
        Platform::agents_named(self, name).await
    }
    async fn create_agent(&self, name: &str) -> Result<Agent, PlatformError> {
        Platform::create_agent(self, name).await
    }
    async fn runtime(&self, name: &str) -> Result<Option<Value>, PlatformError> {
        Platform::runtime(self, name).await
    }
    async fn register_runtime(&self, request: &RegisterRuntime) -> Result<(), PlatformError> {
        Platform::register_runtime(self, request).await
    }
}

/// Candidate names: the wanted one, then `_1`, `_2`, … (as the old wizard
/// did on a clash), each cut before its suffix so that none is longer than
/// the platform allows.
fn candidates(wanted: &str) -> impl Iterator<Item = String> + '_ {
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
async fn agent_of_token(
    platform: &Platform,
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
        Err(e) => return Err(register::failed(e, "finding the agent --agent-token belongs to")),
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
            return Err(register::failed(
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
enum AgentSource {
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
    fn word(self) -> &'static str {
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
enum RuntimeSource {
    /// The one an earlier run of this install recorded.
    EarlierInstall,
    /// One already registered for this cluster and namespace.
    Reused,
    /// Registered by this run.
    Registered,
}

impl RuntimeSource {
    /// How the progress line says it.
    fn word(self) -> &'static str {
        match self {
            RuntimeSource::EarlierInstall => "reused from the earlier install",
            RuntimeSource::Reused => "reused",
            RuntimeSource::Registered => "registered",
        }
    }
}

/// The agent to use and its token: the earlier run's, the one named by
/// `--agent-token`'s `AgentId`, or a new one.
async fn ensure_agent(
    platform: &impl Registrar,
    values: &values::Values,
    wanted: &str,
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
        let agents = platform
            .agents_named(&name)
            .await
            .map_err(|e| register::failed(e, doing))?;
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
        let agents = platform
            .agents_named(name)
            .await
            .map_err(|e| register::failed(e, doing))?;
        if let Some(agent) = agents.into_iter().next() {
            return Ok((agent, token.clone(), AgentSource::EarlierInstall));
        }
    }
    for name in candidates(wanted) {
        let agents = platform
            .agents_named(&name)
            .await
            .map_err(|e| register::failed(e, doing))?;
        if agents.is_empty() {
            let agent = platform
                .create_agent(&name)
                .await
                .map_err(|e| register::failed(e, "creating the agent"))?;
            let token = agent.token.clone().map(Secret::new).ok_or_else(|| {
                failed(
                    anyhow::anyhow!("the platform created agent {name} but sent no token"),
                    Some("delete the agent in Codefresh and re-run".into()),
                )
            })?;
            return Ok((agent, token, AgentSource::Created));
        }
    }
    Err(failed(
        anyhow::anyhow!("agent names {wanted} and {wanted}_1…_19 are all taken"),
        Some("pass --name with a free agent name".into()),
    ))
}

/// The runtime environment: the earlier run's, one already registered for
/// this cluster and namespace, or a newly registered one.
async fn ensure_runtime(
    platform: &impl Registrar,
    values: &values::Values,
    context: &str,
    wanted: &str,
    left: &LeftBehind,
) -> Result<(String, RuntimeSource), Outcome> {
    let doing = "looking up the runtime environment";
    let ours = |re: &Value| {
        re.pointer("/runtimeScheduler/cluster/namespace")
            .and_then(Value::as_str)
            == Some(values.namespace.as_str())
            && re
                .pointer("/runtimeScheduler/cluster/clusterProvider/selector")
                .and_then(Value::as_str)
                == Some(context)
    };
    if let Some(name) = &left.runtime_name {
        if platform
            .runtime(name)
            .await
            .map_err(|e| register::failed(e, doing))?
            .is_some()
        {
            return Ok((name.clone(), RuntimeSource::EarlierInstall));
        }
    }
    for name in candidates(wanted) {
        match platform
            .runtime(&name)
            .await
            .map_err(|e| register::failed(e, doing))?
        {
            Some(re) if ours(&re) => return Ok((name, RuntimeSource::Reused)),
            Some(_) => continue,
            None => {
                let node_selector: serde_json::Map<String, Value> = values
                    .runtime
                    .scheduling
                    .node_selector
                    .iter()
                    .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                    .collect();
                let request = RegisterRuntime {
                    cluster_name: context.to_string(),
                    namespace: values.namespace.clone(),
                    storage_class_name: values.storage.class_name.clone(),
                    service_account: "codefresh-engine".into(),
                    runtime_environment_name: name.clone(),
                    agent: true,
                    docker_daemon_scheduler: json!({"userAccess": values.runtime.docker_daemon_access}),
                    node_selector: Value::Object(node_selector),
                };
                platform
                    .register_runtime(&request)
                    .await
                    .map_err(|e| register::failed(e, "registering the runtime environment"))?;
                return Ok((name, RuntimeSource::Registered));
            }
        }
    }
    Err(failed(
        anyhow::anyhow!("runtime environment names {wanted} and {wanted}_1…_19 are all taken"),
        Some("pass --set-value RuntimeEnvironmentName=<a free name>".into()),
    ))
}

/// What this run has on the platform so far, to say on a failure what is
/// left there and how to go on.
#[derive(Default)]
struct OnPlatform {
    agent: Option<(String, AgentSource)>,
    /// False while a new agent's token is only in memory: a re-run cannot
    /// continue with that agent.
    agent_saved: bool,
    runtime: Option<(String, RuntimeSource)>,
}

impl OnPlatform {
    fn explain(&self, namespace: &str) -> Option<String> {
        let mut what = Vec::new();
        if let Some((name, source)) = &self.agent {
            let how = if *source == AgentSource::Created {
                "created by this run"
            } else {
                "reused"
            };
            what.push(format!("agent {name} ({how})"));
        }
        if let Some((name, source)) = &self.runtime {
            let how = if *source == RuntimeSource::Registered {
                "registered by this run"
            } else {
                "reused"
            };
            what.push(format!("runtime environment {name} ({how})"));
        }
        if what.is_empty() {
            return None;
        }
        let what = what.join(" and ");
        Some(if self.agent.is_some() && !self.agent_saved {
            format!(
                "on the Codefresh platform now: {what}. Its agent token could not be saved in the cluster, so a re-run \
                 cannot continue with it: remove the agent in Codefresh (Account settings → Runners), then re-run `cf-runner init`"
            )
        } else {
            format!(
                "on the Codefresh platform now: {what}. Re-running the same `cf-runner init` continues with them \
                 (nothing is created twice); `cf-runner delete --kube-namespace {namespace}` removes them and what reached the cluster"
            )
        })
    }
}

/// The token first, with every scope this run needs, before the cluster is
/// touched; then the install, and on a failure what it left on the platform.
async fn with_platform(options: &Options, loaded: &values::Loaded, auth: &Auth) -> Outcome {
    let values = &loaded.values;
    let (platform, who) =
        match register::checked_client(auth, options.transport, Some(&needs(values))).await {
            Ok(p) => p,
            Err(o) => return o,
        };
    let verified_agent = match agent_of_token(&platform, values).await {
        Ok(a) => a,
        Err(o) => return o,
    };
    output::done(&format!(
        "Codefresh platform {}: account {} (token from {}, checked with {})",
        platform.url(),
        who.account_name
            .as_deref()
            .unwrap_or("(name not shown to this key)"),
        auth.source,
        who.via
    ));
    let mut made = OnPlatform::default();
    let outcome = match install_registered(
        options,
        loaded,
        &platform,
        who.account_id,
        verified_agent,
        &mut made,
    )
    .await
    {
        Ok(()) => Outcome::Ok,
        Err(o) => o,
    };
    match outcome {
        Outcome::Failed(err, hint) => match made.explain(&values.namespace) {
            Some(note) => Outcome::Failed(
                err,
                Some(match hint {
                    Some(h) => format!("{h}\n{note}"),
                    None => note,
                }),
            ),
            None => Outcome::Failed(err, hint),
        },
        other => other,
    }
}

/// Applies the Namespace, the runner Secret (the agent token) and the
/// record, so that a re-run or `cf-runner delete` finds what this run made
/// on the platform.
async fn save_record(
    cluster: &cluster::Cluster,
    values: &values::Values,
    identity: &Identity,
    record: &Value,
    force_conflicts: bool,
) -> Result<(), Outcome> {
    let early = render_or_fail(values, identity, record)?;
    let subset: Vec<Manifest> = early
        .manifests
        .into_iter()
        .filter(|m| {
            m.kind == "Namespace"
                || (m.kind == "Secret"
                    && (m.name == render::RUNNER_SECRET || m.name == render::RECORD_SECRET))
        })
        .collect();
    let report = apply::apply_all(
        &cluster.client,
        &subset,
        &values.namespace,
        apply::Options { force_conflicts },
        &|_| {},
    )
    .await;
    if !report.ok() {
        return Err(converge::apply_failed(&report, "install"));
    }
    Ok(())
}

/// The steps of a registered install, in order.
async fn install_registered(
    options: &Options,
    loaded: &values::Loaded,
    platform: &Platform,
    account_id: Option<String>,
    verified_agent: Option<Agent>,
    made: &mut OnPlatform,
) -> Result<(), Outcome> {
    let values = &loaded.values;
    let record = &loaded.redacted_tree;
    let cluster = connect_and_announce(values).await?;
    let mut identity = identity::seed(values, Some(cluster.context.clone()));
    identity.account_id = account_id;
    identity.registered = true;
    preflight(&cluster, values, &identity, record).await?;
    let left = left_behind(&cluster, &values.namespace)
        .await
        .map_err(|e| {
            let hint = e.hint();
            failed(
                anyhow::Error::new(e).context("reading what an earlier install left"),
                hint,
            )
        })?;
    let agent = agent_step(
        options,
        loaded,
        platform,
        &cluster,
        &left,
        verified_agent,
        &mut identity,
        made,
    )
    .await?;
    dind_certs_step(platform, values, &left, &mut identity).await?;
    let runtime_name = runtime_step(
        platform,
        values,
        &cluster.context,
        &left,
        &mut identity,
        made,
    )
    .await?;
    account_step(platform, &runtime_name, &mut identity).await?;
    // The record now names the runtime, suffix and all.
    save_record(&cluster, values, &identity, record, options.force_conflicts).await?;

    let rendered = render_or_fail(values, &identity, record)?;
    converge::apply_with_progress(
        &cluster,
        &rendered.manifests,
        &values.namespace,
        options.force_conflicts,
        "install",
    )
    .await?;
    attach_step(
        platform,
        values,
        &agent,
        &runtime_name,
        &rendered,
        &identity,
    )
    .await?;
    if !values.skip_cluster_integration {
        cluster_integration(platform, &cluster, values).await?;
    }
    let build_note = if values.exec_demo_pipeline {
        Some(demo_pipeline(platform, &runtime_name).await?)
    } else {
        None
    };
    let waited = wait_for_install(&cluster, &rendered.manifests, &values.namespace, options).await;
    if let Some(url) = build_note {
        output::say(&format!("Demo pipeline build: {url}"));
    }
    output::say(&format!(
        "Runtime environment: {}/account-admin/account-conf/runtime-environments?runtime={}",
        platform.url(),
        platform::segment(&runtime_name)
    ));
    waited
}

/// The agent, and its token saved in the cluster at once, so a re-run finds it.
#[allow(clippy::too_many_arguments)]
async fn agent_step(
    options: &Options,
    loaded: &values::Loaded,
    platform: &Platform,
    cluster: &cluster::Cluster,
    left: &LeftBehind,
    verified_agent: Option<Agent>,
    identity: &mut Identity,
    made: &mut OnPlatform,
) -> Result<Agent, Outcome> {
    let values = &loaded.values;
    let wanted_agent = identity.agent_name(values);
    let (agent, agent_token, source) =
        ensure_agent(platform, values, &wanted_agent, left, verified_agent).await?;
    output::done(&format!("agent {} {}", agent.name, source.word()));
    made.agent = Some((agent.name.clone(), source));
    made.agent_saved = source != AgentSource::Created;
    identity.agent_name = Some(agent.name.clone());
    identity.agent_token = Some(agent_token);
    if source == AgentSource::Created {
        save_record(
            cluster,
            values,
            identity,
            &loaded.redacted_tree,
            options.force_conflicts,
        )
        .await?;
        made.agent_saved = true;
    }
    Ok(agent)
}

/// dind TLS: a local key, signed by the platform (or the earlier run's).
async fn dind_certs_step(
    platform: &Platform,
    values: &values::Values,
    left: &LeftBehind,
    identity: &mut Identity,
) -> Result<(), Outcome> {
    let (ca, cert, key) = match left.dind.complete() {
        Some(c) => {
            output::done("dind TLS certificate reused from the earlier install");
            c
        }
        None => {
            let generated = certs::generate(&values.namespace)
                .map_err(|e| register::failed(e, "preparing the dind TLS certificate"))?;
            let sans = certs::subject_alt_names(&values.namespace);
            let (ca, cert) = platform
                .sign_server_certs(&generated.csr_pem, &sans)
                .await
                .map_err(|e| {
                    register::failed(e, "having the platform sign the dind certificate")
                })?;
            output::done(
                "dind TLS certificate signed by the platform (the key stays in the cluster)",
            );
            (Secret::new(ca), Secret::new(cert), generated.key_pem)
        }
    };
    identity.dind_ca = Some(ca);
    identity.dind_cert = Some(cert);
    identity.dind_key = Some(key);
    Ok(())
}

/// The runtime environment: found or registered, its name in the identity.
async fn runtime_step(
    platform: &Platform,
    values: &values::Values,
    context: &str,
    left: &LeftBehind,
    identity: &mut Identity,
    made: &mut OnPlatform,
) -> Result<String, Outcome> {
    let wanted_runtime: String = identity
        .runtime_name(values)
        .chars()
        .take(platform::MAX_NAME_LEN)
        .collect();
    let (runtime_name, source) =
        ensure_runtime(platform, values, context, &wanted_runtime, left).await?;
    output::done(&format!(
        "runtime environment {runtime_name} {}",
        source.word()
    ));
    made.runtime = Some((runtime_name.clone(), source));
    identity.runtime_name = Some(runtime_name.clone());
    Ok(runtime_name)
}

/// The account id, when `GET /api/user` did not give it: the runtime names it.
async fn account_step(
    platform: &Platform,
    runtime_name: &str,
    identity: &mut Identity,
) -> Result<(), Outcome> {
    if identity.account_id.is_some() {
        return Ok(());
    }
    // A key that may not read /api/user: the runtime names the account.
    if let Ok(Some(re)) = platform.runtime(runtime_name).await {
        identity.account_id = register::account_of_runtime(&re);
    }
    if identity.account_id.is_none() {
        return Err(failed(
            anyhow::anyhow!(
                "the platform did not say which account the token is for (GET /api/user was refused, and the runtime environment names none)"
            ),
            Some("use an API key that may read the user (GET /api/user), then re-run `cf-runner init`".into()),
        ));
    }
    Ok(())
}

/// Attaches the runtime to the agent, pushes the runtime's spec, and makes
/// it the default when asked.
async fn attach_step(
    platform: &Platform,
    values: &values::Values,
    agent: &Agent,
    runtime_name: &str,
    rendered: &render::Rendered,
    identity: &Identity,
) -> Result<(), Outcome> {
    if !agent.runtimes.iter().any(|r| r == runtime_name) {
        let mut runtimes = agent.runtimes.clone();
        runtimes.push(runtime_name.to_string());
        platform
            .update_agent(agent, &runtimes)
            .await
            .map_err(|e| register::failed(e, "attaching the runtime environment to the agent"))?;
    }
    let spec = register::spec_to_send(
        &rendered.runtime_environment,
        identity.account_id.as_deref(),
    );
    platform
        .put_runtime(runtime_name, &spec)
        .await
        .map_err(|e| register::failed(e, "sending the runtime environment's spec"))?;
    output::done(&format!(
        "runtime environment {runtime_name} attached to agent {}",
        agent.name
    ));
    if values.set_default_runtime {
        platform
            .set_default_runtime(runtime_name)
            .await
            .map_err(|e| {
                register::failed(e, "making the runtime environment the account's default")
            })?;
        output::done(&format!(
            "{runtime_name} is the account's default runtime environment"
        ));
    }
    Ok(())
}

async fn cluster_integration(
    platform: &Platform,
    cluster: &cluster::Cluster,
    values: &values::Values,
) -> Result<(), Outcome> {
    let existing = platform
        .clusters()
        .await
        .map_err(|e| register::failed(e, "listing cluster integrations"))?;
    if existing
        .iter()
        .any(|c| c.get("selector").and_then(Value::as_str) == Some(cluster.context.as_str()))
    {
        output::done(&format!(
            "cluster integration {} exists; left as it is",
            cluster.context
        ));
        return Ok(());
    }
    let token = secrets::wait_for_token(
        &cluster.client,
        &values.namespace,
        render::CLUSTER_READER_TOKEN_SECRET,
        Duration::from_secs(30),
    )
    .await
    .map_err(|e| {
        let hint = e.hint();
        failed(
            anyhow::Error::new(e).context("reading the cluster integration's token"),
            hint,
        )
    })?;
    let Some((token, ca)) = token else {
        return Err(failed(
            anyhow::anyhow!("Kubernetes did not fill Secret/codefresh-cluster-reader-token within 30s"),
            Some("check that kube-controller-manager runs its token controller, or re-run with --skip-cluster-integration".into()),
        ));
    };
    let host = values
        .kubernetes_host
        .clone()
        .unwrap_or_else(|| cluster.server.trim_end_matches('/').to_string());
    platform
        .create_cluster_integration(&cluster.context, &host, &token, &ca)
        .await
        .map_err(|e| register::failed(e, "creating the cluster integration"))?;
    output::done(&format!(
        "cluster integration {} created (behind the firewall)",
        cluster.context
    ));
    Ok(())
}

async fn demo_pipeline(platform: &Platform, runtime: &str) -> Result<String, Outcome> {
    let name = platform
        .ensure_demo_pipeline(runtime)
        .await
        .map_err(|e| register::failed(e, "creating the demo pipeline"))?;
    let build = platform
        .run_pipeline(&name, runtime)
        .await
        .map_err(|e| register::failed(e, "running the demo pipeline"))?;
    output::done(&format!("demo pipeline {name} started"));
    Ok(format!(
        "{}/build/{}",
        platform.url(),
        platform::segment(&build)
    ))
}

/// Waits after an install (unless `--no-wait`), and says the runner is running.
async fn wait_for_install(
    cluster: &cluster::Cluster,
    manifests: &[Manifest],
    namespace: &str,
    options: &Options,
) -> Result<(), Outcome> {
    let Some(timeout) = options.wait else {
        return Ok(());
    };
    converge::wait_with_progress(cluster, manifests, timeout, "init").await?;
    output::done(&format!("the runner is running in namespace {namespace}"));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clash_suffixes_never_push_a_name_past_the_platform_limit() {
        let long = format!("{}/codefresh", "a-very-long-kube-context-name".repeat(3));
        assert!(long.chars().count() > platform::MAX_NAME_LEN);
        let names: Vec<String> = candidates(&long).collect();
        assert_eq!(names.len(), 20);
        for name in &names {
            assert!(name.chars().count() <= platform::MAX_NAME_LEN, "{name}");
        }
        assert!(names[1].ends_with("_1") && names[19].ends_with("_19"));
        assert_eq!(names[1].chars().count(), platform::MAX_NAME_LEN);
        // A short name is kept whole.
        let short: Vec<String> = candidates("ctx_ns").take(2).collect();
        assert_eq!(short, vec!["ctx_ns", "ctx_ns_1"]);
    }

    /// A platform that answers from lists and records every call, in order.
    #[derive(Default)]
    struct FakePlatform {
        agents: Vec<&'static str>,
        /// Runtime names, with the namespace they are registered for.
        runtimes: Vec<(&'static str, &'static str)>,
        calls: std::cell::RefCell<Vec<String>>,
    }

    fn agent(name: &str) -> Agent {
        Agent {
            id: format!("id-{name}"),
            name: name.to_string(),
            runtimes: Vec::new(),
            token: Some("new-agent-token".into()),
            status: None,
        }
    }

    impl Registrar for FakePlatform {
        async fn agents_named(&self, name: &str) -> Result<Vec<Agent>, PlatformError> {
            self.calls.borrow_mut().push(format!("agents_named {name}"));
            Ok(self
                .agents
                .iter()
                .filter(|a| **a == name)
                .map(|a| agent(a))
                .collect())
        }
        async fn create_agent(&self, name: &str) -> Result<Agent, PlatformError> {
            self.calls.borrow_mut().push(format!("create_agent {name}"));
            Ok(agent(name))
        }
        async fn runtime(&self, name: &str) -> Result<Option<Value>, PlatformError> {
            self.calls.borrow_mut().push(format!("runtime {name}"));
            Ok(self
                .runtimes
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, ns)| {
                    json!({"runtimeScheduler": {"cluster": {"namespace": ns,
                    "clusterProvider": {"selector": "ctx"}}}})
                }))
        }
        async fn register_runtime(&self, request: &RegisterRuntime) -> Result<(), PlatformError> {
            self.calls.borrow_mut().push(format!(
                "register_runtime {}",
                request.runtime_environment_name
            ));
            Ok(())
        }
    }

    fn values(namespace: &str) -> values::Values {
        let input = values::Input {
            overrides: vec![("Namespace".into(), Value::String(namespace.into()))],
            ..Default::default()
        };
        values::load(&input).expect("the values load").values
    }

    fn calls(fake: &FakePlatform) -> Vec<String> {
        fake.calls.borrow().clone()
    }

    /// A re-run finds the agent the earlier run saved (its name in the
    /// record, its token in the runner Secret) and creates nothing.
    #[test]
    fn a_rerun_reuses_the_saved_agent_and_creates_none() {
        let fake = FakePlatform {
            agents: vec!["ctx_ci"],
            ..Default::default()
        };
        let left = LeftBehind {
            agent_name: Some("ctx_ci".into()),
            agent_token: Some(Secret::new("saved-token")),
            ..Default::default()
        };
        let (agent, token, source) =
            futures::executor::block_on(ensure_agent(&fake, &values("ci"), "ctx_ci", &left, None))
                .unwrap_or_else(|o| panic!("{o:?}"));
        assert_eq!(source, AgentSource::EarlierInstall);
        assert_eq!(
            (agent.name.as_str(), token.expose()),
            ("ctx_ci", "saved-token")
        );
        assert_eq!(calls(&fake), ["agents_named ctx_ci"]);
    }

    /// A first install looks each candidate name up before it creates the
    /// agent under the first free one.
    #[test]
    fn a_new_agent_is_created_under_the_first_free_name_after_looking() {
        let fake = FakePlatform {
            agents: vec!["ctx_ci"],
            ..Default::default()
        };
        let (agent, token, source) = futures::executor::block_on(ensure_agent(
            &fake,
            &values("ci"),
            "ctx_ci",
            &LeftBehind::default(),
            None,
        ))
        .unwrap_or_else(|o| panic!("{o:?}"));
        assert_eq!(source, AgentSource::Created);
        assert_eq!(
            (agent.name.as_str(), token.expose()),
            ("ctx_ci_1", "new-agent-token")
        );
        assert_eq!(
            calls(&fake),
            [
                "agents_named ctx_ci",
                "agents_named ctx_ci_1",
                "create_agent ctx_ci_1"
            ]
        );
    }

    /// A runtime registered for this cluster and namespace is reused; one
    /// of another namespace is skipped, never taken over.
    #[test]
    fn a_runtime_of_another_namespace_is_skipped_and_ours_is_reused() {
        let fake = FakePlatform {
            runtimes: vec![("ctx/ci", "other"), ("ctx/ci_1", "ci")],
            ..Default::default()
        };
        let (name, source) = futures::executor::block_on(ensure_runtime(
            &fake,
            &values("ci"),
            "ctx",
            "ctx/ci",
            &LeftBehind::default(),
        ))
        .unwrap_or_else(|o| panic!("{o:?}"));
        assert_eq!((name.as_str(), source), ("ctx/ci_1", RuntimeSource::Reused));
        assert_eq!(calls(&fake), ["runtime ctx/ci", "runtime ctx/ci_1"]);

        let fresh = FakePlatform::default();
        let (name, source) = futures::executor::block_on(ensure_runtime(
            &fresh,
            &values("ci"),
            "ctx",
            "ctx/ci",
            &LeftBehind::default(),
        ))
        .unwrap_or_else(|o| panic!("{o:?}"));
        assert_eq!(
            (name.as_str(), source),
            ("ctx/ci", RuntimeSource::Registered)
        );
        assert_eq!(calls(&fresh), ["runtime ctx/ci", "register_runtime ctx/ci"]);
    }
}
