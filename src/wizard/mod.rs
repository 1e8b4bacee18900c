//! The interactive wizard of `cf-runner init`: questions whose answers become
//! value overrides (key path → value) on top of the flags, the highest layer
//! of the precedence in [`crate::values`].
//!
//! It asks only what the flags, `--set-value`s and values files left open,
//! gives every question a one-line explanation and a suggestion (from the
//! cluster when it can be reached, else a default), and checks each answer
//! with the same rules as [`values::load`], so a bad answer is re-asked on
//! the spot rather than reported after the last question. It can save
//! everything as a values file that `init --values` replays.
//!
//! The logic talks to a [`Prompter`] (the terminal in [`terminal`], scripted
//! replies in [`scripted`]) and learns about the cluster through [`Cluster`],
//! so it runs in unit tests without a terminal or a cluster.

pub mod scripted;
pub mod terminal;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::{json, Map, Value};

use crate::values::{self, schema, tree, Input, Problem, Problems, ValuesFile};

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
                .find_map(|n| std::env::var(n).ok().filter(|v| !v.trim().is_empty()))
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
        s.ask_namespace()?;
        let zone = s.ask_storage()?;
        s.ask_proxies()?;
        s.ask_extras(zone.as_deref())?;
        s.ask_platform()?;
        if s.asked == 0 {
            return Ok(Plan {
                answers: s.answers,
                save_to: None,
                proceed: true,
                asked: 0,
            });
        }
        s.pending_section = None;
        s.p.section("Summary");
        s.p.summary(&s.rows);
        s.section("Save and go");
        let save_to = s.ask_save()?;
        match s.ask_next(context.as_deref(), save_to.is_some())? {
            Next::Change => {
                s.p.note("Once more; Enter keeps your last answer.");
                let mut replies = s.replies;
                // "Change" is not offered as the default of the next round.
                replies.remove("next");
                previous = replies;
            }
            next => {
                return Ok(Plan {
                    answers: s.answers,
                    save_to,
                    proceed: next == Next::Proceed,
                    asked: s.asked,
                })
            }
        }
    }
}

/// Keys never written to a saved values file: tokens stay out of files
/// other than Secrets (PRODUCT §5); a replay passes them again.
pub const UNSAVED_KEYS: &[&str] = &["Token", "AgentToken"];

/// The values file for the merged tree of everything (given + answers): one
/// file that `init --values` replays to the same manifests. Tokens are left
/// out (the header says so); other secrets (provisioner keys) stay, and the
/// file is then written with mode 0600.
pub fn values_file(merged: &Value) -> SavedValues {
    let mut tree = merged.clone();
    let mut left_out = Vec::new();
    if let Some(map) = tree.as_object_mut() {
        for key in UNSAVED_KEYS {
            if map.remove(*key).is_some_and(|v| !v.is_null()) {
                left_out.push(*key);
            }
        }
    }
    // A proxy password is as secret as a key.
    let holds_secret = schema::SECRET_KEYS
        .iter()
        .any(|key| tree::lookup(&tree, key).is_some_and(|v| v != &json!("")))
        || !crate::values::secrets::url_credentials(&tree).is_empty();
    let mut text = String::from(
        "# yaml-language-server: $schema=values.schema.json\n\
         # cf-runner values, saved by the `cf-runner init` wizard.\n\
         # Replay: cf-runner init --values <this file> [--yes]\n\
         # Editor checks: cf-runner schema > values.schema.json (beside this file).\n",
    );
    if !left_out.is_empty() {
        text.push_str(&format!(
            "# Not saved: {} (tokens stay out of files); pass --token or set CF_API_KEY again.\n",
            left_out.join(", ")
        ));
    }
    if holds_secret {
        text.push_str("# It holds a secret: keep it private (written with mode 0600).\n");
    }
    text.push_str(&serde_yaml_ng::to_string(&tree).expect("a JSON tree serializes to YAML"));
    SavedValues { text, holds_secret }
}

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

/// A raw reply, remembered so "change an answer" can offer it again.
#[derive(Debug, Clone)]
enum Reply {
    Text(String),
    Picked(String),
    Flag(bool),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    Proceed,
    Change,
    Stop,
}

/// Checks candidate answers with the values rules, against everything given
/// and answered so far (owned, so a validator closure can borrow it while
/// the prompter is borrowed mutably).
struct Checker {
    given: String,
    answers: Vec<(String, Value)>,
}

impl Checker {
    fn check(&self, key: &str, value: Value) -> Result<(), String> {
        let mut overrides = self.answers.clone();
        overrides.push((key.to_string(), value));
        let input = Input {
            files: vec![ValuesFile {
                origin: "the values given".into(),
                text: self.given.clone(),
            }],
            overrides,
            ..Default::default()
        };
        let Err(Problems(problems)) = values::load(&input) else {
            return Ok(());
        };
        let shown = key.replace("\\.", ".");
        let about_key = |p: &&Problem| {
            p.key == shown
                || p.key.starts_with(&format!("{shown}."))
                || p.key.starts_with(&format!("{shown}["))
        };
        match problems.iter().find(about_key) {
            None => Ok(()),
            Some(p) => Err(format!(
                "{} {}; {}",
                p.value.clone().unwrap_or_else(|| "it".into()),
                p.why,
                p.fix
            )),
        }
    }
}

struct Session<'a> {
    p: &'a mut dyn Prompter,
    setup: &'a Setup,
    previous: &'a HashMap<String, Reply>,
    replies: HashMap<String, Reply>,
    answers: Vec<(String, Value)>,
    rows: Vec<SummaryRow>,
    asked: usize,
    /// A section header not shown yet: it is shown before its first question.
    pending_section: Option<&'static str>,
    /// The intro has not been shown yet.
    intro: bool,
    cluster: &'a mut dyn Cluster,
    /// What each context's cluster offered, looked at once, when a question
    /// first needs a suggestion.
    facts: &'a mut HashMap<String, Facts>,
    context: Option<String>,
}

const BACKENDS: &[(&str, &str)] = &[
    (
        "local",
        "directories on the build nodes; fastest, the cache stays on its node",
    ),
    (
        "ebs",
        "AWS EBS volumes, created by cf-runner's volume provisioner",
    ),
    ("ebs-csi", "AWS EBS volumes, through the EBS CSI driver"),
    ("gcedisk", "Google Compute Engine persistent disks"),
    ("azuredisk", "Azure managed disks"),
];

const PROXY_KEYS: &[&str] = &[
    "EnvVars.HTTP_PROXY",
    "EnvVars.HTTPS_PROXY",
    "EnvVars.NO_PROXY",
    "EnvVars.http_proxy",
    "EnvVars.https_proxy",
    "EnvVars.no_proxy",
];

const SA_ANNOTATIONS: &str = "Storage.VolumeProvisioner.ServiceAccount.Annotations";

impl<'a> Session<'a> {
    fn new(
        p: &'a mut dyn Prompter,
        setup: &'a Setup,
        previous: &'a HashMap<String, Reply>,
        cluster: &'a mut dyn Cluster,
        facts: &'a mut HashMap<String, Facts>,
    ) -> Self {
        Session {
            p,
            setup,
            previous,
            replies: HashMap::new(),
            answers: Vec::new(),
            rows: Vec::new(),
            asked: 0,
            pending_section: None,
            intro: false,
            cluster,
            facts,
            context: None,
        }
    }

    // ---- plumbing ------------------------------------------------------

    fn given(&self, key: &str) -> Option<&Value> {
        tree::lookup(&self.setup.given, key)
    }

    fn given_text(&self, key: &str) -> Option<String> {
        match self.given(key)? {
            Value::String(s) => Some(s.trim().to_string()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }

    fn given_bool(&self, key: &str) -> Option<bool> {
        match self.given(key)? {
            Value::Bool(b) => Some(*b),
            Value::String(s) if s == "true" => Some(true),
            Value::String(s) if s == "false" => Some(false),
            _ => None,
        }
    }

    fn set(&mut self, key: &str, value: Value) {
        match self.answers.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value,
            None => self.answers.push((key.to_string(), value)),
        }
    }

    fn checker(&self) -> Checker {
        Checker {
            given: serde_json::to_string(&self.setup.given).expect("JSON serializes"),
            answers: self.answers.clone(),
        }
    }

    fn row(&mut self, topic: &str, value: impl Into<String>, given: bool) {
        // A proxy's password is not shown back, like every secret.
        self.rows.push(SummaryRow {
            topic: topic.to_string(),
            value: crate::values::secrets::masked(&value.into()),
            given,
        });
    }

    fn section(&mut self, title: &'static str) {
        self.pending_section = Some(title);
    }

    fn show_section(&mut self) {
        self.show_intro();
        if let Some(title) = self.pending_section.take() {
            self.p.section(title);
        }
    }

    fn show_intro(&mut self) {
        if self.intro {
            self.intro = false;
            let what = match &self.setup.mode {
                Mode::DryRun { output } if output == "-" => {
                    "Dry run: the manifests go to stdout; nothing is applied.".to_string()
                }
                Mode::DryRun { output } => {
                    format!("Dry run: the manifests go to {output}/; nothing is applied.")
                }
                Mode::Helm { path } => format!("Helm mode: the chart values go to {path}."),
                Mode::Install => "The runner is installed when you confirm the summary.".into(),
            };
            self.p.note(&format!(
                "cf-runner asks what your flags and values files left open. {what}"
            ));
            self.p
                .note("Enter takes the suggestion; Ctrl-C quits without changing anything.");
        }
    }

    fn note(&mut self, text: &str) {
        self.show_section();
        self.p.note(&crate::values::secrets::masked(text));
    }

    fn select(
        &mut self,
        q: Question,
        choices: &[Choice],
        default: usize,
    ) -> Result<usize, PromptError> {
        self.show_section();
        let default = match self.previous.get(&q.id) {
            Some(Reply::Picked(label)) => choices
                .iter()
                .position(|c| &c.label == label)
                .unwrap_or(default),
            _ => default,
        };
        let picked = self.p.select(&q, choices, default.min(choices.len() - 1))?;
        self.asked += 1;
        self.replies
            .insert(q.id, Reply::Picked(choices[picked].label.clone()));
        Ok(picked)
    }

    fn input(
        &mut self,
        q: Question,
        default: &str,
        validate: Validator,
    ) -> Result<String, PromptError> {
        self.show_section();
        let default = match self.previous.get(&q.id) {
            Some(Reply::Text(t)) => t.clone(),
            _ => default.to_string(),
        };
        let answer = self.p.input(&q, &default, validate)?.trim().to_string();
        self.asked += 1;
        self.replies.insert(q.id, Reply::Text(answer.clone()));
        Ok(answer)
    }

    fn password(&mut self, q: Question, validate: Validator) -> Result<String, PromptError> {
        self.show_section();
        let kept = match self.previous.get(&q.id) {
            Some(Reply::Text(t)) => Some(t.clone()),
            _ => None,
        };
        let q = match &kept {
            Some(_) => Question {
                help: format!("{} Enter keeps the one you gave.", q.help),
                ..q
            },
            None => q,
        };
        let keep_or_check = |text: &str| {
            if text.is_empty() && kept.is_some() {
                Ok(())
            } else {
                validate(text)
            }
        };
        let typed = self.p.password(&q, &keep_or_check)?;
        let answer = match (typed.trim(), &kept) {
            ("", Some(k)) => k.clone(),
            (t, _) => t.to_string(),
        };
        self.asked += 1;
        self.replies.insert(q.id, Reply::Text(answer.clone()));
        Ok(answer)
    }

    fn confirm(&mut self, q: Question, default: bool) -> Result<bool, PromptError> {
        self.show_section();
        let default = match self.previous.get(&q.id) {
            Some(Reply::Flag(b)) => *b,
            _ => default,
        };
        let answer = self.p.confirm(&q, default)?;
        self.asked += 1;
        self.replies.insert(q.id, Reply::Flag(answer));
        Ok(answer)
    }

    /// A yes/no question answering a boolean key, unless the key is given.
    fn flag(
        &mut self,
        key: &str,
        topic: &str,
        prompt: &str,
        help: &str,
        default: bool,
    ) -> Result<bool, PromptError> {
        if let Some(b) = self.given_bool(key) {
            self.row(topic, yes_no(b), true);
            return Ok(b);
        }
        let b = self.confirm(Question::new(key, prompt, help), default)?;
        self.set(key, Value::Bool(b));
        self.row(topic, yes_no(b), false);
        Ok(b)
    }

    /// A pick-one question answering a text key, unless the key is given.
    fn pick(
        &mut self,
        key: &str,
        topic: &str,
        q: Question,
        options: &[(&str, &str)],
        default: &str,
    ) -> Result<String, PromptError> {
        if let Some(v) = self.given_text(key) {
            self.row(topic, v.clone(), true);
            return Ok(v);
        }
        let choices: Vec<Choice> = options.iter().map(|(l, h)| Choice::new(*l, *h)).collect();
        let default = options.iter().position(|(l, _)| *l == default).unwrap_or(0);
        let i = self.select(q, &choices, default)?;
        let v = options[i].0.to_string();
        self.set(key, Value::String(v.clone()));
        self.row(topic, v.clone(), false);
        Ok(v)
    }

    // ---- the questions -------------------------------------------------

    fn ask_context(&mut self) -> Result<Option<String>, PromptError> {
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
    fn facts(&mut self) -> Facts {
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

    fn ask_namespace(&mut self) -> Result<(), PromptError> {
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

    /// Returns the zone the disks live in, for the build node selector.
    fn ask_storage(&mut self) -> Result<Option<String>, PromptError> {
        self.section("Storage for build volumes");
        if let Some(class) = self.given_text("StorageClass") {
            self.row("Storage", format!("StorageClass {class}"), true);
            return Ok(None);
        }
        let backend = match self.given_text("Storage.Backend") {
            Some(b) => {
                self.row("Storage", b.clone(), true);
                b
            }
            None => {
                let facts = self.facts();
                let existing: Vec<&StorageClassFact> = facts
                    .storage_classes
                    .iter()
                    .filter(|c| !c.name.starts_with("dind-local-volumes-runner"))
                    .collect();
                let mut choices: Vec<Choice> =
                    BACKENDS.iter().map(|(n, h)| Choice::new(*n, *h)).collect();
                for class in &existing {
                    choices.push(Choice::new(
                        format!("StorageClass {}", class.name),
                        format!(
                            "existing, by {}{}; no provisioner is installed",
                            class.provisioner,
                            if class.is_default {
                                ", the default"
                            } else {
                                ""
                            }
                        ),
                    ));
                }
                let suggested = suggested_backend(&facts);
                let default = BACKENDS
                    .iter()
                    .position(|(n, _)| *n == suggested)
                    .unwrap_or(0);
                let help = if suggested == "local" {
                    "Where builds keep their docker cache between runs.".to_string()
                } else {
                    format!(
                        "Where builds keep their docker cache between runs; {suggested} is suggested from the cluster's StorageClasses."
                    )
                };
                let q = Question::new("Storage.Backend", "Storage backend", help);
                let i = self.select(q, &choices, default)?;
                if i >= BACKENDS.len() {
                    let class = existing[i - BACKENDS.len()].name.clone();
                    self.set("StorageClass", Value::String(class.clone()));
                    self.row("Storage", format!("StorageClass {class}"), false);
                    return Ok(None);
                }
                let b = BACKENDS[i].0.to_string();
                self.set("Storage.Backend", Value::String(b.clone()));
                self.row("Storage", b.clone(), false);
                b
            }
        };
        match backend.as_str() {
            "local" => {
                self.ask_local_dir()?;
                Ok(None)
            }
            "ebs" | "ebs-csi" => {
                let zone = self.ask_zone("us-east-1a")?;
                self.ask_ebs_volume()?;
                self.ask_aws_credentials()?;
                Ok(zone)
            }
            "gcedisk" => {
                let zone = self.ask_zone("us-central1-a")?;
                self.pick(
                    "Storage.VolumeType",
                    "Disk type",
                    Question::new(
                        "Storage.VolumeType",
                        "Disk type",
                        "pd-ssd is fastest; pd-balanced is cheaper with good speed.",
                    ),
                    &[
                        ("pd-ssd", "SSD"),
                        ("pd-balanced", "SSD, cheaper per GB"),
                        ("pd-standard", "HDD"),
                    ],
                    "pd-ssd",
                )?;
                self.ask_google_credentials()?;
                Ok(zone)
            }
            "azuredisk" => {
                self.pick(
                    "Storage.SkuName",
                    "Disk SKU",
                    Question::new(
                        "Storage.SkuName",
                        "Disk SKU",
                        "The kind of managed disk; Premium_LRS is fast SSD in one zone.",
                    ),
                    &[
                        ("Premium_LRS", "premium SSD"),
                        ("StandardSSD_LRS", "standard SSD"),
                        ("Standard_LRS", "HDD"),
                        ("Premium_ZRS", "premium SSD, zone-redundant"),
                        ("StandardSSD_ZRS", "standard SSD, zone-redundant"),
                        ("UltraSSD_LRS", "ultra disk"),
                    ],
                    "Premium_LRS",
                )?;
                self.pick(
                    "Storage.CachingMode",
                    "Host caching",
                    Question::new(
                        "Storage.CachingMode",
                        "Host caching",
                        "Disk caching on the node; None suits build volumes.",
                    ),
                    &[("None", ""), ("ReadOnly", ""), ("ReadWrite", "")],
                    "None",
                )?;
                self.flag(
                    "Storage.VolumeProvisioner.MountAzureJson",
                    "Azure credentials",
                    "Use the nodes' /etc/kubernetes/azure.json for Azure credentials?",
                    "The provisioner needs Azure rights to create disks; on AKS the nodes' azure.json has them.",
                    true,
                )?;
                Ok(None)
            }
            // Not a backend: validation names it once the questions are done.
            _ => Ok(None),
        }
    }

    fn ask_local_dir(&mut self) -> Result<(), PromptError> {
        let key = "Storage.LocalVolumeParentDir";
        if let Some(dir) = self.given_text(key) {
            self.row("Volume directory", dir, true);
            return Ok(());
        }
        let checker = self.checker();
        let validate = |s: &str| checker.check(key, Value::String(s.to_string()));
        let dir = self.input(
            Question::new(
                key,
                "Volume directory on the nodes",
                "Each build's volume is a directory under it; put it on a large, fast disk.",
            ),
            values::DEFAULT_LOCAL_VOLUME_PARENT_DIR,
            &validate,
        )?;
        self.set(key, Value::String(dir.clone()));
        self.row("Volume directory", dir, false);
        Ok(())
    }

    fn ask_zone(&mut self, example: &str) -> Result<Option<String>, PromptError> {
        let key = "Storage.AvailabilityZone";
        if let Some(z) = self.given_text(key) {
            self.row("Zone", z.clone(), true);
            return Ok(Some(z));
        }
        let help = "A disk lives in one zone, so builds run on nodes in that zone.";
        let facts = self.facts();
        let zone = if facts.zones.is_empty() {
            let checker = self.checker();
            let validate = |s: &str| {
                if s.is_empty() {
                    return Err(format!("a zone is needed, e.g. {example}"));
                }
                checker.check(key, Value::String(s.to_string()))
            };
            self.input(Question::new(key, "Availability zone", help), "", &validate)?
        } else {
            let mut choices: Vec<Choice> = facts
                .zones
                .iter()
                .map(|z| Choice::new(z.clone(), "has nodes"))
                .collect();
            choices.push(Choice::new("another zone", "type its name"));
            let i = self.select(
                Question::new(
                    key,
                    "Availability zone",
                    format!("{help} Zones come from the nodes' {ZONE_LABEL} label."),
                ),
                &choices,
                0,
            )?;
            if i < facts.zones.len() {
                facts.zones[i].clone()
            } else {
                let checker = self.checker();
                let validate = |s: &str| {
                    if s.is_empty() {
                        return Err(format!("a zone is needed, e.g. {example}"));
                    }
                    checker.check(key, Value::String(s.to_string()))
                };
                self.input(
                    Question::new("Storage.AvailabilityZone.other", "Zone name", help),
                    "",
                    &validate,
                )?
            }
        };
        self.set(key, Value::String(zone.clone()));
        self.row("Zone", zone.clone(), false);
        Ok(Some(zone))
    }

    fn ask_ebs_volume(&mut self) -> Result<(), PromptError> {
        let type_given = self.given_text("Storage.VolumeType").is_some();
        let volume_type = self.pick(
            "Storage.VolumeType",
            "Volume type",
            Question::new(
                "Storage.VolumeType",
                "Volume type",
                "gp3 is the current general-purpose SSD; io1/io2 give guaranteed IOPS.",
            ),
            &[
                ("gp2", "general-purpose SSD, IOPS grow with size"),
                ("gp3", "general-purpose SSD, IOPS and throughput set apart"),
                ("io1", "provisioned-IOPS SSD"),
                ("io2", "provisioned-IOPS SSD, more durable"),
            ],
            "gp2",
        )?;
        // IOPS and throughput refine a type chosen here; a file that names
        // the type has decided them too.
        if !type_given && volume_type != "gp2" {
            let (lo, hi, baseline) = match volume_type.as_str() {
                "gp3" => (3000, 16000, "3000"),
                "io1" => (100, 64000, "none"),
                _ => (100, 256000, "none"),
            };
            if let Some(iops) = self.ask_number(
                "Storage.Iops",
                "Provisioned IOPS",
                &format!("{lo}–{hi} for {volume_type}; empty keeps the baseline ({baseline})."),
            )? {
                self.row("IOPS", iops.to_string(), false);
            }
            if volume_type == "gp3" {
                if let Some(tp) = self.ask_number(
                    "Storage.Throughput",
                    "Throughput (MiB/s)",
                    "125–1000; empty keeps the baseline (125).",
                )? {
                    self.row("Throughput", format!("{tp} MiB/s"), false);
                }
            }
        }
        if let Some(b) = self.given_bool("Storage.Encrypted") {
            self.row("Encrypted", yes_no(b), true);
            return Ok(());
        }
        let encrypted = self.flag(
            "Storage.Encrypted",
            "Encrypted",
            "Encrypt the volumes?",
            "EBS encryption at rest, with the AWS-managed key unless you name a KMS key next.",
            false,
        )?;
        if encrypted {
            let checker = self.checker();
            let validate = |s: &str| {
                if s.is_empty() {
                    return Ok(());
                }
                if !(s.starts_with("arn:aws") && s.contains(":kms:")
                    || s.starts_with("alias/")
                    || is_uuid(s))
                {
                    return Err(
                        "write a key ARN (arn:aws:kms:…), a key id, or alias/NAME".to_string()
                    );
                }
                checker.check("Storage.KmsKeyId", Value::String(s.to_string()))
            };
            let key = self.input(
                Question::new(
                    "Storage.KmsKeyId",
                    "KMS key",
                    "Empty uses the AWS-managed aws/ebs key; the provisioner's role must be allowed to use a key of your own.",
                ),
                "",
                &validate,
            )?;
            if !key.is_empty() {
                self.set("Storage.KmsKeyId", Value::String(key.clone()));
                self.row("KMS key", key, false);
            }
        }
        Ok(())
    }

    fn ask_number(
        &mut self,
        key: &str,
        prompt: &str,
        help: &str,
    ) -> Result<Option<i64>, PromptError> {
        let checker = self.checker();
        let validate = |s: &str| {
            if s.is_empty() {
                return Ok(());
            }
            match s.parse::<i64>() {
                Ok(n) => checker.check(key, Value::from(n)),
                Err(_) => Err(format!("{s:?} is not a whole number")),
            }
        };
        let text = self.input(Question::new(key, prompt, help), "", &validate)?;
        if text.is_empty() {
            return Ok(None);
        }
        let n: i64 = text.parse().expect("validated");
        self.set(key, Value::from(n));
        Ok(Some(n))
    }

    fn credentials_given(&mut self, keys: &[&str]) -> bool {
        if keys.iter().any(|k| self.given(k).is_some()) || self.given(SA_ANNOTATIONS).is_some() {
            self.row("Provisioner credentials", "as given", true);
            return true;
        }
        false
    }

    fn ask_aws_credentials(&mut self) -> Result<(), PromptError> {
        if self.credentials_given(&["Storage.AwsAccessKeyId", "Storage.AwsSecretAccessKey"]) {
            return Ok(());
        }
        let choices = [
            Choice::new(
                "IAM role for its service account (IRSA)",
                "no keys in the cluster",
            ),
            Choice::new("Access keys kept in a Secret", "an IAM user's key pair"),
            Choice::new(
                "The nodes' instance role",
                "nothing to set; the role needs the EC2 volume rights",
            ),
        ];
        let i = self.select(
            Question::new(
                "storage.credentials",
                "AWS credentials of the volume provisioner",
                "It creates, attaches and deletes EBS volumes, so it needs AWS rights.",
            ),
            &choices,
            0,
        )?;
        match i {
            0 => {
                let key = format!("{SA_ANNOTATIONS}.eks\\.amazonaws\\.com/role-arn");
                let checker = self.checker();
                let validate = |s: &str| {
                    let ok =
                        s.starts_with("arn:aws") && s.contains(":iam::") && s.contains(":role/");
                    if !ok {
                        return Err(
                            "write the role's ARN, e.g. arn:aws:iam::123456789012:role/codefresh-volumes"
                                .to_string(),
                        );
                    }
                    checker.check(&key, Value::String(s.to_string()))
                };
                let arn = self.input(
                    Question::new(
                        "storage.role-arn",
                        "IAM role ARN",
                        "The role the provisioner's service account assumes (eks.amazonaws.com/role-arn).",
                    ),
                    "",
                    &validate,
                )?;
                self.set(&key, Value::String(arn.clone()));
                self.row("Provisioner credentials", format!("IRSA role {arn}"), false);
            }
            1 => {
                let id_key = "Storage.AwsAccessKeyId";
                let validate = |s: &str| {
                    let ok = (16..=128).contains(&s.len())
                        && s.chars()
                            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
                    if ok {
                        Ok(())
                    } else {
                        Err(
                            "an access key id is 16 or more capital letters and digits, e.g. AKIA…"
                                .to_string(),
                        )
                    }
                };
                let id = self.input(
                    Question::new(
                        id_key,
                        "AWS access key id",
                        "Stored in a Secret in the namespace.",
                    ),
                    "",
                    &validate,
                )?;
                let required = |s: &str| {
                    if s.is_empty() {
                        Err("the secret access key is needed with the key id".to_string())
                    } else {
                        Ok(())
                    }
                };
                let secret = self.password(
                    Question::new(
                        "Storage.AwsSecretAccessKey",
                        "AWS secret access key",
                        "Not shown as you type; stored in the same Secret.",
                    ),
                    &required,
                )?;
                self.set(id_key, Value::String(id));
                self.set("Storage.AwsSecretAccessKey", Value::String(secret));
                self.row(
                    "Provisioner credentials",
                    "access keys (in a Secret)",
                    false,
                );
            }
            _ => {
                self.set(SA_ANNOTATIONS, json!({}));
                self.row("Provisioner credentials", "the nodes' instance role", false);
            }
        }
        Ok(())
    }

    fn ask_google_credentials(&mut self) -> Result<(), PromptError> {
        if self.credentials_given(&["Storage.GoogleServiceAccount"]) {
            return Ok(());
        }
        let choices = [
            Choice::new(
                "Workload Identity",
                "a Google service account bound to the provisioner's; no key in the cluster",
            ),
            Choice::new("A service-account key file", "JSON, stored in a Secret"),
            Choice::new("The nodes' service account", "nothing to set"),
        ];
        let i = self.select(
            Question::new(
                "storage.credentials",
                "Google credentials of the volume provisioner",
                "It creates, attaches and deletes persistent disks, so it needs Google rights.",
            ),
            &choices,
            0,
        )?;
        match i {
            0 => {
                let key = format!("{SA_ANNOTATIONS}.iam\\.gke\\.io/gcp-service-account");
                let checker = self.checker();
                let validate = |s: &str| {
                    if !(s.contains('@') && s.ends_with(".gserviceaccount.com")) {
                        return Err(
                            "write the service account's email, e.g. volumes@my-project.iam.gserviceaccount.com"
                                .to_string(),
                        );
                    }
                    checker.check(&key, Value::String(s.to_string()))
                };
                let email = self.input(
                    Question::new(
                        "storage.google-service-account",
                        "Google service account",
                        "Annotated as iam.gke.io/gcp-service-account on the provisioner's service account.",
                    ),
                    "",
                    &validate,
                )?;
                self.set(&key, Value::String(email.clone()));
                self.row(
                    "Provisioner credentials",
                    format!("Workload Identity {email}"),
                    false,
                );
            }
            1 => {
                let key = "Storage.GoogleServiceAccount";
                let checker = self.checker();
                let validate = |s: &str| {
                    let text = std::fs::read_to_string(expand_home(s))
                        .map_err(|e| format!("{s} could not be read: {e}"))?;
                    checker.check(key, Value::String(text))
                };
                let path = self.input(
                    Question::new(
                        "storage.key-file",
                        "Key file",
                        "The JSON key downloaded for the service account; its contents go into a Secret.",
                    ),
                    "",
                    &validate,
                )?;
                let text = std::fs::read_to_string(expand_home(&path)).unwrap_or_default();
                self.set(key, Value::String(text));
                self.row("Provisioner credentials", format!("key file {path}"), false);
            }
            _ => {
                self.set(SA_ANNOTATIONS, json!({}));
                self.row(
                    "Provisioner credentials",
                    "the nodes' service account",
                    false,
                );
            }
        }
        Ok(())
    }

    fn ask_proxies(&mut self) -> Result<(), PromptError> {
        self.section("Proxy");
        let given: Vec<String> = PROXY_KEYS
            .iter()
            .filter_map(|k| {
                self.given_text(k)
                    .map(|v| format!("{}={v}", k.trim_start_matches("EnvVars.")))
            })
            .collect();
        if !given.is_empty() {
            self.row("Proxy", given.join(" "), true);
            return Ok(());
        }
        if self.given("EnvVars") == Some(&json!({})) {
            self.row("Proxy", "none", true);
            return Ok(());
        }
        let env = self.setup.env_proxies.clone();
        if env.any() {
            let found: Vec<String> = [
                ("HTTP_PROXY", &env.http),
                ("HTTPS_PROXY", &env.https),
                ("NO_PROXY", &env.no_proxy),
            ]
            .iter()
            .filter_map(|(n, v)| v.as_ref().map(|v| format!("{n}={v}")))
            .collect();
            self.note(&format!("Your environment has {}.", found.join(", ")));
        }
        let use_proxy = self.confirm(
            Question::new(
                "proxy",
                "Do the runner and builds reach the internet through a proxy?",
                "Then every component and build gets HTTP(S)_PROXY and NO_PROXY.",
            ),
            env.any(),
        )?;
        let mut set_any = false;
        if use_proxy {
            let suggestions = [
                (
                    "EnvVars.HTTP_PROXY",
                    "HTTP proxy",
                    "For plain-HTTP traffic, e.g. http://proxy.example.com:3128; empty for none.",
                    env.http.clone().unwrap_or_default(),
                ),
                (
                    "EnvVars.HTTPS_PROXY",
                    "HTTPS proxy",
                    "For HTTPS traffic (the Codefresh platform, registries); empty for none.",
                    env.https.clone().or(env.http.clone()).unwrap_or_default(),
                ),
                (
                    "EnvVars.NO_PROXY",
                    "No proxy for",
                    "Hosts, domains and CIDRs reached directly, comma-separated.",
                    env.no_proxy
                        .clone()
                        .unwrap_or_else(|| "localhost,127.0.0.1,.svc,.cluster.local".into()),
                ),
            ];
            let mut shown = Vec::new();
            for (key, prompt, help, default) in suggestions {
                let checker = self.checker();
                let validate = |s: &str| {
                    if s.is_empty() {
                        Ok(())
                    } else {
                        checker.check(key, Value::String(s.to_string()))
                    }
                };
                let v = self.input(Question::new(key, prompt, help), &default, &validate)?;
                if !v.is_empty() {
                    shown.push(format!("{}={v}", key.trim_start_matches("EnvVars.")));
                    self.set(key, Value::String(v));
                    set_any = true;
                }
            }
            if set_any {
                self.row("Proxy", shown.join(" "), false);
            }
        }
        if !set_any {
            // An explicit empty map records "no proxy", so a replay of the
            // saved values does not ask again.
            if self.given("EnvVars").is_none() {
                self.set("EnvVars", json!({}));
            }
            self.row("Proxy", "none", false);
        }
        Ok(())
    }

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

    fn ask_app_proxy(&mut self) -> Result<(), PromptError> {
        let host_given = self.given_text("AppProxy.Ingress.Host");
        let enabled = match self.given_bool("AppProxy.Enabled") {
            Some(b) => {
                self.row("App-proxy", yes_no(b), true);
                b
            }
            None if host_given.is_some() => {
                self.row("App-proxy", "yes", true);
                true
            }
            None => self.flag(
                "AppProxy.Enabled",
                "App-proxy",
                "Install the app-proxy?",
                "Lets Codefresh reach Git providers behind your firewall, through an Ingress.",
                false,
            )?,
        };
        if !enabled {
            return Ok(());
        }
        match host_given {
            Some(h) => self.row("App-proxy host", h, true),
            None => {
                let key = "AppProxy.Ingress.Host";
                let checker = self.checker();
                let validate = |s: &str| {
                    if s.is_empty() {
                        return Err(
                            "the app-proxy needs a host name, e.g. app-proxy.example.com".into(),
                        );
                    }
                    checker.check(key, Value::String(s.to_string()))
                };
                let host = self.input(
                    Question::new(
                        key,
                        "App-proxy host",
                        "The DNS name its Ingress serves; point it at your ingress controller.",
                    ),
                    "",
                    &validate,
                )?;
                self.set(key, Value::String(host.clone()));
                self.row("App-proxy host", host, false);
            }
        }
        let key = "AppProxy.Ingress.IngressClass";
        if let Some(c) = self.given_text(key) {
            self.row(
                "Ingress class",
                if c.is_empty() {
                    "cluster default".into()
                } else {
                    c
                },
                true,
            );
            return Ok(());
        }
        let help = "Which ingress controller serves it.";
        let facts = self.facts();
        let class = match &facts.ingress_classes {
            Some(classes) if !classes.is_empty() => {
                let mut choices: Vec<Choice> = classes
                    .iter()
                    .map(|c| {
                        Choice::new(
                            c.name.clone(),
                            if c.is_default { "the default" } else { "" },
                        )
                    })
                    .collect();
                choices.push(Choice::new("the cluster's default", "no ingressClassName"));
                let default = classes.iter().position(|c| c.is_default).unwrap_or(0);
                let i =
                    self.select(Question::new(key, "Ingress class", help), &choices, default)?;
                classes.get(i).map(|c| c.name.clone()).unwrap_or_default()
            }
            _ => {
                let checker = self.checker();
                let validate = |s: &str| {
                    if s.is_empty() {
                        Ok(())
                    } else {
                        checker.check(key, Value::String(s.to_string()))
                    }
                };
                self.input(
                    Question::new(
                        key,
                        "Ingress class",
                        format!("{help} Empty uses the cluster's default."),
                    ),
                    "",
                    &validate,
                )?
            }
        };
        // Empty text counts as unset in the values, and records the answer
        // so a replay of the saved values does not ask again.
        self.set(key, Value::String(class.clone()));
        self.row(
            "Ingress class",
            if class.is_empty() {
                "cluster default".to_string()
            } else {
                class
            },
            false,
        );
        Ok(())
    }

    fn ask_build_node_selector(&mut self, zone: Option<&str>) -> Result<(), PromptError> {
        let key = "Runtime.NodeSelector";
        if let Some(v) = self.given(key) {
            let shown = selector_text(v);
            self.row(
                "Build node selector",
                if shown.is_empty() {
                    "any node".into()
                } else {
                    shown
                },
                true,
            );
            return Ok(());
        }
        // Disks live in one zone; when nodes span several, keep builds there.
        let suggestion = match zone {
            Some(z) if self.facts().zones.len() > 1 => format!("{ZONE_LABEL}={z}"),
            _ => String::new(),
        };
        let checker = self.checker();
        let validate = |s: &str| {
            if s.is_empty() {
                Ok(())
            } else {
                checker.check(key, Value::String(s.to_string()))
            }
        };
        let text = self.input(
            Question::new(
                key,
                "Build node selector",
                "Labels the nodes for builds must have, key=value[,key=value]; empty for any node.",
            ),
            &suggestion,
            &validate,
        )?;
        let map: Map<String, Value> = text
            .split(',')
            .filter_map(|pair| pair.split_once('='))
            .map(|(k, v)| (k.trim().to_string(), Value::String(v.trim().to_string())))
            .collect();
        self.set(key, Value::Object(map));
        self.row(
            "Build node selector",
            if text.is_empty() {
                "any node".into()
            } else {
                text
            },
            false,
        );
        Ok(())
    }

    fn ask_build_tolerations(&mut self) -> Result<(), PromptError> {
        let key = "Runtime.tolerations";
        if let Some(Value::Array(list)) = self.given(key) {
            let n = list.len();
            self.row("Build tolerations", plural(n, "toleration"), true);
            return Ok(());
        }
        let checker = self.checker();
        let validate = |s: &str| {
            let list = parse_tolerations(s)?;
            checker.check(key, list)
        };
        let text = self.input(
            Question::new(
                key,
                "Build tolerations",
                "Taints build pods tolerate, key=value:Effect or key:Effect, comma-separated; empty for none.",
            ),
            "",
            &validate,
        )?;
        let list = parse_tolerations(&text).expect("validated");
        self.set(key, list);
        self.row(
            "Build tolerations",
            if text.is_empty() { "none".into() } else { text },
            false,
        );
        Ok(())
    }

    fn ask_platform(&mut self) -> Result<(), PromptError> {
        self.section("Codefresh platform");
        let given = ["Token", "AgentToken"]
            .iter()
            .any(|k| self.given_text(k).is_some_and(|t| !t.is_empty()));
        if !self.setup.ask_token || given {
            return Ok(());
        }
        let required = |s: &str| {
            if s.is_empty() {
                Err(
                    "the install registers the runner with this token (or quit and use --dry-run)"
                        .to_string(),
                )
            } else {
                Ok(())
            }
        };
        let token = self.password(
            Question::new(
                "Token",
                "Codefresh API token",
                "An API key with the scopes Runner-Installation, Agent and Agents (User settings → API keys); it is not saved.",
            ),
            &required,
        )?;
        self.set("Token", Value::String(token));
        self.row("API token", "(hidden)", false);
        Ok(())
    }

    fn ask_save(&mut self) -> Result<Option<PathBuf>, PromptError> {
        let save = self.confirm(
            Question::new(
                "save",
                "Save these answers as a values file?",
                "Replay the same setup later or in CI with `cf-runner init --values FILE --yes`.",
            ),
            true,
        )?;
        if !save {
            return Ok(None);
        }
        loop {
            let validate = |s: &str| {
                if s.is_empty() {
                    return Err("name a file, e.g. cf-runner-values.yaml".to_string());
                }
                let path = expand_home(s);
                if path.is_dir() {
                    return Err(format!("{s} is a folder; name a file in it"));
                }
                match path.parent() {
                    Some(parent) if !parent.as_os_str().is_empty() && !parent.is_dir() => {
                        Err(format!("the folder {} does not exist", parent.display()))
                    }
                    _ => Ok(()),
                }
            };
            let name = self.input(
                Question::new(
                    "save.path",
                    "Values file",
                    "Everything given and answered goes in it; mode 0600 when it holds a secret.",
                ),
                DEFAULT_SAVE_FILE,
                &validate,
            )?;
            let path = expand_home(&name);
            if !path.exists() {
                return Ok(Some(path));
            }
            let replace = self.confirm(
                Question::new("save.replace", &format!("{name} exists. Replace it?"), ""),
                false,
            )?;
            if replace {
                return Ok(Some(path));
            }
        }
    }

    fn ask_next(&mut self, context: Option<&str>, saving: bool) -> Result<Next, PromptError> {
        let go = match &self.setup.mode {
            Mode::DryRun { output } if output == "-" => "Write the manifests to stdout".to_string(),
            Mode::DryRun { output } => format!("Write the manifests to {output}/"),
            Mode::Helm { path } => format!("Write the Helm values to {path}"),
            Mode::Install => match context {
                Some(c) => format!("Install into {c}"),
                None => "Install".to_string(),
            },
        };
        let stop = if saving {
            "Stop here (only the values file is written)"
        } else {
            "Stop here without changing anything"
        };
        let choices = [
            Choice::new(go, ""),
            Choice::new("Change an answer", "walk the questions again"),
            Choice::new(stop, ""),
        ];
        Ok(
            match self.select(Question::new("next", "Go ahead?", ""), &choices, 0)? {
                0 => Next::Proceed,
                1 => Next::Change,
                _ => Next::Stop,
            },
        )
    }
}

/// The backend the cluster's StorageClasses point at (its default class
/// first), or `local`.
fn suggested_backend(facts: &Facts) -> &'static str {
    let mut classes: Vec<&StorageClassFact> = facts.storage_classes.iter().collect();
    classes.sort_by_key(|c| !c.is_default);
    classes
        .iter()
        .find_map(|c| match c.provisioner.as_str() {
            "ebs.csi.aws.com" => Some("ebs-csi"),
            "kubernetes.io/aws-ebs" => Some("ebs"),
            "pd.csi.storage.gke.io" | "kubernetes.io/gce-pd" => Some("gcedisk"),
            "disk.csi.azure.com" | "kubernetes.io/azure-disk" => Some("azuredisk"),
            _ => None,
        })
        .unwrap_or("local")
}

/// `key=value:Effect`, `key:Effect`, `key=value`, `key` (any value), comma
/// separated, into Kubernetes tolerations.
fn parse_tolerations(text: &str) -> Result<Value, String> {
    let mut out = Vec::new();
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (taint, effect) = match item.rsplit_once(':') {
            Some((t, e)) => (t, Some(e)),
            None => (item, None),
        };
        let mut t = Map::new();
        match taint.split_once('=') {
            Some((k, v)) => {
                t.insert("key".into(), json!(k.trim()));
                t.insert("operator".into(), json!("Equal"));
                t.insert("value".into(), json!(v.trim()));
            }
            None => {
                t.insert("key".into(), json!(taint.trim()));
                t.insert("operator".into(), json!("Exists"));
            }
        }
        if let Some(effect) = effect {
            if !["NoSchedule", "PreferNoSchedule", "NoExecute"].contains(&effect) {
                return Err(format!(
                    "{item:?} has the effect {effect:?}; use NoSchedule, PreferNoSchedule or NoExecute"
                ));
            }
            t.insert("effect".into(), json!(effect));
        }
        if t.get("key") == Some(&json!("")) {
            return Err(format!("{item:?} has no taint key; write key=value:Effect"));
        }
        out.push(Value::Object(t));
    }
    Ok(Value::Array(out))
}

fn selector_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
            .collect::<Vec<_>>()
            .join(","),
        _ => String::new(),
    }
}

fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.chars().enumerate().all(|(i, c)| {
            if [8, 13, 18, 23].contains(&i) {
                c == '-'
            } else {
                c.is_ascii_hexdigit()
            }
        })
}

fn expand_home(path: &str) -> PathBuf {
    match path.strip_prefix("~/") {
        Some(rest) => directories::BaseDirs::new()
            .map(|b| b.home_dir().join(rest))
            .unwrap_or_else(|| PathBuf::from(path)),
        None => PathBuf::from(path),
    }
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

fn plural(n: usize, word: &str) -> String {
    let suffix = match (n, word.ends_with("ss")) {
        (1, _) => "",
        (_, true) => "es",
        _ => "s",
    };
    format!("{n} {word}{suffix}")
}
