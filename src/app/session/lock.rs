//! The install's lock as the commands see it (`cluster::lock` holds the
//! Lease): the commands that change an install take it before their first
//! write and release it at their end; a second run waits for it with a
//! countdown on a terminal, up to `--timeout`, or stops at once (no
//! terminal, or `--no-wait-for-lock`) naming the holder. The read-only
//! commands never take it, and say in one line when a run holds it.
//!
//! A Lease whose fields cannot be a cf-runner run's (`Seen::impossible`:
//! forged, or written by a broken clock) is named as such, with its real
//! expiry by its own fields and the `kubectl` command that removes it. A
//! run without a terminal, which would stop at once, watches such a lock
//! for the period a live holder renews within (`Seen::watch_period`) and
//! takes it over when nobody renewed it (`--no-wait-for-lock` still stops
//! at once): a forged Lease cannot keep every write out for ever.

use std::time::{Duration, Instant};

use crate::app::session::outcome::Outcome;
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
    let duration = lock::lease_duration();
    let mut taker = Taker::new(&cluster.client, namespace, Holder::me(command), duration);
    let mut deadline = how.wait.map(|t| Instant::now() + t);
    // Without a terminal: set once a forged or broken lock is seen (watched
    // for its period, then taken over or stopped at).
    let mut watching_impossible = false;
    let mut shown: Option<output::Waiting> = None;
    let mut ensure = create_namespace.is_some() && seen != NamespaceSeen::Exists;
    // Known missing: made without reading it first. After that, as the
    // Lease says (404: missing again; being deleted: read it first).
    let mut missing = seen == NamespaceSeen::Missing;
    loop {
        if let (true, Some(manifest)) = (ensure, create_namespace) {
            make_namespace(cluster, manifest, missing, namespace).await?;
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
                    output::warn(&took_over(&dead, namespace, duration));
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
        let held = match &why_wait {
            Wait::Held(seen) => Some(seen.as_ref()),
            Wait::Terminating => None,
        };
        let period = held
            .filter(|seen| !how.by_flag && !seen.impossible().is_empty())
            .map(|seen| seen.watch_period(duration));
        if let (None, Some(period)) = (deadline, period) {
            // A margin over the period: the attempt after it takes it over.
            deadline = Some(Instant::now() + period + Duration::from_secs(3));
            watching_impossible = true;
        }
        let Some(deadline) = deadline else {
            return Err(stopped(&what, held, how, namespace, &cluster.context));
        };
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            let ends = how_it_ends(held, namespace, &cluster.context);
            return Err(gave_up(&what, watching_impossible, &ends));
        }
        let line = waiting_line(&what, watching_impossible, left);
        match &shown {
            Some(s) => s.set(&line),
            None => shown = Some(output::countdown(&line)),
        }
        tokio::time::sleep(Duration::from_secs(1).min(left)).await;
    }
}

/// Makes the install's namespace for its lock: created outright when it is
/// known to be missing, else made only if a read finds it missing.
async fn make_namespace(
    cluster: &Cluster,
    manifest: &Manifest,
    missing: bool,
    namespace: &str,
) -> Result<(), Outcome> {
    let made = if missing {
        lock::create_namespace(&cluster.client, manifest).await
    } else {
        lock::ensure_namespace(&cluster.client, manifest).await
    };
    made.map(drop).map_err(|e| {
        lock_failed(
            e,
            namespace,
            format!("making namespace {namespace} for the install's lock"),
        )
    })
}

/// The failure of a run that waited for the lock (or watched one that
/// cannot be right) until its time ran out.
fn gave_up(what: &str, watching_impossible: bool, how_it_ends: &str) -> Outcome {
    let waited = if watching_impossible {
        "watching it"
    } else {
        "waiting --timeout"
    };
    Outcome::Failed(
        anyhow::anyhow!("{what}; still so after {waited}"),
        Some(format!(
            "re-run when that run has ended, or with a longer --timeout; {how_it_ends}"
        )),
    )
}

/// The countdown line of a run waiting for the lock (or watching a lock
/// that cannot be right, to take it over).
fn waiting_line(what: &str, watching_impossible: bool, left: Duration) -> String {
    if watching_impossible {
        format!(
            "{what}: watching it for {}: unless a run renews it meanwhile, this run takes it over \
             (--no-wait-for-lock stops at once)",
            minutes_seconds(left)
        )
    } else {
        format!(
            "{what}: waiting for it, {} left (--timeout)",
            minutes_seconds(left)
        )
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
                    .renewed_words()
                    .map(|w| format!(", {w}"))
                    .unwrap_or_default();
                format!(
                    "another run holds the lock of namespace {namespace}: {}{renewed}{}",
                    seen.describe(),
                    impossible_words(seen)
                )
            }
            Wait::Terminating => format!("namespace {namespace} is being deleted"),
        }
    }
}

/// `; the lock looks forged or broken: …` when its fields cannot be a
/// cf-runner run's, else nothing.
fn impossible_words(seen: &Seen) -> String {
    let impossible = seen.impossible();
    if impossible.is_empty() {
        return String::new();
    }
    format!(
        "; the lock looks forged or broken: {}",
        impossible.join(", ")
    )
}

/// The end of a hint about a held lock: when it expires by its own fields
/// (not by this run's duration: the holder wrote its own), how a run takes
/// over one nobody renews, and the command that removes it.
fn how_it_ends(seen: Option<&Seen>, namespace: &str, context: &str) -> String {
    let Some(seen) = seen else {
        return "a namespace being deleted is gone once its objects are".into();
    };
    let own = lock::lease_duration();
    format!(
        "{}; a run takes over a lock that stays unrenewed for {}s while it waits; if no cf-runner \
         run holds it, remove it: {}",
        seen.expiry_words(),
        seen.watch_period(own).as_secs(),
        remove_command(namespace, context)
    )
}

/// The command that removes the lock of `namespace` in `context`.
pub(crate) fn remove_command(namespace: &str, context: &str) -> String {
    format!(
        "kubectl delete lease {} -n {} --context {}",
        lock::LEASE_NAME,
        crate::text::shell_word(namespace),
        crate::text::shell_word(context)
    )
}

/// The warning of a take-over: whose lock, and why this run could take it.
fn took_over(dead: &Seen, namespace: &str, own: Duration) -> String {
    let why = if dead.impossible().is_empty() {
        let ago = dead
            .renewed_words()
            .unwrap_or_else(|| "never renewed".into());
        format!(
            "its process ended, or it went unrenewed for the lock's {}s; {ago}",
            dead.duration.as_secs()
        )
    } else {
        format!(
            "it stayed unchanged for {}s while this run watched it{}",
            dead.watch_period(own).as_secs(),
            impossible_words(dead)
        )
    };
    format!(
        "took over the lock of namespace {namespace} from {}: that run is gone ({why}); this run \
         continues where it stopped",
        dead.describe()
    )
}

/// Exit 1 at once: who holds the lock, since when, and how to go on.
fn stopped(
    what: &str,
    seen: Option<&Seen>,
    how: LockWait,
    namespace: &str,
    context: &str,
) -> Outcome {
    let why = if how.by_flag {
        "--no-wait-for-lock"
    } else {
        "no terminal to count down on"
    };
    Outcome::Failed(
        anyhow::anyhow!("{what}; stopped without waiting ({why})"),
        Some(format!(
            "re-run when that run has ended{}; {}",
            if how.by_flag {
                ", or without --no-wait-for-lock to wait up to --timeout"
            } else {
                ""
            },
            how_it_ends(seen, namespace, context)
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
        let impossible = impossible_words(&seen);
        if !impossible.is_empty() {
            output::note(&format!(
                "{} holds the lock of namespace {namespace}{impossible}; {}; if no cf-runner run holds it, \
                 remove it: {}",
                seen.describe(),
                seen.expiry_words(),
                remove_command(namespace, &cluster.context)
            ));
        } else if !seen.expired() {
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
        let Outcome::Failed(err, Some(hint)) = stopped("held", None, flagged, "ns", "ctx") else {
            panic!("not a failure");
        };
        assert!(err.to_string().contains("--no-wait-for-lock"), "{err}");
        assert!(hint.contains("without --no-wait-for-lock"), "{hint}");
    }

    #[test]
    fn the_remove_command_quotes_what_a_shell_would_read() {
        assert_eq!(
            remove_command("cf", "admin@kind-1"),
            "kubectl delete lease cf-runner-lock -n cf --context admin@kind-1"
        );
        assert_eq!(
            remove_command("cf", "it's mine; rm -rf /"),
            "kubectl delete lease cf-runner-lock -n cf --context 'it'\\''s mine; rm -rf /'"
        );
    }
}
