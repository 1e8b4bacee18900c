//! The order of an install's steps, against a fake platform and a fake
//! cluster that write every call into one shared log. The end-to-end suite
//! runs the same steps against the real ones.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::app::identity::agent::{
    candidates, ensure_agent, ensure_runtime, AgentSource, RuntimeSource,
};
use crate::app::identity::registrar::Registrar;
use crate::app::install::offline;
use crate::app::install::registered::registered;
use crate::app::install::seams::Target;
use crate::app::install::steps::Options;
use crate::app::installation::{DindCerts, LeftBehind};
use crate::app::session::lock::LockWait;
use crate::app::session::outcome::Outcome;
use crate::output;
use crate::platform::{
    self, Agent, Auth, KeySubject, PlatformError, RegisterRuntime, TokenSource, Transport, Whoami,
};
use crate::render::{self, Manifest};
use crate::values::{self, Secret};

/// Every call to either fake, in the order it happened.
type Log = Rc<RefCell<Vec<String>>>;

fn note(log: &Log, line: String) {
    log.borrow_mut().push(line);
}

fn refused(call: &str) -> PlatformError {
    PlatformError::Status {
        call: call.into(),
        status: 500,
        message: "refused by the test".into(),
    }
}

fn agent(name: &str, runtimes: &[&str]) -> Agent {
    Agent {
        id: format!("id-{name}"),
        name: name.to_string(),
        runtimes: runtimes.iter().map(|r| r.to_string()).collect(),
        token: Some("new-agent-token".into()),
        status: None,
    }
}

/// A runtime environment as the platform shows it: registered for a
/// cluster context and a namespace.
fn runtime_of(context: &str, namespace: &str) -> Value {
    json!({"accountId": "acc-1", "runtimeScheduler": {"cluster": {"namespace": namespace,
        "clusterProvider": {"selector": context}}}})
}

/// A platform that answers from what it holds, keeps what it is given,
/// and fails the one call named in `fail`.
#[derive(Default)]
struct FakePlatform {
    agents: RefCell<Vec<Agent>>,
    runtimes: RefCell<Vec<(String, Value)>>,
    clusters: RefCell<Vec<String>>,
    fail: Option<&'static str>,
    log: Log,
}

impl FakePlatform {
    fn call(&self, what: &str, line: String) -> Result<(), PlatformError> {
        note(&self.log, format!("platform: {line}"));
        match self.fail {
            Some(f) if f == what => Err(refused(what)),
            _ => Ok(()),
        }
    }
}

impl Registrar for FakePlatform {
    fn url(&self) -> &str {
        "https://platform.test"
    }
    async fn key_subject(&self, _token: &Secret) -> Result<Option<KeySubject>, PlatformError> {
        self.call("key_subject", "key_subject".into())?;
        Ok(self.agents.borrow().first().map(|a| KeySubject {
            kind: "agent".into(),
            reference: a.id.clone(),
        }))
    }
    async fn agent(&self, id: &str) -> Result<Option<Agent>, PlatformError> {
        self.call("agent", format!("agent {id}"))?;
        Ok(self.agents.borrow().iter().find(|a| a.id == id).cloned())
    }
    async fn agents_named(&self, name: &str) -> Result<Vec<Agent>, PlatformError> {
        self.call("agents_named", format!("agents_named {name}"))?;
        Ok(self
            .agents
            .borrow()
            .iter()
            .filter(|a| a.name == name)
            .cloned()
            .collect())
    }
    async fn create_agent(&self, name: &str) -> Result<Agent, PlatformError> {
        self.call("create_agent", format!("create_agent {name}"))?;
        let made = agent(name, &[]);
        self.agents.borrow_mut().push(made.clone());
        Ok(made)
    }
    async fn update_agent(&self, agent: &Agent, runtimes: &[String]) -> Result<(), PlatformError> {
        self.call(
            "update_agent",
            format!(
                "update_agent {} runtimes={}",
                agent.name,
                runtimes.join(",")
            ),
        )
    }
    async fn sign_server_certs(
        &self,
        csr_pem: &str,
        _sans: &str,
    ) -> Result<(String, String), PlatformError> {
        assert!(csr_pem.contains("CERTIFICATE REQUEST"), "{csr_pem}");
        self.call("sign_server_certs", "sign_server_certs".into())?;
        Ok(("ca".into(), "-----BEGIN CERTIFICATE-----".into()))
    }
    async fn runtime(&self, name: &str) -> Result<Option<Value>, PlatformError> {
        self.call("runtime", format!("runtime {name}"))?;
        Ok(self
            .runtimes
            .borrow()
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, re)| re.clone()))
    }
    async fn register_runtime(&self, request: &RegisterRuntime) -> Result<(), PlatformError> {
        self.call(
            "register_runtime",
            format!("register_runtime {}", request.runtime_environment_name),
        )?;
        self.runtimes.borrow_mut().push((
            request.runtime_environment_name.clone(),
            runtime_of(&request.cluster_name, &request.namespace),
        ));
        Ok(())
    }
    async fn put_runtime(&self, name: &str, spec: &Value) -> Result<(), PlatformError> {
        let account = spec.get("accountId").and_then(Value::as_str).unwrap_or("");
        self.call(
            "put_runtime",
            format!("put_runtime {name} account={account}"),
        )
    }
    async fn set_default_runtime(&self, name: &str) -> Result<(), PlatformError> {
        self.call("set_default_runtime", format!("set_default_runtime {name}"))
    }
    async fn clusters(&self) -> Result<Vec<Value>, PlatformError> {
        self.call("clusters", "clusters".into())?;
        Ok(self
            .clusters
            .borrow()
            .iter()
            .map(|c| json!({"selector": c}))
            .collect())
    }
    async fn create_cluster_integration(
        &self,
        selector: &str,
        host: &str,
        _token_b64: &str,
        _ca_b64: &str,
    ) -> Result<(), PlatformError> {
        self.call(
            "create_cluster_integration",
            format!("create_cluster_integration {selector} {host}"),
        )?;
        self.clusters.borrow_mut().push(selector.to_string());
        Ok(())
    }
    async fn ensure_demo_pipeline(&self, runtime: &str) -> Result<String, PlatformError> {
        self.call(
            "ensure_demo_pipeline",
            format!("ensure_demo_pipeline {runtime}"),
        )?;
        Ok("demo".into())
    }
    async fn run_pipeline(&self, name: &str, runtime: &str) -> Result<String, PlatformError> {
        self.call("run_pipeline", format!("run_pipeline {name} {runtime}"))?;
        Ok("build-1".into())
    }
}

/// A connected cluster, context `ctx`, that holds what an earlier install
/// left and fails the one step named in `fail`.
struct FakeCluster {
    left: RefCell<Option<LeftBehind>>,
    fail: Option<&'static str>,
    log: Log,
}

impl FakeCluster {
    fn step(&self, what: &str, line: String) -> Result<(), Outcome> {
        note(&self.log, format!("cluster: {line}"));
        match self.fail {
            Some("preflight") if what == "preflight" => Err(Outcome::PreflightFailed),
            Some(f) if f == what => Err(Outcome::failed(
                anyhow::anyhow!("{what} refused by the test"),
                Some(format!("fix {what}")),
            )),
            _ => Ok(()),
        }
    }
}

fn names(manifests: &[Manifest]) -> String {
    manifests
        .iter()
        .map(|m| format!("{}/{}", m.kind, m.name))
        .collect::<Vec<_>>()
        .join(" ")
}

impl Target for FakeCluster {
    fn context(&self) -> &str {
        "ctx"
    }
    fn server(&self) -> &str {
        "https://cluster.test:6443/"
    }
    async fn preflight(
        &self,
        rendered: &render::Rendered,
        namespace: &str,
    ) -> Result<crate::cluster::lock::NamespaceSeen, Outcome> {
        assert!(!rendered.manifests.is_empty());
        self.step("preflight", format!("preflight {namespace}"))
            .map(|()| crate::cluster::lock::NamespaceSeen::Unknown)
    }
    async fn lock(
        &self,
        _namespace: &str,
        _namespace_manifest: Option<&Manifest>,
        _how: LockWait,
        _seen: crate::cluster::lock::NamespaceSeen,
    ) -> Result<Option<crate::cluster::lock::Lock>, Outcome> {
        Ok(None)
    }
    async fn unlock(&self, _lock: Option<crate::cluster::lock::Lock>, _namespace: &str) {}
    async fn left_behind(&self, namespace: &str) -> Result<LeftBehind, Outcome> {
        self.step("left_behind", format!("left_behind {namespace}"))?;
        Ok(self.left.borrow_mut().take().unwrap_or_default())
    }
    async fn save(
        &self,
        manifests: &[Manifest],
        _namespace: &str,
        _force_conflicts: bool,
    ) -> Result<(), Outcome> {
        self.step("save", format!("save {}", names(manifests)))
    }
    async fn apply(
        &self,
        manifests: &[Manifest],
        namespace: &str,
        _force_conflicts: bool,
    ) -> Result<(), Outcome> {
        let all = manifests.len() > 10;
        self.step(
            "apply",
            format!("apply into {namespace}, all objects: {all}"),
        )
    }
    async fn wait(&self, _manifests: &[Manifest], timeout: Duration) -> Result<(), Outcome> {
        self.step("wait", format!("wait {}s", timeout.as_secs()))
    }
    async fn service_account_token(
        &self,
        _namespace: &str,
        secret: &str,
        _timeout: Duration,
    ) -> Result<Option<(String, String)>, Outcome> {
        self.step("token", format!("token {secret}"))?;
        Ok(Some(("dG9rZW4=".into(), "Y2E=".into())))
    }
}

/// An install's inputs: values from `overrides` (Namespace `ci` unless set).
fn loaded(overrides: &[(&str, Value)]) -> values::Loaded {
    let mut all = vec![("Namespace".to_string(), Value::String("ci".into()))];
    all.extend(overrides.iter().map(|(k, v)| (k.to_string(), v.clone())));
    let input = values::Input {
        overrides: all,
        ..Default::default()
    };
    values::load(&input).expect("the values load")
}

fn options() -> Options {
    Options {
        force_conflicts: false,
        wait: Some(Duration::from_secs(300)),
        transport: Transport::default(),
        lock_wait: LockWait {
            wait: None,
            by_flag: true,
        },
    }
}

fn auth() -> Auth {
    Auth {
        token: Secret::new("api-key"),
        source: TokenSource::Flag,
        url: "https://platform.test".into(),
    }
}

fn who() -> Whoami {
    Whoami {
        user: None,
        account_name: Some("acme".into()),
        account_id: Some("acc-1".into()),
        via: "GET /api/user",
    }
}

/// What an earlier, complete install left in the cluster.
fn earlier_install() -> LeftBehind {
    LeftBehind {
        agent_name: Some("ctx_ci".into()),
        runtime_name: Some("ctx/ci".into()),
        agent_token: Some(Secret::new("saved-token")),
        dind: DindCerts {
            ca: Some(Secret::new("ca")),
            cert: Some(Secret::new("-----BEGIN CERTIFICATE-----")),
            key: Some(Secret::new("-----BEGIN PRIVATE KEY-----")),
        },
    }
}

/// Connecting to the fake cluster, noted in `log`.
fn connector(
    log: &Log,
    left: Option<LeftBehind>,
    fail: Option<&'static str>,
) -> impl AsyncFnOnce() -> Result<FakeCluster, Outcome> {
    let log = log.clone();
    async move || {
        note(&log, "cluster: connect".into());
        Ok(FakeCluster {
            left: RefCell::new(left),
            fail,
            log,
        })
    }
}

/// A registered install (`init` with an API token) against the fakes:
/// its outcome, what it printed, and the shared log.
fn run_registered(
    platform: FakePlatform,
    left: LeftBehind,
    cluster_fails: Option<&'static str>,
    loaded: &values::Loaded,
    options: &Options,
) -> (Outcome, output::Captured, Vec<String>) {
    let log = platform.log.clone();
    let connect = connector(&log, Some(left), cluster_fails);
    let (outcome, printed) = output::capture(|| {
        futures::executor::block_on(registered(
            options,
            loaded,
            &platform,
            &who(),
            &auth(),
            connect,
        ))
    });
    let calls = log.borrow().clone();
    (outcome, printed, calls)
}

/// The record, the runner Secret (the agent token) and their Namespace,
/// saved on their own.
const SAVE_RECORD: &str = "cluster: save Namespace/ci Secret/cf-runner-values Secret/runner";

fn hint_of(outcome: &Outcome) -> &str {
    match outcome {
        Outcome::Failed(_, Some(hint)) => hint,
        other => panic!("expected a failure with a hint, got {other:?}"),
    }
}

/// The whole first install, in order: the cluster is checked before the
/// platform creates anything, the new agent's token is saved in the cluster
/// before the next platform call, the record names the runtime before the
/// install is applied, and the platform gets the spec only after the apply.
#[test]
fn a_first_install_runs_every_step_in_order() {
    let (outcome, printed, calls) = run_registered(
        FakePlatform::default(),
        LeftBehind::default(),
        None,
        &loaded(&[]),
        &options(),
    );
    assert!(matches!(outcome, Outcome::Ok), "{outcome:?}");
    assert_eq!(
        calls,
        [
            "cluster: connect",
            "cluster: preflight ci",
            "cluster: left_behind ci",
            "platform: agents_named ctx_ci",
            "platform: create_agent ctx_ci",
            SAVE_RECORD,
            "platform: sign_server_certs",
            "platform: runtime ctx/ci",
            "platform: register_runtime ctx/ci",
            SAVE_RECORD,
            "cluster: apply into ci, all objects: true",
            "platform: update_agent ctx_ci runtimes=ctx/ci",
            "platform: runtime ctx/ci",
            "platform: put_runtime ctx/ci account=acc-1",
            "platform: clusters",
            "cluster: token codefresh-cluster-reader-token",
            "platform: create_cluster_integration ctx https://cluster.test:6443",
            "cluster: wait 300s",
        ]
    );
    for line in [
        "Installing the Codefresh Runner into namespace ci of context ctx",
        "agent ctx_ci created",
        "runtime environment ctx/ci registered",
        "runtime environment ctx/ci attached to agent ctx_ci",
        "the runner is running in namespace ci",
        "runtime-environments?runtime=ctx%2Fci",
    ] {
        assert!(
            printed.stdout.contains(line) || printed.stderr.contains(line),
            "{line:?} not in:\n{}{}",
            printed.stdout,
            printed.stderr
        );
    }
}

/// A re-run over a complete install creates nothing on the platform and
/// signs nothing: it saves the record, applies, sends the spec and waits.
#[test]
fn a_rerun_creates_nothing_twice() {
    let platform = FakePlatform {
        agents: RefCell::new(vec![agent("ctx_ci", &["ctx/ci"])]),
        runtimes: RefCell::new(vec![("ctx/ci".into(), runtime_of("ctx", "ci"))]),
        clusters: RefCell::new(vec!["ctx".into()]),
        ..Default::default()
    };
    let (outcome, printed, calls) =
        run_registered(platform, earlier_install(), None, &loaded(&[]), &options());
    assert!(matches!(outcome, Outcome::Ok), "{outcome:?}");
    assert_eq!(
        calls,
        [
            "cluster: connect",
            "cluster: preflight ci",
            "cluster: left_behind ci",
            "platform: agents_named ctx_ci",
            "platform: runtime ctx/ci",
            SAVE_RECORD,
            "cluster: apply into ci, all objects: true",
            "platform: runtime ctx/ci",
            "platform: put_runtime ctx/ci account=acc-1",
            "platform: clusters",
            "cluster: wait 300s",
        ]
    );
    assert!(printed
        .stdout
        .contains("agent ctx_ci reused from the earlier install"));
    assert!(printed
        .stdout
        .contains("dind TLS certificate reused from the earlier install"));
}

/// A failed apply says what the run made on the platform and how to go on;
/// nothing after the apply happens.
#[test]
fn a_failed_apply_says_what_the_run_left_on_the_platform() {
    let (outcome, _, calls) = run_registered(
        FakePlatform::default(),
        LeftBehind::default(),
        Some("apply"),
        &loaded(&[]),
        &options(),
    );
    let hint = hint_of(&outcome);
    assert!(hint.starts_with("fix apply\n"), "{hint}");
    assert!(
        hint.contains("agent ctx_ci (created by this run) and runtime environment ctx/ci (registered by this run)"),
        "{hint}"
    );
    assert!(hint.contains("Re-running the same `cf-runner init` continues"));
    assert_eq!(
        calls.last().map(String::as_str),
        Some("cluster: apply into ci, all objects: true")
    );
}

/// When the new agent's token cannot be saved in the cluster, the run stops
/// before the platform is asked for anything more, and says that a re-run
/// cannot continue with that agent.
#[test]
fn an_agent_token_not_saved_stops_the_run_and_says_to_remove_the_agent() {
    let (outcome, _, calls) = run_registered(
        FakePlatform::default(),
        LeftBehind::default(),
        Some("save"),
        &loaded(&[]),
        &options(),
    );
    let hint = hint_of(&outcome);
    assert!(
        hint.contains("agent ctx_ci (created by this run)"),
        "{hint}"
    );
    assert!(hint.contains("could not be saved in the cluster"), "{hint}");
    assert!(hint.contains("remove the agent in Codefresh"), "{hint}");
    assert_eq!(calls.last().map(String::as_str), Some(SAVE_RECORD));
    assert!(!calls.iter().any(|c| c.contains("sign_server_certs")));
}

/// A failed preflight stops the install before the platform is asked to
/// create anything, and the failure names nothing on the platform.
#[test]
fn a_failed_preflight_creates_nothing_on_the_platform() {
    let (outcome, _, calls) = run_registered(
        FakePlatform::default(),
        LeftBehind::default(),
        Some("preflight"),
        &loaded(&[]),
        &options(),
    );
    assert!(matches!(outcome, Outcome::PreflightFailed), "{outcome:?}");
    assert_eq!(calls, ["cluster: connect", "cluster: preflight ci"]);
}

/// `--agent-token` is checked with the platform before the cluster is
/// touched; its agent is used as it is.
#[test]
fn the_agent_token_is_checked_before_the_cluster_is_touched() {
    let platform = FakePlatform {
        agents: RefCell::new(vec![agent("given", &[])]),
        ..Default::default()
    };
    let values = loaded(&[("AgentToken", Value::String("agent-token".into()))]);
    let (outcome, printed, calls) =
        run_registered(platform, LeftBehind::default(), None, &values, &options());
    assert!(matches!(outcome, Outcome::Ok), "{outcome:?}");
    assert_eq!(
        calls[..4],
        [
            "platform: key_subject",
            "platform: agent id-given",
            "cluster: connect",
            "cluster: preflight ci",
        ]
    );
    assert!(!calls.iter().any(|c| c.contains("create_agent")));
    assert!(printed
        .stdout
        .contains("agent given reused (--agent-token, verified)"));
}

/// `SkipClusterTest`, `SkipClusterIntegration` and `--no-wait` each leave
/// out their step and nothing else; `SetDefaultRuntime` and
/// `ExecDemoPipeline` add theirs after the spec is sent.
#[test]
fn values_leave_out_or_add_their_steps_and_no_others() {
    let values = loaded(&[
        ("SkipClusterTest", Value::Bool(true)),
        ("SkipClusterIntegration", Value::Bool(true)),
        ("SetDefaultRuntime", Value::Bool(true)),
        ("ExecDemoPipeline", Value::Bool(true)),
    ]);
    let no_wait = Options {
        wait: None,
        ..options()
    };
    let (outcome, printed, calls) = run_registered(
        FakePlatform::default(),
        LeftBehind::default(),
        None,
        &values,
        &no_wait,
    );
    assert!(matches!(outcome, Outcome::Ok), "{outcome:?}");
    let after_apply: Vec<&str> = calls
        .iter()
        .map(String::as_str)
        .skip_while(|c| !c.starts_with("cluster: apply"))
        .collect();
    assert_eq!(
        after_apply,
        [
            "cluster: apply into ci, all objects: true",
            "platform: update_agent ctx_ci runtimes=ctx/ci",
            "platform: runtime ctx/ci",
            "platform: put_runtime ctx/ci account=acc-1",
            "platform: set_default_runtime ctx/ci",
            "platform: ensure_demo_pipeline ctx/ci",
            "platform: run_pipeline demo ctx/ci",
        ]
    );
    assert!(!calls.iter().any(|c| c.contains("preflight")));
    assert!(printed
        .stdout
        .contains("Demo pipeline build: https://platform.test/build/build-1"));
}

/// Offline (only `--agent-token`): connect, preflight, apply, wait, and a
/// warning that nothing was verified.
#[test]
fn an_offline_install_never_reads_what_was_left_and_warns() {
    let log: Log = Rc::default();
    let connect = connector(&log, None, None);
    let values = loaded(&[("AgentToken", Value::String("agent-token".into()))]);
    let (outcome, printed) =
        output::capture(|| futures::executor::block_on(offline(&options(), &values, connect)));
    assert!(matches!(outcome, Outcome::Ok), "{outcome:?}");
    assert_eq!(
        *log.borrow(),
        [
            "cluster: connect",
            "cluster: preflight ci",
            "cluster: apply into ci, all objects: true",
            "cluster: wait 300s",
        ]
    );
    assert!(
        printed.stderr.contains("offline mode"),
        "{}",
        printed.stderr
    );
    assert!(printed
        .stderr
        .contains("the agent name ctx_ci and runtime environment name ctx/ci were NOT verified"));
}

#[test]
fn clash_suffixes_never_push_a_name_past_the_platform_limit() {
    let long = format!("{}/codefresh", "a-very-long-kube-context-name".repeat(3));
    assert!(long.chars().count() > platform::MAX_NAME_LEN);
    let names: Vec<String> = candidates(&long).collect();
    assert_eq!(names.len(), 20);
    for name in &names {
        assert!(name.chars().count() <= platform::MAX_NAME_LEN, "{name}");
    }
    assert!(names[1].ends_with("_1") && names[19].ends_with("_19"));
    assert_eq!(names[1].chars().count(), platform::MAX_NAME_LEN);
    // A short name is kept whole.
    let short: Vec<String> = candidates("ctx_ns").take(2).collect();
    assert_eq!(short, vec!["ctx_ns", "ctx_ns_1"]);
}

fn values(namespace: &str) -> values::Values {
    loaded(&[("Namespace", Value::String(namespace.into()))]).values
}

/// A re-run finds the agent the earlier run saved (its name in the
/// record, its token in the runner Secret) and creates none.
#[test]
fn a_rerun_reuses_the_saved_agent_and_creates_none() {
    let fake = FakePlatform {
        agents: RefCell::new(vec![agent("ctx_ci", &[])]),
        ..Default::default()
    };
    let left = LeftBehind {
        agent_name: Some("ctx_ci".into()),
        agent_token: Some(Secret::new("saved-token")),
        ..Default::default()
    };
    let (agent, token, source) = futures::executor::block_on(ensure_agent(
        &fake,
        &values("ci"),
        "ctx_ci",
        "ctx",
        &left,
        None,
    ))
    .unwrap_or_else(|o| panic!("{o:?}"));
    assert_eq!(source, AgentSource::EarlierInstall);
    assert_eq!(
        (agent.name.as_str(), token.expose()),
        ("ctx_ci", "saved-token")
    );
    assert_eq!(*fake.log.borrow(), ["platform: agents_named ctx_ci"]);
}

/// A first install looks each candidate name up before it creates the
/// agent under the first free one.
#[test]
fn a_new_agent_is_created_under_the_first_free_name_after_looking() {
    let fake = FakePlatform {
        agents: RefCell::new(vec![agent("ctx_ci", &[])]),
        ..Default::default()
    };
    let (agent, token, source) = futures::executor::block_on(ensure_agent(
        &fake,
        &values("ci"),
        "ctx_ci",
        "ctx",
        &LeftBehind::default(),
        None,
    ))
    .unwrap_or_else(|o| panic!("{o:?}"));
    assert_eq!(source, AgentSource::Created);
    assert_eq!(
        (agent.name.as_str(), token.expose()),
        ("ctx_ci_1", "new-agent-token")
    );
    assert_eq!(
        *fake.log.borrow(),
        [
            "platform: agents_named ctx_ci",
            "platform: agents_named ctx_ci_1",
            "platform: create_agent ctx_ci_1"
        ]
    );
}

/// An agent the platform lists with this install's runtime is this
/// install's: without its token the run stops naming it, and never makes
/// a second agent (`ctx_ci_1`) for the same runtime. One serving another
/// install's runtime is skipped, as before.
#[test]
fn an_agent_serving_this_installs_runtime_is_never_doubled() {
    let fake = FakePlatform {
        agents: RefCell::new(vec![agent("ctx_ci", &["ctx/ci"])]),
        runtimes: RefCell::new(vec![("ctx/ci".into(), runtime_of("ctx", "ci"))]),
        ..Default::default()
    };
    let refused = futures::executor::block_on(ensure_agent(
        &fake,
        &values("ci"),
        "ctx_ci",
        "ctx",
        &LeftBehind::default(),
        None,
    ));
    let Err(Outcome::Failed(err, Some(hint))) = refused else {
        panic!("not refused: {:?}", refused.map(|(a, _, s)| (a.name, s)));
    };
    assert!(
        err.to_string()
            .contains("agent ctx_ci on the Codefresh platform serves runtime environment ctx/ci of this install"),
        "{err}"
    );
    assert!(hint.contains("--agent-token"), "{hint}");
    assert!(
        !fake.log.borrow().iter().any(|l| l.contains("create_agent")),
        "{:?}",
        fake.log.borrow()
    );

    let elsewhere = FakePlatform {
        agents: RefCell::new(vec![agent("ctx_ci", &["ctx/other"])]),
        runtimes: RefCell::new(vec![("ctx/other".into(), runtime_of("ctx", "other"))]),
        ..Default::default()
    };
    let (made, _, source) = futures::executor::block_on(ensure_agent(
        &elsewhere,
        &values("ci"),
        "ctx_ci",
        "ctx",
        &LeftBehind::default(),
        None,
    ))
    .unwrap_or_else(|o| panic!("{o:?}"));
    assert_eq!(
        (made.name.as_str(), source),
        ("ctx_ci_1", AgentSource::Created)
    );
}

/// A runtime registered for this cluster and namespace is reused; one
/// of another namespace is skipped, never taken over.
#[test]
fn a_runtime_of_another_namespace_is_skipped_and_ours_is_reused() {
    let fake = FakePlatform {
        runtimes: RefCell::new(vec![
            ("ctx/ci".into(), runtime_of("ctx", "other")),
            ("ctx/ci_1".into(), runtime_of("ctx", "ci")),
        ]),
        ..Default::default()
    };
    let (name, source) = futures::executor::block_on(ensure_runtime(
        &fake,
        &values("ci"),
        "ctx",
        "ctx/ci",
        &LeftBehind::default(),
    ))
    .unwrap_or_else(|o| panic!("{o:?}"));
    assert_eq!((name.as_str(), source), ("ctx/ci_1", RuntimeSource::Reused));
    assert_eq!(
        *fake.log.borrow(),
        ["platform: runtime ctx/ci", "platform: runtime ctx/ci_1"]
    );

    let fresh = FakePlatform::default();
    let (name, source) = futures::executor::block_on(ensure_runtime(
        &fresh,
        &values("ci"),
        "ctx",
        "ctx/ci",
        &LeftBehind::default(),
    ))
    .unwrap_or_else(|o| panic!("{o:?}"));
    assert_eq!(
        (name.as_str(), source),
        ("ctx/ci", RuntimeSource::Registered)
    );
    assert_eq!(
        *fresh.log.borrow(),
        [
            "platform: runtime ctx/ci",
            "platform: register_runtime ctx/ci"
        ]
    );
}
