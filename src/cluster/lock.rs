//! The install's lock: one `coordination.k8s.io/v1` Lease per installation,
//! [`LEASE_NAME`] in its namespace, held by every command that changes the
//! install (`init`, `upgrade`, `delete`, `adopt`) from before its first
//! write to its end. Two runs on one install cannot interleave: the second
//! sees the holder (user, host, pid, command, since when) and waits or
//! stops.
//!
//! The holder renews the Lease in a background task every third of its
//! duration; a run that died (SIGKILL, a lost laptop) stops renewing, and
//! the next run takes the Lease over once it has gone unrenewed for the
//! whole duration. Expiry is judged two ways, the first that says so wins:
//! by the clock (`renewTime` + duration is past), and by observation (the
//! Lease did not change for a whole duration while this run watched it),
//! which holds even when the two machines' clocks disagree.
//!
//! A Lease is data anyone with `update` on Leases in the namespace can
//! write: its times and duration are claims. One whose times cannot be
//! (a renewal ahead of this machine's clock by more than two clocks
//! disagree, [`CLOCK_SKEW`]; a duration above any cf-runner writes,
//! [`MAX_LEASE_DURATION`]) is named as forged or broken
//! ([`Seen::impossible`]), its clock expiry is not believed, and it is
//! judged by observation alone, over a period cf-runner knows its own
//! holders renew within ([`Seen::watch_period`]): a forged lock can no
//! longer keep every write out for ever.
//!
//! The Lease carries cf-runner's managed-by label, so it reads as
//! cf-runner's own object, but it is no rendered kind: the inventory never
//! lists it, `upgrade` never prunes it, and `delete` removes it by
//! releasing it last.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams, Preconditions};
use kube::core::ObjectMeta;
use kube::Client;

pub use super::marks::{made_by_this_process, LEASE_NAME, PERMISSIONS};
use super::{request, KubeError, FIELD_MANAGER};
use crate::render::{self, Manifest};

/// How long a Lease stays held without a renewal. 30 s: a run that died
/// keeps others out for at most that long, while a live one renews three
/// times within it (every 10 s), so two renewals in a row may fail (an API
/// server blip, a slow request) before the lock is lost.
pub const LEASE_DURATION: Duration = Duration::from_secs(30);

/// The variable that sets another lease duration, in whole seconds (tests
/// use a few seconds to see a dead run's lock expire).
pub const LEASE_SECONDS_VAR: &str = "CF_RUNNER_LOCK_LEASE_SECONDS";

/// The longest lease cf-runner ever writes ([`LEASE_SECONDS_VAR`] is not
/// taken above it): a Lease that claims more was not written by a
/// cf-runner run, and no run renews it by cf-runner's rules.
pub const MAX_LEASE_DURATION: Duration = Duration::from_secs(3600);

/// How far two machines' clocks may disagree: a renewal or acquisition
/// time further ahead of this machine's clock than that cannot be a
/// holder's honest clock reading.
pub const CLOCK_SKEW: Duration = Duration::from_secs(300);

/// How many characters of each holder field (user, host, command) a
/// message shows: annotations may be 256 KiB long.
const HOLDER_FIELD_CHARS: usize = 80;

/// The annotations that say who holds the lock, field by field (the
/// Lease's `holderIdentity` has them in one line).
const ANNOTATION_USER: &str = "cf-runner.codefresh.io/lock-user";
const ANNOTATION_HOST: &str = "cf-runner.codefresh.io/lock-host";
const ANNOTATION_PID: &str = "cf-runner.codefresh.io/lock-pid";
const ANNOTATION_COMMAND: &str = "cf-runner.codefresh.io/lock-command";
const ANNOTATION_PROCESS_SPACE: &str = "cf-runner.codefresh.io/lock-process-space";

/// The lease duration: [`LEASE_SECONDS_VAR`] when it holds a number of
/// seconds above 0 and at most [`MAX_LEASE_DURATION`], else
/// [`LEASE_DURATION`].
pub fn lease_duration() -> Duration {
    crate::env::var(LEASE_SECONDS_VAR)
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|s| *s > 0 && *s <= MAX_LEASE_DURATION.as_secs())
        .map(Duration::from_secs)
        .unwrap_or(LEASE_DURATION)
}

/// Who holds (or wants) the lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    /// The local user name.
    pub user: String,
    /// The machine's host name.
    pub host: String,
    pub pid: u32,
    /// The cf-runner command (`init`, `delete` …).
    pub command: String,
    /// Where `pid` means this process: the kernel's boot id and the pid
    /// namespace (empty when unknown). Two runs with the same one share
    /// their process table, so one sees whether the other is still alive.
    pub process_space: String,
}

impl Holder {
    /// This process, running `command`.
    pub fn me(command: &str) -> Holder {
        let user = ["USER", "LOGNAME", "USERNAME"]
            .iter()
            .find_map(|v| crate::env::var(v).filter(|u| !u.is_empty()))
            .unwrap_or_else(user_of_uid);
        Holder {
            user,
            host: host_name(),
            pid: std::process::id(),
            command: command.to_string(),
            process_space: process_space(),
        }
    }

    /// True when this run can tell that `other` has ended: it ran in this
    /// process space and its pid is gone (a run killed a moment ago on this
    /// machine need not wait for its lock to expire).
    fn sees_ended(&self, other: &Holder) -> bool {
        if self.process_space.is_empty() || self.process_space != other.process_space {
            return false;
        }
        process_is_gone(other.pid)
    }

    /// The Lease's `holderIdentity`: one line that names this run.
    fn identity(&self) -> String {
        format!(
            "{}@{} pid {} (cf-runner {})",
            self.user, self.host, self.pid, self.command
        )
    }
}

impl std::fmt::Display for Holder {
    /// The holder in one line. Its fields come from the Lease, which anyone
    /// who may update Leases writes: each is one line of data (no newline
    /// to start a fake message line, no control; see `text::one_line`), cut
    /// at `HOLDER_FIELD_CHARS`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`cf-runner {}` of {}@{} (pid {})",
            holder_field(&self.command),
            holder_field(&self.user),
            holder_field(&self.host),
            self.pid
        )
    }
}

/// One field of a holder as a message shows it (see [`Holder`]'s Display).
fn holder_field(text: &str) -> String {
    let line = crate::text::one_line(text);
    if line.chars().count() <= HOLDER_FIELD_CHARS {
        return line;
    }
    let cut: String = line.chars().take(HOLDER_FIELD_CHARS).collect();
    format!("{cut}… ({} characters)", text.chars().count())
}

/// True when no process `pid` runs here any more.
#[cfg(unix)]
fn process_is_gone(pid: u32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    let rc = unsafe { libc::kill(pid as libc::pid_t, 0) };
    rc != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// Never known elsewhere: [`process_space`] is empty there, so this is not
/// reached; a lock then waits for its expiry.
#[cfg(not(unix))]
fn process_is_gone(_pid: u32) -> bool {
    false
}

/// The user when no variable names one: on Windows `USERNAME` is always
/// set, so this is the last resort.
#[cfg(not(unix))]
fn user_of_uid() -> String {
    "unknown user".into()
}

/// The name of this process's user in the system's records, else `uid N`.
#[cfg(unix)]
fn user_of_uid() -> String {
    // SAFETY: getuid cannot fail; getpwuid_r writes only into the buffers
    // passed, with their lengths, and `found` points into `record` or is null.
    let uid = unsafe { libc::getuid() };
    let mut record: libc::passwd = unsafe { std::mem::zeroed() };
    let mut buffer = vec![0 as libc::c_char; 4096];
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    let rc = unsafe {
        libc::getpwuid_r(
            uid,
            &mut record,
            buffer.as_mut_ptr(),
            buffer.len(),
            &mut found,
        )
    };
    if rc == 0 && !found.is_null() && !record.pw_name.is_null() {
        let name = unsafe { std::ffi::CStr::from_ptr(record.pw_name) };
        return name.to_string_lossy().into_owned();
    }
    format!("uid {uid}")
}

/// The boot id and the pid namespace of this process, or empty.
fn process_space() -> String {
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap_or_default();
    let pid_ns = std::fs::read_link("/proc/self/ns/pid")
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    if boot.trim().is_empty() || pid_ns.is_empty() {
        return String::new();
    }
    format!("{}/{pid_ns}", boot.trim())
}

/// The machine's host name, or `unknown host`; on Windows `COMPUTERNAME`.
#[cfg(not(unix))]
fn host_name() -> String {
    crate::env::var("COMPUTERNAME")
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "unknown host".into())
}

/// The machine's host name, or `unknown host`.
#[cfg(unix)]
fn host_name() -> String {
    let mut buffer = [0u8; 256];
    // SAFETY: the buffer is writable for its whole length, which is passed.
    let rc = unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len()) };
    if rc != 0 {
        return "unknown host".into();
    }
    let end = buffer.iter().position(|b| *b == 0).unwrap_or(buffer.len());
    String::from_utf8_lossy(&buffer[..end]).into_owned()
}

/// The lock as the cluster holds it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub holder: Holder,
    /// When the holder took it.
    pub since: Option<Timestamp>,
    /// When the holder last renewed it.
    pub renewed: Option<Timestamp>,
    /// How long it stays held without a renewal.
    pub duration: Duration,
    /// The Lease, to replace it on a take-over.
    lease: Lease,
}

impl Seen {
    fn of(lease: Lease) -> Seen {
        let annotations = lease.metadata.annotations.clone().unwrap_or_default();
        let spec = lease.spec.clone().unwrap_or_default();
        let field = |key: &str| annotations.get(key).cloned();
        let holder = Holder {
            user: field(ANNOTATION_USER)
                .or_else(|| spec.holder_identity.clone())
                .unwrap_or_else(|| "someone".into()),
            host: field(ANNOTATION_HOST).unwrap_or_else(|| "unknown host".into()),
            pid: field(ANNOTATION_PID)
                .and_then(|p| p.parse().ok())
                .unwrap_or_default(),
            command: field(ANNOTATION_COMMAND).unwrap_or_else(|| "(unknown command)".into()),
            process_space: field(ANNOTATION_PROCESS_SPACE).unwrap_or_default(),
        };
        Seen {
            holder,
            since: spec.acquire_time.as_ref().map(|t| t.0),
            renewed: spec.renew_time.or(spec.acquire_time).map(|t| t.0),
            duration: Duration::from_secs(spec.lease_duration_seconds.unwrap_or(0).max(0) as u64),
            lease,
        }
    }

    /// True when nobody holds it now: released, or not renewed for its
    /// whole duration by this machine's clock.
    pub fn expired(&self) -> bool {
        self.expired_at(Timestamp::now())
    }

    fn expired_at(&self, now: Timestamp) -> bool {
        let free = self
            .lease
            .spec
            .as_ref()
            .is_none_or(|s| s.holder_identity.as_deref().is_none_or(str::is_empty));
        let Some(renewed) = self.renewed else {
            return true;
        };
        free || now.duration_since(renewed).as_secs_f64() > self.duration.as_secs_f64()
    }

    /// Seconds since the last renewal, by this machine's clock (0 for a
    /// renewal ahead of it; [`Seen::renewed_words`] says that one).
    pub fn renewed_ago(&self) -> Option<i64> {
        let now = Timestamp::now();
        self.renewed.map(|r| now.duration_since(r).as_secs().max(0))
    }

    /// When the last renewal was, in words: `renewed 5s ago`, or how far
    /// ahead of this machine's clock it claims to be.
    pub fn renewed_words(&self) -> Option<String> {
        let ago = Timestamp::now().duration_since(self.renewed?).as_secs();
        Some(if ago >= 0 {
            format!("renewed {ago}s ago")
        } else {
            format!(
                "renewed {} ahead of this machine's clock",
                span(ago.unsigned_abs())
            )
        })
    }

    /// What about this Lease cannot be true of a lock a cf-runner run
    /// holds, each in words (empty when nothing): a renewal or acquisition
    /// time ahead of this machine's clock by more than [`CLOCK_SKEW`], a
    /// duration above [`MAX_LEASE_DURATION`].
    pub fn impossible(&self) -> Vec<String> {
        self.impossible_at(Timestamp::now())
    }

    fn impossible_at(&self, now: Timestamp) -> Vec<String> {
        let spec = self.lease.spec.clone().unwrap_or_default();
        let mut said = Vec::new();
        // The first of the two times that is ahead: a forger sets both alike.
        let ahead = [
            ("renewTime", spec.renew_time),
            ("acquireTime", spec.acquire_time),
        ]
        .into_iter()
        .filter_map(|(field, time)| Some((field, time?.0)))
        .map(|(field, time)| (field, time, time.duration_since(now).as_secs()))
        .find(|(_, _, ahead)| *ahead > CLOCK_SKEW.as_secs() as i64);
        if let Some((field, time, ahead)) = ahead {
            said.push(format!(
                "its {field} {} is {} ahead of this machine's clock (two clocks may differ by {})",
                time.strftime("%Y-%m-%dT%H:%M:%SZ"),
                span(ahead.unsigned_abs()),
                span(CLOCK_SKEW.as_secs())
            ));
        }
        if self.duration > MAX_LEASE_DURATION {
            said.push(format!(
                "its leaseDurationSeconds {} is more than the {} cf-runner ever writes",
                self.duration.as_secs(),
                MAX_LEASE_DURATION.as_secs()
            ));
        }
        said
    }

    /// How long this run watches the Lease unchanged before it takes it
    /// for abandoned: its own duration when cf-runner could have written
    /// it (a live holder renews every third of it), else `own`, this run's
    /// duration (a Lease longer than any cf-runner writes is no cf-runner
    /// run's, and waiting its claimed years would keep every write out).
    pub fn watch_period(&self, own: Duration) -> Duration {
        let period = if self.duration > MAX_LEASE_DURATION {
            own
        } else {
            self.duration
        };
        period.max(Duration::from_secs(1))
    }

    /// When the lock expires by its own fields (`renewTime` plus
    /// `leaseDurationSeconds`), in words, with how long that is from now.
    pub fn expiry_words(&self) -> String {
        self.expiry_words_at(Timestamp::now())
    }

    fn expiry_words_at(&self, now: Timestamp) -> String {
        let Some(renewed) = self.renewed else {
            return "it has no renewTime nor acquireTime, so it is expired".into();
        };
        let length = k8s_openapi::jiff::SignedDuration::from_secs(self.duration.as_secs() as i64);
        let Ok(at) = renewed.checked_add(length) else {
            return "by its own fields it never expires (its renewTime plus its duration is past the \
                    year 9999)"
                .into();
        };
        let when = at.strftime("%Y-%m-%dT%H:%M:%SZ");
        let left = at.duration_since(now).as_secs();
        if left >= 0 {
            format!(
                "by its own fields it expires at {when} (in {}) unless renewed",
                span(left.unsigned_abs())
            )
        } else {
            format!(
                "by its own fields it expired at {when} ({} ago)",
                span(left.unsigned_abs())
            )
        }
    }

    fn version(&self) -> Option<String> {
        self.lease.metadata.resource_version.clone()
    }

    /// Who holds it and since when, in one line.
    pub fn describe(&self) -> String {
        let since = self
            .since
            .map(|t| format!(", since {}", t.strftime("%Y-%m-%dT%H:%M:%SZ")))
            .unwrap_or_default();
        format!("{}{since}", self.holder)
    }
}

/// The lock of `namespace`, if a run holds or held it; `None` when there
/// is no Lease (or no namespace).
pub async fn read(client: &Client, namespace: &str) -> Result<Option<Seen>, KubeError> {
    let api: Api<Lease> = Api::namespaced(client.clone(), namespace);
    let found = request(
        "reading",
        &format!("Lease/{LEASE_NAME}"),
        api.get_opt(LEASE_NAME),
    )
    .await?;
    Ok(found.map(Seen::of))
}

/// Creates the namespace for the lock when it does not exist, from the
/// rendered Namespace manifest (so it carries cf-runner's labels, as the
/// install would have made it). An existing namespace, cf-runner's or
/// another's, is left as it is: it is read first, and only a missing one
/// is made, by [`create_namespace`]. Gives true when this call made it.
pub async fn ensure_namespace(client: &Client, manifest: &Manifest) -> Result<bool, KubeError> {
    use k8s_openapi::api::core::v1::Namespace;
    let api: Api<Namespace> = Api::all(client.clone());
    let object = format!("Namespace/{}", manifest.name);
    if request("reading", &object, api.get_opt(&manifest.name))
        .await?
        .is_some()
    {
        return Ok(false);
    }
    create_namespace(client, manifest).await
}

/// Creates the namespace for the lock, in one request, unless it exists:
/// for a run that has just seen it missing (the preflight read it), so no
/// GET goes first. It is made by server-side apply with cf-runner's field
/// manager, as the install's apply would have made it: the ownership rule
/// (`cluster::ownership`) knows cf-runner's objects by that `Apply` entry,
/// and a plain create would leave only an `Update` one, so that the install
/// would take its own namespace for someone else's.
///
/// The apply is create-only: it carries [`NEVER_A_VERSION`] as
/// `metadata.resourceVersion`, a precondition no stored object meets. The
/// API server creates a namespace that does not exist (a version on an
/// object to create is not compared), and refuses one that does with 409
/// Conflict before it stores anything: a namespace someone else made since
/// the run looked, even a moment ago, never gets a write. Of two runs at
/// once, one makes it and the other is refused and finds it made. A user
/// who may not patch namespaces is refused (403) before the precondition is
/// looked at: a GET then tells whether it exists, as [`ensure_namespace`]
/// would have. Gives true when this call made it.
pub async fn create_namespace(client: &Client, manifest: &Manifest) -> Result<bool, KubeError> {
    use k8s_openapi::api::core::v1::Namespace;
    let api: Api<Namespace> = Api::all(client.clone());
    let object = format!("Namespace/{}", manifest.name);
    // As the install's apply would write it (its applied-hash included), so
    // that the apply finds it as it wants it and does not write it again.
    let mut namespace: Namespace =
        serde_json::from_value(super::marks::with_hash(&manifest.object)).map_err(|e| {
            KubeError::Client {
                context: String::new(),
                source: Box::new(e),
            }
        })?;
    namespace.metadata.resource_version = Some(NEVER_A_VERSION.into());
    let params = PatchParams::apply(FIELD_MANAGER);
    let created = request(
        "creating",
        &object,
        api.patch(&manifest.name, &params, &Patch::Apply(&namespace)),
    )
    .await;
    match created {
        Ok(made) => {
            if let Some(uid) = made.metadata.uid {
                super::marks::remember_made(uid);
            }
            Ok(true)
        }
        // It exists: left as it is (nothing was stored).
        Err(e) if e.code() == Some(409) => Ok(false),
        Err(refused) if refused.code() == Some(403) => {
            match request("reading", &object, api.get_opt(&manifest.name)).await? {
                Some(_) => Ok(false),
                None => Err(refused),
            }
        }
        Err(e) => Err(e),
    }
}

/// What a run saw of its namespace just before it takes the lock (the
/// preflight read it): where taking the lock starts. Only a shortcut: each
/// path still copes with the namespace having changed since.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NamespaceSeen {
    /// Not read (`--skip-cluster-test`, or it could not be read): read it
    /// first ([`ensure_namespace`]).
    #[default]
    Unknown,
    /// Missing: make it at once ([`create_namespace`]).
    Missing,
    /// It exists: create the Lease at once; should it be gone by then, the
    /// Lease is refused (404) and the namespace is made as when missing.
    Exists,
}

/// The `metadata.resourceVersion` of the lock's create-only namespace
/// apply ([`ensure_namespace`]): the largest unsigned 64-bit number. The
/// API server reads a resourceVersion as an unsigned 64-bit number and
/// compares it with the stored object's, an etcd revision, which is a
/// signed 64-bit number: no object ever holds this one.
pub const NEVER_A_VERSION: &str = "18446744073709551615";

/// What one attempt to take the lock found.
pub enum Attempt {
    /// This run holds it now; the lock a dead run left, when taken over.
    Taken(Lock, Option<Seen>),
    /// Another run holds it.
    Held(Seen),
    /// The namespace does not exist.
    NoNamespace,
    /// The namespace is being deleted (no Lease can be made in it).
    NamespaceTerminating,
}

/// Takes the lock of one namespace, attempt after attempt, watching the
/// holder's Lease for a renewal between them.
pub struct Taker {
    client: Client,
    namespace: String,
    me: Holder,
    duration: Duration,
    /// The holder's Lease version, and since when this run has seen it
    /// unchanged.
    watched: Option<(String, Instant)>,
}

impl Taker {
    /// A taker for `namespace`, as `me`, with leases of `duration`.
    pub fn new(client: &Client, namespace: &str, me: Holder, duration: Duration) -> Taker {
        Taker {
            client: client.clone(),
            namespace: namespace.to_string(),
            me,
            duration,
            watched: None,
        }
    }

    /// One attempt: creates the Lease, or takes over one whose holder is
    /// gone, or says who holds it. A write that loses a race with another
    /// run's is retried against what that run wrote.
    ///
    /// The first try creates the Lease without reading it first: most runs
    /// find none, and a create is refused (409) when one exists, which then
    /// is read as before. One request fewer before an install's first write.
    pub async fn attempt(&mut self) -> Result<Attempt, KubeError> {
        let api: Api<Lease> = Api::namespaced(self.client.clone(), &self.namespace);
        let object = format!("Lease/{LEASE_NAME}");
        for round in 0..4 {
            let found = match round {
                0 => None,
                _ => request("reading", &object, api.get_opt(LEASE_NAME)).await?,
            };
            let now = Timestamp::now();
            let written = match found {
                None => {
                    let lease = self.lease(None, now);
                    let params = PostParams {
                        field_manager: Some(FIELD_MANAGER.into()),
                        ..Default::default()
                    };
                    match request("creating", &object, api.create(&params, &lease)).await {
                        Ok(l) => Ok((l, None)),
                        Err(e) => Err(e),
                    }
                }
                Some(lease) => {
                    let seen = Seen::of(lease);
                    if !self.expired(&seen, now) {
                        return Ok(Attempt::Held(seen));
                    }
                    let lease = self.lease(Some(&seen), now);
                    match request(
                        "taking over",
                        &object,
                        api.replace(LEASE_NAME, &PostParams::default(), &lease),
                    )
                    .await
                    {
                        Ok(l) => Ok((l, Some(seen).filter(|s| !s.is_released()))),
                        Err(e) => Err(e),
                    }
                }
            };
            match written {
                Ok((lease, taken_over)) => {
                    let lock = Lock::hold(&self.client, &self.namespace, lease, self.duration);
                    return Ok(Attempt::Taken(lock, taken_over));
                }
                // Another run wrote first: look again.
                Err(e) if e.code() == Some(409) => continue,
                Err(e) if e.code() == Some(404) => return Ok(Attempt::NoNamespace),
                Err(e) if e.code() == Some(403) && terminating(&e) => {
                    return Ok(Attempt::NamespaceTerminating)
                }
                // A user who may not create Leases may still find one held
                // by another run, and wait for it: read it, as before.
                Err(e) if e.code() == Some(403) && round == 0 => continue,
                Err(e) => return Err(e),
            }
        }
        // Three races lost in a row: say who holds it now.
        match read(&self.client, &self.namespace).await? {
            Some(seen) => Ok(Attempt::Held(seen)),
            None => Ok(Attempt::NoNamespace),
        }
    }

    /// Expired by the clock, or unchanged for a whole duration while watched.
    fn expired(&mut self, seen: &Seen, now: Timestamp) -> bool {
        if seen.expired_at(now) || self.me.sees_ended(&seen.holder) {
            return true;
        }
        let version = seen.version().unwrap_or_default();
        match &self.watched {
            Some((v, at)) if *v == version => at.elapsed() > seen.watch_period(self.duration),
            _ => {
                self.watched = Some((version, Instant::now()));
                false
            }
        }
    }

    /// The Lease this run writes: held by it from `now`.
    fn lease(&self, previous: Option<&Seen>, now: Timestamp) -> Lease {
        let mut metadata = previous
            .map(|s| ObjectMeta {
                managed_fields: None,
                ..s.lease.metadata.clone()
            })
            .unwrap_or_else(|| ObjectMeta {
                name: Some(LEASE_NAME.into()),
                namespace: Some(self.namespace.clone()),
                ..Default::default()
            });
        let labels = metadata.labels.get_or_insert_with(Default::default);
        labels.insert(render::LABEL_MANAGED_BY.into(), "cf-runner".into());
        labels.insert(render::LABEL_INSTANCE.into(), self.namespace.clone());
        let annotations = metadata.annotations.get_or_insert_with(Default::default);
        annotations.insert(ANNOTATION_USER.into(), self.me.user.clone());
        annotations.insert(ANNOTATION_HOST.into(), self.me.host.clone());
        annotations.insert(ANNOTATION_PID.into(), self.me.pid.to_string());
        annotations.insert(ANNOTATION_COMMAND.into(), self.me.command.clone());
        annotations.insert(
            ANNOTATION_PROCESS_SPACE.into(),
            self.me.process_space.clone(),
        );
        let transitions = previous
            .and_then(|s| s.lease.spec.as_ref())
            .and_then(|s| s.lease_transitions)
            .unwrap_or(0);
        Lease {
            metadata,
            spec: Some(LeaseSpec {
                holder_identity: Some(self.me.identity()),
                acquire_time: Some(MicroTime(now)),
                renew_time: Some(MicroTime(now)),
                lease_duration_seconds: Some(self.duration.as_secs().max(1) as i32),
                lease_transitions: Some(transitions + i32::from(previous.is_some())),
                ..Default::default()
            }),
        }
    }
}

impl Seen {
    /// True when the Lease was released (no holder): nothing to say about a take-over.
    fn is_released(&self) -> bool {
        self.lease
            .spec
            .as_ref()
            .is_none_or(|s| s.holder_identity.as_deref().is_none_or(str::is_empty))
    }
}

/// True when the API server refused because the namespace is being deleted.
fn terminating(e: &KubeError) -> bool {
    e.to_string().contains("being terminated")
}

/// The lock, held: a task renews it until [`Lock::release`].
pub struct Lock {
    client: Client,
    namespace: String,
    /// The Lease as last written, shared with the renewing task.
    lease: Arc<Mutex<Lease>>,
    /// Why the lock was lost, when another run took it over.
    lost: Arc<Mutex<Option<String>>>,
    /// How many requests the renewals made.
    renewals: Arc<std::sync::atomic::AtomicUsize>,
    /// The renewing task; taken by [`Lock::release`].
    renewer: Option<tokio::task::JoinHandle<()>>,
}

impl Drop for Lock {
    /// A lock dropped unreleased stops renewing, so it expires.
    fn drop(&mut self) {
        if let Some(task) = self.renewer.take() {
            task.abort();
        }
    }
}

impl Lock {
    fn hold(client: &Client, namespace: &str, lease: Lease, duration: Duration) -> Lock {
        let lease = Arc::new(Mutex::new(lease));
        let lost = Arc::new(Mutex::new(None));
        let renewals = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let renewer = tokio::spawn(renew(
            Api::namespaced(client.clone(), namespace),
            lease.clone(),
            lost.clone(),
            renewals.clone(),
            duration,
        ));
        Lock {
            client: client.clone(),
            namespace: namespace.to_string(),
            lease,
            lost,
            renewals,
            renewer: Some(renewer),
        }
    }

    /// Who took the lock over while this run held it (it stalled for longer
    /// than the lease duration), if anyone did.
    pub fn lost(&self) -> Option<String> {
        self.lost.lock().expect("not poisoned").clone()
    }

    /// How many renewals the run made.
    pub fn renewals(&self) -> usize {
        self.renewals.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Stops renewing and deletes the Lease, unless another run holds it
    /// now (or it is gone with its namespace). Gives how many renewals the
    /// run made.
    pub async fn release(mut self) -> Result<usize, KubeError> {
        if let Some(task) = self.renewer.take() {
            task.abort();
            let _ = task.await;
        }
        let renewals = self.renewals.load(std::sync::atomic::Ordering::Relaxed);
        if self.lost.lock().expect("not poisoned").is_some() {
            return Ok(renewals);
        }
        let ours = self.lease.lock().expect("not poisoned").clone();
        let api: Api<Lease> = Api::namespaced(self.client.clone(), &self.namespace);
        let object = format!("Lease/{LEASE_NAME}");
        match request(
            "releasing",
            &object,
            api.delete(LEASE_NAME, &delete_if(&ours)),
        )
        .await
        {
            // Changed since this run last wrote it. A renewal in flight when
            // the renewing task stopped may have landed after all (its answer
            // went unread): then the Lease is still this run's, one version
            // on, and is deleted at that version. Another holder's is left.
            Err(e) if e.code() == Some(409) => {
                let Some(now) = request("reading", &object, api.get_opt(LEASE_NAME)).await? else {
                    return Ok(renewals);
                };
                let holder = |l: &Lease| l.spec.as_ref().and_then(|s| s.holder_identity.clone());
                if now.metadata.uid != ours.metadata.uid || holder(&now) != holder(&ours) {
                    return Ok(renewals);
                }
                match request(
                    "releasing",
                    &object,
                    api.delete(LEASE_NAME, &delete_if(&now)),
                )
                .await
                {
                    Err(e) if matches!(e.code(), Some(404 | 409)) => Ok(renewals),
                    Err(e) => Err(e),
                    Ok(_) => Ok(renewals),
                }
            }
            // Gone with its namespace.
            Err(e) if e.code() == Some(404) => Ok(renewals),
            Err(e) => Err(e),
            Ok(_) => Ok(renewals),
        }
    }
}

/// A length of time in words, to the nearest of the largest unit that
/// matters: `45s`, `12 min`, `5 h`, `365 days`.
pub fn span(secs: u64) -> String {
    let nearest = |unit: u64| secs.saturating_add(unit / 2) / unit;
    match secs {
        s if s < 120 => format!("{s}s"),
        s if s < 7200 => format!("{} min", nearest(60)),
        s if s < 172_800 => format!("{} h", nearest(3600)),
        _ => format!("{} days", nearest(86_400)),
    }
}

/// A delete of `lease` that the API server carries out only while the
/// Lease is that very version of it.
fn delete_if(lease: &Lease) -> DeleteParams {
    DeleteParams {
        preconditions: Some(Preconditions {
            uid: lease.metadata.uid.clone(),
            resource_version: lease.metadata.resource_version.clone(),
        }),
        ..Default::default()
    }
}

/// Renews the Lease every third of `duration`, each request given that
/// third to answer. A Lease another run took over (409 and not ours), or
/// one gone with its namespace (404), ends the renewals.
async fn renew(
    api: Api<Lease>,
    lease: Arc<Mutex<Lease>>,
    lost: Arc<Mutex<Option<String>>>,
    renewals: Arc<std::sync::atomic::AtomicUsize>,
    duration: Duration,
) {
    let every = (duration / 3).max(Duration::from_millis(300));
    loop {
        tokio::time::sleep(every).await;
        let mut next = lease.lock().expect("not poisoned").clone();
        next.metadata.managed_fields = None;
        if let Some(spec) = next.spec.as_mut() {
            spec.renew_time = Some(MicroTime(Timestamp::now()));
        }
        renewals.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let answer = tokio::time::timeout(
            every,
            api.replace(LEASE_NAME, &PostParams::default(), &next),
        )
        .await;
        match answer {
            Ok(Ok(written)) => *lease.lock().expect("not poisoned") = written,
            Ok(Err(kube::Error::Api(status))) if status.code == 404 => return,
            Ok(Err(kube::Error::Api(status))) if status.code == 409 => {
                // Written by someone else since: ours still, or taken over.
                let Ok(Some(now)) = api.get_opt(LEASE_NAME).await else {
                    continue;
                };
                let mine = next.spec.as_ref().and_then(|s| s.holder_identity.clone());
                let theirs = now.spec.as_ref().and_then(|s| s.holder_identity.clone());
                if mine == theirs {
                    *lease.lock().expect("not poisoned") = now;
                } else {
                    *lost.lock().expect("not poisoned") = Some(Seen::of(now).describe());
                    return;
                }
            }
            // A blip or a slow answer: the next renewal tries again.
            Ok(Err(_)) | Err(_) => {}
        }
    }
}

#[cfg(test)]
mod tests;
