//! `upgrade`: re-renders an installation with this version's
//! templates from the values it was made with, plus what the user changes
//! now, applies that, and removes what this render no longer has (prune by
//! labels).
//!
//! The values come from the record Secret. Its secrets are redacted, so the
//! real ones are read back from the Secrets that hold them. Precedence, low
//! to high: stored values < new `--values` files < `--set-value` /
//! `--set-file` < flags. What cannot change in place (the namespace, the
//! storage of the dind volumes) is refused before anything is written, with
//! the way to do it instead. The plan itself is `installation::plan`.

use crate::app::identity::register::{self, TokenFrom};
use crate::app::identity::verified;
use crate::app::installation::plan::{self, Plan};
use crate::app::installation::{names, pick_installation};
use crate::app::session::connect::connect_flags;
use crate::app::session::converge;
use crate::app::session::lock::{self, LockWait};
use crate::app::session::options::KubeOptions;
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster::{self, delete, Cluster};
use crate::output;
use crate::platform::{Need, Platform, Transport};
use crate::render;
use crate::values::{self, Problem, Problems, Values};

/// What `upgrade` is asked to do besides the new input, from its flags.
#[derive(Debug, Clone)]
pub struct UpgradeOptions {
    /// Where the installation is.
    pub kube: KubeOptions,
    /// The API token given (`None`: `$CF_API_KEY`, then `~/.cfconfig`).
    pub token: Option<String>,
    /// The platform's URL given.
    pub url: Option<String>,
    /// Send the API key over plain http:// (other than to localhost).
    pub allow_http: bool,
    /// Take over fields other field managers own.
    pub force_conflicts: bool,
    /// How long to wait for the runner to be ready, and for another run's lock.
    pub timeout: std::time::Duration,
    /// Do not wait for the runner to be ready.
    pub no_wait: bool,
    /// Fail at once when another run holds the install's lock.
    pub no_wait_for_lock: bool,
    /// Never ask.
    pub yes: bool,
}

/// Finds the installation and upgrades it under its lock, from reading it
/// to the end.
pub(crate) async fn locked(args: &UpgradeOptions, new_input: values::Input) -> Result<(), Outcome> {
    let cluster = connect_flags(&args.kube).await?;
    let Some(namespace) = pick_installation(&cluster, &args.kube, "upgrade").await? else {
        return Err(Outcome::failed(
            anyhow::anyhow!(
                "no Codefresh Runner is installed in context {}",
                cluster.context
            ),
            "install one with `cf-runner init`",
        ));
    };
    let how = LockWait::of(args.no_wait_for_lock, args.timeout);
    let held = lock::take(&cluster, &namespace, "upgrade", how, None).await?;
    let upgraded = match plan::plan(new_input, &cluster, &namespace).await {
        Ok(plan) => upgrade(args, plan, &cluster, &namespace).await,
        Err(outcome) => Err(outcome),
    };
    lock::release(held, &namespace).await;
    upgraded
}

/// What the user answered when asked to go ahead.
enum Answer {
    Proceed,
    Declined,
}

/// The steps of an upgrade, in order. `Err` is the outcome to return.
async fn upgrade(
    args: &UpgradeOptions,
    plan: Plan,
    cluster: &Cluster,
    namespace: &str,
) -> Result<(), Outcome> {
    crate::app::session::preflight::require_served(cluster, &plan.rendered.manifests).await?;
    let sync = platform_sync(args, &plan).await?;
    let spec = match &sync {
        Some(sync) => spec_for_platform(sync, &plan)?,
        None => SpecOnPlatform::NoToken,
    };
    show_plan(&plan, cluster, namespace, &spec);
    if let Answer::Declined = confirm(args, &plan, cluster, namespace).await? {
        output::say("Nothing was changed.");
        return Ok(());
    }
    converge::apply_with_progress(
        cluster,
        &plan.rendered.manifests,
        namespace,
        args.force_conflicts,
        "upgrade",
    )
    .await?;
    prune(cluster, &plan, args.timeout).await?;
    if let (Some(sync), SpecOnPlatform::Send(spec), Some(name)) = (&sync, &spec, &plan.runtime_name)
    {
        send_spec(&sync.client, name, spec).await?;
    }
    if !args.no_wait {
        converge::wait_with_progress(cluster, &plan.rendered.manifests, args.timeout, "upgrade")
            .await?;
    }
    output::done(&format!(
        "the Codefresh Runner in namespace {namespace} is upgraded to cf-runner {}",
        env!("CARGO_PKG_VERSION")
    ));
    Ok(())
}

/// The platform client for sending the spec, for a registered install. A
/// platform problem does not stop an upgrade that would not change the
/// spec there: it is said, and the spec is not re-sent.
async fn platform_sync(args: &UpgradeOptions, plan: &Plan) -> Result<Option<Sync>, Outcome> {
    let Some(name) = &plan.runtime_name else {
        return Ok(None);
    };
    let agent = plan.identity.agent_name(&plan.loaded.values);
    let transport = crate::app::installation::plan::platform_transport(plan, args.allow_http);
    match platform_for_upgrade(
        args,
        transport,
        &plan.loaded.values,
        name,
        &agent,
        plan.spec_changed,
    )
    .await
    {
        Ok(s) => Ok(s),
        Err(Outcome::Failed(e, _)) if !plan.spec_changed => {
            output::warn(&format!(
                "the runtime environment's spec is unchanged and was not re-sent: {}",
                crate::text::chain_text(e.as_ref())
            ));
            Ok(None)
        }
        Err(outcome) => Err(outcome),
    }
}

/// Says what the upgrade will do: versions, changed values, objects,
/// the runtime spec and what is removed.
fn show_plan(plan: &Plan, cluster: &Cluster, namespace: &str, spec: &SpecOnPlatform) {
    output::say(&format!(
        "Upgrading the Codefresh Runner in namespace {namespace} of context {} ({}): cf-runner {} → {}",
        cluster.context,
        cluster.server,
        plan.version,
        env!("CARGO_PKG_VERSION")
    ));
    let mut changes = plan::values_changes(&plan.stored_redacted, &plan.record_tree);
    changes.extend(plan::credential_changes(
        &plan.stored_url_credentials,
        &plan.loaded.values.url_credentials,
    ));
    if changes.is_empty() {
        output::say("  values: unchanged");
    } else {
        output::say("  values:");
        for c in &changes {
            output::say(&format!("    {c}"));
        }
    }
    output::say(&format!(
        "  apply: {} objects",
        plan.rendered.manifests.len()
    ));
    if let Some(name) = &plan.runtime_name {
        let change = if plan.spec_changed {
            "changed"
        } else {
            "unchanged"
        };
        output::say(&format!(
            "  runtime environment {name}: {}",
            match spec {
                SpecOnPlatform::Send(_) => format!("spec {change}, sent to the Codefresh platform"),
                SpecOnPlatform::Held =>
                    format!("spec {change}; the Codefresh platform holds it already, not re-sent"),
                SpecOnPlatform::NoToken => {
                    "spec unchanged, not re-sent (no Codefresh API token)".to_string()
                }
            }
        ));
    }
    if !plan.prune.is_empty() {
        output::say(&format!("  remove: {}", names(&plan.prune)));
    }
}

/// Unless `--yes`: shows the diff of every object and asks.
async fn confirm(
    args: &UpgradeOptions,
    plan: &Plan,
    cluster: &Cluster,
    namespace: &str,
) -> Result<Answer, Outcome> {
    if args.yes {
        return Ok(Answer::Proceed);
    }
    // What the apply would change, object by object, as `diff` shows it.
    match cluster::diff::diff_all(&cluster.client, &plan.rendered.manifests, &plan.prune).await {
        Ok(objects) => plan::print_diffs(&objects, namespace, &cluster.context, true),
        Err(e) => output::warn(&format!(
            "the server-side dry-run failed, no diff to show: {e}"
        )),
    }
    match output::confirm("Upgrade?", false) {
        Ok(true) => Ok(Answer::Proceed),
        Ok(false) => Ok(Answer::Declined),
        Err(e) => Err(Outcome::Failed(
            anyhow::Error::new(e).context("reading the answer failed"),
            Some("re-run with --yes to skip the question".into()),
        )),
    }
}

/// Removes the labelled objects this version no longer installs.
async fn prune(
    cluster: &Cluster,
    plan: &Plan,
    timeout: std::time::Duration,
) -> Result<(), Outcome> {
    if plan.prune.is_empty() {
        return Ok(());
    }
    let phases = delete::plan(plan.prune.clone());
    let on_event = |e: &delete::Event| match e {
        delete::Event::Gone(o) => output::removed(&o.display_name(), o.namespace.as_deref()),
        delete::Event::Waiting(what) => output::note(&delete::waiting_note(&cluster.server, what)),
        delete::Event::Phase(..) => {}
    };
    let deleted = delete::delete_all(&cluster.client, &phases, timeout, &on_event).await;
    if !deleted.ok() {
        return Err(converge::delete_failed(&deleted, timeout));
    }
    output::done(&format!(
        "removed {} object(s) this version no longer installs",
        deleted.gone.len()
    ));
    Ok(())
}

/// The platform's side of an upgrade that has a token: the client, the
/// account the spec is sent for, and the runtime environment the platform
/// holds now.
struct Sync {
    client: Platform,
    account_id: Option<String>,
    current: serde_json::Value,
}

/// What the upgrade does with the runtime spec on the platform.
enum SpecOnPlatform {
    /// The platform's differs (or drifted): this one is sent, once the
    /// cluster is upgraded.
    Send(serde_json::Value),
    /// The platform holds this spec already: nothing is sent (an upgrade
    /// with unchanged inputs writes nothing there either).
    Held,
    /// No platform at hand (no token, or an unchanged spec and a platform
    /// that failed, which was said): nothing is compared or sent.
    NoToken,
}

/// The spec this upgrade registers, compared with the one the platform
/// holds, as `init`'s re-run compares it.
fn spec_for_platform(sync: &Sync, plan: &Plan) -> Result<SpecOnPlatform, Outcome> {
    let mut identity = plan.identity.clone();
    identity.account_id = sync.account_id.clone();
    let rendered = render::render(&plan.loaded.values, &identity, &plan.record_tree)
        .map_err(Outcome::render_failed)?;
    let spec = register::spec_to_send(&rendered.runtime_environment, sync.account_id.as_deref());
    Ok(
        if register::spec_differences(&spec, &sync.current).is_empty() {
            SpecOnPlatform::Held
        } else {
            SpecOnPlatform::Send(spec)
        },
    )
}

/// Sends the new runtime spec, once the cluster is upgraded.
async fn send_spec(client: &Platform, name: &str, spec: &serde_json::Value) -> Result<(), Outcome> {
    // The plan already found that the platform's spec differs.
    register::put_spec(
        client,
        name,
        spec,
        None,
        "sending the runtime environment's spec failed (the cluster is upgraded; \
         re-run `cf-runner upgrade` to send it again)",
    )
    .await?;
    output::done(&format!(
        "runtime environment {name}: the platform has the new spec"
    ));
    Ok(())
}

/// The platform client, the account id for sending the runtime spec and the
/// runtime environment the platform holds, or `None` when there is no token
/// and the spec did not change. No token and
/// a changed spec is bad input.
async fn platform_for_upgrade(
    args: &UpgradeOptions,
    transport: Transport,
    values: &Values,
    runtime: &str,
    agent: &str,
    spec_changed: bool,
) -> Result<Option<Sync>, Outcome> {
    let flag = args.token.as_ref().map(values::Secret::new);
    let found = register::find_token(TokenFrom {
        flag: flag.as_ref(),
        values: values.token.as_ref(),
        cli_url: args.url.as_deref(),
        named: Some(crate::platform::auth::NamedUrl {
            url: &values.codefresh_host,
            origin: "CodefreshHost of the installation (its record, or --values)",
        }),
    })
    .doing("finding the Codefresh API token")?;
    let Some(auth) = found else {
        if !spec_changed {
            return Ok(None);
        }
        return Err(Outcome::BadInput(Problems(vec![Problem::new(
            "Token",
            None,
            format!(
                "is needed: this upgrade changes the spec of runtime environment {runtime}, and builds keep the old \
                 spec until the platform gets it (no token in --token, CF_API_KEY, the installed monitor or {})",
                crate::platform::auth::cfconfig_path().display()
            ),
            "pass --token with a Codefresh API key (scope Runner-Installation), or set CF_API_KEY, then re-run `cf-runner upgrade`",
        )])));
    };
    let (client, who) =
        register::checked_client(&auth, transport, Some(&[Need::RuntimeEnvironments])).await?;
    // The record names the runtime: its spec is sent only where it runs
    // this install's builds (the agent was checked with the plan).
    let claim = verified::RuntimeClaim {
        name: runtime,
        namespace: &values.namespace,
        context: values.context.as_deref().unwrap_or_default(),
        named_by: "the installation record",
    };
    verified::runtime_claim(&client, &claim, Some(agent), "").await?;
    let current = client
        .runtime(runtime)
        .await
        .doing("reading the runtime environment")?;
    let Some(current) = current else {
        return Err(Outcome::Failed(
            anyhow::anyhow!("runtime environment {runtime} is not on the Codefresh platform {}", client.url()),
            Some("re-run `cf-runner init` to register it again, or pass --token for the account it was installed with".into()),
        ));
    };
    let account_id = who
        .account_id
        .or_else(|| register::account_of_runtime(&current));
    Ok(Some(Sync {
        client,
        account_id,
        current,
    }))
}
