//! Disk hygiene and build limits: how long unused dind volumes live, when
//! the node cleaner deletes them, which builds share a volume, the dind
//! bridge's address, and the engine's workflow limits. Every key here has
//! a default that is the chart's (or the cleaner images' own), so an unset
//! key renders what cf-runner rendered before it existed. The variable
//! names are those Codefresh documents for its cleaners ("Runtime
//! cleaners": `RETENTION_DAYS`, `KB_USAGE_THRESHOLD`,
//! `INODE_USAGE_THRESHOLD`, the `codefresh.io/volume-retention` annotation).

use std::collections::BTreeMap;
use std::net::Ipv4Addr;

use serde::Serialize;
use serde_json::Value;

use super::model::check_qualified_name;
use super::model::reader::Reader;
use super::Problem;

/// The engine's workflow limits the chart sets (`runtime.engine.workflowLimits`).
pub const WORKFLOW_LIMIT_NAMES: &[&str] = &[
    "MAXIMUM_ALLOWED_TIME_BEFORE_PRE_STEPS_SUCCESS",
    "MAXIMUM_ALLOWED_WORKFLOW_AGE_BEFORE_TERMINATION",
    "MAXIMUM_ELECTED_STATE_AGE_ALLOWED",
    "MAXIMUM_POST_STEPS_GRACE_PERIOD_MINUTES",
    "MAXIMUM_RETRY_ATTEMPTS_ALLOWED",
    "MAXIMUM_TERMINATING_STATE_AGE_ALLOWED",
    "MAXIMUM_TERMINATING_STATE_AGE_ALLOWED_WITHOUT_UPDATE",
    "TIME_ENGINE_INACTIVE_UNTIL_TERMINATION",
    "TIME_ENGINE_INACTIVE_UNTIL_UNHEALTHY",
    "TIME_INACTIVE_UNTIL_TERMINATION",
];

/// The label keys every reuse selector starts with: a volume is never
/// shared across accounts.
const REUSE_SELECTOR_BASE: &str = "codefresh-app,io.codefresh.accountName";

/// The settings of this module, validated; `None` or empty is the default.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Hygiene {
    /// `Storage.VolumeCleaner.RetentionDays`: the cloud-volume cleaner
    /// deletes volumes unused for longer (its own default: 4).
    pub retention_days: Option<i64>,
    /// `Storage.LocalVolumeMonitor.KbUsageThreshold`, percent of the disk.
    pub kb_usage_threshold: Option<i64>,
    /// `Storage.LocalVolumeMonitor.InodeUsageThreshold`, percent of inodes.
    pub inode_usage_threshold: Option<i64>,
    /// `Runtime.VolumeRetention`: the `codefresh.io/volume-retention`
    /// annotation of each dind claim, e.g. `7d`.
    pub volume_retention: Option<String>,
    /// `Runtime.ReuseVolumeSelector`: which builds may reuse a volume.
    pub reuse_volume_selector: Option<String>,
    /// `Runtime.Bip`: the dind docker bridge's address and prefix.
    pub bip: Option<String>,
    /// `Runtime.WorkflowLimits`: the user's limits, over the chart's.
    pub workflow_limits: BTreeMap<String, i64>,
}

/// Reads and checks every key of this module.
pub(super) fn resolve(r: &mut Reader) -> Hygiene {
    Hygiene {
        retention_days: bounded(
            r,
            "Storage.VolumeCleaner.RetentionDays",
            1,
            3650,
            "days, e.g. 7",
        ),
        kb_usage_threshold: bounded(
            r,
            "Storage.LocalVolumeMonitor.KbUsageThreshold",
            1,
            100,
            "a percentage, e.g. 80",
        ),
        inode_usage_threshold: bounded(
            r,
            "Storage.LocalVolumeMonitor.InodeUsageThreshold",
            1,
            100,
            "a percentage, e.g. 80",
        ),
        volume_retention: volume_retention(r),
        reuse_volume_selector: reuse_selector(r),
        bip: bip(r),
        workflow_limits: workflow_limits(r),
    }
}

/// An integer key within `min..=max`.
fn bounded(r: &mut Reader, key: &str, min: i64, max: i64, what: &str) -> Option<i64> {
    let raw = r.raw_value(key)?.clone();
    match r.int(key) {
        Some(n) if (min..=max).contains(&n) => Some(n),
        _ => {
            r.problems.push(Problem::new(
                key,
                Some(&raw),
                format!("is not a whole number from {min} to {max}"),
                format!("give {what}"),
            ));
            None
        }
    }
}

fn volume_retention(r: &mut Reader) -> Option<String> {
    let key = "Runtime.VolumeRetention";
    let text = r.text(key)?;
    let days = text
        .strip_suffix('d')
        .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
    if days.is_none() {
        r.problems.push(Problem::new(
            key,
            Some(&Value::String(text)),
            "is not a number of days",
            "write days with a `d`, e.g. 7d, as the volume cleaner reads it",
        ));
        return None;
    }
    Some(text)
}

fn reuse_selector(r: &mut Reader) -> Option<String> {
    let key = "Runtime.ReuseVolumeSelector";
    let text = r.text(key)?;
    let labels: Vec<&str> = text.split(',').map(str::trim).collect();
    let bad = labels.iter().any(|l| check_qualified_name(l).is_err());
    if bad || !text.replace(' ', "").starts_with(REUSE_SELECTOR_BASE) {
        r.problems.push(Problem::new(
            key,
            Some(&Value::String(text)),
            format!("is not a list of build labels starting with `{REUSE_SELECTOR_BASE}`"),
            format!("e.g. `{REUSE_SELECTOR_BASE},pipeline_id` for a volume per pipeline"),
        ));
        return None;
    }
    Some(labels.join(","))
}

/// `bip`: the bridge's own address with a prefix, e.g. `172.30.0.1/16`;
/// a network address or a bare IP makes dockerd fail to start.
fn bip(r: &mut Reader) -> Option<String> {
    let key = "Runtime.Bip";
    let text = r.text(key)?;
    let parsed = text.split_once('/').and_then(|(ip, prefix)| {
        let ip: Ipv4Addr = ip.parse().ok()?;
        let prefix: u8 = prefix.parse().ok()?;
        let host_bits = u32::from(ip) & (u32::MAX.checked_shr(u32::from(prefix)).unwrap_or(0));
        ((1..=30).contains(&prefix) && host_bits != 0).then_some(())
    });
    if parsed.is_none() {
        r.problems.push(Problem::new(
            key,
            Some(&Value::String(text)),
            "is not a bridge address with a prefix",
            "give the bridge's own IPv4 address and prefix, e.g. 172.30.0.1/16 (not the network, 172.30.0.0/16)",
        ));
        return None;
    }
    Some(text)
}

fn workflow_limits(r: &mut Reader) -> BTreeMap<String, i64> {
    let mut limits = BTreeMap::new();
    let map = match r.raw_value("Runtime.WorkflowLimits").cloned() {
        Some(Value::Object(map)) => map,
        None | Some(Value::Null) => return limits,
        Some(other) => {
            r.problems.push(Problem::new(
                "Runtime.WorkflowLimits",
                Some(&other),
                "is not a map of limits",
                "write each limit by name, e.g. `MAXIMUM_ALLOWED_WORKFLOW_AGE_BEFORE_TERMINATION: 86400`",
            ));
            return limits;
        }
    };
    for (name, value) in &map {
        let key = format!("Runtime.WorkflowLimits.{name}");
        if !WORKFLOW_LIMIT_NAMES.contains(&name.as_str()) {
            r.problems.push(Problem::new(
                &key,
                None,
                "is not a workflow limit the engine knows",
                format!("use one of {}", WORKFLOW_LIMIT_NAMES.join(", ")),
            ));
            continue;
        }
        let n = value
            .as_i64()
            .or_else(|| value.as_str().and_then(|s| s.parse().ok()));
        match n {
            Some(n) if n > 0 => {
                limits.insert(name.clone(), n);
            }
            _ => r.problems.push(Problem::new(
                &key,
                Some(value),
                "is not a positive whole number",
                "give seconds, minutes or a count as the name says, e.g. 86400",
            )),
        }
    }
    limits
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(values: Value) -> (Hygiene, Vec<String>) {
        let mut r = Reader::new(&values);
        let h = resolve(&mut r);
        (h, r.problems.into_iter().map(|p| p.key).collect())
    }

    #[test]
    fn every_setting_is_taken_when_well_formed() {
        let (h, problems) = read(json!({
            "Storage": {"VolumeCleaner": {"RetentionDays": 7},
                        "LocalVolumeMonitor": {"KbUsageThreshold": "70", "InodeUsageThreshold": 75}},
            "Runtime": {"VolumeRetention": "7d", "Bip": "172.30.0.1/16",
                        "ReuseVolumeSelector": "codefresh-app, io.codefresh.accountName, pipeline_id",
                        "WorkflowLimits": {"MAXIMUM_ALLOWED_WORKFLOW_AGE_BEFORE_TERMINATION": 172800}}}));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            (
                h.retention_days,
                h.kb_usage_threshold,
                h.inode_usage_threshold
            ),
            (Some(7), Some(70), Some(75))
        );
        assert_eq!(
            h.reuse_volume_selector.as_deref(),
            Some("codefresh-app,io.codefresh.accountName,pipeline_id")
        );
        assert_eq!(
            h.workflow_limits["MAXIMUM_ALLOWED_WORKFLOW_AGE_BEFORE_TERMINATION"],
            172800
        );
    }

    #[test]
    fn each_mistake_names_its_key() {
        let (_, problems) = read(json!({
            "Storage": {"VolumeCleaner": {"RetentionDays": 0},
                        "LocalVolumeMonitor": {"KbUsageThreshold": 120}},
            "Runtime": {"VolumeRetention": "one week", "Bip": "172.30.0.0/16",
                        "ReuseVolumeSelector": "pipeline_id",
                        "WorkflowLimits": {"MAX_BUILD_TIME": 10}}}));
        assert_eq!(
            problems,
            [
                "Storage.VolumeCleaner.RetentionDays",
                "Storage.LocalVolumeMonitor.KbUsageThreshold",
                "Runtime.VolumeRetention",
                "Runtime.ReuseVolumeSelector",
                "Runtime.Bip",
                "Runtime.WorkflowLimits.MAX_BUILD_TIME",
            ]
        );
    }
}
