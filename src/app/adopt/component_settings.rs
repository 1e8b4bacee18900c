//! The components' settings an old install shows in its objects, as
//! cf-runner keys: the runner's ServiceAccount annotations, the local
//! volume monitor's pod annotations, the volume cleaner's schedule and
//! pause, and the provisioner's and app-proxy's replicas (the chart's
//! `runner.serviceAccount.annotations`, `dind-lv-monitor.podAnnotations`,
//! `dind-volume-cleanup.schedule`/`suspend`, `replicasCount`).
//!
//! Objects are found by the image they run, which the chart and
//! venonactl share, rather than by names that differ between them. Only
//! what differs from the default is carried, and annotations the tools
//! add by themselves (Helm's, kubectl's, venonactl's scrape hints) are not
//! the user's setting.

use serde_json::{json, Map, Value};

use crate::app::adopt::objects::{kind, name};

/// Annotation prefixes tools write by themselves.
const TOOLS_ANNOTATIONS: &[&str] = &[
    "meta.helm.sh/",
    "kubectl.kubernetes.io/",
    "deployment.kubernetes.io/",
];

/// The lv-monitor's scrape hints cf-runner renders anyway.
const SCRAPE_HINTS: &[&str] = &["prometheus_port", "prometheus_scrape"];

/// The chart's (and venonactl's) cleaner schedule.
const DEFAULT_SCHEDULE: &str = "*/10 * * * *";

/// The first workload of `kinds` whose first container runs `image`.
fn running<'a>(mine: &[&'a Value], kinds: &[&str], image: &str) -> Option<&'a Value> {
    mine.iter().copied().find(|o| {
        kinds.contains(&kind(o)) && {
            let spec = match kind(o) {
                "CronJob" => &o["spec"]["jobTemplate"]["spec"]["template"]["spec"],
                _ => &o["spec"]["template"]["spec"],
            };
            spec["containers"][0]["image"]
                .as_str()
                .is_some_and(|i| i.contains(image))
        }
    })
}

/// Annotations of `at` without the tools' own and without `skip`.
fn users_annotations(at: &Value, skip: &[&str]) -> Option<Value> {
    let kept: Map<String, Value> = at
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| !TOOLS_ANNOTATIONS.iter().any(|p| k.starts_with(p)))
        .filter(|(k, _)| !skip.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    (!kept.is_empty()).then_some(Value::Object(kept))
}

/// Writes what the objects in `mine` say into the values tree `v`.
pub(crate) fn read(runner: Option<&Value>, mine: &[&Value], v: &mut Value) {
    let account = runner
        .and_then(|r| r["spec"]["template"]["spec"]["serviceAccountName"].as_str())
        .and_then(|sa| {
            mine.iter()
                .find(|o| kind(o) == "ServiceAccount" && name(o) == sa)
        });
    if let Some(a) = account.and_then(|a| users_annotations(&a["metadata"]["annotations"], &[])) {
        v["Runner"]["ServiceAccount"]["Annotations"] = a;
    }
    if let Some(ds) = running(mine, &["DaemonSet"], "dind-volume-utils") {
        let at = &ds["spec"]["template"]["metadata"]["annotations"];
        if let Some(a) = users_annotations(at, SCRAPE_HINTS) {
            v["Storage"]["LocalVolumeMonitor"]["PodAnnotations"] = a;
        }
    }
    if let Some(cron) = running(mine, &["CronJob"], "dind-volume-cleanup") {
        if let Some(s) = cron["spec"]["schedule"].as_str() {
            if s != DEFAULT_SCHEDULE {
                v["Storage"]["VolumeCleaner"]["Schedule"] = json!(s);
            }
        }
        if cron["spec"]["suspend"] == json!(true) {
            v["Storage"]["VolumeCleaner"]["Suspend"] = json!(true);
        }
    }
    let replicas = |image: &str| {
        running(mine, &["Deployment"], image)
            .and_then(|d| d["spec"]["replicas"].as_i64())
            .filter(|n| *n > 1)
    };
    if let Some(n) = replicas("dind-volume-provisioner") {
        v["Storage"]["VolumeProvisioner"]["Replicas"] = json!(n);
    }
    if let Some(n) = replicas("cf-app-proxy") {
        v["AppProxy"]["Replicas"] = json!(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workload(kind: &str, name: &str, image: &str, extra: Value) -> Value {
        let pod = json!({"spec": {"containers": [{"image": image}]}});
        let mut o = json!({"kind": kind, "metadata": {"name": name}, "spec": {}});
        if kind == "CronJob" {
            o["spec"]["jobTemplate"]["spec"]["template"] = pod;
        } else {
            o["spec"]["template"] = pod;
        }
        json_merge(&mut o, extra);
        o
    }

    fn json_merge(a: &mut Value, b: Value) {
        match (a, b) {
            (Value::Object(a), Value::Object(b)) => {
                for (k, v) in b {
                    json_merge(a.entry(k).or_insert(Value::Null), v);
                }
            }
            (a, b) => *a = b,
        }
    }

    #[test]
    fn a_chart_installs_settings_are_carried_and_the_tools_annotations_are_not() {
        let runner = workload(
            "Deployment",
            "cf-runtime-runner",
            "quay.io/codefresh/venona:2.0.10",
            json!({"spec": {"template": {"spec": {"serviceAccountName": "cf-runtime-runner"}}}}),
        );
        let sa = json!({"kind": "ServiceAccount", "metadata": {"name": "cf-runtime-runner",
            "annotations": {"meta.helm.sh/release-name": "cf-runtime", "policy/owner": "ci"}}});
        let ds = workload(
            "DaemonSet",
            "cf-runtime-lv-monitor",
            "quay.io/codefresh/dind-volume-utils:1.30.10",
            json!({"spec": {"template": {"metadata": {"annotations": {"team": "ci", "prometheus_port": "9100"}}}}}),
        );
        let cron = workload(
            "CronJob",
            "cf-runtime-volume-cleanup",
            "quay.io/codefresh/dind-volume-cleanup:1.2.0",
            json!({"spec": {"schedule": "0 * * * *", "suspend": true}}),
        );
        let prov = workload(
            "Deployment",
            "cf-runtime-volume-provisioner",
            "quay.io/codefresh/dind-volume-provisioner:2.1.0",
            json!({"spec": {"replicas": 2}}),
        );
        let proxy = workload(
            "Deployment",
            "cf-runtime-app-proxy",
            "quay.io/codefresh/cf-app-proxy:0.1.4",
            json!({"spec": {"replicas": 1}}),
        );
        let mine = [&runner, &sa, &ds, &cron, &prov, &proxy];
        let mut v = json!({});
        read(Some(&runner), &mine, &mut v);
        assert_eq!(
            v,
            json!({
                "Runner": {"ServiceAccount": {"Annotations": {"policy/owner": "ci"}}},
                "Storage": {
                    "LocalVolumeMonitor": {"PodAnnotations": {"team": "ci"}},
                    "VolumeCleaner": {"Schedule": "0 * * * *", "Suspend": true},
                    "VolumeProvisioner": {"Replicas": 2},
                },
            })
        );
    }
}
