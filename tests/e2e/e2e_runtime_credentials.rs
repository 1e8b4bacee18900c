//! The agent's credentials for its attached runtimes, against a real
//! control plane (with its token controller) and the fake platform:
//! `info` shows each runtime and whether its token still works (checked
//! with that token, at that file's host), names a runtime the platform
//! lists without credentials together with the command that fixes it,
//! and `runtime rotate` issues a new token, rolls the agent without ever
//! dropping to zero ready replicas, and kills the old token. No output
//! ever holds a token or the runtime file's CA.

use crate::attached_runtimes::{args, init_agent, run, runtime_files, CONTEXT};
use crate::support;

use std::path::Path;
use std::time::Duration;

use k8s_openapi::api::authentication::v1::{TokenReview, TokenReviewSpec};
use k8s_openapi::api::core::v1::{Pod, Secret, ServiceAccount};
use kube::api::{Api, DeleteParams, PostParams};
use kube::{Client, Config};
use serde_json::{json, Value};
use support::cli::{self, text};
use support::controlplane::{self, ControlPlane};
use support::fake_platform::FakePlatform;

const API_TOKEN: &str = "api-token-for-rotate-0123456789abcdef";

use support::audit::cf_runner_writes;
use support::rollout::ReadyWatch;

fn key(name: &str) -> String {
    format!("{}.runtime.yaml", name.replace(['/', '@', ':'], "."))
}

fn client_with_token(cp: &ControlPlane, token: &str) -> Client {
    let mut config: Config = cp.admin_config().clone();
    config.auth_info = kube::config::AuthInfo {
        token: Some(token.to_string().into()),
        ..Default::default()
    };
    Client::try_from(config).unwrap()
}

/// Whether the API server takes `token` (a TokenReview, as the admin).
async fn authenticated(admin: &Client, token: &str) -> bool {
    let review = TokenReview {
        spec: TokenReviewSpec {
            token: token.to_string(),
            ..Default::default()
        },
        ..Default::default()
    };
    let answer = Api::<TokenReview>::all(admin.clone())
        .create(&PostParams::default(), &review)
        .await
        .unwrap();
    answer.status.and_then(|s| s.authenticated).unwrap_or(false)
}

fn pod(name: &str) -> Pod {
    serde_json::from_value(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]}}))
    .unwrap()
}

/// `info -o json` of the agent's namespace: its runtimes and notes.
async fn info_json(
    kubeconfig: &Path,
    home: &Path,
    ns: &str,
    url: &str,
    printed: &mut String,
) -> Value {
    let out = run(
        kubeconfig,
        home,
        args(&[
            "info",
            "--kube-namespace",
            ns,
            "--kube-context-name",
            CONTEXT,
            "-o",
            "json",
            "--token",
            API_TOKEN,
            "--url",
            url,
        ]),
    )
    .await;
    printed.push_str(&text(&out));
    assert!(out.status.success(), "info: {}", text(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    report["installations"][0].clone()
}

fn runtime<'a>(inst: &'a Value, name: &str) -> &'a Value {
    inst["runtimes"]
        .as_array()
        .unwrap_or_else(|| panic!("no runtimes in {inst:#}"))
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no runtime {name} in {:#}", inst["runtimes"]))
}

/// `PUT /api/agent/{id}` on the fake, as the platform's UI would.
async fn set_agent_runtimes(fake: &FakePlatform, runtimes: &[&str]) {
    let id = fake.agents()[0]["id"].as_str().unwrap().to_string();
    let ok = reqwest::Client::new()
        .put(format!("{}/api/agent/{id}", fake.url()))
        .header("Authorization", fake.token())
        .json(&json!({"runtimes": runtimes}))
        .send()
        .await
        .is_ok_and(|r| r.status().is_success());
    assert!(ok, "the fake took the agent's runtimes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn info_checks_each_runtime_token_and_rotate_kills_the_old_one() {
    controlplane::ensure_crypto_provider();
    let cp = controlplane::shared();
    let home = tempfile::tempdir().unwrap();
    let kubeconfig = cp.admin_kubeconfig().to_path_buf();
    let client = cp.client();
    let fake = FakePlatform::start(API_TOKEN);
    let url = fake.url();
    let agent_ns = cp.create_namespace("creds-agent").await.unwrap();
    let builds = cp.create_namespace("creds-builds").await.unwrap();
    let mut printed = String::new();

    let out = init_agent(&kubeconfig, home.path(), &agent_ns, &url, API_TOKEN).await;
    assert!(out.status.success(), "init: {}", text(&out));
    let own = format!("{CONTEXT}/{agent_ns}");
    let near = format!("{CONTEXT}/{builds}");
    fake.add_runtime(&near, CONTEXT, &builds);

    // An agent with only its own runtime: info shows no runtimes section.
    let inst = info_json(&kubeconfig, home.path(), &agent_ns, &url, &mut printed).await;
    assert!(inst.get("runtimes").is_none(), "{:#}", inst["runtimes"]);

    // Still in in-cluster mode, the platform lists a second runtime on the
    // agent: its own runtime shows as in-cluster, the other as a finding.
    let early = format!("{CONTEXT}/creds-early");
    fake.add_runtime(&early, CONTEXT, "creds-early");
    set_agent_runtimes(&fake, &[&own, &early]).await;
    let inst = info_json(&kubeconfig, home.path(), &agent_ns, &url, &mut printed).await;
    let mine = runtime(&inst, &own);
    assert!(
        mine["works"].is_null()
            && mine["credentials"]
                .as_str()
                .unwrap()
                .starts_with("in-cluster"),
        "{mine:#}"
    );
    let e = runtime(&inst, &early);
    assert_eq!(e["works"], false, "{e:#}");
    assert!(
        e["fix"]
            .as_str()
            .unwrap()
            .ends_with("--kube-namespace creds-early"),
        "{e:#}"
    );
    set_agent_runtimes(&fake, &[&own]).await;

    let mut attach = args(&[
        "runtime",
        "attach",
        "--allow-builds-to-read-tokens",
        "--agent-namespace",
        &agent_ns,
    ]);
    attach.extend(args(&[
        "--agent-context",
        CONTEXT,
        "--kube-namespace",
        &builds,
    ]));
    attach.extend(args(&["--token", API_TOKEN, "--url", &url]));
    let out = run(&kubeconfig, home.path(), attach.clone()).await;
    printed.push_str(&text(&out));
    assert!(out.status.success(), "attach: {}", text(&out));
    let files = runtime_files(&client, &agent_ns).await;
    let old_token = files[&key(&near)]["token"].as_str().unwrap().to_string();
    let crt = files[&key(&near)]["crt"].as_str().unwrap().to_string();
    let ca_line = crt.lines().nth(1).unwrap().to_string();

    // info: both runtimes, their credentials checked and working.
    let inst = info_json(&kubeconfig, home.path(), &agent_ns, &url, &mut printed).await;
    let r = runtime(&inst, &near);
    assert_eq!(r["works"], true, "{r:#}");
    assert_eq!(r["namespace"], builds.as_str(), "{r:#}");
    assert_eq!(r["onPlatform"], true, "{r:#}");
    let words = r["credentials"].as_str().unwrap();
    assert!(
        words.contains(&format!("may create pods in namespace {builds}"))
            && words.contains(&format!("system:serviceaccount:{builds}:cf-runner-agent")),
        "{words}"
    );
    assert_eq!(
        runtime(&inst, &own)["works"],
        true,
        "{:#}",
        inst["runtimes"]
    );
    let table = run(
        &kubeconfig,
        home.path(),
        args(&[
            "info",
            "--kube-namespace",
            &agent_ns,
            "--kube-context-name",
            CONTEXT,
            "--token",
            API_TOKEN,
            "--url",
            &url,
        ]),
    )
    .await;
    printed.push_str(&text(&table));
    assert!(
        text(&table).contains("Runtimes served by the agent") && text(&table).contains(&near),
        "{}",
        text(&table)
    );

    // A runtime the platform lists on the agent, without credentials: a
    // finding with the command that fixes it.
    let ghost = format!("{CONTEXT}/creds-ghost");
    fake.add_runtime(&ghost, CONTEXT, "creds-ghost");
    set_agent_runtimes(&fake, &[&own, &near, &ghost]).await;
    let inst = info_json(&kubeconfig, home.path(), &agent_ns, &url, &mut printed).await;
    let g = runtime(&inst, &ghost);
    assert_eq!(g["works"], false, "{g:#}");
    let fix = format!(
        "cf-runner runtime attach --agent-namespace {agent_ns} --agent-context {CONTEXT} --runtime-name {ghost} --kube-namespace creds-ghost"
    );
    assert_eq!(g["fix"], fix.as_str(), "{g:#}");
    assert!(
        inst["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains(&fix)),
        "{:#}",
        inst["notes"]
    );
    set_agent_runtimes(&fake, &[&own, &near]).await;

    // Rotation: a new token, the agent rolled (never zero ready), the old token dead.
    let watch = ReadyWatch::start(client.clone(), &agent_ns);
    let mark = cp.audit_events().unwrap().len();
    let mut rotate = args(&["runtime", "rotate", "--agent-namespace", &agent_ns]);
    rotate.extend(args(&[
        "--agent-context",
        CONTEXT,
        "--kube-namespace",
        &builds,
    ]));
    let out = run(&kubeconfig, home.path(), rotate).await;
    printed.push_str(&text(&out));
    assert!(out.status.success(), "rotate: {}", text(&out));
    let fewest = watch.fewest().await;
    let rotate_writes = cf_runner_writes(cp, mark, &[&agent_ns, &builds]);
    eprintln!(
        "rotate: {} writes, fewest ready agent replicas {fewest}: {rotate_writes:#?}\n{}",
        rotate_writes.len(),
        text(&out)
    );
    assert!(
        fewest >= 1,
        "the agent had {fewest} ready replicas during rotate"
    );
    let files = runtime_files(&client, &agent_ns).await;
    let new_token = files[&key(&near)]["token"].as_str().unwrap().to_string();
    assert!(new_token != old_token, "rotate kept the token");
    assert!(
        !authenticated(&client, &old_token).await,
        "the old token still authenticates"
    );
    assert!(
        authenticated(&client, &new_token).await,
        "the new token does not authenticate"
    );
    let refused = Api::<Pod>::namespaced(client_with_token(cp, &old_token), &builds)
        .create(&PostParams::default(), &pod("old-token"))
        .await;
    assert!(
        matches!(&refused, Err(kube::Error::Api(s)) if s.code == 401),
        "the old token: {refused:?}"
    );
    Api::<Pod>::namespaced(client_with_token(cp, &new_token), &builds)
        .create(&PostParams::default(), &pod("new-token"))
        .await
        .expect("the new token creates pods in the runtime's namespace");
    assert!(text(&out).contains("refused by"), "{}", text(&out));
    // The bridge is gone.
    assert!(Api::<ServiceAccount>::namespaced(client.clone(), &builds)
        .get_opt("cf-runner-agent-rotating")
        .await
        .unwrap()
        .is_none());

    // A re-run of attach (no rotation asked) writes nothing.
    fake.clear_requests();
    let mark = cp.audit_events().unwrap().len();
    let out = run(&kubeconfig, home.path(), attach.clone()).await;
    printed.push_str(&text(&out));
    assert!(out.status.success(), "attach re-run: {}", text(&out));
    assert_eq!(
        cf_runner_writes(cp, mark, &[&agent_ns, &builds]),
        Vec::<String>::new()
    );
    let platform_writes: Vec<String> = fake
        .calls()
        .into_iter()
        .filter(|c| !c.starts_with("GET "))
        .collect();
    assert_eq!(platform_writes, Vec::<String>::new());

    // A token Secret deleted behind cf-runner's back: info says the
    // credentials no longer work, and how to fix it.
    Api::<Secret>::namespaced(client.clone(), &builds)
        .delete("cf-runner-agent-token", &DeleteParams::default())
        .await
        .unwrap();
    let mut inst = Value::Null;
    for _ in 0..20 {
        inst = info_json(&kubeconfig, home.path(), &agent_ns, &url, &mut printed).await;
        if runtime(&inst, &near)["works"] == false {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let r = runtime(&inst, &near);
    assert_eq!(r["works"], false, "{r:#}");
    assert!(
        r["credentials"].as_str().unwrap().contains("(401)"),
        "{r:#}"
    );
    assert!(
        r["fix"]
            .as_str()
            .unwrap()
            .starts_with("cf-runner runtime attach"),
        "{r:#}"
    );

    // check says the same, with the fix, and fails (exit 3).
    let local = cli::example("local");
    let out = run(
        &kubeconfig,
        home.path(),
        args(&[
            "check",
            "--values",
            local.to_str().unwrap(),
            "--kube-namespace",
            &agent_ns,
            "--kube-context-name",
            CONTEXT,
            "-o",
            "json",
        ]),
    )
    .await;
    printed.push_str(&text(&out));
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let creds = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "the agent's runtime credentials")
        .unwrap_or_else(|| panic!("{report:#}"))
        .clone();
    assert_eq!(creds["status"], "fail", "{creds:#}");
    let detail = creds["details"][0].as_str().unwrap();
    assert!(
        detail.contains(&near) && detail.contains("(401)"),
        "{creds:#}"
    );
    assert!(
        creds["fix"]
            .as_str()
            .unwrap()
            .contains(&format!("--runtime-name {near}")),
        "{creds:#}"
    );

    // A rotation stopped after its bridge was made leaves the bridge's
    // ServiceAccount (a live token); detach takes it with the rest.
    let sas = Api::<ServiceAccount>::namespaced(client.clone(), &builds);
    let access = sas.get("cf-runner-agent").await.unwrap();
    let mut bridge = ServiceAccount::default();
    bridge.metadata.name = Some("cf-runner-agent-rotating".into());
    bridge.metadata.labels = access.metadata.labels.clone();
    bridge.metadata.annotations = access.metadata.annotations.clone();
    sas.create(&PostParams::default(), &bridge).await.unwrap();
    let mut detach = attach.clone();
    detach[1] = "detach".into();
    detach.retain(|a| a != "--allow-builds-to-read-tokens");
    let out = run(&kubeconfig, home.path(), detach).await;
    printed.push_str(&text(&out));
    assert!(out.status.success(), "detach: {}", text(&out));
    for name in ["cf-runner-agent", "cf-runner-agent-rotating"] {
        assert!(
            sas.get_opt(name).await.unwrap().is_none(),
            "detach left ServiceAccount {name}: {}",
            text(&out)
        );
    }

    // Never a token nor the runtime file's CA in any output.
    for token in [&old_token, &new_token] {
        assert!(
            !printed.contains(token.as_str()),
            "a runtime token was printed"
        );
    }
    assert!(
        !printed.contains(&ca_line),
        "the runtime file's CA was printed"
    );
}
