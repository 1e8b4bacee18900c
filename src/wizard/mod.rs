//! The interactive wizard of `cf-runner init`: questions whose answers become
//! value overrides (key path → value) on top of the flags, the highest layer
//! of the precedence in [`crate::values`].
//!
//! It asks only what the flags, `--set-value`s and values files left open,
//! gives every question a one-line explanation and a suggestion (from the
//! cluster when it can be reached, else a default), and checks each answer
//! with the same rules as [`crate::values::load`], so a bad answer is
//! re-asked on the spot rather than reported after the last question. It
//! can save everything as a values file that `init --values` replays.
//!
//! The logic talks to a [`Prompter`] (the terminal in [`terminal`]; scripted
//! replies in the test-only `scripted`, which the binary does not carry)
//! and learns about the cluster through [`Cluster`], so it runs in unit
//! tests without a terminal or a cluster.
//!
//! This file holds the types and the order of the questions ([`run`]); each
//! group of questions lives in a file of its own: `cluster` (context,
//! namespace), `storage` (backend and its settings), `credentials` (the
//! provisioner's rights, the API token), `network` (proxy, app-proxy),
//! `placement` (build node selector, tolerations) and `finish` (save, go
//! ahead). `session` is the plumbing they share.

mod attach;
mod cluster;
mod credentials;
mod finish;
mod network;
mod placement;
#[cfg(test)]
pub mod scripted;
mod session;
mod storage;
pub mod terminal;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::Value;

pub use attach::AttachTo;
pub use cluster::required_but_missing;
use finish::Next;
pub use finish::{values_file, UNSAVED_KEYS};
#[cfg(test)]
use placement::parse_tolerations;
use session::{Reply, Session};

/// The values file the wizard offers to save its answers to.
pub const DEFAULT_SAVE_FILE: &str = "cf-runner-values.yaml";

/// The node label the zone suggestion and the build node selector use.
pub const ZONE_LABEL: &str = "topology.kubernetes.io/zone";

/// One question as a prompter shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    /// Stable id: the values key it answers, or a name such as
    /// `storage.credentials`. Scripted replies are matched by it.
    pub id: String,
    /// The prompt itself, short.
    pub prompt: String,
    /// One line saying what the answer is for.
    pub help: String,
}

impl Question {
    fn new(id: &str, prompt: &str, help: impl Into<String>) -> Self {
        Question {
            id: id.to_string(),
            prompt: prompt.to_string(),
            help: help.into(),
        }
    }
}

/// One item of a pick-one question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// What the item is called (and what a scripted reply picks by).
    pub label: String,
    /// A few words shown beside the label.
    pub hint: String,
}

impl Choice {
    fn new(label: impl Into<String>, hint: impl Into<String>) -> Self {
        Choice {
            label: label.into(),
            hint: hint.into(),
        }
    }
}

/// Checks a typed answer; the message says what is wrong and how to fix it.
pub type Validator<'a> = &'a dyn Fn(&str) -> Result<(), String>;

/// Why the questions stopped before the end.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PromptError {
    /// Ctrl-C at a prompt.
    #[error("interrupted")]
    Interrupted,
    /// The terminal could not be read or written.
    #[error("the terminal failed: {0}")]
    Terminal(String),
}

/// One line of the summary shown before anything happens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryRow {
    /// What the line is about, e.g. `Namespace`.
    pub topic: String,
    /// The choice, as shown (never a secret).
    pub value: String,
    /// Set by a flag or values file rather than answered here.
    pub given: bool,
}

/// Where questions are asked and answers come from.
pub trait Prompter {
    /// Starts a group of questions.
    fn section(&mut self, title: &str);
    /// A line of information.
    fn note(&mut self, text: &str);
    /// Runs `work` (a cluster look-up) while showing `message`.
    fn busy(&mut self, message: &str, work: &mut dyn FnMut()) {
        let _ = message;
        work();
    }
    /// Pick one of `choices`; returns its index.
    fn select(
        &mut self,
        question: &Question,
        choices: &[Choice],
        default: usize,
    ) -> Result<usize, PromptError>;
    /// A line of text; Enter gives `default`. `validate` rejects an answer
    /// with a reason, and the question is asked again.
    fn input(
        &mut self,
        question: &Question,
        default: &str,
        validate: Validator,
    ) -> Result<String, PromptError>;
    /// A secret, not echoed.
    fn password(&mut self, question: &Question, validate: Validator)
        -> Result<String, PromptError>;
    /// Yes or no; Enter gives `default`.
    fn confirm(&mut self, question: &Question, default: bool) -> Result<bool, PromptError>;
    /// Shows every choice before anything happens.
    fn summary(&mut self, rows: &[SummaryRow]);
}

/// A namespace the cluster already has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamespaceFact {
    /// The namespace's name.
    pub name: String,
    /// An earlier cf-runner install lives there.
    pub ours: bool,
}

/// A StorageClass the cluster already has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageClassFact {
    /// The class's name.
    pub name: String,
    /// Who provisions its volumes, e.g. `ebs.csi.aws.com`.
    pub provisioner: String,
    /// Annotated as the cluster's default class.
    pub is_default: bool,
}

/// An IngressClass the cluster already has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IngressClassFact {
    /// The class's name.
    pub name: String,
    /// Annotated as the cluster's default class.
    pub is_default: bool,
}

/// What the wizard learnt about a cluster to suggest from. Lists that could
/// not be read are `None` (or empty); the wizard then suggests defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    /// Why the cluster could not be reached, if it could not.
    pub unreachable: Option<String>,
    /// The namespaces, when they could be listed.
    pub namespaces: Option<Vec<NamespaceFact>>,
    /// The StorageClasses (empty when they could not be listed).
    pub storage_classes: Vec<StorageClassFact>,
    /// Distinct zones of the nodes.
    pub zones: Vec<String>,
    /// The IngressClasses, when they could be listed.
    pub ingress_classes: Option<Vec<IngressClassFact>>,
    /// Namespaces holding a cf-runner agent (found by cf-runner's labels).
    pub agents: Vec<String>,
}

/// Read-only look-ups in the cluster of a kube context.
pub trait Cluster {
    /// What the cluster of `context` offers; never fails, see [`Facts`].
    fn facts(&mut self, context: &str) -> Facts;
}

impl<F: FnMut(&str) -> Facts> Cluster for F {
    fn facts(&mut self, context: &str) -> Facts {
        self(context)
    }
}

/// What `init` will do with the answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// `--dry-run`: write the manifests to this folder (`-` = stdout).
    DryRun { output: String },
    /// `--generate-helm-values-file`.
    Helm { path: String },
    /// Install into the cluster.
    Install,
}

/// The kubeconfig's contexts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KubeContexts {
    /// The file they were read from, for messages.
    pub path: Option<String>,
    /// Context names, in the file's order.
    pub names: Vec<String>,
    /// The file's current context.
    pub current: Option<String>,
}

/// Proxy settings found in the environment, offered as suggestions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvProxies {
    /// `HTTP_PROXY`.
    pub http: Option<String>,
    /// `HTTPS_PROXY`.
    pub https: Option<String>,
    /// `NO_PROXY`.
    pub no_proxy: Option<String>,
}

impl EnvProxies {
    /// Reads `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY` (either case).
    pub fn from_env() -> Self {
        let read = |name: &str| {
            [name.to_string(), name.to_ascii_lowercase()]
                .iter()
                .find_map(|n| crate::env::var(n).filter(|v| !v.trim().is_empty()))
        };
        EnvProxies {
            http: read("HTTP_PROXY"),
            https: read("HTTPS_PROXY"),
            no_proxy: read("NO_PROXY"),
        }
    }

    fn any(&self) -> bool {
        self.http.is_some() || self.https.is_some() || self.no_proxy.is_some()
    }
}

/// Everything the wizard starts from.
#[derive(Debug, Clone)]
pub struct Setup {
    /// The merged tree of what was given before the wizard (values files,
    /// `--set-value`, `--set-file`, flags): a key set here is not asked.
    pub given: Value,
    pub contexts: KubeContexts,
    pub env_proxies: EnvProxies,
    pub mode: Mode,
    /// Ask for a Codefresh API token: an install registers the runner on
    /// the platform, and none was found in the flags, values, `CF_API_KEY`
    /// or `~/.cfconfig`.
    pub ask_token: bool,
}

/// What the wizard decided.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Value overrides in question order, to go after the flags.
    pub answers: Vec<(String, Value)>,
    /// Where to save everything as a values file, if the user wants that.
    pub save_to: Option<PathBuf>,
    /// False when the user chose to stop after the summary.
    pub proceed: bool,
    /// How many questions were asked (0: everything was given).
    pub asked: usize,
    /// Attach a runtime to an agent the cluster has, instead of installing.
    pub attach: Option<AttachTo>,
}

/// A values file ready to be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedValues {
    /// The YAML, with a header saying how to replay it.
    pub text: String,
    /// Holds a token or key: write it with mode 0600.
    pub holds_secret: bool,
}

/// Asks what is still open and returns the answers. Asks nothing (and shows
/// no summary) when everything was given.
pub fn run(
    prompter: &mut dyn Prompter,
    cluster: &mut dyn Cluster,
    setup: &Setup,
) -> Result<Plan, PromptError> {
    let mut previous: HashMap<String, Reply> = HashMap::new();
    let mut facts_by_context: HashMap<String, Facts> = HashMap::new();
    let mut round = 0;
    loop {
        round += 1;
        let mut s = Session::new(prompter, setup, &previous, cluster, &mut facts_by_context);
        if round == 1 {
            s.intro = true;
        }
        let context = s.ask_context()?;
        s.context = context.clone();
        let ended = match s.ask_agent()? {
            Some(agent) => s.attach_round(agent, context.as_deref())?,
            None => s.install_round(context.as_deref())?,
        };
        match ended {
            RoundEnd::Done(plan) => return Ok(plan),
            RoundEnd::Again(replies) => previous = replies,
        }
    }
}

/// How a round of questions ended: with the plan, or with the answer
/// "change", the replies given becoming the defaults of the next round.
enum RoundEnd {
    Done(Plan),
    Again(HashMap<String, Reply>),
}

impl Session<'_> {
    /// A round that attaches a runtime to the agent `agent`.
    fn attach_round(
        mut self,
        agent: String,
        context: Option<&str>,
    ) -> Result<RoundEnd, PromptError> {
        let namespace = self.ask_runtime_namespace(&agent)?;
        self.ask_platform()?;
        self.show_summary("Go");
        match self.ask_next(context, false)? {
            Next::Change => Ok(self.again()),
            next => Ok(RoundEnd::Done(Plan {
                answers: self.answers,
                save_to: None,
                proceed: next == Next::Proceed,
                asked: self.asked,
                attach: Some(AttachTo {
                    agent_namespace: agent,
                    namespace,
                }),
            })),
        }
    }

    /// A round that installs a runner: namespace, storage, proxies,
    /// extras and the platform, then where to save the answers.
    fn install_round(mut self, context: Option<&str>) -> Result<RoundEnd, PromptError> {
        self.ask_namespace()?;
        let zone = self.ask_storage()?;
        self.ask_proxies()?;
        self.ask_mirror()?;
        self.ask_extras(zone.as_deref())?;
        self.ask_platform()?;
        if self.asked == 0 {
            return Ok(RoundEnd::Done(Plan {
                answers: self.answers,
                save_to: None,
                proceed: true,
                asked: 0,
                attach: None,
            }));
        }
        self.show_summary("Save and go");
        let save_to = self.ask_save()?;
        match self.ask_next(context, save_to.is_some())? {
            Next::Change => Ok(self.again()),
            next => Ok(RoundEnd::Done(Plan {
                answers: self.answers,
                save_to,
                proceed: next == Next::Proceed,
                asked: self.asked,
                attach: None,
            })),
        }
    }

    /// The summary of the answers, then the section of the last question.
    fn show_summary(&mut self, last: &'static str) {
        self.pending_section = None;
        self.p.section("Summary");
        self.p.summary(&self.rows);
        self.section(last);
    }

    /// Another round, the replies given as its defaults.
    fn again(self) -> RoundEnd {
        self.p.note("Once more; Enter keeps your last answer.");
        let mut replies = self.replies;
        // "Change" is not offered as the default of the next round.
        replies.remove("next");
        RoundEnd::Again(replies)
    }
}

impl Session<'_> {
    fn ask_extras(&mut self, zone: Option<&str>) -> Result<(), PromptError> {
        self.section("Extras");
        self.flag(
            "Monitor.Enabled",
            "Cluster monitor",
            "Install the cluster monitor?",
            "Shows this cluster's workloads in Codefresh's Kubernetes dashboard (read-only access).",
            false,
        )?;
        self.ask_app_proxy()?;
        self.flag(
            "SetDefaultRuntime",
            "Default runtime",
            "Make this the account's default runtime environment?",
            "Pipelines without a runtime of their own then build here.",
            false,
        )?;
        self.flag(
            "ExecDemoPipeline",
            "Demo pipeline",
            "Run a demo pipeline after the install?",
            "A one-step pipeline that proves builds run on the new runner.",
            true,
        )?;
        self.ask_build_node_selector(zone)?;
        self.ask_build_tolerations()?;
        Ok(())
    }
}
