//! The completion scripts in `completions/` are generated from the clap
//! definition; this fails when a flag changed and they were not regenerated.
//! Regenerate with: `UPDATE_COMPLETIONS=1 cargo test --test offline completions::`.

use crate::support;

use std::path::PathBuf;

use support::cli;

/// True when asked to rewrite the scripts; refused under CI (any non-empty
/// `CI`), where a rewrite would make the comparison pass.
fn updating() -> bool {
    support::ci::updating("UPDATE_COMPLETIONS")
}

#[test]
fn checked_in_completions_match_the_binary() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("completions");
    let mut drift = Vec::new();
    for (shell, file) in [
        ("bash", "cf-runner.bash"),
        ("zsh", "cf-runner.zsh"),
        ("fish", "cf-runner.fish"),
        ("powershell", "cf-runner.ps1"),
    ] {
        let home = tempfile::tempdir().unwrap();
        let out = cli::cf_runner(home.path())
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(out.status.success(), "completions {shell} failed");
        let generated = String::from_utf8(out.stdout).unwrap();
        assert!(
            generated.contains("kube-namespace"),
            "{shell} script lacks flags"
        );
        let path = dir.join(file);
        if updating() {
            std::fs::write(&path, &generated).unwrap();
            continue;
        }
        let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
        if checked_in != generated {
            drift.push(file);
        }
    }
    assert!(
        drift.is_empty(),
        "completions/{drift:?} are stale: run UPDATE_COMPLETIONS=1 cargo test --test offline completions::"
    );
}
