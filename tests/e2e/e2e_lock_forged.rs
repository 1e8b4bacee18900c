//! A lock Lease that someone with `update` on Leases wrote by hand, against
//! the test control plane and the fake Codefresh platform: its times and
//! holder are claims, not facts.
//!
//! - one renewed a year ahead with a duration of 60 years is named as
//!   forged or broken, with its real expiry by its own fields and the
//!   `kubectl` command that removes it; a run that may wait watches it and
//!   takes it over instead of waiting 60 years, and nothing is written to
//!   the platform while it is held;
//! - one that could be a live run's states its own expiry, not this run's
//!   30 s;
//! - its holder (user, host, command) is data: a conceal colour, a title
//!   change, a newline and a right-to-left override in it are shown
//!   escaped, on a pipe and on a terminal, where cf-runner's own colours
//!   still show.

#![cfg(unix)]

use crate::support;

use std::process::{Command, Stdio};
use std::time::Duration;

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::{SignedDuration, Timestamp};
use kube::api::{Api, PostParams};
use kube::core::ObjectMeta;
use rexpect::process::WaitStatus;
use rexpect::reader::Options;
use rexpect::session::spawn_with_options;
use support::cli;
use support::controlplane::{self, ControlPlane};
use support::fake_platform::FakePlatform;

const USER_TOKEN: &str = "user-api-key.0123456789abcdef";
const CONTEXT: &str = "admin@cf-runner-test";
const LEASE: &str = "cf-runner-lock";

/// A holder field as a hostile writer fills it: a conceal colour, a window
/// title, a fake line, a right-to-left override and an isolate.
const HOSTILE_USER: &str =
    "eve\u{1b}[8mhidden\u{1b}]0;pwned\u{7}\nerror: fake\u{202e}nimda\u{2066}";

/// The hostile user as every message must show it.
const HOSTILE_SHOWN: &str = "eve\\e[8mhidden\\e]0;pwned\\u{7}\\nerror: fake\\u{202e}nimda\\u{2066}";

/// Writes the lock Lease of `ns` by hand: renewed `renewed_in` from now
/// (negative: ago), held for `seconds`, by [`HOSTILE_USER`].
async fn forge(cp: &ControlPlane, ns: &str, renewed_in: SignedDuration, seconds: i32) -> Lease {
    let at = MicroTime(Timestamp::now() + renewed_in);
    let annotation = |k: &str, v: &str| (format!("cf-runner.codefresh.io/lock-{k}"), v.to_string());
    let lease = Lease {
        metadata: ObjectMeta {
            name: Some(LEASE.into()),
            annotations: Some(
                [
                    annotation("user", HOSTILE_USER),
                    annotation("host", "build\u{9b}2J\u{7f}box"),
                    annotation("pid", "4242"),
                    annotation("command", "init"),
                    annotation("process-space", "another-machine"),
                ]
                .into(),
            ),
            ..Default::default()
        },
        spec: Some(LeaseSpec {
            holder_identity: Some(format!("{HOSTILE_USER}@build pid 4242 (cf-runner init)")),
            acquire_time: Some(at.clone()),
            renew_time: Some(at),
            lease_duration_seconds: Some(seconds),
            ..Default::default()
        }),
    };
    let api: Api<Lease> = Api::namespaced(cp.client(), ns);
    api.create(&PostParams::default(), &lease).await.unwrap()
}

/// `init` of the local example into `ns`, registered on `fake`.
fn init_command(
    cp: &ControlPlane,
    fake: &FakePlatform,
    home: &std::path::Path,
    ns: &str,
) -> Command {
    let mut cmd = cli::init(cp.admin_kubeconfig(), home, "local", ns, CONTEXT);
    cmd.args(["--url", &fake.url(), "--token", USER_TOKEN, "--no-wait"])
        .args(["--timeout", "90s"])
        .env("CF_RUNNER_RETRY_BASE_MS", "20");
    cmd
}

/// The requests that write on the platform.
fn platform_writes(fake: &FakePlatform) -> Vec<String> {
    fake.calls()
        .into_iter()
        .filter(|c| !c.starts_with("GET "))
        .collect()
}

/// No terminal control of data in `said`, and the hostile holder escaped.
fn assert_escaped(said: &str) {
    assert!(
        !said.chars().any(|c| c.is_control() && c != '\n'
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)),
        "a control of data reached the output raw: {said:?}"
    );
    assert!(said.contains(HOSTILE_SHOWN), "{said}");
    assert!(said.contains("build\\u{9b}2J\\u{7f}box"), "{said}");
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_forged_lease_is_named_with_its_real_expiry_and_a_waiting_run_takes_it_over() {
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let ns = cp.create_namespace("cfforged").await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let year = SignedDuration::from_hours(365 * 24);
    let forged = forge(cp, &ns, year, 1_900_000_000).await;

    // Told not to wait: stops at once, names the lock as forged, its real
    // expiry, and how to remove it; writes nothing anywhere.
    let mut stopped = init_command(cp, &fake, home.path(), &ns);
    stopped.arg("--no-wait-for-lock");
    let out = stopped.output().unwrap();
    let said = cli::text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    for expected in [
        "the lock looks forged or broken",
        "its renewTime 20",
        "is 365 days ahead of this machine's clock",
        "its leaseDurationSeconds 1900000000 is more than the 3600 cf-runner ever writes",
        "by its own fields it expires at 20",
        &format!("if no cf-runner run holds it, remove it: kubectl delete lease {LEASE} -n {ns} --context {CONTEXT}"),
    ] {
        assert!(said.contains(expected), "missing {expected:?} in:\n{said}");
    }
    assert!(
        !said.contains("expires 30s after its last renewal"),
        "{said}"
    );
    assert_escaped(&said);
    assert_eq!(platform_writes(&fake), Vec::<String>::new(), "{said}");
    let api: Api<Lease> = Api::namespaced(cp.client(), &ns);
    assert_eq!(
        api.get(LEASE).await.unwrap().metadata.resource_version,
        forged.metadata.resource_version,
        "the held lock was written"
    );

    // A read-only command says the same, escaped.
    let info = cli::run(
        cp.admin_kubeconfig(),
        &[
            "info",
            "--kube-namespace",
            &ns,
            "--kube-context-name",
            CONTEXT,
        ],
    );
    let shown = cli::text(&info);
    assert!(
        shown.contains("the lock looks forged or broken")
            && shown.contains(&format!("kubectl delete lease {LEASE} -n {ns}")),
        "{shown}"
    );
    assert_escaped(&shown);

    // Without the flag (and without a terminal) the run watches it for its
    // own lease duration, sees nobody renew it, takes it over and installs.
    let mut next = init_command(cp, &fake, home.path(), &ns);
    next.env("CF_RUNNER_LOCK_LEASE_SECONDS", "3");
    let started = std::time::Instant::now();
    let out = next.output().unwrap();
    let said = cli::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(started.elapsed() < Duration::from_secs(80), "{said}");
    assert!(
        said.contains("watching it for")
            && said.contains(&format!("took over the lock of namespace {ns} from"))
            && said.contains("it stayed unchanged for 3s while this run watched it"),
        "{said}"
    );
    assert_escaped(&said);
    assert_eq!(fake.agents().len(), 1, "{:?}", fake.agents());
    assert!(
        api.get_opt(LEASE).await.unwrap().is_none(),
        "the lock was not released"
    );
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_lease_that_could_be_a_live_runs_states_its_own_expiry() {
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let ns = cp.create_namespace("cflive").await.unwrap();
    let home = tempfile::tempdir().unwrap();
    // Renewed a moment ago, for 10 minutes: plausible, so believed.
    forge(cp, &ns, SignedDuration::from_secs(-2), 600).await;
    let out = init_command(cp, &fake, home.path(), &ns).output().unwrap();
    let said = cli::text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("stopped without waiting (no terminal to count down on)")
            && said.contains("by its own fields it expires at 20")
            && said.contains("(in 10 min) unless renewed")
            && said.contains(&format!("kubectl delete lease {LEASE} -n {ns}")),
        "{said}"
    );
    assert!(
        !said.contains("forged") && !said.contains("expires 30s"),
        "{said}"
    );
    assert_escaped(&said);
    assert_eq!(platform_writes(&fake), Vec::<String>::new(), "{said}");

    // Renewed 10 minutes ahead of this clock, for a few seconds: the time
    // is named, and the lock is judged by watching it, not by the clock
    // (which would keep it held for 10 minutes more).
    let api: Api<Lease> = Api::namespaced(cp.client(), &ns);
    api.delete(LEASE, &Default::default()).await.unwrap();
    forge(cp, &ns, SignedDuration::from_mins(10), 4).await;
    let mut next = init_command(cp, &fake, home.path(), &ns);
    next.env("CF_RUNNER_LOCK_LEASE_SECONDS", "4");
    let out = next.output().unwrap();
    let said = cli::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.contains("is 10 min ahead of this machine's clock")
            && said.contains("it stayed unchanged for 4s while this run watched it"),
        "{said}"
    );
    assert_escaped(&said);
}

/// On a terminal: the countdown and the take-over warning show the holder
/// escaped, while cf-runner's own colour (the yellow `warning:`) still
/// shows.
#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn on_a_terminal_the_holder_is_escaped_and_cf_runners_colours_remain() {
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let ns = cp.create_namespace("cfttylock").await.unwrap();
    let home = tempfile::tempdir().unwrap();
    forge(cp, &ns, SignedDuration::from_secs(-1), 4).await;
    let mut cmd = init_command(cp, &fake, home.path(), &ns);
    cmd.env_remove("NO_COLOR")
        .env("TERM", "xterm")
        .env("CF_RUNNER_LOCK_LEASE_SECONDS", "4")
        .stdin(Stdio::inherit());
    let options = Options::new()
        .timeout_ms(Some(120_000))
        .strip_ansi_escape_codes(false);
    let mut session = spawn_with_options(cmd, options).expect("spawn in a pty");
    let read = session.exp_eof().expect("the run ends");
    let code = match session.process().wait().unwrap() {
        WaitStatus::Exited(_, code) => code,
        other => panic!("ended with {other:?}"),
    };
    // rexpect hands over each byte as a char.
    let bytes: Vec<u8> = read.chars().map(|c| c as u32 as u8).collect();
    let seen = String::from_utf8_lossy(&bytes).into_owned();
    assert_eq!(code, 0, "{seen}");
    assert!(
        !seen.contains("\u{1b}[8m"),
        "the conceal of data reached the terminal: {seen:?}"
    );
    assert!(!seen.contains("\u{1b}]0;pwned"), "{seen:?}");
    assert!(
        !seen.contains('\u{202e}') && !seen.contains('\u{9b}'),
        "{seen:?}"
    );
    assert!(seen.contains(HOSTILE_SHOWN), "{seen:?}");
    assert!(
        seen.contains("\u{1b}[33m\u{1b}[1mwarning:")
            || seen.contains("\u{1b}[1m\u{1b}[33mwarning:"),
        "cf-runner's own colour is gone: {seen:?}"
    );
    assert!(seen.contains("took over the lock"), "{seen:?}");
}
