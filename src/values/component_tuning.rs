//! The components' settings the chart has beyond placement: the runner's
//! ServiceAccount annotations, the local volume monitor's pod annotations,
//! when the cloud volume cleaner runs (or that it is paused), and how many
//! replicas the two components that can run several take.
//!
//! Replicas are offered only where a second one is safe: the volume
//! provisioner elects a leader (its lock is in its RBAC), and the
//! app-proxy answers the platform's requests behind a Service. The runner
//! and the monitor stay at one: `docs/chart-parity.md` says why.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::model::reader::Reader;
use super::Problem;

/// Most replicas accepted: more only adds idle pods.
pub const MAX_REPLICAS: i64 = 5;

/// The shorthand schedules a CronJob accepts besides five fields.
const CRON_MACROS: &[&str] = &[
    "@yearly",
    "@annually",
    "@monthly",
    "@weekly",
    "@daily",
    "@midnight",
    "@hourly",
];

/// The settings, validated; `None` and empty mean the chart's default.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ComponentTuning {
    /// `Runner.ServiceAccount.Annotations`.
    pub runner_sa_annotations: BTreeMap<String, String>,
    /// `Storage.LocalVolumeMonitor.PodAnnotations`.
    pub lv_monitor_pod_annotations: BTreeMap<String, String>,
    /// `Storage.VolumeCleaner.Schedule` (cron).
    pub cleaner_schedule: Option<String>,
    /// `Storage.VolumeCleaner.Suspend`: the cleaner's CronJob is paused.
    pub cleaner_suspend: bool,
    /// `Storage.VolumeProvisioner.Replicas`.
    pub provisioner_replicas: Option<i64>,
    /// `AppProxy.Replicas`.
    pub app_proxy_replicas: Option<i64>,
}

/// Reads the keys of this module, each mistake a problem naming its key.
pub(super) fn resolve(r: &mut Reader) -> ComponentTuning {
    let key = "Storage.VolumeCleaner.Schedule";
    let cleaner_schedule = r.text(key);
    if let Some(schedule) = &cleaner_schedule {
        if !is_cron(schedule) {
            r.problems.push(Problem::new(
                key,
                Some(&Value::String(schedule.clone())),
                "is not a cron schedule",
                "write five fields (minute hour day month weekday), e.g. `*/10 * * * *` (the chart's) or `0 * * * *` for hourly",
            ));
        }
    }
    ComponentTuning {
        runner_sa_annotations: r.service_account_annotations("Runner.ServiceAccount.Annotations"),
        lv_monitor_pod_annotations: r.annotation_map("Storage.LocalVolumeMonitor.PodAnnotations"),
        cleaner_schedule,
        cleaner_suspend: r.boolean("Storage.VolumeCleaner.Suspend", false),
        provisioner_replicas: replicas(r, "Storage.VolumeProvisioner.Replicas"),
        app_proxy_replicas: replicas(r, "AppProxy.Replicas"),
    }
}

fn replicas(r: &mut Reader, key: &str) -> Option<i64> {
    r.raw_value(key)?;
    match r.int(key) {
        Some(n) if (1..=MAX_REPLICAS).contains(&n) => Some(n),
        _ => {
            let value = r.raw_value(key).cloned();
            r.problems.push(Problem::new(
                key,
                value.as_ref(),
                format!("is not a number of replicas from 1 to {MAX_REPLICAS}"),
                "give a whole number, e.g. 2 so that one pod takes over while the other restarts",
            ));
            None
        }
    }
}

/// Five cron fields of digits, names, `*`, `/`, `,`, `-` or `?`, or a macro.
fn is_cron(schedule: &str) -> bool {
    if CRON_MACROS.contains(&schedule) {
        return true;
    }
    let fields: Vec<&str> = schedule.split_whitespace().collect();
    fields.len() == 5
        && fields.iter().all(|f| {
            f.chars()
                .all(|c| c.is_ascii_alphanumeric() || "*/,-?".contains(c))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(values: Value) -> (ComponentTuning, Vec<String>) {
        let mut r = Reader::new(&values);
        let t = resolve(&mut r);
        (t, r.problems.into_iter().map(|p| p.key).collect())
    }

    #[test]
    fn every_setting_is_taken_when_well_formed() {
        let (t, problems) = read(json!({
            "Runner": {"ServiceAccount": {"Annotations": {"team": "ci"}}},
            "Storage": {"LocalVolumeMonitor": {"PodAnnotations": {"a/b": "c"}},
                        "VolumeCleaner": {"Schedule": "0 * * * *", "Suspend": "true"},
                        "VolumeProvisioner": {"Replicas": 2}},
            "AppProxy": {"Replicas": "3"}}));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(t.cleaner_schedule.as_deref(), Some("0 * * * *"));
        assert!(t.cleaner_suspend);
        assert_eq!(
            (t.provisioner_replicas, t.app_proxy_replicas),
            (Some(2), Some(3))
        );
        assert_eq!(t.runner_sa_annotations["team"], "ci");
    }

    #[test]
    fn each_mistake_names_its_key() {
        let (_, problems) = read(json!({
            "Storage": {"VolumeCleaner": {"Schedule": "every ten minutes"},
                        "VolumeProvisioner": {"Replicas": 0}},
            "AppProxy": {"Replicas": "two"}}));
        assert_eq!(
            problems,
            [
                "Storage.VolumeCleaner.Schedule",
                "Storage.VolumeProvisioner.Replicas",
                "AppProxy.Replicas",
            ]
        );
    }
}
