//! Golden tests: every file in `values-examples/` is rendered by the real
//! binary with `init --dry-run`, and the output folder is compared — as YAML,
//! by meaning — with the snapshot folder `tests/golden/<example>/`. The Helm
//! values of each example are compared with `tests/golden-helm/<example>.yaml`.
//!
//! Update the snapshots after an intended change with:
//! `UPDATE_GOLDEN=1 cargo test --test offline golden::`, then review the diff.

use crate::support;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;
use support::cli;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn examples() -> Vec<PathBuf> {
    let mut list: Vec<PathBuf> = fs::read_dir(root().join("values-examples"))
        .expect("values-examples/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    list.sort();
    assert!(list.len() >= 10, "expected at least 10 examples");
    list
}

fn name_of(example: &Path) -> String {
    example.file_stem().unwrap().to_string_lossy().into_owned()
}

/// Runs cf-runner in `cwd` with no kubeconfig and no stdin.
fn cf_runner(cwd: &Path, args: &[&str]) -> Output {
    cli::cf_runner(cwd)
        .args(args)
        .output()
        .expect("cf-runner runs")
}

fn dry_run(example: &Path, out: &Path) -> Output {
    let cwd = out.parent().unwrap();
    let output = cf_runner(
        cwd,
        &[
            "init",
            "--dry-run",
            "--yes",
            "--values",
            example.to_str().unwrap(),
            "--output-dir",
            out.to_str().unwrap(),
        ],
    );
    assert!(
        output.status.success(),
        "{}: {}",
        example.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The manifests of an export folder (not cf-runner's own list of them).
fn read_folder(dir: &Path) -> BTreeMap<String, String> {
    fs::read_dir(dir)
        .unwrap()
        .filter(|e| {
            !e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with('.')
        })
        .map(|e| {
            let p = e.unwrap().path();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                fs::read_to_string(&p).unwrap(),
            )
        })
        .collect()
}

fn yaml(text: &str) -> Value {
    serde_yaml_ng::from_str(text).expect("valid YAML")
}

/// True when asked to rewrite the snapshots; refused under CI (any
/// non-empty `CI`), where a rewritten snapshot would make every comparison
/// pass.
fn updating() -> bool {
    support::ci::updating("UPDATE_GOLDEN")
}

/// Compares `actual` with the snapshot folder, or rewrites the snapshot.
fn compare_folder(example: &str, actual: &Path, snapshot: &Path) -> Vec<String> {
    let got = read_folder(actual);
    if updating() {
        let _ = fs::remove_dir_all(snapshot);
        fs::create_dir_all(snapshot).unwrap();
        for (name, text) in &got {
            fs::write(snapshot.join(name), text).unwrap();
        }
        return Vec::new();
    }
    let want = read_folder(snapshot);
    let mut diffs = Vec::new();
    for name in want.keys().filter(|n| !got.contains_key(*n)) {
        diffs.push(format!("{example}: {name} is no longer rendered"));
    }
    for name in got.keys().filter(|n| !want.contains_key(*n)) {
        diffs.push(format!(
            "{example}: {name} is rendered but not in the snapshot"
        ));
    }
    for (name, text) in &got {
        if let Some(expected) = want.get(name) {
            if yaml(text) != yaml(expected) {
                diffs.push(format!(
                    "{example}/{name} differs from the snapshot:\n--- snapshot\n{expected}\n--- rendered\n{text}"
                ));
            }
        }
    }
    diffs
}

#[test]
fn every_example_matches_its_snapshot() {
    let mut diffs = Vec::new();
    for example in examples() {
        let name = name_of(&example);
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("out");
        dry_run(&example, &out);
        diffs.extend(compare_folder(
            &name,
            &out,
            &root().join("tests/golden").join(&name),
        ));
    }
    assert!(
        diffs.is_empty(),
        "{}\n\nIf the change is intended: UPDATE_GOLDEN=1 cargo test --test offline golden::",
        diffs.join("\n")
    );
}

#[test]
fn every_example_helm_values_match_the_snapshot() {
    let dir = root().join("tests/golden-helm");
    if updating() {
        fs::create_dir_all(&dir).unwrap();
    }
    let mut diffs = Vec::new();
    for example in examples() {
        let name = name_of(&example);
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("generated_values.yaml");
        let output = cf_runner(
            tmp.path(),
            &[
                "init",
                "--dry-run",
                "--yes",
                "--values",
                example.to_str().unwrap(),
                "--generate-helm-values-file",
                file.to_str().unwrap(),
            ],
        );
        assert!(
            output.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        // Helm mode writes only the values file: no manifests folder.
        assert!(!tmp.path().join("codefresh_manifests").exists(), "{name}");
        let text = fs::read_to_string(&file).unwrap();
        let snapshot = dir.join(format!("{name}.yaml"));
        if updating() {
            fs::write(&snapshot, &text).unwrap();
            continue;
        }
        let expected = fs::read_to_string(&snapshot).unwrap_or_default();
        if expected.is_empty() || yaml(&text) != yaml(&expected) {
            diffs.push(format!("{name}: generated_values.yaml differs:\n{text}"));
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

#[test]
fn dry_run_twice_gives_identical_bytes_and_replaces_stale_files() {
    let example = root().join("values-examples/app-proxy-monitor.yaml");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    dry_run(&example, &out);
    let first = read_folder(&out);
    dry_run(&example, &out);
    assert_eq!(first, read_folder(&out), "a second run changed the output");

    // A smaller install into the same folder leaves no file of the bigger one.
    dry_run(&root().join("values-examples/local.yaml"), &out);
    let after = read_folder(&out);
    assert!(!after.keys().any(|n| n.contains("app-proxy")), "{after:?}");
    assert!(!after
        .keys()
        .any(|n| n.contains("monitor") && !n.contains("lv-monitor")));
}

#[cfg(unix)]
#[test]
fn secret_files_are_private_and_others_are_not() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    dry_run(&root().join("values-examples/ebs-csi.yaml"), &out);
    let mut secrets = 0;
    for (name, text) in read_folder(&out) {
        let mode = fs::metadata(out.join(&name)).unwrap().permissions().mode() & 0o777;
        let is_secret = yaml(&text).get("kind").and_then(Value::as_str) == Some("Secret");
        if is_secret {
            secrets += 1;
            assert_eq!(mode, 0o600, "{name} holds a Secret but has mode {mode:o}");
        } else {
            assert_eq!(mode, 0o644, "{name} has mode {mode:o}");
        }
    }
    assert_eq!(
        secrets, 5,
        "runner token, dind certs, provisioner keys, cluster-reader token, record"
    );
}

/// Secret values of the examples, which must only ever land in Secret files.
const SECRET_TEXTS: &[&str] = &[
    "AKIAEXAMPLEEXAMPLE00",
    "example-secret-access-key-not-real",
    "not-a-real-key",
];

#[test]
fn secrets_never_reach_stdout_stderr_or_non_secret_files() {
    for example in ["ebs-csi", "gcedisk-sa-json"] {
        let example = root().join(format!("values-examples/{example}.yaml"));
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("out");
        let output = dry_run(&example, &out);
        let printed = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        let mut found_in_secret = false;
        for (name, text) in read_folder(&out) {
            let is_secret = yaml(&text).get("kind").and_then(Value::as_str) == Some("Secret");
            for s in SECRET_TEXTS {
                assert!(!printed.contains(s), "{s} printed");
                if text.contains(s) {
                    assert!(is_secret, "{s} found in {name}, which is not a Secret");
                    assert!(
                        name != "1-secret-cf-runner-values.yaml",
                        "{s} in the values record"
                    );
                    found_in_secret = true;
                }
            }
        }
        assert!(
            found_in_secret,
            "the credentials must reach the provisioner Secret"
        );

        // `--output-dir -`: one stream on stdout, with secret values withheld.
        let output = cf_runner(
            tmp.path(),
            &[
                "init",
                "--dry-run",
                "--yes",
                "--values",
                example.to_str().unwrap(),
                "--output-dir",
                "-",
            ],
        );
        assert!(output.status.success());
        let stdout = String::from_utf8_lossy(&output.stdout);
        for s in SECRET_TEXTS {
            assert!(!stdout.contains(s), "{s} printed to stdout");
        }
        assert!(String::from_utf8_lossy(&output.stderr).contains("withheld"));
        let docs: Vec<Value> = serde_yaml_ng::Deserializer::from_str(&stdout)
            .map(|d| serde::Deserialize::deserialize(d).unwrap())
            .collect();
        assert_eq!(
            docs.len(),
            read_folder(&out).len() - 1,
            "one document per object"
        );
        assert!(!tmp.path().join("codefresh_manifests").exists());
    }
}

#[test]
fn default_dry_run_writes_codefresh_manifests_in_the_current_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let output = cf_runner(tmp.path(), &["init", "--dry-run", "--yes"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let files = read_folder(&tmp.path().join("codefresh_manifests"));
    assert!(files.contains_key("2-deployment-runner.yaml"));
    assert!(files.contains_key("runtime-environment.txt"));
    // Without a context anywhere, names carry an obvious placeholder.
    assert!(files["runtime-environment.txt"].contains("<placeholder: kube context name>"));
    assert!(files["1-secret-runner.yaml"].contains("<placeholder: agent token"));
}

/// Passwords in URLs and the licence key of a values file that sets every
/// kind of them; like [`SECRET_TEXTS`], they may only land in Secret files.
const URL_SECRET_TEXTS: &[&str] = &["PROXYPASS", "RUNNERPASS", "MONITORPASS", "NR-LICENCE-123"];

const URL_SECRETS_VALUES: &str = "\
Context: onprem
Namespace: codefresh
NewRelicLicense: NR-LICENCE-123
EnvVars:
  HTTPS_PROXY: http://proxyuser:PROXYPASS@proxy.example.com:3128
  HTTP_PROXY: http://proxyuser:PROXYPASS@proxy.example.com:3128
  NO_PROXY: localhost,.svc
AdditionalEnvVars:
  GIT_MIRROR: https://git:RUNNERPASS@git.example.com/mirror
Monitor:
  Enabled: true
  AdditionalEnvVars:
    HTTPS_PROXY: http://other:MONITORPASS@proxy2.example.com:3128
AppProxy:
  Enabled: true
  Ingress:
    Host: cf.example.com
";

#[test]
fn url_credentials_and_the_licence_never_reach_stdout_stderr_or_non_secret_files() {
    let tmp = tempfile::tempdir().unwrap();
    let values = tmp.path().join("proxied.yaml");
    fs::write(&values, URL_SECRETS_VALUES).unwrap();
    let out = tmp.path().join("out");
    let output = dry_run(&values, &out);
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let mut in_secrets = std::collections::BTreeSet::new();
    for (name, text) in read_folder(&out) {
        let is_secret = yaml(&text).get("kind").and_then(Value::as_str) == Some("Secret");
        for s in URL_SECRET_TEXTS {
            assert!(!printed.contains(s), "{s} printed");
            if text.contains(s) {
                assert!(is_secret, "{s} found in {name}, which is not a Secret");
                assert!(
                    name != "1-secret-cf-runner-values.yaml",
                    "{s} in the values record"
                );
                in_secrets.insert(*s);
            }
        }
    }
    // The licence has no use in the cluster; every password reaches the pods.
    assert_eq!(
        in_secrets.into_iter().collect::<Vec<_>>(),
        ["MONITORPASS", "PROXYPASS", "RUNNERPASS"]
    );
    // The pods read them from the credentials Secret, never from a literal.
    let runner = yaml(&fs::read_to_string(out.join("2-deployment-runner.yaml")).unwrap());
    let env = &runner["spec"]["template"]["spec"]["containers"][0]["env"];
    let proxy = env
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "HTTPS_PROXY")
        .expect("the runner gets HTTPS_PROXY");
    assert_eq!(
        proxy["valueFrom"]["secretKeyRef"]["name"], "cf-runner-credentials",
        "{proxy}"
    );
    // The record and the spec keep the rest of the URL, so a reader sees which proxy.
    let record = fs::read_to_string(out.join("1-secret-cf-runner-values.yaml")).unwrap();
    assert!(
        record.contains("proxyuser:<redacted>@proxy.example.com:3128"),
        "{record}"
    );
    let spec = fs::read_to_string(out.join("runtime-environment.txt")).unwrap();
    assert!(
        spec.contains("proxyuser:<redacted>@proxy.example.com:3128"),
        "{spec}"
    );

    // `--output-dir -`: none of them on stdout either.
    let output = cf_runner(
        tmp.path(),
        &[
            "init",
            "--dry-run",
            "--yes",
            "--values",
            values.to_str().unwrap(),
            "--output-dir",
            "-",
        ],
    );
    assert!(output.status.success());
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    for s in URL_SECRET_TEXTS {
        assert!(!all.contains(s), "{s} printed with --output-dir -");
    }
}

/// A password holding `#`, `?`, `/`, `@` or a quote used to end the mask
/// early: the env var went into the pods and the 0644 files as a literal,
/// and the record showed its tail. Each character, in an env var of every
/// env map and in `--https-proxy`: the password is only ever in a Secret
/// other than the record, and never printed. Returns how many cases ran.
#[test]
fn a_url_password_with_reserved_characters_stays_in_the_credentials_secret() {
    let tmp = tempfile::tempdir().unwrap();
    let mut cases = 0;
    for c in ['#', '?', '/', '@', '"', '`', '\'', '\\', '%', '&', ';', ' '] {
        let password = format!("Pa{c}ssWORDX");
        let db = format!("postgres://u:{password}@db.example.com/x");
        let proxy = format!("http://user:{password}@proxy.example.com:3128");
        for place in [
            "EnvVars",
            "AdditionalEnvVars",
            "Monitor.AdditionalEnvVars",
            "flag",
        ] {
            cases += 1;
            let out = tmp.path().join(format!("out-{cases}"));
            let mut values =
                serde_json::json!({"Namespace": "codefresh", "Monitor": {"Enabled": true}});
            let mut args = vec![
                "init".to_string(),
                "--dry-run".into(),
                "--yes".into(),
                "--output-dir".into(),
                out.display().to_string(),
            ];
            match place {
                "flag" => args.extend(["--https-proxy".to_string(), proxy.clone()]),
                "EnvVars" => values["EnvVars"] = serde_json::json!({"DB_URL": db}),
                "AdditionalEnvVars" => {
                    values["AdditionalEnvVars"] = serde_json::json!({"DB_URL": db})
                }
                _ => values["Monitor"]["AdditionalEnvVars"] = serde_json::json!({"DB_URL": db}),
            }
            let file = tmp.path().join(format!("values-{cases}.json"));
            fs::write(&file, values.to_string()).unwrap();
            args.extend(["--values".to_string(), file.display().to_string()]);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let output = cf_runner(tmp.path(), &args);
            let printed = format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            assert!(
                !printed.contains("ssWORDX"),
                "{place} {c:?} printed: {printed}"
            );
            if output.status.code() == Some(2) {
                // Not a URL a proxy client reads (`#` ends it): refused, unechoed.
                assert_eq!(place, "flag", "{c:?}: {printed}");
                assert!(printed.contains("--https-proxy"), "{printed}");
                continue;
            }
            assert!(output.status.success(), "{place} {c:?}: {printed}");
            let mut holders = Vec::new();
            for (name, text) in read_folder(&out) {
                if text.contains("ssWORDX") {
                    holders.push(name);
                }
            }
            assert_eq!(
                holders,
                ["1-secret-cf-runner-credentials.yaml"],
                "{place} {c:?}: the password is in files other than the credentials Secret"
            );
        }
    }
    assert_eq!(cases, 12 * 4);
    eprintln!("cases tried: {cases}");
}

#[test]
fn a_bad_url_with_credentials_is_refused_without_echoing_them() {
    let tmp = tempfile::tempdir().unwrap();
    for args in [
        &["--https-proxy", "ftp://u:LEAKPASS@p:3128"][..],
        &["--http-proxy", "not a url http://u:LEAKPASS@p"][..],
        &["--url", "https://u:LEAKPASS@cf.example.com"][..],
        &["--set-value", "NewRelicLicense:LEAKPASS"][..],
    ] {
        let mut all = vec!["init", "--dry-run", "--yes"];
        all.extend_from_slice(args);
        let output = cf_runner(tmp.path(), &all);
        let printed = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(output.status.code(), Some(2), "{args:?}: {printed}");
        assert!(
            !printed.contains("LEAKPASS"),
            "{args:?} echoed the password: {printed}"
        );
    }
}
