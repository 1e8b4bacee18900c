//! How cf-runner reaches a cluster, and what the installed runner may do
//! there: exec-plugin credentials, HTTPS_PROXY/NO_PROXY, a private control
//! plane stopped in the middle of an apply, and the runner ServiceAccount's
//! rights checked by impersonation.

use crate::support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, ListParams, PostParams};
use support::cli::{self, isolated, shared_home, text};
use support::controlplane::{self, ControlPlane};
use support::namespace::unique;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const AGENT_TOKEN: &str = "agent-token-for-access-tests-42";

fn init_command(kubeconfig: &Path, context: &str, ns: &str, extra: &[&str]) -> Command {
    let mut cmd = cli::init(kubeconfig, shared_home(), "local", ns, context);
    cmd.args(["--agent-token", AGENT_TOKEN]).args(extra);
    cmd
}

fn admin_token(cp: &ControlPlane) -> String {
    let text = std::fs::read_to_string(cp.admin_kubeconfig()).unwrap();
    text.lines()
        .find_map(|l| l.trim().strip_prefix("token: "))
        .expect("the admin kubeconfig has a token")
        .to_string()
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn exec_plugin_credentials_work() {
    let cp = controlplane::shared();
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("credential.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho '{{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{{\"token\":\"{}\"}}}}'\n",
            admin_token(cp)
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let kubeconfig = dir.path().join("config");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: {server}
    certificate-authority: {ca}
users:
- name: exec-user
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: {script}
      interactiveMode: Never
contexts:
- name: exec
  context: {{cluster: c, user: exec-user}}
current-context: exec
",
            server = cp.server(),
            ca = cp.ca_file().display(),
            script = script.display()
        ),
    )
    .unwrap();
    let ns = unique("cfexec");
    let out = init_command(&kubeconfig, "exec", &ns, &["--no-wait"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("Deployment/runner"));
    let nss: Api<Namespace> = Api::all(cp.client());
    assert!(nss.get_opt(&ns).await.unwrap().is_some());
}

/// A minimal HTTP CONNECT proxy on loopback that counts the tunnels it opens.
async fn start_connect_proxy() -> (String, Arc<AtomicUsize>) {
    // On 127.0.0.2, so NO_PROXY=127.0.0.1 (the API server) cannot match the
    // proxy's own address by accident.
    let listener = tokio::net::TcpListener::bind("127.0.0.2:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let tunnels = Arc::new(AtomicUsize::new(0));
    let counter = tunnels.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut client, _)) = listener.accept().await else {
                return;
            };
            let counter = counter.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && head.len() < 8192 {
                    if client.read_exact(&mut byte).await.is_err() {
                        return;
                    }
                    head.push(byte[0]);
                }
                let head = String::from_utf8_lossy(&head).into_owned();
                let Some(target) = head
                    .lines()
                    .next()
                    .and_then(|l| l.strip_prefix("CONNECT "))
                    .and_then(|l| l.split_whitespace().next())
                else {
                    let _ = client
                        .write_all(b"HTTP/1.1 405 Method Not Allowed\r\n\r\n")
                        .await;
                    return;
                };
                let Ok(mut upstream) = tokio::net::TcpStream::connect(target).await else {
                    let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\n\r\n").await;
                    return;
                };
                counter.fetch_add(1, Ordering::SeqCst);
                if client
                    .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                    .await
                    .is_ok()
                {
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
                }
            });
        }
    });
    (format!("http://{addr}"), tunnels)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn https_proxy_is_used_unless_no_proxy_matches() {
    let cp = controlplane::shared();
    let (proxy, tunnels) = start_connect_proxy().await;

    let ns = unique("cfproxy");
    let mut cmd = init_command(
        cp.admin_kubeconfig(),
        "admin@cf-runner-test",
        &ns,
        &["--no-wait"],
    );
    cmd.env("HTTPS_PROXY", &proxy);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(tunnels.load(Ordering::SeqCst) > 0, "the proxy was not used");

    let before = tunnels.load(Ordering::SeqCst);
    let mut cmd = init_command(
        cp.admin_kubeconfig(),
        "admin@cf-runner-test",
        &ns,
        &["--no-wait"],
    );
    cmd.env("HTTPS_PROXY", &proxy).env("NO_PROXY", "127.0.0.1");
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        tunnels.load(Ordering::SeqCst),
        before,
        "NO_PROXY was ignored"
    );
}

async fn can(
    client: &kube::Client,
    verb: &str,
    resource: &str,
    group: &str,
    ns: Option<&str>,
) -> bool {
    let review = SelfSubjectAccessReview {
        spec: SelfSubjectAccessReviewSpec {
            resource_attributes: Some(ResourceAttributes {
                verb: Some(verb.into()),
                resource: Some(resource.into()),
                group: Some(group.into()),
                namespace: ns.map(str::to_string),
                ..Default::default()
            }),
            ..Default::default()
        },
        ..Default::default()
    };
    let api: Api<SelfSubjectAccessReview> = Api::all(client.clone());
    let answer = api.create(&PostParams::default(), &review).await.unwrap();
    answer.status.unwrap().allowed
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn the_runner_service_account_has_only_what_it_needs() {
    let cp = controlplane::shared();
    let ns = unique("cfsec");
    let out = init_command(
        cp.admin_kubeconfig(),
        "admin@cf-runner-test",
        &ns,
        &["--no-wait"],
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let other = cp.create_namespace("cfsec-other").await.unwrap();

    let mut config = cp.admin_config().clone();
    config.auth_info.impersonate = Some(format!("system:serviceaccount:{ns}:runner"));
    let runner = kube::Client::try_from(config).unwrap();
    for (verb, resource) in [
        ("create", "pods"),
        ("delete", "pods"),
        ("get", "pods"),
        ("create", "persistentvolumeclaims"),
        ("delete", "persistentvolumeclaims"),
    ] {
        assert!(
            can(&runner, verb, resource, "", Some(&ns)).await,
            "runner cannot {verb} {resource}"
        );
    }
    assert!(!can(&runner, "create", "pods", "", Some(&other)).await);
    assert!(!can(&runner, "get", "secrets", "", Some(&other)).await);
    assert!(!can(&runner, "list", "secrets", "", Some(&ns)).await);
    assert!(
        !can(
            &runner,
            "create",
            "clusterrolebindings",
            "rbac.authorization.k8s.io",
            None
        )
        .await
    );
    assert!(
        !can(
            &runner,
            "create",
            "rolebindings",
            "rbac.authorization.k8s.io",
            Some(&ns)
        )
        .await
    );

    // No binding cf-runner made grants cluster-admin (or admin/edit).
    let selector = format!("app.kubernetes.io/instance={ns}");
    for (kind, scope) in [
        ("ClusterRoleBinding", None),
        ("RoleBinding", Some(ns.as_str())),
    ] {
        let api =
            cf_runner::cluster::api_for(&cp.client(), "rbac.authorization.k8s.io/v1", kind, scope);
        let list = api
            .list(&ListParams::default().labels(&selector))
            .await
            .unwrap();
        assert!(!list.items.is_empty(), "no {kind} found");
        for b in list.items {
            let role = b.data["roleRef"]["name"].as_str().unwrap().to_string();
            assert!(
                !["cluster-admin", "admin", "edit"].contains(&role.as_str()),
                "{kind} binds {role}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn an_apiserver_lost_mid_apply_is_reported_and_a_rerun_converges() {
    // A private control plane: stopping the shared one would break other tests.
    let cp = ControlPlane::start().expect("a private control plane");
    let client = cp.client();
    // Pause cf-runner as soon as it holds the install's lock (taken right
    // before the apply), take the API server away, then let it continue
    // into the outage. The Lease shows in the cluster a moment before its
    // answer reaches cf-runner; paused in that moment, the run loses the
    // answer and stops at the lock instead (a loaded machine, once): that
    // try is set aside, in a namespace of its own, and the next one made.
    let mut tries = Vec::new();
    let (ns, first) = loop {
        let ns = ["cffault", "cffault-2", "cffault-3"][tries.len()];
        let child = init_command(
            cp.admin_kubeconfig(),
            "admin@cf-runner-test",
            ns,
            &["--no-wait"],
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
        let leases: Api<k8s_openapi::api::coordination::v1::Lease> =
            Api::namespaced(client.clone(), ns);
        let deadline = Instant::now() + Duration::from_secs(30);
        while leases
            .get_opt("cf-runner-lock")
            .await
            .ok()
            .flatten()
            .is_none()
        {
            assert!(Instant::now() < deadline, "cf-runner never took its lock");
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        let pid = child.id() as i32;
        unsafe { libc::kill(pid, libc::SIGSTOP) };
        cp.stop_apiserver();
        unsafe { libc::kill(pid, libc::SIGCONT) };
        let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
            .await
            .unwrap();
        let first = text(&out);
        eprintln!("first run into {ns}, interrupted:\n{first}");
        assert_ne!(out.status.code(), Some(0), "{first}");
        if first.contains(&format!("taking the lock of namespace {ns} failed")) && tries.len() < 2 {
            tries.push(first);
            cp.start_apiserver().unwrap();
            continue;
        }
        break (ns, first);
    };
    assert!(first.contains("error:"), "{first}");
    assert!(
        first.contains("not applied:") && first.contains("Deployment/runner"),
        "the error must say what was and was not applied: {first}\n(earlier tries: {tries:#?})"
    );
    assert!(!first.contains(AGENT_TOKEN));

    cp.start_apiserver().unwrap();
    let out = init_command(
        cp.admin_kubeconfig(),
        "admin@cf-runner-test",
        ns,
        &["--timeout", "90s"],
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    // Converged: one of each, and a third run changes nothing.
    let client = cp.client();
    let rs = cf_runner::cluster::api_for(&client, "apps/v1", "ReplicaSet", Some(ns));
    let sets = rs
        .list(&ListParams::default().labels("app.kubernetes.io/name=runner"))
        .await
        .unwrap();
    assert_eq!(
        sets.items.len(),
        1,
        "the runner Deployment rolled out more than once"
    );
    let out = init_command(
        cp.admin_kubeconfig(),
        "admin@cf-runner-test",
        ns,
        &["--no-wait"],
    )
    .output()
    .unwrap();
    let third = text(&out);
    assert!(out.status.success(), "{third}");
    assert!(
        !third.contains(" created ") && !third.contains("configured"),
        "{third}"
    );
}

/// An API server that froze in the middle of a delete kept it silent for up
/// to 60 s (one request's deadline). The delete now says, after a few
/// seconds, what it waits for, where, and the deadline of each request.
#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_frozen_apiserver_mid_delete_is_said_with_its_address_and_deadline() {
    use std::io::BufRead;
    // A private control plane: freezing the shared one would stall other tests.
    let cp = ControlPlane::start().expect("a private control plane");
    let ns = "cffrozen";
    let out = init_command(
        cp.admin_kubeconfig(),
        "admin@cf-runner-test",
        ns,
        &["--no-wait"],
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let mut child = isolated(cp.admin_kubeconfig(), shared_home())
        .args([
            "delete",
            "--yes",
            "--kube-namespace",
            ns,
            "--kube-context-name",
            "admin@cf-runner-test",
            "--timeout",
            "120s",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as i32;
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    // Freeze the API server once the first phase has started, with
    // cf-runner paused meanwhile so that it meets the frozen server.
    let seen = tokio::task::spawn_blocking(move || {
        let mut reader = std::io::BufReader::new(stdout);
        let mut seen = String::new();
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap() == 0 {
                break;
            }
            seen.push_str(&line);
            // A phase's line (`Deleting workloads (2)`), not the heading.
            if line.starts_with("Deleting ") && !line.starts_with("Deleting the Codefresh Runner") {
                break;
            }
        }
        (seen, reader)
    })
    .await
    .unwrap();
    let (before, stdout_rest) = seen;
    assert!(before.contains("Deleting "), "{before}");
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    cp.freeze_apiserver();
    unsafe { libc::kill(pid, libc::SIGCONT) };
    let note = tokio::task::spawn_blocking(move || {
        let mut reader = std::io::BufReader::new(stderr);
        let mut seen = String::new();
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap() == 0 {
                return (seen, None);
            }
            seen.push_str(&line);
            if line.starts_with("note: waiting for the API server") {
                return (seen, Some(reader));
            }
        }
    })
    .await
    .unwrap();
    cp.thaw_apiserver();
    let (said, rest) = note;
    assert!(
        rest.is_some(),
        "the delete ended without a word:\n{before}{said}"
    );
    let server = cp.server().trim_end_matches('/').to_string();
    let line = said.lines().last().unwrap();
    assert!(
        line.starts_with(&format!(
            "note: waiting for the API server at {server}/ to answer "
        )),
        "{line}"
    );
    assert!(
        line.ends_with("(a request with no answer fails after 60s)"),
        "{line}"
    );
    // Thawed, the delete finishes.
    drop(stdout_rest);
    drop(rest);
    let status = tokio::task::spawn_blocking(move || child.wait().unwrap())
        .await
        .unwrap();
    assert!(status.success(), "{said}");
}
