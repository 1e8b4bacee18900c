//! Reaching the cluster: the tokio runtime, the one connection every
//! command makes (from the values or from the kube flags alone), the note
//! for a slow API server, and a cluster error as an outcome.

use serde_json::Value;

use crate::app::Outcome;
use crate::cli::KubeArgs;
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
pub(crate) fn options_from_flags(kube: &KubeArgs) -> ConnectOptions {
    ConnectOptions {
        kubeconfig: kube.kube_config_path.clone(),
        context: kube.kube_context_name.clone(),
    }
}

/// Connects as the values say; a context that does not exist is bad input.
pub(crate) async fn connect(values: &values::Values) -> Result<Cluster, Outcome> {
    connect_with(&options_from_values(values), ContextFrom::Values).await
}

/// Connects with the kube flags alone; an unknown context is bad input.
pub(crate) async fn connect_flags(kube: &KubeArgs) -> Result<Cluster, Outcome> {
    connect_with(&options_from_flags(kube), ContextFrom::Flags).await
}

/// The one way a command connects: `cluster::connect`, with an unknown context
/// reported as bad input under the name the user gave it.
pub(crate) async fn connect_with(
    options: &ConnectOptions,
    from: ContextFrom,
) -> Result<Cluster, Outcome> {
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
        (_, ContextFrom::Flags) => failed(e, "connecting to the cluster failed"),
    })
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

/// A cluster error as a failed outcome, with its hint.
pub(crate) fn failed(e: KubeError, what: &str) -> Outcome {
    let hint = e.hint();
    Outcome::Failed(anyhow::Error::new(e).context(what.to_string()), hint)
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
