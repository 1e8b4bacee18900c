//! Waiting for workloads: Deployments until Available with every replica
//! updated, DaemonSets until rolled out on every node they select. On a
//! timeout, the reason a pod is stuck (Pending: unschedulable,
//! ImagePullBackOff, …) is read from the pods, so the user learns why; when
//! there is no pod at all, admission's refusal is read from the
//! `FailedCreate` event of the ReplicaSet or DaemonSet.

use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, ReplicaSet};
use k8s_openapi::api::core::v1::{Event, Pod};
use kube::api::{Api, ListParams};
use kube::Client;
use serde_json::Value;

use super::{request, KubeError};
use crate::render::Manifest;

/// The state of one workload, as shown on its status line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// `Kind/name`.
    pub object: String,
    pub ready: bool,
    /// e.g. "1/1 available" or "0/1 available: Pending: 0/2 nodes are available …".
    pub detail: String,
}

/// The outcome of a wait.
#[derive(Debug)]
pub struct WaitReport {
    pub statuses: Vec<Status>,
    pub timed_out: bool,
}

impl WaitReport {
    /// True when every workload became ready.
    pub fn ok(&self) -> bool {
        !self.timed_out && self.statuses.iter().all(|s| s.ready)
    }
}

/// The workloads among the manifests (what `wait_all` waits for).
pub fn workloads(manifests: &[Manifest]) -> Vec<&Manifest> {
    manifests
        .iter()
        .filter(|m| m.kind == "Deployment" || m.kind == "DaemonSet")
        .collect()
}

/// Waits for every workload, calling `on_status` whenever a line changes.
pub async fn wait_all(
    client: &Client,
    manifests: &[Manifest],
    timeout: Duration,
    on_status: &(dyn Fn(&Status) + Sync),
) -> Result<WaitReport, KubeError> {
    let targets = workloads(manifests);
    let deadline = Instant::now() + timeout;
    let mut last: Vec<Option<Status>> = vec![None; targets.len()];
    'poll: loop {
        let mut statuses = Vec::with_capacity(targets.len());
        for (i, m) in targets.iter().enumerate() {
            let status = match read_status(client, m, deadline).await {
                Ok(s) => s,
                // A brief outage (a restarting API server, a load balancer
                // switching over) is waited out within the same deadline.
                Err(e) if passing(&e) && Instant::now() < deadline => {
                    let status = outage(m, &e);
                    if last[i].as_ref() != Some(&status) {
                        on_status(&status);
                        last[i] = Some(status);
                    }
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue 'poll;
                }
                Err(e) => return Err(e),
            };
            if last[i].as_ref() != Some(&status) {
                on_status(&status);
                last[i] = Some(status.clone());
            }
            statuses.push(status);
        }
        if statuses.iter().all(|s| s.ready) {
            return Ok(WaitReport {
                statuses,
                timed_out: false,
            });
        }
        if Instant::now() >= deadline {
            let statuses = with_stuck_reasons(client, &targets, statuses, on_status).await?;
            return Ok(WaitReport {
                statuses,
                timed_out: true,
            });
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// One workload's status, read within what is left of the deadline: no
/// request may outlast it by more than a moment.
async fn read_status(
    client: &Client,
    m: &Manifest,
    deadline: Instant,
) -> Result<Status, KubeError> {
    let ns = m.namespace.as_deref().unwrap_or("default");
    let left = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_secs(1));
    tokio::time::timeout(left, status_of(client, m, ns))
        .await
        .unwrap_or_else(|_| {
            Err(KubeError::Timeout {
                action: "reading".into(),
                object: m.display_name(),
                seconds: left.as_secs(),
            })
        })
}

/// The status shown while a brief outage is waited out.
fn outage(m: &Manifest, e: &KubeError) -> Status {
    Status {
        object: m.display_name(),
        ready: false,
        detail: format!(
            "the API server did not answer ({}); retrying until the timeout",
            e.code()
                .map(|c| format!("HTTP {c}"))
                .unwrap_or_else(|| "no connection".into())
        ),
    }
}

/// The final report at the timeout: the stuck pods' reasons read once
/// more, each workload not ready shown again with its reason.
async fn with_stuck_reasons(
    client: &Client,
    targets: &[&Manifest],
    statuses: Vec<Status>,
    on_status: &(dyn Fn(&Status) + Sync),
) -> Result<Vec<Status>, KubeError> {
    let mut finals = Vec::new();
    for (m, s) in targets.iter().zip(statuses) {
        if s.ready {
            finals.push(s);
            continue;
        }
        let ns = m.namespace.as_deref().unwrap_or("default");
        let reason = stuck_reason(client, m, ns).await?;
        let detail = match reason {
            Some(r) => format!("{}: {r}", s.detail),
            None => s.detail,
        };
        let status = Status { detail, ..s };
        on_status(&status);
        finals.push(status);
    }
    Ok(finals)
}

/// Errors a retry can outlive: no answer at all, overload, a server error.
fn passing(err: &KubeError) -> bool {
    match err.code() {
        None => matches!(err, KubeError::Transport { .. } | KubeError::Timeout { .. }),
        Some(code) => code == 429 || (500..=599).contains(&code),
    }
}

/// How far a workload's rollout has come, read from the object as the API
/// server returns it. The one rule for "ready": `wait` waits for it and
/// `info` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rollout {
    /// The controller saw the latest spec, and every wanted replica (or
    /// node) runs it and is available.
    pub ready: bool,
    /// Replicas wanted (Deployment) or nodes selected (DaemonSet).
    pub want: i64,
    /// Replicas or nodes available.
    pub available: i64,
    /// Pods ready (`readyReplicas`, `numberReady`).
    pub ready_pods: i64,
    /// The controller has seen the latest generation of the spec.
    pub generation_seen: bool,
}

/// The rollout of a Deployment or DaemonSet; `None` for other kinds.
pub fn rollout(kind: &str, object: &Value) -> Option<Rollout> {
    let int = |pointer: &str| object.pointer(pointer).and_then(Value::as_i64);
    let count = |pointer: &str| int(pointer).unwrap_or(0);
    // Both absent counts as seen, as the API server leaves both out of a
    // fresh object.
    let generation_seen = int("/status/observedGeneration") >= int("/metadata/generation");
    match kind {
        "Deployment" => {
            let want = int("/spec/replicas").unwrap_or(1);
            let available_condition = object
                .pointer("/status/conditions")
                .and_then(Value::as_array)
                .is_some_and(|conditions| {
                    conditions.iter().any(|c| {
                        c.get("type").and_then(Value::as_str) == Some("Available")
                            && c.get("status").and_then(Value::as_str) == Some("True")
                    })
                });
            let updated = count("/status/updatedReplicas");
            let available = count("/status/availableReplicas");
            Some(Rollout {
                ready: generation_seen
                    && available_condition
                    && updated >= want
                    && available >= want,
                want,
                available,
                ready_pods: count("/status/readyReplicas"),
                generation_seen,
            })
        }
        "DaemonSet" => {
            let want = count("/status/desiredNumberScheduled");
            let updated = count("/status/updatedNumberScheduled");
            let available = count("/status/numberAvailable");
            Some(Rollout {
                ready: generation_seen && updated >= want && available >= want,
                want,
                available,
                ready_pods: count("/status/numberReady"),
                generation_seen,
            })
        }
        _ => None,
    }
}

async fn status_of(client: &Client, m: &Manifest, ns: &str) -> Result<Status, KubeError> {
    let object = m.display_name();
    let live = if m.kind == "Deployment" {
        let api = Api::<Deployment>::namespaced(client.clone(), ns);
        let d = request("reading", &object, api.get(&m.name)).await?;
        serde_json::to_value(d).unwrap_or(Value::Null)
    } else {
        let api = Api::<DaemonSet>::namespaced(client.clone(), ns);
        let ds = request("reading", &object, api.get(&m.name)).await?;
        serde_json::to_value(ds).unwrap_or(Value::Null)
    };
    let r = rollout(&m.kind, &live).unwrap_or(Rollout {
        ready: false,
        want: 0,
        available: 0,
        ready_pods: 0,
        generation_seen: false,
    });
    let detail = if m.kind == "Deployment" {
        format!("{}/{} available", r.available, r.want)
    } else if r.want == 0 && r.generation_seen {
        "0 nodes match its node selector".to_string()
    } else {
        format!("{}/{} nodes ready", r.available, r.want)
    };
    Ok(Status {
        object,
        ready: r.ready,
        detail,
    })
}

/// Why a workload has no pod: the newest `FailedCreate` event of the
/// object that creates its pods (the Deployment's newest ReplicaSet, or
/// the DaemonSet itself), which carries admission's own message (Pod
/// Security, a quota, a LimitRange, a webhook). Gives that object and the
/// message.
async fn failed_create(
    client: &Client,
    m: &Manifest,
    ns: &str,
) -> Result<Option<(String, String)>, KubeError> {
    let owner = if m.kind == "Deployment" {
        let api = Api::<ReplicaSet>::namespaced(client.clone(), ns);
        let selector: Vec<String> = m
            .object
            .pointer("/spec/selector/matchLabels")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
            .collect();
        let sets = request(
            "listing ReplicaSets of",
            &m.display_name(),
            api.list(&ListParams::default().labels(&selector.join(","))),
        )
        .await?;
        let newest = sets
            .items
            .into_iter()
            .filter(|rs| {
                rs.metadata
                    .owner_references
                    .iter()
                    .flatten()
                    .any(|o| o.kind == "Deployment" && o.name == m.name)
            })
            .max_by_key(|rs| {
                rs.metadata
                    .annotations
                    .as_ref()
                    .and_then(|a| a.get("deployment.kubernetes.io/revision"))
                    .and_then(|r| r.parse::<i64>().ok())
                    .unwrap_or(0)
            });
        match newest.and_then(|rs| rs.metadata.name) {
            Some(name) => ("ReplicaSet", name),
            None => return Ok(None),
        }
    } else {
        ("DaemonSet", m.name.clone())
    };
    let api = Api::<Event>::namespaced(client.clone(), ns);
    let params = ListParams::default().fields(&format!(
        "involvedObject.kind={},involvedObject.name={},reason=FailedCreate",
        owner.0, owner.1
    ));
    let shown = format!("{}/{}", owner.0, owner.1);
    let events = request("listing events of", &shown, api.list(&params)).await?;
    let newest = events.items.into_iter().max_by_key(|e| {
        e.last_timestamp
            .as_ref()
            .map(|t| t.0)
            .or_else(|| e.event_time.as_ref().map(|t| t.0))
            .or_else(|| e.metadata.creation_timestamp.as_ref().map(|t| t.0))
    });
    Ok(newest
        .and_then(|e| e.message)
        .map(|message| (shown, message)))
}

/// Why the workload's pods are not ready, from the first stuck pod.
async fn stuck_reason(
    client: &Client,
    m: &Manifest,
    ns: &str,
) -> Result<Option<String>, KubeError> {
    let Some(labels) = m
        .object
        .pointer("/spec/selector/matchLabels")
        .and_then(|v| v.as_object())
    else {
        return Ok(None);
    };
    let selector: Vec<String> = labels
        .iter()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
        .collect();
    let api = Api::<Pod>::namespaced(client.clone(), ns);
    let params = ListParams::default().labels(&selector.join(","));
    let pods = request("listing pods of", &m.display_name(), api.list(&params)).await?;
    if pods.items.is_empty() {
        let why = failed_create(client, m, ns).await?;
        return Ok(Some(match why {
            Some((owner, message)) => {
                format!("no pod was created: {owner} could not create one: {message}")
            }
            None => format!(
                "no pod was created, and no FailedCreate event says why (see `kubectl -n {ns} get events`)"
            ),
        }));
    }
    for pod in pods.items {
        let name = pod.metadata.name.clone().unwrap_or_default();
        let Some(status) = pod.status else { continue };
        for c in status.conditions.unwrap_or_default() {
            if c.type_ == "PodScheduled" && c.status == "False" {
                return Ok(Some(format!(
                    "pod {name} is Pending: {}: {}",
                    c.reason.unwrap_or_else(|| "not scheduled".into()),
                    c.message.unwrap_or_default()
                )));
            }
        }
        for cs in status.container_statuses.unwrap_or_default() {
            if let Some(waiting) = cs.state.and_then(|s| s.waiting) {
                return Ok(Some(format!(
                    "pod {name}, container {}: {}{}",
                    cs.name,
                    waiting.reason.unwrap_or_else(|| "waiting".into()),
                    waiting
                        .message
                        .map(|m| format!(": {m}"))
                        .unwrap_or_default()
                )));
            }
        }
        if status.phase.as_deref() != Some("Running") {
            return Ok(Some(format!(
                "pod {name} is {}",
                status.phase.unwrap_or_else(|| "Unknown".into())
            )));
        }
    }
    Ok(None)
}
