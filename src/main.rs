//! Entry point: parse the command line, hand it to `app`, exit with its code.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = match cf_runner::cli::Cli::try_parse() {
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
