//! The generated reference (`docs/reference/`, `docs/man/`) and the
//! examples of `--help`: the committed files are what the program generates
//! (a flag or a values key changed and they were not regenerated fails
//! here), every example parses with the real command line, every leaf
//! command has one, the exit codes the reference lists are those the
//! binary gives, and the objects page lists what a dry-run writes.
//! Regenerate with: `UPDATE_REFERENCE=1 cargo test --test offline reference::`.

use crate::support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use cf_runner::cli::{examples_of, Cli, EXAMPLES};
use cf_runner::reference::{self, exit_codes, GeneratedFile, ValuesExample, GENERATED_DIRS};
use clap::CommandFactory;
use support::cli;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// True when asked to rewrite the reference; refused under CI.
fn updating() -> bool {
    support::ci::updating("UPDATE_REFERENCE")
}

/// Every file of `values-examples/`, by name.
fn values_examples() -> Vec<ValuesExample> {
    let mut examples: Vec<ValuesExample> = std::fs::read_dir(root().join("values-examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .map(|p| ValuesExample {
            name: p.file_stem().unwrap().to_string_lossy().into_owned(),
            text: std::fs::read_to_string(&p).unwrap(),
        })
        .collect();
    examples.sort_by(|a, b| a.name.cmp(&b.name));
    examples
}

/// Every file under the generated folders, as paths from the root.
fn committed_files() -> BTreeSet<String> {
    fn walk(dir: &Path, out: &mut BTreeSet<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                let relative = path.strip_prefix(root()).unwrap();
                out.insert(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = BTreeSet::new();
    for dir in GENERATED_DIRS {
        walk(&root().join(dir), &mut out);
    }
    out
}

/// Writes the generated files and removes the stale ones.
fn rewrite(generated: &[GeneratedFile], stale: &[String]) {
    for file in generated {
        let path = root().join(&file.path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &file.text).unwrap();
    }
    for path in stale {
        std::fs::remove_file(root().join(path)).unwrap();
    }
}

#[test]
fn checked_in_reference_matches_the_program() {
    let generated = reference::generate(&values_examples()).unwrap();
    let wanted: BTreeSet<String> = generated.iter().map(|f| f.path.clone()).collect();
    let stale: Vec<String> = committed_files().difference(&wanted).cloned().collect();
    if updating() {
        rewrite(&generated, &stale);
        return;
    }
    let mut drift: Vec<String> = stale
        .iter()
        .map(|p| format!("{p} (no longer generated)"))
        .collect();
    for file in &generated {
        let committed = std::fs::read_to_string(root().join(&file.path)).ok();
        match committed {
            None => drift.push(format!("{} (missing)", file.path)),
            Some(text) if text != file.text => drift.push(format!("{} (differs)", file.path)),
            Some(_) => {}
        }
    }
    assert!(
        drift.is_empty(),
        "the generated reference is stale: {drift:#?}\n\
         run UPDATE_REFERENCE=1 cargo test --test offline reference::"
    );
}

#[test]
fn the_reference_has_a_page_and_a_man_page_for_every_command() {
    let generated = reference::generate(&values_examples()).unwrap();
    let paths: BTreeSet<&str> = generated.iter().map(|f| f.path.as_str()).collect();
    for command in all_command_paths() {
        let page_name = if command.is_empty() {
            "cf-runner".to_string()
        } else {
            command.join("-")
        };
        let man = format!(
            "docs/man/{}.1",
            ["cf-runner".to_string()]
                .iter()
                .chain(&command)
                .cloned()
                .collect::<Vec<_>>()
                .join("-")
        );
        for path in [format!("docs/reference/commands/{page_name}.md"), man] {
            assert!(paths.contains(path.as_str()), "no {path}");
        }
    }
    let attach = generated
        .iter()
        .find(|f| f.path == "docs/reference/commands/runtime-attach.md")
        .unwrap();
    // The page says what `--help` says: a flag's help, its default, an example.
    for needle in [
        "`--agent-namespace <NAMESPACE>`: Namespace of the installed agent",
        "default: `5m`",
        "cf-runner runtime attach --agent-namespace codefresh -f runtimes.yaml",
    ] {
        assert!(
            attach.text.contains(needle),
            "runtime-attach.md lacks {needle:?}:\n{}",
            attach.text
        );
    }
}

/// Every command's path below `cf-runner`, the root's empty, without `help`.
fn all_command_paths() -> Vec<Vec<String>> {
    fn walk(cmd: &clap::Command, path: Vec<String>, out: &mut Vec<Vec<String>>) {
        out.push(path.clone());
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let mut below = path.clone();
            below.push(sub.get_name().to_string());
            walk(sub, below, out);
        }
    }
    let mut out = Vec::new();
    walk(&Cli::command(), Vec::new(), &mut out);
    out
}

/// The leaf commands' paths (`runtime attach`): those that run something.
fn leaf_commands() -> Vec<String> {
    let cli = Cli::command();
    all_command_paths()
        .into_iter()
        .filter(|path| {
            let mut cmd = &cli;
            for word in path {
                cmd = cmd.find_subcommand(word).unwrap();
            }
            !path.is_empty() && !cmd.has_subcommands()
        })
        .map(|path| path.join(" "))
        .collect()
}

#[test]
fn every_leaf_command_has_an_example_and_every_example_a_command() {
    let leaves = leaf_commands();
    assert!(leaves.len() >= 21, "{leaves:?}");
    let without: Vec<&String> = leaves
        .iter()
        .filter(|l| examples_of(l).is_empty())
        .collect();
    assert!(
        without.is_empty(),
        "leaf commands without an example: {without:?}"
    );
    let orphans: Vec<&str> = EXAMPLES
        .iter()
        .map(|(path, _)| *path)
        .filter(|path| !leaves.iter().any(|l| l == path))
        .collect();
    assert!(
        orphans.is_empty(),
        "examples of no leaf command: {orphans:?}"
    );
    for (path, examples) in EXAMPLES {
        assert!(
            examples.len() <= 4,
            "{path}: {} examples, 4 at most",
            examples.len()
        );
    }
}

/// The words a POSIX shell would pass, for the simple lines the examples
/// hold: quotes removed, `\`-newline joined, `$VAR` left as written, and
/// everything from an unquoted `>` or `|` on left out (the shell's, not ours).
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, '\\') => match chars.next() {
                Some('\n') | None => {}
                Some(next) => word.get_or_insert_with(String::new).push(next),
            },
            (None, '>' | '|') => break,
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    assert!(quote.is_none(), "unclosed quote in {line:?}");
    words.extend(word);
    words
}

#[test]
fn shell_words_splits_like_a_shell() {
    assert_eq!(
        shell_words("cf-runner a --t \"$CF_API_KEY\" \\\n  'b c' > out"),
        ["cf-runner", "a", "--t", "$CF_API_KEY", "b c"]
    );
}

#[test]
fn every_example_parses_as_the_command_it_is_listed_under() {
    let mut failures = Vec::new();
    for (path, examples) in EXAMPLES {
        for example in *examples {
            let words = shell_words(example.command);
            let matches = match Cli::command().try_get_matches_from(&words) {
                Ok(m) => m,
                Err(err) => {
                    failures.push(format!("{path}: `{}`:\n{}", example.command, err.render()));
                    continue;
                }
            };
            // The subcommands the line reached must be those it is listed under.
            let mut reached = Vec::new();
            let mut m = &matches;
            while let Some((name, sub)) = m.subcommand() {
                reached.push(name.to_string());
                m = sub;
            }
            if reached.join(" ") != *path {
                failures.push(format!(
                    "{path}: `{}` runs `{}`",
                    example.command,
                    reached.join(" ")
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "examples that do not parse:\n{}",
        failures.join("\n")
    );
}

#[test]
fn examples_show_in_long_help_only_and_fit_the_width() {
    let home = tempfile::tempdir().unwrap();
    for path in leaf_commands() {
        let args: Vec<&str> = path.split(' ').collect();
        let run = |flag: &str| {
            let out = cli::cf_runner(home.path())
                .args(&args)
                .arg(flag)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "{path} {flag}");
            String::from_utf8(out.stdout).unwrap()
        };
        let long = run("--help");
        let shown: Vec<&str> = long
            .split("\nExamples:\n")
            .nth(1)
            .unwrap_or_default()
            .lines()
            .map(str::trim)
            .collect();
        // Each line whole: clap wraps a line wider than the help's 100 columns.
        for example in examples_of(&path) {
            let comment = format!("# {}", example.comment);
            let lines =
                std::iter::once(comment.as_str()).chain(example.command.lines().map(str::trim));
            for line in lines {
                assert!(
                    shown.contains(&line),
                    "`{path} --help` lacks the example line {line:?}, whole:\n{long}"
                );
            }
        }
        let short = run("-h");
        assert!(
            !short.contains("Examples:"),
            "`{path} -h` shows examples:\n{short}"
        );
    }
}

/// A kubeconfig whose API server refuses every connection.
fn unreachable_kubeconfig(dir: &Path) -> PathBuf {
    let path = dir.join("kubeconfig");
    std::fs::write(
        &path,
        "apiVersion: v1\nkind: Config\n\
         clusters: [{name: c, cluster: {server: \"https://127.0.0.1:1\"}}]\n\
         users: [{name: u, user: {token: t}}]\n\
         contexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n",
    )
    .unwrap();
    path
}

#[test]
fn the_exit_codes_the_reference_lists_are_those_the_binary_gives() {
    let home = tempfile::tempdir().unwrap();
    let kubeconfig = unreachable_kubeconfig(home.path());
    let code = |key: &str| exit_codes::code_of(key).map(i32::from);
    let cases: &[(&[&str], Option<i32>)] = &[
        (&["schema"], code("ok")),
        (&["info", "-o", "xml"], code("bad-input")),
        (
            &[
                "init",
                "--dry-run",
                "--yes",
                "--output-dir",
                "-",
                "--set-value",
                "NoSuch.Key=1",
            ],
            code("bad-input"),
        ),
        (&["info"], code("failed")),
        (&["check"], code("refused")),
    ];
    for (args, expected) in cases {
        let out = cli::isolated(&kubeconfig, home.path())
            .args(*args)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            *expected,
            "cf-runner {args:?}:\n{}",
            cli::text(&out)
        );
    }
    // diff keeps kubectl diff's codes: an error is 2, as its row says.
    let (_, diff) = exit_codes::PER_COMMAND
        .iter()
        .find(|(c, _)| *c == "diff")
        .unwrap();
    assert!(diff.contains("2 any error"), "{diff}");
    let out = cli::isolated(&kubeconfig, home.path())
        .args(["diff", "--kube-namespace", "codefresh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", cli::text(&out));
}

/// The rows of the objects page's tables: kind, name (with `<namespace>`
/// as `namespace`), and the "created by" cell.
fn object_rows(page: &str, namespace: &str) -> Vec<(String, String, String)> {
    page.lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| kind"))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split(" | ").map(str::trim).collect();
            let name = cells[1].trim_matches('`').replace("<namespace>", namespace);
            (cells[0].to_string(), name, cells[3].to_string())
        })
        .collect()
}

/// True when a "created by" cell names `example`: every example, every
/// example but others, or a list that holds it.
fn created_by(cell: &str, example: &str) -> bool {
    let named = cell.contains(&format!("`{example}`"));
    match cell.strip_prefix("every example") {
        Some("") => true,
        Some(_but) => !named,
        None => named,
    }
}

/// The objects page says what `init --dry-run` writes: every file of the
/// `local` example's golden snapshot (the binary's own output) is a row
/// the page gives to `local`, and no row given to `local` lacks its file.
#[test]
fn the_objects_page_lists_what_a_dry_run_of_local_writes() {
    let generated = reference::generate(&values_examples()).unwrap();
    let page = &generated
        .iter()
        .find(|f| f.path == "docs/reference/objects.md")
        .unwrap()
        .text;
    let on_page: BTreeSet<String> = object_rows(page, "codefresh")
        .into_iter()
        .filter(|(_, _, by)| created_by(by, "local"))
        .map(|(kind, name, _)| format!("{}-{name}", kind.to_lowercase()))
        .collect();
    let mut written = BTreeSet::new();
    for entry in std::fs::read_dir(root().join("tests/golden/local")).unwrap() {
        let file = entry.unwrap().file_name().to_string_lossy().into_owned();
        // `<stage>-<kind>-<name>.yaml`; the runtime environment is not an object.
        if let Some(stem) = file.strip_suffix(".yaml") {
            written.insert(stem.split_once('-').unwrap().1.to_string());
        }
    }
    assert!(written.len() > 10, "{written:?}");
    let missing: Vec<&String> = written.difference(&on_page).collect();
    let extra: Vec<&String> = on_page.difference(&written).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "objects.md and `init --dry-run` of local differ:\nnot on the page: {missing:?}\nnot written: {extra:?}"
    );
}
