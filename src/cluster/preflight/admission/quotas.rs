//! ResourceQuotas and LimitRanges: what the install and one build need,
//! against the room a namespace's quotas leave and the maxima its
//! LimitRanges set.

use std::collections::BTreeMap;

use serde_json::Value;

use super::candidates::Candidate;
use super::pod_security::{all_containers, container_name};
use crate::values::quantity_value;

/// How much of each quota resource the install and one build need.
pub fn quota_needs(candidates: &[Candidate]) -> BTreeMap<String, f64> {
    let mut need: BTreeMap<String, f64> = BTreeMap::new();
    let mut add = |key: String, v: f64| *need.entry(key).or_default() += v;
    for c in candidates {
        let n = c.copies as f64;
        if let Some(spec) = c.pod_spec() {
            add("pods".into(), n);
            add("count/pods".into(), n);
            for (kind, keys) in [
                ("requests", ["requests.cpu", "requests.memory"]),
                ("limits", ["limits.cpu", "limits.memory"]),
            ] {
                for (resource, key) in ["cpu", "memory"].iter().zip(keys) {
                    let amount = pod_amount(spec, kind, resource);
                    add(key.to_string(), amount * n);
                    if kind == "requests" {
                        add(resource.to_string(), amount * n);
                    }
                }
            }
        } else {
            let storage = c
                .object
                .pointer("/spec/resources/requests/storage")
                .and_then(Value::as_str)
                .and_then(quantity_value)
                .unwrap_or(0.0);
            add("persistentvolumeclaims".into(), n);
            add("count/persistentvolumeclaims".into(), n);
            add("requests.storage".into(), storage * n);
            if let Some(sc) = c
                .object
                .pointer("/spec/storageClassName")
                .and_then(Value::as_str)
            {
                add(
                    format!("{sc}.storageclass.storage.k8s.io/requests.storage"),
                    storage * n,
                );
                add(
                    format!("{sc}.storageclass.storage.k8s.io/persistentvolumeclaims"),
                    n,
                );
            }
        }
    }
    need
}

/// When a quota is too small and the install keeps warm capacity: the
/// placeholders count against the quota like any pod, and they are the
/// part the user can give up without losing a build.
pub fn warm_capacity_note(candidates: &[Candidate]) -> Option<String> {
    let ballast: Vec<String> = candidates
        .iter()
        .filter(|c| c.component.ends_with("-ballast"))
        .map(|c| format!("{} ({} pod(s))", c.component, c.copies))
        .collect();
    (!ballast.is_empty()).then(|| {
        format!(
            "the warm-capacity placeholders count against the quota: {}; fewer \
             Runtime.Ballast.*.Replicas, smaller Runtime.Ballast.*.resources, or none, leave \
             that room to builds",
            ballast.join(", ")
        )
    })
}

/// A pod's `requests` or `limits` of one resource: the sum over its
/// containers, or its largest init container's when that is more.
fn pod_amount(spec: &Value, kind: &str, resource: &str) -> f64 {
    let read = |c: &Value, kind: &str| {
        c.pointer(&format!("/resources/{kind}/{resource}"))
            .and_then(|v| match v {
                Value::String(s) => quantity_value(s),
                Value::Number(n) => n.as_f64(),
                _ => None,
            })
    };
    // A container with a limit and no request requests its limit (the API
    // server's default), and that is what a quota counts.
    let amount = |c: &Value| {
        read(c, kind)
            .or_else(|| (kind == "requests").then(|| read(c, "limits")).flatten())
            .unwrap_or(0.0)
    };
    let list = |k: &str| -> Vec<f64> {
        spec.get(k)
            .and_then(Value::as_array)
            .map(|a| a.iter().map(amount).collect())
            .unwrap_or_default()
    };
    let sum: f64 = list("containers").iter().sum();
    list("initContainers").into_iter().fold(sum, f64::max)
}

/// A quantity for messages: cores for CPU, binary units for bytes.
fn amount_text(resource: &str, v: f64) -> String {
    if resource.ends_with("cpu") || resource == "cpu" {
        let milli = (v * 1000.0).round() as u64;
        if milli % 1000 == 0 {
            format!("{}", milli / 1000)
        } else {
            format!("{milli}m")
        }
    } else if resource.ends_with("memory") || resource.ends_with("storage") {
        const MI: f64 = 1024.0 * 1024.0;
        let mi = (v / MI).ceil() as u64;
        if mi >= 1024 && mi % 1024 == 0 {
            format!("{}Gi", mi / 1024)
        } else {
            format!("{mi}Mi")
        }
    } else {
        format!("{}", v.round() as i64)
    }
}

/// The findings of one ResourceQuota: each resource whose room left is
/// less than the install and a build need. `quota` is the object as read.
pub fn quota_findings(quota: &Value, need: &BTreeMap<String, f64>, namespace: &str) -> Vec<String> {
    let name = quota
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("?");
    let hard = quota
        .pointer("/status/hard")
        .or_else(|| quota.pointer("/spec/hard"))
        .and_then(Value::as_object);
    let used = quota.pointer("/status/used");
    let mut out = Vec::new();
    for (resource, limit) in hard.into_iter().flatten() {
        let Some(want) = need.get(resource).copied().filter(|w| *w > 0.0) else {
            continue;
        };
        let value = |v: Option<&Value>| v.and_then(Value::as_str).and_then(quantity_value);
        let Some(limit) = value(Some(limit)) else {
            continue;
        };
        let used = value(used.and_then(|u| u.get(resource))).unwrap_or(0.0);
        let left = (limit - used).max(0.0);
        if want > left + 1e-9 {
            out.push(format!(
                "ResourceQuota {name}: {resource} has {} left (hard {}, used {}), the runner's pods and one build need {}; fix: raise it by at least {} (`kubectl edit resourcequota {name} -n {namespace}`), or lower the runner's and the builds' resources in the values",
                amount_text(resource, left),
                amount_text(resource, limit),
                amount_text(resource, used),
                amount_text(resource, want),
                amount_text(resource, want - left),
            ));
        }
    }
    out
}

/// The findings of one LimitRange: each container limit above its
/// `max`, and a dind claim above the PVC `max`.
pub fn limit_range_findings(
    range: &Value,
    candidates: &[Candidate],
    namespace: &str,
) -> Vec<String> {
    let name = range
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("?");
    let mut out = Vec::new();
    let items = range
        .pointer("/spec/limits")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let fix = format!(
        "fix: ask for LimitRange {name}'s max to be raised (`kubectl edit limitrange {name} -n {namespace}`), or lower the resources in the values"
    );
    for item in &items {
        let Some(max) = item.get("max").and_then(Value::as_object) else {
            continue;
        };
        let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
        for c in candidates {
            match (kind, c.pod_spec()) {
                ("Container", Some(spec)) => {
                    for container in all_containers(spec) {
                        for (resource, cap) in max {
                            let Some(cap) = cap.as_str().and_then(quantity_value) else {
                                continue;
                            };
                            let limit = container
                                .pointer(&format!("/resources/limits/{resource}"))
                                .and_then(Value::as_str)
                                .and_then(quantity_value);
                            if let Some(limit) = limit.filter(|l| *l > cap) {
                                out.push(format!(
                                    "{} (container {}): LimitRange {name} allows at most {} {resource} per container, its limit is {}; {fix}",
                                    c.component,
                                    container_name(container),
                                    amount_text(resource, cap),
                                    amount_text(resource, limit),
                                ));
                            }
                        }
                    }
                }
                ("PersistentVolumeClaim", None) => {
                    let cap = max
                        .get("storage")
                        .and_then(Value::as_str)
                        .and_then(quantity_value);
                    let size = c
                        .object
                        .pointer("/spec/resources/requests/storage")
                        .and_then(Value::as_str)
                        .and_then(quantity_value);
                    if let (Some(cap), Some(size)) = (cap, size) {
                        if size > cap {
                            out.push(format!(
                                "{}: LimitRange {name} allows at most {} per volume claim, the claim asks {}; {fix} (Runtime.VolumeSize)",
                                c.component,
                                amount_text("storage", cap),
                                amount_text("storage", size),
                            ));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}
