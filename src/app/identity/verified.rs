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

use crate::app::identity::register;
use crate::app::installation::verified::refusal;
use crate::app::session::outcome::{Doing, Outcome};
use crate::platform::{Agent, Platform};

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
    let Some(re) = platform
        .runtime(claim.name)
        .await
        .doing("reading the runtime environment on the Codefresh platform")?
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
                .doing("reading the agent on the Codefresh platform")?
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
