//! What each account cf-runner makes may do, asked of the real API server
//! with `kubectl auth can-i` (issue: security round three, class 6 and the
//! trust boundaries of the guide's security page).
//!
//! Two installs are made: the recommended layout for one agent over many
//! runtimes (the agent alone in its namespace, a runtime attached in
//! another), and the old layout (an agent with a runtime of its own, so
//! builds run beside the agent) that `runtime attach` now refuses unless
//! `--allow-builds-to-read-tokens` says so. For every ServiceAccount
//! cf-runner made, the answers must be the table in docs/guide/security.md,
//! section "Trust boundaries" (so the page cannot drift from what the
//! cluster grants); and every token a build account can read must give no right to
//! create pods outside that build's own namespace. The old layout shows
//! that the check finds the leak it is meant to find.

use crate::support;

use std::path::Path;
use std::process::Output;

use base64::Engine;
use k8s_openapi::api::authorization::v1::SelfSubjectAccessReview;
use k8s_openapi::api::core::v1::{Secret, ServiceAccount};
use kube::api::{Api, ListParams, PostParams};
use kube::{Client, Config};
use serde_json::{json, Value};
use support::cli::text;
use support::controlplane::{self, ControlPlane};
use support::fake_platform::FakePlatform;

const CONTEXT: &str = "admin@cf-runner-test";
const TOKEN: &str = "api-token-for-rights-0123456789abcdef";
const ALLOW: &str = "--allow-builds-to-read-tokens";

async fn run(cp: &ControlPlane, home: &Path, args: Vec<String>) -> Output {
    support::cli::run_blocking(cp.admin_kubeconfig(), home, args).await
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// The questions asked of every account, as the rights table's columns: `own`
/// is the account's namespace, `other` the other namespace of the install
/// (the runtime's for the agent's accounts, the agent's for the
/// runtime's), `elsewhere` a namespace cf-runner never touched.
const QUESTIONS: [(&str, &str, &str); 7] = [
    ("create pods (own)", "create pods", "own"),
    ("create pods (other)", "create pods", "other"),
    ("create pods (elsewhere)", "create pods", "elsewhere"),
    ("get secrets (own)", "get secrets", "own"),
    ("get secrets (other)", "get secrets", "other"),
    (
        "create persistentvolumes",
        "create persistentvolumes",
        "cluster",
    ),
    ("list nodes", "list nodes", "cluster"),
];

/// `kubectl auth can-i <question> --as <account>`, in `namespace` (or
/// cluster-wide with `None`).
fn can_i(cp: &ControlPlane, account: &str, question: &str, namespace: Option<&str>) -> bool {
    let mut cmd = cp.kubectl();
    cmd.arg("auth").arg("can-i");
    cmd.args(question.split(' '));
    cmd.args(["--as", account]);
    match namespace {
        Some(ns) => cmd.args(["-n", ns]),
        None => cmd.arg("--all-namespaces"),
    };
    let out = cmd.output().unwrap();
    match String::from_utf8_lossy(&out.stdout).trim() {
        "yes" => true,
        "no" => false,
        other => panic!(
            "kubectl auth can-i {question} --as {account}: {other:?} {}",
            text(&out)
        ),
    }
}

/// Every ServiceAccount cf-runner made in `ns`.
async fn accounts(client: &Client, ns: &str) -> Vec<String> {
    let list = Api::<ServiceAccount>::namespaced(client.clone(), ns)
        .list(&ListParams::default().labels("app.kubernetes.io/managed-by=cf-runner"))
        .await
        .unwrap();
    let mut names: Vec<String> = list
        .items
        .into_iter()
        .filter_map(|s| s.metadata.name)
        .collect();
    names.sort();
    names
}

/// The rows of the rights table for the accounts of `own`, with `other`
/// as the install's other namespace; `role` names the namespace's part.
async fn rows(
    cp: &ControlPlane,
    own: &str,
    other: &str,
    elsewhere: &str,
    role: &str,
) -> Vec<String> {
    let mut out = Vec::new();
    for sa in accounts(&cp.client(), own).await {
        let account = format!("system:serviceaccount:{own}:{sa}");
        let answers: Vec<&str> = QUESTIONS
            .iter()
            .map(|(_, q, place)| {
                let ns = match *place {
                    "own" => Some(own),
                    "other" => Some(other),
                    "elsewhere" => Some(elsewhere),
                    _ => None,
                };
                if can_i(cp, &account, q, ns) {
                    "yes"
                } else {
                    "no"
                }
            })
            .collect();
        out.push(format!("| `{sa}` ({role}) | {} |", answers.join(" | ")));
    }
    out
}

/// The table between the markers of the security page's section.
fn documented_table() -> Vec<String> {
    let page = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/guide/security.md"),
    )
    .unwrap();
    let start = page
        .find("<!-- rights:begin -->")
        .expect("docs/guide/security.md has the rights table");
    let end = page.find("<!-- rights:end -->").unwrap();
    page[start..end]
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(str::to_string)
        .collect()
}

/// A client that authenticates with `token` alone.
fn as_token(cp: &ControlPlane, token: &str) -> Client {
    let mut config: Config = cp.admin_config().clone();
    config.auth_info = kube::config::AuthInfo {
        token: Some(token.to_string().into()),
        ..Default::default()
    };
    Client::try_from(config).unwrap()
}

/// Whether the holder of `token` may create pods in `ns`.
async fn token_creates_pods(cp: &ControlPlane, token: &str, ns: &str) -> bool {
    let review: SelfSubjectAccessReview = serde_json::from_value(json!({
        "apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": {"namespace": ns, "verb": "create", "resource": "pods"}}}))
    .unwrap();
    let answer = Api::<SelfSubjectAccessReview>::all(as_token(cp, token))
        .create(&PostParams::default(), &review)
        .await
        .unwrap();
    answer.status.is_some_and(|s| s.allowed)
}

/// Every Kubernetes token held in a Secret of `ns`: a ServiceAccount
/// token's `token`, and the `token` of each file of an agent's runtimes
/// Secret; by the Secret it is in.
async fn tokens_in(client: &Client, ns: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for s in Api::<Secret>::namespaced(client.clone(), ns)
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
    {
        let name = s.metadata.name.clone().unwrap_or_default();
        for (key, value) in s.data.unwrap_or_default() {
            let text = String::from_utf8_lossy(&value.0).to_string();
            if key == "token" && text.split('.').count() == 3 {
                out.push((name.clone(), text.clone()));
            }
            if key.ends_with(".runtime.yaml") {
                let file: Value = serde_yaml_ng::from_str(&text).unwrap_or_default();
                if let Some(t) = file["token"].as_str() {
                    out.push((format!("{name} ({key})"), t.to_string()));
                }
            }
        }
    }
    out
}

/// Namespace `build` holds its builds: every token its build account can
/// read there, with the namespaces (of `all`) where it creates pods
/// outside `build`.
async fn leaks(cp: &ControlPlane, build: &str, all: &[&str]) -> Vec<String> {
    let engine = format!("system:serviceaccount:{build}:codefresh-engine");
    assert!(can_i(cp, &engine, "get secrets", Some(build)));
    let mut out = Vec::new();
    for (secret, token) in tokens_in(&cp.client(), build).await {
        for ns in all.iter().filter(|ns| **ns != build) {
            if token_creates_pods(cp, &token, ns).await {
                out.push(format!("{secret} in {build} creates pods in {ns}"));
            }
        }
    }
    out
}

/// The namespace a ServiceAccount token was issued in, from its claims.
fn token_namespace(token: &str) -> String {
    let claims = token.split('.').nth(1).unwrap();
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(claims.trim_end_matches('='))
        .unwrap();
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    v["kubernetes.io/serviceaccount/namespace"]
        .as_str()
        .or_else(|| v["kubernetes.io"]["namespace"].as_str())
        .unwrap_or_default()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn no_build_can_create_pods_outside_its_namespace_and_the_security_page_says_each_accounts_rights(
) {
    let cp = controlplane::shared();
    let fake = FakePlatform::start(TOKEN);
    let home = tempfile::tempdir().unwrap();
    let platform = strings(&["--token", TOKEN, "--url", &fake.url(), "--timeout", "90s"]);
    let elsewhere = cp.create_namespace("rights-elsewhere").await.unwrap();

    // The recommended layout: the agent alone, a runtime attached.
    let agent = cp.create_namespace("rights-agent").await.unwrap();
    let builds = cp.create_namespace("rights-builds").await.unwrap();
    let mut init = strings(&["init", "--yes", "--agent-only", "--kube-namespace", &agent]);
    init.extend(strings(&[
        "--kube-context-name",
        CONTEXT,
        "--skip-cluster-integration",
    ]));
    init.extend(platform.clone());
    let out = run(cp, home.path(), init).await;
    assert!(out.status.success(), "init --agent-only: {}", text(&out));
    let mut attach = strings(&["runtime", "attach", "--agent-namespace", &agent]);
    attach.extend(strings(&[
        "--kube-namespace",
        &builds,
        "--kube-host",
        cp.server(),
    ]));
    attach.extend(platform.clone());
    let out = run(cp, home.path(), attach).await;
    assert!(out.status.success(), "attach: {}", text(&out));

    let mut table = rows(cp, &agent, &builds, &elsewhere, "agent alone").await;
    table.extend(rows(cp, &builds, &agent, &elsewhere, "attached runtime").await);
    let found = leaks(cp, &builds, &[&agent, &builds, &elsewhere]).await;
    assert_eq!(found, Vec::<String>::new());

    // A single install with every component (the monitor, the app-proxy,
    // the cluster integration), as most users have one.
    let shared = cp.create_namespace("rights-shared").await.unwrap();
    let second = cp.create_namespace("rights-second").await.unwrap();
    let local = support::cli::example("local").display().to_string();
    let mut init = strings(&["init", "--yes", "--values", &local]);
    init.extend(strings(&[
        "--kube-namespace",
        &shared,
        "--kube-context-name",
        CONTEXT,
        "--no-wait",
    ]));
    for set in [
        "Monitor.Enabled=true",
        "Monitor.UseNamespaceWithRole=true",
        "AppProxy.Enabled=true",
        "AppProxy.Ingress.Host=app-proxy.example.com",
    ] {
        init.extend(strings(&["--set-value", set]));
    }
    init.extend(platform.clone());
    let out = run(cp, home.path(), init).await;
    assert!(out.status.success(), "init: {}", text(&out));
    table.extend(rows(cp, &shared, &second, &elsewhere, "single install").await);
    let header: Vec<&str> = QUESTIONS.iter().map(|(h, _, _)| *h).collect();
    eprintln!("| account | {} |\n{}", header.join(" | "), table.join("\n"));
    assert_eq!(
        table,
        documented_table(),
        "the rights table of docs/guide/security.md is not what the cluster grants"
    );
    assert_eq!(
        leaks(cp, &shared, &[&shared, &second, &elsewhere]).await,
        Vec::<String>::new()
    );

    // Attaching a runtime to an agent whose namespace runs builds is
    // refused, with the flag that allows it and why it is risky; nothing
    // is written.
    let mut attach = strings(&["runtime", "attach", "--agent-namespace", &shared]);
    attach.extend(strings(&[
        "--kube-namespace",
        &second,
        "--kube-host",
        cp.server(),
    ]));
    attach.extend(platform.clone());
    fake.clear_requests();
    let out = run(cp, home.path(), attach.clone()).await;
    let said = text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    for part in [ALLOW, "--agent-only", "runnerconf", &second, &shared] {
        assert!(said.contains(part), "should name {part}: {said}");
    }
    assert!(accounts(&cp.client(), &second).await.is_empty(), "{said}");
    assert!(
        fake.calls().iter().all(|c| c.starts_with("GET ")),
        "{:?}",
        fake.calls()
    );
    // With the flag, the leak is there and the check finds it.
    attach.push(ALLOW.to_string());
    let out = run(cp, home.path(), attach).await;
    assert!(out.status.success(), "attach {ALLOW}: {}", text(&out));
    let found = leaks(cp, &shared, &[&shared, &second, &elsewhere]).await;
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains(&format!("creates pods in {second}")),
        "{found:?}"
    );
    let issued: Vec<String> = tokens_in(&cp.client(), &shared)
        .await
        .iter()
        .map(|(_, t)| token_namespace(t))
        .collect();
    assert!(issued.contains(&second), "{issued:?}");
}
