//! `diagnose`: for the builds of one installation's runtimes (the agent's
//! own and those attached to it) in a time window, which engine and dind
//! pods there were, how long each waited, and for each that did not run as
//! expected the cause and its fix, plus the patterns across builds.
//! Read-only: it lists and gets, and writes nothing to the cluster or the
//! platform.
//!
//! `pods` picks the build pods and their waits, `causes` explains what kept
//! a pod from a node or from existing, `failures` what stopped one that had
//! a node, `patterns` what the builds show together, `reads` what they are judged
//! from. This file reads the
//! cluster (`cluster::builds`) and puts the answers together.

pub mod causes;
pub mod failures;
pub mod patterns;
pub mod pods;
pub mod reads;

use std::time::Duration;

use serde_json::Value;

use crate::app::day_two::diagnose::reads::Context;
use crate::app::identity::certificate;
use crate::app::installation::{own_classes, read_installation, Installation};
use crate::app::runtimes::target::IN_CLUSTER_HOST;
use crate::app::session::options::PlatformOptions;
use crate::app::session::outcome::Outcome;
use crate::cluster::bridge::{self, Networks};
use crate::cluster::builds;
use crate::cluster::Cluster;
use crate::output::diagnose::{BuildPod, Cause, Diagnosis, RuntimeDiagnosis};

/// What `diagnose` looks at.
pub(crate) struct Options {
    /// The window: build pods created this long ago or later.
    pub since: Duration,
    /// The window as the user wrote it, for the report.
    pub since_text: String,
    pub platform: PlatformOptions,
}

/// One runtime to look at: its name and namespace in this cluster.
struct Place {
    runtime: Option<String>,
    namespace: String,
}

/// The runtimes of the installation in `namespace` that this cluster
/// holds; notes name the ones elsewhere.
async fn places(
    cluster: &Cluster,
    inst: &Installation,
    platform: &PlatformOptions,
    notes: &mut Vec<String>,
) -> Vec<Place> {
    let own = inst.record.as_ref().and_then(|r| r.runtime_name.clone());
    let agent_only = inst.values.as_ref().is_some_and(|v| v.agent_only);
    let mut out = Vec::new();
    if !agent_only {
        out.push(Place {
            runtime: own.clone(),
            namespace: inst.namespace.clone(),
        });
    }
    if inst.record.is_none() {
        return out;
    }
    let server = cluster.server.trim_end_matches('/');
    for rt in crate::app::runtimes::view::view(cluster, inst, platform, notes).await {
        let Some(ns) = rt.namespace.clone() else {
            continue;
        };
        if out.iter().any(|p| p.namespace == ns) {
            continue;
        }
        let host = rt
            .host
            .as_deref()
            .unwrap_or(IN_CLUSTER_HOST)
            .trim_end_matches('/');
        if host == IN_CLUSTER_HOST || host == server {
            out.push(Place {
                runtime: Some(rt.name),
                namespace: ns,
            });
        } else {
            notes.push(format!(
                "runtime {} runs in another cluster ({host}): run `cf-runner diagnose --kube-context-name <its context> --kube-namespace {ns}` there",
                rt.name
            ));
        }
    }
    out
}

/// The causes of one build pod.
fn causes_of(ctx: &Context<'_>, pod: &Value) -> Vec<Cause> {
    let name = pods::text(pod, "/metadata/name");
    let events = ctx.events.about("Pod", name);
    let mut out = causes::scheduling(ctx, pod, events);
    out.extend(causes::volumes(ctx, pod, events));
    out.extend(failures::image_pull(pod, events, ctx.mirror));
    out.extend(failures::eviction(pod));
    out.extend(failures::oom_killed(pod));
    out.extend(failures::node_gone(pod, events));
    out
}

/// The build pods of one runtime namespace with their causes, and the
/// namespace's refusals and certificate.
pub(crate) fn judge(
    ctx: &Context<'_>,
    from: i64,
    now: i64,
    runtime_causes: &mut Vec<Cause>,
) -> Vec<BuildPod> {
    let found = pods::build_pods(&ctx.reads.pods, from, now);
    let judged = found
        .into_iter()
        .map(|(pod, mut shown)| {
            shown.causes = causes_of(ctx, pod);
            shown
        })
        .collect();
    runtime_causes.extend(causes::refusals(ctx, from));
    judged
}

/// The dind certificate of the runtime in `namespace`, when it is wrong.
async fn certificate_cause(cluster: &Cluster, namespace: &str) -> Option<Cause> {
    let state = certificate::read(cluster, namespace).await.ok()?;
    let verdict = certificate::judge(&state, certificate::now(), namespace);
    if verdict.ok || verdict.absent {
        return None;
    }
    Some(Cause::new(
        "dind-certificate",
        format!(
            "the dind certificate of namespace {namespace} {}",
            verdict.text
        ),
        verdict.fix.unwrap_or_default(),
    ))
}

/// dind's bridge in `namespace`, when it overlaps the cluster's pod or
/// Service networks: builds then cannot reach those addresses.
async fn bridge_cause(cluster: &Cluster, namespace: &str, nets: &Networks) -> Option<Cause> {
    let check = bridge::check_installed(&cluster.client, namespace, nets).await?;
    if check.status != crate::cluster::preflight::Status::Fail {
        return None;
    }
    let clashes: Vec<&String> = check
        .details
        .iter()
        .filter(|d| !d.starts_with("not compared"))
        .collect();
    Some(Cause::new(
        "bridge-overlap",
        format!(
            "namespace {namespace}: {} ({})",
            check.reason,
            clashes
                .iter()
                .map(|c| c.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        ),
        check.fix.unwrap_or_default(),
    ))
}

/// Diagnoses the builds of the installation in `namespace`.
pub(crate) async fn diagnose(
    cluster: &Cluster,
    namespace: &str,
    options: &Options,
) -> Result<Diagnosis, Outcome> {
    let mut notes = Vec::new();
    let inst = match read_installation(cluster, namespace).await {
        Ok(inst) => Some(inst),
        // A user who may only read the namespace may not read its Secrets:
        // the builds are still there to look at.
        Err(e) if e.code() == Some(403) => {
            notes.push(format!(
                "the installation's record could not be read ({e}): only namespace {namespace} is looked at"
            ));
            None
        }
        Err(e) => {
            return Err(Outcome::from_cluster(
                e,
                &format!("reading the installation in namespace {namespace} failed"),
            ))
        }
    };
    let places = match &inst {
        Some(inst) if !inst.is_empty() => {
            places(cluster, inst, &options.platform, &mut notes).await
        }
        _ => vec![Place {
            runtime: None,
            namespace: namespace.to_string(),
        }],
    };
    let now = certificate::now();
    let from = now - options.since.as_secs() as i64;
    let values = inst.as_ref().and_then(|i| i.values.as_ref());
    let mirror = values.and_then(|v| v.docker_registry.as_deref());
    let mut runtimes = Vec::new();
    let mut causes = Vec::new();
    let mut patterns = Vec::new();
    let nets = bridge::networks(&cluster.client).await;
    for place in places {
        let reads = match builds::read(&cluster.client, &place.namespace).await {
            Ok(r) => r,
            Err(e) if place.namespace == namespace => {
                return Err(Outcome::from_cluster(
                    e,
                    &format!("reading the build pods of namespace {namespace} failed"),
                ))
            }
            Err(e) => {
                notes.push(format!("namespace {}: not looked at: {e}", place.namespace));
                continue;
            }
        };
        notes.extend(reads.unread.iter().map(|u| {
            format!(
                "namespace {}: not read, so not judged: {u}",
                place.namespace
            )
        }));
        let ctx = Context::new(&place.namespace, &reads, mirror);
        let pods = judge(&ctx, from, now, &mut causes);
        causes.extend(certificate_cause(cluster, &place.namespace).await);
        causes.extend(bridge_cause(cluster, &place.namespace, &nets).await);
        let objects = inst
            .as_ref()
            .map(|i| i.objects.as_slice())
            .unwrap_or_default();
        let classes = own_classes(&place.namespace, values, objects);
        patterns.extend(patterns::volume_pool(
            &place.namespace,
            &classes,
            &reads.claims,
            &reads.pods,
            reads.volumes.as_deref(),
        ));
        runtimes.push(RuntimeDiagnosis {
            runtime: place.runtime,
            context: cluster.context.clone(),
            namespace: place.namespace,
            pods,
        });
    }
    let mut every: Vec<&BuildPod> = runtimes.iter().flat_map(|r| r.pods.iter()).collect();
    every.sort_by(|a, b| b.created.cmp(&a.created));
    patterns.extend(patterns::slow_scheduling(&every));
    let nothing_wrong = causes.is_empty() && every.iter().all(|p| p.causes.is_empty());
    Ok(Diagnosis {
        context: cluster.context.clone(),
        namespace: namespace.to_string(),
        since: options.since_text.clone(),
        runtimes,
        causes,
        patterns,
        notes,
        nothing_wrong,
    })
}
