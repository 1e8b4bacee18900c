//! The steps an install orders, with the platform (`registered`) or
//! without it (`offline`): how it runs ([`Options`]), rendering, connecting,
//! the preflight, the apply and the wait.

use std::time::Duration;

use serde_json::Value;

use crate::app::install::seams::Target;
use crate::app::session::lock::LockWait;
use crate::app::session::outcome::Outcome;
use crate::cluster::lock::NamespaceSeen;
use crate::output;
use crate::platform::{Need, Transport};
use crate::render::{self, Identity, Manifest};
use crate::values;

/// How an install runs, decided once by `init` from its flags.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// `--force-conflicts`: take over fields another manager owns.
    pub force_conflicts: bool,
    /// How long to wait for the workloads; `None` with `--no-wait`.
    pub wait: Option<Duration>,
    /// How the platform is reached (`--insecure`, `--allow-http`).
    pub transport: Transport,
    /// How a lock another run holds is waited for.
    pub lock_wait: LockWait,
}

/// The scopes a run with these options will use.
pub(crate) fn needs(values: &values::Values) -> Vec<Need> {
    let mut needs = vec![Need::Agents];
    if !values.agent_only {
        needs.push(Need::RuntimeEnvironments);
    }
    if !values.skip_cluster_integration {
        needs.push(Need::Clusters);
    }
    if values.exec_demo_pipeline {
        needs.extend([Need::Projects, Need::Pipelines]);
    }
    needs
}

pub(crate) fn render_or_fail(
    values: &values::Values,
    identity: &Identity,
    record: &Value,
) -> Result<render::Rendered, Outcome> {
    Ok(render::render(values, identity, record)?)
}

/// Renders what `identity` names and applies it whole: what the waits
/// then watch.
pub(crate) async fn render_and_apply(
    cluster: &impl Target,
    options: &Options,
    values: &values::Values,
    identity: &Identity,
    record: &Value,
) -> Result<render::Rendered, Outcome> {
    let rendered = render_or_fail(values, identity, record)?;
    cluster
        .apply(
            &rendered.manifests,
            &values.namespace,
            options.force_conflicts,
        )
        .await?;
    if let Some(note) = values::pod_identity::install_note(values) {
        output::say(&note);
    }
    Ok(rendered)
}

/// Connects and says where the runner goes.
pub(crate) async fn connect_and_announce<C: Target>(
    connect: impl AsyncFnOnce() -> Result<C, Outcome>,
    values: &values::Values,
) -> Result<C, Outcome> {
    let cluster = connect().await?;
    output::say(&format!(
        "Installing the Codefresh Runner into namespace {} of context {} ({})",
        values.namespace,
        cluster.context(),
        cluster.server()
    ));
    Ok(cluster)
}

/// The preflight against what `identity` renders, unless `SkipClusterTest`;
/// what it saw of the namespace, for the lock.
pub(crate) async fn preflight(
    cluster: &impl Target,
    values: &values::Values,
    identity: &Identity,
    record: &Value,
) -> Result<NamespaceSeen, Outcome> {
    let prelim = render_or_fail(values, identity, record)?;
    cluster.require_served(&prelim).await?;
    // The Namespace, runner Secret and record are saved before the apply:
    // without the preflight, what the install would write is still read
    // first.
    if values.skip_cluster_test {
        cluster.ownership(&prelim, &values.namespace).await?;
        return Ok(NamespaceSeen::Unknown);
    }
    cluster.preflight(&prelim, &values.namespace).await
}

/// The Namespace the install renders, if it renders one.
pub(crate) fn namespace_manifest(rendered: &render::Rendered) -> Option<&Manifest> {
    rendered.manifests.iter().find(|m| m.kind == "Namespace")
}

/// Waits after an install (unless `--no-wait`), and says the runner is running.
pub(crate) async fn wait_for_install(
    cluster: &impl Target,
    manifests: &[Manifest],
    namespace: &str,
    options: &Options,
) -> Result<(), Outcome> {
    let Some(timeout) = options.wait else {
        return Ok(());
    };
    cluster.wait(manifests, timeout).await?;
    output::done(&format!("the runner is running in namespace {namespace}"));
    Ok(())
}
