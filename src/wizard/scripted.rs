//! A prompter that replays scripted replies, for tests of the question
//! logic: each reply names the question it expects, so a test also pins the
//! order of the questions and which ones are skipped. Compiled for the unit
//! tests only (`#[cfg(test)]`): the binary does not carry it.

use std::collections::VecDeque;

use super::{Choice, PromptError, Prompter, Question, SummaryRow, Validator};

/// One scripted reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// Press Enter: take the default.
    Enter,
    /// Type this text.
    Text(String),
    /// Pick the choice whose label starts with this text.
    Pick(String),
    Yes,
    No,
    /// Press Ctrl-C.
    Interrupt,
}

/// Replays replies in order and records what was shown.
#[derive(Debug, Default)]
pub struct Scripted {
    replies: VecDeque<(String, Reply)>,
    /// The ids of the questions asked, in order (re-asks included).
    pub asked: Vec<String>,
    /// Answers the validator rejected: (question id, message).
    pub rejected: Vec<(String, String)>,
    /// Sections and notes, in order.
    pub notes: Vec<String>,
    /// The defaults offered: (question id, default shown).
    pub defaults: Vec<(String, String)>,
    /// The choices offered by each pick-one question.
    pub choices: Vec<(String, Vec<String>)>,
    /// The summary, once shown.
    pub summary: Vec<SummaryRow>,
}

impl Scripted {
    /// A prompter with `(question id, reply)` pairs.
    pub fn new(replies: &[(&str, Reply)]) -> Self {
        Scripted {
            replies: replies
                .iter()
                .map(|(id, r)| (id.to_string(), r.clone()))
                .collect(),
            ..Default::default()
        }
    }

    /// The replies not used yet (a test usually wants none left).
    pub fn left(&self) -> Vec<String> {
        self.replies.iter().map(|(id, _)| id.clone()).collect()
    }

    /// The default offered the last time question `id` was asked.
    pub fn default_of(&self, id: &str) -> Option<&str> {
        self.defaults
            .iter()
            .rev()
            .find(|(q, _)| q == id)
            .map(|(_, d)| d.as_str())
    }

    fn next(&mut self, question: &Question) -> Result<Reply, PromptError> {
        self.asked.push(question.id.clone());
        let Some((id, reply)) = self.replies.pop_front() else {
            panic!(
                "the wizard asked {:?} ({}), but the script has no reply left",
                question.id, question.prompt
            );
        };
        assert_eq!(
            id, question.id,
            "the wizard asked {:?} ({}) where the script expected {id:?}",
            question.id, question.prompt
        );
        assert!(
            !question.help.is_empty() || question.id.starts_with("save.") || question.id == "next",
            "question {:?} has no explanation",
            question.id
        );
        match reply {
            Reply::Interrupt => Err(PromptError::Interrupted),
            other => Ok(other),
        }
    }
}

impl Prompter for Scripted {
    fn section(&mut self, title: &str) {
        self.notes.push(format!("## {title}"));
    }

    fn note(&mut self, text: &str) {
        self.notes.push(text.to_string());
    }

    fn select(
        &mut self,
        question: &Question,
        choices: &[Choice],
        default: usize,
    ) -> Result<usize, PromptError> {
        let labels: Vec<String> = choices.iter().map(|c| c.label.clone()).collect();
        self.defaults
            .push((question.id.clone(), labels[default].clone()));
        self.choices.push((question.id.clone(), labels.clone()));
        match self.next(question)? {
            Reply::Enter => Ok(default),
            Reply::Pick(want) => match labels.iter().position(|l| l.starts_with(&want)) {
                Some(i) => Ok(i),
                None => panic!(
                    "{:?} offers no choice {want:?}; it offers {labels:?}",
                    question.id
                ),
            },
            other => panic!("{:?} is a pick-one question, not {other:?}", question.id),
        }
    }

    fn input(
        &mut self,
        question: &Question,
        default: &str,
        validate: Validator,
    ) -> Result<String, PromptError> {
        self.defaults
            .push((question.id.clone(), default.to_string()));
        loop {
            let text = match self.next(question)? {
                Reply::Enter => default.to_string(),
                Reply::Text(t) => t,
                other => panic!("{:?} wants text, not {other:?}", question.id),
            };
            match validate(text.trim()) {
                Ok(()) => return Ok(text),
                Err(why) => self.rejected.push((question.id.clone(), why)),
            }
        }
    }

    fn password(
        &mut self,
        question: &Question,
        validate: Validator,
    ) -> Result<String, PromptError> {
        loop {
            let text = match self.next(question)? {
                Reply::Enter => String::new(),
                Reply::Text(t) => t,
                other => panic!("{:?} wants a secret, not {other:?}", question.id),
            };
            match validate(text.trim()) {
                Ok(()) => return Ok(text),
                Err(why) => self.rejected.push((question.id.clone(), why)),
            }
        }
    }

    fn confirm(&mut self, question: &Question, default: bool) -> Result<bool, PromptError> {
        self.defaults
            .push((question.id.clone(), default.to_string()));
        match self.next(question)? {
            Reply::Enter => Ok(default),
            Reply::Yes => Ok(true),
            Reply::No => Ok(false),
            other => panic!("{:?} is a yes/no question, not {other:?}", question.id),
        }
    }

    fn summary(&mut self, rows: &[SummaryRow]) {
        self.summary = rows.to_vec();
    }
}
