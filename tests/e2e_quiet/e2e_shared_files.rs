//! What a shared file may make cf-runner do (issue 42, items 4, 7, 8 and
//! 13), against the real control plane and the fake platform.
//!
//! - A values or runtimes file names a kubeconfig (`ConfigPath`) whose user
//!   runs a command (exec plugin, gcp `cmd-path`) or sends a local file
//!   (`tokenFile`): nothing runs and nothing is sent without the user's
//!   word (`--kube-config-path` naming it, or `--trust-values-kubeconfig`,
//!   which says on stderr what it runs); the user's own kubeconfig works
//!   as before.
//! - `runtime attach` to an agent installed with `--insecure` is refused
//!   without `--accept-agent-insecure-tls`.
//! - Two runtime names with one `runnerconf` key (`team/x`, `team.x`): the
//!   second is refused, by attach and detach, naming both.
//! - A runtimes file goes through the bounded reader and parser.
//!
//! Every refusal is checked to come before any platform call and any write
//! in the cluster.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use support::cli::{self, example, text};
use support::controlplane::{self, ControlPlane};
use support::fake_platform::FakePlatform;

const CONTEXT: &str = "admin@cf-runner-test";
const API_TOKEN: &str = "api-token-for-shared-files-0123456789";

/// Runs `cmd`, killing it (and failing) after 120 s.
fn bounded(mut cmd: Command) -> (Output, Duration) {
    let started = Instant::now();
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!("cf-runner still ran after 120s:\n{}", text(&out));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    (child.wait_with_output().unwrap(), started.elapsed())
}

/// The admin token of `cp`, which the plugins below print.
fn admin_token(cp: &ControlPlane) -> String {
    let text = std::fs::read_to_string(cp.admin_kubeconfig()).unwrap();
    text.lines()
        .find_map(|l| l.trim().strip_prefix("token: "))
        .expect("the admin kubeconfig has a token")
        .to_string()
}

/// A kubeconfig at `path` for `cp` with one context, [`CONTEXT`], whose
/// user authenticates with `user` (YAML lines, indented for `user:`).
fn kubeconfig(path: &Path, cp: &ControlPlane, user: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        path,
        format!(
            "apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: {server}
    certificate-authority: {ca}
users:
- name: shared
  user:
{user}
contexts:
- name: {CONTEXT}
  context: {{cluster: c, user: shared}}
current-context: {CONTEXT}
",
            server = cp.server(),
            ca = cp.ca_file().display(),
        ),
    )
    .unwrap();
}

/// An executable shell script at `path` that touches `ran` and prints an
/// ExecCredential with `token`.
fn plugin(path: &Path, ran: &Path, token: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(
        path,
        format!(
            "#!/bin/sh\ntouch {}\necho '{{\"apiVersion\":\"client.authentication.k8s.io/v1\",\
             \"kind\":\"ExecCredential\",\"status\":{{\"token\":\"{token}\"}}}}'\n",
            ran.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Requests cf-runner (its User-Agent) sent since the `since`th audit event.
fn sent_by_cf_runner(cp: &ControlPlane, since: usize) -> Vec<String> {
    cp.audit_events()
        .unwrap()
        .into_iter()
        .skip(since)
        .filter(|e| {
            e["userAgent"]
                .as_str()
                .is_some_and(|a| a.starts_with("cf-runner/"))
        })
        .map(|e| format!("{} {}", e["verb"], e["requestURI"]))
        .collect()
}

/// Runs every scenario to its end and names those that failed.
#[derive(Default)]
struct Scenarios(Vec<&'static str>);

impl Scenarios {
    fn run(&mut self, name: &'static str, scenario: impl FnOnce()) {
        eprintln!("--- {name}");
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(scenario)).is_err() {
            self.0.push(name);
        }
    }

    fn assert_none_failed(self) {
        assert!(self.0.is_empty(), "failed scenarios: {:?}", self.0);
    }
}

/// Asserts a refusal as bad input (exit 2) naming `key` and every `words`.
fn assert_refused(out: &Output, key: &str, words: &[&str]) {
    let shown = text(out);
    assert_eq!(out.status.code(), Some(2), "{shown}");
    assert!(shown.contains(key), "{key} not named:\n{shown}");
    for w in words {
        assert!(shown.contains(w), "{w:?} not said:\n{shown}");
    }
}

/// Item 4. A shared repository holds `values.yaml` with `ConfigPath:
/// ./repo/kubeconfig`, whose user runs a plugin (or gcp `cmd-path`, or
/// sends a token file). 10 cases: 3 kinds × `check`, then `init` and
/// `runtime attach -f` (before any platform call), then the 4 ways that
/// stay working: `--kube-config-path` naming it, `--trust-values-kubeconfig`
/// (said on stderr), the same file as `$KUBECONFIG`, a file kubeconfig with
/// nothing to run.
#[test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
fn a_kubeconfig_named_by_a_file_runs_nothing_without_the_users_word() {
    let _alone = crate::alone_blocking();
    let cp = controlplane::shared();
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let token = admin_token(cp);
    let ran = home.join("plugin.ran");
    let script = home.join("repo").join("get-token");
    std::fs::create_dir_all(script.parent().unwrap()).unwrap();
    plugin(&script, &ran, &token);
    let exec = format!(
        "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: {}\n      \
         interactiveMode: Never",
        script.display()
    );
    let gcp = format!(
        "    auth-provider:\n      name: gcp\n      config:\n        cmd-path: {}\n        \
         cmd-args: x\n        token-key: '{{.status.token}}'",
        script.display()
    );
    let stolen = home.join("my-secret-file");
    std::fs::write(&stolen, "not-a-token-but-private\n").unwrap();
    let token_file = format!("    tokenFile: {}", stolen.display());
    let config = home.join("repo").join("kubeconfig");
    let values = home.join("repo").join("values.yaml");
    std::fs::write(
        &values,
        format!("ConfigPath: ./repo/kubeconfig\nContext: {CONTEXT}\n"),
    )
    .unwrap();
    // The user's own kubeconfig: the admin one, in $KUBECONFIG.
    let own = cp.admin_kubeconfig().to_path_buf();
    let check = |extra: &[&str], kubeconfig_env: &Path| {
        let mut cmd = cli::isolated(kubeconfig_env, home);
        cmd.args(["check", "--values"])
            .arg(example("local"))
            .arg("--values")
            .arg(&values)
            .args(["--kube-namespace", "shared-files"])
            .args(extra);
        bounded(cmd).0
    };
    let mut scenarios = Scenarios::default();
    let mark = cp.audit_events().unwrap().len();

    for (kind, user, said) in [
        ("exec plugin", exec.as_str(), "its exec auth plugin"),
        ("gcp cmd-path", gcp.as_str(), "gcp auth provider"),
        (
            "token file",
            token_file.as_str(),
            "tokenFile of user shared",
        ),
    ] {
        kubeconfig(&config, cp, user);
        scenarios.run(kind, || {
            let out = check(&[], &own);
            assert!(!ran.exists(), "the plugin ran:\n{}", text(&out));
            assert_refused(
                &out,
                "ConfigPath",
                &[said, "--trust-values-kubeconfig", "--kube-config-path"],
            );
        });
    }
    scenarios.run("nothing sent to the API server", || {
        let sent = sent_by_cf_runner(cp, mark);
        assert!(sent.is_empty(), "{} requests: {:?}", sent.len(), sent);
    });

    kubeconfig(&config, cp, &exec);
    scenarios.run("init: refused before the platform and the cluster", || {
        let fake = FakePlatform::start(API_TOKEN);
        let mark = cp.audit_events().unwrap().len();
        let mut cmd = cli::init(&own, home, "local", "shared-files-init", CONTEXT);
        cmd.arg("--values")
            .arg(&values)
            .args(["--skip-cluster-test", "--no-wait", "--token", API_TOKEN])
            .args(["--url", &fake.url()]);
        // `cli::init` names the context on the command line; the values
        // file's kubeconfig is what is read.
        let (out, _) = bounded(cmd);
        assert!(!ran.exists(), "the plugin ran:\n{}", text(&out));
        assert_refused(&out, "ConfigPath", &["its exec auth plugin"]);
        assert_eq!(fake.calls(), Vec::<String>::new(), "{}", text(&out));
        assert!(sent_by_cf_runner(cp, mark).is_empty(), "{}", text(&out));
    });
    scenarios.run("runtime attach -f: refused before anything", || {
        let fake = FakePlatform::start(API_TOKEN);
        let mark = cp.audit_events().unwrap().len();
        let runtimes = home.join("repo").join("runtimes.yaml");
        std::fs::write(
            &runtimes,
            "Runtimes:\n  - Namespace: builds\n    ConfigPath: ./repo/kubeconfig\n",
        )
        .unwrap();
        let mut cmd = cli::isolated(&own, home);
        cmd.args(["runtime", "attach", "--agent-namespace", "shared-agent"])
            .args(["--agent-context", CONTEXT, "-f"])
            .arg(&runtimes)
            .args(["--token", API_TOKEN, "--url", &fake.url()]);
        let (out, _) = bounded(cmd);
        assert!(!ran.exists(), "the plugin ran:\n{}", text(&out));
        assert_refused(
            &out,
            "Runtimes[0].ConfigPath",
            &["its exec auth plugin", "--trust-values-kubeconfig"],
        );
        assert_eq!(fake.calls(), Vec::<String>::new(), "{}", text(&out));
        assert!(sent_by_cf_runner(cp, mark).is_empty(), "{}", text(&out));
    });

    scenarios.run("--kube-config-path naming it: runs, as today", || {
        let _ = std::fs::remove_file(&ran);
        let out = check(&["--kube-config-path", "./repo/kubeconfig"], &own);
        let shown = text(&out);
        assert_eq!(out.status.code(), Some(0), "{shown}");
        assert!(ran.exists(), "{shown}");
        assert!(!shown.contains("--trust-values-kubeconfig"), "{shown}");
        assert!(!shown.contains(&token), "{shown}");
    });
    scenarios.run("--trust-values-kubeconfig: runs, and says what", || {
        let _ = std::fs::remove_file(&ran);
        let out = check(&["--trust-values-kubeconfig"], &own);
        let shown = text(&out);
        assert_eq!(out.status.code(), Some(0), "{shown}");
        assert!(ran.exists(), "{shown}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let line = stderr
            .lines()
            .find(|l| l.contains("allowed by --trust-values-kubeconfig"))
            .unwrap_or_else(|| panic!("not said:\n{shown}"));
        assert!(
            line.contains(&format!("runs `{}`", script.display())),
            "{line}"
        );
        assert_eq!(
            stderr
                .matches("allowed by --trust-values-kubeconfig")
                .count(),
            1,
            "said more than once:\n{shown}"
        );
    });
    scenarios.run("the same file as $KUBECONFIG: the user's own", || {
        let _ = std::fs::remove_file(&ran);
        let out = check(&[], &config);
        let shown = text(&out);
        assert_eq!(out.status.code(), Some(0), "{shown}");
        assert!(ran.exists(), "{shown}");
    });
    scenarios.run("a file's kubeconfig with nothing to run: as today", || {
        std::fs::copy(&own, &config).unwrap();
        let out = check(&[], &own);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    });
    scenarios.assert_none_failed();
}

/// Item 13 (and the files a kubeconfig names). 3 cases: a runtimes file
/// that is a link to `/dev/zero`, or 200 KB of nested brackets (each
/// refused at once, exit 2), and a kubeconfig whose certificate authority
/// is a link to `/dev/zero` (refused, exit 2, instead of filling memory).
#[test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
fn hostile_files_are_refused_at_once() {
    let _together = crate::together_blocking();
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let attach = |file: &Path, kubeconfig: &Path| {
        let mut cmd = cli::isolated(kubeconfig, home);
        cmd.args(["runtime", "attach", "--agent-namespace", "a", "-f"])
            .arg(file)
            .args(["--token", API_TOKEN, "--url", "https://127.0.0.1:9"]);
        bounded(cmd)
    };
    let none = home.join("no-kubeconfig");
    let mut scenarios = Scenarios::default();
    scenarios.run("link to /dev/zero", || {
        let zero = home.join("zero.yaml");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let (out, took) = attach(&zero, &none);
        assert_refused(&out, "--values", &["character device"]);
        assert!(took < Duration::from_secs(5), "took {took:?}");
    });
    scenarios.run("200 KB of nested brackets", || {
        let deep = home.join("deep.yaml");
        let text = format!("Runtimes: {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
        std::fs::write(&deep, text).unwrap();
        let (out, took) = attach(&deep, &none);
        assert_eq!(out.status.code(), Some(2), "{}", self::text(&out));
        assert!(took < Duration::from_secs(5), "took {took:?}");
    });
    scenarios.run("a kubeconfig's certificate authority is /dev/zero", || {
        let zero = home.join("ca-zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let config = home.join("kubeconfig-zero");
        std::fs::write(
            &config,
            format!(
                "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: \
                 https://127.0.0.1:9\n    certificate-authority: {}\nusers:\n- name: u\n  \
                 user: {{token: t}}\ncontexts:\n- name: x\n  context: {{cluster: c, user: u}}\n\
                 current-context: x\n",
                zero.display()
            ),
        )
        .unwrap();
        let mut cmd = cli::isolated(&config, home);
        cmd.args(["info", "--kube-namespace", "a"]);
        let (out, took) = bounded(cmd);
        assert_refused(
            &out,
            "KUBECONFIG",
            &["certificate-authority", "character device"],
        );
        assert!(took < Duration::from_secs(5), "took {took:?}");
    });
    scenarios.assert_none_failed();
}

/// Installs the agent of the `local` example in `ns`, with `extra` flags.
fn init_agent(kubeconfig: &Path, home: &Path, ns: &str, url: &str, extra: &[&str]) -> Output {
    let mut cmd = cli::init(kubeconfig, home, "local", ns, CONTEXT);
    cmd.args(["--skip-cluster-test", "--timeout=90s", "--token", API_TOKEN])
        .args(["--url", url])
        .args(extra);
    bounded(cmd).0
}

/// `runtime attach` of `ns` to the agent in `agent_ns`, as `name`.
fn attach(
    kubeconfig: &Path,
    home: &Path,
    agent_ns: &str,
    ns: &str,
    extra: &[&str],
    url: &str,
) -> Output {
    let mut cmd = cli::isolated(kubeconfig, home);
    cmd.args([
        "runtime",
        "attach",
        "--allow-builds-to-read-tokens",
        "--agent-namespace",
        agent_ns,
    ])
    .args(["--agent-context", CONTEXT, "--kube-namespace", ns])
    .args(["--token", API_TOKEN, "--url", url])
    .args(extra);
    bounded(cmd).0
}

/// The runtime names of the agent's `runnerconf` files, by key.
async fn files(cp: &ControlPlane, ns: &str) -> Vec<(String, String)> {
    use k8s_openapi::api::core::v1::Secret;
    let api: kube::Api<Secret> = kube::Api::namespaced(cp.client(), ns);
    let Some(s) = api.get_opt("runnerconf").await.unwrap() else {
        return Vec::new();
    };
    s.data
        .unwrap_or_default()
        .into_iter()
        .map(|(k, v)| {
            let file: serde_json::Value = serde_yaml_ng::from_slice(&v.0).unwrap();
            (k, file["name"].as_str().unwrap_or("").to_string())
        })
        .collect()
}

/// Items 7 and 8, with an agent installed with `--insecure`. 5 cases:
/// attach refused without `--accept-agent-insecure-tls` (exit 2, the
/// risk said, nothing written, no platform write); attach with it as
/// `team/x`; attach of `team.x` (same key) refused naming both, nothing
/// written; detach of `team.x` refused, `team/x` kept; `init` with
/// Runtimes and `--insecure` refused before the install.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn attach_refuses_an_insecure_agent_and_a_key_another_runtime_holds() {
    let _alone = crate::alone().await;
    controlplane::ensure_crypto_provider();
    let cp = controlplane::shared();
    let home = tempfile::tempdir().unwrap();
    let home = home.path().to_path_buf();
    let kubeconfig: PathBuf = cp.admin_kubeconfig().to_path_buf();
    let fake = FakePlatform::start(API_TOKEN);
    let url = fake.url();
    let agent_ns = cp.create_namespace("insecure-agent").await.unwrap();
    let one = cp.create_namespace("team-x-one").await.unwrap();
    let two = cp.create_namespace("team-x-two").await.unwrap();
    let (k, h, a, u) = (
        kubeconfig.clone(),
        home.clone(),
        agent_ns.clone(),
        url.clone(),
    );
    let out = tokio::task::spawn_blocking(move || init_agent(&k, &h, &a, &u, &["--insecure"]))
        .await
        .unwrap();
    assert!(out.status.success(), "init: {}", text(&out));
    fake.add_runtime("team/x", CONTEXT, &one);
    fake.add_runtime("team.x", CONTEXT, &two);
    let run = |ns: String, extra: Vec<&'static str>| {
        let (k, h, a, u) = (
            kubeconfig.clone(),
            home.clone(),
            agent_ns.clone(),
            url.clone(),
        );
        tokio::task::spawn_blocking(move || attach(&k, &h, &a, &ns, &extra, &u))
    };
    let platform_writes = |fake: &FakePlatform| {
        fake.calls()
            .into_iter()
            .filter(|c| !c.starts_with("GET"))
            .collect::<Vec<_>>()
    };
    let mut failed = Vec::new();

    // Item 7: refused without the flag, before any write.
    fake.clear_requests();
    let mark = cp.audit_events().unwrap().len();
    let out = run(one.clone(), vec!["--runtime-name", "team/x"])
        .await
        .unwrap();
    let shown = text(&out);
    if out.status.code() != Some(2)
        || !shown.contains("--accept-agent-insecure-tls")
        || !shown.contains("skips TLS verification")
        || !support::audit::cf_runner_writes(cp, mark, &[&agent_ns, &one]).is_empty()
        || !platform_writes(&fake).is_empty()
    {
        eprintln!("insecure agent not refused:\n{shown}\n{:?}", fake.calls());
        failed.push("insecure refused");
    }

    // With the flag: attached.
    let out = run(
        one.clone(),
        vec!["--runtime-name", "team/x", "--accept-agent-insecure-tls"],
    )
    .await
    .unwrap();
    if !out.status.success() {
        eprintln!("attach with the flag failed:\n{}", text(&out));
        failed.push("insecure accepted");
    }
    let before = files(cp, &agent_ns).await;

    // Item 8: `team.x` has `team/x`'s key.
    fake.clear_requests();
    let mark = cp.audit_events().unwrap().len();
    let out = run(
        two.clone(),
        vec!["--runtime-name", "team.x", "--accept-agent-insecure-tls"],
    )
    .await
    .unwrap();
    let shown = text(&out);
    if out.status.code() != Some(2)
        || !shown.contains("team/x")
        || !shown.contains("team.x")
        || files(cp, &agent_ns).await != before
        || !support::audit::cf_runner_writes(cp, mark, &[&agent_ns, &one, &two]).is_empty()
        || !platform_writes(&fake).is_empty()
    {
        eprintln!(
            "the key clash was not refused:\n{shown}\n{:?}",
            fake.calls()
        );
        failed.push("key clash on attach");
    }
    let (k, h, a, u, ns) = (
        kubeconfig.clone(),
        home.clone(),
        agent_ns.clone(),
        url.clone(),
        two.clone(),
    );
    let out = tokio::task::spawn_blocking(move || {
        let mut cmd = cli::isolated(&k, &h);
        cmd.args(["runtime", "detach", "--agent-namespace", &a])
            .args(["--agent-context", CONTEXT, "--kube-namespace", &ns])
            .args([
                "--runtime-name",
                "team.x",
                "--token",
                API_TOKEN,
                "--url",
                &u,
            ]);
        bounded(cmd).0
    })
    .await
    .unwrap();
    if out.status.code() != Some(2) || files(cp, &agent_ns).await != before {
        eprintln!("the key clash was not refused on detach:\n{}", text(&out));
        failed.push("key clash on detach");
    }

    // Item 7 at init: Runtimes with --insecure, refused before the install.
    let values = home.join("with-runtimes.yaml");
    std::fs::write(&values, format!("Runtimes:\n  - Namespace: {two}\n")).unwrap();
    let fresh = cp.create_namespace("insecure-init").await.unwrap();
    fake.clear_requests();
    let (k, h, u, v, ns) = (
        kubeconfig.clone(),
        home.clone(),
        url.clone(),
        values.clone(),
        fresh.clone(),
    );
    let out = tokio::task::spawn_blocking(move || {
        let v = v.display().to_string();
        init_agent(&k, &h, &ns, &u, &["--insecure", "--values", &v])
    })
    .await
    .unwrap();
    if out.status.code() != Some(2)
        || !text(&out).contains("--accept-agent-insecure-tls")
        || !platform_writes(&fake).is_empty()
    {
        eprintln!("init with Runtimes and --insecure:\n{}", text(&out));
        failed.push("insecure at init");
    }
    assert!(failed.is_empty(), "failed: {failed:?}");
}
