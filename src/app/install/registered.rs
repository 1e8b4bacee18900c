//! The install with a Codefresh API token: the steps in order, what the
//! run has on the platform so far, and the record it leaves.

use std::time::Duration;

use serde_json::Value;

use crate::app::identity::agent::{
    agent_of_token, ensure_agent, ensure_runtime, AgentSource, RuntimeSource,
};
use crate::app::identity::register;
use crate::app::identity::registrar::Registrar;
use crate::app::install::seams::Target;
use crate::app::install::steps::{
    connect_and_announce, namespace_manifest, needs, preflight, render_and_apply, render_or_fail,
    wait_for_install, Options,
};
use crate::app::installation::{identity, LeftBehind};
use crate::app::session::outcome::{Doing, Outcome};
use crate::output;
use crate::platform::{self, Agent, Auth, Whoami};
use crate::render::{self, Identity, Manifest};
use crate::values;

/// What this run has on the platform so far, to say on a failure what is
/// left there and how to go on.
#[derive(Default)]
pub(super) struct OnPlatform {
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
/// touched; then the install.
pub(super) async fn with_platform<C: Target>(
    options: &Options,
    loaded: &values::Loaded,
    auth: &Auth,
    connect: impl AsyncFnOnce() -> Result<C, Outcome>,
) -> Outcome {
    match register::checked_client(
        auth,
        options.transport.clone(),
        Some(&needs(&loaded.values)),
    )
    .await
    {
        Ok((platform, who)) => registered(options, loaded, &platform, &who, auth, connect).await,
        Err(o) => o,
    }
}

/// The registered install once the token passed: `--agent-token`'s agent
/// checked, the steps in order, and on a failure what the run left on the
/// platform.
pub(super) async fn registered<C: Target>(
    options: &Options,
    loaded: &values::Loaded,
    platform: &impl Registrar,
    who: &Whoami,
    auth: &Auth,
    connect: impl AsyncFnOnce() -> Result<C, Outcome>,
) -> Outcome {
    let values = &loaded.values;
    let verified_agent = match agent_of_token(platform, values).await {
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
        platform,
        connect,
        who.account_id.clone(),
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
pub(super) async fn save_record(
    cluster: &impl Target,
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
    cluster
        .save(&subset, &values.namespace, force_conflicts)
        .await
}

/// The steps of a registered install, in order.
pub(super) async fn install_registered<C: Target>(
    options: &Options,
    loaded: &values::Loaded,
    platform: &impl Registrar,
    connect: impl AsyncFnOnce() -> Result<C, Outcome>,
    account_id: Option<String>,
    verified_agent: Option<Agent>,
    made: &mut OnPlatform,
) -> Result<(), Outcome> {
    let values = &loaded.values;
    let record = &loaded.redacted_tree;
    let cluster = connect_and_announce(connect, values).await?;
    let mut identity = identity::seed(values, Some(cluster.context().to_string()));
    identity.account_id = account_id;
    identity.registered = true;
    let seen = preflight(&cluster, values, &identity, record).await?;
    // Under the lock from here to the end: what an earlier (or a
    // concurrent, finished) run left is read once nobody else writes.
    let prelim = render_or_fail(values, &identity, record)?;
    let lock = cluster
        .lock(
            &values.namespace,
            namespace_manifest(&prelim),
            options.lock_wait,
            seen,
        )
        .await?;
    let outcome = install_locked(
        options,
        loaded,
        platform,
        &cluster,
        identity,
        verified_agent,
        made,
    )
    .await;
    cluster.unlock(lock, &values.namespace).await;
    outcome
}

/// The steps of a registered install that run under the install's lock.
pub(super) async fn install_locked(
    options: &Options,
    loaded: &values::Loaded,
    platform: &impl Registrar,
    cluster: &impl Target,
    mut identity: Identity,
    verified_agent: Option<Agent>,
    made: &mut OnPlatform,
) -> Result<(), Outcome> {
    let values = &loaded.values;
    let record = &loaded.redacted_tree;
    let left = cluster.left_behind(&values.namespace).await?;
    let agent = agent_step(
        options,
        loaded,
        platform,
        cluster,
        &left,
        verified_agent,
        &mut identity,
        made,
    )
    .await?;
    if values.agent_only {
        return agent_only_steps(options, loaded, platform, cluster, identity, &agent).await;
    }
    dind_certs_step(platform, values, &left, &mut identity).await?;
    let runtime_name = runtime_step(
        platform,
        values,
        cluster.context(),
        &left,
        &mut identity,
        made,
    )
    .await?;
    account_step(platform, &runtime_name, &mut identity).await?;
    // The record now names the runtime, suffix and all.
    save_record(cluster, values, &identity, record, options.force_conflicts).await?;

    let rendered = render_and_apply(cluster, options, values, &identity, record).await?;
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
        cluster_integration(platform, cluster, values).await?;
    }
    let build_note = if values.exec_demo_pipeline {
        Some(demo_pipeline(platform, &runtime_name).await?)
    } else {
        None
    };
    let waited = wait_for_install(cluster, &rendered.manifests, &values.namespace, options).await;
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

/// The rest of an agent-only install (`AgentOnly`): no dind certificate,
/// no runtime environment, no spec. The agent keeps the runtimes the
/// platform lists for it (none when this run created it: `POST
/// /api/agents` makes an agent with an empty list, as `codefresh runner
/// init`'s agent install does; attach sets the list).
pub(super) async fn agent_only_steps(
    options: &Options,
    loaded: &values::Loaded,
    platform: &impl Registrar,
    cluster: &impl Target,
    identity: Identity,
    agent: &Agent,
) -> Result<(), Outcome> {
    let values = &loaded.values;
    let record = &loaded.redacted_tree;
    save_record(cluster, values, &identity, record, options.force_conflicts).await?;
    let rendered = render_and_apply(cluster, options, values, &identity, record).await?;
    if !values.skip_cluster_integration {
        cluster_integration(platform, cluster, values).await?;
    }
    let waited = wait_for_install(cluster, &rendered.manifests, &values.namespace, options).await;
    if agent.runtimes.is_empty() {
        output::say(&format!(
            "agent {} runs alone (config-dir mode, no runtime yet): it polls the platform and has no build to start until a runtime is attached, \
             e.g. `cf-runner runtime attach --agent-namespace {} --kube-namespace <build namespace>`",
            agent.name, values.namespace
        ));
    } else {
        output::say(&format!(
            "agent {} serves the runtimes attached to it: {}",
            agent.name,
            agent.runtimes.join(", ")
        ));
    }
    waited
}

/// The agent, and its token saved in the cluster at once, so a re-run finds it.
#[allow(clippy::too_many_arguments)]
pub(super) async fn agent_step(
    options: &Options,
    loaded: &values::Loaded,
    platform: &impl Registrar,
    cluster: &impl Target,
    left: &LeftBehind,
    verified_agent: Option<Agent>,
    identity: &mut Identity,
    made: &mut OnPlatform,
) -> Result<Agent, Outcome> {
    let values = &loaded.values;
    let wanted_agent = identity.agent_name(values);
    let (agent, agent_token, source) = ensure_agent(
        platform,
        values,
        &wanted_agent,
        cluster.context(),
        left,
        verified_agent,
    )
    .await?;
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
pub(super) async fn dind_certs_step(
    platform: &impl Registrar,
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
            let tls = crate::app::identity::certificate::sign(platform, &values.namespace).await?;
            output::done(
                "dind TLS certificate signed by the platform (the key stays in the cluster)",
            );
            tls
        }
    };
    identity.dind_ca = Some(ca);
    identity.dind_cert = Some(cert);
    identity.dind_key = Some(key);
    Ok(())
}

/// The runtime environment: found or registered, its name in the identity.
pub(super) async fn runtime_step(
    platform: &impl Registrar,
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
pub(super) async fn account_step(
    platform: &impl Registrar,
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
        return Err(Outcome::failed(
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
pub(super) async fn attach_step(
    platform: &impl Registrar,
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
            .doing("attaching the runtime environment to the agent")?;
    }
    let spec = register::spec_to_send(
        &rendered.runtime_environment,
        identity.account_id.as_deref(),
    );
    register::send_spec(platform, runtime_name, &spec).await?;
    output::done(&format!(
        "runtime environment {runtime_name} attached to agent {}",
        agent.name
    ));
    if values.set_default_runtime {
        platform
            .set_default_runtime(runtime_name)
            .await
            .doing("making the runtime environment the account's default")?;
        output::done(&format!(
            "{runtime_name} is the account's default runtime environment"
        ));
    }
    Ok(())
}

pub(super) async fn cluster_integration(
    platform: &impl Registrar,
    cluster: &impl Target,
    values: &values::Values,
) -> Result<(), Outcome> {
    let existing = platform
        .clusters()
        .await
        .doing("listing cluster integrations")?;
    if existing
        .iter()
        .any(|c| c.get("selector").and_then(Value::as_str) == Some(cluster.context()))
    {
        output::done(&format!(
            "cluster integration {} exists; left as it is",
            cluster.context()
        ));
        return Ok(());
    }
    let token = cluster
        .service_account_token(
            &values.namespace,
            render::CLUSTER_READER_TOKEN_SECRET,
            Duration::from_secs(30),
        )
        .await?;
    let Some((token, ca)) = token else {
        return Err(Outcome::failed(
            anyhow::anyhow!("Kubernetes did not fill Secret/codefresh-cluster-reader-token within 30s"),
            Some("check that kube-controller-manager runs its token controller, or re-run with --skip-cluster-integration".into()),
        ));
    };
    let host = values
        .kubernetes_host
        .clone()
        .unwrap_or_else(|| cluster.server().trim_end_matches('/').to_string());
    platform
        .create_cluster_integration(cluster.context(), &host, &token, &ca)
        .await
        .doing("creating the cluster integration")?;
    output::done(&format!(
        "cluster integration {} created (behind the firewall)",
        cluster.context()
    ));
    Ok(())
}

pub(super) async fn demo_pipeline(
    platform: &impl Registrar,
    runtime: &str,
) -> Result<String, Outcome> {
    let name = platform
        .ensure_demo_pipeline(runtime)
        .await
        .doing("creating the demo pipeline")?;
    let build = platform
        .run_pipeline(&name, runtime)
        .await
        .doing("running the demo pipeline")?;
    output::done(&format!("demo pipeline {name} started"));
    Ok(format!(
        "{}/build/{}",
        platform.url(),
        platform::segment(&build)
    ))
}
