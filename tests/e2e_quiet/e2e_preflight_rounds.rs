//! The preflight's round trips: its first request, the one with the
//! deadline that finds an API server that does not answer, is the
//! namespace's GET, which four of its checks wait for anyway; `/version`
//! goes after it with every other request, not a round trip before them.
//! (A binary of its own: it reads every request of cf-runner's user agent
//! from the audit log, which other tests' requests would disturb.)

use crate::support;

use support::cli::{check_json, text};
use support::controlplane::{self, ControlPlane};
use support::namespace::unique;

const CONTEXT: &str = "admin@cf-runner-test";

/// Seconds since midnight of an audit time (`2026-01-02T03:04:05.123456Z`).
fn seconds(stamp: &str) -> f64 {
    let time = stamp.split('T').nth(1).unwrap_or_default();
    let mut parts = time.trim_end_matches('Z').split(':');
    let mut at = |scale: f64| parts.next().unwrap_or("0").parse::<f64>().unwrap() * scale;
    at(3600.0) + at(60.0) + at(1.0)
}

/// cf-runner's requests since `since`, in the order the API server received
/// them: (`verb URI`, received, answered).
fn requests(cp: &ControlPlane, since: usize) -> Vec<(String, f64, f64)> {
    let mut out: Vec<(String, f64, f64)> = support::audit::answered_for(cp, since, "cf-runner")
        .into_iter()
        .map(|e| {
            (
                format!(
                    "{} {}",
                    e["verb"].as_str().unwrap_or_default(),
                    e["requestURI"].as_str().unwrap_or_default()
                ),
                seconds(e["requestReceivedTimestamp"].as_str().unwrap()),
                seconds(e["stageTimestamp"].as_str().unwrap()),
            )
        })
        .collect();
    out.sort_by(|a, b| a.1.partial_cmp(&b.1).unwrap());
    out
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn the_preflight_reads_the_namespace_first_and_asks_the_version_with_the_rest() {
    let _alone = crate::alone().await;
    let cp = controlplane::shared();
    let missing = unique("cfrounds");
    let existing = cp.create_namespace("cfrounds").await.unwrap();
    for ns in [&missing, &existing] {
        let mark = cp.audit_events().unwrap().len();
        let (out, report) = check_json(cp.admin_kubeconfig(), ns, CONTEXT);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let version = report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "server version")
            .unwrap_or_else(|| panic!("{report:#}"));
        assert_eq!(version["status"], "pass", "{version:#}");

        let sent = requests(cp, mark);
        let (first, _, answered) = &sent[0];
        assert!(
            first.starts_with(&format!("get /api/v1/namespaces/{ns}")),
            "{ns}: the first request was {first}: {sent:#?}"
        );
        // Everything else waited for the namespace, and for nothing more:
        // /version is among them.
        assert!(
            sent[1..]
                .iter()
                .all(|(_, received, _)| received >= answered),
            "{ns}: {sent:#?}"
        );
        assert!(
            sent[1..].iter().any(|(r, _, _)| r == "get /version"),
            "{ns}: {sent:#?}"
        );
    }
}
