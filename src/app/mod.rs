//! The one place that orders the steps of each command: one thin file per
//! command, which orders named steps and imports no other command. The
//! steps they share live in [`steps`]; how a command ended in [`outcome`].

pub mod adopt;
pub mod commands;
pub mod day_two;
pub mod fleet;
pub mod identity;
pub mod install;
pub mod installation;
pub mod runtimes;
pub mod session;

use std::process::ExitCode;

pub use session::outcome::Outcome;

use crate::cli::{Cli, Command};
use crate::output;

/// Runs one parsed command line.
pub fn run(cli: Cli) -> ExitCode {
    output::init_terminal();
    let outcome = match cli.command {
        Command::Init(args) => commands::init::run(&args),
        Command::Completions(args) => commands::completions::run(&args),
        Command::Info(args) => commands::info::run(&args),
        Command::Delete(args) => commands::delete::run(&args),
        Command::Upgrade(args) => commands::upgrade::run(&args),
        Command::Check(args) => commands::check::run(&args),
        Command::TestPipeline(args) => commands::test_pipeline::run(&args),
        Command::Adopt(args) => commands::adopt::run(&args),
        Command::Schema => commands::schema::run(),
        Command::Images(args) => commands::images::run(&args),
        Command::Diff(args) => commands::diff::run(&args),
        Command::SupportBundle(args) => commands::support_bundle::run(&args),
        Command::Runtime(args) => commands::runtime::run(&args),
        Command::Renew(args) => commands::renew::run(&args),
        Command::Fleet(command) => commands::fleet::run(&command),
    };
    outcome.finish()
}

#[cfg(test)]
mod architecture;
