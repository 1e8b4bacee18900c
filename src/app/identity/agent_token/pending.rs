//! A rotation of the agent token under way, as the installation record
//! keeps it: the names a rotation gives, the checks that the recorded one
//! is this install's (the record's annotation is a claim: people with
//! patch rights on the record may have written it), and the note `info`
//! shows while one is unfinished.

use serde::{Deserialize, Serialize};

use crate::app::session::outcome::Outcome;
use crate::cluster::{rotation, Cluster};
use crate::output::info::InstallationInfo;
use crate::platform::Agent;
use crate::render::RECORD_SECRET;

/// The longest agent name cf-runner writes (the values' `AgentId` limit).
pub(crate) const MAX_NAME: usize = 253;

/// A rotation under way, as the record keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Pending {
    /// The agent being replaced.
    pub from: String,
    #[serde(rename = "fromId")]
    pub from_id: String,
    /// The agent replacing it.
    pub to: String,
}

/// The name after `current`: `<base>-r2`, then `-r3`…, where `base` is
/// `current` without its own `-r<N>`; cut so it stays within [`MAX_NAME`].
pub(crate) fn next_name(current: &str, skip: usize) -> String {
    let (base, n) = match current.rsplit_once("-r") {
        Some((base, n))
            if !base.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) =>
        {
            (base, n.parse::<usize>().unwrap_or(1))
        }
        _ => (current, 1),
    };
    let suffix = format!("-r{}", n + 1 + skip);
    let mut base = base.to_string();
    while base.len() + suffix.len() > MAX_NAME {
        base.pop();
    }
    format!("{base}{suffix}")
}

/// The command that rotates the agent token of the install in `namespace`.
pub(crate) fn rotate_command(namespace: &str) -> String {
    format!("cf-runner renew agent-token --kube-namespace {namespace}")
}

/// Adds to what `info` shows of one installation a note when a rotation
/// stopped half-way, with the command that finishes it.
pub(crate) async fn annotate(cluster: &Cluster, info: &mut InstallationInfo) {
    let Ok(Some(text)) = rotation::pending(&cluster.client, &info.namespace, RECORD_SECRET).await
    else {
        return;
    };
    let Ok(p) = serde_json::from_str::<Pending>(&text) else {
        return;
    };
    info.notes.push(format!(
        "a rotation of the agent token (agent {} to agent {}) stopped half-way; run `{}` to finish it",
        p.from,
        p.to,
        rotate_command(&info.namespace)
    ));
}

/// A refusal to act on the platform (exit 3), before anything is written.
pub(crate) fn refused(what: String, fix: String) -> Outcome {
    Outcome::FailedWithCode(anyhow::anyhow!(what), Some(fix), 3)
}

/// A refusal to finish the recorded rotation: the annotation is a claim,
/// and this one does not fit the agent the install runs.
pub(crate) fn refused_pending(what: String, namespace: &str) -> Outcome {
    refused(
        format!("{what}: cf-runner finishes only a rotation of the agent this install runs; nothing was changed"),
        format!(
            "the annotation holds no secret, so people with patch rights on the record may have written it: find out \
             who (`kubectl -n {namespace} get secret {RECORD_SECRET} --show-managed-fields -o yaml`), remove it \
             (`kubectl -n {namespace} annotate secret {RECORD_SECRET} {}-`), then re-run `{}`",
            rotation::ROTATION_ANNOTATION,
            rotate_command(namespace)
        ),
    )
}

/// The name a rotation starts from, without its own `-r<N>`.
pub(crate) fn base(name: &str) -> &str {
    match name.rsplit_once("-r") {
        Some((b, n)) if !b.is_empty() && !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) => {
            b
        }
        _ => name,
    }
}

/// A recorded rotation must start or end at the agent the Deployment runs,
/// and replace it by a name cf-runner would give it.
pub(crate) fn check_pending(p: &Pending, running: &str, namespace: &str) -> Result<(), Outcome> {
    if running != p.from && running != p.to {
        return Err(refused_pending(
            format!(
                "the installation record says a rotation of agent {} to agent {} is under way, but the runner's \
                 Deployment runs agent {running}",
                p.from, p.to
            ),
            namespace,
        ));
    }
    // `next_name` keeps the base, cut only when the new name is as long as
    // a name may be.
    let (from_base, to_base) = (base(&p.from), base(&p.to));
    let related = p.to != p.from
        && to_base != p.to
        && (from_base == to_base || (p.to.len() == MAX_NAME && from_base.starts_with(to_base)));
    if !related {
        return Err(refused_pending(
            format!(
                "the recorded rotation replaces agent {} with agent {}, a name cf-runner never gives it (it adds -r<N>)",
                p.from, p.to
            ),
            namespace,
        ));
    }
    Ok(())
}

/// The runtimes a rotation may move: before the switch, an agent left by a
/// stopped run serves none but the old agent's; after it, the new agent
/// already serves all of the old one's. Anything else means the recorded
/// rotation names agents that are not this install's.
pub(crate) fn check_runtimes_moved(
    p: &Pending,
    old: Option<&Agent>,
    new: Option<&Agent>,
    switched: bool,
    namespace: &str,
) -> Result<(), Outcome> {
    let (old_runtimes, new_runtimes) = (
        old.map(|a| a.runtimes.clone()).unwrap_or_default(),
        new.map(|a| a.runtimes.clone()).unwrap_or_default(),
    );
    let (part, whole, part_name) = if switched {
        (&old_runtimes, &new_runtimes, &p.from)
    } else {
        (&new_runtimes, &old_runtimes, &p.to)
    };
    let strange: Vec<&String> = part.iter().filter(|r| !whole.contains(r)).collect();
    if strange.is_empty() {
        return Ok(());
    }
    Err(refused_pending(
        format!(
            "the recorded rotation would move runtime(s) {} of agent {part_name}, which the agent it pairs it with \
             does not serve",
            strange.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
        ),
        namespace,
    ))
}
