//! The engine's, dind's and the components' settings of issue 44
//! (`values::engine_tuning`, `values::component_tuning`) take effect on
//! both sides: the parity test proves cf-runner and the chart agree, and
//! this one that they agree on the example's values, not on two defaults
//! (a setting lost on the way to the Helm values would pass the parity
//! test with both sides at the chart's default).

use serde_json::{json, Value};

use crate::chart_parity::{sides, Side};

fn side(example: &str) -> &'static Side {
    sides()
        .iter()
        .find(|s| s.example == example)
        .unwrap_or_else(|| panic!("values-examples/{example}.yaml exists"))
}

/// The same field of cf-runner's and the chart's runtime spec.
fn both_specs(s: &Side, path: &str) -> (Value, Value) {
    let pointer = format!("/{}", path.replace('.', "/"));
    let get = |v: &Value| v.pointer(&pointer).cloned().unwrap_or(Value::Null);
    (get(&s.our_spec), get(&s.chart_spec))
}

#[test]
fn engine_and_dind_settings_reach_both_runtime_specs() {
    let s = side("engine-tuning");
    let expected = [
        ("runtimeScheduler.terminationGracePeriodSeconds", json!(600)),
        ("runtimeScheduler.resources.limits.memory", json!("4Gi")),
        ("runtimeScheduler.resources.requests.memory", json!("512Mi")),
        ("runtimeScheduler.resources.limits.cpu", json!("1000m")),
        (
            "runtimeScheduler.envVars.CF_SERVICE_VERSION",
            json!("3.3.14@sha256:5d1a8e0d6c36d64f61b3c94b8d6f2ab3e6b2ab3c2a0d6e4b5f1a8c9d0e7f6a5b"),
        ),
        (
            "runtimeScheduler.envVars.GIT_CLONE_IMAGE",
            json!("registry.acme.example/codefresh/cf-git-cloner:10.3.14"),
        ),
        // The chart reads this one under a misspelt name; the Helm values
        // give both, so the build still gets the user's image.
        (
            "runtimeScheduler.envVars.GC_BUILDER_IMAGE",
            json!("registry.acme.example/codefresh/gcloud-builder:0.5.22"),
        ),
        (
            "runtimeScheduler.userEnvVars.1.valueFrom.secretKeyRef.name",
            json!("github-token"),
        ),
        (
            "dockerDaemonScheduler.dindImage",
            json!("registry.acme.example/codefresh/dind:3.0.26"),
        ),
        (
            "dockerDaemonScheduler.terminationGracePeriodSeconds",
            json!(60),
        ),
        (
            "dockerDaemonScheduler.pvcs.0.reuseVolumeSortOrder",
            json!("repository_id"),
        ),
    ];
    let mut lost = Vec::new();
    for (path, want) in expected {
        let (ours, chart) = both_specs(s, path);
        // The spec is YAML text on the chart's side: numbers may be text.
        let same = |v: &Value| *v == want || v.as_str() == Some(&want.to_string());
        if !same(&ours) || !same(&chart) {
            lost.push(format!(
                "{path}: cf-runner {ours} / chart {chart}, wanted {want}"
            ));
        }
    }
    assert!(lost.is_empty(), "{}", lost.join("\n"));
    let annotations = |o: &Value| o["spec"]["template"]["metadata"]["annotations"].clone();
    assert_eq!(
        annotations(&s.ours["DaemonSet/dind-lv-monitor"])["cost.acme.example/team"],
        annotations(&s.chart["DaemonSet/cf-runtime-lv-monitor"])["cost.acme.example/team"],
    );
    assert_eq!(
        annotations(&s.ours["DaemonSet/dind-lv-monitor"])["cost.acme.example/team"],
        "ci-platform"
    );
}

#[test]
fn component_settings_reach_both_sides_objects() {
    let s = side("components-scaled");
    let pairs = [
        (
            "Deployment/dind-volume-provisioner",
            "Deployment/cf-runtime-volume-provisioner",
            "/spec/replicas",
            json!(2),
        ),
        (
            "Deployment/app-proxy",
            "Deployment/cf-runtime-app-proxy",
            "/spec/replicas",
            json!(2),
        ),
        (
            "CronJob/dind-volume-cleanup",
            "CronJob/cf-runtime-volume-cleanup",
            "/spec/schedule",
            json!("0 * * * *"),
        ),
        (
            "CronJob/dind-volume-cleanup",
            "CronJob/cf-runtime-volume-cleanup",
            "/spec/suspend",
            json!(true),
        ),
        (
            "ServiceAccount/runner",
            "ServiceAccount/cf-runtime-runner",
            "/metadata/annotations/policy.acme.example~1owner",
            json!("ci-platform"),
        ),
    ];
    let mut lost = Vec::new();
    for (ours, theirs, pointer, want) in pairs {
        let a = s.ours[ours].pointer(pointer).cloned().unwrap_or_default();
        let b = s.chart[theirs]
            .pointer(pointer)
            .cloned()
            .unwrap_or_default();
        if a != want || b != want {
            lost.push(format!(
                "{ours} {pointer}: cf-runner {a} / chart {b}, wanted {want}"
            ));
        }
    }
    assert!(lost.is_empty(), "{}", lost.join("\n"));
}
