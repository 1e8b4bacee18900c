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

use super::init::{connect, runtime};
use super::Outcome;
use crate::cli::InitArgs;
use crate::kube::{self as cluster, apply, secrets, wait};
use crate::output;
use crate::platform::{
    self, certs, Agent, Need, Platform, PlatformError, RegisterRuntime, Transport,
};
use crate::render::{self, Identity, Manifest};
use crate::values::{self, Problem, Problems, Secret};

/// Runs the install.
pub fn run(args: &InitArgs, loaded: &values::Loaded) -> Outcome {
    let auth = match resolve_auth(args, loaded) {
        Ok(a) => a,
        Err(outcome) => return outcome,
    };
    runtime().block_on(async {
        match auth {
            Some(auth) => with_platform(args, loaded, &auth).await,
            None => offline(args, loaded).await,
        }
    })
}

/// Resolves the platform token the way an install does; no token is bad
/// input, unless an agent token allows an offline install (`Ok(None)`).
fn resolve_auth(
    args: &InitArgs,
    loaded: &values::Loaded,
) -> Result<Option<platform::Auth>, Outcome> {
    let values = &loaded.values;
    let explicit_url = args.url.clone().or_else(|| {
        values::tree::lookup(&loaded.redacted_tree, "CodefreshHost")
            .map(|_| values.codefresh_host.clone())
    });
    let (flag_token, values_token) = if args.token.is_some() {
        (values.token.as_ref(), None)
    } else {
        (None, values.token.as_ref())
    };
    match platform::auth::resolve(flag_token, values_token, explicit_url.as_deref()) {
        Ok(a) => Ok(Some(a)),
        Err(PlatformError::NoToken { .. }) if values.agent_token.is_some() => Ok(None),
        Err(PlatformError::NoToken { cfconfig }) => Err(Outcome::BadInput(Problems(vec![Problem::new(
            "Token",
            None,
            format!("is required to register the runner on the Codefresh platform (none in --token, CF_API_KEY or {cfconfig})"),
            format!(
                "pass --token with an API key that has the scopes {}, or set CF_API_KEY",
                Need::describe(&needs(values))
            ),
        )]))),
        Err(e) => Err(platform_failed(e, "finding the Codefresh API token")),
    }
}

/// How to reach the platform: `--insecure` (or `Insecure`) and `--allow-http`.
fn transport(args: &InitArgs, values: &values::Values) -> Transport {
    Transport {
        insecure: values.insecure,
        allow_http: args.allow_http,
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

/// For `--generate-helm-values-file` without `--dry-run`: the account id and
/// free agent and runtime names, from the platform (nothing is created).
pub(crate) fn helm_identity(
    args: &InitArgs,
    loaded: &values::Loaded,
    mut identity: Identity,
) -> Result<Identity, Outcome> {
    let values = &loaded.values;
    let Some(auth) = resolve_auth(args, loaded)? else {
        return Err(Outcome::BadInput(Problems(vec![Problem::new(
            "Token",
            None,
            "is required to fill the Helm values from the platform",
            "pass --token or set CF_API_KEY, or add --dry-run to leave the account id for you to fill",
        )])));
    };
    runtime().block_on(async {
        let platform = Platform::new(&auth, transport(args, values))
            .map_err(|e| platform_failed(e, "preparing the platform client"))?;
        let who = platform
            .whoami()
            .await
            .map_err(|e| platform_failed(e, "checking the Codefresh API token"))?;
        identity.account_id = who.account_id;
        let wanted = identity.agent_name(values);
        for name in candidates(&wanted) {
            let agents = platform
                .agents_named(&name)
                .await
                .map_err(|e| platform_failed(e, "looking up agent names"))?;
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
                .map_err(|e| platform_failed(e, "looking up runtime environment names"))?;
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

fn platform_failed(err: PlatformError, doing: &str) -> Outcome {
    super::platform_link::failed(err, doing)
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

async fn offline(args: &InitArgs, loaded: &values::Loaded) -> Outcome {
    let values = &loaded.values;
    let cluster = match connect(values).await {
        Ok(c) => c,
        Err(outcome) => return outcome,
    };
    output::say(&format!(
        "Installing the Codefresh Runner into namespace {} of context {} ({})",
        values.namespace, cluster.context, cluster.server
    ));
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
    let identity = Identity {
        context: Some(cluster.context.clone()),
        agent_name: values.agent_name.clone(),
        runtime_name: values.runtime_name.clone(),
        ..Default::default()
    };
    let rendered = match render_or_fail(values, &identity, &loaded.redacted_tree) {
        Ok(r) => r,
        Err(o) => return o,
    };
    if !values.skip_cluster_test {
        if let Err(outcome) = super::check::preflight_for_install(
            &cluster,
            &rendered.manifests,
            &rendered.runtime_environment,
            &values.namespace,
        )
        .await
        {
            return outcome;
        }
    }
    if let Err(o) = apply_with_progress(
        &cluster,
        &rendered.manifests,
        &values.namespace,
        args.force_conflicts,
        "install",
    )
    .await
    {
        return o;
    }
    if args.no_wait {
        return Outcome::Ok;
    }
    wait_for_install(&cluster, &rendered.manifests, &values.namespace, args).await
}

/// What an earlier run left in the cluster.
#[derive(Default)]
struct Leftovers {
    agent_name: Option<String>,
    runtime_name: Option<String>,
    agent_token: Option<Secret>,
    certs: Option<(Secret, Secret, Secret)>,
}

async fn leftovers(
    cluster: &cluster::Cluster,
    namespace: &str,
) -> Result<Leftovers, cluster::KubeError> {
    let client = &cluster.client;
    let real = |v: Option<&String>| v.filter(|t| !t.starts_with("<placeholder")).cloned();
    let mut found = Leftovers::default();
    if let Some(record) = secrets::read_text(client, namespace, render::RECORD_SECRET).await? {
        found.agent_name = real(record.get("agent-name"));
        found.runtime_name = real(record.get("runtime-name"));
    }
    if let Some(runner) = secrets::read_text(client, namespace, "runner").await? {
        found.agent_token = real(runner.get("codefresh.token")).map(Secret::new);
    }
    if let Some(c) = secrets::read_text(client, namespace, "codefresh-certs-server").await? {
        if let (Some(ca), Some(cert), Some(key)) = (
            real(c.get("ca.pem")),
            real(c.get("server-cert.pem")),
            real(c.get("server-key.pem")),
        ) {
            if cert.contains("BEGIN CERTIFICATE") && key.contains("PRIVATE KEY") {
                found.certs = Some((Secret::new(ca), Secret::new(cert), Secret::new(key)));
            }
        }
    }
    Ok(found)
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
        Err(e) => return Err(platform_failed(e, "finding the agent --agent-token belongs to")),
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
            return Err(platform_failed(
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

/// The agent to use and its token: the earlier run's, the one named by
/// `--agent-token`'s `AgentId`, or a new one.
async fn ensure_agent(
    platform: &Platform,
    values: &values::Values,
    wanted: &str,
    left: &Leftovers,
    verified: Option<Agent>,
) -> Result<(Agent, Secret, &'static str), Outcome> {
    let doing = "looking up the agent on the platform";
    if let (Some(token), Some(agent)) = (&values.agent_token, verified) {
        return Ok((agent, token.clone(), "reused (--agent-token, verified)"));
    }
    if let Some(token) = &values.agent_token {
        let name = values
            .agent_name
            .clone()
            .unwrap_or_else(|| wanted.to_string());
        let agents = platform
            .agents_named(&name)
            .await
            .map_err(|e| platform_failed(e, doing))?;
        return match agents.into_iter().next() {
            Some(agent) => Ok((agent, token.clone(), "reused (--agent-token)")),
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
            .map_err(|e| platform_failed(e, doing))?;
        if let Some(agent) = agents.into_iter().next() {
            return Ok((agent, token.clone(), "reused from the earlier install"));
        }
    }
    for name in candidates(wanted) {
        let agents = platform
            .agents_named(&name)
            .await
            .map_err(|e| platform_failed(e, doing))?;
        if agents.is_empty() {
            let agent = platform
                .create_agent(&name)
                .await
                .map_err(|e| platform_failed(e, "creating the agent"))?;
            let token = agent.token.clone().map(Secret::new).ok_or_else(|| {
                failed(
                    anyhow::anyhow!("the platform created agent {name} but sent no token"),
                    Some("delete the agent in Codefresh and re-run".into()),
                )
            })?;
            return Ok((agent, token, "created"));
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
    platform: &Platform,
    values: &values::Values,
    context: &str,
    wanted: &str,
    left: &Leftovers,
) -> Result<(String, &'static str), Outcome> {
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
            .map_err(|e| platform_failed(e, doing))?
            .is_some()
        {
            return Ok((name.clone(), "reused from the earlier install"));
        }
    }
    for name in candidates(wanted) {
        match platform
            .runtime(&name)
            .await
            .map_err(|e| platform_failed(e, doing))?
        {
            Some(re) if ours(&re) => return Ok((name, "reused")),
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
                    .map_err(|e| platform_failed(e, "registering the runtime environment"))?;
                return Ok((name, "registered"));
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
    agent: Option<(String, &'static str)>,
    /// False while a new agent's token is only in memory: a re-run cannot
    /// continue with that agent.
    agent_saved: bool,
    runtime: Option<(String, &'static str)>,
}

impl OnPlatform {
    fn explain(&self, namespace: &str) -> Option<String> {
        let mut what = Vec::new();
        if let Some((name, how)) = &self.agent {
            what.push(format!("agent {name} ({how})"));
        }
        if let Some((name, how)) = &self.runtime {
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

async fn with_platform(args: &InitArgs, loaded: &values::Loaded, auth: &platform::Auth) -> Outcome {
    let values = &loaded.values;
    let platform = match Platform::new(auth, transport(args, values)) {
        Ok(p) => p,
        Err(e) => return platform_failed(e, "preparing the platform client"),
    };
    // The token first, with every scope this run needs, before the cluster
    // is touched.
    let who = match platform.whoami().await {
        Ok(w) => w,
        Err(e) => return platform_failed(e, "checking the Codefresh API token"),
    };
    if let Err(e) = platform.require_scopes(&needs(values)).await {
        return platform_failed(e, "checking the Codefresh API token's scopes");
    }
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
    let outcome = install_registered(
        args,
        loaded,
        &platform,
        who.account_id,
        verified_agent,
        &mut made,
    )
    .await;
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
                || (m.kind == "Secret" && (m.name == "runner" || m.name == render::RECORD_SECRET))
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
        return Err(super::init::apply_failed(&report, "install"));
    }
    Ok(())
}

async fn install_registered(
    args: &InitArgs,
    loaded: &values::Loaded,
    platform: &Platform,
    account_id: Option<String>,
    verified_agent: Option<Agent>,
    made: &mut OnPlatform,
) -> Outcome {
    let values = &loaded.values;
    let cluster = match connect(values).await {
        Ok(c) => c,
        Err(outcome) => return outcome,
    };
    output::say(&format!(
        "Installing the Codefresh Runner into namespace {} of context {} ({})",
        values.namespace, cluster.context, cluster.server
    ));
    let mut identity = Identity {
        context: Some(cluster.context.clone()),
        agent_name: values.agent_name.clone(),
        runtime_name: values.runtime_name.clone(),
        account_id,
        registered: true,
        ..Default::default()
    };
    let record = &loaded.redacted_tree;
    if !values.skip_cluster_test {
        let prelim = match render_or_fail(values, &identity, record) {
            Ok(r) => r,
            Err(o) => return o,
        };
        if let Err(outcome) = super::check::preflight_for_install(
            &cluster,
            &prelim.manifests,
            &prelim.runtime_environment,
            &values.namespace,
        )
        .await
        {
            return outcome;
        }
    }
    let left = match leftovers(&cluster, &values.namespace).await {
        Ok(l) => l,
        Err(e) => {
            let hint = e.hint();
            return failed(
                anyhow::Error::new(e).context("reading what an earlier install left"),
                hint,
            );
        }
    };

    // The agent, and its token saved in the cluster at once, so a re-run finds it.
    let wanted_agent = identity.agent_name(values);
    let (agent, agent_token, how) =
        match ensure_agent(platform, values, &wanted_agent, &left, verified_agent).await {
            Ok(a) => a,
            Err(o) => return o,
        };
    output::done(&format!("agent {} {how}", agent.name));
    made.agent = Some((
        agent.name.clone(),
        if how == "created" {
            "created by this run"
        } else {
            "reused"
        },
    ));
    made.agent_saved = how != "created";
    identity.agent_name = Some(agent.name.clone());
    identity.agent_token = Some(agent_token);
    if how == "created" {
        if let Err(o) = save_record(&cluster, values, &identity, record, args.force_conflicts).await
        {
            return o;
        }
        made.agent_saved = true;
    }

    // dind TLS: a local key, signed by the platform (or the earlier run's).
    let (ca, cert, key) = match &left.certs {
        Some(c) => {
            output::done("dind TLS certificate reused from the earlier install");
            c.clone()
        }
        None => {
            let generated = match certs::generate(&values.namespace) {
                Ok(g) => g,
                Err(e) => return platform_failed(e, "preparing the dind TLS certificate"),
            };
            let sans = certs::subject_alt_names(&values.namespace);
            match platform.sign_server_certs(&generated.csr_pem, &sans).await {
                Ok((ca, cert)) => {
                    output::done("dind TLS certificate signed by the platform (the key stays in the cluster)");
                    (Secret::new(ca), Secret::new(cert), generated.key_pem)
                }
                Err(e) => {
                    return platform_failed(e, "having the platform sign the dind certificate")
                }
            }
        }
    };
    identity.dind_ca = Some(ca);
    identity.dind_cert = Some(cert);
    identity.dind_key = Some(key);

    let wanted_runtime: String = identity
        .runtime_name(values)
        .chars()
        .take(platform::MAX_NAME_LEN)
        .collect();
    let (runtime_name, how) =
        match ensure_runtime(platform, values, &cluster.context, &wanted_runtime, &left).await {
            Ok(r) => r,
            Err(o) => return o,
        };
    output::done(&format!("runtime environment {runtime_name} {how}"));
    made.runtime = Some((
        runtime_name.clone(),
        if how == "registered" {
            "registered by this run"
        } else {
            "reused"
        },
    ));
    identity.runtime_name = Some(runtime_name.clone());
    if identity.account_id.is_none() {
        // A key that may not read /api/user: the runtime names the account.
        if let Ok(Some(re)) = platform.runtime(&runtime_name).await {
            identity.account_id = re
                .get("accountId")
                .or(re.pointer("/runtimeScheduler/cluster/clusterProvider/accountId"))
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        if identity.account_id.is_none() {
            return failed(
                anyhow::anyhow!(
                    "the platform did not say which account the token is for (GET /api/user was refused, and the runtime environment names none)"
                ),
                Some("use an API key that may read the user (GET /api/user), then re-run `cf-runner init`".into()),
            );
        }
    }
    // The record now names the runtime, suffix and all.
    if let Err(o) = save_record(&cluster, values, &identity, record, args.force_conflicts).await {
        return o;
    }

    let rendered = match render_or_fail(values, &identity, record) {
        Ok(r) => r,
        Err(o) => return o,
    };
    if let Err(o) = apply_with_progress(
        &cluster,
        &rendered.manifests,
        &values.namespace,
        args.force_conflicts,
        "install",
    )
    .await
    {
        return o;
    }

    // Attach the runtime to the agent, then push the runtime's spec.
    if !agent.runtimes.contains(&runtime_name) {
        let mut runtimes = agent.runtimes.clone();
        runtimes.push(runtime_name.clone());
        if let Err(e) = platform.update_agent(&agent, &runtimes).await {
            return platform_failed(e, "attaching the runtime environment to the agent");
        }
    }
    let spec = spec_to_send(
        &rendered.runtime_environment,
        identity.account_id.as_deref(),
    );
    if let Err(e) = platform.put_runtime(&runtime_name, &spec).await {
        return platform_failed(e, "sending the runtime environment's spec");
    }
    output::done(&format!(
        "runtime environment {runtime_name} attached to agent {}",
        agent.name
    ));
    if values.set_default_runtime {
        if let Err(e) = platform.set_default_runtime(&runtime_name).await {
            return platform_failed(e, "making the runtime environment the account's default");
        }
        output::done(&format!(
            "{runtime_name} is the account's default runtime environment"
        ));
    }

    if !values.skip_cluster_integration {
        if let Err(o) = cluster_integration(platform, &cluster, values).await {
            return o;
        }
    }
    let build_note = if values.exec_demo_pipeline {
        match demo_pipeline(platform, &runtime_name).await {
            Ok(url) => Some(url),
            Err(o) => return o,
        }
    } else {
        None
    };
    let outcome = if args.no_wait {
        Outcome::Ok
    } else {
        wait_for_install(&cluster, &rendered.manifests, &values.namespace, args).await
    };
    if let Some(url) = build_note {
        output::say(&format!("Demo pipeline build: {url}"));
    }
    output::say(&format!(
        "Runtime environment: {}/account-admin/account-conf/runtime-environments?runtime={}",
        platform.url(),
        platform::segment(&runtime_name)
    ));
    outcome
}

/// The runtime spec as the platform gets it: the rendered one, with
/// `accountId` set to the account the platform named for this token (the
/// render puts the recorded identity's, which an offline dry-run lacks).
pub(crate) fn spec_to_send(rendered: &Value, account_id: Option<&str>) -> Value {
    let mut spec = rendered.clone();
    if let (Some(map), Some(account)) = (spec.as_object_mut(), account_id) {
        map.insert("accountId".into(), Value::String(account.to_string()));
    }
    spec
}

async fn cluster_integration(
    platform: &Platform,
    cluster: &cluster::Cluster,
    values: &values::Values,
) -> Result<(), Outcome> {
    let existing = platform
        .clusters()
        .await
        .map_err(|e| platform_failed(e, "listing cluster integrations"))?;
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
        "codefresh-cluster-reader-token",
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
        .map_err(|e| platform_failed(e, "creating the cluster integration"))?;
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
        .map_err(|e| platform_failed(e, "creating the demo pipeline"))?;
    let build = platform
        .run_pipeline(&name, runtime)
        .await
        .map_err(|e| platform_failed(e, "running the demo pipeline"))?;
    output::done(&format!("demo pipeline {name} started"));
    Ok(format!(
        "{}/build/{}",
        platform.url(),
        platform::segment(&build)
    ))
}

/// Applies with a line per object; on failure, the outcome to return.
/// `command` names the command in messages ("install", "upgrade").
pub(crate) async fn apply_with_progress(
    cluster: &cluster::Cluster,
    manifests: &[Manifest],
    namespace: &str,
    force_conflicts: bool,
    command: &str,
) -> Result<apply::Report, Outcome> {
    let confirmed = std::sync::Mutex::new(Vec::<String>::new());
    let progress = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let watchdog = quiet_apply_watchdog(cluster, progress.clone());
    let on_applied = |a: &apply::Applied| {
        output::applied(a.change.word(), &a.object, a.namespace.as_deref());
        progress.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        confirmed
            .lock()
            .expect("not poisoned")
            .push(a.object.clone());
    };
    let stop = stop_signal();
    let report = tokio::select! {
        report = apply::apply_all(
            &cluster.client,
            manifests,
            namespace,
            apply::Options { force_conflicts },
            &on_applied,
        ) => report,
        (code, name) = stop => {
            watchdog.abort();
            let confirmed = confirmed.lock().expect("not poisoned").clone();
            return Err(stopped_during_apply(code, name, manifests, &confirmed, command));
        }
    };
    watchdog.abort();
    // From here on a signal ends the process at once, saying where it was.
    exit_on_signal();
    if !report.ok() {
        return Err(super::init::apply_failed(&report, command));
    }
    let summary: Vec<String> = report
        .counts()
        .iter()
        .map(|(k, v)| format!("{v} {k}"))
        .collect();
    output::done(&format!(
        "all {} objects applied ({})",
        report.applied.len(),
        summary.join(", ")
    ));
    restart_for_new_credentials(cluster, manifests, &report, command).await?;
    Ok(report)
}

/// How long the apply may go without an object confirmed before it says
/// what it is waiting for.
const QUIET_APPLY: Duration = Duration::from_secs(5);

/// Says, on stderr, when the apply has had no answer for [`QUIET_APPLY`]:
/// what it waits for, where, and the deadline of each request. Once per
/// quiet spell; abort the handle when the apply is over.
fn quiet_apply_watchdog(
    cluster: &cluster::Cluster,
    progress: std::sync::Arc<std::sync::atomic::AtomicUsize>,
) -> tokio::task::JoinHandle<()> {
    let server = cluster.server.clone();
    tokio::spawn(async move {
        let mut seen = progress.load(std::sync::atomic::Ordering::Relaxed);
        loop {
            tokio::time::sleep(QUIET_APPLY).await;
            let now = progress.load(std::sync::atomic::Ordering::Relaxed);
            if now == seen {
                output::note(&format!(
                    "waiting for the API server at {server} to answer the apply ({now} object(s) confirmed so far; \
                     a request with no answer fails after {}s)",
                    cluster::REQUEST_TIMEOUT.as_secs()
                ));
                // Quiet again only after the next confirmation.
                while progress.load(std::sync::atomic::Ordering::Relaxed) == now {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            }
            seen = progress.load(std::sync::atomic::Ordering::Relaxed);
        }
    })
}

/// Waits for SIGINT or SIGTERM; gives the exit code (130, 143) and the name.
async fn stop_signal() -> (u8, &'static str) {
    use tokio::signal::unix::{signal, SignalKind};
    match (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) {
        (Ok(mut int), Ok(mut term)) => tokio::select! {
            _ = int.recv() => (130, "SIGINT"),
            _ = term.recv() => (143, "SIGTERM"),
        },
        // Without handlers the default action (end the process) stays.
        _ => std::future::pending().await,
    }
}

/// Once the apply is over, a signal ends the process at once with its exit
/// code and a line saying that everything was applied.
fn exit_on_signal() {
    tokio::spawn(async {
        let (code, name) = stop_signal().await;
        output::note(&format!(
            "stopped by {name}: every object was applied; the rest (waiting, platform steps) did not finish; \
             re-run the same command to finish"
        ));
        std::process::exit(i32::from(code));
    });
}

/// The report of an apply cut short by a signal: what the API server
/// confirmed, and what it may or may not have stored (requests in flight
/// still land).
fn stopped_during_apply(
    code: u8,
    name: &str,
    manifests: &[Manifest],
    confirmed: &[String],
    command: &str,
) -> Outcome {
    let unconfirmed: Vec<String> = manifests
        .iter()
        .map(|m| m.display_name())
        .filter(|n| !confirmed.contains(n))
        .collect();
    let list = |items: &[String]| {
        if items.is_empty() {
            "none".to_string()
        } else {
            items.join(", ")
        }
    };
    let message = format!(
        "the {command} stopped: {name} came during the apply; {} of {} objects applied\n  applied: {}\n  not applied or not confirmed \
         (a request already sent may still land): {}",
        confirmed.len(),
        manifests.len(),
        list(confirmed),
        list(&unconfirmed)
    );
    Outcome::Signalled(
        code,
        anyhow::anyhow!(message),
        Some(
            "re-run the same command to finish: objects already applied are left as they are and the rest are applied"
                .to_string(),
        ),
    )
}

/// Pods take the credentials Secret's values as env variables when they
/// start: when only the Secret changed (a new proxy password), their
/// unchanged workloads are restarted so that they pick it up.
async fn restart_for_new_credentials(
    cluster: &cluster::Cluster,
    manifests: &[Manifest],
    report: &apply::Report,
    command: &str,
) -> Result<(), Outcome> {
    let change_of = |object: &str| {
        report
            .applied
            .iter()
            .find(|a| a.object == object)
            .map(|a| a.change.clone())
    };
    let secret = format!("Secret/{}", render::CREDENTIALS_SECRET);
    if change_of(&secret) != Some(apply::Change::Configured) {
        return Ok(());
    }
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs().to_string())
        .unwrap_or_default();
    for m in manifests {
        let reads_it = matches!(m.kind.as_str(), "Deployment" | "DaemonSet")
            && m.object
                .to_string()
                .contains(&format!("\"{}\"", render::CREDENTIALS_SECRET));
        if !reads_it || change_of(&m.display_name()) != Some(apply::Change::Unchanged) {
            continue;
        }
        if let Err(e) = apply::restart(&cluster.client, m, &stamp).await {
            return Err(failed(
                anyhow::Error::new(e),
                Some(format!(
                    "the new credentials are in the Secret {}; restart {} yourself, or re-run {command}",
                    render::CREDENTIALS_SECRET,
                    m.display_name()
                )),
            ));
        }
        output::applied(
            "restarted (new credentials)",
            &m.display_name(),
            m.namespace.as_deref(),
        );
    }
    Ok(())
}

/// Waits for the workloads with a live line each; on a timeout or an
/// error, the outcome to return. `command` is what to re-run.
pub(crate) async fn wait_with_progress(
    cluster: &cluster::Cluster,
    manifests: &[Manifest],
    timeout: Duration,
    command: &str,
) -> Result<(), Outcome> {
    let names: Vec<String> = wait::workloads(manifests)
        .iter()
        .map(|m| m.display_name())
        .collect();
    let board = output::StatusBoard::new(&names);
    let result = wait::wait_all(&cluster.client, manifests, timeout, &|s: &wait::Status| {
        board.update(&s.object, s.ready, &s.detail)
    })
    .await;
    board.finish();
    match result {
        Ok(w) if w.ok() => Ok(()),
        Ok(w) => {
            let stuck: Vec<String> = w
                .statuses
                .iter()
                .filter(|s| !s.ready)
                .map(|s| format!("{}: {}", s.object, s.detail))
                .collect();
            Err(failed(
                anyhow::anyhow!("timed out after {}s waiting for: {}", timeout.as_secs(), stuck.join("; ")),
                Some(format!(
                    "the objects are applied; fix the cause above and re-run {command} (it converges), or raise --timeout"
                )),
            ))
        }
        Err(e) => {
            let hint = e.hint();
            Err(failed(
                anyhow::Error::new(e).context("waiting for the workloads failed"),
                hint,
            ))
        }
    }
}

/// Waits after an install, and says the runner is running.
async fn wait_for_install(
    cluster: &cluster::Cluster,
    manifests: &[Manifest],
    namespace: &str,
    args: &InitArgs,
) -> Outcome {
    match wait_with_progress(cluster, manifests, args.timeout, "init").await {
        Ok(()) => {
            output::done(&format!("the runner is running in namespace {namespace}"));
            Outcome::Ok
        }
        Err(outcome) => outcome,
    }
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
}
