//! What the builds show together, which no single pod does: dind pods that
//! keep waiting minutes for a node (an autoscaler adding nodes for each
//! build), and how the dind volumes are used (in use, waiting in the pool
//! for the next build, or released and never reused). Advice, not
//! failures: they do not change the exit code.

use serde_json::Value;

use crate::app::day_two::diagnose::pods::text;
use crate::output::diagnose::{BuildPod, Pattern, GUIDE_PAGE};

/// A wait for a node longer than this is a slow start a user notices.
pub(crate) const SLOW_SCHEDULING_SECONDS: i64 = 120;
/// How many of the newest dind pods the slow-start pattern looks at.
const RECENT: usize = 10;

fn pattern(kind: &str, text: String) -> Pattern {
    debug_assert!(crate::output::diagnose::KINDS.contains(&kind));
    Pattern {
        kind: kind.into(),
        text,
        guide: format!("{GUIDE_PAGE}#{kind}"),
    }
}

/// "N of the last M dind pods waited more than 2 minutes for a node", over
/// `pods` (newest first, every runtime's).
pub(crate) fn slow_scheduling(pods: &[&BuildPod]) -> Option<Pattern> {
    let recent: Vec<&&BuildPod> = pods
        .iter()
        .filter(|p| p.role == "dind" && p.waited_for_node_seconds.is_some())
        .take(RECENT)
        .collect();
    let slow = recent
        .iter()
        .filter(|p| p.waited_for_node_seconds.unwrap_or(0) > SLOW_SCHEDULING_SECONDS)
        .count();
    (slow > 0).then(|| {
        pattern(
            "slow-scheduling",
            format!(
                "{slow} of the last {} dind pods waited more than {} minutes for a node: the cluster is adding a node for builds (an autoscaler); consider warm capacity: placeholder pods that builds preempt (Runtime.Ballast.Dind.Enabled: true, then `cf-runner upgrade`), or a node group kept at a minimum size",
                recent.len(),
                SLOW_SCHEDULING_SECONDS / 60
            ),
        )
    })
}

/// How the dind volumes of `classes` in `namespace` are used: claims held
/// by a build pod, claims waiting in the pool, and volumes released and not
/// reused. `None` when there are none.
pub(crate) fn volume_pool(
    namespace: &str,
    classes: &[String],
    claims: &[Value],
    pods: &[Value],
    volumes: Option<&[Value]>,
) -> Option<Pattern> {
    let ours = |v: &Value| {
        classes
            .iter()
            .any(|c| c == text(v, "/spec/storageClassName"))
    };
    let claims: Vec<&Value> = claims.iter().filter(|c| ours(c)).collect();
    if claims.is_empty() {
        return None;
    }
    let mounted: Vec<&str> = pods
        .iter()
        .filter(|p| !matches!(text(p, "/status/phase"), "Succeeded" | "Failed"))
        .filter_map(|p| p.pointer("/spec/volumes").and_then(Value::as_array))
        .flatten()
        .filter_map(|v| {
            v.pointer("/persistentVolumeClaim/claimName")
                .and_then(Value::as_str)
        })
        .collect();
    let in_use = claims
        .iter()
        .filter(|c| mounted.contains(&text(c, "/metadata/name")))
        .count();
    let mut words = format!(
        "dind volumes in namespace {namespace}: {} claims, {in_use} in use by a build, {} in the pool for the next builds",
        claims.len(),
        claims.len() - in_use
    );
    if let Some(volumes) = volumes {
        let released = volumes
            .iter()
            .filter(|v| ours(v) && text(v, "/status/phase") == "Released")
            .count();
        if released > 0 {
            words.push_str(&format!(
                "; {released} released and not reused: their claims were deleted, so no build can take them (reuseVolumeSelector picks claims, not volumes; the cleanup deletes them)"
            ));
        }
    }
    Some(pattern("volume-reuse", words))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dind(name: &str, waited: i64) -> BuildPod {
        BuildPod {
            name: name.into(),
            role: "dind".into(),
            build: None,
            phase: "Running".into(),
            created: String::new(),
            waited_for_node_seconds: Some(waited),
            started_after_seconds: None,
            node: None,
            causes: Vec::new(),
        }
    }

    #[test]
    fn slow_starts_are_counted_over_the_last_ten_dind_pods() {
        let pods: Vec<BuildPod> = (0..12)
            .map(|i| dind(&format!("dind-{i}"), if i % 2 == 0 { 300 } else { 5 }))
            .collect();
        let refs: Vec<&BuildPod> = pods.iter().collect();
        let p = slow_scheduling(&refs).unwrap();
        assert!(
            p.text
                .starts_with("5 of the last 10 dind pods waited more than 2 minutes"),
            "{}",
            p.text
        );
        let quick = [dind("dind-q", 3)];
        assert!(slow_scheduling(&quick.iter().collect::<Vec<_>>()).is_none());
    }

    #[test]
    fn the_pool_counts_claims_held_and_waiting_and_volumes_released() {
        let classes = vec!["dind-local".to_string()];
        let claim =
            |n: &str| json!({"metadata": {"name": n}, "spec": {"storageClassName": "dind-local"}});
        let claims = vec![claim("a"), claim("b"), claim("c")];
        let pods = vec![json!({"status": {"phase": "Running"},
            "spec": {"volumes": [{"persistentVolumeClaim": {"claimName": "a"}}]}})];
        let volumes = vec![
            json!({"spec": {"storageClassName": "dind-local"}, "status": {"phase": "Released"}}),
        ];
        let p = volume_pool("ci", &classes, &claims, &pods, Some(&volumes)).unwrap();
        assert!(
            p.text
                .contains("3 claims, 1 in use by a build, 2 in the pool"),
            "{}",
            p.text
        );
        assert!(p.text.contains("1 released and not reused"), "{}", p.text);
    }
}
