//! What `Metrics.*` and `EventExporter.*` render: the template context of
//! `templates/metrics.yaml` and `templates/event-exporter.yaml`, the same
//! settings as the chart's `serviceMonitor`, `podMonitor` and
//! `event-exporter` values, and a shape check of the prometheus-operator
//! kinds, which k8s-openapi has no types for (a misspelt field in a
//! template fails here, not in the user's cluster; the e2e tests hold the
//! same objects against the real CRDs).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::images::Pinned;
use super::pod_parts::env_list;
use super::runtime_spec::insert_nonempty;
use crate::values::Values;

/// The event exporter's image as chart 10.5.2 pins it. The chart tags it
/// `latest`; cf-runner pulls it by digest alone, which is what the tag
/// resolves to anyway and says no more than it means.
pub const EVENT_EXPORTER: Pinned = Pinned {
    registry: "docker.io",
    repository: "codefresh/k8s-event-exporter",
    tag: "latest",
    digest: "sha256:cf52048f1378fb6659dffd1394d68fdf23a7ea709585dc14b5007f3e5a1b7584",
};

/// The API group and version of ServiceMonitor and PodMonitor.
pub const MONITORING_API_VERSION: &str = "monitoring.coreos.com/v1";

/// The node the chart pins the event exporter to: its image is built for
/// amd64 only (the chart pins no other component's architecture).
const EXPORTER_ARCH: (&str, &str) = ("kubernetes.io/arch", "amd64");

/// The values key that turns on objects of a prometheus-operator `kind`,
/// for a message when the cluster does not serve it.
pub fn key_for_kind(kind: &str) -> &'static str {
    match kind {
        "PodMonitor" => "Metrics.PodMonitors",
        _ => "Metrics.ServiceMonitors",
    }
}

fn exporter_image(values: &Values) -> String {
    let over = values.metrics.event_exporter.image.as_ref();
    let registry = values.docker_registry.as_deref();
    match over {
        Some(_) => super::images::reference(EVENT_EXPORTER, over, registry),
        None => format!(
            "{}/{}@{}",
            registry.unwrap_or(EVENT_EXPORTER.registry),
            EVENT_EXPORTER.repository,
            EVENT_EXPORTER.digest
        ),
    }
}

/// The event exporter's node selector: amd64, then the global selector,
/// then its own (a user with an image for another architecture says so in
/// `EventExporter.NodeSelector`).
fn exporter_node_selector(values: &Values) -> BTreeMap<String, String> {
    let mut selector = BTreeMap::from([(EXPORTER_ARCH.0.to_string(), EXPORTER_ARCH.1.to_string())]);
    selector.extend(
        values
            .metrics
            .event_exporter
            .scheduling
            .node_selector
            .clone(),
    );
    selector
}

/// What the two templates see as `metrics`.
pub(super) fn context(
    values: &Values,
    credentials: &mut BTreeMap<String, String>,
) -> minijinja::Value {
    let m = &values.metrics;
    let exporter = &m.event_exporter;
    minijinja::context! {
        api_version => ser(&MONITORING_API_VERSION),
        dind => ser(&m.dind),
        app_proxy => ser(&m.app_proxy),
        engine => ser(&m.engine),
        runner => ser(&m.runner),
        volume_provisioner => ser(&m.volume_provisioner),
        exporter_monitor => ser(&m.event_exporter_monitor),
        labels => ser(&m.labels),
        exporter => ser(&exporter.enabled),
        exporter_image => ser(&exporter_image(values)),
        exporter_env => ser(&env_list(&exporter.env, credentials)),
        exporter_resources => ser(&exporter.resources),
        exporter_node_selector => ser(&exporter_node_selector(values)),
        exporter_tolerations => ser(&exporter.scheduling.tolerations),
        exporter_sa_annotations => ser(&exporter.sa_annotations),
        exporter_placement => ser(&exporter.placement),
    }
}

fn ser<T: serde::Serialize + ?Sized>(value: &T) -> minijinja::Value {
    minijinja::Value::from(minijinja::value::Serde(value))
}

/// The chart's `serviceMonitor`, `podMonitor` and `event-exporter` values
/// for the same settings; each is left out when all of it is off, so the
/// chart's defaults (off) stand.
pub(super) fn helm_values(values: &Values) -> Vec<(&'static str, Value)> {
    let m = &values.metrics;
    let monitor = |on: bool| {
        let mut entry = Map::new();
        entry.insert("enabled".into(), json!(on));
        if on && !m.labels.is_empty() {
            entry.insert("labels".into(), json!(m.labels));
        }
        Value::Object(entry)
    };
    let mut out = Vec::new();
    if m.dind || m.app_proxy {
        out.push((
            "serviceMonitor",
            json!({"main": monitor(m.dind), "app-proxy": monitor(m.app_proxy)}),
        ));
    }
    if m.engine || m.runner || m.volume_provisioner {
        out.push((
            "podMonitor",
            json!({"main": monitor(m.engine), "runner": monitor(m.runner),
                   "volume-provisioner": monitor(m.volume_provisioner)}),
        ));
    }
    let exporter = &m.event_exporter;
    if exporter.enabled {
        let mut e = Map::new();
        e.insert("enabled".into(), json!(true));
        if let Some(over) = &exporter.image {
            // The chart joins registry, repository and tag; an override is
            // one reference, so it goes whole into the repository.
            e.insert(
                "image".into(),
                json!({"repository": super::images::reference(EVENT_EXPORTER, Some(over), None), "tag": "", "digest": ""}),
            );
        }
        e.insert("nodeSelector".into(), json!(exporter_node_selector(values)));
        insert_nonempty(
            &mut e,
            "tolerations",
            json!(exporter.scheduling.tolerations),
        );
        insert_nonempty(&mut e, "resources", json!(exporter.resources));
        insert_nonempty(&mut e, "env", json!(exporter.env));
        insert_nonempty(
            &mut e,
            "podAnnotations",
            json!(exporter.placement.annotations),
        );
        insert_nonempty(&mut e, "affinity", json!(exporter.placement.affinity));
        if !exporter.sa_annotations.is_empty() {
            e.insert(
                "serviceAccount".into(),
                json!({"annotations": exporter.sa_annotations}),
            );
        }
        out.push(("event-exporter", Value::Object(e)));
    }
    out
}

/// What the chart renders differently from cf-runner for the same
/// settings, for the generated values file's header.
pub(super) fn helm_notes(values: &Values) -> Vec<String> {
    let m = &values.metrics;
    let mut notes = Vec::new();
    if m.event_exporter.enabled && !m.event_exporter_monitor {
        notes.push(
            "The chart renders the event exporter's ServiceMonitor whenever the exporter is on \
             (Metrics.EventExporter: false has no chart key): the cluster must serve the \
             prometheus-operator's CRDs."
                .to_string(),
        );
    }
    if m.event_exporter_monitor && !m.labels.is_empty() {
        notes.push(
            "The chart's event-exporter ServiceMonitor takes no labels: Metrics.Labels does not \
             reach it, so your Prometheus must select it another way."
                .to_string(),
        );
    }
    notes
}
/// The part of a ServiceMonitor or PodMonitor cf-runner writes, with every
/// field it may write: anything else is a typo in a template.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)] // read only to check the shape
struct Monitor {
    api_version: String,
    kind: String,
    metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
    spec: MonitorSpec,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct MonitorSpec {
    selector: k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector,
    #[serde(default)]
    namespace_selector: Option<NamespaceSelector>,
    #[serde(default)]
    endpoints: Option<Vec<Endpoint>>,
    #[serde(default)]
    pod_metrics_endpoints: Option<Vec<Endpoint>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct NamespaceSelector {
    match_names: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct Endpoint {
    #[serde(default)]
    port: Option<String>,
    #[serde(default)]
    target_port: Option<k8s_openapi::apimachinery::pkg::util::intstr::IntOrString>,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    relabelings: Option<Vec<Relabeling>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Relabeling {
    action: String,
    regex: String,
}

/// Checks a ServiceMonitor or PodMonitor the templates wrote: the fields
/// cf-runner writes and no other, and the list its kind scrapes.
pub(super) fn check_monitor(kind: &str, object: &Value) -> Result<(), String> {
    let monitor = Monitor::deserialize(object).map_err(|e| e.to_string())?;
    let (has, wants) = match kind {
        "ServiceMonitor" => (monitor.spec.endpoints.is_some(), "endpoints"),
        _ => (
            monitor.spec.pod_metrics_endpoints.is_some(),
            "podMetricsEndpoints",
        ),
    };
    if has {
        Ok(())
    } else {
        Err(format!(
            "a {kind} scrapes its {wants}, and this one has none"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str) -> Values {
        let input = crate::values::Input {
            files: vec![crate::values::ValuesFile {
                origin: "test".into(),
                text: text.into(),
            }],
            ..Default::default()
        };
        crate::values::load(&input).expect("the values load").values
    }

    #[test]
    fn the_helm_file_says_where_the_chart_renders_otherwise() {
        let alone = values("Namespace: ci\nEventExporter:\n  Enabled: true\n");
        let notes = helm_notes(&alone);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].contains("whenever the exporter is on"),
            "{notes:?}"
        );
        let labelled = values(
            "Namespace: ci\nEventExporter:\n  Enabled: true\nMetrics:\n  ServiceMonitors: true\n  Labels:\n    release: prometheus\n",
        );
        let notes = helm_notes(&labelled);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("takes no labels"), "{notes:?}");
    }

    #[test]
    fn a_misspelt_monitor_field_fails_the_shape_check() {
        let good = json!({"apiVersion": MONITORING_API_VERSION, "kind": "PodMonitor",
            "metadata": {"name": "runner"},
            "spec": {"selector": {"matchLabels": {"app": "runner"}},
                     "podMetricsEndpoints": [{"path": "/metrics", "targetPort": 8080}]}});
        assert_eq!(check_monitor("PodMonitor", &good), Ok(()));
        let mut bad = good.clone();
        bad["spec"]["podMetricsEndpoints"][0]["targetport"] = json!(8080);
        let err = check_monitor("PodMonitor", &bad).unwrap_err();
        assert!(err.contains("targetport"), "{err}");
        let mut none = good;
        none["spec"]
            .as_object_mut()
            .unwrap()
            .remove("podMetricsEndpoints");
        assert!(check_monitor("PodMonitor", &none).is_err());
    }
}
