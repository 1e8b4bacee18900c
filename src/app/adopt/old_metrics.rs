//! The metrics settings of an old install, read from its objects: the
//! chart's ServiceMonitors and PodMonitors (by the names the chart gives
//! them) and its event exporter, as the `Metrics.*` and `EventExporter.*`
//! keys that make cf-runner render the same. A monitor the chart left off
//! stays off: each is written as its component's own key.

use serde_json::{json, Map, Value};

use crate::app::adopt::objects::{kind, label, name};

/// The chart's monitors, by kind and name, and the cf-runner key of each.
const MONITORS: &[(&str, &str, &str)] = &[
    ("ServiceMonitor", "dind", "Dind"),
    ("ServiceMonitor", "app-proxy", "AppProxy"),
    ("PodMonitor", "engine", "Engine"),
    ("PodMonitor", "runner", "Runner"),
    ("PodMonitor", "volume-provisioner", "VolumeProvisioner"),
];

/// Labels the chart puts on every monitor itself; any other label was the
/// user's (for their Prometheus's selector).
fn is_charts_label(key: &str) -> bool {
    key.starts_with("app.kubernetes.io/") || key == "helm.sh/chart" || key == "app"
}

/// Sets `Metrics` and `EventExporter` in `values` from the old install's
/// objects `mine`; leaves them out when it had none of them.
pub(crate) fn read(mine: &[&Value], values: &mut Value) {
    let mut metrics = Map::new();
    let mut labels = Map::new();
    for (monitor_kind, monitor_name, key) in MONITORS {
        let Some(found) = mine
            .iter()
            .find(|o| kind(o) == *monitor_kind && name(o) == *monitor_name)
        else {
            continue;
        };
        metrics.insert((*key).into(), json!(true));
        for (k, v) in found["metadata"]["labels"]
            .as_object()
            .into_iter()
            .flatten()
        {
            if !is_charts_label(k) {
                labels.insert(k.clone(), v.clone());
            }
        }
    }
    let exporter = mine.iter().find(|o| {
        kind(o) == "Deployment"
            && (label(o, "app") == Some("event-exporter") || name(o).ends_with("event-exporter"))
    });
    if let Some(exporter) = exporter {
        values["EventExporter"] = json!({ "Enabled": true });
        let has_monitor = mine
            .iter()
            .any(|o| kind(o) == "ServiceMonitor" && name(o) == name(exporter));
        metrics.insert("EventExporter".into(), json!(has_monitor));
    }
    if !labels.is_empty() {
        metrics.insert("Labels".into(), Value::Object(labels));
    }
    if !metrics.is_empty() {
        values["Metrics"] = Value::Object(metrics);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_charts_monitors_and_exporter_become_the_keys_that_render_them() {
        let chart_labels =
            json!({"app.kubernetes.io/instance": "cf-runtime", "release": "prometheus"});
        let objects = [
            json!({"kind": "ServiceMonitor", "metadata": {"name": "dind", "labels": chart_labels}}),
            json!({"kind": "PodMonitor", "metadata": {"name": "runner", "labels": chart_labels}}),
            json!({"kind": "Deployment", "metadata": {"name": "cf-runtime-event-exporter",
                   "labels": {"app": "event-exporter"}}}),
            json!({"kind": "ServiceMonitor", "metadata": {"name": "cf-runtime-event-exporter"}}),
        ];
        let mine: Vec<&Value> = objects.iter().collect();
        let mut values = json!({});
        read(&mine, &mut values);
        assert_eq!(
            values,
            json!({"Metrics": {"Dind": true, "Runner": true, "EventExporter": true,
                               "Labels": {"release": "prometheus"}},
                   "EventExporter": {"Enabled": true}})
        );
        let mut none = json!({});
        read(&[], &mut none);
        assert_eq!(none, json!({}));
    }
}
