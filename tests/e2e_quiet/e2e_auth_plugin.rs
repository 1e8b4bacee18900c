//! A kubeconfig whose exec auth plugin cannot give a credential, against the
//! real control plane: the plugin is missing, not executable, hangs, prints
//! no ExecCredential, or wants a terminal there is none of. Each time the
//! user reads which command, for which context and user, what is wrong and
//! what to do, once; cf-runner exits 1 and sends the API server nothing.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use support::cli::{self, example, text};
use support::controlplane::{self, ControlPlane};

/// The token of the admin user, which the working plugin prints.
fn admin_token(cp: &ControlPlane) -> String {
    let text = std::fs::read_to_string(cp.admin_kubeconfig()).unwrap();
    text.lines()
        .find_map(|l| l.trim().strip_prefix("token: "))
        .expect("the admin kubeconfig has a token")
        .to_string()
}

/// A kubeconfig for `cp` with one context, `eks-ci`, of the user `ci-bot`,
/// who authenticates with the exec plugin `exec` (YAML lines, indented for
/// `user.exec`).
fn kubeconfig(dir: &Path, cp: &ControlPlane, exec: &str) -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = dir.join(format!("kubeconfig-{n}"));
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: {server}
    certificate-authority: {ca}
users:
- name: ci-bot
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
{exec}
contexts:
- name: eks-ci
  context: {{cluster: c, user: ci-bot}}
current-context: eks-ci
",
            server = cp.server(),
            ca = cp.ca_file().display(),
        ),
    )
    .unwrap();
    path
}

/// A shell script at `path` with mode `mode`.
fn script(path: &Path, body: &str, mode: u32) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    path.to_path_buf()
}

/// `cf-runner check` of the local example with `kubeconfig`, `PATH` set to
/// `path` and `extra` variables; stopped (and the test failed) when it
/// still runs after 60 s, as one waiting forever for a plugin would.
fn check(kubeconfig: &Path, home: &Path, path: &str, extra: &[(&str, &str)]) -> Output {
    let mut cmd = cli::isolated(kubeconfig, home);
    cmd.args(["check", "--values"])
        .arg(example("local"))
        .args([
            "--kube-namespace",
            "cfauth",
            "--kube-context-name",
            "eks-ci",
        ])
        .env("PATH", path);
    for (k, v) in extra {
        cmd.env(k, v);
    }
    bounded(cmd)
}

fn bounded(mut cmd: Command) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!("cf-runner still ran after 60s:\n{}", text(&out));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
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

/// True while the process `pid` runs (a zombie has ended).
fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| !stat.rsplit(") ").next().unwrap_or("").starts_with('Z'))
}

/// Asserts the failure a user sees: exit 1, `error:` then `first`, no
/// `caused by` line (the plugin's error is the whole story), and `hint`.
fn assert_failure(out: &Output, first: &str, hint: &str) {
    let shown = text(out);
    assert_eq!(out.status.code(), Some(1), "{shown}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let error = stderr
        .lines()
        .find(|l| l.starts_with("error: "))
        .unwrap_or_else(|| panic!("no error line in:\n{shown}"));
    assert!(error.starts_with(&format!("error: {first}")), "{shown}");
    assert!(!shown.contains("caused by"), "{shown}");
    assert!(
        stderr.contains(&format!("  hint: {hint}")),
        "no hint {hint:?} in:\n{shown}"
    );
}

/// Runs every scenario to its end and names those that failed, so that one
/// failure does not hide the others.
#[derive(Default)]
struct Scenarios(Vec<&'static str>);

impl Scenarios {
    fn run(&mut self, name: &'static str, scenario: impl FnOnce()) {
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(scenario)).is_err() {
            self.0.push(name);
        }
    }
}

#[test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
fn an_auth_plugin_that_gives_no_credential_is_named_and_nothing_is_sent() {
    let _alone = crate::alone_blocking();
    let cp = controlplane::shared();
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let empty_bin = home.join("empty-bin");
    std::fs::create_dir(&empty_bin).unwrap();
    let no_plugins = empty_bin.to_str().unwrap();
    let system_path = "/usr/bin:/bin";
    let mark = cp.audit_events().unwrap().len();
    let mut scenarios = Scenarios::default();

    scenarios.run("not installed", || {
        // Named as the kubeconfig writes it, with the context and user, and
        // how to get it.
        let config = kubeconfig(
            home,
            cp,
            "      command: aws\n      args: [eks, get-token, --cluster-name, ci]\n      \
             interactiveMode: Never",
        );
        let out = check(&config, home, no_plugins, &[]);
        assert_failure(
            &out,
            "the auth plugin `aws` of user ci-bot (context eks-ci) is not installed: no \
             directory of PATH has it",
            "`aws` is the AWS CLI (EKS): install version 2",
        );
        // The same through the kube flags alone (`delete`): said once,
        // under what was being done.
        let mut delete = cli::isolated(&config, home);
        delete
            .args(["delete", "--yes", "--kube-context-name", "eks-ci"])
            .args(["--kube-namespace", "cfauth", "--keep-platform"])
            .env("PATH", no_plugins);
        let out = bounded(delete);
        let shown = text(&out);
        assert_eq!(out.status.code(), Some(1), "{shown}");
        assert_eq!(
            shown.matches("is not installed").count(),
            1,
            "said more than once:\n{shown}"
        );
        assert_eq!(shown.matches("caused by:").count(), 1, "{shown}");
    });

    scenarios.run("not installed, with an installHint", || {
        let config = kubeconfig(
            home,
            cp,
            "      command: corp-sso-token\n      interactiveMode: Never\n      \
             installHint: \"corp-sso-token is on the IT portal: Software > Kubernetes\"",
        );
        let out = check(&config, home, no_plugins, &[]);
        assert_failure(
            &out,
            "the auth plugin `corp-sso-token` of user ci-bot (context eks-ci) is not installed",
            "corp-sso-token is on the IT portal: Software > Kubernetes",
        );
    });

    scenarios.run("not executable", || {
        let plain = script(&home.join("plain-file"), "echo never run", 0o644);
        let config = kubeconfig(
            home,
            cp,
            &format!(
                "      command: {}\n      interactiveMode: Never",
                plain.display()
            ),
        );
        let out = check(&config, home, system_path, &[]);
        assert_failure(
            &out,
            &format!(
                "the auth plugin `{0}` of user ci-bot (context eks-ci) is not executable: {0} \
                 has mode 644",
                plain.display()
            ),
            &format!("make it executable (chmod +x {})", plain.display()),
        );
    });

    scenarios.run("hangs", || {
        // Said while waited for, then stopped at the deadline, with what it
        // started.
        let pid_file = home.join("hung.pid");
        let hang = script(
            &home.join("hang"),
            &format!("sleep 600 &\necho $! > {}\nwait", pid_file.display()),
            0o755,
        );
        let config = kubeconfig(
            home,
            cp,
            &format!(
                "      command: {}\n      interactiveMode: Never",
                hang.display()
            ),
        );
        let started = Instant::now();
        let out = check(
            &config,
            home,
            system_path,
            &[("CF_RUNNER_AUTH_PLUGIN_TIMEOUT", "7")],
        );
        let took = started.elapsed();
        let pid = std::fs::read_to_string(&pid_file).unwrap_or_default();
        assert!(!alive(pid.trim()), "the plugin's sleep {pid} still runs");
        assert_failure(
            &out,
            &format!(
                "the auth plugin `{}` of user ci-bot (context eks-ci) gave no credential within \
                 7s and was stopped",
                hang.display()
            ),
            "run `",
        );
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(&format!(
                "note: waiting for the auth plugin `{}` of user ci-bot (context eks-ci) to give a \
                 credential (it is stopped after 7s)",
                hang.display()
            )),
            "the wait was silent:\n{}",
            text(&out)
        );
        assert!(took < Duration::from_secs(20), "took {took:?}");
    });

    scenarios.run("bad output", || {
        // Something that is not a credential: quoted, masked and cut.
        let secret = "k8s-aws-v1.SECRET-TOKEN-THAT-MUST-NOT-SHOW";
        let padding = "x".repeat(300);
        let bad = script(
            &home.join("bad-output"),
            &format!(
                "echo '{{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\
                 \"token\":\"{secret}\",\"note\":\"{padding}\"}}'"
            ),
            0o755,
        );
        let config = kubeconfig(
            home,
            cp,
            &format!(
                "      command: {}\n      interactiveMode: Never",
                bad.display()
            ),
        );
        let out = check(&config, home, system_path, &[]);
        let shown = text(&out);
        assert!(!shown.contains("SECRET-TOKEN"), "{shown}");
        assert_failure(
            &out,
            &format!(
                "the auth plugin `{}` of user ci-bot (context eks-ci) printed no valid \
                 ExecCredential: it has no status; it printed: \
                 {{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\
                 \"token\":\"<redacted>\",\"note\":\"xxx",
                bad.display()
            ),
            &format!("`{}` must print an ExecCredential", bad.display()),
        );
        assert!(shown.contains("… (cut at 200 characters)"), "{shown}");
    });

    // A plugin that would give a good token, and says when it ran.
    let ran = home.join("good.ran");
    let token = admin_token(cp);
    let good = script(
        &home.join("good"),
        &format!(
            "touch {}\necho '{{\"apiVersion\":\"client.authentication.k8s.io/v1\",\
             \"kind\":\"ExecCredential\",\"status\":{{\"token\":\"{token}\"}}}}'",
            ran.display()
        ),
        0o755,
    );
    scenarios.run("needs a terminal", || {
        // Refused without running it.
        let config = kubeconfig(
            home,
            cp,
            &format!(
                "      command: {}\n      interactiveMode: Always",
                good.display()
            ),
        );
        let out = check(&config, home, system_path, &[]);
        assert!(!ran.exists(), "the plugin ran:\n{}", text(&out));
        assert_failure(
            &out,
            &format!(
                "the auth plugin `{}` of user ci-bot (context eks-ci) needs a terminal \
                 (interactiveMode: Always), and stdin is not one",
                good.display()
            ),
            "run cf-runner in a terminal",
        );
    });

    scenarios.run("nothing sent", || {
        let sent = sent_by_cf_runner(cp, mark);
        assert!(
            sent.is_empty(),
            "{} requests were sent, the first: {:?}",
            sent.len(),
            &sent[..sent.len().min(3)]
        );
    });

    // The same plugin where it may run without a terminal: it works, its
    // requests are seen (so the audit check above would see them), and the
    // token is nowhere in the output.
    scenarios.run("a working plugin", || {
        let config = kubeconfig(
            home,
            cp,
            &format!(
                "      command: {}\n      interactiveMode: Never",
                good.display()
            ),
        );
        let out = check(&config, home, system_path, &[]);
        let shown = text(&out);
        assert!(ran.exists(), "{shown}");
        assert!(!shown.contains(&token), "{shown}");
        assert_eq!(out.status.code(), Some(0), "{shown}");
        assert!(
            !sent_by_cf_runner(cp, mark).is_empty(),
            "the audit log shows no request of cf-runner:\n{shown}"
        );
    });

    assert!(
        scenarios.0.is_empty(),
        "failed scenarios: {:?}",
        scenarios.0
    );
}
