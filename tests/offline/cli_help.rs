//! `--help` and `--version` of the real binary: every command explains
//! itself and lists the flags scripts rely on; the commands that are not
//! built yet say so and exit 1 instead of pretending to work.

use crate::support;

use std::process::Output;
use support::cli;

fn cf_runner(args: &[&str]) -> Output {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = cli::cf_runner(dir.path())
        .args(args)
        .output()
        .expect("run cf-runner");
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .expect("read temp dir")
        .collect();
    assert!(
        left.is_empty(),
        "`cf-runner {}` wrote files",
        args.join(" ")
    );
    out
}

/// Runs `args`, expects exit 0, and returns stdout.
fn help_of(args: &[&str]) -> String {
    let out = cf_runner(args);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "`cf-runner {}` exit code; stderr:\n{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// True when `text` mentions `needle`; a flag (`--name`) only as a whole
/// flag, so `--app-proxy` is not found in `--app-proxy-host`.
fn mentions(text: &str, needle: &str) -> bool {
    if !needle.starts_with("--") {
        return text.contains(needle);
    }
    let is_flag_char = |c: char| c.is_ascii_alphanumeric() || c == '-';
    text.match_indices(needle).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + needle.len()..].chars().next();
        !before.is_some_and(is_flag_char) && !after.is_some_and(is_flag_char)
    })
}

#[test]
fn a_flag_is_only_found_whole() {
    let help = "      --app-proxy-host <HOST>\n      --no-proxy <LIST>\n";
    assert!(!mentions(help, "--app-proxy"));
    assert!(!mentions(help, "--proxy"));
    assert!(mentions(help, "--app-proxy-host"));
    assert!(mentions("  --app-proxy\n", "--app-proxy"));
    assert!(mentions("  --app-proxy [<BOOL>]", "--app-proxy"));
    assert!(mentions("  -y, --yes", "--yes"));
}

fn assert_mentions(what: &str, text: &str, needles: &[&str]) {
    let missing: Vec<_> = needles.iter().filter(|n| !mentions(text, n)).collect();
    assert!(
        missing.is_empty(),
        "{what} does not mention {missing:?}:\n{text}"
    );
}

const SUBCOMMANDS: &[&str] = &[
    "init",
    "info",
    "delete",
    "upgrade",
    "check",
    "test-pipeline",
    "completions",
    "support-bundle",
];

#[test]
fn root_help_lists_every_subcommand() {
    for flag in ["--help", "-h"] {
        let help = help_of(&[flag]);
        assert_mentions("root help", &help, &["Usage: cf-runner", "--version"]);
        assert_mentions("root help", &help, SUBCOMMANDS);
    }
}

/// The examples live in each command's long help; the root's help stays a
/// list of commands that fits a screen, with or without `--help`.
#[test]
fn root_help_stays_a_short_list_without_examples() {
    for flag in ["--help", "-h"] {
        let help = help_of(&[flag]);
        assert!(!help.contains("Examples:"), "cf-runner {flag}:\n{help}");
        let lines = help.lines().count();
        assert!(lines <= 40, "cf-runner {flag} is {lines} lines:\n{help}");
    }
}

#[test]
fn help_subcommand_matches_help_flag() {
    assert_eq!(help_of(&["help", "init"]), help_of(&["init", "--help"]));
}

#[test]
fn init_help_lists_the_key_flags() {
    let help = help_of(&["init", "--help"]);
    assert_mentions(
        "init --help",
        &help,
        &[
            "Usage: cf-runner init",
            "--dry-run",
            "--values",
            "--set-value",
            "--set-file",
            "--kube-namespace",
            "--kube-context-name",
            "--kube-config-path",
            "--generate-helm-values-file",
            "--output-dir",
            "--overwrite",
            "--yes",
            "--token",
            "--url",
            "--kube-node-selector",
            "--build-node-selector",
            "--tolerations",
            "--storage-class-name",
            "--docker-registry",
            "--env-vars",
            "--http-proxy",
            "--https-proxy",
            "--no-proxy",
            "--app-proxy",
            "--app-proxy-host",
            "--install-monitor",
            "--skip-cluster-test",
        ],
    );
}

#[test]
fn every_subcommand_has_help() {
    let expected: &[(&str, &[&str])] = &[
        (
            "init",
            &[
                "--dry-run",
                "--values",
                "--set-value",
                "--kube-namespace",
                "--no-wait-for-lock",
            ],
        ),
        ("info", &["--kube-namespace", "--output", "json", "yaml"]),
        (
            "delete",
            &[
                "--kube-namespace",
                "--yes",
                "--delete-namespace",
                "--delete-namespace-with-contents",
                "--no-wait-for-lock",
            ],
        ),
        (
            "upgrade",
            &[
                "--values",
                "--set-value",
                "--kube-namespace",
                "--no-wait-for-lock",
            ],
        ),
        (
            "check",
            &["--kube-namespace", "--values", "--set-value", "--output"],
        ),
        ("test-pipeline", &["--runtime-name", "--token"]),
        ("completions", &["bash", "zsh", "fish", "powershell"]),
        (
            "support-bundle",
            &[
                "--kube-namespace",
                "--output",
                "--since",
                "--max-log-bytes",
                "--max-size",
                "--overwrite",
            ],
        ),
    ];
    assert_eq!(
        expected.iter().map(|(c, _)| *c).collect::<Vec<_>>(),
        SUBCOMMANDS
    );
    for (command, flags) in expected {
        let help = help_of(&[command, "--help"]);
        let what = format!("{command} --help");
        assert_mentions(&what, &help, &[&format!("Usage: cf-runner {command}")]);
        assert_mentions(&what, &help, flags);
    }
}

#[test]
fn version_prints_name_and_crate_version() {
    let expected = format!("cf-runner {}", env!("CARGO_PKG_VERSION"));
    for args in [&["--version"][..], &["-V"]] {
        let stdout = help_of(args);
        assert_eq!(stdout.trim(), expected, "cf-runner {}", args.join(" "));
    }
}

#[test]
fn test_pipeline_without_a_token_names_the_flag() {
    let home = tempfile::tempdir().unwrap();
    let out = cli::cf_runner(home.path())
        .args(["test-pipeline", "--runtime-name", "ctx/ns"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--token"), "{stderr}");
    assert!(out.stdout.is_empty());
}

#[test]
fn completions_print_a_script_for_each_shell() {
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let script = help_of(&["completions", shell]);
        assert!(
            script.contains("cf-runner") && script.contains("--dry-run"),
            "{shell} completion script"
        );
    }
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &[][..],
        &["completions"],
        &["completions", "tcsh"],
        &["no-such-command"],
        &["info", "-o", "xml"],
    ] {
        let out = cf_runner(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "cf-runner {args:?}: {stderr}");
        // No command at all shows the help on stderr; the rest are errors.
        assert!(
            stderr.starts_with("error:") || args.is_empty() && stderr.contains("Usage: cf-runner"),
            "cf-runner {args:?}: {stderr}"
        );
        assert!(
            out.stdout.is_empty(),
            "cf-runner {args:?} printed on stdout"
        );
    }
}

/// `-v`/`--verbose` on `init` and `upgrade` was accepted and did nothing, so
/// a user asking for detail got none and no word why. It is gone: asking
/// for it is a usage error naming the flag (exit 2), and no command's help
/// offers it.
#[test]
fn no_command_accepts_a_verbose_flag_that_does_nothing() {
    let mut cases = 0;
    for command in ["init", "upgrade"] {
        for flag in ["-v", "--verbose"] {
            let out = cf_runner(&[command, flag, "--help"]);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{command} {flag}: {stderr}");
            assert!(
                stderr.contains(&format!("unexpected argument '{flag}'")),
                "{command} {flag}: {stderr}"
            );
            cases += 1;
        }
        let help = help_of(&[command, "--help"]);
        assert!(!mentions(&help, "--verbose"), "{command}: {help}");
        cases += 1;
    }
    assert_eq!(cases, 6);
}
