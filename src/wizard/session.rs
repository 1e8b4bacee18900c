//! The plumbing under every question: a [`Session`] remembers what was
//! asked and answered in one round (and the replies of the round before, so
//! "change an answer" offers them again), shows a section header before its
//! first question, collects the summary rows, and checks answers with the
//! values rules through a [`Checker`]. The questions themselves live in the
//! topic files beside it.

use std::collections::HashMap;

use serde_json::Value;

use super::{
    Choice, Cluster, Facts, Mode, PromptError, Prompter, Question, Setup, SummaryRow, Validator,
};
use crate::values::{self, tree, Input, Problem, Problems, ValuesFile};

/// A raw reply, remembered so "change an answer" can offer it again.
#[derive(Debug, Clone)]
pub(super) enum Reply {
    Text(String),
    Picked(String),
    Flag(bool),
}

/// Checks candidate answers with the values rules, against everything given
/// and answered so far (owned, so a validator closure can borrow it while
/// the prompter is borrowed mutably).
pub(super) struct Checker {
    given: String,
    answers: Vec<(String, Value)>,
}

impl Checker {
    /// [`Self::check`] of a text answer, where empty is accepted: it leaves
    /// the key unset.
    pub(super) fn check_unless_empty(&self, key: &str, text: &str) -> Result<(), String> {
        if text.is_empty() {
            Ok(())
        } else {
            self.check(key, Value::String(text.to_string()))
        }
    }

    pub(super) fn check(&self, key: &str, value: Value) -> Result<(), String> {
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

/// One round of questions: what was asked and answered, and the summary
/// rows, on top of the [`Setup`].
pub(super) struct Session<'a> {
    pub(super) p: &'a mut dyn Prompter,
    pub(super) setup: &'a Setup,
    pub(super) previous: &'a HashMap<String, Reply>,
    pub(super) replies: HashMap<String, Reply>,
    pub(super) answers: Vec<(String, Value)>,
    pub(super) rows: Vec<SummaryRow>,
    pub(super) asked: usize,
    /// A section header not shown yet: it is shown before its first question.
    pub(super) pending_section: Option<&'static str>,
    /// The intro has not been shown yet.
    pub(super) intro: bool,
    pub(super) cluster: &'a mut dyn Cluster,
    /// What each context's cluster offered, looked at once, when a question
    /// first needs a suggestion.
    pub(super) facts: &'a mut HashMap<String, Facts>,
    pub(super) context: Option<String>,
}

impl<'a> Session<'a> {
    pub(super) fn new(
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

    pub(super) fn given(&self, key: &str) -> Option<&Value> {
        tree::lookup(&self.setup.given, key)
    }

    pub(super) fn given_text(&self, key: &str) -> Option<String> {
        match self.given(key)? {
            Value::String(s) => Some(s.trim().to_string()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }

    pub(super) fn given_bool(&self, key: &str) -> Option<bool> {
        match self.given(key)? {
            Value::Bool(b) => Some(*b),
            Value::String(s) if s == "true" => Some(true),
            Value::String(s) if s == "false" => Some(false),
            _ => None,
        }
    }

    pub(super) fn set(&mut self, key: &str, value: Value) {
        match self.answers.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value,
            None => self.answers.push((key.to_string(), value)),
        }
    }

    pub(super) fn checker(&self) -> Checker {
        Checker {
            given: serde_json::to_string(&self.setup.given).expect("JSON serializes"),
            answers: self.answers.clone(),
        }
    }

    pub(super) fn row(&mut self, topic: &str, value: impl Into<String>, given: bool) {
        // A proxy's password is not shown back, like every secret.
        self.rows.push(SummaryRow {
            topic: topic.to_string(),
            value: crate::text::masked_value(&value.into()),
            given,
        });
    }

    pub(super) fn section(&mut self, title: &'static str) {
        self.pending_section = Some(title);
    }

    pub(super) fn show_section(&mut self) {
        self.show_intro();
        if let Some(title) = self.pending_section.take() {
            self.p.section(title);
        }
    }

    pub(super) fn show_intro(&mut self) {
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

    pub(super) fn note(&mut self, text: &str) {
        self.show_section();
        self.p.note(&crate::text::masked(text));
    }

    pub(super) fn select(
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

    pub(super) fn input(
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

    pub(super) fn password(
        &mut self,
        q: Question,
        validate: Validator,
    ) -> Result<String, PromptError> {
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

    pub(super) fn confirm(&mut self, q: Question, default: bool) -> Result<bool, PromptError> {
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
    pub(super) fn flag(
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
    pub(super) fn pick(
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
}

pub(super) fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

pub(super) fn plural(n: usize, word: &str) -> String {
    let suffix = match (n, word.ends_with("ss")) {
        (1, _) => "",
        (_, true) => "es",
        _ => "s",
    };
    format!("{n} {word}{suffix}")
}
