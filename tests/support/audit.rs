//! What the test control plane's audit log says cf-runner wrote.
#![allow(dead_code)]

use super::controlplane::ControlPlane;

/// The audit events since event `since` of requests the API server
/// answered (`ResponseComplete`) for a client whose user agent starts with
/// `agent` (`cf-runner`, `kubectl`; any case), in the log's order.
pub fn answered_for(cp: &ControlPlane, since: usize, agent: &str) -> Vec<serde_json::Value> {
    cp.audit_events()
        .unwrap()
        .into_iter()
        .skip(since)
        .filter(|e| e["stage"] == "ResponseComplete")
        .filter(|e| {
            e["userAgent"]
                .as_str()
                .unwrap_or_default()
                .to_ascii_lowercase()
                .starts_with(agent)
        })
        .collect()
}

/// True for an audit event of a server-side dry-run (`dryRun=All`), which
/// stores nothing.
pub fn is_dry_run(event: &serde_json::Value) -> bool {
    event["requestURI"]
        .as_str()
        .unwrap_or_default()
        .contains("dryRun=All")
}

/// Writes cf-runner (its user agent) made in namespaces `namespaces`, or to
/// those Namespace objects themselves, since audit event `since`, as
/// `"verb" "uri"`: server-side dry-runs and the run's lock (its Lease) are
/// not writes of the install.
pub fn cf_runner_writes(cp: &ControlPlane, since: usize, namespaces: &[&str]) -> Vec<String> {
    answered_for(cp, since, "cf-runner")
        .into_iter()
        .filter(|e| {
            matches!(
                e["verb"].as_str(),
                Some("create" | "update" | "patch" | "delete" | "deletecollection")
            )
        })
        .filter(|e| !is_dry_run(e))
        .filter(|e| {
            let uri = e["requestURI"].as_str().unwrap_or_default();
            let path = uri.split('?').next().unwrap_or_default();
            namespaces.iter().any(|ns| {
                uri.contains(&format!("/namespaces/{ns}/"))
                    || path.ends_with(&format!("/namespaces/{ns}"))
            }) && !uri.contains("/leases")
        })
        .map(|e| format!("{} {}", e["verb"], e["requestURI"]))
        .collect()
}
