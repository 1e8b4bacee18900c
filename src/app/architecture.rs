//! The layer table of `app/`, enforced from the code's own imports.
//!
//! Every file of `app/` names the items of other files by absolute path
//! (`crate::app::area::file::item`): no `super::` reaches across files, so
//! these tests see every arrow. An area may use only the areas its row of
//! [`LAYERS`] names; no file of `app/` is in an import circle; no command
//! imports another ([`COMMANDS_SHARE`] are the files commands share); only
//! commands read the clap definitions. The table is
//! also docs/design/ARCHITECTURE.md's, and a test keeps the two equal.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each area of `app/` and the areas it may use, top to bottom.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "commands",
        &[
            "adopt",
            "fleet",
            "install",
            "day_two",
            "runtimes",
            "identity",
            "installation",
            "session",
        ],
    ),
    (
        "adopt",
        &["runtimes", "identity", "installation", "session"],
    ),
    ("fleet", &["identity", "installation", "session"]),
    (
        "install",
        &["runtimes", "identity", "installation", "session"],
    ),
    (
        "day_two",
        &["runtimes", "identity", "installation", "session"],
    ),
    ("runtimes", &["identity", "installation", "session"]),
    ("identity", &["installation", "session"]),
    ("installation", &["session"]),
    ("session", &[]),
];

/// The files of `commands/` that are no command: what commands share of
/// reading their flags.
const COMMANDS_SHARE: &[&str] = &["commands/flags.rs", "commands/mod.rs"];

fn app() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/app")
}

/// Every `.rs` file under `dir`, at any depth, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("a readable folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// A file of unit tests (`tests.rs`): the module it tests is its parent,
/// which it may glob (`use super::*`).
fn is_test_file(file: &Path) -> bool {
    file.file_name().is_some_and(|n| n == "tests.rs")
}

/// The file's path under `src/app/`, with `/` separators.
fn short(file: &Path) -> String {
    file.strip_prefix(app())
        .expect("a file of app/")
        .to_string_lossy()
        .replace('\\', "/")
}

/// The area a file of `app/` belongs to: its first folder (`""` for the
/// files directly in `app/`).
fn area(short: &str) -> &str {
    short.split_once('/').map_or("", |(first, _)| first)
}

/// The code of a file with line comments cut off (doc comments name
/// paths in prose, which is no import).
fn code(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths a file names after `crate::app::`, as segments; a group
/// (`crate::app::a::{b, c::d}`) gives one path per item.
fn app_paths(text: &str) -> Vec<Vec<String>> {
    let flat: String = code(text).split_whitespace().collect::<Vec<_>>().join(" ");
    let mut found = Vec::new();
    for (at, _) in flat.match_indices("crate::app::") {
        let mut segments = Vec::new();
        let mut rest = &flat[at + "crate::app::".len()..];
        loop {
            let word: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if word.is_empty() {
                break;
            }
            rest = &rest[word.len()..];
            segments.push(word);
            match rest.strip_prefix("::") {
                Some(next) => rest = next,
                None => break,
            }
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let first: String = item
                    .trim_start()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let mut path = segments.clone();
                if !first.is_empty() && first != "self" {
                    path.push(first);
                }
                found.push(path);
            }
        } else {
            found.push(segments);
        }
    }
    found
}

/// The file of `app/` a path leads to: the longest prefix of its segments
/// that is a file (`a/b.rs` or `a/b/mod.rs`). `crate::app::session::outcome::Outcome` is
/// re-exported from `session/outcome.rs`.
fn file_of(segments: &[String]) -> Option<String> {
    if segments.first().is_some_and(|s| s == "Outcome") {
        return Some("session/outcome.rs".into());
    }
    (1..=segments.len()).rev().find_map(|n| {
        let stem = segments[..n].join("/");
        [format!("{stem}.rs"), format!("{stem}/mod.rs")]
            .into_iter()
            .find(|f| app().join(f).is_file())
    })
}

/// Every arrow between two files of `app/`: importer → imported.
fn arrows() -> BTreeMap<String, BTreeSet<String>> {
    let mut arrows: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in rust_files(&app()) {
        let me = short(&file);
        let text = std::fs::read_to_string(&file).unwrap();
        let targets = arrows.entry(me.clone()).or_default();
        for path in app_paths(&text) {
            if let Some(to) = file_of(&path).filter(|to| *to != me) {
                targets.insert(to);
            }
        }
        targets.extend(children_used(&me, &text));
    }
    arrows
}

/// The child modules (`mod x;`) a file uses by their short name (`x::f`,
/// `use x::f`): arrows from a parent to its children.
fn children_used(me: &str, text: &str) -> Vec<String> {
    let code = code(text);
    let folder = me
        .strip_suffix("mod.rs")
        .map(str::to_string)
        .unwrap_or_else(|| format!("{}/", me.trim_end_matches(".rs")));
    let declared = code.lines().filter_map(|l| {
        let item = l
            .trim_start_matches("pub ")
            .trim_start_matches("pub(crate) ");
        item.strip_prefix("mod ")?
            .strip_suffix(';')
            .map(str::to_string)
    });
    let used = |child: &str| {
        code.match_indices(&format!("{child}::")).any(|(at, _)| {
            let before = code[..at].chars().next_back();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
        })
    };
    declared
        .filter(|child| used(child))
        .map(|child| format!("{folder}{child}.rs"))
        .filter(|f| app().join(f).is_file())
        .collect()
}

/// Areas only point down the table: each arrow from one area to another
/// is one its row allows.
#[test]
fn every_area_uses_only_the_areas_below_it() {
    let rows: BTreeMap<&str, &[&str]> = LAYERS.iter().copied().collect();
    let mut offences = Vec::new();
    for (from, targets) in arrows() {
        let mine = area(&from);
        if mine.is_empty() {
            continue; // app/mod.rs dispatches to the commands.
        }
        let allowed = rows.get(mine).unwrap_or_else(|| {
            panic!("area {mine}/ of {from} has no row in LAYERS (and ARCHITECTURE.md)")
        });
        for to in targets {
            let theirs = area(&to);
            if theirs != mine && !allowed.contains(&theirs) {
                offences.push(format!("{from} uses {to}"));
            }
        }
    }
    assert!(
        offences.is_empty(),
        "arrows the layer table does not allow: {offences:#?}"
    );
}

/// No file of `app/` reaches itself through its imports.
#[test]
fn no_import_circle_between_files() {
    let arrows = arrows();
    let mut circles = Vec::new();
    for start in arrows.keys() {
        // Depth-first from `start`, looking for a way back to it.
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((at, path)) = stack.pop() {
            for next in arrows.get(&at).into_iter().flatten() {
                if next == start {
                    circles.push(path.join(" -> ") + " -> " + start);
                } else if seen.insert(next.clone()) {
                    let mut longer = path.clone();
                    longer.push(next.clone());
                    stack.push((next.clone(), longer));
                }
            }
        }
    }
    assert!(circles.is_empty(), "import circles: {circles:#?}");
}

/// Relative paths would hide arrows from these tests: only a test module
/// written inside a file may name its own file with `super::`.
#[test]
fn files_name_each_other_by_absolute_path() {
    let mut offences = Vec::new();
    for file in rust_files(&app()) {
        if short(&file) == "architecture.rs" || is_test_file(&file) {
            continue; // It names `super::` in its own checks; a test file tests its parent.
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let mut nested = false;
        for line in code(&text).lines() {
            let item = line
                .trim_start_matches("pub ")
                .trim_start_matches("pub(crate) ");
            if item.starts_with("mod ") && line.ends_with('{') {
                nested = true;
            } else if nested && line == "}" {
                nested = false;
            }
            if !nested && line.contains("super::") {
                offences.push(format!("{}: {}", short(&file), line.trim()));
            }
        }
    }
    assert!(offences.is_empty(), "{offences:#?}");
}

/// A command turns flags into a capability call; what two commands share
/// lives below them. (`check → init → install → check` was once a circle.)
#[test]
fn no_command_imports_another_command() {
    let mut offences = Vec::new();
    for (from, targets) in arrows() {
        // `commands/mod.rs` is the dispatch: it calls every command's `run`.
        if area(&from) == "commands" && from != "commands/mod.rs" {
            offences.extend(
                targets
                    .iter()
                    .filter(|to| area(to) == "commands" && !COMMANDS_SHARE.contains(&to.as_str()))
                    .map(|to| format!("{from} uses {to}")),
            );
        }
    }
    assert!(offences.is_empty(), "{offences:#?}");
}

/// A capability takes options, never the command line's definitions: only
/// `commands/` (and `app/mod.rs`, which hands a parsed command line to its
/// command) names `crate::cli`.
#[test]
fn only_commands_read_the_command_line() {
    let offences: Vec<String> = rust_files(&app())
        .into_iter()
        .map(|f| short(&f))
        .filter(|f| area(f) != "commands" && f != "architecture.rs")
        .filter(|f| code(&std::fs::read_to_string(app().join(f)).unwrap()).contains("crate::cli"))
        .collect();
    assert!(
        offences.is_empty(),
        "files outside commands/ that read crate::cli: {offences:#?}"
    );
}

/// The files of `app/` import each other's items by name: a glob hides
/// where a name comes from. Test modules inside a file may glob their file.
#[test]
fn no_glob_import_between_files() {
    let mut offences = Vec::new();
    for file in rust_files(&app()).into_iter().filter(|f| !is_test_file(f)) {
        let text = std::fs::read_to_string(&file).unwrap();
        // Unindented: an item of the file, not of a test module in it.
        for line in text.lines() {
            let import = line
                .strip_prefix("pub(crate) ")
                .or_else(|| line.strip_prefix("pub(super) "))
                .or_else(|| line.strip_prefix("pub "))
                .unwrap_or(line);
            if import.starts_with("use ") && import.trim_end().ends_with("::*;") {
                offences.push(format!("{}: {line}", short(&file)));
            }
        }
    }
    assert!(offences.is_empty(), "{offences:#?}");
}

/// The layer table of docs/design/ARCHITECTURE.md (between its
/// `layers:begin` and `layers:end` markers) is [`LAYERS`].
#[test]
fn the_architecture_page_shows_this_table() {
    let page = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/design/ARCHITECTURE.md"),
    )
    .expect("docs/design/ARCHITECTURE.md exists");
    let table = page
        .split("<!-- layers:begin -->")
        .nth(1)
        .and_then(|rest| rest.split("<!-- layers:end -->").next())
        .expect("the page marks its layer table");
    let words = |cell: &str| -> Vec<String> {
        cell.split(',')
            .map(|w| w.trim().trim_matches('`').trim_end_matches('/').to_string())
            .filter(|w| !w.is_empty() && w != "nothing")
            .collect()
    };
    let shown: Vec<(String, Vec<String>)> = table
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').collect();
            (words(cells[1]).concat(), words(cells[3]))
        })
        .collect();
    let ours: Vec<(String, Vec<String>)> = LAYERS
        .iter()
        .map(|(a, uses)| (a.to_string(), uses.iter().map(|u| u.to_string()).collect()))
        .collect();
    assert_eq!(
        shown, ours,
        "docs/design/ARCHITECTURE.md's layer table differs from LAYERS"
    );
}

#[test]
fn grouped_and_nested_paths_are_both_seen() {
    let text = "use crate::app::a::{b,\n c::d, self};\nuse crate::app::e; // crate::app::x\n";
    assert_eq!(
        app_paths(text),
        [vec!["a", "b"], vec!["a", "c"], vec!["a"], vec!["e"]]
    );
}

/// Everything a command file reaches through the arrows, itself left out.
fn reached_from(arrows: &BTreeMap<String, BTreeSet<String>>, start: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![start.to_string()];
    while let Some(at) = stack.pop() {
        for next in arrows.get(&at).into_iter().flatten() {
            if seen.insert(next.clone()) {
                stack.push(next.clone());
            }
        }
    }
    seen
}

/// The hubs the re-cut took apart stay apart: `runtime attach`'s code is
/// reached only by the commands that attach, and the upgrade plan only by
/// those that show or carry out an upgrade. Everything else reads an
/// install through `installation::standing`.
#[test]
fn attach_and_the_upgrade_plan_are_reached_by_their_commands_only() {
    let arrows = arrows();
    let commands: Vec<&String> = arrows
        .keys()
        .filter(|f| {
            f.starts_with("commands/") && !f.ends_with("mod.rs") && !f.ends_with("flags.rs")
        })
        .collect();
    let reaching = |goal: &dyn Fn(&str) -> bool| -> Vec<String> {
        commands
            .iter()
            .filter(|c| reached_from(&arrows, c).iter().any(|f| goal(f)))
            .map(|c| c.to_string())
            .collect()
    };
    let attach = reaching(&|f| f == "runtimes/attach.rs" || f.starts_with("runtimes/attach/"));
    assert_eq!(attach, ["commands/init.rs", "commands/runtime.rs"]);
    let plan = reaching(&|f| f == "installation/plan.rs");
    assert_eq!(
        plan,
        [
            "commands/adopt.rs",
            "commands/diff.rs",
            "commands/upgrade.rs"
        ]
    );
}

/// Files stay small enough to read: a command file at most 250 lines, a
/// file of a capability or the kernel at most 600, any file of `src/` at
/// most 900. Unit-test files are left out.
#[test]
fn files_stay_within_their_sizes() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut too_long = Vec::new();
    for file in rust_files(&src) {
        let name = file.to_string_lossy().replace('\\', "/");
        let unit_tests = name.ends_with("tests.rs") || name.contains("/tests/");
        if unit_tests {
            continue;
        }
        let lines = std::fs::read_to_string(&file).unwrap().lines().count();
        let limit = if name.contains("/src/app/commands/") {
            250
        } else if name.contains("/src/app/") {
            600
        } else {
            900
        };
        if lines > limit {
            too_long.push(format!("{name}: {lines} lines (at most {limit})"));
        }
    }
    assert!(too_long.is_empty(), "files too long: {too_long:#?}");
}
