//! The platform side of a `delete`: the agent and runtime environment the
//! record names, checked against what the cluster runs before anything is
//! deleted, the stray agents that racing runs left, and the client that
//! cleans them (none with `--keep-platform`, or for an offline install).

use crate::app::identity::{register, verified};
use crate::app::install::delete::options::DeleteOptions;
use crate::app::installation::Installation;
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster::inventory::Record;
use crate::cluster::Cluster;
use crate::output;
use crate::platform::{Need, Platform};

/// What `delete` removes on the platform: nothing without a client (kept,
/// or not registered), else the checked agent and runtime environment and
/// the stray agents racing runs left.
pub(crate) struct PlatformSide {
    pub(crate) client: Option<Platform>,
    pub(crate) agent: Option<String>,
    pub(crate) runtime: Option<String>,
    pub(crate) strays: Vec<String>,
}

/// The platform side of a delete: checked before anything is deleted,
/// cleaned before the cluster (whose record names what to clean).
pub(crate) async fn platform_side(
    args: &DeleteOptions,
    cluster: &Cluster,
    namespace: &str,
    inst: &Installation,
    record: &Record,
    agent: Option<String>,
) -> Result<PlatformSide, Outcome> {
    let client = platform_for_delete(args, inst, record).await?;
    let Some(platform) = &client else {
        return Ok(PlatformSide {
            client,
            agent,
            runtime: None,
            strays: Vec::new(),
        });
    };
    let runtime = runtime_to_clean(platform, record, agent.as_deref(), cluster, namespace).await?;
    let strays = crate::app::identity::unregister::stray_agents(
        platform,
        agent.as_deref(),
        runtime.as_deref(),
        &cluster.context,
        namespace,
    )
    .await
    .doing("listing the agents on the Codefresh platform")?;
    Ok(PlatformSide {
        client,
        agent,
        runtime,
        strays,
    })
}

/// True when the record names something on the platform that this run
/// would clean there.
pub(crate) fn platform_named(args: &DeleteOptions, record: &Record) -> bool {
    !args.keep_platform
        && record.registered != Some(false)
        && (record.agent_name.is_some() || record.runtime_name.is_some())
}

/// How to delete without acting on the platform, for refusals.
pub(crate) fn keep_platform_instead(namespace: &str) -> String {
    format!(
        "; or run `cf-runner delete --kube-namespace {namespace} --keep-platform` to delete only what is in the \
         cluster and leave the platform as it is"
    )
}

/// The agent to remove from the platform: the recorded one, once the
/// runner's Deployment shows it runs it. A record naming another agent is
/// refused; with no Deployment left, no agent is known to be this install's
/// and none is removed (said).
pub(crate) async fn agent_to_clean(
    cluster: &Cluster,
    namespace: &str,
    record: &Record,
) -> Result<Option<String>, Outcome> {
    let Some(recorded) = record.agent_name.as_deref() else {
        return Ok(None);
    };
    let running = crate::app::installation::verified::recorded_agent(
        cluster,
        namespace,
        recorded,
        &keep_platform_instead(namespace),
    )
    .await?;
    if running.is_none() {
        output::warn(&format!(
            "the installation record names agent {recorded}, but no runner Deployment in namespace {namespace} \
             runs an agent: nothing shows that agent is this install's, so it stays on the Codefresh platform \
             (remove it there once you know it is)"
        ));
    }
    Ok(running)
}

/// The runtime environment to remove from the platform: the recorded one,
/// once the platform shows it runs this install's builds; `None` for an
/// agent installed alone. One that runs elsewhere is refused.
pub(crate) async fn runtime_to_clean(
    client: &Platform,
    record: &Record,
    agent: Option<&str>,
    cluster: &Cluster,
    namespace: &str,
) -> Result<Option<String>, Outcome> {
    let Some(name) = record.runtime_name.as_deref().filter(|n| !n.is_empty()) else {
        return Ok(None);
    };
    let claim = verified::RuntimeClaim {
        name,
        namespace,
        context: &cluster.context,
        named_by: "the installation record",
    };
    verified::runtime_claim(client, &claim, agent, &keep_platform_instead(namespace)).await?;
    Ok(Some(name.to_string()))
}

/// A client for cleaning the platform, with its token and scopes checked;
/// `None` when there is nothing to clean there (or `--keep-platform`).
pub(crate) async fn platform_for_delete(
    args: &DeleteOptions,
    inst: &Installation,
    record: &Record,
) -> Result<Option<Platform>, Outcome> {
    let offline = record.registered == Some(false);
    if offline && !args.keep_platform {
        output::note("the install was offline (registered nothing on the Codefresh platform): there is nothing to clean there");
    }
    if args.keep_platform
        || offline
        || (record.agent_name.is_none() && record.runtime_name.is_none())
    {
        return Ok(None);
    }
    let host = inst.values.as_ref().map(|v| v.codefresh_host.clone());
    let auth = match register::resolve(
        &args.platform,
        host.as_deref().map(|url| crate::platform::auth::NamedUrl {
            url,
            origin: register::RECORDED_HOST,
        }),
    ) {
        Ok(Some(a)) => a,
        Ok(None) if record.registered.is_none() => {
            // A record older than the platform client: it may have
            // been an offline install, so no token is no error.
            output::warn(&format!(
                "no Codefresh API token: if agent {} and runtime environment {} exist on the platform, \
                 remove them there (or re-run with --token)",
                record.agent_name.as_deref().unwrap_or("(none)"),
                record.runtime_name.as_deref().unwrap_or("(none)")
            ));
            return Ok(None);
        }
        Ok(None) => {
            return Err(register::token_needed(
                "delete",
                "remove the agent and runtime environment from Codefresh",
                ", or pass --keep-platform to leave them there",
            ))
        }
        Err(e) => return Err(Outcome::from_platform(e, "finding the Codefresh API token")),
    };
    let needs = [Need::Agents, Need::RuntimeEnvironments, Need::Clusters];
    let transport = register::transport(&args.platform);
    let (client, _) = register::checked_client(&auth, transport, Some(&needs)).await?;
    Ok(Some(client))
}
