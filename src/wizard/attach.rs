//! The question an install asks when the cluster already runs a cf-runner
//! agent: install another runner, or attach a runtime in another namespace
//! to the agent found (what `cf-runner runtime attach` does). Asked only for
//! an install, only when the namespace was not given, and only when the
//! cluster has an agent Deployment carrying cf-runner's labels: a user who
//! has no agent yet sees nothing new.

use serde_json::Value;

use super::session::Session;
use super::{Choice, Mode, PromptError, Question};

/// An attach the wizard decided on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttachTo {
    /// Namespace of the agent found in the cluster.
    pub agent_namespace: String,
    /// Namespace of the new runtime (it must exist).
    pub namespace: String,
}

impl Session<'_> {
    /// The agent to attach to, when the user picks one the cluster has;
    /// `None` for an install as always.
    pub(super) fn ask_agent(&mut self) -> Result<Option<String>, PromptError> {
        if self.setup.mode != Mode::Install || self.given_text("Namespace").is_some() {
            return Ok(None);
        }
        let facts = self.facts();
        let agents = facts.agents.clone();
        if agents.is_empty() {
            return Ok(None);
        }
        self.section("Agent");
        let mut choices = vec![Choice::new("Install a new runner", "its own agent")];
        choices.extend(agents.iter().map(|ns| {
            Choice::new(
                format!("Attach to the agent already installed in namespace {ns}"),
                "a runtime in another namespace",
            )
        }));
        let q = Question::new(
            "agent",
            "Runner",
            "cf-runner found an agent in this cluster: it can serve builds in another namespace too, without a second agent.",
        );
        let i = self.select(q, &choices, 0)?;
        if i == 0 {
            self.row("Agent", "a new one", false);
            return Ok(None);
        }
        let agent = agents[i - 1].clone();
        self.row("Agent", format!("attach to namespace {agent}"), false);
        Ok(Some(agent))
    }

    /// The runtime's namespace: an existing one, not an agent's.
    pub(super) fn ask_runtime_namespace(&mut self, agent: &str) -> Result<String, PromptError> {
        let facts = self.facts();
        // A namespace is "ours" here when it holds an install of its own.
        let known: Option<Vec<(String, bool)>> = facts.namespaces.as_ref().map(|l| {
            l.iter()
                .map(|n| (n.name.clone(), n.ours || facts.agents.contains(&n.name)))
                .collect()
        });
        let suggestion = known
            .iter()
            .flatten()
            .find(|(n, ours)| !ours && !n.starts_with("kube-") && n != "default")
            .map(|(n, _)| n.clone())
            .unwrap_or_default();
        let checker = self.checker();
        let validate = |s: &str| {
            checker.check("Namespace", Value::String(s.to_string()))?;
            match &known {
                Some(list) => match list.iter().find(|(n, _)| n == s) {
                    None => Err(format!(
                        "{s} does not exist in the cluster: create it first (kubectl create namespace {s})"
                    )),
                    Some((_, true)) => Err(format!(
                        "{s} holds a cf-runner install of its own; pick a namespace for builds only"
                    )),
                    Some(_) => Ok(()),
                },
                None => Ok(()),
            }
        };
        let ns = self.input(
            Question::new(
                "runtime.Namespace",
                "Runtime namespace",
                format!(
                    "Where this runtime's builds run; the agent in {agent} gets rights there (pods and volume claims only)."
                ),
            ),
            &suggestion,
            &validate,
        )?;
        self.row("Runtime namespace", ns.clone(), false);
        Ok(ns)
    }
}
