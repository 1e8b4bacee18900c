//! The cluster: the only module that imports kube-rs. It connects from a
//! kubeconfig (the one rule for `KUBECONFIG` and the context), applies
//! rendered manifests with server-side apply (one field manager), waits for
//! workloads, reads what is installed (inventory, Secrets, discovery),
//! diffs, deletes, and runs the preflight checks and the probe. It takes
//! `render::Manifest` as plain data and reports progress and findings
//! through callbacks and return values; it never writes to the terminal
//! (`app` says it, through `output`).

pub mod adopt;
pub mod apply;
pub mod attached;
pub mod auth_plugin;
pub mod bridge;
pub mod builds;
pub mod client;
pub mod delete;
pub mod diff;
pub mod discover;
pub mod inventory;
pub mod lock;
pub mod marks;
pub mod ownership;
pub mod preflight;
pub mod probe;
mod reach;
pub mod rotation;
pub mod runtime_access;
pub mod runtimes;
pub mod secrets;
pub mod served;
pub mod support;
pub mod wait;

use std::path::PathBuf;

use kube::api::{Api, DynamicObject};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::core::{ApiResource, GroupVersionKind};
use kube::Client;

/// The one field manager cf-runner applies with.
pub const FIELD_MANAGER: &str = "cf-runner";

/// How to reach the cluster.
#[derive(Debug, Clone, Default)]
pub struct ConnectOptions {
    /// `--kube-config-path` / `ConfigPath`; else `$KUBECONFIG`, else `~/.kube/config`.
    pub kubeconfig: Option<PathBuf>,
    /// `--kube-context-name` / `Context`; else the current context.
    pub context: Option<String>,
}

/// A connected cluster.
#[derive(Clone)]
pub struct Cluster {
    pub client: Client,
    /// The context name used.
    pub context: String,
    /// The API server URL.
    pub server: String,
}

pub use crate::text::root_cause;
pub use reach::no_proxy_matches;
use reach::{proxy_setting, token_file_trimmed};

/// A kubeconfig or environment setting cf-runner cannot honour, refused
/// before any request ([`KubeError::refused_setting`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedSetting {
    /// Where it is set, as the user would look for it.
    pub setting: String,
    /// Its value, without a password.
    pub value: String,
    /// Why it cannot be used.
    pub why: String,
    /// What would do instead.
    pub fix: String,
}

/// Why talking to the cluster failed.
#[derive(Debug, thiserror::Error)]
pub enum KubeError {
    #[error("no kubeconfig found (looked at {looked_at})")]
    NoKubeconfig { looked_at: String },
    #[error("could not read the kubeconfig {path}")]
    ReadKubeconfig {
        path: String,
        #[source]
        source: kube::config::KubeconfigError,
    },
    #[error("the kubeconfig {path} {why}")]
    KubeconfigFile { path: String, why: String },
    /// A proxy (the cluster's `proxy-url`, else `HTTPS_PROXY`) that
    /// cf-runner cannot go through; said before any request.
    #[error("{setting} names a {source}")]
    UnusableProxy {
        /// Where the proxy was named: the `proxy-url` of which cluster in
        /// which kubeconfig, or `HTTPS_PROXY`.
        setting: String,
        #[source]
        source: client::UnusableProxy,
    },
    #[error("the kube context {wanted:?} is not in {path}; available: {}", available.join(", "))]
    UnknownContext {
        wanted: String,
        path: String,
        available: Vec<String>,
    },
    #[error("the kubeconfig {path} has no current context")]
    NoCurrentContext {
        path: String,
        available: Vec<String>,
    },
    #[error(transparent)]
    AuthPlugin(Box<auth_plugin::AuthPluginError>),
    #[error("could not build a client for context {context}")]
    Client {
        context: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    #[error("{action} {object}: the API server refused: {message}")]
    Api {
        action: String,
        object: String,
        message: String,
        code: u16,
        /// Kept for callers that need the status; not shown (its Debug
        /// form is a Rust struct, and `message` already says it).
        status: Box<kube::Error>,
    },
    #[error("{action} {object}: the API server did not answer within {seconds}s")]
    Timeout {
        action: String,
        object: String,
        seconds: u64,
    },
    #[error("{action} {object} failed")]
    Transport {
        action: String,
        object: String,
        #[source]
        source: Box<kube::Error>,
    },
}

impl KubeError {
    /// Wraps a kube-rs error with what we were doing, keeping API status details.
    pub fn from_kube(action: &str, object: &str, err: kube::Error) -> Self {
        match &err {
            kube::Error::Api(status) => KubeError::Api {
                action: action.into(),
                object: object.into(),
                message: crate::text::one_line(&status.message),
                code: status.code,
                status: Box::new(err),
            },
            _ => KubeError::Transport {
                action: action.into(),
                object: object.into(),
                source: Box::new(err),
            },
        }
    }

    /// This error and its causes, as one line, each said once
    /// ([`crate::text::chain_text`]).
    pub fn chain_text(&self) -> String {
        crate::text::chain_text(self)
    }

    /// True when a kubeconfig or environment setting was refused before any
    /// request (bad input, not a failure of the cluster).
    pub fn is_setting_refused(&self) -> bool {
        self.refused_setting().is_some()
    }

    /// The setting refused before any request, for a message that names
    /// it, its value, why and the fix (the run ends with exit 2).
    pub fn refused_setting(&self) -> Option<RefusedSetting> {
        match self {
            KubeError::UnusableProxy { setting, source } => Some(RefusedSetting {
                setting: setting.clone(),
                value: source.shown.clone(),
                why: source.why.clone(),
                fix: self.hint().unwrap_or_default(),
            }),
            _ => None,
        }
    }

    /// True when TLS failed because the server's certificate is not trusted
    /// (wrong or stale CA), which no VPN or proxy setting fixes.
    pub fn is_certificate_problem(&self) -> bool {
        let text = self.chain_text();
        [
            "UnknownIssuer",
            "invalid peer certificate",
            "BadSignature",
            "NotValidForName",
        ]
        .iter()
        .any(|needle| text.contains(needle))
    }

    /// The HTTP status code, when the API server answered.
    pub fn code(&self) -> Option<u16> {
        match self {
            KubeError::Api { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// A hint for the user, when there is an obvious next step.
    pub fn hint(&self) -> Option<String> {
        match self {
            KubeError::NoKubeconfig { .. } => {
                Some("pass --kube-config-path, or set KUBECONFIG".into())
            }
            KubeError::AuthPlugin(e) => Some(e.hint()),
            KubeError::UnusableProxy { .. } => Some(
                "name an http:// or socks5:// proxy in the kubeconfig's proxy-url (or HTTPS_PROXY), \
                 or cover the server with NO_PROXY to go direct"
                    .into(),
            ),
            KubeError::UnknownContext { .. } | KubeError::NoCurrentContext { .. } => {
                Some("pass --kube-context-name with one of the contexts listed".into())
            }
            KubeError::Api { code: 401, .. } => Some(
                "the cluster rejected your credentials: refresh them (e.g. re-run your cloud's get-credentials command)".into(),
            ),
            KubeError::Api { code: 403, .. } => Some(
                "your user lacks a permission: `cf-runner check` lists every one the install needs".into(),
            ),
            // Trusted, but for other names: the server is reached at an
            // address its certificate does not hold (a bastion's forwarded
            // port, a load balancer), which no CA fixes.
            KubeError::Transport { .. } if self.chain_text().contains("not valid for name") => Some(
                "the API server's certificate does not name the address the kubeconfig's server \
                 uses (a forwarded port or a load balancer, say): set the cluster's tls-server-name \
                 to one of the names the certificate holds, or use one of them as the server"
                    .into(),
            ),
            KubeError::Transport { .. } if self.is_certificate_problem() => Some(
                "the API server's certificate is not signed by the CA your kubeconfig trusts \
                 (certificate-authority-data): check that the kubeconfig belongs to this cluster \
                 and is current, or that no TLS-inspecting proxy sits in between"
                    .into(),
            ),
            KubeError::Transport { .. } if self.chain_text().contains("deadline has elapsed") => Some(format!(
                "the API server did not accept a connection within {}s: check the server address in \
                 the kubeconfig, that the cluster is running, and the network path to it (VPN, \
                 firewall, HTTPS_PROXY/NO_PROXY)",
                CONNECT_TIMEOUT.as_secs()
            )),
            KubeError::Transport { .. } if self.chain_text().contains("Connection refused") => Some(
                "nothing accepts connections at the API server's address: check the server URL in \
                 the kubeconfig, and that the cluster is running"
                    .into(),
            ),
            KubeError::Transport { .. } | KubeError::Timeout { .. } => Some(
                "check that the API server is reachable from here (VPN, HTTPS_PROXY/NO_PROXY), then re-run; it continues where it stopped".into(),
            ),
            _ => None,
        }
    }
}

/// How long a connection to the API server may take to be accepted
/// (kube-rs's default, named so messages can say it).
pub const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// How long one API request may take before it counts as lost. A request
/// whose connection dies under it must fail, never hang the command.
pub const REQUEST_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

/// How long a request may go unanswered before the user hears of it.
pub const QUIET_AFTER: std::time::Duration = std::time::Duration::from_secs(5);

type QuietHook = Box<dyn Fn(&str, &str) + Send + Sync>;
static ON_QUIET: std::sync::OnceLock<QuietHook> = std::sync::OnceLock::new();
static LAST_QUIET_NOTE: std::sync::Mutex<Option<std::time::Instant>> = std::sync::Mutex::new(None);

/// Who hears of a request that has had no answer for [`QUIET_AFTER`]: the
/// app, which says it through `output` (this module never writes to the
/// terminal). Set once per process; it gets the action and the object.
pub fn on_quiet_request(hook: impl Fn(&str, &str) + Send + Sync + 'static) {
    let _ = ON_QUIET.set(Box::new(hook));
}

/// Tells the hook of a quiet request, at most once per [`QUIET_AFTER`]
/// (requests go out side by side; one line says it for all of them).
fn quiet(action: &str, object: &str) {
    let Some(hook) = ON_QUIET.get() else { return };
    let mut last = LAST_QUIET_NOTE.lock().unwrap_or_else(|e| e.into_inner());
    if last.is_some_and(|t| t.elapsed() < QUIET_AFTER) {
        return;
    }
    *last = Some(std::time::Instant::now());
    drop(last);
    hook(action, object);
}

type WaitingHook = Box<dyn Fn(&str) + Send + Sync>;
static ON_AUTH_PLUGIN_WAIT: std::sync::OnceLock<WaitingHook> = std::sync::OnceLock::new();

/// Who hears of an auth plugin that has given no credential after
/// [`auth_plugin::QUIET_AFTER`]: the app, which says the line it gets
/// through `output`. Set once per process.
pub fn on_auth_plugin_wait(hook: impl Fn(&str) + Send + Sync + 'static) {
    let _ = ON_AUTH_PLUGIN_WAIT.set(Box::new(hook));
}

fn auth_plugin_wait(line: &str) {
    if let Some(hook) = ON_AUTH_PLUGIN_WAIT.get() {
        hook(line);
    }
}

/// Awaits one API request within [`REQUEST_TIMEOUT`], naming what it was
/// for; after [`QUIET_AFTER`] with no answer, the quiet-request hook says so.
pub async fn request<T>(
    action: &str,
    object: &str,
    call: impl std::future::Future<Output = Result<T, kube::Error>>,
) -> Result<T, KubeError> {
    let call = tokio::time::timeout(REQUEST_TIMEOUT, call);
    tokio::pin!(call);
    let answered = match tokio::time::timeout(QUIET_AFTER, &mut call).await {
        Ok(answered) => answered,
        Err(_) => {
            quiet(action, object);
            call.await
        }
    };
    match answered {
        Ok(result) => result.map_err(|e| KubeError::from_kube(action, object, e)),
        Err(_) => Err(KubeError::Timeout {
            action: action.into(),
            object: object.into(),
            seconds: REQUEST_TIMEOUT.as_secs(),
        }),
    }
}

/// Where the kubeconfig is read from: the first file [`kubeconfig_paths`] gives.
pub fn kubeconfig_path(explicit: Option<&PathBuf>) -> Option<PathBuf> {
    kubeconfig_paths(explicit).into_iter().next()
}

/// The kubeconfig files read, in order, as kubectl does: the explicit path;
/// else every file of `$KUBECONFIG` that exists (`a:b`, merged, the first
/// to set a name wins); else `~/.kube/config`.
pub fn kubeconfig_paths(explicit: Option<&PathBuf>) -> Vec<PathBuf> {
    if let Some(p) = explicit {
        return vec![p.clone()];
    }
    if let Some(v) = crate::env::var_os("KUBECONFIG").filter(|v| !v.is_empty()) {
        let mut out: Vec<PathBuf> = Vec::new();
        for p in std::env::split_paths(&v) {
            if !p.as_os_str().is_empty() && p.exists() && !out.contains(&p) {
                out.push(p);
            }
        }
        return out;
    }
    crate::env::home()
        .map(|h| vec![h.join(".kube").join("config")])
        .unwrap_or_default()
}

/// The largest kubeconfig read (one with hundreds of clusters and embedded
/// certificates stays far below).
pub const MAX_KUBECONFIG_BYTES: u64 = 16 * 1024 * 1024;

/// Reads and merges the kubeconfig files (see [`kubeconfig_paths`]), each
/// checked first to be a regular file of a sane size. `None` when there is
/// no file; the second value names the files for messages.
pub fn read_kubeconfig(
    explicit: Option<&PathBuf>,
) -> Result<Option<(Kubeconfig, String)>, KubeError> {
    let paths: Vec<PathBuf> = kubeconfig_paths(explicit)
        .into_iter()
        .filter(|p| p.exists())
        .collect();
    if paths.is_empty() {
        return Ok(None);
    }
    let mut merged: Option<Kubeconfig> = None;
    for path in &paths {
        let shown = crate::text::one_line(&path.display().to_string());
        let text =
            crate::input_file::read_regular_text(path, MAX_KUBECONFIG_BYTES).map_err(|why| {
                KubeError::KubeconfigFile {
                    path: shown.clone(),
                    why: why.to_string(),
                }
            })?;
        let mut config =
            Kubeconfig::from_yaml(&text).map_err(|source| KubeError::ReadKubeconfig {
                path: shown.clone(),
                source,
            })?;
        if let Some(dir) = path.parent() {
            files_relative_to(&mut config, dir);
        }
        merged = Some(match merged {
            None => config,
            Some(m) => m
                .merge(config)
                .map_err(|source| KubeError::ReadKubeconfig {
                    path: shown.clone(),
                    source,
                })?,
        });
    }
    let shown = paths
        .iter()
        .map(|p| crate::text::one_line(&p.display().to_string()))
        .collect::<Vec<_>>()
        .join(":");
    Ok(merged.map(|m| (m, shown)))
}

/// The kubeconfig's current context, read with the same rule as
/// [`connect`] (the explicit path, else `$KUBECONFIG`, else
/// `~/.kube/config`); `None` when there is no file or no current context.
/// No cluster is contacted.
pub fn current_context(explicit: Option<&PathBuf>) -> Option<String> {
    let (config, _) = read_kubeconfig(explicit).ok()??;
    config.current_context
}

/// Makes the files a kubeconfig names relative to itself absolute, as
/// kubectl (and kube-rs reading a file) does: certificate authority, client
/// certificate and key, token file, and an exec plugin named by a path.
fn files_relative_to(config: &mut Kubeconfig, dir: &std::path::Path) {
    let absolute = |file: &mut Option<String>| {
        if let Some(f) = file.as_deref() {
            if std::path::Path::new(f).is_relative() {
                if let Some(joined) = dir.join(f).to_str() {
                    *file = Some(joined.to_string());
                }
            }
        }
    };
    for named in &mut config.clusters {
        if let Some(cluster) = &mut named.cluster {
            absolute(&mut cluster.certificate_authority);
        }
    }
    for named in &mut config.auth_infos {
        if let Some(auth) = &mut named.auth_info {
            absolute(&mut auth.client_certificate);
            absolute(&mut auth.client_key);
            absolute(&mut auth.token_file);
            if let Some(exec) = &mut auth.exec {
                // A bare command (`aws`) is looked up on PATH, as kubectl does.
                if exec
                    .command
                    .as_deref()
                    .is_some_and(|c| c.contains(std::path::MAIN_SEPARATOR))
                {
                    absolute(&mut exec.command);
                }
            }
        }
    }
}

/// Reads the kubeconfig, picks the context, and builds a client. An exec
/// plugin (EKS, GKE, AKS) is checked and run first ([`auth_plugin`]), so
/// that one that is missing, hangs or prints no credential is said before
/// any request leaves; a proxy (`proxy-url`, `HTTPS_PROXY` unless `NO_PROXY`
/// covers the server) is checked before any request too.
pub async fn connect(opts: &ConnectOptions) -> Result<Cluster, KubeError> {
    let (kubeconfig, shown) =
        read_kubeconfig(opts.kubeconfig.as_ref())?.ok_or_else(|| KubeError::NoKubeconfig {
            looked_at: opts
                .kubeconfig
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| "$KUBECONFIG and ~/.kube/config".into()),
        })?;
    let available: Vec<String> = kubeconfig.contexts.iter().map(|c| c.name.clone()).collect();
    let context = match &opts.context {
        Some(c) if available.contains(c) => c.clone(),
        Some(c) => {
            return Err(KubeError::UnknownContext {
                wanted: c.clone(),
                path: shown,
                available,
            })
        }
        None => match &kubeconfig.current_context {
            Some(c) if available.contains(c) => c.clone(),
            _ => {
                return Err(KubeError::NoCurrentContext {
                    path: shown,
                    available,
                })
            }
        },
    };
    let user = kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == context)
        .and_then(|c| c.context.as_ref())
        .and_then(|c| c.user.clone());
    let (proxy_setting, proxy_text) = proxy_setting(&kubeconfig, &context, &shown);
    let options = KubeConfigOptions {
        context: Some(context.clone()),
        ..Default::default()
    };
    let mut config = kube::Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .map_err(|e| match e {
            // Not a URL at all: the same refusal as a proxy of a kind
            // cf-runner cannot use, naming the setting and its value.
            kube::config::KubeconfigError::ParseProxyUrl(bad) => KubeError::UnusableProxy {
                setting: proxy_setting.clone(),
                source: client::UnusableProxy {
                    shown: crate::text::masked(&proxy_text),
                    why: format!("is not a URL ({bad})"),
                },
            },
            e => KubeError::Client {
                context: context.clone(),
                source: Box::new(e),
            },
        })?;
    // The exec plugin, checked and run once here, where its failures can
    // be said (kube-rs runs it again below, to build the client).
    let plugin = auth_plugin::Plugin::of(&config.auth_info, &context, user.as_deref());
    if let Some(plugin) = &plugin {
        let program = plugin.check().map_err(plugin_error)?;
        plugin
            .run(&program, &auth_plugin_wait)
            .await
            .map_err(plugin_error)?;
    }
    // Named in the API server's audit log, so admins can tell who did what.
    config.headers.push((
        http::header::USER_AGENT,
        http::HeaderValue::from_static(concat!("cf-runner/", env!("CARGO_PKG_VERSION"))),
    ));
    // kube-rs compares NO_PROXY with the proxy's own address; what counts
    // is the API server's, so decide here.
    if let Some(host) = config.cluster_url.host() {
        let no_proxy = crate::env::var("NO_PROXY")
            .or_else(|| crate::env::var("no_proxy"))
            .unwrap_or_default();
        if no_proxy_matches(&no_proxy, host, config.cluster_url.port_u16()) {
            config.proxy_url = None;
        }
    }
    token_file_trimmed(&mut config);
    client::check_proxy(&config).map_err(|source| KubeError::UnusableProxy {
        setting: proxy_setting,
        source,
    })?;
    config.connect_timeout = Some(CONNECT_TIMEOUT);
    // A kubeconfig may name the server as `https://user:password@host`:
    // every message, report and record shows it without the password.
    let server = crate::text::masked(&config.cluster_url.to_string());
    let client = match &plugin {
        None => client::build(config),
        Some(plugin) => build_with_plugin(config, plugin).await?,
    }
    .map_err(|e| KubeError::Client {
        context: context.clone(),
        source: Box::new(e),
    })?;
    Ok(Cluster {
        client,
        context,
        server,
    })
}

fn plugin_error(e: Box<auth_plugin::AuthPluginError>) -> KubeError {
    KubeError::AuthPlugin(e)
}

/// Builds the client where kube-rs runs the exec plugin (twice, with no
/// deadline, blocking its thread): on a thread of its own, waited for
/// within twice the plugin's deadline. A plugin that hangs there, though it
/// answered cf-runner's own run, is said, not waited for; it cannot be
/// stopped from here.
async fn build_with_plugin(
    config: kube::Config,
    plugin: &auth_plugin::Plugin,
) -> Result<Result<Client, kube::Error>, KubeError> {
    let runtime = tokio::runtime::Handle::current();
    let (built, client) = futures::channel::oneshot::channel();
    std::thread::spawn(move || {
        // The client spawns its request buffer on the runtime.
        let _inside = runtime.enter();
        let _ = built.send(client::build(config));
    });
    let deadline = plugin.deadline() * 2;
    match tokio::time::timeout(deadline, client).await {
        Ok(Ok(client)) => Ok(client),
        Ok(Err(_)) => Err(KubeError::Client {
            context: plugin.context().to_string(),
            source: "building the client stopped short (a bug in cf-runner)".into(),
        }),
        Err(_) => Err(plugin_error(plugin.error(auth_plugin::Problem::TimedOut {
            seconds: deadline.as_secs(),
            stopped: false,
        }))),
    }
}

/// True when the namespace `live` is cf-runner's by the ownership rule
/// (`ownership::ownership`): one that is not is used, never written or
/// deleted. Its marks are judged without a ledger: a Namespace holds the
/// ledger, and only someone with cluster-level rights can mark it.
pub fn namespace_is_ours(live: &impl serde::Serialize) -> bool {
    let live = serde_json::to_value(live).unwrap_or(serde_json::Value::Null);
    let name = live
        .pointer("/metadata/name")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default()
        .to_string();
    ownership::is_ours(&live, &name, &ownership::Ledger::Absent)
}

/// The API resource of a kind cf-runner renders (no discovery round-trip).
pub fn resource_for(api_version: &str, kind: &str) -> ApiResource {
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    let plural = match kind {
        "Ingress" => "ingresses".to_string(),
        "StorageClass" => "storageclasses".to_string(),
        "PriorityClass" => "priorityclasses".to_string(),
        other => format!("{}s", other.to_ascii_lowercase()),
    };
    ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(group, version, kind), &plural)
}

/// A dynamic API handle for a kind, namespaced or cluster-wide.
pub fn api_for(
    client: &Client,
    api_version: &str,
    kind: &str,
    namespace: Option<&str>,
) -> Api<DynamicObject> {
    let ar = resource_for(api_version, kind);
    match namespace {
        Some(ns) => Api::namespaced_with(client.clone(), ns, &ar),
        None => Api::all_with(client.clone(), &ar),
    }
}
