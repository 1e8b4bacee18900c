//! Names the cluster holds are data, against the test control plane and
//! the fake Codefresh platform: the record Secret (which holds no secret,
//! so teams let others patch it) names the agent and the runtime, and a
//! user who may patch it can put a conceal colour, a window title, a C1
//! CSI or a right-to-left override there. `info` shows them escaped in its
//! table; `-o json` escapes them too, losslessly (a script reads the same
//! value); `-o yaml` on a pipe keeps the exact value for the program that
//! reads it (the YAML emitter escapes C0, C1 and DEL itself).

#![cfg(unix)]

use crate::support;

use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, Patch, PatchParams};
use support::cli;
use support::controlplane;
use support::fake_platform::FakePlatform;

const USER_TOKEN: &str = "user-api-key.0123456789abcdef";
const CONTEXT: &str = "admin@cf-runner-test";

/// An agent name as a hostile colleague writes it.
const HOSTILE: &str = "team\u{1b}[8mhidden\u{1b}]0;pwned\u{7}\u{9b}2J\u{7f}\u{202e}nimda\u{2067}x";

/// [`HOSTILE`] as the terminal must show it.
const HOSTILE_SHOWN: &str =
    "team\\e[8mhidden\\e]0;pwned\\u{7}\\u{9b}2J\\u{7f}\\u{202e}nimda\\u{2067}x";

/// A terminal control of data: any control but the layout's newline, a
/// bidi control.
fn raw_control(c: char) -> bool {
    (c.is_control() && c != '\n')
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn names_from_the_cluster_reach_the_terminal_escaped_and_scripts_exactly() {
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let ns = cp.create_namespace("cfdata").await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut init = cli::init(cp.admin_kubeconfig(), home.path(), "local", &ns, CONTEXT);
    init.args(["--url", &fake.url(), "--token", USER_TOKEN, "--no-wait"]);
    let out = init.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", cli::text(&out));

    // A colleague who may patch the record writes hostile names.
    let secrets: Api<Secret> = Api::namespaced(cp.client(), &ns);
    let patch = serde_json::json!({"stringData": {"agent-name": HOSTILE, "runtime-name": HOSTILE}});
    secrets
        .patch(
            "cf-runner-values",
            &PatchParams::default(),
            &Patch::Merge(&patch),
        )
        .await
        .unwrap();

    let info = |format: Option<&str>| {
        let mut args = vec![
            "info",
            "--kube-namespace",
            &ns,
            "--kube-context-name",
            CONTEXT,
        ];
        if let Some(f) = format {
            args.extend(["-o", f]);
        }
        cli::run(cp.admin_kubeconfig(), &args)
    };

    // The table: escaped, on stdout and stderr alike.
    let table = info(None);
    let said = cli::text(&table);
    assert_eq!(table.status.code(), Some(0), "{said}");
    assert!(!said.chars().any(raw_control), "raw control: {said:?}");
    assert!(said.contains(HOSTILE_SHOWN), "{said}");

    // JSON: no raw control in the text, the exact value once parsed.
    let json = info(Some("json"));
    assert_eq!(json.status.code(), Some(0), "{}", cli::text(&json));
    let text = String::from_utf8(json.stdout.clone()).unwrap();
    assert!(!text.chars().any(raw_control), "raw control: {text:?}");
    let report: serde_json::Value = serde_json::from_str(&text).unwrap();
    let agent = &report["installations"][0]["agentName"];
    assert_eq!(agent.as_str(), Some(HOSTILE), "{report:#}");

    // YAML on a pipe: the exact value for the program that reads it.
    let yaml = info(Some("yaml"));
    assert_eq!(yaml.status.code(), Some(0), "{}", cli::text(&yaml));
    let report: serde_json::Value = serde_yaml_ng::from_slice(&yaml.stdout).unwrap();
    assert_eq!(
        report["installations"][0]["agentName"].as_str(),
        Some(HOSTILE)
    );
    let text = String::from_utf8_lossy(&yaml.stdout);
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{9b}'),
        "{text:?}"
    );
}
