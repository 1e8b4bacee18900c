//! Attaching a runtime in another namespace or cluster to an installed
//! agent, and detaching it: the agent's credentials in the runtime's
//! namespace, the runtime's file in the agent's [`CONFIG_SECRET`], the
//! agent's runtime list on the platform, and a rollout of the agent that
//! adds a pod before it removes one. Everything is compared before it is
//! written, so a re-run writes nothing, and a run stopped half-way
//! converges on the next (the agent's pod template carries a hash of the
//! files: the rollout happens until it has happened).
//!
//! Order. Attach: credentials → files → rollout → platform (the platform
//! sends the runtime's builds only once the agent can create their pods).
//! Detach: platform → files → rollout → credentials removed (no build is
//! sent that the agent could no longer start; the old token dies last).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::app::identity::register;
use crate::app::installation::plan;
use crate::app::session::connect::{connect_with, vet_kubeconfig, ContextFrom};
use crate::app::session::converge;
use crate::app::session::lock::{self, LockWait};
use crate::app::session::options::PlatformOptions;
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster::inventory::{self, LiveObject};
use crate::cluster::{delete, runtimes as live, Cluster, ConnectOptions};
use crate::output;
use crate::platform::{Agent, Platform};
use crate::render::runtimes::{
    access_manifests, config_dir_mode, config_key, config_manifest, file_runtime_name,
    RuntimeAccess, ACCESS_NAME, ACCESS_TOKEN_SECRET, AGENT_DEPLOYMENT, CONFIG_SECRET,
};
use crate::render::{Component, Manifest, LABEL_COMPONENT};
use crate::values::runtimes::{self, RuntimeEntry, RuntimeSettings};
use crate::values::{is_dns_label, Input, Problem, Problems};

/// The API server address a pod reaches in its own cluster.
pub const IN_CLUSTER_HOST: &str = "https://kubernetes.default.svc";

/// Where the agent is.
pub(crate) struct AgentSide {
    pub connect: ConnectOptions,
    pub namespace: String,
}

/// One runtime, as the flags or the runtimes file name it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Target {
    /// Context of the runtime's cluster (`None`: the agent's).
    pub context: Option<String>,
    pub kubeconfig: Option<PathBuf>,
    /// `None`: the agent's namespace.
    pub namespace: Option<String>,
    /// The runtime environment's name (`None`: `<context>/<namespace>`).
    pub name: Option<String>,
    /// API server URL the agent uses (`None`: see [`IN_CLUSTER_HOST`]).
    pub kube_host: Option<String>,
    /// How the user named this runtime, for problems: a flag prefix
    /// (`--`) or a key of the runtimes file (`Runtimes[1].`).
    pub origin: String,
    /// The runtime's own node selector, tolerations and storage.
    pub settings: RuntimeSettings,
}

impl From<RuntimeEntry> for Target {
    fn from(e: RuntimeEntry) -> Target {
        Target {
            context: e.context,
            kubeconfig: e.config_path.map(PathBuf::from),
            namespace: e.namespace,
            name: e.name,
            kube_host: e.kube_host,
            origin: e.origin,
            settings: e.settings,
        }
    }
}

impl Target {
    fn key(&self, field: &str) -> String {
        if self.origin.is_empty() {
            match field {
                "Namespace" => "--kube-namespace".into(),
                "Name" => "--runtime-name".into(),
                "KubeHost" => "--kube-host".into(),
                _ => "--kube-context-name".into(),
            }
        } else {
            format!("{}{field}", self.origin)
        }
    }
}

/// The risks of an attach the user accepted by flag.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Accepted {
    /// `--accept-agent-insecure-tls` ([`insecure_agent_problem`]).
    pub insecure_tls: bool,
    /// `--allow-builds-to-read-tokens` ([`builds_beside_agent_problem`]).
    pub build_readable_tokens: bool,
}

/// What the run changes.
pub(crate) enum Change {
    /// Attach the targets, with the risks the user accepted.
    Attach {
        targets: Vec<Target>,
        accepted: Accepted,
    },
    Detach(Box<Target>),
}

impl Change {
    fn command(&self) -> &'static str {
        match self {
            Change::Attach { .. } => "runtime attach",
            Change::Detach(_) => "runtime detach",
        }
    }
}

/// Reads a runtimes file: `Runtimes:`, a list of runtime entries
/// (`values::runtimes`). Problems name the key as written (`Runtimes[1].Namespace`).
pub(crate) fn read_runtimes_file(path: &Path) -> Result<Vec<Target>, Problems> {
    let file = path.display().to_string();
    // The one bounded reader and parser of values files: a link to
    // /dev/zero, a FIFO or a huge file is refused before it is read, and
    // deep nesting or an alias bomb before it is built.
    let text =
        crate::input_file::read_text(path, crate::values::tree::MAX_INPUT_BYTES).map_err(|e| {
            Problems(vec![Problem::new(
                "--values",
                Some(&Value::String(file.clone())),
                e.to_string(),
                "name a readable runtimes file",
            )])
        })?;
    let tree = crate::values::tree::parse_values(&text, &file).map_err(Problems)?;
    let mut problems = Vec::new();
    if !tree.get("Runtimes").is_some_and(Value::is_array) {
        return Err(Problems(vec![Problem::new(
            "Runtimes",
            tree.get("Runtimes"),
            format!("must be a list of runtimes in {file}"),
            "write Runtimes:\n  - Namespace: builds\n    Context: my-cluster",
        )]));
    };
    if let Some(map) = tree.as_object() {
        for k in map.keys().filter(|k| *k != "Runtimes") {
            problems.push(Problem::new(
                k,
                None,
                "is not a key of a runtimes file",
                "remove it; a runtimes file holds only Runtimes",
            ));
        }
    }
    let targets: Vec<Target> = match runtimes::read_list(tree.get("Runtimes")) {
        Ok(list) => list.into_iter().map(Target::from).collect(),
        Err(mut found) => {
            problems.append(&mut found);
            Vec::new()
        }
    };
    if targets.is_empty() && problems.is_empty() {
        problems.push(Problem::new(
            "Runtimes",
            None,
            "is empty",
            "list at least one runtime",
        ));
    }
    if problems.is_empty() {
        Ok(targets)
    } else {
        Err(Problems(problems))
    }
}

/// The runtime's own settings given by `--set-value KEY=VALUE` (the keys
/// of a runtimes file's entry: `NodeSelector`, `Tolerations`, `Storage.*`,
/// `StorageClass`), problems naming `--set-value KEY`.
pub(crate) fn settings_from_flags(set_values: &[String]) -> Result<RuntimeSettings, Problems> {
    if set_values.is_empty() {
        return Ok(RuntimeSettings::default());
    }
    let mut problems = Vec::new();
    let tree = crate::values::merge_layers(
        &Input {
            set_values: set_values.to_vec(),
            ..Input::default()
        },
        &mut problems,
    );
    if !problems.is_empty() {
        return Err(Problems(problems));
    }
    let mut problems = Vec::new();
    if let Some(map) = tree.as_object() {
        for k in map.keys() {
            if matches!(
                k.as_str(),
                "Namespace" | "Context" | "Name" | "KubeHost" | "ConfigPath"
            ) {
                problems.push(Problem::new(
                    &format!("--set-value {k}"),
                    map.get(k),
                    "is a flag of its own here",
                    "pass --kube-namespace, --kube-context-name, --runtime-name, --kube-host or --kube-config-path",
                ));
            }
        }
    }
    if !problems.is_empty() {
        return Err(Problems(problems));
    }
    runtimes::read_entry(&tree, "--set-value ", false)
        .map(|e| e.settings)
        .map_err(Problems)
}

/// A runtime resolved against the clusters.
pub(crate) struct Resolved {
    pub target: Target,
    pub cluster: Cluster,
    pub namespace: String,
    pub name: String,
    pub key: String,
    /// Same API server as the agent's.
    pub same_cluster: bool,
}

/// Checks the names a target gives (before anything is read).
pub(crate) fn target_problems(t: &Target) -> Vec<Problem> {
    let mut out = Vec::new();
    if let Some(ns) = &t.namespace {
        if !is_dns_label(ns) {
            out.push(Problem::new(
                &t.key("Namespace"),
                Some(&Value::String(ns.clone())),
                "is not a valid namespace name (lower-case letters, digits and -, at most 63)",
                "name an existing namespace",
            ));
        }
    }
    if let Some(name) = &t.name {
        if config_key(name).is_none() {
            out.push(Problem::new(
                &t.key("Name"),
                Some(&Value::String(name.clone())),
                "cannot name a runtime file: only letters, digits, -, _, ., /, @ and : may appear",
                "pick a runtime name made of those",
            ));
        }
    }
    if let Some(host) = &t.kube_host {
        if !host.starts_with("https://") {
            out.push(Problem::new(
                &t.key("KubeHost"),
                Some(&Value::String(host.clone())),
                "must be an https:// URL",
                "give the API server URL the agent's pod reaches, e.g. https://10.0.0.1:6443",
            ));
        }
    }
    out
}

pub(crate) async fn resolve(
    agent: &Cluster,
    agent_ns: &str,
    t: &Target,
) -> Result<Resolved, Outcome> {
    let same_context = t.context.is_none() && t.kubeconfig.is_none();
    let cluster = if same_context {
        agent.clone()
    } else {
        let options = ConnectOptions {
            kubeconfig: t.kubeconfig.clone(),
            context: t.context.clone().or_else(|| Some(agent.context.clone())),
        };
        if !t.origin.is_empty() {
            vet_kubeconfig(&options, &t.key("ConfigPath"))?;
        }
        connect_with(&options, ContextFrom::Flags).await?
    };
    let namespace = t.namespace.clone().unwrap_or_else(|| agent_ns.to_string());
    let name = t
        .name
        .clone()
        .unwrap_or_else(|| format!("{}/{}", cluster.context, namespace));
    let Some(key) = config_key(&name) else {
        return Err(Outcome::BadInput(Problems(vec![Problem::new(
            &t.key("Name"),
            Some(&Value::String(name.clone())),
            "cannot name a runtime file: only letters, digits, -, _, ., /, @ and : may appear",
            "pass --runtime-name with a name made of those",
        )])));
    };
    Ok(Resolved {
        same_cluster: cluster.server == agent.server,
        target: t.clone(),
        cluster,
        namespace,
        name,
        key,
    })
}

/// The agent's installation as attach needs it.
pub(crate) struct AgentState {
    pub cluster: Cluster,
    pub namespace: String,
    pub agent_name: String,
    /// The runtime of the agent's namespace; `None` for an agent installed
    /// alone (`AgentOnly`), which serves only attached runtimes.
    pub own_runtime: Option<String>,
    codefresh_host: String,
    deployment: Manifest,
    pub files: BTreeMap<String, String>,
    /// The agent's values, identity and record: a runtime's own objects
    /// are rendered from them, for its namespace.
    pub values: crate::values::Values,
    pub identity: crate::render::Identity,
    record_tree: Value,
}

impl AgentState {
    /// True when `r` is not a runtime attached to the agent but its own
    /// (by name), or the agent's namespace of its cluster (an agent
    /// installed alone has no runtime there): attach, detach and the
    /// runtime commands refuse it.
    pub(crate) fn is_own(&self, r: &Resolved) -> bool {
        self.own_runtime.as_ref() == Some(&r.name)
            || (r.same_cluster && r.namespace == self.namespace)
    }
}

pub(crate) async fn read_agent(
    cluster: Cluster,
    namespace: &str,
    command: &str,
) -> Result<AgentState, Outcome> {
    let plan = plan::plan(Input::default(), &cluster, namespace).await?;
    let agent_only = plan.loaded.values.agent_only;
    let registered = if agent_only {
        plan.identity.registered
    } else {
        plan.runtime_name.is_some()
    };
    if !registered {
        return Err(Outcome::Failed(
            anyhow::anyhow!(
                "the agent in namespace {namespace} is not registered on the Codefresh platform (an offline install)"
            ),
            Some(format!(
                "`cf-runner {command}` sets the agent's runtimes on the platform: re-install the agent with `cf-runner init` online first"
            )),
        ));
    }
    let values = &plan.loaded.values;
    let deployment = plan
        .rendered
        .manifests
        .iter()
        .find(|m| m.kind == "Deployment" && m.name == AGENT_DEPLOYMENT)
        .cloned()
        .ok_or_else(|| {
            Outcome::Failed(
                anyhow::anyhow!("the render of namespace {namespace} holds no agent Deployment"),
                None,
            )
        })?;
    let files = match live::read_config(&cluster.client, namespace, CONFIG_SECRET).await {
        Ok(Some(c)) if c.ours => c.files,
        Ok(Some(_)) => {
            output::error(
                &anyhow::anyhow!(
                    "Secret {CONFIG_SECRET} in namespace {namespace} exists and is not cf-runner's"
                ),
                Some(
                    "it may be venonactl's: move that install with `cf-runner adopt` first, or remove the Secret if nothing uses it",
                ),
            );
            return Err(Outcome::PreflightFailed);
        }
        Ok(None) => BTreeMap::new(),
        Err(e) => {
            return Err(Outcome::from_cluster(
                e,
                "reading the agent's runtimes failed",
            ))
        }
    };
    Ok(AgentState {
        agent_name: plan.identity.agent_name(values),
        own_runtime: (!agent_only).then(|| plan.identity.runtime_name(values)),
        codefresh_host: values.codefresh_host.clone(),
        deployment,
        files,
        namespace: namespace.to_string(),
        cluster,
        values: plan.loaded.values.clone(),
        identity: plan.identity.clone(),
        record_tree: plan.record_tree.clone(),
    })
}

/// Runs an attach or a detach of the agent in `agent`.
pub(crate) async fn run(
    agent: AgentSide,
    change: Change,
    platform_args: &PlatformOptions,
    timeout: Duration,
) -> Outcome {
    let command = change.command();
    let problems: Vec<Problem> = match &change {
        Change::Attach { targets, .. } => targets.iter().flat_map(target_problems).collect(),
        Change::Detach(t) => {
            let mut p = target_problems(t);
            if t.namespace.is_none() {
                p.push(Problem::new(
                    "--kube-namespace",
                    None,
                    "is needed: it names the runtime to detach",
                    "pass --kube-namespace <runtime namespace> (and --kube-context-name for another cluster)",
                ));
            }
            p
        }
    };
    if !problems.is_empty() {
        return Outcome::BadInput(Problems(problems));
    }
    // Before the lock, any platform call or write: a kubeconfig that the
    // runtimes file names may not run a command unasked.
    if let Change::Attach { targets, .. } = &change {
        for t in targets {
            if let Err(o) = vet_target(t, &agent) {
                return o;
            }
        }
    }
    let ns = agent.namespace.clone();
    under_agent_lock(&agent, command, timeout, async |cluster: &Cluster| {
        under_lock(cluster.clone(), &ns, change, platform_args, timeout).await
    })
    .await
}

/// Connects to the agent's cluster and runs `steps` under the agent's lock.
pub(crate) async fn under_agent_lock<F>(
    agent: &AgentSide,
    command: &str,
    timeout: Duration,
    steps: F,
) -> Outcome
where
    F: AsyncFnOnce(&Cluster) -> Result<(), Outcome>,
{
    let cluster = match connect_with(&agent.connect, ContextFrom::Flags).await {
        Ok(c) => c,
        Err(o) => return o,
    };
    let ns = &agent.namespace;
    let held = match lock::take(&cluster, ns, command, LockWait::of(false, timeout), None).await {
        Ok(h) => h,
        Err(o) => return o,
    };
    let outcome = match steps(&cluster).await {
        Ok(()) => Outcome::Ok,
        Err(o) => o,
    };
    lock::release(held, ns).await;
    outcome
}

async fn under_lock(
    cluster: Cluster,
    ns: &str,
    change: Change,
    platform_args: &PlatformOptions,
    timeout: Duration,
) -> Result<(), Outcome> {
    let command = change.command();
    let state = read_agent(cluster, ns, command).await?;
    let platform = platform_client(platform_args, &state, command)?;
    let agent = agent_on_platform(&platform, &state.agent_name).await?;
    match change {
        Change::Attach { targets, accepted } => {
            if !accepted.insecure_tls {
                if let Some(p) = insecure_agent_problem(&state.deployment, &state.namespace) {
                    return Err(Outcome::BadInput(Problems(vec![p])));
                }
            }
            if !accepted.build_readable_tokens {
                if let Some(own) = &state.own_runtime {
                    let places: Vec<String> =
                        targets.iter().filter_map(|t| t.namespace.clone()).collect();
                    let p = builds_beside_agent_problem(&state.namespace, own, &places);
                    return Err(Outcome::BadInput(Problems(vec![p])));
                }
            }
            attach(state, targets, &platform, agent, timeout).await
        }
        Change::Detach(target) => detach(state, *target, &platform, agent, timeout).await,
    }
}

pub(crate) fn platform_client(
    args: &PlatformOptions,
    state: &AgentState,
    command: &str,
) -> Result<Platform, Outcome> {
    let auth = register::resolve(
        args,
        Some(crate::platform::auth::NamedUrl {
            url: &state.codefresh_host,
            origin: register::RECORDED_HOST,
        }),
    )
    .doing("finding the Codefresh API token")?
    .ok_or_else(|| {
        register::token_needed(
            command,
            "set the agent's runtimes on the Codefresh platform",
            "",
        )
    })?;
    register::client(&auth, args)
}

/// The agent named `name` on the platform, if it is there (a `delete`
/// re-run after the platform was cleaned finds none).
pub(crate) async fn agent_if_there(
    platform: &Platform,
    name: &str,
) -> Result<Option<Agent>, Outcome> {
    let list = platform
        .agents_named(name)
        .await
        .doing("reading the agent on the Codefresh platform")?;
    Ok(list.into_iter().find(|a| a.name == name))
}

/// The agent named `name` on the platform; its absence is a failure.
pub(crate) async fn agent_on_platform(platform: &Platform, name: &str) -> Result<Agent, Outcome> {
    agent_if_there(platform, name).await?.ok_or_else(|| {
        Outcome::Failed(
            anyhow::anyhow!("the Codefresh platform has no agent named {name}"),
            Some("re-install the agent with `cf-runner init` to register it again".into()),
        )
    })
}

/// Makes the agent's credentials in one runtime namespace (0 writes when
/// they are there) and reads its token once Kubernetes has filled it.
pub(crate) async fn ensure_access(
    r: &Resolved,
    extra: Vec<Manifest>,
    timeout: Duration,
    command: &str,
) -> Result<RuntimeAccess, Outcome> {
    match live::namespace_exists(&r.cluster.client, &r.namespace).await {
        Ok(true) => {}
        Ok(false) => {
            output::error(
                &anyhow::anyhow!(
                    "namespace {} does not exist in context {}",
                    r.namespace,
                    r.cluster.context
                ),
                Some("create it (kubectl create namespace ...) or name another with --kube-namespace"),
            );
            return Err(Outcome::PreflightFailed);
        }
        Err(e) => {
            return Err(Outcome::from_cluster(
                e,
                "reading the runtime's namespace failed",
            ))
        }
    }
    let mut manifests = access_manifests(&r.namespace);
    manifests.extend(extra);
    converge::apply_with_progress(&r.cluster, &manifests, &r.namespace, false, command).await?;
    let wait = timeout.min(Duration::from_secs(60));
    let shown = output::waiting(&format!(
        "waiting up to {}s for Kubernetes to fill the token of Secret {ACCESS_TOKEN_SECRET} in namespace {} (context {})",
        wait.as_secs(),
        r.namespace,
        r.cluster.context
    ));
    let token =
        live::filled_token(&r.cluster.client, &r.namespace, ACCESS_TOKEN_SECRET, wait).await;
    drop(shown);
    let (token, ca_pem) = match token {
        Ok(Some(t)) => t,
        Ok(None) => {
            return Err(Outcome::Failed(
                anyhow::anyhow!(
                    "Kubernetes did not fill the token of Secret {ACCESS_TOKEN_SECRET} in namespace {} within {}s",
                    r.namespace,
                    wait.as_secs()
                ),
                Some(
                    "the cluster's token controller (kube-controller-manager) fills it: check that it runs, then re-run"
                        .into(),
                ),
            ))
        }
        Err(e) => return Err(Outcome::from_cluster(e, "reading the runtime's token failed")),
    };
    let host = r.target.kube_host.clone().unwrap_or_else(|| {
        if r.same_cluster {
            IN_CLUSTER_HOST.to_string()
        } else {
            r.cluster.server.trim_end_matches('/').to_string()
        }
    });
    Ok(RuntimeAccess {
        name: r.name.clone(),
        host,
        token,
        ca_pem,
    })
}

/// The agent's values for a runtime: its namespace and cluster, and its
/// own node selector, tolerations and storage where it gives them.
fn runtime_values(state: &AgentState, r: &Resolved) -> crate::values::Values {
    let mut values = state.values.clone();
    // The runtime's own objects are rendered, whatever the agent's install.
    values.agent_only = false;
    values.namespace = r.namespace.clone();
    values.context = Some(r.cluster.context.clone());
    let own = &r.target.settings;
    if let Some(selector) = &own.node_selector {
        values.runtime.scheduling.node_selector = selector.clone();
    }
    if let Some(tolerations) = &own.tolerations {
        values.runtime.scheduling.tolerations = tolerations.clone();
    }
    if let Some(storage) = &own.storage {
        values.storage = storage.clone();
    }
    values
}

/// A runtime as rendered for its namespace and cluster.
pub(crate) struct RuntimeRender {
    /// Its objects in its namespace (and, with storage of its own, the
    /// StorageClass and volume provisioner in its cluster).
    pub manifests: Vec<Manifest>,
    /// The runtime spec the platform gets for it.
    pub spec: Value,
}

/// The runtime's own objects in its namespace, rendered from the agent's
/// values for that namespace with the runtime's own settings: the engine's
/// ServiceAccount and Role, the dind TLS Secret, daemon config and Service
/// (what a build's pods mount and run as), and its storage when it has its
/// own. The dind certificate names the runtime's namespace: the one there
/// is kept, else the platform signs a new one (the key never leaves).
pub(crate) async fn runtime_objects(
    state: &AgentState,
    r: &Resolved,
    platform: &Platform,
    account_id: &str,
) -> Result<RuntimeRender, Outcome> {
    let values = runtime_values(state, r);
    let mut identity = state.identity.clone();
    identity.account_id = Some(account_id.to_string());
    identity.context = Some(r.cluster.context.clone());
    identity.runtime_name = Some(r.name.clone());
    let held = crate::cluster::secrets::read_text(
        &r.cluster.client,
        &r.namespace,
        crate::render::DIND_CERTS_SECRET,
    )
    .await
    .doing("reading the runtime's dind certificate failed")?
    .unwrap_or_default();
    let (ca, cert, key) = match (
        held.get("ca.pem"),
        held.get("server-cert.pem"),
        held.get("server-key.pem"),
    ) {
        (Some(ca), Some(cert), Some(key)) if !ca.is_empty() && !key.is_empty() => (
            crate::values::Secret::new(ca.clone()),
            crate::values::Secret::new(cert.clone()),
            crate::values::Secret::new(key.clone()),
        ),
        _ => crate::app::identity::certificate::sign(platform, &r.namespace).await?,
    };
    identity.dind_ca = Some(ca);
    identity.dind_cert = Some(cert);
    identity.dind_key = Some(key);
    let rendered = crate::render::render(&values, &identity, &state.record_tree)
        .map_err(Outcome::render_failed)?;
    let own_storage = r.target.settings.storage.is_some();
    let manifests = rendered
        .manifests
        .into_iter()
        .filter(|m| {
            (m.component == Component::Runtime && m.namespace.is_some())
                || (own_storage && m.component == Component::VolumeProvisioner)
        })
        .collect();
    Ok(RuntimeRender {
        manifests,
        spec: register::spec_to_send(&rendered.runtime_environment, Some(account_id)),
    })
}

/// The account the runtimes belong to: the agent's own runtime names it
/// (the record does not keep it), else the platform says whose the token is.
pub(crate) async fn account_of(platform: &Platform, state: &AgentState) -> Result<String, Outcome> {
    if let Some(own) = &state.own_runtime {
        let own = platform
            .runtime(own)
            .await
            .doing("reading the agent's runtime environment")?;
        if let Some(account) = own.as_ref().and_then(register::account_of_runtime) {
            return Ok(account);
        }
    }
    let who = platform
        .whoami()
        .await
        .doing("checking the Codefresh API token")?;
    who.account_id.ok_or_else(|| {
        Outcome::failed(
            anyhow::anyhow!(
                "the platform did not say which account the token is for (GET /api/user was refused, and {} names none)",
                match &state.own_runtime {
                    Some(own) => format!("runtime environment {own}"),
                    None => "no runtime of the agent's".to_string(),
                }
            ),
            Some("use an API key that may read the user (GET /api/user), then re-run".into()),
        )
    })
}

/// What the platform has of a runtime before the run.
pub(crate) enum OnPlatform {
    /// Registered for this namespace and cluster: its spec is kept in step.
    Ours,
    /// Registered for another place (by another tool): left as it is.
    Elsewhere,
    /// Not registered: this run registers it.
    Missing,
}

/// Where runtime environment `re` (the platform's, `None` when it has none)
/// sends `r`'s builds: the one check of `runtime attach` and `runtime upgrade`.
/// One registered for another namespace or cluster name is left as it is
/// (said in a note), or refused (exit 3, before any write, `fix` said) when
/// the run gives the runtime settings of its own, which live in that spec:
/// cf-runner does not change the spec of a runtime it did not register.
pub(crate) fn on_platform(
    r: &Resolved,
    re: Option<&Value>,
    fix: &str,
) -> Result<OnPlatform, Outcome> {
    let Some(re) = re else {
        return Ok(OnPlatform::Missing);
    };
    if register::runs_in(re, &r.namespace, &r.cluster.context) {
        return Ok(OnPlatform::Ours);
    }
    let place = |p: &str| {
        re.pointer(p)
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string()
    };
    let (ns, ctx) = (
        place("/runtimeScheduler/cluster/namespace"),
        place("/runtimeScheduler/cluster/clusterProvider/selector"),
    );
    if !r.target.settings.is_empty() {
        output::error(
            &anyhow::anyhow!(
                "runtime environment {} on the Codefresh platform runs builds in namespace {ns} of cluster {ctx}, not in namespace {} of {}: cf-runner does not change the spec of a runtime it did not register",
                r.name, r.namespace, r.cluster.context
            ),
            Some(fix),
        );
        return Err(Outcome::PreflightFailed);
    }
    output::note(&format!(
        "runtime environment {} is registered for namespace {ns} of cluster {ctx}; its spec is left as it is",
        r.name
    ));
    Ok(OnPlatform::Elsewhere)
}

/// Registers a missing runtime environment as `init` does, then sends its
/// spec when the platform's differs (a runtime registered for elsewhere is
/// left as it is).
async fn register_runtime(
    platform: &Platform,
    state: &AgentState,
    r: &Resolved,
    found: &OnPlatform,
    spec: &Value,
) -> Result<(), Outcome> {
    match found {
        OnPlatform::Elsewhere => return Ok(()),
        OnPlatform::Missing => {
            let request =
                register::registration(&runtime_values(state, r), &r.cluster.context, &r.name);
            platform
                .register_runtime(&request)
                .await
                .doing("registering the runtime environment")?;
            output::applied("created", &format!("runtime environment {}", r.name), None);
        }
        OnPlatform::Ours => {}
    }
    if register::send_spec(platform, &r.name, spec).await? {
        output::applied(
            "configured",
            &format!("runtime environment {}'s spec", r.name),
            None,
        );
    }
    Ok(())
}

/// Writes the files (0 writes when unchanged), then rolls the agent to
/// them and waits for the rollout, saying the fewest ready replicas seen.
pub(crate) async fn roll_agent(
    state: &AgentState,
    files: &BTreeMap<String, String>,
    timeout: Duration,
    command: &str,
) -> Result<(), Outcome> {
    let config = config_manifest(&state.namespace, files);
    let mut deployment = state.deployment.clone();
    config_dir_mode(&mut deployment, files);
    converge::apply_with_progress(
        &state.cluster,
        &[config, deployment.clone()],
        &state.namespace,
        false,
        command,
    )
    .await?;
    let fewest = Arc::new(AtomicI32::new(i32::MAX));
    let watcher = {
        let fewest = fewest.clone();
        let client = state.cluster.client.clone();
        let ns = state.namespace.clone();
        tokio::spawn(async move {
            loop {
                if let Ok(Some(n)) = live::ready_replicas(&client, &ns, AGENT_DEPLOYMENT).await {
                    fewest.fetch_min(n, Ordering::Relaxed);
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        })
    };
    let waited = converge::wait_with_progress(
        &state.cluster,
        std::slice::from_ref(&deployment),
        timeout,
        command,
    )
    .await;
    watcher.abort();
    waited?;
    let fewest = fewest.load(Ordering::Relaxed);
    if files.is_empty() {
        output::note(&format!(
            "the agent (Deployment {AGENT_DEPLOYMENT} in namespace {}) now runs no replica: it serves no runtime, and venona does not start without one; the next `cf-runner runtime attach` starts it",
            state.namespace
        ));
    } else if state.files.is_empty() && state.own_runtime.is_none() {
        output::note(&format!(
            "the agent (Deployment {AGENT_DEPLOYMENT} in namespace {}) starts with its first runtime: without one it ran no replica",
            state.namespace
        ));
    } else if fewest != i32::MAX {
        output::note(&format!(
            "the agent (Deployment {AGENT_DEPLOYMENT} in namespace {}) had at least {fewest} ready replica(s) throughout",
            state.namespace
        ));
    }
    Ok(())
}

pub(crate) async fn set_platform_runtimes(
    platform: &Platform,
    agent: &Agent,
    wanted: Vec<String>,
) -> Result<(), Outcome> {
    let mut have = agent.runtimes.clone();
    have.sort();
    let mut sorted = wanted.clone();
    sorted.sort();
    sorted.dedup();
    if have == sorted {
        output::applied(
            "unchanged",
            &format!("agent {}'s runtimes on the platform", agent.name),
            None,
        );
        return Ok(());
    }
    platform
        .update_agent(agent, &sorted)
        .await
        .doing("setting the agent's runtimes on the Codefresh platform")?;
    output::applied(
        "configured",
        &format!(
            "agent {}'s runtimes on the platform: {}",
            agent.name,
            sorted.join(", ")
        ),
        None,
    );
    Ok(())
}

async fn attach(
    state: AgentState,
    targets: Vec<Target>,
    platform: &Platform,
    agent: Agent,
    timeout: Duration,
) -> Result<(), Outcome> {
    let command = "runtime attach";
    let mut resolved = Vec::new();
    // The agent's own runtime has a file too: config-dir mode excludes
    // in-cluster mode. An agent installed alone has none.
    if let Some(own) = &state.own_runtime {
        let own = Target {
            name: Some(own.clone()),
            ..Target::default()
        };
        resolved.push(resolve(&state.cluster, &state.namespace, &own).await?);
    }
    let own_count = resolved.len();
    for t in &targets {
        let r = resolve(&state.cluster, &state.namespace, t).await?;
        if own_count == 0 && r.same_cluster && r.namespace == state.namespace {
            return Err(Outcome::BadInput(Problems(vec![Problem::new(
                &t.key("Namespace"),
                Some(&Value::String(r.namespace.clone())),
                "is the namespace of an agent installed alone (AgentOnly): it holds no runtime's objects, and its runtimes build in other namespaces",
                "name the namespace the runtime builds in (it exists, and is not the agent's)",
            )])));
        }
        if let Some(other) = resolved.iter().find(|o| o.key == r.key) {
            return Err(Outcome::BadInput(Problems(vec![if other.name == r.name {
                Problem::new(
                    &t.key("Name"),
                    Some(&Value::String(r.name.clone())),
                    "names a runtime given twice (or the agent's own)",
                    "give each runtime once; the agent's own runtime is always served",
                )
            } else {
                key_clash(t, &r, &other.name)
            }])));
        }
        refuse_key_clash(&state, t, &r)?;
        resolved.push(r);
    }
    // Before any write: what the platform has of each runtime.
    let mut found = Vec::new();
    for r in resolved.iter().skip(own_count) {
        let re = platform
            .runtime(&r.name)
            .await
            .doing("reading the runtime environment on the Codefresh platform")?;
        let fix = format!(
            "name a new runtime with {} (cf-runner registers it), or drop the runtime's own settings",
            r.target.key("Name")
        );
        found.push(on_platform(r, re.as_ref(), &fix)?);
    }
    for r in resolved.iter().skip(own_count) {
        if !r.same_cluster
            && r.target.settings.storage.is_none()
            && state.values.storage.provisioned
        {
            output::warn(&format!(
                "runtime {} has no Storage of its own: its builds' volumes use StorageClass {}, which cf-runner installed in the agent's cluster only, not in {}; give the runtime its own Storage (README: One agent, many runtimes)",
                r.name, state.values.storage.class_name, r.cluster.context
            ));
        }
    }
    let account_id = account_of(platform, &state).await?;
    let mut files = state.files.clone();
    let mut specs = Vec::new();
    for (i, r) in resolved.iter().enumerate() {
        // The agent's own namespace has its runtime's objects from `init`.
        let objects = if i < own_count {
            Vec::new()
        } else {
            let render = runtime_objects(&state, r, platform, &account_id).await?;
            specs.push(render.spec);
            render.manifests
        };
        let access = ensure_access(r, objects, timeout, command).await?;
        files.insert(r.key.clone(), access.file_text());
    }
    roll_agent(&state, &files, timeout, command).await?;
    // The platform last: it sends a runtime's builds once the agent can start them.
    for ((r, found), spec) in resolved.iter().skip(own_count).zip(&found).zip(&specs) {
        register_runtime(platform, &state, r, found, spec).await?;
    }
    let mut wanted = agent.runtimes.clone();
    wanted.extend(resolved.iter().map(|r| r.name.clone()));
    set_platform_runtimes(platform, &agent, wanted).await?;
    let names: Vec<&str> = resolved
        .iter()
        .skip(own_count)
        .map(|r| r.name.as_str())
        .collect();
    output::done(&format!(
        "agent {} in namespace {} serves {}{}",
        state.agent_name,
        state.namespace,
        names.join(", "),
        match &state.own_runtime {
            Some(own) => format!(" (and its own runtime {own})"),
            None => String::new(),
        }
    ));
    Ok(())
}

async fn detach(
    state: AgentState,
    target: Target,
    platform: &Platform,
    agent: Agent,
    timeout: Duration,
) -> Result<(), Outcome> {
    let command = "runtime detach";
    let r = resolve(&state.cluster, &state.namespace, &target).await?;
    if state.is_own(&r) {
        return Err(Outcome::BadInput(Problems(vec![Problem::new(
            "--kube-namespace",
            Some(&Value::String(r.namespace.clone())),
            match &state.own_runtime {
                Some(own) => format!(
                    "is the agent's own runtime {own}: an agent always serves its own namespace"
                ),
                None => "is the namespace of the agent installed alone: no runtime builds there"
                    .to_string(),
            },
            format!(
                "to remove the agent, run `cf-runner delete --kube-namespace {}`",
                state.namespace
            ),
        )])));
    }
    refuse_key_clash(&state, &target, &r)?;
    stop_serving(&state, &r, Some((platform, &agent)), timeout, command).await?;
    remove_access(&r, timeout).await?;
    output::done(&format!(
        "agent {} in namespace {} no longer serves {}",
        state.agent_name, state.namespace, r.name
    ));
    Ok(())
}

/// Takes runtime `r` off the agent's list on the platform (when `on_platform`
/// is given) and off its runtimes file, and rolls the agent to the files
/// left. Returns the runtimes the agent still lists on the platform.
pub(crate) async fn stop_serving(
    state: &AgentState,
    r: &Resolved,
    on_platform: Option<(&Platform, &Agent)>,
    timeout: Duration,
    command: &str,
) -> Result<Vec<String>, Outcome> {
    let mut serves = Vec::new();
    if let Some((platform, agent)) = on_platform {
        serves = agent
            .runtimes
            .iter()
            .filter(|n| **n != r.name)
            .cloned()
            .collect();
        set_platform_runtimes(platform, agent, serves.clone()).await?;
    }
    let mut files = state.files.clone();
    // By key, and by the name a file holds (a key written by another rule);
    // never a key whose file names another runtime (`team.x` is not
    // `team/x`, though both map to one key).
    files.retain(|k, text| {
        let named = file_runtime_name(text);
        let other = named.as_deref().is_some_and(|n| n != r.name);
        (*k != r.key || other) && named.as_deref() != Some(&r.name)
    });
    // An agent installed alone rolls to no file at all when its last
    // runtime goes: it then runs no replica (venona does not start
    // without a runtime) until the next attach.
    if !files.is_empty() || state.own_runtime.is_none() {
        roll_agent(state, &files, timeout, command).await?;
    }
    Ok(serves)
}

/// `init` with `Runtimes` in its values: once the agent is installed, the
/// runtimes are attached to it as `runtime attach -f` does (under attach's
/// own lock, with the token the install used).
pub(crate) fn after_init(
    values: &crate::values::Values,
    runtimes: &[RuntimeEntry],
    auth: &crate::platform::Auth,
    allow_http: bool,
    accepted: Accepted,
    timeout: Duration,
) -> Outcome {
    let agent = AgentSide {
        connect: ConnectOptions {
            kubeconfig: values.config_path.as_ref().map(PathBuf::from),
            context: values.context.clone(),
        },
        namespace: values.namespace.clone(),
    };
    let platform = PlatformOptions {
        token: Some(auth.token.expose().to_string()),
        url: Some(auth.url.clone()),
        insecure: values.insecure,
        allow_http,
    };
    let targets = runtimes.iter().cloned().map(Target::from).collect();
    output::say(&format!(
        "Attaching the {} runtime(s) of Runtimes to the agent in namespace {}",
        runtimes.len(),
        values.namespace
    ));
    let change = Change::Attach { targets, accepted };
    crate::app::session::connect::runtime().block_on(run(agent, change, &platform, timeout))
}

/// The wizard's choice: attach the runtime of an existing namespace to the
/// agent it found in the cluster of `context`.
pub(crate) fn from_wizard(
    to: &crate::wizard::AttachTo,
    kubeconfig: Option<PathBuf>,
    context: Option<String>,
    platform: PlatformOptions,
    accepted: Accepted,
    timeout: Duration,
) -> Outcome {
    let agent = AgentSide {
        connect: ConnectOptions {
            kubeconfig,
            context,
        },
        namespace: to.agent_namespace.clone(),
    };
    // The wizard's kubeconfig may be a values file's `ConfigPath`.
    if let Err(o) = vet_kubeconfig(&agent.connect, "ConfigPath") {
        return o;
    }
    let target = Target {
        namespace: Some(to.namespace.clone()),
        ..Target::default()
    };
    let change = Change::Attach {
        targets: vec![target],
        accepted,
    };
    crate::app::session::connect::runtime().block_on(run(agent, change, &platform, timeout))
}

/// Vets the kubeconfig a runtimes file entry names (see
/// [`vet_kubeconfig`]), with the context it connects to (the entry's, else
/// the agent's as given).
fn vet_target(t: &Target, agent: &AgentSide) -> Result<(), Outcome> {
    if t.origin.is_empty() || t.kubeconfig.is_none() {
        return Ok(());
    }
    let options = ConnectOptions {
        kubeconfig: t.kubeconfig.clone(),
        context: t.context.clone().or_else(|| agent.connect.context.clone()),
    };
    vet_kubeconfig(&options, &t.key("ConfigPath"))
}

/// The runtime whose file already sits at `r`'s key in the agent's
/// runtimes Secret, when that is another runtime than `r`: venonactl's
/// key rule maps `/`, `@` and `:` to `.`, so `team/x` and `team.x` share
/// one key, and writing one would replace the other's credentials while
/// the platform still sends the other's builds to the agent.
pub(crate) fn key_holder(files: &BTreeMap<String, String>, r: &Resolved) -> Option<String> {
    let text = files.get(&r.key)?;
    match file_runtime_name(text) {
        Some(name) if name != r.name => Some(name),
        Some(_) => None,
        // A file whose name cannot be read is not known to be `r`'s.
        None => Some("(a runtime whose file names none)".to_string()),
    }
}

/// Bad input (exit 2) when `r`'s key in the agent's runtimes Secret holds
/// another runtime's file ([`key_holder`]): for every command that writes
/// or removes the file at `r.key` (attach, detach, and `runtime rotate`,
/// `runtime upgrade` and `runtime delete`, which should call it right after
/// [`resolve`], before any write).
pub(crate) fn refuse_key_clash(
    state: &AgentState,
    t: &Target,
    r: &Resolved,
) -> Result<(), Outcome> {
    match key_holder(&state.files, r) {
        Some(holder) => Err(Outcome::BadInput(Problems(vec![key_clash(t, r, &holder)]))),
        None => Ok(()),
    }
}

/// The refusal of a runtime name whose key another runtime holds.
fn key_clash(t: &Target, r: &Resolved, holder: &str) -> Problem {
    Problem::new(
        &t.key("Name"),
        Some(&Value::String(r.name.clone())),
        format!(
            "maps to the key {} of Secret {CONFIG_SECRET}, which runtime {holder} already holds \
             (/, @ and : all become . in a key): its credentials would be replaced while the \
             platform still sends {holder}'s builds to the agent; nothing was written",
            r.key
        ),
        format!(
            "give this runtime a name that differs from {holder} in more than /, @, : and . \
             ({} NAME)",
            t.key("Name")
        ),
    )
}

/// Why an agent that skips TLS verification must not get runtimes
/// attached, unless `--accept-agent-insecure-tls`: the agent's Deployment
/// (as cf-runner applies it) sets `NODE_TLS_REJECT_UNAUTHORIZED` to a value
/// venona does not read as true (`--insecure` sets `0`), and venona 2.0.10
/// in config-dir mode then skips verification towards every runtime's API
/// server (`Insecure: !rejectTLSUnauthorized` in `cmd/start.go`), so
/// whoever sits on the path to an attached cluster gets the agent's token
/// there. `None` when the agent verifies TLS.
pub(crate) fn insecure_agent_problem(deployment: &Manifest, namespace: &str) -> Option<Problem> {
    let containers = deployment
        .object
        .pointer("/spec/template/spec/containers")
        .and_then(Value::as_array)?;
    let setting = containers
        .iter()
        .filter_map(|c| c.get("env").and_then(Value::as_array))
        .flatten()
        .find(|e| e.get("name").and_then(Value::as_str) == Some("NODE_TLS_REJECT_UNAUTHORIZED"))?;
    let value = setting.get("value").and_then(Value::as_str);
    // viper's GetBool: strconv.ParseBool, anything else is false; an empty
    // value keeps the default (verify). A value from elsewhere
    // (`valueFrom`) cannot be told: taken as insecure.
    if value
        .is_some_and(|v| v.is_empty() || matches!(v, "1" | "t" | "T" | "TRUE" | "true" | "True"))
    {
        return None;
    }
    Some(Problem::new(
        "--accept-agent-insecure-tls",
        value.map(|v| Value::String(v.to_string())).as_ref(),
        format!(
            "is needed: the agent in namespace {namespace} skips TLS verification \
             (NODE_TLS_REJECT_UNAUTHORIZED, set by --insecure / Insecure at init), and with \
             attached runtimes it skips it towards every runtime's API server too: anyone on \
             the network path can take the agent's token for that cluster; nothing was written"
        ),
        "re-install the agent without --insecure (give it the platform's CA instead), or pass \
         --accept-agent-insecure-tls if every attached cluster's network path is trusted",
    ))
}

/// Why a runtime must not be attached to an agent whose namespace runs
/// builds (its own runtime `own`), unless `--allow-builds-to-read-tokens`:
/// every build there runs as `codefresh-engine`, which reads every Secret
/// of the namespace (as the chart grants), the agent's `runnerconf` among
/// them, which would hold the attached runtime's token: every pipeline of
/// `own` could then create pods in the attached runtime's namespace.
pub(crate) fn builds_beside_agent_problem(
    namespace: &str,
    own: &str,
    attached: &[String],
) -> Problem {
    let places = if attached.is_empty() {
        "the attached runtimes' namespaces".to_string()
    } else {
        format!("namespace(s) {}", attached.join(", "))
    };
    Problem::new(
        "--allow-builds-to-read-tokens",
        None,
        format!(
            "is needed: the agent in namespace {namespace} also runs the builds of runtime {own} there, \
             and every build can read the Secret {CONFIG_SECRET} that would hold the attached runtimes' \
             tokens, so every pipeline of {own} could create pods in {places}; nothing was written"
        ),
        "install an agent alone (`cf-runner init --agent-only --kube-namespace <a namespace without builds>`) \
         and attach every runtime to it; or pass --allow-builds-to-read-tokens if everyone who writes \
         pipelines for that runtime may also run pods in the attached namespaces",
    )
}

/// True for the names of the agent's credentials in a runtime namespace:
/// the access ServiceAccount, Role and RoleBinding and its token Secret, and
/// the bridge a stopped `runtime rotate` may have left (a live token too).
pub(crate) fn is_access_credential(name: &str) -> bool {
    [
        ACCESS_NAME,
        ACCESS_TOKEN_SECRET,
        crate::render::runtimes::BRIDGE,
        crate::render::runtimes::BRIDGE_TOKEN_SECRET,
    ]
    .contains(&name)
}

/// Removes the agent's credentials from the runtime's namespace: only the
/// objects cf-runner labelled as such.
async fn remove_access(r: &Resolved, timeout: Duration) -> Result<(), Outcome> {
    let listed = inventory::labelled(&r.cluster.client, &r.namespace)
        .await
        .doing("listing the agent's credentials in the runtime's namespace failed")?;
    let ours: Vec<LiveObject> = listed
        .into_iter()
        .filter(|o| o.label(LABEL_COMPONENT) == Some(Component::RuntimeAccess.as_str()))
        .filter(|o| is_access_credential(&o.name))
        .collect();
    if ours.is_empty() {
        return Ok(());
    }
    let phases = delete::plan(ours);
    let report = delete::delete_all(&r.cluster.client, &phases, timeout, &|e| {
        if let delete::Event::Gone(o) = e {
            output::removed(&format!("{}/{}", o.kind, o.name), o.namespace.as_deref());
        }
    })
    .await;
    if !report.ok() {
        return Err(converge::delete_failed(&report, timeout));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
