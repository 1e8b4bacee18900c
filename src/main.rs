//! Entry point: parse the command line, hand it to `app`, exit with its code.

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

use cf_runner::cli::Cli;

/// `Cli::try_parse`, without freeing the command tree it builds: every
/// subcommand's flags, some 600 allocations freed one by one just before
/// the work starts, when the process gives them back whole at exit.
fn parse() -> Result<Cli, clap::Error> {
    let mut command = Cli::command();
    let parsed = command
        .try_get_matches_from_mut(std::env::args_os())
        .and_then(|mut matches| {
            Cli::from_arg_matches_mut(&mut matches).map_err(|e| e.format(&mut Cli::command()))
        });
    std::mem::forget(command);
    parsed
}

fn main() -> ExitCode {
    let cli = match parse() {
        Ok(cli) => cli,
        Err(mut e) => {
            cf_runner::cli::suggest_kubectl_habits(&mut e);
            // clap prints help/version to stdout (exit 0) and usage errors to
            // stderr; usage errors are bad input, exit code 2.
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    cf_runner::app::run(cli)
}
