//! How a command ended, and the exit code that says it (PRODUCT.md §6).
//! Every command and step returns one; `finish` reports it. Steps return
//! `Result<_, Outcome>`, and the errors that always end the same way
//! (bad input, a render that failed) convert with `From`, so that a
//! command body is a straight line of `?`.

use std::process::ExitCode;

use crate::cluster::KubeError;
use crate::output;
use crate::platform::PlatformError;
use crate::render::RenderError;
use crate::values::{Problem, Problems};

/// How a command ended, mapped to the exit codes of PRODUCT.md §6.
#[derive(Debug)]
pub enum Outcome {
    Ok,
    /// Bad input or usage: exit 2, nothing applied.
    BadInput(Problems),
    /// Something failed: exit 1.
    Failed(anyhow::Error, Option<String>),
    /// A preflight check failed: exit 3.
    PreflightFailed,
    /// Stopped with Ctrl-C at a prompt, before anything was written: exit 130.
    Interrupted,
    /// `diff` found changes: exit 1, like `kubectl diff`, with no error.
    Differs,
    /// Something failed, with an exit code other than 1 (`diff` uses 2).
    FailedWithCode(anyhow::Error, Option<String>, u8),
    /// Stopped by SIGINT (exit 130) or SIGTERM (exit 143) after the cluster
    /// was touched: the report says what was and was not applied.
    Signalled(u8, anyhow::Error, Option<String>),
}

/// The hint of a failure: what to do about it, when anything.
pub trait Hint {
    /// The hint as [`Outcome::Failed`] carries it.
    fn into_hint(self) -> Option<String>;
}

impl Hint for &str {
    fn into_hint(self) -> Option<String> {
        Some(self.to_string())
    }
}

impl Hint for String {
    fn into_hint(self) -> Option<String> {
        Some(self)
    }
}

impl Hint for Option<String> {
    fn into_hint(self) -> Option<String> {
        self
    }
}

impl Outcome {
    /// A render that failed: the values were valid, so it is cf-runner's bug.
    /// The one text for it, whichever command rendered.
    pub fn render_failed(err: RenderError) -> Outcome {
        Outcome::Failed(
            anyhow::Error::new(err).context("rendering the manifests failed (a bug in cf-runner)"),
            Some("please report it with the values file (secrets removed)".into()),
        )
    }

    /// Something failed (exit 1): the error, with what to do about it.
    pub fn failed(err: impl Into<anyhow::Error>, hint: impl Hint) -> Outcome {
        Outcome::Failed(err.into(), hint.into_hint())
    }

    /// Reports the outcome and gives the process exit code.
    pub fn finish(self) -> ExitCode {
        match self {
            Outcome::Ok => ExitCode::SUCCESS,
            Outcome::BadInput(problems) => {
                output::error(&anyhow::Error::new(problems), None);
                ExitCode::from(2)
            }
            Outcome::Failed(err, hint) => {
                output::error(&err, hint.as_deref());
                ExitCode::from(1)
            }
            Outcome::PreflightFailed => ExitCode::from(3),
            Outcome::Differs => ExitCode::from(1),
            Outcome::FailedWithCode(err, hint, code) | Outcome::Signalled(code, err, hint) => {
                output::error(&err, hint.as_deref());
                ExitCode::from(code)
            }
            Outcome::Interrupted => {
                output::note("stopped: nothing was written or applied");
                ExitCode::from(crate::wizard::terminal::INTERRUPTED_EXIT_CODE as u8)
            }
        }
    }
}

impl From<Problems> for Outcome {
    fn from(problems: Problems) -> Outcome {
        Outcome::BadInput(problems)
    }
}

impl From<Problem> for Outcome {
    fn from(problem: Problem) -> Outcome {
        Outcome::BadInput(Problems(vec![problem]))
    }
}

impl From<RenderError> for Outcome {
    fn from(err: RenderError) -> Outcome {
        Outcome::render_failed(err)
    }
}

/// A command body that ends with `?`: `Ok` is [`Outcome::Ok`].
impl From<Result<(), Outcome>> for Outcome {
    fn from(result: Result<(), Outcome>) -> Outcome {
        result.err().unwrap_or(Outcome::Ok)
    }
}

impl Outcome {
    /// A cluster error as a failed outcome: `what` says what was being done
    /// (the message's first line), the error why, and its hint the fix.
    pub fn from_cluster(e: KubeError, what: &str) -> Outcome {
        let hint = e.hint();
        Outcome::Failed(anyhow::Error::new(e).context(what.to_string()), hint)
    }

    /// A platform error as an outcome: bad input when the platform refused
    /// what the user gave (naming the flag), else a failure that says what
    /// was being done.
    pub fn from_platform(err: PlatformError, doing: &str) -> Outcome {
        let hint = err.hint();
        if err.is_bad_input() {
            return Outcome::BadInput(Problems(vec![Problem::new(
                err.flag(),
                None,
                err.to_string(),
                hint.unwrap_or_default(),
            )]));
        }
        Outcome::Failed(anyhow::Error::new(err).context(doing.to_string()), hint)
    }
}

/// Says what a request was doing when it failed: the one way a cluster or
/// platform error becomes how the run ends
/// (`client.get(..).await.doing("reading the record failed")?`).
pub trait Doing<T> {
    /// The error, if any, as the outcome that ends the run.
    fn doing(self, what: &str) -> Result<T, Outcome>;
}

impl<T> Doing<T> for Result<T, KubeError> {
    fn doing(self, what: &str) -> Result<T, Outcome> {
        self.map_err(|e| Outcome::from_cluster(e, what))
    }
}

impl<T> Doing<T> for Result<T, PlatformError> {
    fn doing(self, what: &str) -> Result<T, Outcome> {
        self.map_err(|e| Outcome::from_platform(e, what))
    }
}
