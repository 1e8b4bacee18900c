//! What the runtime commands work on (attach, detach, delete, upgrade,
//! rotate; adopt's runtimes and the view of them too): the agent's side and the
//! target runtime, read from flags, a runtimes file or values, and checked
//! before anything is read from a cluster (names, key clashes, an agent
//! that skips TLS, builds beside the agent's tokens).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::app::session::connect::{connect_with, vet_kubeconfig, ContextFrom};
use crate::app::session::outcome::Outcome;
use crate::cluster::{Cluster, ConnectOptions};
use crate::render::runtimes::{config_key, file_runtime_name, CONFIG_SECRET};
use crate::render::Manifest;
use crate::values::runtimes::{self, RuntimeSettings};
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

impl Target {
    pub(crate) fn key(&self, field: &str) -> String {
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
    pub(crate) fn command(&self) -> &'static str {
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
    pub(crate) codefresh_host: String,
    pub(crate) deployment: Manifest,
    pub files: BTreeMap<String, String>,
    /// The agent's values, identity and record: a runtime's own objects
    /// are rendered from them, for its namespace.
    pub values: crate::values::Values,
    pub identity: crate::render::Identity,
    pub(crate) record_tree: Value,
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

/// A runtime as rendered for its namespace and cluster.
pub(crate) struct RuntimeRender {
    /// Its objects in its namespace (and, with storage of its own, the
    /// StorageClass and volume provisioner in its cluster).
    pub manifests: Vec<Manifest>,
    /// The runtime spec the platform gets for it.
    pub spec: Value,
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

/// Vets the kubeconfig a runtimes file entry names (see
/// [`vet_kubeconfig`]), with the context it connects to (the entry's, else
/// the agent's as given).
pub(crate) fn vet_target(t: &Target, agent: &AgentSide) -> Result<(), Outcome> {
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
pub(crate) fn key_clash(t: &Target, r: &Resolved, holder: &str) -> Problem {
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
