//! Reaching the cluster: the tokio runtime, the one connection every
//! command makes (from the values or from the kube flags alone), the note
//! for a slow API server, and a cluster error as an outcome.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use serde_json::Value;

use crate::app::session::options::KubeOptions;
use crate::app::session::outcome::Outcome;
use crate::cluster::{self, Cluster, ConnectOptions, KubeError};
use crate::output;
use crate::values::{self, Problem, Problems};

/// The tokio runtime for commands that talk to a cluster.
pub(crate) fn runtime() -> tokio::runtime::Runtime {
    // aws-lc-rs is the one crypto back-end (rcgen needs it for the RSA key);
    // installed by hand because test builds also link ring. An error only
    // means one is already installed.
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime starts")
}

/// The tokio runtime for `init`'s install: everything on the calling
/// thread. An install waits on the API server one round trip after another
/// (about ten in a row), and on a multi-threaded runtime each of them
/// passes between threads two or three times: the request from the command
/// to kube-rs's request buffer and to the HTTP/2 connection's task, the
/// answer back. On a busy machine each such hand-over waits for a CPU, for
/// milliseconds (issue 26: strace showed the process idle, not computing,
/// in the gaps between requests). On one thread there is no hand-over.
///
/// Only for `init`'s install: it never blocks its thread for long while
/// it holds the lock (no question is asked under it; the dind key takes
/// well under a second), so the lock's renewals, every third of the lease,
/// still run. `upgrade` and `delete` ask for confirmation while holding
/// the lock and keep [`runtime`], where the renewals go on during the
/// question.
pub(crate) fn install_runtime() -> tokio::runtime::Runtime {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime starts")
}

/// The flag that lets a kubeconfig named by a file run its commands.
pub(crate) const TRUST_FLAG: &str = "--trust-values-kubeconfig";

/// The user's word on kubeconfigs, as the command line gives it: the
/// kubeconfig paths it names itself, and whether [`TRUST_FLAG`] was given.
#[derive(Debug, Clone, Default)]
pub(crate) struct KubeconfigConsent {
    /// Paths named on the command line (`--kube-config-path`,
    /// `--set-value ConfigPath=...`): the user's own, like `$KUBECONFIG`.
    pub named: Vec<PathBuf>,
    /// [`TRUST_FLAG`]: kubeconfigs that a file names may run their commands.
    pub trust_files: bool,
}

/// The command line's consent, set once per process by the command before
/// it connects. Global because it is the command line's, fixed for the
/// process, and must reach every connection a command makes (the install's,
/// the probe's, each attached runtime's) without being threaded through
/// every step; unset, nothing that a file names may run.
static CONSENT: OnceLock<KubeconfigConsent> = OnceLock::new();

/// Records the command line's [`KubeconfigConsent`] (the first call wins).
pub(crate) fn give_consent(consent: KubeconfigConsent) {
    let _ = CONSENT.set(consent);
}

/// The paths a command line's `--set-value ConfigPath=...` names.
pub(crate) fn set_value_kubeconfigs(set_values: &[String]) -> Vec<PathBuf> {
    set_values
        .iter()
        .filter_map(|s| s.strip_prefix("ConfigPath="))
        .map(PathBuf::from)
        .collect()
}

/// The same file for two spellings of a path: compared resolved (links,
/// `..`, relative), as given when it cannot be resolved.
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// True when `path` is a kubeconfig the user named: on the command line,
/// in `$KUBECONFIG`, or `~/.kube/config`.
fn users_own(path: &Path, consent: &KubeconfigConsent) -> bool {
    consent
        .named
        .iter()
        .cloned()
        .chain(cluster::kubeconfig_paths(None))
        .any(|own| same_file(path, &own))
}

/// Checks a kubeconfig that a file names (`key`, e.g. `ConfigPath` or
/// `Runtimes[1].ConfigPath`) before anything connects with it: when it is
/// not the user's own and its context would run a command or send a local
/// file away, that needs [`TRUST_FLAG`] (then said on stderr, once, before
/// it runs) or the same path named with `--kube-config-path`; otherwise it
/// is bad input naming the key, the path, and what it would do. A
/// kubeconfig that cannot be read is left to the connection to report.
/// For callers that connect on their own (fleet): see [`vet_kubeconfig`].
pub(crate) fn vet_kubeconfig_with(
    options: &ConnectOptions,
    key: &str,
    consent: &KubeconfigConsent,
) -> Result<(), Problem> {
    let Some(path) = &options.kubeconfig else {
        return Ok(());
    };
    if users_own(path, consent) {
        return Ok(());
    }
    let Ok(Some((config, shown))) = cluster::read_kubeconfig(Some(path)) else {
        return Ok(());
    };
    let actions = crate::cluster::auth_plugin::local_actions(&config, options.context.as_deref());
    if actions.is_empty() {
        return Ok(());
    }
    let context = options
        .context
        .clone()
        .or(config.current_context)
        .unwrap_or_default();
    let what = actions
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ");
    if consent.trust_files {
        announce(&format!(
            "the kubeconfig {shown}, named by {key} (context {}), {what}: allowed by {TRUST_FLAG}",
            crate::text::one_line(&context)
        ));
        return Ok(());
    }
    Err(Problem::new(
        key,
        Some(&Value::String(path.display().to_string())),
        format!(
            "names a kubeconfig that is not yours (not on the command line, in $KUBECONFIG or \
             ~/.kube/config), and its context {} {what}: a file is not your word to run a \
             command or send a file; nothing was run, contacted or written",
            crate::text::one_line(&context)
        ),
        format!(
            "if you trust that kubeconfig, pass --kube-config-path {0} (or {TRUST_FLAG}, which \
             lets every kubeconfig a values or runtimes file names run its commands: risky with \
             files from a shared repository); else remove {key} to use your own kubeconfig",
            path.display()
        ),
    ))
}

/// [`vet_kubeconfig_with`] the command line's consent, as an outcome (exit 2).
pub(crate) fn vet_kubeconfig(options: &ConnectOptions, key: &str) -> Result<(), Outcome> {
    let consent = CONSENT.get().cloned().unwrap_or_default();
    vet_kubeconfig_with(options, key, &consent).map_err(|p| Outcome::BadInput(Problems(vec![p])))
}

/// The files a kubeconfig's context names (certificate authority, client
/// certificate and key, token file), each checked to be a regular file
/// within the kubeconfig bound before kube-rs reads it whole: a link to
/// `/dev/zero` or a FIFO there would otherwise eat the memory or hang the
/// run, as the kubeconfig itself no longer can. A kubeconfig that cannot be
/// read is left to the connection to report.
fn named_files_problem(options: &ConnectOptions, from: ContextFrom) -> Option<Problem> {
    let (config, shown) = cluster::read_kubeconfig(options.kubeconfig.as_ref()).ok()??;
    let context = options
        .context
        .clone()
        .or_else(|| config.current_context.clone())?;
    let named = config.contexts.iter().find(|c| c.name == context)?;
    let named = named.context.as_ref()?;
    let cluster = config
        .clusters
        .iter()
        .find(|c| c.name == named.cluster)
        .and_then(|c| c.cluster.as_ref());
    let user = config
        .auth_infos
        .iter()
        .find(|a| Some(&a.name) == named.user.as_ref())
        .and_then(|a| a.auth_info.as_ref());
    let files = [
        (
            "certificate-authority",
            cluster.and_then(|c| c.certificate_authority.clone()),
        ),
        (
            "client-certificate",
            user.and_then(|u| u.client_certificate.clone()),
        ),
        ("client-key", user.and_then(|u| u.client_key.clone())),
        ("tokenFile", user.and_then(|u| u.token_file.clone())),
    ];
    for (field, file) in files {
        let Some(file) = file else { continue };
        let checked = crate::input_file::read_bytes(
            Path::new(&file),
            cluster::MAX_KUBECONFIG_BYTES,
            crate::input_file::Accept::RegularFile,
        );
        if let Err(why) = checked {
            if why == crate::input_file::ReadError::Missing {
                continue; // said by the connection, as before
            }
            let key = match (&options.kubeconfig, from) {
                (Some(_), ContextFrom::Values) => "ConfigPath",
                (Some(_), ContextFrom::Flags) => "--kube-config-path",
                (None, _) => "KUBECONFIG",
            };
            return Some(Problem::new(
                key,
                Some(&Value::String(shown)),
                format!(
                    "names, as the {field} of context {}, the file {} that {why}",
                    crate::text::one_line(&context),
                    crate::text::one_line(&file)
                ),
                format!("point {field} at the file itself, or embed it ({field}-data)"),
            ));
        }
    }
    None
}

/// Says `line` on stderr once per process (a kubeconfig may be vetted
/// before the run and again as it connects).
fn announce(line: &str) {
    static SAID: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
    let first = SAID
        .lock()
        .map(|mut said| said.insert(line.to_string()))
        .unwrap_or(true);
    if first {
        output::warn(line);
    }
}

/// Where the kube context a command connects to was named: it decides
/// which name a bad context is reported under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ContextFrom {
    /// The values (`Context`, set by a file, `--set-value` or the flag).
    Values,
    /// The kube flags alone (commands that read their values from the cluster).
    Flags,
}

/// The connection options the validated values give.
pub(crate) fn options_from_values(values: &values::Values) -> ConnectOptions {
    ConnectOptions {
        kubeconfig: values.config_path.as_ref().map(std::path::PathBuf::from),
        context: values.context.clone(),
    }
}

/// The connection options the kube flags give.
pub(crate) fn options_from_flags(kube: &KubeOptions) -> ConnectOptions {
    ConnectOptions {
        kubeconfig: kube.kube_config_path.clone(),
        context: kube.kube_context_name.clone(),
    }
}

/// Connects as the values say; a context that does not exist is bad input,
/// and so is a kubeconfig of a file's that would run a command unasked
/// ([`vet_kubeconfig`]).
pub(crate) async fn connect(values: &values::Values) -> Result<Cluster, Outcome> {
    let options = options_from_values(values);
    vet_kubeconfig(&options, "ConfigPath")?;
    connect_with(&options, ContextFrom::Values).await
}

/// Connects with the kube flags alone; an unknown context is bad input.
pub(crate) async fn connect_flags(kube: &KubeOptions) -> Result<Cluster, Outcome> {
    connect_with(&options_from_flags(kube), ContextFrom::Flags).await
}

/// The one way a command connects: `cluster::connect`, with an unknown context
/// reported as bad input under the name the user gave it.
pub(crate) async fn connect_with(
    options: &ConnectOptions,
    from: ContextFrom,
) -> Result<Cluster, Outcome> {
    if let Some(problem) = named_files_problem(options, from) {
        return Err(Outcome::BadInput(Problems(vec![problem])));
    }
    cluster::on_auth_plugin_wait(output::note);
    let connected = cluster::connect(options).await;
    if let Ok(c) = &connected {
        let server = c.server.clone();
        cluster::on_quiet_request(move |action, object| {
            output::note(&format!(
                "{action} {object}: still no answer from the API server at {server} after {}s \
                 (a request with no answer fails after {}s)",
                cluster::QUIET_AFTER.as_secs(),
                cluster::REQUEST_TIMEOUT.as_secs()
            ))
        });
    }
    connected.map_err(|e| match (&e, from) {
        (e, _) if e.is_setting_refused() => refused(e),
        (
            KubeError::UnknownContext {
                wanted, available, ..
            },
            _,
        ) => {
            let (key, fix) = match from {
                ContextFrom::Values => (
                    "Context",
                    format!("use one of: {} (--kube-context-name)", available.join(", ")),
                ),
                ContextFrom::Flags => (
                    "--kube-context-name",
                    format!("use one of: {}", available.join(", ")),
                ),
            };
            Outcome::BadInput(Problems(vec![Problem::new(
                key,
                Some(&Value::String(wanted.clone())),
                "is not a context of the kubeconfig",
                fix,
            )]))
        }
        (_, ContextFrom::Values) => {
            let hint = e.hint();
            Outcome::Failed(e.into(), hint)
        }
        (_, ContextFrom::Flags) => Outcome::from_cluster(e, "connecting to the cluster failed"),
    })
}

/// A setting the cluster layer refused before any request (a proxy it
/// cannot go through), as bad input naming it: exit 2.
fn refused(e: &KubeError) -> Outcome {
    let problems = e
        .refused_setting()
        .into_iter()
        .map(|r| Problem::new(&r.setting, Some(&Value::String(r.value)), r.why, r.fix));
    Outcome::BadInput(Problems(problems.collect()))
}

/// A line on stderr when the API server has not answered the first
/// request within two seconds: what is waited for, where, and for how long
/// at most. Dropping it (the answer came) cancels the line.
pub(crate) struct SlowNote(tokio::task::JoinHandle<()>);

impl SlowNote {
    /// Starts the clock for the first answer of `cluster`.
    pub(crate) fn start(cluster: &Cluster) -> SlowNote {
        let server = cluster.server.clone();
        SlowNote(tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_secs(2)).await;
            output::note(&format!(
                "waiting for the API server at {server} to answer (a connection it does not accept fails after {}s)",
                cluster::CONNECT_TIMEOUT.as_secs()
            ));
        }))
    }
}

impl Drop for SlowNote {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Bad input when there is no terminal to confirm on and no `--yes`.
pub(crate) fn need_yes(command: &str, what: &str) -> Outcome {
    Outcome::BadInput(Problems(vec![Problem::new(
        "--yes",
        None,
        format!("is needed: there is no terminal to confirm {what} on"),
        format!("re-run `cf-runner {command}` with --yes, after reviewing what it will do"),
    )]))
}
