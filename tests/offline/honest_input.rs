//! What cf-runner used to accept and then silently change, drop or ignore,
//! and the files and kubeconfigs it read without a bound. Each test runs the
//! real binary offline (a dry-run, or an API server address nothing listens
//! on) and checks what a user would see.

use crate::support;

use std::path::Path;
use std::process::Output;

use support::cli::{run as cf_runner, text};

/// `init --dry-run --yes --output-dir -` with `args`; the manifests on stdout.
fn dry_run(args: &[&str]) -> (Output, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = cf_runner(
        &dir.path().join("no-kubeconfig"),
        &[
            &["init", "--dry-run", "--yes", "--output-dir", "-"][..],
            args,
        ]
        .concat(),
    );
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(0), "{shown}");
    (out, shown)
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// The env entries and node selectors of every rendered object, as YAML
/// values (`name: value` pairs), parsed back.
fn docs(stdout: &[u8]) -> Vec<serde_json::Value> {
    let text = String::from_utf8_lossy(stdout);
    text.split("\n---")
        .filter_map(|d| serde_yaml_ng::from_str::<serde_json::Value>(d).ok())
        .filter(|v| !v.is_null())
        .collect()
}

fn env_value(docs: &[serde_json::Value], deployment: &str, name: &str) -> Option<String> {
    let d = docs
        .iter()
        .find(|d| d["kind"] == "Deployment" && d["metadata"]["name"] == deployment)?;
    d["spec"]["template"]["spec"]["containers"][0]["env"]
        .as_array()?
        .iter()
        .find(|e| e["name"] == name)
        .and_then(|e| e["value"].as_str().map(str::to_string))
}

/// `1e3`, `0x1F`, `1.10` and `.nan` used to reach the pods as `'1000.0'`,
/// `'31'`, `'1.1'` or nothing at all.
#[test]
fn numbers_in_string_fields_keep_the_text_written() {
    let dir = tempfile::tempdir().unwrap();
    let values = write(
        dir.path(),
        "values.yaml",
        "EnvVars: {A: 1e3, B: 0x1F, C: 1.10, D: .nan, E: 42, F: 1.5, G: 007}\n\
         Runtime:\n  NodeSelector: {version: 1.10}\n",
    );
    let (out, shown) = dry_run(&["--values", &values]);
    let docs = docs(&out.stdout);
    for (name, written) in [
        ("A", "1e3"),
        ("B", "0x1F"),
        ("C", "1.10"),
        ("D", ".nan"),
        ("E", "42"),
        ("F", "1.5"),
        ("G", "007"),
    ] {
        assert_eq!(
            env_value(&docs, "runner", name).as_deref(),
            Some(written),
            "EnvVars.{name}\n{shown}"
        );
    }
    let runtime = String::from_utf8_lossy(&out.stdout);
    assert!(
        runtime.contains("version: '1.10'") || runtime.contains("\"version\": \"1.10\""),
        "Runtime.NodeSelector.version\n{shown}"
    );
}

/// A quoted `tolerationSeconds` used to be dropped.
#[test]
fn toleration_seconds_written_as_text_is_kept() {
    let (out, shown) = dry_run(&[
        "--tolerations",
        r#"[{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":"60"}]"#,
    ]);
    let docs = docs(&out.stdout);
    let runner = docs
        .iter()
        .find(|d| d["kind"] == "Deployment" && d["metadata"]["name"] == "runner")
        .expect("the runner Deployment");
    let tolerations = &runner["spec"]["template"]["spec"]["tolerations"];
    assert_eq!(tolerations[0]["tolerationSeconds"], 60, "{shown}");
}

/// An Ingress without TLS serves plain HTTP; that used to pass without a word.
#[test]
fn app_proxy_host_without_tls_secret_warns() {
    let (_, shown) = dry_run(&["--app-proxy", "--app-proxy-host", "app-proxy.example.com"]);
    assert!(
        shown.contains("warning: AppProxy.Ingress.Host is app-proxy.example.com")
            && shown.contains("AppProxy.Ingress.TLSSecret is not set"),
        "{shown}"
    );
    let (_, shown) = dry_run(&[
        "--app-proxy",
        "--app-proxy-host",
        "app-proxy.example.com",
        "--set-value",
        "AppProxy.Ingress.TLSSecret=app-proxy-tls",
    ]);
    assert!(!shown.contains("TLSSecret is not set"), "{shown}");
}

/// The volume monitor runs as root on every build node; it used to have no
/// securityContext at all.
#[test]
fn lv_monitor_drops_capabilities_and_privilege_escalation() {
    let (out, shown) = dry_run(&[]);
    let docs = docs(&out.stdout);
    let monitor = docs
        .iter()
        .find(|d| d["kind"] == "DaemonSet" && d["metadata"]["name"] == "dind-lv-monitor")
        .expect("the lv-monitor DaemonSet");
    let sc = &monitor["spec"]["template"]["spec"]["containers"][0]["securityContext"];
    assert_eq!(sc["allowPrivilegeEscalation"], false, "{shown}");
    assert_eq!(
        sc["capabilities"]["drop"],
        serde_json::json!(["ALL"]),
        "{shown}"
    );
    assert!(sc.get("privileged").is_none_or(|p| p == false), "{shown}");
}

const KUBECONFIG_A: &str = "apiVersion: v1\nkind: Config\n\
clusters:\n- name: a\n  cluster: {server: \"https://127.0.0.1:1\"}\n\
users:\n- name: u\n  user: {token: not-a-real-token}\n\
contexts:\n- name: ctx-a\n  context: {cluster: a, user: u}\n";

const KUBECONFIG_B: &str = "apiVersion: v1\nkind: Config\ncurrent-context: ctx-b\n\
clusters:\n- name: b\n  cluster: {server: \"https://127.0.0.1:1\"}\n\
users:\n- name: u\n  user: {token: not-a-real-token}\n\
contexts:\n- name: ctx-b\n  context: {cluster: b, user: u}\n";

/// `KUBECONFIG=a:b` used to read `a` only: `b`'s contexts were "not a context".
#[test]
fn kubeconfig_list_is_merged_like_kubectl() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.yaml", KUBECONFIG_A);
    let b = write(dir.path(), "b.yaml", KUBECONFIG_B);
    let joined = format!("{a}:{b}");
    let out = cf_runner(
        Path::new(&joined),
        &["check", "--kube-context-name", "ctx-b"],
    );
    let shown = text(&out);
    assert!(!shown.contains("is not in"), "{shown}");
    assert!(shown.contains("127.0.0.1:1"), "{shown}");

    // The current context comes from b, the only file that names one.
    let out = cf_runner(
        Path::new(&joined),
        &["init", "--dry-run", "--yes", "--output-dir", "-"],
    );
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(0), "{shown}");
    assert!(shown.contains("ctx-b/codefresh"), "{shown}");
}

/// `KUBECONFIG=/dev/zero` used to grow to gigabytes.
#[test]
fn kubeconfig_that_is_a_device_is_refused_at_once() {
    let out = cf_runner(Path::new("/dev/zero"), &["check"]);
    let shown = text(&out);
    assert_ne!(out.status.code(), Some(0), "{shown}");
    assert!(
        shown.contains("the kubeconfig /dev/zero is a character device, not a file"),
        "{shown}"
    );
}

/// `SkipClusterTest: true` in a values file was parsed and never read: the
/// preflight ran (and failed, exit 3) anyway.
#[test]
fn skip_cluster_test_in_a_values_file_skips_the_preflight() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = write(dir.path(), "b.yaml", KUBECONFIG_B);
    let values = write(dir.path(), "values.yaml", "SkipClusterTest: true\n");
    let out = cf_runner(
        Path::new(&kubeconfig),
        &[
            "init",
            "--yes",
            "--agent-token",
            "offline-agent-token-0123456789",
            "--no-wait",
            "--values",
            &values,
        ],
    );
    let shown = text(&out);
    // Nothing listens there, so the install's first request (its lock)
    // fails; but no preflight ran first.
    assert!(!shown.contains("preflight failed"), "{shown}");
    assert!(
        shown.contains("nothing accepts connections at the API server's address"),
        "{shown}"
    );
    assert_eq!(out.status.code(), Some(1), "{shown}");
}

/// `check` printed the kubeconfig server's `user:password` in its heading
/// and its JSON/YAML report. Every output format, with a password holding
/// reserved characters too.
#[test]
fn check_never_prints_the_kubeconfig_servers_password() {
    let dir = tempfile::tempdir().unwrap();
    let mut cases = 0;
    for password in ["KUBEPASS9", "KUBE%23PASS9", "KUBE%3FPASS9"] {
        let kubeconfig = write(
            dir.path(),
            "kubeconfig",
            &format!(
                "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://admin:{password}@127.0.0.1:1\n\
                 contexts:\n- name: ctx\n  context:\n    cluster: c\n    user: u\nusers:\n- name: u\n  user:\n    token: t\n\
                 current-context: ctx\n"
            ),
        );
        for format in ["table", "json", "yaml"] {
            cases += 1;
            let out = support::cli::cf_runner(dir.path())
                .args(["check", "-o", format, "--kube-config-path", &kubeconfig])
                .output()
                .unwrap();
            let shown = text(&out);
            assert!(shown.contains("127.0.0.1:1"), "{format}: {shown}");
            assert!(
                !shown.contains("PASS9"),
                "{format} printed the password: {shown}"
            );
        }
    }
    assert_eq!(cases, 9);
}

/// A setting that renders a ClusterRole reading every Secret of the cluster
/// (the monitor's Helm-release view without its namespaced Role) used to
/// pass `check` without a word. It is warned of, before the cluster is
/// asked (here there is none), naming both keys and the fix; the settings
/// that keep Secrets to the namespace say nothing.
#[test]
fn check_warns_of_a_cluster_wide_secret_reader() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&[&str], bool)] = &[
        (
            &["Monitor.UseNamespaceWithRole=false", "Monitor.Helm3=true"],
            true,
        ),
        (&["Monitor.UseNamespaceWithRole=false"], false),
        (&["Monitor.Helm3=true"], false),
        (&[], false),
    ];
    for (settings, warns) in cases {
        let mut args = vec!["check", "--values"];
        let example = support::cli::example("local");
        args.push(example.to_str().unwrap());
        args.extend(["--set-value", "Monitor.Enabled=true"]);
        for s in *settings {
            args.extend(["--set-value", s]);
        }
        let out = cf_runner(&dir.path().join("no-kubeconfig"), &args);
        let shown = text(&out);
        let warned = shown.contains(
            "ClusterRole/monitor-reader-codefresh lets its account read every Secret in the cluster",
        );
        assert_eq!(warned, *warns, "{settings:?}: {shown}");
        if *warns {
            assert!(
                shown.contains("Monitor.UseNamespaceWithRole is false")
                    && shown.contains("set Monitor.UseNamespaceWithRole: true"),
                "{shown}"
            );
        }
    }
}

/// The class of "a number the API server wants, written as text": every
/// toleration list (the runner's, the builds', the provisioner's) with a
/// quoted `tolerationSeconds`, and `Runtime.Mtu` quoted, reach every object,
/// the runtime spec and the Helm values file as numbers, never as text.
#[test]
fn numbers_the_api_wants_are_written_as_numbers_wherever_they_go() {
    let dir = tempfile::tempdir().unwrap();
    let values = write(
        dir.path(),
        "v.yaml",
        "Namespace: ns\nContext: c\n\
         Tolerations: [{key: a, operator: Exists, effect: NoExecute, tolerationSeconds: \"60\"}]\n\
         Runtime:\n  Mtu: \"1440\"\n  tolerations: [{key: b, operator: Exists, effect: NoExecute, tolerationSeconds: \" 61 \"}]\n\
         Storage:\n  VolumeProvisioner:\n    Tolerations: [{key: c, operator: Exists, effect: NoExecute, tolerationSeconds: \"+62\"}]\n",
    );
    let out_dir = dir.path().join("out");
    let out = cf_runner(
        &dir.path().join("no-kubeconfig"),
        &[
            "init",
            "--dry-run",
            "--yes",
            "--values",
            &values,
            "--output-dir",
            out_dir.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let helm = dir.path().join("h.yaml");
    let out = cf_runner(
        &dir.path().join("no-kubeconfig"),
        &[
            "init",
            "--dry-run",
            "--values",
            &values,
            "--generate-helm-values-file",
            helm.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    fn walk(v: &serde_json::Value, at: &str, seen: &mut Vec<(String, serde_json::Value)>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    if k == "tolerationSeconds" || k == "mtu" {
                        seen.push((format!("{at}.{k}"), x.clone()));
                    }
                    walk(x, &format!("{at}.{k}"), seen);
                }
            }
            serde_json::Value::Array(l) => l.iter().for_each(|x| walk(x, at, seen)),
            serde_json::Value::String(s) if s.trim_start().starts_with('{') => {
                // JSON held in a ConfigMap (the dind daemon config).
                if let Ok(inner) = serde_json::from_str::<serde_json::Value>(s) {
                    walk(&inner, at, seen);
                }
            }
            _ => {}
        }
    }
    let mut seen = Vec::new();
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            !p.file_name()
                .unwrap()
                .to_string_lossy()
                .contains("cf-runner-values")
        })
        .collect();
    files.push(helm);
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for doc in text.split("\n---") {
            if let Ok(v) = serde_yaml_ng::from_str::<serde_json::Value>(doc) {
                walk(&v, &file.file_name().unwrap().to_string_lossy(), &mut seen);
            }
        }
    }
    assert!(seen.len() >= 8, "{seen:?}");
    for (at, v) in &seen {
        assert!(v.is_i64(), "{at} is {v}, not a number");
    }
    for n in [60, 61, 62, 1440] {
        assert!(
            seen.iter().any(|(_, v)| v == n),
            "{n} not written: {seen:?}"
        );
    }
}

/// A values file saved with a byte order mark (many Windows editors do):
/// the mark used to become an invisible part of the first key
/// (`\u{feff}Namespace` is not a known key). It is skipped; the file reads
/// as written, with its CRLF line ends.
#[test]
fn a_leading_byte_order_mark_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("bom.yaml", "\u{feff}Namespace: bomns\nContext: c\n"),
        (
            "bom-crlf.yaml",
            "\u{feff}Namespace: bomns\r\nContext: c\r\n",
        ),
    ] {
        let values = write(dir.path(), name, text);
        assert!(std::fs::read(&values)
            .unwrap()
            .starts_with(&[0xEF, 0xBB, 0xBF]));
        let (out, shown) = dry_run(&["--values", &values]);
        let docs = docs(&out.stdout);
        assert!(
            docs.iter()
                .any(|d| d["kind"] == "Namespace" && d["metadata"]["name"] == "bomns"),
            "{name}: {shown}"
        );
    }
}
