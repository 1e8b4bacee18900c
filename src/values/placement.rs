//! Where a group of pods runs and how the cluster treats them, beyond the
//! node selector and tolerations (`Scheduling`): pod annotations and labels,
//! affinity and the scheduler. This is how users keep autoscalers and spot
//! reclaim away from running builds (`karpenter.sh/do-not-disrupt`,
//! `cluster-autoscaler.kubernetes.io/safe-to-evict: "false"`) and spread or
//! pin pods. One reader serves every group; which keys a group has is
//! decided by the key table (`schema::KEYS`): the builds take all four, as
//! the chart's runtime spec does, and each component the two the chart
//! gives its pods (`PodAnnotations`, `Affinity`).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::model::reader::Reader;
use super::model::{check_label_value, is_dns_subdomain};
use super::Problem;

/// The three kinds of affinity a pod spec has.
const AFFINITY_KINDS: &[&str] = &["nodeAffinity", "podAffinity", "podAntiAffinity"];

/// Placement of one group of pods, validated.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Placement {
    /// Annotations of each pod (not of the workload).
    pub annotations: BTreeMap<String, String>,
    /// Extra labels of each pod.
    pub labels: BTreeMap<String, String>,
    /// A Kubernetes `affinity`, passed on as written once its shape is checked.
    pub affinity: Option<Value>,
    /// A scheduler other than the default one.
    pub scheduler_name: Option<String>,
    /// The pods' PriorityClass (components only: the chart's runtime spec
    /// has no field for it, so builds take none).
    pub priority_class_name: Option<String>,
}

/// Reads `<section>.PodAnnotations`, `.PodLabels`, `.Affinity`,
/// `.SchedulerName` and `.PriorityClassName`; a key the section does not
/// have reads as unset.
pub(super) fn resolve(r: &mut Reader, section: &str) -> Placement {
    let annotations = r.annotation_map(&format!("{section}.PodAnnotations"));
    let labels_key = format!("{section}.PodLabels");
    let labels = r.annotation_map(&labels_key);
    for (name, value) in &labels {
        if let Err(why) = check_label_value(value) {
            r.problems.push(Problem::new(
                &format!("{labels_key}.{name}"),
                Some(&Value::String(value.clone())),
                format!("is not a valid label value: {why}"),
                "quote a short word, e.g. `team: ci`; put longer text in PodAnnotations",
            ));
        }
    }
    let affinity = affinity(r, &format!("{section}.Affinity"));
    let scheduler_key = format!("{section}.SchedulerName");
    let scheduler_name = r.text(&scheduler_key);
    if let Some(name) = &scheduler_name {
        if !is_dns_subdomain(name) {
            r.problems.push(Problem::new(
                &scheduler_key,
                Some(&Value::String(name.clone())),
                "is not a scheduler name",
                "give the name the scheduler runs as (its `schedulerName`), e.g. `default-scheduler`",
            ));
        }
    }
    let priority_key = format!("{section}.PriorityClassName");
    let priority_class_name = r.text(&priority_key);
    if let Some(name) = &priority_class_name {
        if !is_dns_subdomain(name) {
            r.problems.push(Problem::new(
                &priority_key,
                Some(&Value::String(name.clone())),
                "is not a PriorityClass name",
                "give the name of a PriorityClass of the cluster (kubectl get priorityclasses)",
            ));
        }
    }
    Placement {
        annotations,
        labels,
        affinity,
        scheduler_name,
        priority_class_name,
    }
}

/// An affinity: a map of `nodeAffinity`, `podAffinity` and
/// `podAntiAffinity`, each a map. Its inner fields are the API server's to
/// check (a dry run does); a misspelt kind would be dropped silently by it.
fn affinity(r: &mut Reader, key: &str) -> Option<Value> {
    let value = r.raw_value(key)?.clone();
    let Some(map) = value.as_object() else {
        if !value.is_null() {
            r.problems.push(Problem::new(
                key,
                Some(&value),
                "is not an affinity",
                "write a map of nodeAffinity, podAffinity or podAntiAffinity, as in a pod spec",
            ));
        }
        return None;
    };
    let mut ok = true;
    for (kind, inner) in map {
        if !AFFINITY_KINDS.contains(&kind.as_str()) {
            ok = false;
            r.problems.push(Problem::new(
                &format!("{key}.{kind}"),
                None,
                "is not a kind of affinity",
                "use nodeAffinity, podAffinity or podAntiAffinity (Kubernetes' `affinity` of a pod)",
            ));
        } else if !inner.is_object() {
            ok = false;
            r.problems.push(Problem::new(
                &format!("{key}.{kind}"),
                Some(inner),
                "is not a map",
                "write it as in a pod spec, e.g. `requiredDuringSchedulingIgnoredDuringExecution: {...}`",
            ));
        }
    }
    (ok && !map.is_empty()).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn placed(values: Value) -> (Placement, Vec<Problem>) {
        let mut r = Reader::new(&values);
        let p = resolve(&mut r, "Runtime");
        (p, r.problems)
    }

    #[test]
    fn the_autoscaler_annotations_and_an_affinity_are_taken() {
        let (p, problems) = placed(json!({"Runtime": {
            "PodAnnotations": {"karpenter.sh/do-not-disrupt": "true",
                               "cluster-autoscaler.kubernetes.io/safe-to-evict": "false"},
            "PodLabels": {"team": "ci"},
            "Affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {}}},
            "SchedulerName": "bin-packer"}}));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            p.annotations["cluster-autoscaler.kubernetes.io/safe-to-evict"],
            "false"
        );
        assert_eq!(p.labels["team"], "ci");
        assert!(p.affinity.is_some());
        assert_eq!(p.scheduler_name.as_deref(), Some("bin-packer"));
    }

    #[test]
    fn a_components_priority_class_is_a_name() {
        let values = json!({"Runner": {"PriorityClassName": "ci-critical"},
                            "Monitor": {"PriorityClassName": "CI Critical"}});
        let mut r = Reader::new(&values);
        let runner = resolve(&mut r, "Runner");
        assert_eq!(runner.priority_class_name.as_deref(), Some("ci-critical"));
        resolve(&mut r, "Monitor");
        let keys: Vec<&str> = r.problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(keys, ["Monitor.PriorityClassName"]);
    }

    #[test]
    fn a_misspelt_affinity_a_bad_label_and_a_bad_scheduler_name_the_key() {
        let (p, problems) = placed(json!({"Runtime": {
            "PodLabels": {"team": "continuous integration"},
            "Affinity": {"nodeAfinity": {}},
            "SchedulerName": "Bin Packer"}}));
        let keys: Vec<&str> = problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "Runtime.PodLabels.team",
                "Runtime.Affinity.nodeAfinity",
                "Runtime.SchedulerName"
            ]
        );
        assert!(p.affinity.is_none());
    }
}
