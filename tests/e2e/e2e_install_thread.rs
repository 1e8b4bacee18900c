//! `init`'s install does its cluster work on the thread that runs the
//! command: no tokio worker threads, so no request or answer waits for
//! another thread to be scheduled (issue 26). On that one thread the lock
//! still renews itself while the run waits on the platform.

#![cfg(unix)]

use crate::support;

use std::process::Stdio;
use std::time::Duration;

use k8s_openapi::api::coordination::v1::Lease;
use kube::api::Api;
use support::cli;
use support::controlplane::{self, poll_until};
use support::fake_platform::FakePlatform;
use support::namespace::unique;

const USER_TOKEN: &str = "user-api-key.0123456789abcdef";
const CONTEXT: &str = "admin@cf-runner-test";
const LEASE: &str = "cf-runner-lock";
const SIGN: &str = "POST /api/custom_clusters/signServerCerts";

/// The names of the threads of process `pid` now.
fn thread_names(pid: u32) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|tasks| {
            tasks
                .flatten()
                .filter_map(|t| std::fs::read_to_string(t.path().join("comm")).ok())
                .map(|n| n.trim().to_string())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The lock's holder and last renewal, as the cluster holds them.
async fn held(leases: &Api<Lease>) -> Option<(String, String)> {
    let lease = leases.get_opt(LEASE).await.unwrap()?;
    let spec = lease.spec.unwrap_or_default();
    Some((
        spec.holder_identity.unwrap_or_default(),
        spec.renew_time.map(|t| t.0.to_string()).unwrap_or_default(),
    ))
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn the_install_runs_on_one_thread_and_keeps_renewing_its_lock() {
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let ns = unique("cfthread");
    // The run waits on the platform, under the lock, for a while.
    fake.slow(SIGN, Duration::from_secs(5), 1);
    let home = tempfile::tempdir().unwrap();
    let mut cmd = cli::init(cp.admin_kubeconfig(), home.path(), "local", &ns, CONTEXT);
    cmd.args(["--url", &fake.url(), "--token", USER_TOKEN, "--no-wait"])
        .args(["--timeout", "90s"])
        .env("CF_RUNNER_RETRY_BASE_MS", "20")
        // Renewed every second.
        .env("CF_RUNNER_LOCK_LEASE_SECONDS", "3")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let run = cmd.spawn().unwrap();
    let pid = run.id();
    let leases: Api<Lease> = Api::namespaced(cp.client(), &ns);
    poll_until(
        "the run holding the lock and waiting for the signing",
        Duration::from_secs(60),
        || async { Ok(fake.faults_left(SIGN) == 0 && held(&leases).await.is_some()) },
    )
    .await
    .unwrap();
    let threads = thread_names(pid);
    let (holder, renewed) = held(&leases).await.expect("the lock is held");
    assert!(holder.contains(&format!("pid {pid}")), "{holder}");
    // Two renewals' time, still inside the signing's wait.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let (holder_later, renewed_later) = held(&leases).await.expect("the lock is still held");
    let out = run.wait_with_output().unwrap();
    let said = cli::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");

    assert!(
        !threads.is_empty() && !threads.iter().any(|t| t == "tokio-rt-worker"),
        "the install ran tokio worker threads: {threads:?}"
    );
    assert_eq!(holder_later, holder);
    assert_ne!(
        renewed_later, renewed,
        "the lock was not renewed while the run waited on the platform"
    );
    assert!(
        held(&leases).await.is_none(),
        "the lock was not released\n{said}"
    );
}
