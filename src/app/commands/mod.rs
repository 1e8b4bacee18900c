//! One file per command: it turns the command's flags into options, calls
//! the capability that does the work, and says how the run ended with an
//! [`Outcome`](crate::app::session::outcome::Outcome). A command never imports another one.

pub mod adopt;
pub mod check;
pub mod completions;
pub mod delete;
pub mod diagnose;
pub mod diff;
pub mod flags;
pub mod fleet;
pub mod images;
pub mod info;
pub mod init;
pub mod renew;
pub mod runtime;
pub mod schema;
pub mod support_bundle;
pub mod test_pipeline;
pub mod upgrade;

use std::process::ExitCode;

use crate::cli::{Cli, Command};
use crate::output;

/// Runs one parsed command line: the one place a command is chosen.
pub fn run(cli: Cli) -> ExitCode {
    output::init_terminal();
    let outcome = match cli.command {
        Command::Init(args) => crate::app::commands::init::run(&args),
        Command::Completions(args) => crate::app::commands::completions::run(&args),
        Command::Info(args) => crate::app::commands::info::run(&args),
        Command::Delete(args) => crate::app::commands::delete::run(&args),
        Command::Upgrade(args) => crate::app::commands::upgrade::run(&args),
        Command::Check(args) => crate::app::commands::check::run(&args),
        Command::TestPipeline(args) => crate::app::commands::test_pipeline::run(&args),
        Command::Adopt(args) => crate::app::commands::adopt::run(&args),
        Command::Schema => crate::app::commands::schema::run(),
        Command::Images(args) => crate::app::commands::images::run(&args),
        Command::Diff(args) => crate::app::commands::diff::run(&args),
        Command::SupportBundle(args) => crate::app::commands::support_bundle::run(&args),
        Command::Runtime(args) => crate::app::commands::runtime::run(&args),
        Command::Renew(args) => crate::app::commands::renew::run(&args),
        Command::Diagnose(args) => crate::app::commands::diagnose::run(&args),
        Command::Fleet(command) => crate::app::commands::fleet::run(&command),
    };
    outcome.finish()
}
