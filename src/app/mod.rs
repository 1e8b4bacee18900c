//! What cf-runner does, in layers that only point down (the table is in
//! docs/design/ARCHITECTURE.md, and the tests of `architecture.rs` hold the
//! code to it): [`commands`] read their flags into options and call one
//! capability ([`install`], [`runtimes`], [`adopt`], [`fleet`],
//! [`day_two`], [`identity`]), which stand on the kernel: the installation
//! as the cluster holds it ([`installation`]) and what every run needs
//! ([`session`]: its outcome, input, connection, lock and apply).

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

use crate::cli::{Cli, Command};
use crate::output;

pub use session::outcome::Outcome;

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
        Command::Diagnose(args) => commands::diagnose::run(&args),
        Command::Fleet(command) => commands::fleet::run(&command),
    };
    outcome.finish()
}

#[cfg(test)]
mod architecture;
