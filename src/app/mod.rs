//! The one place that orders the steps of each command: one thin file per
//! command, which orders named steps and imports no other command. The
//! steps they share live in [`steps`]; how a command ended in [`outcome`].

pub mod adopt;
pub mod check;
pub mod completions;
pub mod delete;
pub mod diff;
pub mod fleet;
pub mod images;
pub mod info;
pub mod init;
pub mod outcome;
pub mod schema;
pub mod steps;
pub mod test_pipeline;
pub mod upgrade;

use std::process::ExitCode;

pub use outcome::Outcome;

use crate::cli::{Cli, Command};
use crate::output;

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
        Command::Fleet(command) => fleet::run(&command),
    };
    outcome.finish()
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    /// The modules a file names right after `super::` or `crate::app::`
    /// (`use super::{a, b::c}` names `a` and `b`).
    fn modules_used(text: &str, prefix: &str) -> Vec<String> {
        let flat: String = text
            .lines()
            .map(|l| l.split("//").next().unwrap_or_default())
            .collect::<Vec<_>>()
            .join(" ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let mut found = Vec::new();
        for (at, _) in flat.match_indices(prefix) {
            let rest = &flat[at + prefix.len()..];
            let items: Vec<&str> = if let Some(group) = rest.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                group[..end].split(',').collect()
            } else {
                vec![rest]
            };
            for item in items {
                let name: String = item
                    .trim_start()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    found.push(name);
                }
            }
        }
        found
    }

    fn rust_files(dir: &Path) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .expect("src/app is readable")
            .map(|e| e.expect("an entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .collect();
        files.sort();
        files
    }

    /// The command files: every file of `src/app/` but `mod.rs` and `outcome.rs`.
    fn commands(app: &Path) -> Vec<String> {
        rust_files(app)
            .iter()
            .filter_map(|p| p.file_stem()?.to_str().map(str::to_string))
            .filter(|s| s != "mod" && s != "outcome")
            .collect()
    }

    /// A command file orders steps; a step it needs from another command
    /// belongs in `app/steps/`. (`check → init → install → check` was an
    /// import circle.)
    #[test]
    fn no_command_file_imports_another_command() {
        let app = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/app");
        let commands = commands(&app);
        assert!(commands.len() >= 10, "{commands:?}");
        let mut offences = Vec::new();
        for file in rust_files(&app) {
            let me = file.file_stem().unwrap().to_string_lossy().to_string();
            if !commands.contains(&me) {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap();
            for prefix in ["super::", "crate::app::"] {
                for used in modules_used(&text, prefix) {
                    if used != me && commands.contains(&used) {
                        offences.push(format!("{me}.rs uses {prefix}{used}"));
                    }
                }
            }
        }
        assert!(offences.is_empty(), "{offences:#?}");
    }

    /// Steps are shared by commands and never reach back into one.
    #[test]
    fn no_step_imports_a_command() {
        let app = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/app");
        let commands = commands(&app);
        let mut offences = Vec::new();
        for file in rust_files(&app.join("steps")) {
            let text = std::fs::read_to_string(&file).unwrap();
            for prefix in ["crate::app::", "super::super::"] {
                for used in modules_used(&text, prefix) {
                    if commands.contains(&used) {
                        offences.push(format!("{} uses {prefix}{used}", file.display()));
                    }
                }
            }
        }
        assert!(offences.is_empty(), "{offences:#?}");
    }

    #[test]
    fn grouped_and_nested_imports_are_both_seen() {
        let text = "use super::{init,\n steps::session};\nuse super::info as i;\nsuper::diff::f();";
        assert_eq!(
            modules_used(text, "super::"),
            ["init", "steps", "info", "diff"]
        );
    }
}
