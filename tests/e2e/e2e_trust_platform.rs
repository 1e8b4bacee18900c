//! What cluster data names is a claim (issue: security round three, class
//! 1): someone allowed only `get,patch` on the record Secret
//! `cf-runner-values`, or on its rotation annotation, must not make the
//! admin's `delete`, `upgrade` or `renew agent-token` act on another team's
//! agent or runtime environment. Each command is refused with exit 3,
//! naming both sides, before any write on the platform or in the cluster;
//! once the record is put back, the same commands work and the other team's
//! agent and runtime are still there.

use crate::support;

use std::path::Path;
use std::process::Output;

use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, Patch, PatchParams};
use serde_json::json;
use support::cli;
use support::controlplane::{self, ControlPlane};
use support::fake_platform::FakePlatform;
use support::namespace::unique;

const USER_TOKEN: &str = "user-api-key.0123456789abcdef";
const CONTEXT: &str = "admin@cf-runner-test";
const ROTATION: &str = "cf-runner.codefresh.io/agent-rotation";

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

async fn cf_runner(cp: &ControlPlane, home: &Path, args: Vec<String>) -> Output {
    support::cli::run_blocking(cp.admin_kubeconfig(), home, args).await
}

fn platform_args(fake: &FakePlatform) -> Vec<String> {
    [
        "--token",
        USER_TOKEN,
        "--url",
        &fake.url(),
        "--timeout",
        "90s",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn command(ns: &str, words: &[&str], fake: &FakePlatform) -> Vec<String> {
    let mut out: Vec<String> = words.iter().map(|s| s.to_string()).collect();
    out.extend(["--kube-namespace".to_string(), ns.to_string()]);
    out.extend(platform_args(fake));
    out
}

/// What the fake saw besides reads: the platform writes.
fn writes(fake: &FakePlatform) -> Vec<String> {
    fake.calls()
        .into_iter()
        .filter(|c| !c.starts_with("GET "))
        .collect()
}

async fn patch_record(cp: &ControlPlane, ns: &str, patch: serde_json::Value) {
    Api::<Secret>::namespaced(cp.client(), ns)
        .patch(
            "cf-runner-values",
            &PatchParams::default(),
            &Patch::Merge(&patch),
        )
        .await
        .unwrap();
}

/// Another team's agent serving its runtime in namespace `team-b` of
/// another cluster; gives the agent's id.
async fn other_team(fake: &FakePlatform) -> String {
    let http = reqwest::Client::new();
    let agent: serde_json::Value = http
        .post(format!("{}/api/agents", fake.url()))
        .header("Authorization", fake.token())
        .json(&json!({"name": "team-b-agent"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    fake.add_runtime("team-b/runtime", "team-b-cluster", "team-b");
    let id = agent["id"].as_str().unwrap().to_string();
    let answer = http
        .put(format!("{}/api/agent/{id}", fake.url()))
        .header("Authorization", fake.token())
        .json(&json!({"name": "team-b-agent", "runtimes": ["team-b/runtime"]}))
        .send()
        .await
        .unwrap();
    assert!(answer.status().is_success());
    id
}

fn names(fake: &FakePlatform) -> (Vec<String>, Vec<String>) {
    let agents = fake
        .agents()
        .iter()
        .map(|a| a["name"].as_str().unwrap_or_default().to_string())
        .collect();
    (agents, fake.runtimes().keys().cloned().collect())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_record_naming_another_teams_agent_or_runtime_is_refused_before_any_write() {
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let victim_id = other_team(&fake).await;
    let ns = unique("cftrust");
    let home = tempfile::tempdir().unwrap();
    let init = {
        let mut cmd = cli::init(cp.admin_kubeconfig(), home.path(), "local", &ns, CONTEXT);
        cmd.env("CF_RUNNER_RETRY_BASE_MS", "20")
            .args(["--url", &fake.url(), "--token", USER_TOKEN])
            .args([
                "--skip-cluster-integration",
                "--no-wait",
                "--timeout",
                "90s",
            ]);
        tokio::task::spawn_blocking(move || cmd.output().unwrap())
            .await
            .unwrap()
    };
    assert_eq!(init.status.code(), Some(0), "{}", text(&init));
    let ours = format!("{CONTEXT}_{ns}");
    let our_runtime = format!("{CONTEXT}/{ns}");
    let our_id = fake.agent_id(&ours).expect("init made the install's agent");
    let before = names(&fake);
    let delete = command(&ns, &["delete", "--yes"], &fake);
    let upgrade = command(&ns, &["upgrade", "--yes"], &fake);
    let renew = command(&ns, &["renew", "agent-token"], &fake);

    // Each case: a patch of the record, a command, what the refusal names.
    let cases: Vec<(&str, serde_json::Value, &Vec<String>, Vec<&str>)> = vec![
        (
            "agent-name → another team's agent, delete",
            json!({"stringData": {"agent-name": "team-b-agent"}}),
            &delete,
            vec!["names agent team-b-agent", &ours],
        ),
        (
            "agent-name → another team's agent, upgrade",
            json!({"stringData": {"agent-name": "team-b-agent"}}),
            &upgrade,
            vec!["names agent team-b-agent", &ours],
        ),
        (
            "agent-name → another team's agent, renew agent-token",
            json!({"stringData": {"agent-name": "team-b-agent"}}),
            &renew,
            vec!["names agent team-b-agent", &ours],
        ),
        (
            "runtime-name → another team's runtime, delete",
            json!({"stringData": {"runtime-name": "team-b/runtime"}}),
            &delete,
            vec![
                "runtime environment team-b/runtime",
                "namespace team-b of cluster team-b-cluster",
            ],
        ),
        (
            "runtime-name → another team's runtime, upgrade",
            json!({"stringData": {"runtime-name": "team-b/runtime"}}),
            &upgrade,
            vec![
                "runtime environment team-b/runtime",
                "namespace team-b of cluster team-b-cluster",
            ],
        ),
        (
            "a rotation from another team's agent",
            json!({"metadata": {"annotations": {ROTATION: json!({
                "from": "team-b-agent", "fromId": victim_id, "to": "team-b-agent-r2"}).to_string()}}}),
            &renew,
            vec!["rotation of agent team-b-agent", &ours],
        ),
        (
            "a rotation from our agent to another team's",
            json!({"metadata": {"annotations": {ROTATION: json!({
                "from": ours, "fromId": our_id, "to": "team-b-agent"}).to_string()}}}),
            &renew,
            vec!["team-b-agent", "never gives"],
        ),
        (
            "a rotation naming our agent with another team's id",
            json!({"metadata": {"annotations": {ROTATION: json!({
                "from": ours, "fromId": victim_id, "to": format!("{ours}-r2")}).to_string()}}}),
            &renew,
            vec!["that id is agent team-b-agent"],
        ),
    ];
    let restore = json!({
        "stringData": {"agent-name": ours, "runtime-name": our_runtime},
        "metadata": {"annotations": {ROTATION: null}},
    });
    let tried = cases.len();
    for (what, patch, args, named) in cases {
        patch_record(cp, &ns, patch).await;
        fake.clear_requests();
        let out = cf_runner(cp, home.path(), args.clone()).await;
        let said = text(&out);
        assert_eq!(out.status.code(), Some(3), "{what}: {said}");
        for n in named {
            assert!(said.contains(n), "{what}: should name {n}: {said}");
        }
        assert!(said.contains("nothing was changed"), "{what}: {said}");
        assert_eq!(writes(&fake), Vec::<String>::new(), "{what}: {said}");
        assert_eq!(names(&fake), before, "{what}");
        assert!(!said.contains(USER_TOKEN), "{what}");
        patch_record(cp, &ns, restore.clone()).await;
    }
    assert_eq!(tried, 8);

    // The record put back, the install is deleted, and only it.
    let out = cf_runner(cp, home.path(), delete.clone()).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(
        names(&fake),
        (
            vec!["team-b-agent".to_string()],
            vec!["team-b/runtime".to_string()]
        )
    );
}
