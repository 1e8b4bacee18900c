//! The install's agent as a fact, not a claim.
//!
//! The installation record (Secret `cf-runner-values`) names the install's
//! agent, and a rotation under way is an annotation on it. Neither holds a
//! secret, so people who may not act for another team's agent can still
//! patch them: what they say is a **claim**. The fact is the agent the
//! runner's live Deployment runs (its `AGENT_ID`): whoever may change that
//! Deployment runs code as the agent already. A record that names another
//! agent is refused with exit 3 before anything is written anywhere
//! ([`crate::app::identity::verified`] holds the platform's side).

use serde_json::Value;

use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster::{rotation, Cluster};
use crate::render::runtimes::AGENT_DEPLOYMENT;
use crate::render::RECORD_SECRET;

/// The exit code of a refusal to act on a claim (the preflight's).
pub(crate) const REFUSED: u8 = 3;

/// The agent the runner's Deployment in `namespace` runs (its `AGENT_ID`),
/// `None` when there is no such Deployment or variable.
pub(crate) async fn running_agent(
    cluster: &Cluster,
    namespace: &str,
) -> Result<Option<String>, Outcome> {
    rotation::deployment_env(&cluster.client, namespace, AGENT_DEPLOYMENT, "AGENT_ID")
        .await
        .doing("reading the agent's Deployment failed")
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
        .doing("reading the installation record failed")?;
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

pub(crate) fn refusal(what: String, fix: String) -> Outcome {
    Outcome::FailedWithCode(anyhow::anyhow!(what), Some(fix), REFUSED)
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
