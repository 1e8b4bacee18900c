//! A fake Codefresh platform for the tests: an HTTP server on loopback with
//! the real API's paths, methods, status codes and payload shapes (PRODUCT.md
//! §5). It checks the `Authorization` header, signs CSRs with its own CA,
//! keeps state (agents, runtime environments, clusters, pipelines), records
//! every request, and can be told to fail (status codes, slow answers).
//! cf-runner talks to it exactly as to the real one: only `--url` differs.
//!
//! It also serves the agent's own calls (venona `pkg/codefresh/codefresh.go`):
//! `GET /api/agent/{name}/tasks` hands out the tasks a test queued
//! ([`FakePlatform::queue_task`], built from the registered runtime spec by
//! [`FakePlatform::create_pod_task`]), `PUT /api/agent/{name}/status` sets
//! the status `info` reads, and `POST .../tasks/{task}/statuses` records the
//! outcome. These take only that agent's token (from `POST /api/agents`),
//! with the agent's name (the chart's `AGENT_ID`) or id in the path.
//!
//! Paths, payloads and the fields it answers with follow the audit of the
//! real clients (`../shared/reference/platform-contract-audit.md`), not
//! cf-runner's code. Where the audit says the real server's behaviour is
//! unknown, a switch picks one possibility, so tests can cover each:
//! records with both `id` and `_id`, non-JSON 2xx bodies, a loose or
//! ignored `?name=` filter, scoped keys lacking a scope, `/api/user`
//! refused for scoped keys, revision checks on pipeline replace, "not
//! found" answered with a status other than 404, and whether deleting an
//! agent revokes its token.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use rcgen::{CertificateParams, CertificateSigningRequestParams, IsCa, Issuer, KeyPair, SanType};
use serde_json::{json, Value};

/// The account id the fake answers with.
pub const ACCOUNT_ID: &str = "5f048d85eb107d52b16c53ea";

/// One recorded request.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    /// Path and query, as sent.
    pub path: String,
    pub body: Value,
    /// True when the Authorization header held the valid token.
    pub authorized: bool,
    /// The status the fake answered with.
    pub status: u16,
    /// The `Accept` header, if sent.
    pub accept: Option<String>,
    /// The id of the agent whose token (from `POST /api/agents`) the
    /// `Authorization` header held, if any.
    pub agent: Option<String>,
    /// The `User-Agent` header, if sent.
    pub user_agent: Option<String>,
}

/// How `GET /api/agents?name=` filters (the real semantics are unknown).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NameFilter {
    /// Only the agent with exactly that name.
    #[default]
    Exact,
    /// Every agent whose name contains the text (a search box).
    Loose,
    /// The filter is ignored: every agent.
    Ignored,
}

/// What a 2xx of `POST /api/custom_clusters/register` and `POST
/// /api/clusters/local/cluster` carries (the real body is unknown).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Body2xx {
    #[default]
    Json,
    /// `text/plain` "OK".
    Text,
    /// No body at all.
    Empty,
}

/// A failure to inject: the next `times` requests whose `METHOD path` starts
/// with `prefix` get `status` (or are delayed by `delay` first).
#[derive(Debug, Clone)]
struct Fault {
    prefix: String,
    status: Option<u16>,
    delay: Option<Duration>,
    times: usize,
}

#[derive(Default)]
struct State {
    agents: Vec<Value>,
    runtimes: BTreeMap<String, Value>,
    default_runtime: Option<String>,
    clusters: Vec<Value>,
    projects: Vec<String>,
    pipelines: BTreeMap<String, Value>,
    builds: Vec<(String, String)>,
    requests: Vec<Recorded>,
    faults: Vec<Fault>,
    next_id: usize,
    name_filter: NameFilter,
    both_ids: bool,
    body_2xx: Body2xx,
    /// Scoped API keys: token → the scopes it has.
    scoped_keys: BTreeMap<String, Vec<String>>,
    refuse_user_for_scoped: bool,
    revision_check: bool,
    not_found_status: Option<u16>,
    /// Key id → (subject type, subject ref).
    key_subjects: BTreeMap<String, (String, String)>,
    /// `GET /api/execution-contexts/current` leaves out the account id
    /// (its fields are unknown).
    context_without_account: bool,
    /// Agent tokens handed out by `POST /api/agents`: token → agent id.
    agent_tokens: BTreeMap<String, String>,
    /// Whether `DELETE /api/agent/{id}` leaves the agent's token working
    /// (the real behaviour is unknown): the token then still authorizes
    /// the deleted agent's own calls, which find no tasks.
    deleted_agents_keep_tokens: bool,
    /// Agents deleted while [`State::deleted_agents_keep_tokens`] was on.
    deleted_agents: Vec<Value>,
    /// Tasks waiting for an agent's next poll, by agent id.
    tasks: BTreeMap<String, Vec<Value>>,
    /// Task statuses the agents reported: (agent id, task id, status).
    task_statuses: Vec<(String, String, Value)>,
    /// The validity of the certificates signed from now on, in seconds
    /// since the Unix epoch (`None`: rcgen's default, years ahead).
    cert_validity: Option<(u64, u64)>,
}

/// The running fake.
pub struct FakePlatform {
    addr: SocketAddr,
    token: String,
    state: Arc<Mutex<State>>,
    ca_pem: String,
}

struct Ca {
    issuer: Issuer<'static, KeyPair>,
    pem: String,
}

fn make_ca() -> Ca {
    let key = KeyPair::generate().unwrap();
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "fake Codefresh CA");
    let cert = params.self_signed(&key).unwrap();
    Ca {
        pem: cert.pem(),
        issuer: Issuer::new(params, key),
    }
}

impl FakePlatform {
    /// Starts the fake on a free loopback port, accepting `token`.
    pub fn start(token: &str) -> FakePlatform {
        let state = Arc::new(Mutex::new(State::default()));
        state.lock().unwrap().key_subjects.insert(
            key_id(token).to_string(),
            ("user".to_string(), "user-1".to_string()),
        );
        let ca = Arc::new(make_ca());
        let ca_pem = ca.pem.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        let token_owned = token.to_string();
        let shared = state.clone();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                tx.send(listener.local_addr().unwrap()).unwrap();
                loop {
                    let Ok((stream, _)) = listener.accept().await else {
                        return;
                    };
                    let io = hyper_util::rt::TokioIo::new(stream);
                    let state = shared.clone();
                    let token = token_owned.clone();

                    let ca = ca.clone();
                    tokio::spawn(async move {
                        let service = hyper::service::service_fn(move |req| {
                            handle(req, state.clone(), token.clone(), ca.clone())
                        });
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(io, service)
                            .await;
                    });
                }
            });
        });
        let addr = rx.recv().unwrap();
        FakePlatform {
            addr,
            token: token.to_string(),
            state,
            ca_pem,
        }
    }

    /// The base URL to pass as `--url`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The fake's CA certificate (PEM), which signs dind server certificates.
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.state.lock().unwrap().requests.clone()
    }

    /// `METHOD path` of every request so far (query strings dropped).
    pub fn calls(&self) -> Vec<String> {
        self.requests()
            .iter()
            .map(|r| format!("{} {}", r.method, r.path.split('?').next().unwrap()))
            .collect()
    }

    /// Forgets the recorded requests (state is kept).
    pub fn clear_requests(&self) {
        self.state.lock().unwrap().requests.clear();
    }

    /// The next `times` requests matching `prefix` (`"POST /api/agents"`) get `status`.
    pub fn fail(&self, prefix: &str, status: u16, times: usize) {
        self.state.lock().unwrap().faults.push(Fault {
            prefix: prefix.into(),
            status: Some(status),
            delay: None,
            times,
        });
    }

    /// The next `times` requests matching `prefix` are answered after `delay`.
    pub fn slow(&self, prefix: &str, delay: Duration, times: usize) {
        self.state.lock().unwrap().faults.push(Fault {
            prefix: prefix.into(),
            status: None,
            delay: Some(delay),
            times,
        });
    }

    /// How many more requests matching `prefix` an injected failure or
    /// delay will still meet (0: the last one has arrived).
    pub fn faults_left(&self, prefix: &str) -> usize {
        self.state
            .lock()
            .unwrap()
            .faults
            .iter()
            .filter(|f| f.prefix == prefix)
            .map(|f| f.times)
            .sum()
    }

    /// The agents the fake holds.
    pub fn agents(&self) -> Vec<Value> {
        self.state.lock().unwrap().agents.clone()
    }

    /// The runtime environments the fake holds, by name.
    pub fn runtimes(&self) -> BTreeMap<String, Value> {
        self.state.lock().unwrap().runtimes.clone()
    }

    /// Registers runtime environment `name` for `namespace` of cluster
    /// `cluster`, as `POST /api/custom_clusters/register` would (a runtime
    /// that another install registered).
    pub fn add_runtime(&self, name: &str, cluster: &str, namespace: &str) {
        let re = json!({
            "metadata": {"name": name, "agent": true},
            "accountId": ACCOUNT_ID,
            "runtimeScheduler": {"cluster": {"clusterProvider": {"accountId": ACCOUNT_ID, "selector": cluster},
                                              "namespace": namespace, "serviceAccount": "codefresh-engine"}},
            "dockerDaemonScheduler": {"cluster": {"clusterProvider": {"accountId": ACCOUNT_ID, "selector": cluster},
                                                   "namespace": namespace}},
            "status": {"message": "registered", "updated_at": null},
        });
        self.state
            .lock()
            .unwrap()
            .runtimes
            .insert(name.to_string(), re);
    }

    /// Registers runtime environment `name` as a copy of runtime `like`
    /// (the same images and pods) whose builds run in `namespace` of
    /// cluster `cluster`: a runtime another install registered.
    pub fn add_runtime_like(&self, name: &str, cluster: &str, namespace: &str, like: &str) {
        let mut re = self.runtime_spec(like);
        re["metadata"]["name"] = json!(name);
        for scheduler in ["runtimeScheduler", "dockerDaemonScheduler"] {
            re[scheduler]["cluster"]["namespace"] = json!(namespace);
            re[scheduler]["cluster"]["clusterProvider"]["selector"] = json!(cluster);
        }
        self.state
            .lock()
            .unwrap()
            .runtimes
            .insert(name.to_string(), re);
    }

    /// The account's default runtime, if set.
    pub fn default_runtime(&self) -> Option<String> {
        self.state.lock().unwrap().default_runtime.clone()
    }

    /// The cluster integrations the fake holds.
    pub fn clusters(&self) -> Vec<Value> {
        self.state.lock().unwrap().clusters.clone()
    }

    /// Builds started: (pipeline, runtime).
    pub fn builds(&self) -> Vec<(String, String)> {
        self.state.lock().unwrap().builds.clone()
    }

    /// The token the fake accepts.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// How `GET /api/agents?name=` filters from now on.
    pub fn set_name_filter(&self, filter: NameFilter) {
        self.state.lock().unwrap().name_filter = filter;
    }

    /// Whether deleting an agent leaves its token working (the real
    /// platform's behaviour is unknown): off (the default), the token is
    /// refused with 401 once its agent is deleted; on, the deleted agent's
    /// own calls still pass with it (and find no tasks).
    pub fn deleted_agents_keep_tokens(&self, keep: bool) {
        self.state.lock().unwrap().deleted_agents_keep_tokens = keep;
    }

    /// True when `token` is one `POST /api/agents` handed out for the agent
    /// named `agent` (still or once there).
    pub fn token_is_of(&self, token: &str, agent: &str) -> bool {
        let s = self.state.lock().unwrap();
        let Some(id) = s.agent_tokens.get(token) else {
            return false;
        };
        s.agents
            .iter()
            .chain(s.deleted_agents.iter())
            .any(|a| a["id"] == id.as_str() && a["name"] == agent)
    }

    /// Agent records carry both `id` and `_id` (as Mongoose-backed APIs often do).
    pub fn set_both_ids(&self, on: bool) {
        self.state.lock().unwrap().both_ids = on;
    }

    /// What the register and cluster-integration calls answer with on success.
    pub fn set_body_2xx(&self, body: Body2xx) {
        self.state.lock().unwrap().body_2xx = body;
    }

    /// Accepts `token` as an API key with only `scopes` (the names of
    /// Codefresh's key dialog: Agent, Agents, Runner-Installation, Cluster,
    /// Project, Pipeline).
    pub fn add_scoped_key(&self, token: &str, scopes: &[&str]) {
        let mut s = self.state.lock().unwrap();
        s.scoped_keys.insert(
            token.to_string(),
            scopes.iter().map(|x| x.to_string()).collect(),
        );
        s.key_subjects.insert(
            key_id(token).to_string(),
            ("user".to_string(), "user-1".to_string()),
        );
    }

    /// `GET /api/execution-contexts/current` answers without an account id.
    pub fn execution_context_without_account(&self, on: bool) {
        self.state.lock().unwrap().context_without_account = on;
    }

    /// The dind certificates signed from now on are valid from `not_before`
    /// to `not_after` (seconds since the Unix epoch): a test makes one that
    /// has expired, or will soon. The real platform's validity is unknown.
    pub fn sign_valid_between(&self, not_before: u64, not_after: u64) {
        self.state.lock().unwrap().cert_validity = Some((not_before, not_after));
    }

    /// `GET /api/user` answers 403 to scoped keys.
    pub fn refuse_user_for_scoped_keys(&self, on: bool) {
        self.state.lock().unwrap().refuse_user_for_scoped = on;
    }

    /// `PUT /api/pipelines/{name}` refuses (409) a body whose
    /// `metadata.revision` is not the stored one, unless the query says
    /// `disableRevisionCheck=true`.
    pub fn set_revision_check(&self, on: bool) {
        self.state.lock().unwrap().revision_check = on;
    }

    /// Projects and pipelines that do not exist are answered with `status`
    /// and a message saying "not found" (instead of 404).
    pub fn set_not_found_status(&self, status: u16) {
        self.state.lock().unwrap().not_found_status = Some(status);
    }

    /// Sets an agent's status as the platform shows it once the agent reports.
    pub fn report_agent_status(&self, name: &str, health: &str, reported_at: &str) {
        let mut s = self.state.lock().unwrap();
        if let Some(a) = s.agents.iter_mut().find(|a| a["name"] == name) {
            a["status"] =
                json!({"healthStatus": health, "reportedAt": reported_at, "message": "All good"});
        }
    }

    /// The pipelines the fake holds, by name.
    pub fn pipelines(&self) -> BTreeMap<String, Value> {
        self.state.lock().unwrap().pipelines.clone()
    }

    /// The id of the agent named (or with the id) `agent`.
    pub fn agent_id(&self, agent: &str) -> Option<String> {
        let s = self.state.lock().unwrap();
        find_agent(&s, agent).map(|a| a["id"].as_str().unwrap_or_default().to_string())
    }

    /// Queues `task` for the agent named (or with the id) `agent`: its next
    /// `GET /api/agent/{id}/tasks` gets it, once. Panics if there is no
    /// such agent.
    pub fn queue_task(&self, agent: &str, task: Value) {
        let mut s = self.state.lock().unwrap();
        let id = find_agent(&s, agent)
            .unwrap_or_else(|| panic!("the fake platform has no agent {agent}"))["id"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        s.tasks.entry(id).or_default().push(task);
    }

    /// A task of `kind` (`CreatePod`, `CreatePvc`, `DeletePod`, `DeletePvc`)
    /// for the runtime `runtime` in build `workflow`, in the agent's task
    /// format (`venona/pkg/task/task.go`), with `spec` as given: a whole
    /// object to create, or `{"name", "namespace"}` to delete.
    pub fn task(&self, runtime: &str, kind: &str, workflow: &str, spec: Value) -> Value {
        let mut s = self.state.lock().unwrap();
        s.next_id += 1;
        let id = format!("task-{:04}", s.next_id);
        json!({
            "_id": id,
            "type": kind,
            "metadata": {
                "createdAt": k8s_openapi::jiff::Timestamp::now().to_string(),
                "reName": runtime,
                "workflowId": workflow,
                "currentStatusRevision": 0,
                "shouldReportStatus": true,
            },
            "spec": spec,
        })
    }

    /// The engine or dind Pod of build `workflow`, built from the runtime
    /// environment spec the fake holds for `runtime` (what cf-runner
    /// registered), the way the platform builds a build's pods from it.
    /// Panics if the fake has no such runtime.
    pub fn build_pod(&self, runtime: &str, pod: BuildPod, workflow: &str) -> Value {
        build_pod(&self.runtime_spec(runtime), pod, workflow)
    }

    /// The dind volume claim of build `workflow` (`dockerDaemonScheduler.pvcs`).
    pub fn dind_claim(&self, runtime: &str, workflow: &str) -> Value {
        let spec = self.runtime_spec(runtime);
        let scheduler = &spec["dockerDaemonScheduler"];
        let pvc = &scheduler["pvcs"][0];
        pruned(&json!({
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {
                "name": format!("dind-{workflow}"),
                "namespace": scheduler["cluster"]["namespace"],
                "labels": {"codefresh-app": "dind", "io.codefresh.workflow": workflow},
            },
            "spec": {
                "accessModes": ["ReadWriteOnce"],
                "storageClassName": pvc["storageClassName"],
                "resources": {"requests": {"storage": pvc["volumeSize"]}},
            },
        }))
    }

    /// A `CreatePod` task of the engine or dind pod of build `workflow`
    /// for `runtime` ([`FakePlatform::build_pod`]).
    pub fn create_pod_task(&self, runtime: &str, pod: BuildPod, workflow: &str) -> Value {
        let spec = self.build_pod(runtime, pod, workflow);
        self.task(runtime, "CreatePod", workflow, spec)
    }

    fn runtime_spec(&self, runtime: &str) -> Value {
        self.state
            .lock()
            .unwrap()
            .runtimes
            .get(runtime)
            .unwrap_or_else(|| panic!("the fake platform has no runtime environment {runtime}"))
            .clone()
    }

    /// The task statuses the agents reported (`POST
    /// /api/agent/{id}/tasks/{task}/statuses`): (agent id, task id, body).
    pub fn task_statuses(&self) -> Vec<(String, String, Value)> {
        self.state.lock().unwrap().task_statuses.clone()
    }

    /// Tasks queued and not yet handed out, by agent id.
    pub fn pending_tasks(&self) -> BTreeMap<String, Vec<Value>> {
        self.state.lock().unwrap().tasks.clone()
    }
}

/// Which of a build's two pods a `CreatePod` task creates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuildPod {
    /// The engine pod (`runtimeScheduler`).
    Engine,
    /// The docker daemon pod (`dockerDaemonScheduler`).
    Dind,
}

/// The agent named, or with the id, `agent` (the agent's own calls carry
/// its name, as the chart's `AGENT_ID`; cf-runner's calls carry the id).
fn find_agent<'a>(s: &'a State, agent: &str) -> Option<&'a Value> {
    s.agents
        .iter()
        .find(|a| a["id"] == agent || a["name"] == agent)
}

/// `value` without its null and empty fields (the spec leaves some unset).
fn pruned(value: &Value) -> Value {
    match value {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(_, v)| match v {
                    Value::Null => false,
                    Value::Object(o) => !o.is_empty(),
                    Value::Array(a) => !a.is_empty(),
                    _ => true,
                })
                .map(|(k, v)| (k.clone(), pruned(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(pruned).collect()),
        v => v.clone(),
    }
}

/// `{"NAME": "value"}` as a container's `env` list.
fn env_list(vars: &Value) -> Value {
    Value::Array(
        vars.as_object()
            .map(|m| {
                m.iter()
                    .map(|(k, v)| {
                        let value = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                        json!({"name": k, "value": value})
                    })
                    .collect()
            })
            .unwrap_or_default(),
    )
}

/// A map of named entries (`{"x": {"name": "x", ...}}`) as a list.
fn named_list(map: &Value) -> Value {
    Value::Array(
        map.as_object()
            .map(|m| m.values().cloned().collect())
            .unwrap_or_default(),
    )
}

/// The engine or dind Pod of build `workflow`, from a runtime spec: the
/// namespace, service account, node selector, tolerations, image, env and
/// resources its scheduler names (the real platform adds much more: build
/// volumes, the dind claim, the engine's platform token, ...).
fn build_pod(spec: &Value, pod: BuildPod, workflow: &str) -> Value {
    let (scheduler, name, container) = match pod {
        BuildPod::Engine => {
            let s = &spec["runtimeScheduler"];
            (
                s,
                format!("engine-{workflow}"),
                json!({
                    "name": "engine",
                    "image": s["image"],
                    "imagePullPolicy": s["imagePullPolicy"],
                    "command": s["command"],
                    "env": env_list(&s["envVars"]),
                    "resources": s["resources"],
                }),
            )
        }
        BuildPod::Dind => {
            let s = &spec["dockerDaemonScheduler"];
            (
                s,
                format!("dind-{workflow}"),
                json!({
                    "name": "dind",
                    "image": s["dindImage"],
                    "imagePullPolicy": s["imagePullPolicy"],
                    "env": env_list(&s["envVars"]),
                    "resources": s["defaultDindResources"],
                    "securityContext": {"privileged": true},
                    "volumeMounts": named_list(&s["volumeMounts"]),
                }),
            )
        }
    };
    let cluster = &scheduler["cluster"];
    let volumes = match pod {
        BuildPod::Engine => Value::Null,
        BuildPod::Dind => named_list(&scheduler["volumes"]),
    };
    pruned(&json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": cluster["namespace"],
            "labels": {"app": container["name"], "io.codefresh.workflow": workflow},
        },
        "spec": {
            "serviceAccountName": cluster["serviceAccount"],
            "restartPolicy": "Never",
            "nodeSelector": cluster["nodeSelector"],
            "tolerations": scheduler["tolerations"],
            "terminationGracePeriodSeconds": scheduler["terminationGracePeriodSeconds"],
            "containers": [container],
            "volumes": volumes,
        },
    }))
}

/// The agent named in an agent's own call (`/api/agent/{agent}/tasks`,
/// `/api/agent/{agent}/tasks/{task}/statuses`, `/api/agent/{agent}/status`),
/// which carries that agent's token rather than a user's API key.
fn agent_call(parts: &[&str]) -> Option<String> {
    match parts {
        ["api", "agent", agent, "tasks"]
        | ["api", "agent", agent, "status"]
        | ["api", "agent", agent, "tasks", _, "statuses"] => Some(decode(agent)),
        _ => None,
    }
}

/// The key id of a token `<keyId>.<secret>`.
fn key_id(token: &str) -> &str {
    token.split('.').next().unwrap_or(token)
}

/// The scope a call needs, as Codefresh's API-key dialog names it.
fn scope_of(method: &str, parts: &[&str]) -> Option<&'static str> {
    let _ = method;
    match parts {
        ["api", "agents", ..] => Some("Agents"),
        ["api", "agent", ..] => Some("Agent"),
        ["api", "custom_clusters", ..] | ["api", "runtime-environments", ..] => {
            Some("Runner-Installation")
        }
        ["api", "clusters", ..] => Some("Cluster"),
        ["api", "projects", ..] => Some("Project"),
        ["api", "pipelines", ..] => Some("Pipeline"),
        _ => None,
    }
}

fn respond(status: u16, body: Value) -> Response<Full<Bytes>> {
    Response::builder()
        .status(StatusCode::from_u16(status).unwrap())
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap()
}

fn decode(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&segment[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap()
}

async fn handle(
    req: Request<Incoming>,
    state: Arc<Mutex<State>>,
    token: String,
    ca: Arc<Ca>,
) -> Result<Response<Full<Bytes>>, std::convert::Infallible> {
    let method = req.method().to_string();
    let path = req
        .uri()
        .path_and_query()
        .map(|p| p.to_string())
        .unwrap_or_default();
    let presented = req
        .headers()
        .get("authorization")
        .and_then(|h| h.to_str().ok())
        .map(str::to_string);
    let accept = req
        .headers()
        .get("accept")
        .and_then(|h| h.to_str().ok())
        .map(str::to_string);
    let user_agent = req
        .headers()
        .get("user-agent")
        .and_then(|h| h.to_str().ok())
        .map(str::to_string);
    let scopes = presented
        .as_ref()
        .and_then(|p| state.lock().unwrap().scoped_keys.get(p).cloned());
    let agent_of_token = presented
        .as_ref()
        .and_then(|p| state.lock().unwrap().agent_tokens.get(p).cloned());
    let path_parts: Vec<&str> = path
        .split('?')
        .next()
        .unwrap_or_default()
        .trim_start_matches('/')
        .split('/')
        .collect();
    // An agent's own calls take only that agent's token, named by the
    // agent's name (AGENT_ID) or id in the path; every other call takes the
    // user's API key.
    let authorized = match agent_call(&path_parts) {
        Some(named) => agent_of_token.as_ref().is_some_and(|id| {
            let s = state.lock().unwrap();
            find_agent(&s, &named).is_some_and(|a| a["id"] == id.as_str())
                || s.deleted_agents
                    .iter()
                    .any(|a| a["id"] == id.as_str() && (a["id"] == named || a["name"] == named))
        }),
        None => presented.as_deref() == Some(token.as_str()) || scopes.is_some(),
    };
    let body_bytes = req
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let body: Value = serde_json::from_slice(&body_bytes).unwrap_or(Value::Null);
    let call = format!("{method} {}", path.split('?').next().unwrap());

    // Injected faults first.
    let fault = {
        let mut s = state.lock().unwrap();
        let found = s
            .faults
            .iter_mut()
            .find(|f| f.times > 0 && call.starts_with(&f.prefix));
        found.map(|f| {
            f.times -= 1;
            f.clone()
        })
    };
    if let Some(f) = &fault {
        if let Some(d) = f.delay {
            tokio::time::sleep(d).await;
        }
    }
    let (status, answer) = match (&fault, authorized) {
        (
            Some(Fault {
                status: Some(code), ..
            }),
            _,
        ) => (
            *code,
            json!({"message": format!("injected failure {code}")}),
        ),
        (_, false) => (401, json!({"message": "Unauthorized: invalid token"})),
        _ if agent_call(&path_parts).is_some() => route(&method, &path, &body, &state, &ca),
        _ => match refused_scope(&method, &path, scopes.as_deref(), &state) {
            Some(answer) => answer,
            None => route(&method, &path, &body, &state, &ca),
        },
    };
    let mut s = state.lock().unwrap();
    s.requests.push(Recorded {
        method,
        path,
        body,
        authorized,
        status,
        accept,
        agent: agent_of_token,
        user_agent,
    });
    let body_2xx = s.body_2xx;
    drop(s);
    if (200..300).contains(&status)
        && (call == "POST /api/custom_clusters/register"
            || call == "POST /api/clusters/local/cluster")
        && body_2xx != Body2xx::Json
    {
        let text = if body_2xx == Body2xx::Text { "OK" } else { "" };
        return Ok(Response::builder()
            .status(status)
            .header("content-type", "text/plain")
            .body(Full::new(Bytes::from(text)))
            .unwrap());
    }
    if let Some(Value::String(b64_zip)) = answer.get("__zip__") {
        use base64::Engine;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(b64_zip)
            .unwrap();
        return Ok(Response::builder()
            .status(200)
            .header("content-type", "application/zip")
            .body(Full::new(Bytes::from(bytes)))
            .unwrap());
    }
    Ok(respond(status, answer))
}

/// A 403 when a scoped key lacks the call's scope (or may not read the user).
fn refused_scope(
    method: &str,
    path: &str,
    scopes: Option<&[String]>,
    state: &Arc<Mutex<State>>,
) -> Option<(u16, Value)> {
    let scopes = scopes?;
    let path_only = path.split('?').next().unwrap();
    let parts: Vec<&str> = path_only.trim_start_matches('/').split('/').collect();
    if parts == ["api", "user"] && state.lock().unwrap().refuse_user_for_scoped {
        return Some((
            403,
            json!({"message": "Forbidden: this API key may not read the user"}),
        ));
    }
    let needed = scope_of(method, &parts)?;
    if scopes.iter().any(|s| s == needed) {
        None
    } else {
        Some((
            403,
            json!({"message": format!("Forbidden: the API key lacks the scope {needed}")}),
        ))
    }
}

fn sign(
    csr_pem: &str,
    sans: &str,
    ca: &Ca,
    validity: Option<(u64, u64)>,
) -> Result<Vec<u8>, String> {
    let mut csr = CertificateSigningRequestParams::from_pem(csr_pem).map_err(|e| e.to_string())?;
    if let Some((from, to)) = validity {
        let epoch = rcgen::date_time_ymd(1970, 1, 1);
        csr.params.not_before = epoch + Duration::from_secs(from);
        csr.params.not_after = epoch + Duration::from_secs(to);
    }
    // Like the real platform, the names come from reqSubjectAltName.
    csr.params.subject_alt_names = sans
        .split(',')
        .filter_map(|s| {
            if let Some(ip) = s.strip_prefix("IP:") {
                ip.parse().ok().map(SanType::IpAddress)
            } else {
                s.strip_prefix("DNS:")
                    .and_then(|d| d.to_string().try_into().ok())
                    .map(SanType::DnsName)
            }
        })
        .collect();
    let cert = csr.signed_by(&ca.issuer).map_err(|e| e.to_string())?;
    let mut buffer = std::io::Cursor::new(Vec::new());
    {
        let mut zip = zip::ZipWriter::new(&mut buffer);
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        use std::io::Write;
        zip.start_file("cf-ca.pem", options).unwrap();
        zip.write_all(ca.pem.as_bytes()).unwrap();
        zip.start_file("cf-server-cert.pem", options).unwrap();
        zip.write_all(cert.pem().as_bytes()).unwrap();
        zip.finish().unwrap();
    }
    Ok(buffer.into_inner())
}

/// An agent as the platform shows it: never its token; `_id` too when
/// both ids are switched on.
fn shown_agent(agent: &Value, both_ids: bool) -> Value {
    let mut a = agent.clone();
    a.as_object_mut().unwrap().remove("token");
    if both_ids {
        a["_id"] = a["id"].clone();
    }
    a
}

fn route(
    method: &str,
    path: &str,
    body: &Value,
    state: &Arc<Mutex<State>>,
    ca: &Ca,
) -> (u16, Value) {
    let (path_only, query) = path.split_once('?').unwrap_or((path, ""));
    let parts: Vec<String> = path_only
        .trim_start_matches('/')
        .split('/')
        .map(decode)
        .collect();
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    let mut s = state.lock().unwrap();
    fn new_id(s: &mut State, prefix: &str) -> String {
        s.next_id += 1;
        format!("{prefix}{:04}", s.next_id)
    }
    match (method, parts.as_slice()) {
        ("GET", ["api", "user"]) => (
            200,
            json!({
                "_id": "user-1", "userName": "tester", "email": "tester@example.com",
                "activeAccountName": "acme",
                "account": [{"_id": "other-account", "name": "other"}, {"_id": ACCOUNT_ID, "name": "acme"}]
            }),
        ),
        ("GET", ["api", "execution-contexts", "current"]) => {
            let mut answer = json!({"_id": "ctx-1", "name": "default", "type": "system"});
            if !s.context_without_account {
                answer["accountId"] = json!(ACCOUNT_ID);
            }
            (200, answer)
        }
        ("GET", ["api", "auth", "key", id]) => match s.key_subjects.get(*id) {
            Some((kind, reference)) => (
                200,
                json!({"_id": id, "name": "key", "subject": {"type": kind, "ref": reference}}),
            ),
            None => (404, json!({"message": "token not found"})),
        },
        ("GET", ["api", "agent", id]) => {
            let both = s.both_ids;
            match s.agents.iter().find(|a| a["id"] == *id) {
                Some(a) => (200, shown_agent(a, both)),
                None => (404, json!({"message": "agent not found"})),
            }
        }
        ("GET", ["api", "agents"]) => {
            let name = query
                .split('&')
                .find_map(|kv| kv.strip_prefix("name="))
                .map(decode);
            let filter = s.name_filter;
            let both = s.both_ids;
            let list: Vec<Value> = s
                .agents
                .iter()
                .filter(|a| match (&name, filter) {
                    (None, _) | (_, NameFilter::Ignored) => true,
                    (Some(n), NameFilter::Exact) => a["name"] == n.as_str(),
                    (Some(n), NameFilter::Loose) => {
                        a["name"].as_str().unwrap_or_default().contains(n.as_str())
                    }
                })
                .map(|a| shown_agent(a, both))
                .collect();
            (200, Value::Array(list))
        }
        ("POST", ["api", "agents"]) => {
            let Some(name) = body["name"].as_str().map(str::to_string) else {
                return (400, json!({"message": "name is required"}));
            };
            if s.agents.iter().any(|a| a["name"] == name.as_str()) {
                return (
                    409,
                    json!({"message": format!("agent {name} already exists")}),
                );
            }
            let id = new_id(&mut s, "agent-");
            let token = format!("agent-token-{id}.secret-{}", s.next_id * 7919);
            s.key_subjects.insert(
                key_id(&token).to_string(),
                ("agent".to_string(), id.clone()),
            );
            s.agent_tokens.insert(token.clone(), id.clone());
            let agent = json!({"id": id, "name": name, "runtimes": [], "account": ACCOUNT_ID,
                               "status": {}});
            s.agents.push(agent.clone());
            let mut answer = shown_agent(&agent, s.both_ids);
            answer["token"] = Value::String(token);
            (201, answer)
        }
        // The agent's own calls (venona/pkg/codefresh/codefresh.go); the
        // caller was checked to be this agent.
        ("GET", ["api", "agent", agent, "tasks"]) => {
            let id =
                find_agent(&s, agent).map(|a| a["id"].as_str().unwrap_or_default().to_string());
            let tasks = id.and_then(|id| s.tasks.remove(&id)).unwrap_or_default();
            (200, Value::Array(tasks))
        }
        ("PUT", ["api", "agent", agent, "status"]) => {
            let message = body["message"].clone();
            match s
                .agents
                .iter_mut()
                .find(|a| a["id"] == *agent || a["name"] == *agent)
            {
                Some(a) => {
                    a["status"] = json!({
                        "message": message,
                        "healthStatus": "healthy",
                        "reportedAt": k8s_openapi::jiff::Timestamp::now().to_string(),
                    });
                    (200, json!({}))
                }
                None => (404, json!({"message": "agent not found"})),
            }
        }
        ("POST", ["api", "agent", agent, "tasks", task, "statuses"]) => {
            let id = find_agent(&s, agent)
                .map(|a| a["id"].as_str().unwrap_or_default().to_string())
                .unwrap_or_default();
            s.task_statuses.push((id, task.to_string(), body.clone()));
            (200, json!({}))
        }
        ("PUT", ["api", "agent", id]) => match s.agents.iter_mut().find(|a| a["id"] == *id) {
            Some(a) => {
                a["runtimes"] = body["runtimes"].clone();
                (200, a.clone())
            }
            None => (404, json!({"message": "agent not found"})),
        },
        ("DELETE", ["api", "agent", id]) => {
            let Some(at) = s.agents.iter().position(|a| a["id"] == *id) else {
                return (404, json!({"message": "agent not found"}));
            };
            let gone = s.agents.remove(at);
            if s.deleted_agents_keep_tokens {
                s.deleted_agents.push(gone);
            } else {
                s.agent_tokens.retain(|_, agent| agent != id);
            }
            (200, json!({}))
        }
        ("POST", ["api", "custom_clusters", "signServerCerts"]) => {
            let (Some(csr), Some(sans)) =
                (body["csr"].as_str(), body["reqSubjectAltName"].as_str())
            else {
                return (
                    400,
                    json!({"message": "csr and reqSubjectAltName are required"}),
                );
            };
            match sign(csr, sans, ca, s.cert_validity) {
                Ok(zip) => {
                    use base64::Engine;
                    (
                        200,
                        json!({"__zip__": base64::engine::general_purpose::STANDARD.encode(zip)}),
                    )
                }
                Err(e) => (400, json!({"message": format!("bad CSR: {e}")})),
            }
        }
        ("POST", ["api", "custom_clusters", "register"]) => {
            let name = body["runtimeEnvironmentName"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            if name.is_empty()
                || body["namespace"].as_str().is_none()
                || body["clusterName"].as_str().is_none()
            {
                return (
                    400,
                    json!({"message": "runtimeEnvironmentName, clusterName and namespace are required"}),
                );
            }
            if s.runtimes.contains_key(&name) {
                return (
                    409,
                    json!({"message": format!("runtime environment {name} already exists")}),
                );
            }
            let re = json!({
                "metadata": {"name": name, "agent": body["agent"]},
                "accountId": ACCOUNT_ID,
                "runtimeScheduler": {"cluster": {"clusterProvider": {"accountId": ACCOUNT_ID, "selector": body["clusterName"]},
                                                  "namespace": body["namespace"], "serviceAccount": body["serviceAccount"]}},
                "dockerDaemonScheduler": {"cluster": {"clusterProvider": {"accountId": ACCOUNT_ID, "selector": body["clusterName"]},
                                                       "namespace": body["namespace"], "nodeSelector": body["nodeSelector"]},
                                          "userAccess": body["dockerDaemonScheduler"]["userAccess"],
                                          "pvcs": {"dind": {"storageClassName": body["storageClassName"]}}},
                "status": {"message": "registered", "updated_at": null},
            });
            s.runtimes.insert(name, re.clone());
            (200, re)
        }
        ("GET", ["api", "runtime-environments"]) => {
            (200, Value::Array(s.runtimes.values().cloned().collect()))
        }
        ("GET", ["api", "runtime-environments", name]) => match s.runtimes.get(*name) {
            Some(re) => (200, re.clone()),
            None => (
                404,
                json!({"message": format!("runtime environment {name} not found")}),
            ),
        },
        ("PUT", ["api", "runtime-environments", "default", name]) => {
            if s.runtimes.contains_key(*name) {
                s.default_runtime = Some(name.to_string());
                (201, json!({}))
            } else {
                (404, json!({"message": "runtime environment not found"}))
            }
        }
        ("PUT", ["api", "runtime-environments", name]) => {
            if !s.runtimes.contains_key(*name) {
                return (404, json!({"message": "runtime environment not found"}));
            }
            if body["metadata"]["name"] != *name {
                return (400, json!({"message": "metadata.name must match the path"}));
            }
            s.runtimes.insert(name.to_string(), body.clone());
            (200, body.clone())
        }
        ("DELETE", ["api", "runtime-environments", name]) => {
            if s.runtimes.remove(*name).is_some() {
                if s.default_runtime.as_deref() == Some(*name) {
                    s.default_runtime = None;
                }
                (200, json!({}))
            } else {
                (404, json!({"message": "runtime environment not found"}))
            }
        }
        ("GET", ["api", "clusters"]) => (200, Value::Array(s.clusters.clone())),
        ("POST", ["api", "clusters", "local", "cluster"]) => {
            for field in ["selector", "host", "serviceAccountToken", "clientCa"] {
                if body[field].as_str().is_none_or(str::is_empty) {
                    return (400, json!({"message": format!("{field} is required")}));
                }
            }
            if s.clusters.iter().any(|c| c["selector"] == body["selector"]) {
                return (
                    409,
                    json!({"message": "a cluster with this selector exists"}),
                );
            }
            let id = new_id(&mut s, "cluster-");
            let c = json!({"_id": id, "selector": body["selector"], "provider": "local",
                           "behindFirewall": body["behindFirewall"], "host": body["host"]});
            s.clusters.push(c.clone());
            (201, c)
        }
        ("DELETE", ["api", "clusters", _provider, "cluster", id]) => {
            let before = s.clusters.len();
            s.clusters.retain(|c| c["_id"] != *id);
            if s.clusters.len() < before {
                (200, json!({}))
            } else {
                (404, json!({"message": "cluster not found"}))
            }
        }
        ("GET", ["api", "projects", "name", name]) => {
            if s.projects.iter().any(|p| p == name) {
                (200, json!({"projectName": name}))
            } else {
                (
                    s.not_found_status.unwrap_or(404),
                    json!({"message": format!("project {name} not found")}),
                )
            }
        }
        ("POST", ["api", "projects"]) => {
            let name = body["projectName"].as_str().unwrap_or_default().to_string();
            s.projects.push(name.clone());
            (201, json!({"projectName": name}))
        }
        ("GET", ["api", "pipelines", name]) => match s.pipelines.get(*name) {
            Some(p) => (200, p.clone()),
            None => (
                s.not_found_status.unwrap_or(404),
                json!({"message": format!("pipeline {name} not found")}),
            ),
        },
        ("POST", ["api", "pipelines"]) => {
            let name = body["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let id = new_id(&mut s, "pipeline-");
            let mut stored = body.clone();
            stored["kind"] = json!("pipeline");
            stored["version"] = json!("1.0");
            stored["metadata"]["id"] = json!(id);
            stored["metadata"]["revision"] = json!(1);
            s.pipelines.insert(name, stored.clone());
            (201, stored)
        }
        ("PUT", ["api", "pipelines", name]) => {
            let Some(old) = s.pipelines.get(*name).cloned() else {
                return (
                    404,
                    json!({"message": format!("pipeline {name} not found")}),
                );
            };
            let skip_check = query.split('&').any(|kv| kv == "disableRevisionCheck=true");
            let revision = old["metadata"]["revision"].as_i64().unwrap_or(1);
            if s.revision_check
                && !skip_check
                && body["metadata"]["revision"].as_i64() != Some(revision)
            {
                return (
                    409,
                    json!({"message": format!("pipeline {name} was changed: revision {revision} expected")}),
                );
            }
            let mut stored = body.clone();
            stored["metadata"]["id"] = old["metadata"]["id"].clone();
            stored["metadata"]["revision"] = json!(revision + 1);
            s.pipelines.insert(name.to_string(), stored.clone());
            (200, stored)
        }
        ("POST", ["api", "pipelines", "run", name]) => {
            if !s.pipelines.contains_key(*name) {
                return (404, json!({"message": "pipeline not found"}));
            }
            let runtime = body["userMachineConfig"]["runtimeName"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            s.builds.push((name.to_string(), runtime));
            let id = new_id(&mut s, "build-");
            (200, Value::String(id))
        }
        _ => (
            404,
            json!({"message": format!("no route {method} {path_only}")}),
        ),
    }
}
