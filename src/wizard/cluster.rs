//! Questions about the cluster: which kube context, and which namespace
//! (suggested from what the cluster already has). Also what an install
//! needs that no one could answer, and the read-only look-up of the
//! cluster's facts the other questions suggest from.

use serde_json::Value;

use super::session::{plural, Session};
use super::{Choice, Facts, Mode, NamespaceFact, PromptError, Question, Setup};
use crate::values::{self, tree, Problem};

/// Answers an install needs that nobody can give: without a terminal (or
/// with `--yes`) every open question, with a terminal only those the wizard
/// cannot ask either. Each problem names the flag or key that answers it.
pub fn required_but_missing(setup: &Setup, interactive: bool) -> Vec<Problem> {
    let mut out = Vec::new();
    if setup.mode != Mode::Install || tree::lookup(&setup.given, "Context").is_some() {
        return out;
    }
    let contexts = &setup.contexts;
    if contexts.names.is_empty() {
        out.push(Problem::new(
            "Context",
            None,
            match &contexts.path {
                Some(p) => {
                    format!("is required to install, and the kubeconfig {p} has no contexts")
                }
                None => "is required to install, and no kubeconfig was found".to_string(),
            },
            "pass --kube-config-path (or set KUBECONFIG) and --kube-context-name",
        ));
    } else if contexts.current.is_none() && !interactive {
        out.push(Problem::new(
            "Context",
            None,
            format!(
                "is required to install, and the kubeconfig{} has no current context",
                contexts
                    .path
                    .as_ref()
                    .map(|p| format!(" {p}"))
                    .unwrap_or_default()
            ),
            format!(
                "pass --kube-context-name with one of: {}",
                contexts.names.join(", ")
            ),
        ));
    }
    out
}

impl Session<'_> {
    pub(super) fn ask_context(&mut self) -> Result<Option<String>, PromptError> {
        self.section("Kubernetes cluster");
        if let Some(c) = self.given_text("Context") {
            self.row("Context", c.clone(), true);
            return Ok(Some(c));
        }
        let setup = self.setup;
        let contexts = &setup.contexts;
        let from = contexts
            .path
            .as_ref()
            .map(|p| format!(" (from {p})"))
            .unwrap_or_default();
        match contexts.names.len() {
            0 => {
                let text = match &self.setup.mode {
                    Mode::Install => "No kubeconfig context found".to_string(),
                    _ => "No kubeconfig context found; the manifests name a placeholder context"
                        .to_string(),
                };
                self.note(&text);
                self.row("Context", "none", false);
                Ok(None)
            }
            1 => {
                let only = contexts.names[0].clone();
                self.note(&format!("Using {only}, the only kube context{from}"));
                self.set("Context", Value::String(only.clone()));
                self.row("Context", only.clone(), false);
                Ok(Some(only))
            }
            _ => {
                let choices: Vec<Choice> = contexts
                    .names
                    .iter()
                    .map(|n| {
                        let hint = if contexts.current.as_ref() == Some(n) {
                            "current"
                        } else {
                            ""
                        };
                        Choice::new(n.clone(), hint)
                    })
                    .collect();
                let default = contexts
                    .current
                    .as_ref()
                    .and_then(|c| contexts.names.iter().position(|n| n == c))
                    .unwrap_or(0);
                let q = Question::new(
                    "Context",
                    "Kube context",
                    format!("The cluster to install into{from}."),
                );
                let i = self.select(q, &choices, default)?;
                let picked = contexts.names[i].clone();
                self.set("Context", Value::String(picked.clone()));
                self.row("Context", picked.clone(), false);
                Ok(Some(picked))
            }
        }
    }

    /// The chosen context's cluster facts, looked up on first use.
    pub(super) fn facts(&mut self) -> Facts {
        let Some(context) = self.context.clone() else {
            return Facts::default();
        };
        if let Some(f) = self.facts.get(&context) {
            return f.clone();
        }
        // The look-up belongs to the context just chosen, not to the
        // section whose question needs it.
        self.show_intro();
        let mut facts = Facts::default();
        let cluster = &mut self.cluster;
        self.p.busy(
            &format!("Looking at {context} for suggestions (read-only)"),
            &mut || facts = cluster.facts(&context),
        );
        match &facts.unreachable {
            Some(why) => self.p.note(&format!(
                "Could not reach {context} ({why}); suggesting defaults instead."
            )),
            None => {
                let mut found = Vec::new();
                if let Some(n) = &facts.namespaces {
                    found.push(plural(n.len(), "namespace"));
                }
                found.push(plural(facts.storage_classes.len(), "StorageClass"));
                if !facts.zones.is_empty() {
                    found.push(format!("nodes in {}", facts.zones.join(", ")));
                }
                self.p
                    .note(&format!("Found in {context}: {}.", found.join(", ")));
            }
        }
        self.facts.insert(context, facts.clone());
        facts
    }

    pub(super) fn ask_namespace(&mut self) -> Result<(), PromptError> {
        self.section("Namespace");
        if let Some(ns) = self.given_text("Namespace") {
            self.row("Namespace", ns, true);
            return Ok(());
        }
        let facts = self.facts();
        let taken: Vec<&NamespaceFact> = facts.namespaces.iter().flatten().collect();
        let is_taken = |name: &str| taken.iter().any(|n| n.name == name);
        let suggestion = std::iter::once(values::DEFAULT_NAMESPACE.to_string())
            .chain((1..100).map(|i| format!("{}-{i}", values::DEFAULT_NAMESPACE)))
            .find(|n| !is_taken(n))
            .unwrap_or_else(|| values::DEFAULT_NAMESPACE.to_string());
        let mut help = "Where the runner's objects go; it is created if missing.".to_string();
        if suggestion != values::DEFAULT_NAMESPACE {
            help.push_str(&format!(
                " {} is taken, so {suggestion} is suggested.",
                values::DEFAULT_NAMESPACE
            ));
        }
        let checker = self.checker();
        let validate = |s: &str| checker.check("Namespace", Value::String(s.to_string()));
        let ns = self.input(
            Question::new("Namespace", "Namespace", help),
            &suggestion,
            &validate,
        )?;
        if let Some(existing) = taken.iter().find(|n| n.name == ns) {
            if existing.ours {
                self.note(&format!(
                    "cf-runner already installed a runner in {ns}; this updates it in place."
                ));
            } else {
                self.note(&format!("{ns} exists; the runner is added to it."));
            }
        }
        self.set("Namespace", Value::String(ns.clone()));
        self.row("Namespace", ns, false);
        Ok(())
    }
}
