//! Two runs on one install, against the test control plane and the fake
//! Codefresh platform: the install's lock (a Lease in its namespace) lets
//! one run change the install at a time. Two `init` at once make one
//! agent, one certificate, one cluster integration and one runtime, the
//! loser waiting on a terminal and stopping at once without one, naming
//! the holder; `init` racing `delete` ends in one or the other, never half;
//! a lock left by a SIGKILLed run is taken over once it expires; `info`
//! during a run names the holder; and `delete` also removes a second agent
//! that an unlocked race left with the install's runtime.

#![cfg(unix)]

use crate::support;

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::Secret;
use kube::api::Api;
use rexpect::process::WaitStatus;
use rexpect::reader::Options;
use rexpect::session::{spawn_with_options, PtySession};
use support::cli::{self, isolated};
use support::controlplane::{self, poll_until, ControlPlane};
use support::fake_platform::FakePlatform;
use support::namespace::unique;

const USER_TOKEN: &str = "user-api-key.0123456789abcdef";
const CONTEXT: &str = "admin@cf-runner-test";
const LEASE: &str = "cf-runner-lock";

/// `init` of the local example into `ns`, registered on `fake`, without
/// waiting for the workloads (the lock is what is tested).
fn init_command(cp: &ControlPlane, fake: &FakePlatform, home: &Path, ns: &str) -> Command {
    let mut cmd = cli::init(cp.admin_kubeconfig(), home, "local", ns, CONTEXT);
    cmd.args(["--url", &fake.url(), "--token", USER_TOKEN, "--no-wait"])
        .args(["--timeout", "90s"])
        .env("CF_RUNNER_RETRY_BASE_MS", "20");
    cmd
}

/// `delete --yes` of `ns`, cleaning `fake`.
fn delete_command(cp: &ControlPlane, fake: &FakePlatform, home: &Path, ns: &str) -> Command {
    let mut cmd = isolated(cp.admin_kubeconfig(), home);
    cmd.args(["delete", "--yes", "--kube-namespace", ns])
        .args(["--kube-context-name", CONTEXT, "--token", USER_TOKEN])
        .args(["--url", &fake.url(), "--timeout", "90s"])
        .env("CF_RUNNER_RETRY_BASE_MS", "20");
    cmd
}

fn started(mut cmd: Command) -> Child {
    cmd.stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn text(o: &Output) -> String {
    cli::text(o)
}

/// The lock of `ns`, as the cluster holds it.
async fn lease(cp: &ControlPlane, ns: &str) -> Option<Lease> {
    let api: Api<Lease> = Api::namespaced(cp.client(), ns);
    api.get_opt(LEASE).await.unwrap()
}

/// Waits until `what` is true: a run is under way (judged by what it did,
/// not by the lock, so that the test says what breaks without one).
async fn until(what: &str, check: impl Fn() -> bool) {
    poll_until(what, Duration::from_secs(60), || async { Ok(check()) })
        .await
        .unwrap();
}

/// How many recorded requests start with `call` (`"POST /api/agents"`).
fn count(fake: &FakePlatform, call: &str) -> usize {
    fake.calls().iter().filter(|c| c.starts_with(call)).count()
}

/// A run of the binary in a pseudo-terminal, remembering what it showed.
struct Terminal {
    session: PtySession,
    seen: String,
}

impl Terminal {
    fn start(mut cmd: Command) -> Terminal {
        // The pty is the terminal: the spawn puts it on fd 0 before exec.
        cmd.env("TERM", "xterm").stdin(Stdio::inherit());
        let options = Options::new()
            .timeout_ms(Some(120_000))
            .strip_ansi_escape_codes(true);
        Terminal {
            session: spawn_with_options(cmd, options).expect("spawn in a pty"),
            seen: String::new(),
        }
    }

    /// Reads to the end; the exit code.
    fn finish(&mut self) -> i32 {
        match self.session.exp_eof() {
            Ok(rest) => self.seen.push_str(&decode(&rest)),
            Err(e) => panic!("no end: {e}\n--- the terminal showed:\n{}", self.seen),
        }
        match self.session.process().wait().unwrap() {
            WaitStatus::Exited(_, code) => code,
            other => panic!("ended with {other:?}\n{}", self.seen),
        }
    }
}

/// rexpect hands over each byte as a char.
fn decode(read: &str) -> String {
    let bytes: Vec<u8> = read.chars().map(|c| c as u32 as u8).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn two_inits_at_once_make_one_agent_and_the_loser_waits_or_names_the_holder() {
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let ns = unique("cfrace");
    // The signing takes a while: the two runs overlap for sure.
    fake.slow(
        "POST /api/custom_clusters/signServerCerts",
        Duration::from_secs(4),
        2,
    );
    let (home_a, home_b, home_c) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    // Two at the same moment, each on a terminal: the loser waits.
    let (cmd_a, cmd_b) = (
        init_command(cp, &fake, home_a.path(), &ns),
        init_command(cp, &fake, home_b.path(), &ns),
    );
    let (mut a, mut b) = (Terminal::start(cmd_a), Terminal::start(cmd_b));
    until("the first agent", || !fake.agents().is_empty()).await;

    // A third without a terminal stops at once, naming the holder.
    let third = init_command(cp, &fake, home_c.path(), &ns)
        .output()
        .unwrap();
    let said = text(&third);
    assert_eq!(third.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!("another run holds the lock of namespace {ns}"))
            && said.contains("`cf-runner init` of")
            && said.contains(", since 20"),
        "{said}"
    );
    // `info` takes no lock and says who holds it.
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
    assert_eq!(info.status.code(), Some(0), "{}", text(&info));
    assert!(
        text(&info).contains(&format!(
            "is changing the install in namespace {ns} now (it holds the lock)"
        )) && text(&info).contains("`cf-runner init` of"),
        "{}",
        text(&info)
    );

    let (code_a, code_b) = (a.finish(), b.finish());
    assert_eq!((code_a, code_b), (0, 0), "{}\n---\n{}", a.seen, b.seen);
    let waited: Vec<&String> = [&a.seen, &b.seen]
        .into_iter()
        .filter(|s| s.contains("waiting for it,") && s.contains("left (--timeout)"))
        .collect();
    assert_eq!(waited.len(), 1, "{}\n---\n{}", a.seen, b.seen);
    // The loser found the winner's install and made nothing anew.
    assert!(
        waited[0].contains("reused from the earlier install"),
        "{}",
        waited[0]
    );

    let agents = fake.agents();
    assert_eq!(agents.len(), 1, "{agents:#?}");
    assert_eq!(agents[0]["name"], format!("{CONTEXT}_{ns}").as_str());
    assert_eq!(count(&fake, "POST /api/agents"), 1);
    assert_eq!(count(&fake, "POST /api/custom_clusters/signServerCerts"), 1);
    assert_eq!(count(&fake, "POST /api/custom_clusters/register"), 1);
    assert_eq!(count(&fake, "POST /api/clusters/local/cluster"), 1);
    assert_eq!(fake.clusters().len(), 1);
    assert_eq!(fake.runtimes().len(), 1);
    // The loser's run wrote nothing on the platform: one spec, one attach.
    assert_eq!(count(&fake, "PUT /api/runtime-environments/"), 1);
    assert_eq!(count(&fake, "PUT /api/agent/"), 1);
    // The agent token in the cluster is the one agent's.
    let secrets: Api<Secret> = Api::namespaced(cp.client(), &ns);
    assert!(secrets.get_opt("runner").await.unwrap().is_some());
    assert!(lease(cp, &ns).await.is_none(), "the lock was not released");
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn init_racing_delete_ends_in_one_or_the_other_never_half() {
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let ns = unique("cfdelrace");
    let home = tempfile::tempdir().unwrap();
    let first = init_command(cp, &fake, home.path(), &ns).output().unwrap();
    assert_eq!(first.status.code(), Some(0), "{}", text(&first));
    let agent = format!("{CONTEXT}_{ns}");
    let runtime = format!("{CONTEXT}/{ns}");

    // A second agent on the install's runtime, as an unlocked race left it.
    let http = reqwest::Client::new();
    let stray: serde_json::Value = http
        .post(format!("{}/api/agents", fake.url()))
        .header("Authorization", USER_TOKEN)
        .json(&serde_json::json!({ "name": format!("{agent}_1") }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let attached = http
        .put(format!(
            "{}/api/agent/{}",
            fake.url(),
            stray["id"].as_str().unwrap()
        ))
        .header("Authorization", USER_TOKEN)
        .json(&serde_json::json!({ "runtimes": [runtime] }))
        .send()
        .await
        .unwrap();
    assert!(attached.status().is_success());

    // delete first (slowed on the platform), init while it runs.
    fake.slow(
        "DELETE /api/runtime-environments/",
        Duration::from_secs(4),
        1,
    );
    let deleting = started(delete_command(cp, &fake, home.path(), &ns));
    until("the delete at the platform", || {
        fake.faults_left("DELETE /api/runtime-environments/") == 0
    })
    .await;
    let init = init_command(cp, &fake, home.path(), &ns).output().unwrap();
    let deleted = deleting.wait_with_output().unwrap();
    let (said_init, said_delete) = (text(&init), text(&deleted));
    assert_eq!(deleted.status.code(), Some(0), "{said_delete}");
    assert_eq!(init.status.code(), Some(1), "{said_init}");
    assert!(said_init.contains("`cf-runner delete` of"), "{said_init}");
    // The stray agent was named in the plan, and removed.
    assert!(
        said_delete.contains(&format!("also on the platform: agent(s) {agent}_1"))
            && said_delete.contains(&format!("deleted    agent {agent}_1")),
        "{said_delete}"
    );
    // All gone: nothing half there.
    assert!(fake.agents().is_empty(), "{:?}", fake.agents());
    assert!(fake.runtimes().is_empty(), "{:?}", fake.runtimes());
    let secrets: Api<Secret> = Api::namespaced(cp.client(), &ns);
    for name in ["runner", "cf-runner-values"] {
        assert!(
            secrets.get_opt(name).await.unwrap().is_none(),
            "Secret/{name} is left: {said_delete}\n{said_init}"
        );
    }
    assert!(lease(cp, &ns).await.is_none());

    // init first (slowed), delete while it runs: the install is whole.
    fake.slow(
        "POST /api/custom_clusters/signServerCerts",
        Duration::from_secs(4),
        1,
    );
    let installing = started(init_command(cp, &fake, home.path(), &ns));
    until("the signing", || {
        fake.faults_left("POST /api/custom_clusters/signServerCerts") == 0
    })
    .await;
    let delete = delete_command(cp, &fake, home.path(), &ns)
        .output()
        .unwrap();
    let installed = installing.wait_with_output().unwrap();
    assert_eq!(installed.status.code(), Some(0), "{}", text(&installed));
    assert_eq!(delete.status.code(), Some(1), "{}", text(&delete));
    assert!(
        text(&delete).contains("`cf-runner init` of"),
        "{}",
        text(&delete)
    );
    assert_eq!(fake.agents().len(), 1, "{:?}", fake.agents());
    assert_eq!(fake.agents()[0]["runtimes"][0], runtime.as_str());
    assert_eq!(fake.runtimes().len(), 1);
    assert!(secrets.get_opt("cf-runner-values").await.unwrap().is_some());
    assert!(lease(cp, &ns).await.is_none());
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_lock_left_by_a_killed_run_is_taken_over_once_it_expires() {
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let ns = unique("cfkilled");
    // The first run hangs at the signing, after its agent is saved.
    fake.slow(
        "POST /api/custom_clusters/signServerCerts",
        Duration::from_secs(120),
        1,
    );
    let home = tempfile::tempdir().unwrap();
    let mut first = init_command(cp, &fake, home.path(), &ns);
    first.env("CF_RUNNER_LOCK_LEASE_SECONDS", "6");
    let mut first = started(first);
    let secrets: Api<Secret> = Api::namespaced(cp.client(), &ns);
    poll_until(
        "the first run's agent saved, and its signing asked for",
        Duration::from_secs(60),
        || async {
            Ok(!fake.agents().is_empty()
                && secrets.get_opt("runner").await?.is_some()
                && fake.faults_left("POST /api/custom_clusters/signServerCerts") == 0)
        },
    )
    .await
    .unwrap();
    unsafe { libc::kill(first.id() as i32, libc::SIGKILL) };
    first.wait().unwrap();
    // As if that run had been on another machine: this one cannot see its
    // process, so only the lease's expiry tells it is gone.
    let leases: Api<Lease> = Api::namespaced(cp.client(), &ns);
    let elsewhere = serde_json::json!({"metadata": {"annotations": {
        "cf-runner.codefresh.io/lock-process-space": "another-machine"}}});
    leases
        .patch(
            LEASE,
            &kube::api::PatchParams::default(),
            &kube::api::Patch::Merge(&elsewhere),
        )
        .await
        .unwrap();

    // Before it expires, a run without a terminal stops, naming the holder.
    let mut early = init_command(cp, &fake, home.path(), &ns);
    early.env("CF_RUNNER_LOCK_LEASE_SECONDS", "6");
    let early = early.output().unwrap();
    assert_eq!(early.status.code(), Some(1), "{}", text(&early));
    assert!(
        text(&early).contains("`cf-runner init` of"),
        "{}",
        text(&early)
    );

    // Once the lease has gone unrenewed for its duration, the next run
    // takes it over, says so, and finishes the install with the same agent.
    tokio::time::sleep(Duration::from_secs(7)).await;
    let mut next = init_command(cp, &fake, home.path(), &ns);
    next.env("CF_RUNNER_LOCK_LEASE_SECONDS", "6");
    let next = next.output().unwrap();
    let said = text(&next);
    assert_eq!(next.status.code(), Some(0), "{said}");
    assert!(
        said.contains(&format!(
            "took over the lock of namespace {ns} from `cf-runner init` of"
        )) && said.contains("that run is gone"),
        "{said}"
    );
    assert!(said.contains("reused from the earlier install"), "{said}");
    assert_eq!(fake.agents().len(), 1, "{:?}", fake.agents());
    assert_eq!(fake.runtimes().len(), 1);
    assert!(lease(cp, &ns).await.is_none());
}

/// The lock's namespace is made, by cf-runner's apply, when it is missing;
/// one that exists is never changed: someone else's keeps its labels, its
/// managers and its version; cf-runner's is found as it is.
#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn the_locks_namespace_is_made_when_missing_and_an_existing_one_is_left_alone() {
    use cf_runner::cluster::lock::ensure_namespace;
    use k8s_openapi::api::core::v1::Namespace;
    use kube::api::PostParams;

    let cp = controlplane::shared();
    let client = cp.client();
    let namespaces: Api<Namespace> = Api::all(client.clone());
    let manifest = |name: &str| {
        support::objects::namespace_manifest(name, &[("cf-runner.test/made", "by-cf-runner")])
    };
    let managers = |ns: &Namespace| support::objects::managers(&ns.metadata);

    // A new namespace: made, by cf-runner's apply, with the manifest's labels.
    let fresh = unique("cfnsnew");
    assert!(ensure_namespace(&client, &manifest(&fresh)).await.unwrap());
    let made = namespaces.get(&fresh).await.unwrap();
    assert_eq!(
        made.metadata.labels.as_ref().unwrap()["cf-runner.test/made"],
        "by-cf-runner"
    );
    assert!(
        managers(&made).contains(&("cf-runner".into(), "Apply".into())),
        "{:?}",
        managers(&made)
    );
    assert_ne!(
        made.metadata.uid.as_deref(),
        Some("00000000-0000-0000-0000-000000000000"),
        "the server gives its own uid"
    );
    // Found again: not made, not changed.
    let version = made.metadata.resource_version.clone();
    assert!(!ensure_namespace(&client, &manifest(&fresh)).await.unwrap());
    let again = namespaces.get(&fresh).await.unwrap();
    assert_eq!(again.metadata.resource_version, version);

    // Someone else's namespace, made by a plain create: left exactly as it is.
    let theirs = unique("cfnstheirs");
    let mut foreign = Namespace::default();
    foreign.metadata.name = Some(theirs.clone());
    foreign.metadata.labels = Some([("team".to_string(), "payments".to_string())].into());
    namespaces
        .create(
            &PostParams {
                field_manager: Some("someone-else".into()),
                ..Default::default()
            },
            &foreign,
        )
        .await
        .unwrap();
    let before = namespaces.get(&theirs).await.unwrap();
    assert!(!ensure_namespace(&client, &manifest(&theirs)).await.unwrap());
    let after = namespaces.get(&theirs).await.unwrap();
    assert_eq!(
        after.metadata.resource_version, before.metadata.resource_version,
        "someone else's namespace was written"
    );
    assert_eq!(after.metadata.labels, before.metadata.labels);
    assert_eq!(managers(&after), managers(&before));
    assert!(!managers(&after).iter().any(|(m, _)| m == "cf-runner"));
}

/// A renewal still in flight when a run ends may land after the run last
/// read its Lease: the run's release must delete the Lease at that newer
/// version (it is still the run's own), and leave one that another run has
/// written since. Before, any changed version counted as another run's, and
/// the lock stayed behind until it expired (seen once under load in
/// `e2e_install_thread`).
#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_renewal_landing_as_the_run_ends_does_not_leave_the_lock_behind() {
    use cf_runner::cluster::lock::{Attempt, Holder, Taker};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
    use kube::api::PostParams;

    let cp = controlplane::shared();
    let ns = cp.create_namespace("cfrelease").await.unwrap();
    let api: Api<Lease> = Api::namespaced(cp.client(), &ns);
    for other_holder in [false, true] {
        let mut taker = Taker::new(
            &cp.client(),
            &ns,
            Holder::me("init"),
            Duration::from_secs(60),
        );
        let Attempt::Taken(lock, _) = taker.attempt().await.unwrap() else {
            panic!("the lock of {ns} was not taken");
        };
        // The write the run did not see: its own renewal, or another run's.
        let mut written = api.get(LEASE).await.unwrap();
        written.metadata.managed_fields = None;
        let spec = written.spec.as_mut().unwrap();
        spec.renew_time = Some(MicroTime(k8s_openapi::jiff::Timestamp::now()));
        if other_holder {
            spec.holder_identity = Some("someone@elsewhere pid 1 (cf-runner init)".into());
        }
        api.replace(LEASE, &PostParams::default(), &written)
            .await
            .unwrap();

        lock.release().await.unwrap();
        let left = api.get_opt(LEASE).await.unwrap();
        if other_holder {
            let left = left.expect("another run's lock was deleted");
            assert_eq!(
                left.spec.unwrap().holder_identity.as_deref(),
                Some("someone@elsewhere pid 1 (cf-runner init)")
            );
            api.delete(LEASE, &Default::default()).await.unwrap();
        } else {
            assert!(
                left.is_none(),
                "the run's own lock was left behind after a renewal it did not see: {left:?}"
            );
        }
    }
}
