//! The README is the user's front door, and the guide behind it is made of
//! links: both rot quietly when a command is added, renamed or moved, or
//! when a page is renamed. These tests hold them to the binary and to the
//! files on disk:
//!
//! - every leaf command of the clap definition (a subcommand without
//!   subcommands, named by its full path such as `runtime attach`) has a
//!   row in the README's command table (between `<!-- commands:begin -->`
//!   and `<!-- commands:end -->`), and every row names a command that
//!   exists (a leaf, followed only by values its positional arguments
//!   accept, as in `renew certificate`);
//! - the README stays a front door: at most 250 lines;
//! - every relative link of the README, CONTRIBUTING.md, bench/README.md
//!   and docs/guide/*.md leads to a file or folder that exists, and a
//!   `#fragment` into a Markdown page to one of its headings. Links into
//!   `docs/reference/` and `docs/design/` are checked like any other: those
//!   folders come from other branches of the same change.

use clap::CommandFactory;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// Every leaf command of the CLI, by its full path (`runtime attach`).
/// clap's own `help` subcommand is not part of the definition until the
/// command is built, so it never shows up here.
fn leaf_commands() -> Vec<String> {
    fn walk(command: &clap::Command, prefix: &str, out: &mut Vec<String>) {
        for sub in command.get_subcommands() {
            let path = format!("{prefix}{}", sub.get_name());
            if sub.has_subcommands() {
                walk(sub, &format!("{path} "), out);
            } else {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&cf_runner::cli::Cli::command(), "", &mut out);
    out
}

/// The command of each row of the README's command table: the first cell,
/// without backticks and without the leading `cf-runner `.
fn table_commands(readme: &str) -> Vec<String> {
    let begin = readme
        .find("<!-- commands:begin -->")
        .expect("README.md has <!-- commands:begin -->");
    let end = readme
        .find("<!-- commands:end -->")
        .expect("README.md has <!-- commands:end -->");
    readme[begin..end]
        .lines()
        .filter(|line| line.starts_with("| `"))
        .map(|line| {
            let cell = line.split('|').nth(1).unwrap_or_default().trim();
            let cell = cell.trim_matches('`');
            cell.strip_prefix("cf-runner ")
                .unwrap_or_else(|| panic!("a row's command starts with `cf-runner `: {line}"))
                .to_string()
        })
        .collect()
}

/// The leaf a table row names, or why it names none: the words walk down
/// the subcommands to a leaf, and any words left must be values one of the
/// leaf's positional arguments accepts (`renew certificate`).
fn resolve(row: &str) -> Result<String, String> {
    let root = cf_runner::cli::Cli::command();
    let mut command = &root;
    let mut path = Vec::new();
    let mut words = row.split_whitespace().peekable();
    while let Some(word) = words.peek() {
        match command.find_subcommand(word) {
            Some(sub) => {
                path.push(sub.get_name().to_string());
                command = sub;
                words.next();
            }
            None => break,
        }
    }
    if path.is_empty() {
        return Err(format!("`{row}` names no command of cf-runner"));
    }
    if command.has_subcommands() {
        return Err(format!("`{row}` stops at a group; name its subcommand"));
    }
    for word in words {
        let accepted = command
            .get_arguments()
            .filter(|arg| arg.is_positional())
            .flat_map(|arg| arg.get_possible_values())
            .any(|value| value.matches(word, false));
        if !accepted {
            return Err(format!(
                "`{row}`: `{word}` is neither a subcommand nor a value of `{}`",
                path.join(" ")
            ));
        }
    }
    Ok(path.join(" "))
}

#[test]
fn every_leaf_command_has_a_row_in_the_readme_command_table() {
    let rows = table_commands(&read(&repo().join("README.md")));
    let covered: Vec<String> = rows.iter().filter_map(|row| resolve(row).ok()).collect();
    let leaves = leaf_commands();
    assert!(
        leaves.len() >= 20,
        "the CLI definition has only {} leaf commands: {leaves:?}",
        leaves.len()
    );
    let missing: Vec<&String> = leaves
        .iter()
        .filter(|leaf| !covered.contains(leaf))
        .collect();
    assert!(
        missing.is_empty(),
        "leaf commands without a row in README.md's command table (add `| `cf-runner <command>` | what it does | [guide](docs/guide/...) |`): {missing:?}"
    );
}

#[test]
fn every_row_of_the_readme_command_table_names_a_command_that_exists() {
    let rows = table_commands(&read(&repo().join("README.md")));
    assert!(!rows.is_empty(), "README.md's command table has no rows");
    let wrong: Vec<String> = rows.iter().filter_map(|row| resolve(row).err()).collect();
    assert!(
        wrong.is_empty(),
        "rows of README.md's command table that name no command: {wrong:#?}"
    );
}

#[test]
fn the_readme_stays_a_front_door_of_at_most_250_lines() {
    let lines = read(&repo().join("README.md")).lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines, more than 250: move the detail to a page of docs/guide/ and link it"
    );
}

/// The documents whose links are checked: the README, CONTRIBUTING.md,
/// bench/README.md and every page of the guide.
fn linked_documents() -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(repo().join("docs/guide"))
        .expect("docs/guide/ exists")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    docs.sort();
    for top in ["README.md", "CONTRIBUTING.md", "bench/README.md"] {
        docs.push(repo().join(top));
    }
    docs
}

/// The targets of a page's Markdown links (`[text](target)`), outside
/// fenced code blocks, where `](` can be plain text.
fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(close) = after.find(')') else { break };
            out.push(after[..close].to_string());
            rest = &after[close..];
        }
    }
    out
}

/// The anchor GitHub gives a heading: lower case, spaces to `-`, every
/// character but letters, digits, `-` and `_` dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown page's headings (outside code blocks).
fn anchors(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            out.push(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

/// Why one link of `document` leads nowhere, or `None` when it is fine.
fn broken(document: &Path, target: &str) -> Option<String> {
    let (file, fragment) = match target.split_once('#') {
        Some((file, fragment)) => (file, Some(fragment)),
        None => (target, None),
    };
    let path = if file.is_empty() {
        document.to_path_buf()
    } else {
        document.parent().unwrap().join(file)
    };
    if !path.exists() {
        return Some(format!("{target}: {} does not exist", path.display()));
    }
    if file.ends_with('/') && !path.is_dir() {
        return Some(format!("{target}: {} is not a folder", path.display()));
    }
    let fragment = fragment?;
    if path.extension().is_some_and(|ext| ext == "md")
        && !anchors(&read(&path)).iter().any(|a| a == fragment)
    {
        return Some(format!(
            "{target}: {} has no heading #{fragment}",
            path.display()
        ));
    }
    None
}

#[test]
fn every_relative_link_of_the_readme_and_the_guide_leads_somewhere() {
    let mut wrong = Vec::new();
    let mut checked = 0;
    for document in linked_documents() {
        for target in link_targets(&read(&document)) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            if let Some(why) = broken(&document, &target) {
                let shown = document.strip_prefix(repo()).unwrap_or(&document);
                wrong.push(format!("{}: {why}", shown.display()));
            }
        }
    }
    assert!(
        checked >= 40,
        "only {checked} relative links found: is the link reader broken?"
    );
    assert!(wrong.is_empty(), "links that lead nowhere: {wrong:#?}");
}
