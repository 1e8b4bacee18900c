//! The install as it stands includes the runtimes attached to its agent:
//! an agent that serves them runs in config-dir mode and holds their files.
//! A re-render of the agent (`upgrade`, `diff`, the renewals, a re-run of
//! `init`) keeps both, and never prunes the runtimes' files or credentials.

use crate::app::session::outcome::Outcome;
use crate::cluster::inventory::LiveObject;
use crate::cluster::{runtimes as live, Cluster};
use crate::render::runtimes::{
    config_dir_mode, config_manifest, ACCESS_NAME, AGENT_DEPLOYMENT, CONFIG_SECRET,
};
use crate::render::{Component, Manifest, LABEL_COMPONENT};

/// For `upgrade` and `diff` of an agent that serves attached runtimes:
/// keep it in config-dir mode (with the files' hash, so nothing rolls
/// without a change), and never prune its runtimes' files or credentials.
pub(crate) async fn keep_attached(
    cluster: &Cluster,
    namespace: &str,
    manifests: &mut [Manifest],
    prune: &mut Vec<LiveObject>,
) -> Result<(), Outcome> {
    prune.retain(|o| o.label(LABEL_COMPONENT) != Some(Component::RuntimeAccess.as_str()));
    for changed in kept_attached(cluster, namespace, manifests).await? {
        if let Some(m) = manifests
            .iter_mut()
            .find(|m| m.kind == changed.kind && m.name == changed.name)
        {
            *m = changed;
        }
    }
    Ok(())
}

/// What [`keep_attached`] changes, without changing it: the agent's
/// Deployment in config-dir mode when the agent serves attached runtimes
/// (and the files Secret an agent-only render holds, with those files),
/// else nothing. For an apply that reads this side by side with its own
/// reads (`converge::apply_with_progress_after`).
pub(crate) async fn kept_attached(
    cluster: &Cluster,
    namespace: &str,
    manifests: &[Manifest],
) -> Result<Vec<Manifest>, Outcome> {
    let files = match live::read_config(&cluster.client, namespace, CONFIG_SECRET).await {
        Ok(Some(c)) if c.ours && !c.files.is_empty() => c.files,
        Ok(_) => return Ok(Vec::new()),
        Err(e) => {
            return Err(Outcome::from_cluster(
                e,
                "reading the agent's runtimes failed",
            ))
        }
    };
    let mut changed = Vec::new();
    if let Some(d) = manifests
        .iter()
        .find(|m| m.kind == "Deployment" && m.name == AGENT_DEPLOYMENT)
    {
        let mut d = d.clone();
        config_dir_mode(&mut d, &files);
        changed.push(d);
    }
    // An agent installed alone renders its (empty) files Secret: the
    // files attach wrote are kept.
    if manifests
        .iter()
        .any(|m| m.kind == "Secret" && m.name == CONFIG_SECRET)
    {
        changed.push(config_manifest(namespace, &files));
    }
    Ok(changed)
}

/// Whether `objects` (one namespace's) are those of a runtime attached to
/// an agent of another namespace: the agent's access objects are there, and
/// no runtimes file (so it is not the agent's own namespace).
pub(crate) fn is_attached_runtime(objects: &[LiveObject]) -> bool {
    let access =
        |o: &&LiveObject| o.label(LABEL_COMPONENT) == Some(Component::RuntimeAccess.as_str());
    let served = objects
        .iter()
        .filter(access)
        .any(|o| o.kind == "ServiceAccount" && o.name == ACCESS_NAME);
    let agent_here = objects
        .iter()
        .filter(access)
        .any(|o| o.kind == "Secret" && o.name == CONFIG_SECRET);
    served && !agent_here
}
