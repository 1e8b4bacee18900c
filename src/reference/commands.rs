//! One Markdown page per command, from the clap definition `--help` is made
//! of: what it does, its usage line, every argument and option with its
//! help, default, accepted values and environment variable, its
//! subcommands, and its examples (the table in `cli/examples.rs`).

use clap::{Arg, CommandFactory};

use super::{prose, table_cell};
use crate::cli::{examples_of, Cli};

/// A command of the tree, built (so usage lines and inherited flags are
/// what the binary shows), with its path below `cf-runner`.
#[derive(Debug, Clone)]
pub(super) struct CommandDoc {
    /// The words after `cf-runner` (`["runtime", "attach"]`); empty for the root.
    pub path: Vec<String>,
    /// The built command.
    pub cmd: clap::Command,
}

impl CommandDoc {
    /// `cf-runner runtime attach`.
    pub fn display_path(&self) -> String {
        std::iter::once("cf-runner")
            .chain(self.path.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }
    /// The page's file name without `.md`: `runtime-attach`, or `cf-runner` for the root.
    pub fn page_name(&self) -> String {
        if self.path.is_empty() {
            "cf-runner".to_string()
        } else {
            self.path.join("-")
        }
    }
    /// The man page's name without `.1`: `cf-runner-runtime-attach`.
    pub fn man_name(&self) -> String {
        self.display_path().replace(' ', "-")
    }
    /// The examples table's key: `runtime attach`.
    pub fn examples_key(&self) -> String {
        self.path.join(" ")
    }
    /// The one-line description.
    pub fn about(&self) -> String {
        self.cmd
            .get_about()
            .map(|a| a.to_string())
            .unwrap_or_default()
    }
}

/// The clap definition as the reference documents it: built, without the
/// `help` subcommand (it only repeats `--help`).
pub(super) fn root_command() -> clap::Command {
    let mut root = Cli::command().disable_help_subcommand(true);
    root.build();
    root
}

/// The root and every command below it, depth first, in the order of
/// `--help`.
pub(super) fn all_commands(root: &clap::Command) -> Vec<CommandDoc> {
    fn walk(cmd: &clap::Command, path: Vec<String>, out: &mut Vec<CommandDoc>) {
        out.push(CommandDoc {
            path: path.clone(),
            cmd: cmd.clone(),
        });
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            let mut below = path.clone();
            below.push(sub.get_name().to_string());
            walk(sub, below, out);
        }
    }
    let mut out = Vec::new();
    walk(root, Vec::new(), &mut out);
    out
}

/// The arguments a page lists: everything but `--help` and `--version`,
/// which every command has and which say nothing about it.
/// In the order `--help` shows them.
pub(super) fn documented_args(cmd: &clap::Command) -> Vec<&Arg> {
    let mut args: Vec<&Arg> = cmd
        .get_arguments()
        .filter(|a| !a.is_hide_set() && !matches!(a.get_id().as_str(), "help" | "version"))
        .collect();
    // A flag whose help a command replaces (`mut_arg`) moves to the end of
    // the list but keeps its place in `--help`.
    args.sort_by_key(|a| a.get_display_order());
    args
}

/// The page of one command.
pub(super) fn page(doc: &CommandDoc, all: &[CommandDoc]) -> String {
    let mut out = format!("# {}\n\n{}\n", doc.display_path(), prose(&doc.about()));
    if let Some(long) = doc.cmd.get_long_about() {
        out.push_str(&format!("\n{}\n", prose(&long.to_string())));
    }
    let usage = doc.cmd.clone().render_usage().to_string();
    let usage = usage.trim().trim_start_matches("Usage:").trim();
    out.push_str(&format!("\n## Usage\n\n```text\n{usage}\n```\n"));
    subcommands(&mut out, doc, all);
    let (positionals, options): (Vec<&Arg>, Vec<&Arg>) = documented_args(&doc.cmd)
        .into_iter()
        .partition(|a| a.is_positional());
    if !positionals.is_empty() {
        out.push_str("\n## Arguments\n\n");
        positionals.iter().for_each(|a| out.push_str(&arg_item(a)));
    }
    if !options.is_empty() {
        out.push_str("\n## Options\n\n");
        options.iter().for_each(|a| out.push_str(&arg_item(a)));
    }
    examples(&mut out, doc);
    if !doc.path.is_empty() {
        out.push_str("\nSee also: [all commands](../README.md), [exit codes](../exit-codes.md).\n");
    }
    out
}

/// The table of a command's subcommands, each linked to its page.
fn subcommands(out: &mut String, doc: &CommandDoc, all: &[CommandDoc]) {
    let children: Vec<&CommandDoc> = all
        .iter()
        .filter(|c| c.path.len() == doc.path.len() + 1 && c.path.starts_with(&doc.path))
        .collect();
    if children.is_empty() {
        return;
    }
    out.push_str("\n## Commands\n\n| command | what it does |\n|---|---|\n");
    for child in children {
        out.push_str(&format!(
            "| [`{}`]({}.md) | {} |\n",
            child.path.join(" "),
            child.page_name(),
            table_cell(&child.about())
        ));
    }
}

/// The examples of a leaf command, as one shell block.
fn examples(out: &mut String, doc: &CommandDoc) {
    let examples = examples_of(&doc.examples_key());
    if doc.path.is_empty() || examples.is_empty() {
        return;
    }
    out.push_str("\n## Examples\n\n```sh\n");
    for (i, example) in examples.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&format!("# {}\n{}\n", example.comment, example.command));
    }
    out.push_str("```\n");
}

/// How an argument is written: `-f, --values <FILE>`, `--app-proxy [<BOOL>]`, `<WHAT>`.
pub(super) fn arg_label(arg: &Arg) -> String {
    let value = value_label(arg);
    if arg.is_positional() {
        return value.unwrap_or_else(|| format!("<{}>", arg.get_id().as_str().to_uppercase()));
    }
    let mut label = String::new();
    if let Some(short) = arg.get_short() {
        label.push_str(&format!("-{short}, "));
    }
    if let Some(long) = arg.get_long() {
        label.push_str(&format!("--{long}"));
    }
    if let Some(value) = value {
        label.push(' ');
        label.push_str(&value);
    }
    label
}

/// `<NAME>` of an argument that takes a value, `[<NAME>]` when the value
/// may be left out; `None` for a switch.
fn value_label(arg: &Arg) -> Option<String> {
    if !arg.get_action().takes_values() {
        return None;
    }
    let name = arg
        .get_value_names()
        .and_then(|names| names.first())
        .map(|n| n.to_string())
        .unwrap_or_else(|| arg.get_id().as_str().to_uppercase());
    let optional = arg.get_num_args().is_some_and(|n| n.min_values() == 0);
    Some(if optional {
        format!("[<{name}>]")
    } else {
        format!("<{name}>")
    })
}

/// The facts about an argument besides its help, each a short phrase.
pub(super) fn arg_facts(arg: &Arg) -> Vec<String> {
    let mut facts = Vec::new();
    if arg.is_required_set() {
        facts.push("required".to_string());
    }
    // A switch's `false` default says nothing.
    let takes_values = arg.get_action().takes_values();
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| format!("`{}`", v.to_string_lossy()))
        .collect();
    if takes_values && !defaults.is_empty() {
        facts.push(format!("default: {}", defaults.join(", ")));
    }
    if let Some(env) = arg.get_env() {
        facts.push(format!("environment: `{}`", env.to_string_lossy()));
    }
    facts
}

/// The accepted values of an argument that takes one from a fixed list,
/// with the help of each when it has one.
pub(super) fn possible_values(arg: &Arg) -> Vec<(String, Option<String>)> {
    if !arg.get_action().takes_values() {
        return Vec::new();
    }
    arg.get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| {
            (
                v.get_name().to_string(),
                v.get_help().map(|h| h.to_string()),
            )
        })
        .collect()
}

/// The help of an argument: the long one when it has one.
pub(super) fn arg_help(arg: &Arg) -> String {
    arg.get_long_help()
        .or_else(|| arg.get_help())
        .map(|h| h.to_string())
        .unwrap_or_default()
}

/// One argument as a list item: label, help, facts, accepted values.
fn arg_item(arg: &Arg) -> String {
    let mut item = format!("- `{}`: {}", arg_label(arg), prose(&arg_help(arg)));
    let mut facts = arg_facts(arg);
    let values = possible_values(arg);
    // Bare words fit on the line; words with a help each get a line.
    let described = values.iter().any(|(_, help)| help.is_some());
    if !values.is_empty() && !described {
        let words: Vec<String> = values.iter().map(|(name, _)| format!("`{name}`")).collect();
        facts.push(format!("one of: {}", words.join(", ")));
    }
    if !facts.is_empty() {
        item.push_str(&format!(" ({})", facts.join("; ")));
    }
    item.push('\n');
    for (name, help) in values.into_iter().filter(|_| described) {
        match help {
            Some(help) => item.push_str(&format!("  - `{name}`: {}\n", prose(&help))),
            None => item.push_str(&format!("  - `{name}`\n")),
        }
    }
    item
}
