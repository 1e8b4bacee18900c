//! What `templates/ballast.yaml` sees: the warm-capacity placeholders
//! (`values::ballast`), each placed where the build pods it stands for go
//! and holding what such a pod asks (unless the user said otherwise), and
//! the PriorityClass they share.
//!
//! The PriorityClass is cluster-scoped. The chart names it `cf-ballast`
//! whatever the release, so a second install in another namespace cannot
//! be made (Helm refuses an object another release owns), and removing one
//! install deletes the class the other's placeholders use. cf-runner names
//! it per installation, as it does its StorageClass.

use serde_json::{json, Value};

use super::images::{self, Pinned};
use super::pod_parts::selector_with_arch;
use super::runtime_spec::dind_resources;
use super::tuning::engine_resources;
use crate::values::{ballast::Placeholders, Resources, Values};

/// The image a placeholder runs: it does nothing, as small as an image gets
/// (the chart's, with its digest).
pub const PAUSE: Pinned = Pinned {
    registry: "registry.k8s.io",
    repository: "pause",
    tag: "3.10",
    digest: "sha256:ee6521f290b2168b6e0935a181d4cff9be1ac3f505666ef0e3c98fae8199917a",
};

/// The placeholders' priority: below every pod's default (0), so any build
/// pod preempts one, and they never preempt anything.
pub const PRIORITY: i64 = -1_000_000;

/// The PriorityClass of an installation's placeholders.
pub fn priority_class_name(namespace: &str) -> String {
    format!("cf-ballast-{namespace}")
}

/// The context of `templates/ballast.yaml`.
pub(super) fn context(values: &Values) -> minijinja::Value {
    let ballast = &values.ballast;
    let registry = values.docker_registry.as_deref();
    let one = |kind: &str, p: &Option<Placeholders>, default: Value| -> Value {
        let Some(p) = p else { return Value::Null };
        json!({
            "name": format!("{kind}-ballast"),
            "component": kind,
            "replicas": p.replicas,
            "resources": resources(&p.resources, default),
            "pod_annotations": p.pod_annotations,
        })
    };
    let deployments: Vec<Value> = [
        one(
            "dind",
            &ballast.dind,
            dind_resources(&values.runtime.dind_resources),
        ),
        one(
            "engine",
            &ballast.engine,
            engine_resources(&values.engine_tuning.engine_resources),
        ),
    ]
    .into_iter()
    .filter(|d| !d.is_null())
    .collect();
    let placement = &values.runtime.placement;
    let context = json!({
        "enabled": ballast.any(),
        "priority_class": priority_class_name(&values.namespace),
        "priority": PRIORITY,
        "image": images::reference(PAUSE, None, registry),
        "deployments": deployments,
        "node_selector": selector_with_arch(&values.runtime.scheduling, values.arch),
        "tolerations": values.runtime.scheduling.tolerations,
        "affinity": placement.affinity,
        "scheduler_name": placement.scheduler_name,
    });
    minijinja::Value::from(minijinja::value::Serde(&context))
}

/// The user's resources, else the build pod's, without unset sections.
fn resources(user: &Resources, build_pod: Value) -> Value {
    let mut chosen = if user.is_empty() {
        build_pod
    } else {
        json!(user)
    };
    if let Some(map) = chosen.as_object_mut() {
        map.retain(|_, v| !v.is_null());
    }
    chosen
}

/// The chart's `ballast` from the values (`None` when both kinds are off).
/// Resources are only written when the user gave them: the chart then
/// takes the build pod's own, as cf-runner does.
pub(super) fn helm(values: &Values) -> Option<Value> {
    let ballast = &values.ballast;
    if !ballast.any() {
        return None;
    }
    let one = |p: &Option<Placeholders>| -> Value {
        let Some(p) = p else {
            return json!({"enabled": false});
        };
        let mut out = json!({"enabled": true, "replicasCount": p.replicas});
        if !p.resources.is_empty() {
            out["resources"] = json!(p.resources);
        }
        if !p.pod_annotations.is_empty() {
            out["podAnnotations"] = json!(p.pod_annotations);
        }
        out
    };
    Some(json!({"dind": one(&ballast.dind), "engine": one(&ballast.engine)}))
}
