//! The one place that orders the steps of each command: one file per
//! command. Everything else is a building block these files compose.

pub mod adopt;
pub mod check;
pub mod completions;
pub mod delete;
pub mod diff;
pub mod images;
pub mod info;
pub mod init;
pub mod install;
pub mod platform_link;
pub mod probe;
pub mod schema;
pub mod test_pipeline;
pub mod upgrade;

use std::process::ExitCode;

use crate::cli::{Cli, Command};
use crate::output;
use crate::values::Problems;

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

impl Outcome {
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

/// Runs one parsed command line.
pub fn run(cli: Cli) -> ExitCode {
    output::init_terminal();
    let outcome = match cli.command {
        Command::Init(args) => init::run(&args),
        Command::Completions(args) => completions::run(&args),
        Command::Info(args) => info::run(&args),
        Command::Delete(args) => delete::run(&args),
        Command::Upgrade(args) => upgrade::run(&args),
        Command::Check(args) => check::run(&args),
        Command::TestPipeline(args) => test_pipeline::run(&args),
        Command::Adopt(args) => adopt::run(&args),
        Command::Schema => schema::run(),
        Command::Images(args) => images::run(&args),
        Command::Diff(args) => diff::run(&args),
    };
    outcome.finish()
}
