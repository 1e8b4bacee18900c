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
pub mod delete;
pub mod diff;
pub mod discover;
pub mod inventory;
pub mod lock;
pub mod preflight;
pub mod probe;
pub mod secrets;
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

/// The innermost cause of an error ("Connection refused (os error 111)"):
/// what a user can act on, where the layers above it only repeat "client
/// error".
pub fn root_cause(err: &(dyn std::error::Error + 'static)) -> String {
    let mut current = err;
    while let Some(next) = current.source() {
        current = next;
    }
    current.to_string()
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
                message: crate::output::one_line(&status.message),
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

    /// This error and its causes, as one line.
    pub fn chain_text(&self) -> String {
        let mut text = self.to_string();
        let mut source = std::error::Error::source(self);
        while let Some(s) = source {
            text.push_str(": ");
            text.push_str(&s.to_string());
            source = s.source();
        }
        text
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
            KubeError::UnknownContext { .. } | KubeError::NoCurrentContext { .. } => {
                Some("pass --kube-context-name with one of the contexts listed".into())
            }
            KubeError::Api { code: 401, .. } => Some(
                "the cluster rejected your credentials: refresh them (e.g. re-run your cloud's get-credentials command)".into(),
            ),
            KubeError::Api { code: 403, .. } => Some(
                "your user lacks a permission: `cf-runner check` lists every one the install needs".into(),
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
        let shown = crate::output::one_line(&path.display().to_string());
        check_kubeconfig_file(path).map_err(|why| KubeError::KubeconfigFile {
            path: shown.clone(),
            why,
        })?;
        let config = Kubeconfig::read_from(path).map_err(|source| KubeError::ReadKubeconfig {
            path: shown.clone(),
            source,
        })?;
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
        .map(|p| crate::output::one_line(&p.display().to_string()))
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

/// Refuses a kubeconfig that is not a regular file or is too large, before
/// reading it (`KUBECONFIG=/dev/zero` must not fill the memory).
fn check_kubeconfig_file(path: &std::path::Path) -> Result<(), String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("could not be read: {e}"))?;
    if !meta.is_file() {
        return Err("is not a regular file".into());
    }
    if meta.len() > MAX_KUBECONFIG_BYTES {
        return Err(format!(
            "is {} bytes, over the {MAX_KUBECONFIG_BYTES} bytes cf-runner reads from a kubeconfig",
            meta.len()
        ));
    }
    Ok(())
}

/// Reads the kubeconfig, picks the context, and builds a client. Exec
/// plugins (EKS, GKE) and `HTTPS_PROXY`/`NO_PROXY` are honoured by kube-rs.
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
    let options = KubeConfigOptions {
        context: Some(context.clone()),
        ..Default::default()
    };
    let mut config = kube::Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .map_err(|e| KubeError::Client {
            context: context.clone(),
            source: Box::new(e),
        })?;
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
    config.connect_timeout = Some(CONNECT_TIMEOUT);
    let server = config.cluster_url.to_string();
    let client = Client::try_from(config).map_err(|e| KubeError::Client {
        context: context.clone(),
        source: Box::new(e),
    })?;
    Ok(Cluster {
        client,
        context,
        server,
    })
}

/// True when an object's labels say cf-runner manages it.
pub fn managed_by_us(labels: Option<&std::collections::BTreeMap<String, String>>) -> bool {
    labels
        .and_then(|l| l.get(crate::render::LABEL_MANAGED_BY))
        .is_some_and(|v| v == "cf-runner")
}

/// The API resource of a kind cf-runner renders (no discovery round-trip).
pub fn resource_for(api_version: &str, kind: &str) -> ApiResource {
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    let plural = match kind {
        "Ingress" => "ingresses".to_string(),
        "StorageClass" => "storageclasses".to_string(),
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

/// True when `NO_PROXY` (comma-separated: `*`, host names, `.domain`
/// suffixes, IPs, IPv4 CIDRs, each with an optional `:port`) covers `host`.
pub fn no_proxy_matches(no_proxy: &str, host: &str, port: Option<u16>) -> bool {
    let host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase();
    no_proxy
        .split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .any(|entry| {
            if entry == "*" {
                return true;
            }
            let (pattern, entry_port) = match entry.rsplit_once(':') {
                Some((h, p)) if !h.contains(':') && p.parse::<u16>().is_ok() => {
                    (h, p.parse::<u16>().ok())
                }
                _ => (entry, None),
            };
            if entry_port.is_some() && entry_port != port {
                return false;
            }
            let pattern = pattern
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_ascii_lowercase();
            if let Some((net, bits)) = pattern.split_once('/') {
                return match (
                    net.parse::<std::net::Ipv4Addr>(),
                    bits.parse::<u32>(),
                    host.parse::<std::net::Ipv4Addr>(),
                ) {
                    (Ok(net), Ok(bits), Ok(ip)) if bits <= 32 => {
                        let mask = if bits == 0 {
                            0
                        } else {
                            u32::MAX << (32 - bits)
                        };
                        (u32::from(net) & mask) == (u32::from(ip) & mask)
                    }
                    _ => false,
                };
            }
            let suffix = pattern.trim_start_matches('.');
            host == suffix || host.ends_with(&format!(".{suffix}"))
        })
}

#[cfg(test)]
mod tests {
    use super::no_proxy_matches;

    #[test]
    fn no_proxy_entries() {
        assert!(no_proxy_matches("127.0.0.1", "127.0.0.1", Some(6443)));
        assert!(!no_proxy_matches("127.0.0.2", "127.0.0.1", Some(6443)));
        assert!(no_proxy_matches(
            "localhost,.svc,10.0.0.0/8",
            "10.1.2.3",
            None
        ));
        assert!(no_proxy_matches(".example.com", "api.example.com", None));
        assert!(no_proxy_matches("example.com", "api.example.com", None));
        assert!(!no_proxy_matches("example.com", "badexample.com", None));
        assert!(no_proxy_matches("*", "anything", None));
        assert!(no_proxy_matches("api.local:6443", "api.local", Some(6443)));
        assert!(!no_proxy_matches("api.local:443", "api.local", Some(6443)));
        assert!(!no_proxy_matches("", "api.local", None));
    }
}
