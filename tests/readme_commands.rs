//! Every `cf-runner` command line of the README, run as a new user would
//! type it (in a folder with the repository's `values-examples/`), so the
//! README cannot drift from the binary again. Without a cluster or a
//! platform (both point at an address nothing listens on), a command may
//! fail to connect, but none may be a usage error or bad input (exit 2),
//! and every `--dry-run` must succeed.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The command lines of the README's `sh` blocks that run cf-runner
/// (`\` continuations joined; `cargo run --release --` read as cf-runner).
fn readme_commands() -> Vec<String> {
    let text = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut pending = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_sh = trimmed == "```sh";
            pending.clear();
            continue;
        }
        if !in_sh || trimmed.starts_with('#') {
            continue;
        }
        pending.push_str(trimmed.trim_end_matches('\\'));
        pending.push(' ');
        if trimmed.ends_with('\\') {
            continue;
        }
        let command = std::mem::take(&mut pending).trim().replacen(
            "cargo run --release -- ",
            "cf-runner ",
            1,
        );
        if command.starts_with("cf-runner ") {
            out.push(command);
        }
    }
    out
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

#[test]
fn every_readme_command_line_runs() {
    let commands = readme_commands();
    assert!(
        commands.len() >= 10,
        "found only {} cf-runner lines in the README: {commands:?}",
        commands.len()
    );
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_cf-runner"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for command in &commands {
        let work = tempfile::tempdir().unwrap();
        copy_dir(
            &repo().join("values-examples"),
            &work.path().join("values-examples"),
        );
        // The README's `--set-file Storage.GoogleServiceAccount=key.json`.
        std::fs::write(
            work.path().join("key.json"),
            r#"{"type": "service_account", "project_id": "readme", "private_key": "-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n", "client_email": "readme@readme.iam.gserviceaccount.com"}"#,
        )
        .unwrap();
        let kubeconfig = work.path().join("kubeconfig");
        std::fs::write(
            &kubeconfig,
            "apiVersion: v1\nkind: Config\ncurrent-context: my-cluster\n\
             clusters:\n- name: c\n  cluster: {server: \"https://127.0.0.1:1\"}\n\
             users:\n- name: u\n  user: {token: readme-test}\n\
             contexts:\n- name: my-cluster\n  context: {cluster: c, user: u}\n",
        )
        .unwrap();
        let out = Command::new("bash")
            .arg("-c")
            .arg(command)
            .current_dir(work.path())
            .env("PATH", &path)
            .env("HOME", work.path())
            .env("KUBECONFIG", &kubeconfig)
            .env("CF_API_KEY", "readme-test-token")
            .env("CF_URL", "https://127.0.0.1:1")
            .env("NO_COLOR", "1")
            .env_remove("HTTPS_PROXY")
            .env_remove("https_proxy")
            .env_remove("HTTP_PROXY")
            .env_remove("http_proxy")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let shown = format!(
            "{command}\n--- stdout\n{}--- stderr\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        if command.starts_with("cf-runner diff") {
            // `diff` exits 2 on any error, as `kubectl diff` does: here a
            // connection error; bad input or usage must still not be one.
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                !stderr.contains("the input has") && !stderr.contains("Usage:"),
                "bad input or usage: {shown}"
            );
        } else {
            assert_ne!(out.status.code(), Some(2), "bad input or usage: {shown}");
        }
        assert_ne!(out.status.code(), Some(127), "not found: {shown}");
        if command.contains("--dry-run") || command.contains("completions") {
            assert_eq!(out.status.code(), Some(0), "{shown}");
        }
    }
}
