//! The pipelines' `deploy` step image (pinned by chart 10.5.2) supports
//! Kubernetes 1.33–1.35 only: `cf-runner check` says so on the server
//! version line when the server runs another minor, and says nothing about
//! it on one of those. Which case this control plane is comes from its own
//! `/version`, so the test holds when the control plane's version moves.

use crate::support;

use support::cli::{example, run as cf_runner, text};
use support::controlplane;
use support::namespace::unique;

const ADMIN: &str = "admin@cf-runner-test";

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn check_names_a_server_the_deploy_step_does_not_support() {
    let _together = crate::together().await;
    let cp = controlplane::shared();
    let version = cp.client().apiserver_version().await.unwrap();
    let minor: u32 = version
        .minor
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap();
    let ns = unique("cfdeploy");
    let ex = example("local");
    let out = cf_runner(
        cp.admin_kubeconfig(),
        &[
            "check",
            "--values",
            ex.to_str().unwrap(),
            "--kube-namespace",
            &ns,
            "--kube-context-name",
            ADMIN,
            "-o",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let server = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "server version")
        .unwrap_or_else(|| panic!("no server version check: {report:#}"));
    // The runner itself works there: a note, not a warning.
    assert_eq!(server["status"], "pass", "{server:#}");
    let details = server["details"].to_string();
    let named = details.contains("`deploy` step image") && details.contains("1.33–1.35");
    if (33..=35).contains(&minor) {
        assert!(!named, "{} is supported: {server:#}", version.git_version);
    } else {
        assert!(named, "{server:#}");
        assert!(details.contains(&version.git_version), "{server:#}");
    }
}
