//! What cf-runner acts on at the Codefresh platform, checked against facts.
//!
//! The installation record (Secret `cf-runner-values`) names the install's
//! agent and runtime environment, the runtimes Secret names the attached
//! runtimes, and a rotation under way is an annotation on the record. None
//! of them holds a secret, so teams grant `get,patch` on them to people who
//! may not delete another team's agent: what they say is a **claim**. Before
//! a command writes or deletes on the platform with the user's API key, the
//! claim is held against **facts** that a person with only those rights
//! cannot make:
//!
//! - the agent is the one the runner's live Deployment runs (its `AGENT_ID`):
//!   whoever may change that Deployment runs code as the agent already;
//! - a runtime environment is the install's when the platform's own copy of
//!   its spec sends builds to the namespace in question, and either names
//!   the cluster by the context connected to or is served by the agent the
//!   Deployment runs (a runner adopted from venonactl or the chart registered
//!   its cluster under another name).
//!
//! A claim the facts contradict is refused with exit 3, naming both, before
//! anything is written anywhere; `--yes` does not change that.

use serde_json::Value;

use crate::app::steps::register;
use crate::app::steps::session::failed;
use crate::app::Outcome;
use crate::cluster::{rotation, Cluster};
use crate::platform::{Agent, Platform};
use crate::render::runtimes::AGENT_DEPLOYMENT;
use crate::render::RECORD_SECRET;

/// The exit code of a refusal to act on a claim (the preflight's).
const REFUSED: u8 = 3;

/// The agent the runner's Deployment in `namespace` runs (its `AGENT_ID`),
/// `None` when there is no such Deployment or variable.
pub(crate) async fn running_agent(
    cluster: &Cluster,
    namespace: &str,
) -> Result<Option<String>, Outcome> {
    rotation::deployment_env(&cluster.client, namespace, AGENT_DEPLOYMENT, "AGENT_ID")
        .await
        .map_err(|e| failed(e, "reading the agent's Deployment failed"))
}

/// A rotation under way, as far as this check needs it: the agent being
/// replaced and the one replacing it.
struct Rotation<'a> {
    from: &'a str,
    to: &'a str,
}

/// The two sides of the rotation the record says is under way, if any
/// (itself a claim: [`judge_agent`] accepts it only where the Deployment
/// runs one of its sides).
async fn rotation_under_way(
    cluster: &Cluster,
    namespace: &str,
) -> Result<Option<(String, String)>, Outcome> {
    let text = rotation::pending(&cluster.client, namespace, RECORD_SECRET)
        .await
        .map_err(|e| failed(e, "reading the installation record failed"))?;
    let parsed = text.and_then(|t| serde_json::from_str::<Value>(&t).ok());
    Ok(parsed.and_then(|v| {
        let side = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        side("from").zip(side("to"))
    }))
}

/// Reads the agent the Deployment in `namespace` runs and refuses (see
/// [`judge_agent`]) when the record names another; gives the running one.
/// `alternative` ends the fix with what else the user may do.
pub(crate) async fn recorded_agent(
    cluster: &Cluster,
    namespace: &str,
    recorded: &str,
    alternative: &str,
) -> Result<Option<String>, Outcome> {
    let running = running_agent(cluster, namespace).await?;
    let rotation = match running.as_deref() {
        Some(r) if r != recorded => rotation_under_way(cluster, namespace).await?,
        _ => None,
    };
    judge_agent(
        namespace,
        recorded,
        running.as_deref(),
        rotation.as_ref().map(|(from, to)| Rotation { from, to }),
        alternative,
    )?;
    Ok(running)
}

/// Refuses when the record names another agent than the Deployment runs.
/// During a rotation (`renew agent-token` stopped half-way) the record and
/// the Deployment may each name either side of it. With no Deployment,
/// nothing is known: the caller must not act on the recorded agent.
fn judge_agent(
    namespace: &str,
    recorded: &str,
    running: Option<&str>,
    rotation: Option<Rotation<'_>>,
    alternative: &str,
) -> Result<(), Outcome> {
    let Some(running) = running else {
        return Ok(());
    };
    if running == recorded {
        return Ok(());
    }
    if let Some(r) = rotation {
        let sides = [r.from, r.to];
        if sides.contains(&running) && sides.contains(&recorded) {
            return Ok(());
        }
    }
    Err(refusal(
        format!(
            "the installation record (Secret/{RECORD_SECRET} in namespace {namespace}) names agent {recorded}, \
             but the runner's Deployment in that namespace runs agent {running}: cf-runner acts on the \
             Codefresh platform only for the agent the Deployment runs; nothing was changed"
        ),
        format!(
            "the record holds no secret, so people with patch rights on it may have changed it: find out who \
             (`kubectl -n {namespace} get secret {RECORD_SECRET} --show-managed-fields -o yaml`); once you know \
             the record is wrong, put back `agent-name: {running}` in it{alternative}"
        ),
    ))
}

fn refusal(what: String, fix: String) -> Outcome {
    Outcome::FailedWithCode(anyhow::anyhow!(what), Some(fix), REFUSED)
}

/// Where a runtime environment's builds run, as its spec says.
fn place(re: &Value) -> (String, String) {
    let text = |p: &str| {
        re.pointer(p)
            .and_then(Value::as_str)
            .unwrap_or("(none)")
            .to_string()
    };
    (
        text("/runtimeScheduler/cluster/namespace"),
        text("/runtimeScheduler/cluster/clusterProvider/selector"),
    )
}

/// What the platform holds of a runtime environment the install names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RuntimeFact {
    /// The platform has none by that name: nothing to act on.
    Gone,
    /// It runs its builds where the install says.
    Ours,
}

/// A runtime environment a command is about to act on, and where it must
/// run its builds to be the install's.
pub(crate) struct RuntimeClaim<'a> {
    pub name: &'a str,
    /// The namespace its builds must run in.
    pub namespace: &'a str,
    /// The kube context of the cluster holding that namespace.
    pub context: &'a str,
    /// Where the name came from, for the message ("the installation record").
    pub named_by: &'a str,
}

/// Checks `claim` against the platform's copy of the runtime environment.
/// `agent` is the agent the install demonstrably runs, when one does.
pub(crate) async fn runtime_claim(
    platform: &Platform,
    claim: &RuntimeClaim<'_>,
    agent: Option<&str>,
    alternative: &str,
) -> Result<RuntimeFact, Outcome> {
    let Some(re) = platform.runtime(claim.name).await.map_err(|e| {
        register::failed(
            e,
            "reading the runtime environment on the Codefresh platform",
        )
    })?
    else {
        return Ok(RuntimeFact::Gone);
    };
    if register::runs_in(&re, claim.namespace, claim.context) {
        return Ok(RuntimeFact::Ours);
    }
    let (ns, selector) = place(&re);
    if ns == claim.namespace {
        if let Some(agent) = agent {
            let served = platform
                .agents_named(agent)
                .await
                .map_err(|e| register::failed(e, "reading the agent on the Codefresh platform"))?
                .iter()
                .any(|a: &Agent| a.runtimes.iter().any(|r| r == claim.name));
            if served {
                return Ok(RuntimeFact::Ours);
            }
        }
    }
    Err(refusal(
        format!(
            "{} names runtime environment {}, but on the Codefresh platform it runs builds in namespace {ns} \
             of cluster {selector}, not in namespace {} of {}{}: cf-runner acts only on runtime environments \
             that run where the install does; nothing was changed",
            claim.named_by,
            claim.name,
            claim.namespace,
            claim.context,
            agent
                .map(|a| format!(", and the agent this install runs ({a}) does not serve it"))
                .unwrap_or_default()
        ),
        format!(
            "if the name was changed by someone with patch rights on it, put the install's own name back; \
             if the runtime environment really is this install's, remove it on the Codefresh platform \
             yourself{alternative}"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(outcome: Outcome) -> (u8, String) {
        match outcome {
            Outcome::FailedWithCode(e, hint, code) => {
                (code, format!("{e} | {}", hint.unwrap_or_default()))
            }
            _ => panic!("not a refusal"),
        }
    }

    #[test]
    fn the_record_may_name_only_the_agent_the_deployment_runs() {
        assert!(judge_agent("ns", "a", Some("a"), None, "").is_ok());
        // No Deployment: nothing to hold it against (the caller acts on none).
        assert!(judge_agent("ns", "a", None, None, "").is_ok());
        let (exit, text) = code(judge_agent("ns", "theirs", Some("ours"), None, "").unwrap_err());
        assert_eq!(exit, 3);
        assert!(text.contains("names agent theirs"), "{text}");
        assert!(text.contains("runs agent ours"), "{text}");
        assert!(text.contains("agent-name: ours"), "{text}");
    }

    #[test]
    fn a_rotation_allows_either_side_and_nothing_else() {
        let r = || {
            Some(Rotation {
                from: "a",
                to: "a-r2",
            })
        };
        assert!(judge_agent("ns", "a", Some("a-r2"), r(), "").is_ok());
        assert!(judge_agent("ns", "a-r2", Some("a"), r(), "").is_ok());
        assert!(judge_agent("ns", "theirs", Some("a"), r(), "").is_err());
        assert!(judge_agent("ns", "a", Some("theirs"), r(), "").is_err());
    }
}
