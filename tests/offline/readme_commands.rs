//! Every `cf-runner` command line of the README and of the guide
//! (`docs/guide/*.md`), run as a new user would type it (in a folder with
//! the repository's `values-examples/`), so neither can drift from the
//! binary again. There is no cluster and no
//! platform: the kubeconfig, `CF_URL` and a proxy for everything else point
//! at an address nothing listens on, so nothing leaves the machine. Each
//! line has its expected outcome in [`expected`]: the exit code and what the
//! user reads, so a line that fails another way (bad input, a usage error,
//! a crash, a failure before the step it should reach) fails the test, and
//! a line without an expectation fails it too.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The documents a user reads commands from: the README, then every page
/// of the guide (sorted, so a failure names the same first page each run).
fn documents() -> Vec<PathBuf> {
    let mut guide: Vec<PathBuf> = std::fs::read_dir(repo().join("docs/guide"))
        .expect("docs/guide/ exists")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    guide.sort();
    let mut all = vec![repo().join("README.md")];
    all.extend(guide);
    all
}

/// The command lines of every document's `sh` blocks that run cf-runner,
/// each once, in the order first met (a line in two pages is one run).
fn readme_commands() -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for document in documents() {
        let text = std::fs::read_to_string(&document).unwrap();
        for command in sh_commands(&text) {
            if !out.contains(&command) {
                out.push(command);
            }
        }
    }
    out
}

/// The command lines of one document's `sh` blocks that run cf-runner
/// (`\` continuations joined; `cargo run --release --` read as cf-runner).
fn sh_commands(text: &str) -> Vec<String> {
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

/// What running a document's line here must do: its exit code, and texts its
/// output (stdout and stderr) holds.
struct Expect {
    code: i32,
    says: &'static [&'static str],
}

/// The outcome of each documented line without a cluster or a platform. Lines
/// that render succeed; lines that need the platform stop at the token
/// check; lines that need the cluster stop at their first call to it, each
/// with the words it says there.
fn expected(command: &str) -> Option<Expect> {
    let no_platform = &[
        "error: checking the Codefresh API token",
        "GET /api/user did not answer",
    ][..];
    let no_record = &[
        "reading the installation record failed",
        "reading Secret/cf-runner-values in namespace codefresh failed",
    ][..];
    // `upgrade` and `delete` take the install's lock before they read it
    // (its Lease is created first, without a read).
    let no_lock = &[
        "taking the lock of namespace codefresh failed",
        "creating Lease/cf-runner-lock failed",
    ][..];
    let no_installation = &[
        "reading the installation in namespace codefresh failed",
        "reading Secret/cf-runner-values in namespace codefresh failed",
    ][..];
    let e = |code: i32, says: &'static [&'static str]| Some(Expect { code, says });
    match command {
        // No fleet.yaml in the test's folder: refused, naming the flag.
        "cf-runner fleet register --fleet fleet.yaml --output-dir fleet   # CF_API_KEY or --token"
        | "cf-runner fleet export   --fleet fleet.yaml --output-dir fleet"
        | "cf-runner fleet retire --fleet fleet.yaml --output-dir fleet" => {
            e(2, &["--fleet", "fleet.yaml"])
        }
        "cf-runner init --dry-run --yes --values values-examples/local.yaml"
        | "cf-runner init --values values-examples/local.yaml --yes --dry-run --output-dir ./manifests" => {
            e(0, &["wrote ", " manifests and runtime-environment.txt to "])
        }
        "cf-runner init --dry-run --yes --docker-registry registry.example.com/cf --image-pull-secret mirror-pull" => {
            e(0, &["wrote ", " manifests and runtime-environment.txt to "])
        }
        "cf-runner init --dry-run --yes  --set-value Storage.Backend=gcedisk --set-value Storage.AvailabilityZone=us-central1-a  --set-file Storage.GoogleServiceAccount=key.json" => {
            e(0, &["wrote ", " manifests and runtime-environment.txt to "])
        }
        "cf-runner init --values values-examples/local.yaml --dry-run --generate-helm-values-file generated_values.yaml" => {
            e(0, &["generated_values.yaml"])
        }
        // No terminal: the wizard asks nothing and goes on as `--yes` does.
        "cf-runner init"
        | "cf-runner init --values values-examples/local.yaml --yes"
        | "cf-runner init --values values-examples/local.yaml --yes --token \"$CF_API_KEY\"" => {
            e(1, no_platform)
        }
        "cf-runner check --values values-examples/local.yaml -o json" => e(3, &["\"passed\": false"]),
        "cf-runner check --values values-examples/local.yaml --probe" => {
            e(
                3,
                &[
                    "the probe did not run: the preflight failed first",
                    "preflight failed: 6 of 6 checks failed",
                ],
            )
        }
        "cf-runner init --agent-only --kube-namespace agents" => e(1, no_platform),
        "cf-runner runtime attach --agent-namespace agents --kube-namespace builds-eu" => e(
            1,
            &[
                "taking the lock of namespace agents failed",
                "creating Lease/cf-runner-lock failed",
            ],
        ),
        "cf-runner info" | "cf-runner info --wait --timeout 5m" => {
            e(1, &["looking for installations at https://127.0.0.1:1/ failed"])
        }
        // Both renewals read the install's record first.
        "cf-runner renew certificate --kube-namespace codefresh"
        | "cf-runner renew agent-token --kube-namespace codefresh" => e(
            1,
            &["reading Secret/cf-runner-values in namespace codefresh failed"],
        ),
        "cf-runner test-pipeline --kube-namespace codefresh" => e(
            1,
            &[
                "reading the installation failed",
                "reading Secret/cf-runner-values in namespace codefresh failed",
            ],
        ),
        // `adopt` first reads what another tool left in the namespace.
        "cf-runner adopt --kube-namespace codefresh --dry-run"
        | "cf-runner adopt --kube-namespace codefresh --token \"$CF_API_KEY\" --yes" => e(
            1,
            &[
                "reading the namespace failed",
                "listing Deployments in namespace codefresh failed",
            ],
        ),
        "cf-runner info --kube-namespace codefresh -o json" => e(1, no_installation),
        "cf-runner diagnose --kube-namespace codefresh"
        | "cf-runner diagnose --kube-namespace codefresh --since 24h -o json" => {
            e(1, no_installation)
        }
        "cf-runner delete --kube-namespace codefresh --yes" => e(1, no_lock),
        "cf-runner support-bundle --kube-namespace codefresh" => e(
            1,
            &[
                "the API server at https://127.0.0.1:1/ did not answer; no bundle was written",
                "reading Secret/cf-runner-values in namespace codefresh failed",
            ],
        ),
        "cf-runner runtime attach --agent-namespace codefresh --kube-namespace builds-eu"
        | "cf-runner runtime detach --agent-namespace codefresh --kube-namespace builds-eu"
        | "cf-runner runtime rotate --agent-namespace codefresh --kube-namespace builds-eu"
        | "cf-runner runtime upgrade --agent-namespace codefresh --kube-namespace builds-eu"
        | "cf-runner runtime delete --agent-namespace codefresh --kube-namespace builds-eu --yes"
        | "cf-runner delete --kube-namespace codefresh --all-runtimes --yes" => {
            e(1, no_lock)
        }
        "cf-runner runtime attach --agent-namespace codefresh --agent-context hub  --kube-context-name build-cluster --kube-namespace builds" => {
            e(2, &["hub"])
        }
        // The guide's runtimes file is not in the folder.
        "cf-runner runtime attach --agent-namespace codefresh -f runtimes.yaml" => {
            e(2, &["--values", "runtimes.yaml", "could not be read"])
        }
        // `diff` exits 2 on any failure, as `kubectl diff` does.
        "cf-runner diff --kube-namespace codefresh --install-monitor false"
        | "cf-runner diff --kube-namespace codefresh --build-node-selector pool=builds"
        | "cf-runner diff --kube-namespace codefresh -o json   # objects[].action: create|change|same|prune|skip" => {
            e(2, no_record)
        }
        "cf-runner upgrade --kube-namespace codefresh --install-monitor false --yes" => e(1, no_lock),
        "cf-runner images --values values-examples/local.yaml --docker-registry registry.example.com/cf"
        | "cf-runner images -f values-examples/local.yaml --docker-registry registry.example.com/cf" => {
            e(0, &["registry.example.com/cf/alpine:latest@sha256:", "pinned by digest, under registry.example.com/cf"])
        }
        "cf-runner images -f values-examples/local.yaml --docker-registry registry.example.com/cf --check" => {
            e(1, &["images are not available", "copy the missing images into the registry"])
        }
        "cf-runner schema > values.schema.json" => e(0, &[]),
        _ => None,
    }
}

#[test]
fn every_readme_command_line_does_what_it_does_without_a_cluster() {
    let commands = readme_commands();
    // The README alone has a handful; the guide shows every command.
    assert!(
        commands.len() >= 35,
        "found only {} distinct cf-runner lines in the README and docs/guide/: {commands:?}",
        commands.len()
    );
    let bin = crate::support::cli::binary();
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut unknown = Vec::new();
    for command in &commands {
        let Some(expect) = expected(command) else {
            unknown.push(command.clone());
            continue;
        };
        let work = tempfile::tempdir().unwrap();
        copy_dir(
            &repo().join("values-examples"),
            &work.path().join("values-examples"),
        );
        // The guide's `--set-file Storage.GoogleServiceAccount=key.json`.
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
        // Nothing may leave the machine: a line that sends the token to the
        // default platform (`--token` without `--url`) meets a proxy that is
        // not there. A platform call gives up after 2 s.
        let nowhere = "http://127.0.0.1:1";
        let out = Command::new("bash")
            .arg("-c")
            .arg(command)
            .current_dir(work.path())
            .env("PATH", &path)
            .env("HOME", work.path())
            .env("KUBECONFIG", &kubeconfig)
            .env("CF_API_KEY", "readme-test-token")
            .env("CF_URL", "https://127.0.0.1:1")
            .env("CF_RUNNER_REQUEST_TIMEOUT", "2")
            .env("NO_COLOR", "1")
            .env("HTTPS_PROXY", nowhere)
            .env("https_proxy", nowhere)
            .env("HTTP_PROXY", nowhere)
            .env("http_proxy", nowhere)
            .env_remove("NO_PROXY")
            .env_remove("no_proxy")
            .env_remove("CFCONFIG")
            .env_remove("DOCKER_CONFIG")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let both = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let shown = format!(
            "{command}\n--- stdout\n{}--- stderr\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(expect.code), "exit code: {shown}");
        for text in expect.says {
            assert!(both.contains(text), "lacks `{text}`: {shown}");
        }
        assert!(!both.contains("panicked"), "{shown}");
        if command.contains("schema >") {
            let schema = std::fs::read_to_string(work.path().join("values.schema.json")).unwrap();
            let parsed: serde_json::Value = serde_json::from_str(&schema).unwrap();
            assert!(parsed["$schema"].is_string(), "{shown}");
        }
        if command.contains("--dry-run --output-dir ./manifests") {
            assert!(
                work.path().join("manifests/.cf-runner-export").is_file(),
                "{shown}"
            );
        }
    }
    assert!(
        unknown.is_empty(),
        "lines of the README or docs/guide/ without an expected outcome (add them to `expected`): {unknown:#?}"
    );
}
