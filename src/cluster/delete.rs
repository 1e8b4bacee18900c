//! Deleting what an installation consists of, in reverse dependency order:
//! dind volumes (when asked) → workloads → configuration, secrets and RBAC →
//! cluster-wide objects → the record → the namespace (when asked). Each
//! phase is deleted concurrently and waited for until every object is gone
//! before the next starts, so a workload never runs without its RBAC and a
//! re-run after an interruption finds the record (and so the whole picture)
//! until the very end.
//!
//! Workloads and Services are deleted with foreground propagation: the API
//! server keeps them until the garbage collector has removed their
//! ReplicaSets, pods, Jobs and EndpointSlices, so "gone" means the pods are
//! gone too.

use std::time::{Duration, Instant};

use futures::future::join_all;
use kube::api::{DeleteParams, PropagationPolicy};
use kube::Client;

use super::inventory::LiveObject;
use super::{api_for, request, KubeError};
use crate::render::RECORD_SECRET;

/// How long the volume provisioner gets to release a volume it provisioned
/// (and the disk behind it) before the PV object is deleted directly.
pub const PROVISIONER_GRACE: Duration = Duration::from_secs(30);

const POLL: Duration = Duration::from_millis(400);

/// The phases of a delete, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    VolumeClaims,
    Volumes,
    Workloads,
    Config,
    ClusterWide,
    Record,
    Namespace,
}

impl Phase {
    /// What the phase removes, for progress lines.
    pub fn describe(self) -> &'static str {
        match self {
            Phase::VolumeClaims => "dind volume claims",
            Phase::Volumes => "dind volumes",
            Phase::Workloads => "workloads",
            Phase::Config => "configuration, secrets and RBAC",
            Phase::ClusterWide => "cluster-wide objects",
            Phase::Record => "the installation record",
            Phase::Namespace => "the namespace",
        }
    }
}

/// The phase an object is deleted in.
pub fn phase_of(object: &LiveObject) -> Phase {
    match object.kind.as_str() {
        "PersistentVolumeClaim" => Phase::VolumeClaims,
        "PersistentVolume" => Phase::Volumes,
        "Deployment" | "DaemonSet" | "StatefulSet" | "CronJob" | "Job" | "Ingress"
        | "HTTPRoute" => Phase::Workloads,
        "StorageClass" | "ClusterRole" | "ClusterRoleBinding" | "PriorityClass" => {
            Phase::ClusterWide
        }
        "Namespace" => Phase::Namespace,
        "Secret" if object.name == RECORD_SECRET => Phase::Record,
        _ => Phase::Config,
    }
}

/// Orders objects into phases (empty phases left out).
pub fn plan(objects: Vec<LiveObject>) -> Vec<(Phase, Vec<LiveObject>)> {
    let mut out: Vec<(Phase, Vec<LiveObject>)> = Vec::new();
    let mut objects = objects;
    objects.sort_by_key(phase_of);
    for object in objects {
        let phase = phase_of(&object);
        match out.last_mut() {
            Some((p, list)) if *p == phase => list.push(object),
            _ => out.push((phase, vec![object])),
        }
    }
    out
}

fn propagation(kind: &str) -> PropagationPolicy {
    match kind {
        // Their dependents (ReplicaSets, pods, Jobs, EndpointSlices) must go too.
        "Deployment" | "DaemonSet" | "StatefulSet" | "CronJob" | "Job" | "Service" => {
            PropagationPolicy::Foreground
        }
        _ => PropagationPolicy::Background,
    }
}

/// Progress of a delete.
#[derive(Debug)]
pub enum Event<'a> {
    /// A phase starts with this many objects.
    Phase(Phase, usize),
    /// The object is gone.
    Gone(&'a LiveObject),
    /// The API server has not answered for [`QUIET`]: what the delete waits
    /// for ("the deletion of …"); see [`waiting_note`].
    Waiting(String),
}

/// How long the delete's requests may go unanswered before it says what it
/// waits for (once per wait).
pub const QUIET: Duration = Duration::from_secs(5);

/// The line that says what a quiet delete waits for, where, and how long a
/// request may go without an answer.
pub fn waiting_note(server: &str, what: &str) -> String {
    format!(
        "waiting for the API server at {server} to answer {what} (a request with no answer fails after {}s)",
        super::REQUEST_TIMEOUT.as_secs()
    )
}

/// Awaits `work`; if it takes longer than [`QUIET`], says `what` first
/// (as [`Event::Waiting`]).
pub async fn noting_quiet<T>(
    work: impl std::future::Future<Output = T>,
    what: impl FnOnce() -> String,
    on_event: &(dyn Fn(&Event) + Sync),
) -> T {
    tokio::pin!(work);
    tokio::select! {
        done = &mut work => done,
        _ = tokio::time::sleep(QUIET) => {
            on_event(&Event::Waiting(what()));
            work.await
        }
    }
}

/// One object that could not be deleted.
#[derive(Debug)]
pub struct Failure {
    /// `Kind/name`.
    pub object: String,
    pub namespace: Option<String>,
    pub error: KubeError,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The error's own text says what was being done; the innermost
        // cause says why ("Connection refused"), which a user can act on
        // (unless the error's text already says it).
        let why = crate::text::new_root_cause(&self.error)
            .map(|root| format!(": {root}"))
            .unwrap_or_default();
        match &self.namespace {
            Some(ns) => write!(f, "{} in namespace {ns}: {}{why}", self.object, self.error),
            None => write!(f, "{}: {}{why}", self.object, self.error),
        }
    }
}

/// What a delete did.
#[derive(Debug, Default)]
pub struct Report {
    /// `Kind/name` of every object that is gone (deleted now, or already).
    pub gone: Vec<String>,
    pub failed: Vec<Failure>,
    /// Deleted but still there at the timeout, with what holds them.
    pub stuck: Vec<String>,
    /// Not attempted because an earlier phase failed or timed out.
    pub not_attempted: Vec<String>,
}

impl Report {
    /// True when everything planned is gone.
    pub fn ok(&self) -> bool {
        self.failed.is_empty() && self.stuck.is_empty() && self.not_attempted.is_empty()
    }
}

/// Deletes the planned phases in order, waiting for each to be gone.
pub async fn delete_all(
    client: &Client,
    phases: &[(Phase, Vec<LiveObject>)],
    timeout: Duration,
    on_event: &(dyn Fn(&Event) + Sync),
) -> Report {
    let deadline = Instant::now() + timeout;
    let mut report = Report::default();
    for (index, (phase, objects)) in phases.iter().enumerate() {
        on_event(&Event::Phase(*phase, objects.len()));
        let mut released = Vec::new();
        if *phase == Phase::Volumes {
            let grace_end = (Instant::now() + PROVISIONER_GRACE).min(deadline);
            let waited = wait_gone(
                client,
                objects.iter().filter(|o| provisioner_releases(o)).collect(),
                grace_end,
                on_event,
            )
            .await;
            match waited {
                Ok(gone) => released = gone,
                Err(e) => {
                    report.failed.push(e);
                    report.not_attempted = rest(phases, index);
                    return report;
                }
            }
        }
        let pending: Vec<&LiveObject> = objects
            .iter()
            .filter(|o| !released.contains(&o.display_name()))
            .collect();
        report.gone.append(&mut released);
        let count = pending.len();
        let results = noting_quiet(
            join_all(pending.iter().map(|o| delete_one(client, o))),
            || format!("the deletion of {count} object(s) ({})", phase.describe()),
            on_event,
        )
        .await;
        let mut waiting = Vec::new();
        for (object, result) in pending.into_iter().zip(results) {
            match result {
                Ok(true) => waiting.push(object),
                Ok(false) => {
                    on_event(&Event::Gone(object));
                    report.gone.push(object.display_name());
                }
                Err(e) => report.failed.push(e),
            }
        }
        match wait_gone(client, waiting.clone(), deadline, on_event).await {
            Ok(gone) => {
                for o in &waiting {
                    if !gone.contains(&o.display_name()) {
                        report.stuck.push(describe_stuck(client, o).await);
                    }
                }
                report.gone.extend(gone);
            }
            Err(e) => report.failed.push(e),
        }
        if !report.failed.is_empty() || !report.stuck.is_empty() {
            report.not_attempted = rest(phases, index);
            return report;
        }
    }
    report
}

fn rest(phases: &[(Phase, Vec<LiveObject>)], index: usize) -> Vec<String> {
    phases[index + 1..]
        .iter()
        .flat_map(|(_, list)| list.iter().map(LiveObject::display_name))
        .collect()
}

/// A PV the provisioner deletes itself (with the disk) once its claim is gone.
fn provisioner_releases(object: &LiveObject) -> bool {
    object.kind == "PersistentVolume"
        && object.text("/spec/persistentVolumeReclaimPolicy") == Some("Delete")
        && object
            .text("/metadata/annotations/pv.kubernetes.io~1provisioned-by")
            .is_some()
}

/// Sends the DELETE. `Ok(true)`: wait for it; `Ok(false)`: already gone.
async fn delete_one(client: &Client, object: &LiveObject) -> Result<bool, Failure> {
    let api = api_for(
        client,
        &object.api_version,
        &object.kind,
        object.namespace.as_deref(),
    );
    let params = DeleteParams {
        propagation_policy: Some(propagation(&object.kind)),
        ..DeleteParams::default()
    };
    match request(
        "deleting",
        &object.display_name(),
        api.delete(&object.name, &params),
    )
    .await
    {
        Ok(_) => Ok(true),
        Err(e) if e.code() == Some(404) => Ok(false),
        Err(error) => Err(Failure {
            object: object.display_name(),
            namespace: object.namespace.clone(),
            error,
        }),
    }
}

/// Polls until every object is gone (or replaced by a namesake with another
/// uid) or the deadline passes. Gives the `Kind/name` of those gone.
async fn wait_gone(
    client: &Client,
    mut pending: Vec<&LiveObject>,
    deadline: Instant,
    on_event: &(dyn Fn(&Event) + Sync),
) -> Result<Vec<String>, Failure> {
    let mut gone = Vec::new();
    loop {
        let count = pending.len();
        let checks = noting_quiet(
            join_all(pending.iter().map(|o| still_there(client, o))),
            || format!("whether {count} deleted object(s) are gone"),
            on_event,
        )
        .await;
        let mut next = Vec::new();
        for (object, there) in pending.into_iter().zip(checks) {
            if there? {
                next.push(object);
            } else {
                on_event(&Event::Gone(object));
                gone.push(object.display_name());
            }
        }
        pending = next;
        if pending.is_empty() || Instant::now() >= deadline {
            return Ok(gone);
        }
        tokio::time::sleep(POLL).await;
    }
}

async fn still_there(client: &Client, object: &LiveObject) -> Result<bool, Failure> {
    let api = api_for(
        client,
        &object.api_version,
        &object.kind,
        object.namespace.as_deref(),
    );
    let what = object.display_name();
    match request(
        "waiting for the deletion of",
        &what,
        api.get_metadata_opt(&object.name),
    )
    .await
    {
        Ok(Some(live)) => {
            Ok(live.metadata.uid.as_deref() == object.uid() || object.uid().is_none())
        }
        Ok(None) => Ok(false),
        Err(error) => Err(Failure {
            object: object.display_name(),
            namespace: object.namespace.clone(),
            error,
        }),
    }
}

/// `Kind/name (what holds it)` for an object still there at the timeout.
async fn describe_stuck(client: &Client, object: &LiveObject) -> String {
    let api = api_for(
        client,
        &object.api_version,
        &object.kind,
        object.namespace.as_deref(),
    );
    let finalizers = match api.get_metadata_opt(&object.name).await {
        Ok(Some(live)) => live.metadata.finalizers.unwrap_or_default(),
        _ => Vec::new(),
    };
    if finalizers.is_empty() {
        object.display_name()
    } else {
        format!(
            "{} (held by the finalizer(s) {})",
            object.display_name(),
            finalizers.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn live(kind: &str, name: &str) -> LiveObject {
        LiveObject {
            api_version: "v1".into(),
            kind: kind.into(),
            name: name.into(),
            namespace: Some("ci".into()),
            object: json!({"metadata": {"name": name}}),
        }
    }

    #[test]
    fn a_failed_delete_line_gives_its_cause() {
        let lost = std::io::Error::new(
            std::io::ErrorKind::ConnectionRefused,
            "Connection refused (os error 111)",
        );
        let failure = Failure {
            object: "ServiceAccount/runner".into(),
            namespace: Some("ci".into()),
            error: KubeError::Transport {
                action: "deleting".into(),
                object: "ServiceAccount/runner".into(),
                source: Box::new(kube::Error::Service(Box::new(lost))),
            },
        };
        assert_eq!(
            failure.to_string(),
            "ServiceAccount/runner in namespace ci: deleting ServiceAccount/runner failed: \
             Connection refused (os error 111)"
        );
    }

    #[test]
    fn workloads_go_first_and_the_record_and_namespace_last() {
        let objects = vec![
            live("Namespace", "ci"),
            live("Secret", RECORD_SECRET),
            live("StorageClass", "dind-local-volumes-runner-ci"),
            live("Secret", "runner"),
            live("ClusterRole", "volume-provisioner-ci"),
            live("Deployment", "runner"),
            live("ServiceAccount", "runner"),
            live("PersistentVolume", "pv-1"),
            live("DaemonSet", "dind-lv-monitor"),
            live("PersistentVolumeClaim", "pvc-1"),
        ];
        let phases: Vec<(Phase, Vec<String>)> = plan(objects)
            .into_iter()
            .map(|(p, l)| (p, l.iter().map(LiveObject::display_name).collect()))
            .collect();
        let order: Vec<Phase> = phases.iter().map(|(p, _)| *p).collect();
        assert_eq!(
            order,
            vec![
                Phase::VolumeClaims,
                Phase::Volumes,
                Phase::Workloads,
                Phase::Config,
                Phase::ClusterWide,
                Phase::Record,
                Phase::Namespace
            ]
        );
        assert_eq!(
            phases[2].1,
            vec!["Deployment/runner", "DaemonSet/dind-lv-monitor"]
        );
        assert_eq!(phases[3].1, vec!["Secret/runner", "ServiceAccount/runner"]);
    }

    #[test]
    fn only_provisioned_volumes_with_a_delete_policy_wait_for_the_provisioner() {
        let mut pv = live("PersistentVolume", "pv");
        pv.object = json!({"metadata": {"name": "pv", "annotations": {"pv.kubernetes.io/provisioned-by": "codefresh.io/x"}},
                           "spec": {"persistentVolumeReclaimPolicy": "Delete"}});
        assert!(provisioner_releases(&pv));
        pv.object["spec"]["persistentVolumeReclaimPolicy"] = json!("Retain");
        assert!(!provisioner_releases(&pv));
    }
}
