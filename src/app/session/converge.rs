//! Converging the cluster on a render: apply with a line per object, wait
//! for the workloads, restart what must pick up new credentials, and say
//! exactly what was and was not done when an apply or a delete stops (a
//! failure, a lost API server, SIGINT or SIGTERM). Shared by `init`,
//! `upgrade` and `delete`.

use std::time::Duration;

use crate::app::session::outcome::Outcome;
use crate::cluster::{self, apply, delete, wait};
use crate::output;
use crate::render::{self, Manifest};

/// Applies with a line per object; on failure, the outcome to return.
/// `command` names the command in messages ("install", "upgrade").
pub(crate) async fn apply_with_progress(
    cluster: &cluster::Cluster,
    manifests: &[Manifest],
    namespace: &str,
    force_conflicts: bool,
    command: &str,
) -> Result<apply::Report, Outcome> {
    let nothing = async { Ok(Vec::new()) };
    apply_with_progress_after(
        cluster,
        manifests,
        namespace,
        force_conflicts,
        command,
        nothing,
    )
    .await
}

/// [`apply_with_progress`], with `first` read side by side with the apply's
/// own reads ([`apply::apply_all_after`]): the manifests it gives replace
/// those of the same kind and name; when it fails, nothing is written and
/// its outcome is returned.
pub(crate) async fn apply_with_progress_after(
    cluster: &cluster::Cluster,
    manifests: &[Manifest],
    namespace: &str,
    force_conflicts: bool,
    command: &str,
    first: impl std::future::Future<Output = Result<Vec<Manifest>, Outcome>>,
) -> Result<apply::Report, Outcome> {
    let learned = std::sync::Mutex::new(Vec::<Manifest>::new());
    let first = async {
        let changed = first.await?;
        *learned.lock().expect("not poisoned") = changed.clone();
        Ok::<_, Outcome>(changed)
    };
    let confirmed = std::sync::Mutex::new(Vec::<String>::new());
    let progress = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let watchdog = quiet_apply_watchdog(cluster, progress.clone());
    let debug = crate::env::var_os("CF_RUNNER_DEBUG_APPLY").is_some();
    let on_applied = |a: &apply::Applied| {
        output::applied(a.change.word(), &a.object, a.namespace.as_deref());
        if let (true, Some(path)) = (debug, &a.differs_at) {
            output::note(&format!("{} differs at {path}", a.object));
        }
        progress.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        confirmed
            .lock()
            .expect("not poisoned")
            .push(a.object.clone());
    };
    let stop = stop_signal();
    let report = tokio::select! {
        report = apply::apply_all_after(
            &cluster.client,
            manifests,
            namespace,
            apply::Options { force_conflicts },
            &on_applied,
            first,
        ) => report,
        (code, name) = stop => {
            watchdog.abort();
            let confirmed = confirmed.lock().expect("not poisoned").clone();
            return Err(stopped_during_apply(code, name, manifests, &confirmed, command));
        }
    };
    watchdog.abort();
    // `first` failed: nothing was written.
    let report = report?;
    // From here on a signal ends the process at once, saying where it was.
    exit_on_signal();
    report.warnings.iter().for_each(|w| output::warn(w));
    if !report.foreign.is_empty() {
        return Err(refuse_foreign(&report.foreign, namespace, command));
    }
    if !report.ok() {
        return Err(apply_failed(&report, command));
    }
    say_applied(&report);
    let written = as_written(manifests, &learned.into_inner().expect("not poisoned"));
    restart_for_new_credentials(cluster, &written, &report, command).await?;
    Ok(report)
}

/// "all N objects applied (…)", with the count of each kind of change.
fn say_applied(report: &apply::Report) {
    let summary: Vec<String> = report
        .counts()
        .iter()
        .map(|(k, v)| format!("{v} {k}"))
        .collect();
    output::done(&format!(
        "all {} objects applied ({})",
        report.applied.len(),
        summary.join(", ")
    ));
}

/// The manifests as they were written: each one `first` changed in its
/// place (the agent's Deployment in config-dir mode), the others as given.
fn as_written(manifests: &[Manifest], learned: &[Manifest]) -> Vec<Manifest> {
    manifests
        .iter()
        .map(|m| {
            learned
                .iter()
                .find(|c| c.kind == m.kind && c.name == m.name && c.namespace == m.namespace)
                .unwrap_or(m)
                .clone()
        })
        .collect()
}

/// How long the apply may go without an object confirmed before it says
/// what it is waiting for.
const QUIET_APPLY: Duration = Duration::from_secs(5);

/// Says, on stderr, when the apply has had no answer for [`QUIET_APPLY`]:
/// what it waits for, where, and the deadline of each request. Once per
/// quiet spell; abort the handle when the apply is over.
fn quiet_apply_watchdog(
    cluster: &cluster::Cluster,
    progress: std::sync::Arc<std::sync::atomic::AtomicUsize>,
) -> tokio::task::JoinHandle<()> {
    let server = cluster.server.clone();
    tokio::spawn(async move {
        let mut seen = progress.load(std::sync::atomic::Ordering::Relaxed);
        loop {
            tokio::time::sleep(QUIET_APPLY).await;
            let now = progress.load(std::sync::atomic::Ordering::Relaxed);
            if now == seen {
                output::note(&format!(
                    "waiting for the API server at {server} to answer the apply ({now} object(s) confirmed so far; \
                     a request with no answer fails after {}s)",
                    cluster::REQUEST_TIMEOUT.as_secs()
                ));
                // Quiet again only after the next confirmation.
                while progress.load(std::sync::atomic::Ordering::Relaxed) == now {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            }
            seen = progress.load(std::sync::atomic::Ordering::Relaxed);
        }
    })
}

/// Waits for SIGINT or SIGTERM; gives the exit code (130, 143) and the name.
#[cfg(unix)]
async fn stop_signal() -> (u8, &'static str) {
    use tokio::signal::unix::{signal, SignalKind};
    match (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) {
        (Ok(mut int), Ok(mut term)) => tokio::select! {
            _ = int.recv() => (130, "SIGINT"),
            _ = term.recv() => (143, "SIGTERM"),
        },
        // Without handlers the default action (end the process) stays.
        _ => std::future::pending().await,
    }
}

/// Waits for Ctrl-C (or Ctrl-Break), Windows' only stop signals a console
/// program gets; the exit code is the one Unix gives Ctrl-C.
#[cfg(windows)]
async fn stop_signal() -> (u8, &'static str) {
    use tokio::signal::windows::{ctrl_break, ctrl_c};
    match (ctrl_c(), ctrl_break()) {
        (Ok(mut int), Ok(mut brk)) => tokio::select! {
            _ = int.recv() => (130, "Ctrl-C"),
            _ = brk.recv() => (130, "Ctrl-Break"),
        },
        _ => std::future::pending().await,
    }
}

/// Once the apply is over, a signal ends the process at once with its exit
/// code and a line saying that everything was applied.
fn exit_on_signal() {
    tokio::spawn(async {
        let (code, name) = stop_signal().await;
        output::note(&format!(
            "stopped by {name}: every object was applied; the rest (waiting, platform steps) did not finish; \
             re-run the same command to finish"
        ));
        std::process::exit(i32::from(code));
    });
}

/// The report of an apply cut short by a signal: what the API server
/// confirmed, and what it may or may not have stored (requests in flight
/// still land).
fn stopped_during_apply(
    code: u8,
    name: &str,
    manifests: &[Manifest],
    confirmed: &[String],
    command: &str,
) -> Outcome {
    let unconfirmed: Vec<String> = manifests
        .iter()
        .map(|m| m.display_name())
        .filter(|n| !confirmed.contains(n))
        .collect();
    let list = |items: &[String]| {
        if items.is_empty() {
            "none".to_string()
        } else {
            items.join(", ")
        }
    };
    let message = format!(
        "the {command} stopped: {name} came during the apply; {} of {} objects applied\n  applied: {}\n  not applied or not confirmed \
         (a request already sent may still land): {}",
        confirmed.len(),
        manifests.len(),
        list(confirmed),
        list(&unconfirmed)
    );
    Outcome::Signalled(
        code,
        anyhow::anyhow!(message),
        Some(
            "re-run the same command to finish: objects already applied are left as they are and the rest are applied"
                .to_string(),
        ),
    )
}

/// Pods take the credentials Secret's values as env variables when they
/// start: when only the Secret changed (a new proxy password), their
/// unchanged workloads are restarted so that they pick it up.
async fn restart_for_new_credentials(
    cluster: &cluster::Cluster,
    manifests: &[Manifest],
    report: &apply::Report,
    command: &str,
) -> Result<(), Outcome> {
    let change_of = |object: &str| {
        report
            .applied
            .iter()
            .find(|a| a.object == object)
            .map(|a| a.change.clone())
    };
    let secret = format!("Secret/{}", render::CREDENTIALS_SECRET);
    if change_of(&secret) != Some(apply::Change::Configured) {
        return Ok(());
    }
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs().to_string())
        .unwrap_or_default();
    for m in manifests {
        let reads_it = matches!(m.kind.as_str(), "Deployment" | "DaemonSet")
            && m.object
                .to_string()
                .contains(&format!("\"{}\"", render::CREDENTIALS_SECRET));
        if !reads_it || change_of(&m.display_name()) != Some(apply::Change::Unchanged) {
            continue;
        }
        if let Err(e) = apply::restart(&cluster.client, m, &stamp).await {
            return Err(Outcome::failed(
                anyhow::Error::new(e),
                Some(format!(
                    "the new credentials are in the Secret {}; restart {} yourself, or re-run {command}",
                    render::CREDENTIALS_SECRET,
                    m.display_name()
                )),
            ));
        }
        output::applied(
            "restarted (new credentials)",
            &m.display_name(),
            m.namespace.as_deref(),
        );
    }
    Ok(())
}

/// Waits for the workloads with a live line each; on a timeout or an
/// error, the outcome to return. `command` is what to re-run.
pub(crate) async fn wait_with_progress(
    cluster: &cluster::Cluster,
    manifests: &[Manifest],
    timeout: Duration,
    command: &str,
) -> Result<(), Outcome> {
    let names: Vec<String> = wait::workloads(manifests)
        .iter()
        .map(|m| m.display_name())
        .collect();
    let board = output::StatusBoard::new(&names);
    let result = wait::wait_all(&cluster.client, manifests, timeout, &|s: &wait::Status| {
        board.update(&s.object, s.ready, &s.detail)
    })
    .await;
    board.finish();
    match result {
        Ok(w) if w.ok() => Ok(()),
        Ok(w) => {
            let stuck: Vec<String> = w
                .statuses
                .iter()
                .filter(|s| !s.ready)
                .map(|s| format!("{}: {}", s.object, s.detail))
                .collect();
            Err(Outcome::failed(
                anyhow::anyhow!("timed out after {}s waiting for: {}", timeout.as_secs(), stuck.join("; ")),
                Some(format!(
                    "the objects are applied; fix the cause above and re-run {command} (it converges), or raise --timeout"
                )),
            ))
        }
        Err(e) => {
            let hint = e.hint();
            Err(Outcome::failed(
                anyhow::Error::new(e).context("waiting for the workloads failed"),
                hint,
            ))
        }
    }
}

/// The refusal of an apply that would write over objects cf-runner did not
/// create: a preflight failure (exit 3), nothing written.
pub(crate) fn refuse_foreign(
    foreign: &[cluster::ownership::Collision],
    namespace: &str,
    command: &str,
) -> Outcome {
    output::error(
        &anyhow::anyhow!(
            "the {command} stopped before applying: {} object(s) it would write exist and are not cf-runner's\n  {}",
            foreign.len(),
            foreign
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n  ")
        ),
        Some(&cluster::ownership::collision_fix(namespace)),
    );
    Outcome::PreflightFailed
}

/// True for the field managers of other runner installers.
fn is_installer(manager: &str) -> bool {
    let m = manager.to_ascii_lowercase();
    m == "helm" || m.starts_with("helm-") || m.contains("venona") || m.contains("codefresh")
}

/// Reports a failed apply: what failed, what was and was not applied, and what to do.
pub(crate) fn apply_failed(report: &apply::Report, command: &str) -> Outcome {
    let is_transport = |f: &apply::Failure| {
        matches!(
            f.cause,
            apply::FailureCause::Other(
                cluster::KubeError::Transport { .. } | cluster::KubeError::Timeout { .. }
            )
        )
    };
    // Lost connections are one cause, not one per object: say it once.
    let unreachable: Vec<&apply::Failure> =
        report.failed.iter().filter(|f| is_transport(f)).collect();
    let mut lines: Vec<String> = report
        .failed
        .iter()
        .filter(|f| !is_transport(f))
        .map(|f| format!("failed: {f}"))
        .collect();
    // A request cut off by a lost connection may have been stored before
    // the answer was lost: "not confirmed", not "not applied".
    let mut unconfirmed: Vec<String> = Vec::new();
    for f in &unreachable {
        if !unconfirmed.contains(&f.object) {
            unconfirmed.push(f.object.clone());
        }
    }
    let not_applied: Vec<String> = report
        .not_attempted
        .iter()
        .filter(|o| !unconfirmed.contains(o))
        .cloned()
        .collect();
    let headline = match unreachable.first() {
        Some(first) => {
            let cause = match &first.cause {
                apply::FailureCause::Other(e) => cluster::root_cause(e),
                _ => String::new(),
            };
            lines.insert(0, format!("the API server could not be reached: {cause}"));
            format!("the {command} stopped: the API server went away")
        }
        None => format!(
            "the {command} stopped: {} object(s) failed",
            report.failed.len()
        ),
    };
    let done: Vec<String> = report
        .applied
        .iter()
        .map(|a| format!("{} ({})", a.object, a.change.word()))
        .collect();
    let unconfirmed_line = if unconfirmed.is_empty() {
        String::new()
    } else {
        format!(
            "\n  not confirmed (sent as the server went away; it may have stored them): {}",
            unconfirmed.join(", ")
        )
    };
    let message = format!(
        "{headline}\n  {}\n  applied: {}{unconfirmed_line}\n  not applied: {}",
        lines.join("\n  "),
        if done.is_empty() {
            "none".to_string()
        } else {
            done.join(", ")
        },
        if not_applied.is_empty() {
            "none".to_string()
        } else {
            not_applied.join(", ")
        },
    );
    let conflict = report
        .failed
        .iter()
        .any(|f| matches!(f.cause, apply::FailureCause::Conflict(_)));
    let forbidden = report
        .failed
        .iter()
        .any(|f| matches!(f.cause, apply::FailureCause::Forbidden { .. }));
    // Helm's or an old installer's objects are another installation, never
    // cf-runner's to take over.
    let installer_owned = report.failed.iter().any(|f| match &f.cause {
        apply::FailureCause::Conflict(fields) => {
            fields.iter().any(|(_, owner)| is_installer(owner))
        }
        _ => false,
    });
    let hint = if installer_owned {
        "another installer (Helm or venonactl) owns those objects: remove that installation first \
         (`helm uninstall`, `codefresh runner delete`), or install into another --kube-namespace"
    } else if conflict {
        "another tool manages those fields: remove them there, or re-run with --force-conflicts to take them over"
    } else if forbidden {
        "ask a cluster admin for the missing permission (`cf-runner check` lists them all), then re-run"
    } else if !unreachable.is_empty() {
        "check that the API server is reachable (VPN, HTTPS_PROXY/NO_PROXY), then re-run: objects already applied are left as they are and the rest are applied"
    } else {
        "fix the cause and re-run: objects already applied are left as they are and the rest are applied"
    };
    Outcome::Failed(anyhow::anyhow!(message), Some(hint.into()))
}

/// Deletes `objects` in dependency order, saying each one gone, and waits
/// until they are; a deletion that did not finish is [`delete_failed`].
pub(crate) async fn delete_with_progress(
    cluster: &cluster::Cluster,
    objects: Vec<crate::cluster::inventory::LiveObject>,
    timeout: std::time::Duration,
) -> Result<(), Outcome> {
    let phases = delete::plan(objects);
    let report = delete::delete_all(&cluster.client, &phases, timeout, &|e| {
        if let delete::Event::Gone(o) = e {
            output::removed(&o.display_name(), o.namespace.as_deref());
        }
    })
    .await;
    if report.ok() {
        Ok(())
    } else {
        Err(delete_failed(&report, timeout))
    }
}

/// The outcome of a delete that stopped: what went, what did not, and why.
pub(crate) fn delete_failed(report: &delete::Report, timeout: std::time::Duration) -> Outcome {
    let mut lines: Vec<String> = report
        .failed
        .iter()
        .map(|f| format!("failed: {f}"))
        .collect();
    if !report.stuck.is_empty() {
        lines.push(format!(
            "still there after {}s: {}",
            timeout.as_secs(),
            report.stuck.join(", ")
        ));
    }
    let unreachable = report.failed.iter().any(|f| f.error.code().is_none());
    let forbidden = report.failed.iter().any(|f| f.error.code() == Some(403));
    let message = format!(
        "the delete stopped before the end\n  {}\n  deleted: {}\n  not attempted: {}",
        lines.join("\n  "),
        if report.gone.is_empty() {
            "none".to_string()
        } else {
            report.gone.join(", ")
        },
        if report.not_attempted.is_empty() {
            "none".to_string()
        } else {
            report.not_attempted.join(", ")
        }
    );
    let hint = if forbidden {
        "ask a cluster admin for the missing delete permission, then re-run `cf-runner delete`: it continues where it stopped"
    } else if unreachable {
        "check that the API server is reachable (VPN, HTTPS_PROXY/NO_PROXY), then re-run `cf-runner delete`: it continues where it stopped"
    } else if !report.stuck.is_empty() {
        "a finalizer or a controller holds the objects listed: see `kubectl describe` on them, then re-run \
         `cf-runner delete` (or raise --timeout)"
    } else {
        "fix the cause and re-run `cf-runner delete`: it continues where it stopped"
    };
    Outcome::Failed(anyhow::anyhow!(message), Some(hint.into()))
}
