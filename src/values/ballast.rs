//! Warm capacity ("ballast", the chart's `ballast.dind` and
//! `ballast.engine`): placeholder pods of the lowest priority that hold a
//! build's worth of room on a node. A build pod preempts one at once, and
//! the evicted placeholder asks the autoscaler (Karpenter, the cluster
//! autoscaler) for the next node while the build runs, so the first build
//! after a quiet night does not wait minutes for a node.
//!
//! Keys: `Runtime.Ballast.Dind.*` and `Runtime.Ballast.Engine.*`, each
//! `Enabled`, `Replicas` (the chart's `replicasCount`), `resources` (the
//! chart's, defaulting, as the chart does, to the build pod's own) and
//! `PodAnnotations`. Placement follows the build pods (`Runtime.NodeSelector`,
//! `Runtime.tolerations`, `Runtime.Affinity`, `Runtime.SchedulerName`): a
//! placeholder elsewhere would keep the wrong nodes warm.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::model::reader::Reader;
use super::model::Resources;
use super::Problem;

/// The most placeholder pods of one kind: more is a node pool, not warmth.
pub const MAX_REPLICAS: i64 = 100;

/// The placeholders of one kind of build pod.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Placeholders {
    /// How many pods (at least 1).
    pub replicas: i64,
    /// The user's resources; empty means "as the build pod asks".
    pub resources: Resources,
    /// Annotations of each placeholder pod.
    pub pod_annotations: BTreeMap<String, String>,
}

/// Warm capacity, validated: `None` where a kind is off.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Ballast {
    /// Room for dind pods (the heavier half of a build).
    pub dind: Option<Placeholders>,
    /// Room for engine pods.
    pub engine: Option<Placeholders>,
}

impl Ballast {
    /// True when any placeholder is rendered (and so the PriorityClass).
    pub fn any(&self) -> bool {
        self.dind.is_some() || self.engine.is_some()
    }
}

/// Reads `Runtime.Ballast.Dind` and `Runtime.Ballast.Engine`.
pub(super) fn resolve(r: &mut Reader) -> Ballast {
    Ballast {
        dind: placeholders(r, "Runtime.Ballast.Dind"),
        engine: placeholders(r, "Runtime.Ballast.Engine"),
    }
}

fn placeholders(r: &mut Reader, section: &str) -> Option<Placeholders> {
    let replicas_key = format!("{section}.Replicas");
    // Like other sections here, a replica count alone turns it on.
    let given = r.raw_value(&replicas_key).is_some();
    let enabled = r.boolean(&format!("{section}.Enabled"), given);
    let replicas = match r.raw_value(&replicas_key).cloned() {
        None | Some(Value::Null) => 1,
        Some(raw) => match r.int(&replicas_key) {
            Some(n) if (1..=MAX_REPLICAS).contains(&n) => n,
            _ => {
                r.problems.push(Problem::new(
                    &replicas_key,
                    Some(&raw),
                    format!("is not a whole number from 1 to {MAX_REPLICAS}"),
                    format!(
                        "give how many builds' room to keep warm, e.g. 1; turn it off with {section}.Enabled: false"
                    ),
                ));
                1
            }
        },
    };
    let resources = r.resources(&format!("{section}.resources"));
    let pod_annotations = r.annotation_map(&format!("{section}.PodAnnotations"));
    enabled.then_some(Placeholders {
        replicas,
        resources,
        pod_annotations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(values: Value) -> (Ballast, Vec<String>) {
        let mut r = Reader::new(&values);
        let b = resolve(&mut r);
        (b, r.problems.into_iter().map(|p| p.key).collect())
    }

    #[test]
    fn off_unless_asked_and_one_pod_by_default() {
        let (b, problems) = read(json!({}));
        assert!(problems.is_empty() && !b.any());
        let (b, problems) = read(json!({"Runtime": {"Ballast": {
            "Dind": {"Enabled": true},
            "Engine": {"Replicas": "3", "resources": {"requests": {"cpu": "100m"}}}}}}));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(b.dind.expect("dind is on").replicas, 1);
        let engine = b.engine.expect("a count turns it on");
        assert_eq!(engine.replicas, 3);
        assert_eq!(engine.resources.requests["cpu"], "100m");
    }

    #[test]
    fn each_mistake_names_its_key() {
        let (_, problems) = read(json!({"Runtime": {"Ballast": {
            "Dind": {"Replicas": 0},
            "Engine": {"Enabled": true, "Replicas": "many", "PodAnnotations": {"bad key!": "x"}}}}}));
        assert_eq!(
            problems,
            [
                "Runtime.Ballast.Dind.Replicas",
                "Runtime.Ballast.Engine.Replicas",
                "Runtime.Ballast.Engine.PodAnnotations.bad key!",
            ]
        );
    }
}
