//! Metrics for Prometheus: which prometheus-operator monitors cf-runner
//! installs (ServiceMonitors for dind and the app-proxy, PodMonitors for
//! the engine, the runner and the volume provisioner, as the chart has
//! them), the labels a Prometheus selects them by, and the Kubernetes event
//! exporter. Two group switches (`Metrics.ServiceMonitors`,
//! `Metrics.PodMonitors`) turn a kind on for every component that has one;
//! a per-component key overrides its group, so "all but the engine" is two
//! lines. Everything is off by default: the monitors need the
//! prometheus-operator's CRDs, which a cluster may not serve.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::model::reader::Reader;
use super::model::{check_qualified_name, ImageOverride, Resources, Scheduling};
use super::placement::{self, Placement};
use super::Problem;

/// Labels cf-runner puts on every object to find its own again: a monitor
/// label may not replace them.
const OWN_LABELS: &[&str] = &[
    "app.kubernetes.io/managed-by",
    "app.kubernetes.io/part-of",
    "app.kubernetes.io/instance",
    "app.kubernetes.io/component",
];

/// One component's monitor: its key, the kind it is, and whether the
/// component is installed at all.
struct Target {
    key: &'static str,
    group: &'static str,
    installed: bool,
    what: &'static str,
}

/// Which monitors to render, and the event exporter.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Metrics {
    /// ServiceMonitor `dind`: every build's docker daemon (ports 9100, 9323).
    pub dind: bool,
    /// ServiceMonitor `app-proxy` (ports 9100, 9464); only with the app-proxy.
    pub app_proxy: bool,
    /// PodMonitor `engine`: every build's engine (ports 9100, 9464).
    pub engine: bool,
    /// PodMonitor `runner` (port 8080).
    pub runner: bool,
    /// PodMonitor `volume-provisioner` (port 8080); only with the provisioner.
    pub volume_provisioner: bool,
    /// ServiceMonitor `event-exporter`; only with the event exporter.
    pub event_exporter_monitor: bool,
    /// Extra labels of every monitor, for a Prometheus's
    /// `serviceMonitorSelector` / `podMonitorSelector`.
    pub labels: BTreeMap<String, String>,
    /// The Kubernetes event exporter (`EventExporter.*`).
    pub event_exporter: EventExporter,
}

impl Metrics {
    /// True when any ServiceMonitor or PodMonitor is rendered: the cluster
    /// must then serve `monitoring.coreos.com/v1`.
    pub fn any_monitor(&self) -> bool {
        self.dind
            || self.app_proxy
            || self.engine
            || self.runner
            || self.volume_provisioner
            || self.event_exporter_monitor
    }

    /// The values key that asked for monitors, for a message when the
    /// cluster cannot take them.
    pub fn monitor_key(&self) -> &'static str {
        if self.dind || self.app_proxy || self.event_exporter_monitor {
            "Metrics.ServiceMonitors"
        } else {
            "Metrics.PodMonitors"
        }
    }
}

/// The event exporter: a Deployment that turns the namespace's Kubernetes
/// events into Prometheus metrics (port 9102), with its account, rights to
/// read events and a Service.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct EventExporter {
    pub enabled: bool,
    pub image: Option<ImageOverride>,
    pub resources: Resources,
    /// Its node selector (over the chart's `kubernetes.io/arch: amd64`) and
    /// tolerations, after the global ones.
    pub scheduling: Scheduling,
    pub env: BTreeMap<String, String>,
    pub sa_annotations: BTreeMap<String, String>,
    pub placement: Placement,
}

/// Reads `Metrics.*` and `EventExporter.*`. `app_proxy` and `provisioner`
/// say whether those components are installed: a monitor of a component
/// that is not there is skipped when its group asked, and refused when its
/// own key did.
pub(super) fn resolve(
    r: &mut Reader,
    global: &Scheduling,
    app_proxy: bool,
    provisioner: bool,
) -> Metrics {
    let event_exporter = event_exporter(r, global);
    let services = r.boolean("Metrics.ServiceMonitors", false);
    let pods = r.boolean("Metrics.PodMonitors", false);
    let mut on = |t: Target| -> bool {
        let default = if t.group == "Metrics.ServiceMonitors" {
            services
        } else {
            pods
        };
        let explicit = r.raw_value(t.key).is_some_and(|v| !v.is_null());
        let wanted = r.boolean(t.key, default);
        if wanted && !t.installed {
            if explicit {
                r.problems.push(Problem::new(
                    t.key,
                    Some(&Value::Bool(true)),
                    format!("asks for a monitor of {}, which is not installed", t.what),
                    format!("install it, or drop {}", t.key),
                ));
            }
            return false;
        }
        wanted
    };
    let dind = on(Target {
        key: "Metrics.Dind",
        group: "Metrics.ServiceMonitors",
        installed: true,
        what: "dind",
    });
    let app_proxy = on(Target {
        key: "Metrics.AppProxy",
        group: "Metrics.ServiceMonitors",
        installed: app_proxy,
        what: "the app-proxy (AppProxy.Enabled)",
    });
    let event_exporter_monitor = on(Target {
        key: "Metrics.EventExporter",
        group: "Metrics.ServiceMonitors",
        installed: event_exporter.enabled,
        what: "the event exporter (EventExporter.Enabled)",
    });
    let engine = on(Target {
        key: "Metrics.Engine",
        group: "Metrics.PodMonitors",
        installed: true,
        what: "the engine",
    });
    let runner = on(Target {
        key: "Metrics.Runner",
        group: "Metrics.PodMonitors",
        installed: true,
        what: "the runner",
    });
    let volume_provisioner = on(Target {
        key: "Metrics.VolumeProvisioner",
        group: "Metrics.PodMonitors",
        installed: provisioner,
        what: "the volume provisioner (none with a StorageClass of your own)",
    });
    let labels = monitor_labels(r);
    Metrics {
        dind,
        app_proxy,
        engine,
        runner,
        volume_provisioner,
        event_exporter_monitor,
        labels,
        event_exporter,
    }
}

/// `Metrics.Labels`: label keys and values as Kubernetes takes them, and
/// none of cf-runner's own (they find the installation's objects).
fn monitor_labels(r: &mut Reader) -> BTreeMap<String, String> {
    let key = "Metrics.Labels";
    let labels = r.text_map(key);
    for (name, value) in &labels {
        let at = format!("{key}.{name}");
        let problem = if OWN_LABELS.contains(&name.as_str()) {
            Some((
                "is a label cf-runner sets on every object it installs".to_string(),
                "pick another label for your Prometheus to select, e.g. `release: prometheus`",
            ))
        } else if let Err(why) = check_qualified_name(name) {
            Some((
                format!("is not a valid label key: {why}"),
                "use `[prefix/]name`, e.g. `release`",
            ))
        } else if let Err(why) = super::model::check_label_value(value) {
            Some((
                format!("is not a valid label value: {why}"),
                "quote a short word, e.g. `release: prometheus`",
            ))
        } else {
            None
        };
        if let Some((why, fix)) = problem {
            r.problems.push(Problem::new(
                &at,
                Some(&Value::String(value.clone())),
                why,
                fix,
            ));
        }
    }
    labels
}

fn event_exporter(r: &mut Reader, global: &Scheduling) -> EventExporter {
    let mut scheduling = global.clone();
    scheduling
        .node_selector
        .extend(r.node_selector("EventExporter.NodeSelector"));
    scheduling
        .tolerations
        .extend(r.tolerations("EventExporter.tolerations"));
    EventExporter {
        enabled: r.boolean("EventExporter.Enabled", false),
        image: r.image("EventExporter.Image"),
        resources: r.resources("EventExporter.resources"),
        scheduling,
        env: r.env_map("EventExporter.AdditionalEnvVars"),
        sa_annotations: r.service_account_annotations("EventExporter.ServiceAccount.Annotations"),
        placement: placement::resolve(r, "EventExporter"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(values: Value, app_proxy: bool, provisioner: bool) -> (Metrics, Vec<String>) {
        let mut r = Reader::new(&values);
        let m = resolve(&mut r, &Scheduling::default(), app_proxy, provisioner);
        (m, r.problems.into_iter().map(|p| p.key).collect())
    }

    #[test]
    fn a_group_turns_on_every_installed_component_and_a_component_key_overrides_it() {
        let (m, problems) = read(
            json!({"Metrics": {"ServiceMonitors": true, "PodMonitors": true, "Engine": false}}),
            false,
            true,
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert!(m.dind && m.runner && m.volume_provisioner);
        // No app-proxy installed: its monitor is skipped, not refused.
        assert!(!m.app_proxy && !m.engine && !m.event_exporter_monitor);
        assert_eq!(m.monitor_key(), "Metrics.ServiceMonitors");
    }

    #[test]
    fn nothing_is_on_by_default() {
        let (m, problems) = read(json!({}), true, true);
        assert!(problems.is_empty());
        assert!(!m.any_monitor() && !m.event_exporter.enabled);
    }

    #[test]
    fn each_mistake_names_its_key() {
        let (_, problems) = read(
            json!({"Metrics": {"AppProxy": true,
                               "Labels": {"app.kubernetes.io/instance": "x", "release": "not ok!"}}}),
            false,
            true,
        );
        assert_eq!(
            problems,
            [
                "Metrics.AppProxy",
                "Metrics.Labels.app.kubernetes.io/instance",
                "Metrics.Labels.release",
            ]
        );
    }
}
