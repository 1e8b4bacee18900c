//! The install's lock as the commands see it (`cluster::lock` holds the
//! Lease): the commands that change an install take it before their first
//! write and release it at their end; a second run waits for it with a
//! countdown on a terminal, up to `--timeout`, or stops at once (no
//! terminal, or `--no-wait-for-lock`) naming the holder. The read-only
//! commands never take it, and say in one line when a run holds it.

use std::time::{Duration, Instant};

use crate::app::Outcome;
use crate::cluster::lock::{self, Attempt, Holder, Lock, NamespaceSeen, Seen, Taker};
use crate::cluster::{Cluster, KubeError};
use crate::output;
use crate::render::Manifest;

/// How a command waits for a lock another run holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LockWait {
    /// How long to wait; `None`: stop at once.
    pub wait: Option<Duration>,
    /// True when `--no-wait-for-lock` said to stop (else: no terminal).
    pub by_flag: bool,
}

impl LockWait {
    /// Waits up to `timeout` when stderr is a terminal (the countdown shows
    /// there) and `--no-wait-for-lock` is not given; else stops at once.
    pub(crate) fn of(no_wait_for_lock: bool, timeout: Duration) -> LockWait {
        let attended = output::stderr_is_tty();
        LockWait {
            wait: (!no_wait_for_lock && attended).then_some(timeout),
            by_flag: no_wait_for_lock,
        }
    }
}

/// Takes the lock of `namespace` for `command`. With `create_namespace`
/// (`init`), a namespace that does not exist yet is created first, from the
/// rendered manifest, so the lock has a place before the first write; else
/// a namespace that does not exist holds nothing to lock (`Ok(None)`).
pub(crate) async fn take(
    cluster: &Cluster,
    namespace: &str,
    command: &str,
    how: LockWait,
    create_namespace: Option<&Manifest>,
) -> Result<Option<Lock>, Outcome> {
    take_seen(
        cluster,
        namespace,
        command,
        how,
        create_namespace,
        NamespaceSeen::Unknown,
    )
    .await
}

/// [`take`], for a run that has just read the namespace (`seen`, from the
/// preflight): one that exists is not read again, the Lease is created at
/// once; one that was missing is made without a GET first
/// (`lock::create_namespace`). Each round trip before the install's first
/// write is one the install waits for.
pub(crate) async fn take_seen(
    cluster: &Cluster,
    namespace: &str,
    command: &str,
    how: LockWait,
    create_namespace: Option<&Manifest>,
    seen: NamespaceSeen,
) -> Result<Option<Lock>, Outcome> {
    let me = Holder::me(command);
    let duration = lock::lease_duration();
    let mut taker = Taker::new(&cluster.client, namespace, me, duration);
    let deadline = how.wait.map(|t| Instant::now() + t);
    let mut shown: Option<output::Waiting> = None;
    let mut ensure = create_namespace.is_some() && seen != NamespaceSeen::Exists;
    // Known missing: made without reading it first. After that, as the
    // Lease says (404: missing again; being deleted: read it first).
    let mut missing = seen == NamespaceSeen::Missing;
    loop {
        if let (true, Some(manifest)) = (ensure, create_namespace) {
            let made = if missing {
                lock::create_namespace(&cluster.client, manifest).await
            } else {
                lock::ensure_namespace(&cluster.client, manifest).await
            };
            made.map_err(|e| {
                lock_failed(
                    e,
                    namespace,
                    format!("making namespace {namespace} for the install's lock"),
                )
            })?;
            ensure = false;
        }
        let why_wait = match taker.attempt().await.map_err(|e| {
            lock_failed(
                e,
                namespace,
                format!("taking the lock of namespace {namespace}"),
            )
        })? {
            Attempt::Taken(lock, taken_over) => {
                drop(shown);
                if let Some(dead) = taken_over {
                    let ago = dead
                        .renewed_ago()
                        .map(|s| format!("{s}s"))
                        .unwrap_or_else(|| "long".into());
                    output::warn(&format!(
                        "took over the lock of namespace {namespace} from {}: that run is gone (its process \
                         ended, or it went unrenewed for the lock's {}s; last renewed {ago} ago); this run \
                         continues where it stopped",
                        dead.describe(),
                        dead.duration.as_secs()
                    ));
                }
                return Ok(Some(lock));
            }
            Attempt::NoNamespace if create_namespace.is_some() => {
                ensure = true;
                missing = true;
                continue;
            }
            Attempt::NoNamespace => return Ok(None),
            Attempt::Held(seen) => Wait::Held(Box::new(seen)),
            Attempt::NamespaceTerminating => {
                ensure = create_namespace.is_some();
                missing = false;
                Wait::Terminating
            }
        };
        let what = why_wait.describe(namespace);
        let Some(deadline) = deadline else {
            return Err(stopped(&what, how, duration));
        };
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Outcome::Failed(
                anyhow::anyhow!("{what}; still so after waiting --timeout"),
                Some(format!(
                    "re-run when that run has ended, or with a longer --timeout; a lock whose run died \
                     expires {}s after its last renewal",
                    duration.as_secs()
                )),
            ));
        }
        let line = format!(
            "{what}: waiting for it, {} left (--timeout)",
            minutes_seconds(left)
        );
        match &shown {
            Some(s) => s.set(&line),
            None => shown = Some(output::countdown(&line)),
        }
        tokio::time::sleep(Duration::from_secs(1).min(left)).await;
    }
}

/// Why a run waits.
enum Wait {
    Held(Box<Seen>),
    Terminating,
}

impl Wait {
    fn describe(&self, namespace: &str) -> String {
        match self {
            Wait::Held(seen) => {
                let renewed = seen
                    .renewed_ago()
                    .map(|s| format!(", renewed {s}s ago"))
                    .unwrap_or_default();
                format!(
                    "another run holds the lock of namespace {namespace}: {}{renewed}",
                    seen.describe()
                )
            }
            Wait::Terminating => format!("namespace {namespace} is being deleted"),
        }
    }
}

/// Exit 1 at once: who holds the lock, since when, and how to go on.
fn stopped(what: &str, how: LockWait, duration: Duration) -> Outcome {
    let why = if how.by_flag {
        "--no-wait-for-lock"
    } else {
        "no terminal to count down on"
    };
    Outcome::Failed(
        anyhow::anyhow!("{what}; stopped without waiting ({why})"),
        Some(format!(
            "re-run when that run has ended{}; a lock whose run died expires {}s after its last renewal",
            if how.by_flag {
                ", or without --no-wait-for-lock to wait up to --timeout"
            } else {
                ""
            },
            duration.as_secs()
        )),
    )
}

fn lock_failed(e: KubeError, namespace: &str, doing: String) -> Outcome {
    let on_lease = e.to_string().contains(lock::LEASE_NAME);
    let hint = if e.code() == Some(403) && on_lease {
        Some(format!(
            "cf-runner locks the install with a Lease in its namespace: ask for get, create, update \
             and delete on leases (coordination.k8s.io) in namespace {namespace}"
        ))
    } else {
        e.hint()
    };
    // A refusal names the object and the verb, as the apply's do.
    if let KubeError::Api {
        code: 403,
        action,
        object,
        message,
        ..
    } = &e
    {
        let verb = match action.as_str() {
            "reading" => "get",
            "creating" => "create",
            "taking over" => "update",
            "releasing" => "delete",
            other => other,
        };
        return Outcome::Failed(
            anyhow::anyhow!("{doing} failed: {object}: forbidden to {verb}: {message}"),
            hint,
        );
    }
    Outcome::Failed(
        anyhow::Error::new(e).context(format!("{doing} failed")),
        hint,
    )
}

/// `4m05s`, `12s`.
fn minutes_seconds(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

/// Releases the lock at the end of a run. A failure to release is said,
/// not fatal: the Lease expires by itself.
pub(crate) async fn release(lock: Option<Lock>, namespace: &str) {
    let Some(lock) = lock else { return };
    if let Some(other) = lock.lost() {
        output::warn(&format!(
            "while this run went unheard for longer than the lock's duration, {other} took over the lock \
             of namespace {namespace}: both may have changed the install; check it with `cf-runner info`"
        ));
    }
    if let Err(e) = lock.release().await {
        output::warn(&format!(
            "the lock of namespace {namespace} could not be released ({}); it expires by itself in {}s",
            e.chain_text(),
            lock::lease_duration().as_secs()
        ));
    }
}

/// For the read-only commands: one line when a run holds the lock of
/// `namespace` now. Nothing when none does, or the lock cannot be read.
pub(crate) async fn note_holder(cluster: &Cluster, namespace: &str) {
    if let Ok(Some(seen)) = lock::read(&cluster.client, namespace).await {
        if !seen.expired() {
            output::note(&format!(
                "{} is changing the install in namespace {namespace} now (it holds the lock): what is shown may change under it",
                seen.describe()
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_left_reads_as_minutes_and_seconds() {
        assert_eq!(minutes_seconds(Duration::from_secs(292)), "4m52s");
        assert_eq!(minutes_seconds(Duration::from_secs(12)), "12s");
    }

    #[test]
    fn without_a_terminal_or_with_the_flag_the_run_does_not_wait() {
        // Tests run without a terminal on stderr.
        if !output::stderr_is_tty() {
            assert_eq!(LockWait::of(false, Duration::from_secs(9)).wait, None);
        }
        let flagged = LockWait::of(true, Duration::from_secs(9));
        assert_eq!(flagged.wait, None);
        let Outcome::Failed(err, Some(hint)) = stopped("held", flagged, Duration::from_secs(30))
        else {
            panic!("not a failure");
        };
        assert!(err.to_string().contains("--no-wait-for-lock"), "{err}");
        assert!(hint.contains("expires 30s"), "{hint}");
    }
}
