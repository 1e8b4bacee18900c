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
        Command::Adopt(args) => adopt::run(&args),
        Command::Schema => commands::schema::run(),
        Command::Images(args) => commands::images::run(&args),
        Command::Diff(args) => commands::diff::run(&args),
        Command::SupportBundle(args) => commands::support_bundle::run(&args),
        Command::Runtime(args) => commands::runtime::run(&args),
        Command::Renew(args) => commands::renew::run(&args),
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

    /// Every `.rs` file under `dir`, at any depth.
    fn rust_files_deep(dir: &Path) -> Vec<PathBuf> {
        let mut files = rust_files(dir);
        for entry in std::fs::read_dir(dir).expect("a readable folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                files.extend(rust_files_deep(&path));
            }
        }
        files
    }

    /// A step takes plain options or a flag group several commands share
    /// (`KubeArgs`, `PlatformArgs`, `SettingsArgs`), never one command's
    /// clap struct: `diff` once made up a whole `UpgradeArgs` (a timeout,
    /// `yes: true`) to reach a step.
    #[test]
    fn no_step_takes_a_commands_arguments() {
        let steps = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/app/steps");
        let shared = ["KubeArgs", "PlatformArgs", "SettingsArgs"];
        let mut offences = Vec::new();
        for file in rust_files_deep(&steps) {
            let text = std::fs::read_to_string(&file).unwrap();
            let words = text.split(|c: char| !(c.is_alphanumeric() || c == '_'));
            for word in words {
                if word.ends_with("Args") && word.len() > 4 && !shared.contains(&word) {
                    offences.push(format!("{} names {word}", file.display()));
                }
            }
        }
        offences.dedup();
        assert!(offences.is_empty(), "{offences:#?}");
    }

    /// The files of one module import each other's items by name: a glob
    /// (`use super::*`, `use child::*`) hides where a name comes from.
    /// Test modules written inside a file may still glob their own file.
    #[test]
    fn no_glob_import_between_files() {
        let app = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/app");
        let mut offences = Vec::new();
        for file in rust_files_deep(&app) {
            let text = std::fs::read_to_string(&file).unwrap();
            // Unindented: an item of the file, not of a test module in it.
            for line in text.lines() {
                let import = line
                    .strip_prefix("pub(crate) ")
                    .or_else(|| line.strip_prefix("pub(super) "))
                    .or_else(|| line.strip_prefix("pub "))
                    .unwrap_or(line);
                if import.starts_with("use ") && import.trim_end().ends_with("::*;") {
                    offences.push(format!("{}: {line}", file.display()));
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
