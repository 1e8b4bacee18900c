//! One agent, many runtimes, against real control planes and the fake
//! platform: `cf-runner runtime attach` of a runtime in a second namespace
//! and of one in a second cluster, a re-run that writes nothing, an
//! interrupted attach that the next run finishes, an upgrade of the agent
//! that keeps its runtimes, and `runtime detach`. The agent's ready
//! replicas are watched throughout: they never drop to zero.

use crate::attached_runtimes::{
    args, init_agent, merged_kubeconfig, run, runtime_files, CONTEXT, SECOND,
};
use crate::support;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Pod, Secret, ServiceAccount};
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::{Client, Config};
use serde_json::{json, Value};
use support::cli::{isolated, text};
use support::controlplane::{self, ControlPlane};
use support::fake_platform::FakePlatform;
use support::objects::labelled_in;

const API_TOKEN: &str = "api-token-for-attach-0123456789abcdef";

fn writes_since(cp: &ControlPlane, since: usize, namespaces: &[&str]) -> Vec<String> {
    support::audit::cf_runner_writes(cp, since, namespaces)
}

use support::rollout::ReadyWatch;

fn env_names(d: &Deployment) -> Vec<String> {
    d.spec
        .as_ref()
        .unwrap()
        .template
        .spec
        .as_ref()
        .unwrap()
        .containers[0]
        .env
        .as_ref()
        .unwrap()
        .iter()
        .map(|e| e.name.clone())
        .collect()
}

fn key(name: &str) -> String {
    format!("{}.runtime.yaml", name.replace(['/', '@', ':'], "."))
}

/// A client of `cp` that authenticates with `token` alone.
fn client_with_token(cp: &ControlPlane, token: &str) -> Client {
    let mut config: Config = cp.admin_config().clone();
    config.auth_info = kube::config::AuthInfo {
        token: Some(token.to_string().into()),
        ..Default::default()
    };
    Client::try_from(config).unwrap()
}

fn pod(name: &str) -> Pod {
    serde_json::from_value(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]}}))
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn one_agent_serves_runtimes_in_another_namespace_and_another_cluster() {
    controlplane::ensure_crypto_provider();
    let cp = controlplane::shared();
    let cp2 = tokio::task::spawn_blocking(ControlPlane::start)
        .await
        .unwrap()
        .expect("a second control plane starts");
    let home = tempfile::tempdir().unwrap();
    let kubeconfig = merged_kubeconfig(cp, &cp2, home.path());
    let client = cp.client();
    let client2 = cp2.client();
    let fake = FakePlatform::start(API_TOKEN);
    let agent_ns = cp.create_namespace("attach-agent").await.unwrap();
    let builds = cp.create_namespace("attach-builds").await.unwrap();
    let far = cp2.create_namespace("far-builds").await.unwrap();
    let platform = ["--token", API_TOKEN, "--url"];
    let url = fake.url();
    let mut printed = String::new();

    // The agent, installed as today: one runtime, in-cluster mode.
    let out = init_agent(&kubeconfig, home.path(), &agent_ns, &url, API_TOKEN).await;
    assert!(out.status.success(), "init: {}", text(&out));
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), &agent_ns);
    let before = deployments.get("runner").await.unwrap();
    assert!(env_names(&before).contains(&"CODEFRESH_IN_CLUSTER_RUNTIME".to_string()));
    let own = format!("{CONTEXT}/{agent_ns}");
    let near = format!("{CONTEXT}/{builds}");
    let remote = format!("{SECOND}/{far}");
    fake.add_runtime(&near, CONTEXT, &builds);
    fake.add_runtime(&remote, SECOND, &far);

    // Attach the runtime of a second namespace.
    let mark = cp.audit_events().unwrap().len();
    let watch = ReadyWatch::start(client.clone(), &agent_ns);
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
    attach.extend(args(&platform));
    attach.push(url.clone());
    let out = run(&kubeconfig, home.path(), attach.clone()).await;
    printed.push_str(&text(&out));
    assert!(out.status.success(), "attach: {}", text(&out));
    let fewest = watch.fewest().await;
    let attach_writes = writes_since(cp, mark, &[&agent_ns, &builds]);
    eprintln!(
        "attach: {} writes, fewest ready agent replicas {fewest}: {attach_writes:#?}",
        attach_writes.len()
    );
    assert!(
        fewest >= 1,
        "the agent had {fewest} ready replicas during attach"
    );
    assert!(
        text(&out).contains("ready replica(s) throughout"),
        "{}",
        text(&out)
    );

    // Config-dir mode, its own runtime included, with one file per runtime.
    let d = deployments.get("runner").await.unwrap();
    let env = env_names(&d);
    assert!(env.contains(&"VENONA_CONFIG_DIR".to_string()), "{env:?}");
    assert!(
        !env.contains(&"CODEFRESH_IN_CLUSTER_RUNTIME".to_string()),
        "{env:?}"
    );
    let strategy = d.spec.as_ref().unwrap().strategy.clone().unwrap();
    assert_eq!(
        serde_json::to_value(strategy.rolling_update.unwrap().max_unavailable).unwrap(),
        json!(0)
    );
    let files = runtime_files(&client, &agent_ns).await;
    assert_eq!(files.keys().cloned().collect::<Vec<_>>(), {
        let mut k = vec![key(&own), key(&near)];
        k.sort();
        k
    });
    assert_eq!(files[&key(&near)]["type"], "runtime");
    assert_eq!(files[&key(&near)]["name"], near.as_str());
    assert_eq!(files[&key(&near)]["host"], "https://kubernetes.default.svc");
    let near_token = files[&key(&near)]["token"].as_str().unwrap().to_string();
    // The token is the runtime namespace's own ServiceAccount's, in a
    // service-account-token Secret labelled as cf-runner's.
    let secrets: Api<Secret> = Api::namespaced(client.clone(), &builds);
    let token_secret = secrets.get("cf-runner-agent-token").await.unwrap();
    assert_eq!(
        token_secret.type_.as_deref(),
        Some("kubernetes.io/service-account-token")
    );
    let labels = token_secret.metadata.labels.clone().unwrap();
    assert_eq!(labels["app.kubernetes.io/managed-by"], "cf-runner");
    assert_eq!(
        String::from_utf8(token_secret.data.unwrap()["token"].0.clone()).unwrap(),
        near_token
    );
    let mut on_platform = fake.agents()[0]["runtimes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect::<Vec<_>>();
    on_platform.sort();
    let mut want = vec![own.clone(), near.clone()];
    want.sort();
    assert_eq!(on_platform, want);

    // The token is scoped to that namespace's Role: pods there, nothing elsewhere.
    let as_agent = client_with_token(cp, &near_token);
    Api::<Pod>::namespaced(as_agent.clone(), &builds)
        .create(&PostParams::default(), &pod("engine-probe"))
        .await
        .expect("the runtime token creates pods in its namespace");
    let elsewhere = Api::<Pod>::namespaced(as_agent.clone(), &agent_ns)
        .create(&PostParams::default(), &pod("engine-probe"))
        .await;
    assert!(
        elsewhere.is_err(),
        "the runtime token reached another namespace"
    );
    let audit = cp.audit_events().unwrap();
    let created_by = audit
        .iter()
        .rev()
        .find(|e| {
            e["verb"] == "create"
                && e["objectRef"]["resource"] == "pods"
                && e["objectRef"]["namespace"] == builds.as_str()
                && e["objectRef"]["name"] == "engine-probe"
                && e["objectRef"]["subresource"].is_null()
        })
        .map(|e| {
            e["user"]["username"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        });
    assert_eq!(
        created_by.as_deref(),
        Some(format!("system:serviceaccount:{builds}:cf-runner-agent").as_str())
    );

    // A re-run writes nothing, in the cluster or on the platform.
    fake.clear_requests();
    let mark = cp.audit_events().unwrap().len();
    let out = run(&kubeconfig, home.path(), attach.clone()).await;
    printed.push_str(&text(&out));
    assert!(out.status.success(), "re-run: {}", text(&out));
    let rerun_writes = writes_since(cp, mark, &[&agent_ns, &builds]);
    eprintln!("attach re-run: {} writes", rerun_writes.len());
    assert_eq!(rerun_writes, Vec::<String>::new());
    let platform_writes: Vec<String> = fake
        .calls()
        .into_iter()
        .filter(|c| !c.starts_with("GET "))
        .collect();
    assert_eq!(platform_writes, Vec::<String>::new());

    // An attach stopped after its files, before the agent's rollout and
    // the platform: the Deployment as it was (no files hash), the agent
    // without the runtime on the platform. The next run finishes it.
    let before_run = json!({"spec": {"template": {"metadata": {"annotations": {
        "cf-runner.codefresh.io/runtimes-hash": null}}}}});
    deployments
        .patch(
            "runner",
            &PatchParams::default(),
            &Patch::Merge(&before_run),
        )
        .await
        .unwrap();
    let agent_id = fake.agents()[0]["id"].as_str().unwrap().to_string();
    let put = reqwest_put(&fake, &agent_id, std::slice::from_ref(&own)).await;
    assert!(put, "the fake took the runtime off the agent");
    let out = run(&kubeconfig, home.path(), attach.clone()).await;
    printed.push_str(&text(&out));
    assert!(out.status.success(), "converging run: {}", text(&out));
    let d = deployments.get("runner").await.unwrap();
    let hash = d
        .spec
        .unwrap()
        .template
        .metadata
        .unwrap()
        .annotations
        .unwrap()["cf-runner.codefresh.io/runtimes-hash"]
        .clone();
    assert!(
        !hash.is_empty(),
        "the converging run left the Deployment unrolled"
    );
    assert_eq!(runtime_files(&client, &agent_ns).await.len(), 2);
    assert_eq!(fake.agents()[0]["runtimes"].as_array().unwrap().len(), 2);

    // P1: a runtimes file adds a runtime in another cluster.
    let file = home.path().join("runtimes.yaml");
    std::fs::write(
        &file,
        format!("Runtimes:\n  - Namespace: {far}\n    Context: {SECOND}\n"),
    )
    .unwrap();
    let mark2 = cp2.audit_events().unwrap().len();
    let watch = ReadyWatch::start(client.clone(), &agent_ns);
    let mut by_file = args(&[
        "runtime",
        "attach",
        "--allow-builds-to-read-tokens",
        "--agent-namespace",
        &agent_ns,
    ]);
    by_file.extend(args(&["--agent-context", CONTEXT, "-f"]));
    by_file.push(file.display().to_string());
    by_file.extend(args(&platform));
    by_file.push(url.clone());
    let out = run(&kubeconfig, home.path(), by_file.clone()).await;
    printed.push_str(&text(&out));
    assert!(out.status.success(), "attach by file: {}", text(&out));
    // Its builds' StorageClass exists in the agent's cluster only: said.
    assert!(
        text(&out).contains("has no Storage of its own"),
        "{}",
        text(&out)
    );
    let fewest_far = watch.fewest().await;
    assert!(fewest_far >= 1, "{fewest_far}");
    let files = runtime_files(&client, &agent_ns).await;
    assert_eq!(files.len(), 3, "{:?}", files.keys());
    let far_file = &files[&key(&remote)];
    assert_eq!(far_file["host"], cp2.server());
    let far_token = far_file["token"].as_str().unwrap().to_string();
    let far_writes = writes_since(&cp2, mark2, &[&far]);
    assert!(
        far_writes.iter().any(|w| w.contains("/serviceaccounts")),
        "{far_writes:?}"
    );
    Api::<Pod>::namespaced(client_with_token(&cp2, &far_token), &far)
        .create(&PostParams::default(), &pod("far-engine"))
        .await
        .expect("the far runtime's token creates pods in its namespace");
    let far_user = cp2
        .audit_events()
        .unwrap()
        .iter()
        .rev()
        .find(|e| {
            e["verb"] == "create"
                && e["objectRef"]["name"] == "far-engine"
                && e["objectRef"]["subresource"].is_null()
        })
        .map(|e| {
            e["user"]["username"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        });
    assert_eq!(
        far_user.as_deref(),
        Some(format!("system:serviceaccount:{far}:cf-runner-agent").as_str())
    );
    assert!(Api::<ServiceAccount>::namespaced(client2.clone(), &far)
        .get_opt("cf-runner-agent")
        .await
        .unwrap()
        .is_some());

    // info checks the far runtime's token at its own host (the second
    // control plane), as the agent would: no context of it is used.
    let info = run(
        &kubeconfig,
        home.path(),
        args(&[
            "info",
            "--kube-namespace",
            &agent_ns,
            "--kube-context-name",
            CONTEXT,
            "-o",
            "json",
            "--token",
            API_TOKEN,
            "--url",
            &url,
        ]),
    )
    .await;
    printed.push_str(&text(&info));
    assert!(info.status.success(), "info: {}", text(&info));
    let report: Value = serde_json::from_slice(&info.stdout).unwrap();
    let listed = report["installations"][0]["runtimes"].clone();
    let far_info = listed
        .as_array()
        .unwrap_or_else(|| panic!("no runtimes: {report:#}"))
        .iter()
        .find(|r| r["name"] == remote.as_str())
        .unwrap_or_else(|| panic!("{listed:#}"))
        .clone();
    assert_eq!(far_info["host"], cp2.server(), "{far_info:#}");
    assert_eq!(far_info["works"], true, "{far_info:#}");
    assert_eq!(far_info["namespace"], far.as_str(), "{far_info:#}");

    // info of the attached runtime's namespace says what it is, not that
    // an install stopped half-way there.
    let info = run(
        &kubeconfig,
        home.path(),
        args(&[
            "info",
            "--kube-namespace",
            &builds,
            "--kube-context-name",
            CONTEXT,
            "--token",
            API_TOKEN,
            "--url",
            &url,
        ]),
    )
    .await;
    printed.push_str(&text(&info));
    let said = text(&info);
    assert!(
        said.contains("a runtime attached to an agent in another namespace"),
        "info of {builds}: {said}"
    );
    assert!(
        !said.contains("stopped half-way"),
        "info of {builds}: {said}"
    );

    // An upgrade of the agent keeps config-dir mode and its runtimes.
    let k = kubeconfig.clone();
    let h = home.path().to_path_buf();
    let (ans, u) = (agent_ns.clone(), url.clone());
    let out = tokio::task::spawn_blocking(move || {
        isolated(&k, &h)
            .args([
                "upgrade",
                "--yes",
                "--kube-namespace",
                &ans,
                "--kube-context-name",
                CONTEXT,
            ])
            .args(["--timeout=90s", "--token", API_TOKEN, "--url", &u])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    printed.push_str(&text(&out));
    assert!(out.status.success(), "upgrade: {}", text(&out));
    let env = env_names(&deployments.get("runner").await.unwrap());
    assert!(env.contains(&"VENONA_CONFIG_DIR".to_string()), "{env:?}");
    assert_eq!(runtime_files(&client, &agent_ns).await.len(), 3);
    assert!(secrets
        .get_opt("cf-runner-agent-token")
        .await
        .unwrap()
        .is_some());

    // Detach the second namespace's runtime; the far one stays.
    let mark = cp.audit_events().unwrap().len();
    let watch = ReadyWatch::start(client.clone(), &agent_ns);
    let mut detach = args(&["runtime", "detach", "--agent-namespace", &agent_ns]);
    detach.extend(args(&[
        "--agent-context",
        CONTEXT,
        "--kube-namespace",
        &builds,
    ]));
    detach.extend(args(&platform));
    detach.push(url.clone());
    let out = run(&kubeconfig, home.path(), detach.clone()).await;
    printed.push_str(&text(&out));
    assert!(out.status.success(), "detach: {}", text(&out));
    let fewest_detach = watch.fewest().await;
    eprintln!(
        "detach: {} writes, fewest ready agent replicas {fewest_detach}",
        writes_since(cp, mark, &[&agent_ns, &builds]).len()
    );
    assert!(fewest_detach >= 1, "{fewest_detach}");
    let files = runtime_files(&client, &agent_ns).await;
    assert!(!files.contains_key(&key(&near)), "{:?}", files.keys());
    assert!(files.contains_key(&key(&remote)));
    assert!(secrets
        .get_opt("cf-runner-agent-token")
        .await
        .unwrap()
        .is_none());
    let runtimes = fake.agents()[0]["runtimes"].clone();
    assert!(
        !runtimes.as_array().unwrap().contains(&json!(near)),
        "{runtimes}"
    );
    assert!(
        runtimes.as_array().unwrap().contains(&json!(remote)),
        "{runtimes}"
    );
    // The detached token no longer works.
    let gone = Api::<Pod>::namespaced(as_agent, &builds)
        .create(&PostParams::default(), &pod("after-detach"))
        .await;
    assert!(gone.is_err(), "the detached runtime's token still works");
    // And a detach re-run writes nothing.
    let mark = cp.audit_events().unwrap().len();
    let out = run(&kubeconfig, home.path(), detach).await;
    printed.push_str(&text(&out));
    assert!(out.status.success(), "detach re-run: {}", text(&out));
    assert_eq!(
        writes_since(cp, mark, &[&agent_ns, &builds]),
        Vec::<String>::new()
    );

    // The agent's own runtime cannot be detached (exit 2, naming the flag).
    let mut own_detach = args(&["runtime", "detach", "--agent-namespace", &agent_ns]);
    own_detach.extend(args(&[
        "--agent-context",
        CONTEXT,
        "--kube-namespace",
        &agent_ns,
    ]));
    own_detach.extend(args(&platform));
    own_detach.push(url.clone());
    let out = run(&kubeconfig, home.path(), own_detach).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--kube-namespace"), "{}", text(&out));

    // No token was ever printed.
    for token in [&near_token, &far_token] {
        assert!(
            !printed.contains(token.as_str()),
            "a runtime token was printed"
        );
    }
}

/// `PUT /api/agent/{id}` on the fake, as the platform's UI would.
async fn reqwest_put(fake: &FakePlatform, id: &str, runtimes: &[String]) -> bool {
    reqwest::Client::new()
        .put(format!("{}/api/agent/{id}", fake.url()))
        .header("Authorization", fake.token())
        .json(&json!({"runtimes": runtimes}))
        .send()
        .await
        .is_ok_and(|r| r.status().is_success())
}

fn runtimes_hash(d: &Deployment) -> Option<String> {
    d.spec
        .as_ref()?
        .template
        .metadata
        .as_ref()?
        .annotations
        .as_ref()?
        .get("cf-runner.codefresh.io/runtimes-hash")
        .cloned()
}

fn dind_config(cm: &k8s_openapi::api::core::v1::ConfigMap) -> Value {
    serde_json::from_str(&cm.data.as_ref().unwrap()["daemon.json"]).unwrap()
}

fn agent_runtimes(fake: &FakePlatform) -> Vec<String> {
    let mut list: Vec<String> = fake
        .agents()
        .first()
        .map(|a| a["runtimes"].as_array().unwrap().clone())
        .unwrap_or_default()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    list.sort();
    list
}

/// Each runtime has its own life: a re-run of `init` keeps the agent's
/// attached runtimes; `runtime upgrade` writes one runtime's namespace
/// only, and `upgrade` of the agent none of them; `runtime delete`
/// detaches one runtime and removes only its objects (and its runtime
/// environment unless `--keep-platform`) while the agent keeps a ready
/// replica; `delete` of the agent refuses while a runtime is attached,
/// and `--all-runtimes` takes them first, without ever rolling the agent
/// it deletes next, and a re-run finishes after a run that failed half-way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn each_runtime_has_its_own_life() {
    use k8s_openapi::api::core::v1::ConfigMap;
    controlplane::ensure_crypto_provider();
    let cp = controlplane::shared();
    let cp2 = tokio::task::spawn_blocking(ControlPlane::start)
        .await
        .unwrap()
        .expect("a second control plane starts");
    let home = tempfile::tempdir().unwrap();
    let kubeconfig = merged_kubeconfig(cp, &cp2, home.path());
    let client = cp.client();
    let client2 = cp2.client();
    let fake = FakePlatform::start(API_TOKEN);
    let url = fake.url();
    let agent_ns = cp.create_namespace("life-agent").await.unwrap();
    let a_ns = cp.create_namespace("life-a").await.unwrap();
    let b_ns = cp.create_namespace("life-b").await.unwrap();
    let far = cp2.create_namespace("life-far").await.unwrap();
    let with_platform = |mut list: Vec<String>| {
        list.extend(args(&["--token", API_TOKEN, "--url", &url]));
        list
    };
    let agent_flags = |command: &[&str], ns: Option<&str>| {
        let mut list = args(command);
        list.extend(args(&[
            "--agent-namespace",
            &agent_ns,
            "--agent-context",
            CONTEXT,
        ]));
        if let Some(ns) = ns {
            list.extend(args(&["--kube-namespace", ns]));
        }
        with_platform(list)
    };

    let out = init_agent(&kubeconfig, home.path(), &agent_ns, &url, API_TOKEN).await;
    assert!(out.status.success(), "init: {}", text(&out));
    let own = format!("{CONTEXT}/{agent_ns}");
    let ra = format!("{CONTEXT}/{a_ns}");
    let rb = format!("{CONTEXT}/{b_ns}");
    let rf = format!("{SECOND}/{far}");
    fake.add_runtime(&ra, CONTEXT, &a_ns);
    fake.add_runtime(&rb, CONTEXT, &b_ns);
    fake.add_runtime(&rf, SECOND, &far);
    let file = home.path().join("runtimes.yaml");
    std::fs::write(
        &file,
        format!(
            "Runtimes:\n  - Namespace: {a_ns}\n  - Namespace: {b_ns}\n  - Namespace: {far}\n    Context: {SECOND}\n"
        ),
    )
    .unwrap();
    let mut attach = agent_flags(
        &["runtime", "attach", "--allow-builds-to-read-tokens"],
        None,
    );
    attach.extend(["-f".to_string(), file.display().to_string()]);
    let out = run(&kubeconfig, home.path(), attach).await;
    assert!(out.status.success(), "attach: {}", text(&out));
    let all = {
        let mut v = vec![own.clone(), ra.clone(), rb.clone(), rf.clone()];
        v.sort();
        v
    };
    assert_eq!(agent_runtimes(&fake), all);
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), &agent_ns);
    let hash = runtimes_hash(&deployments.get("runner").await.unwrap());
    assert!(hash.is_some(), "attach left no runtimes hash");

    // 1. A re-run of init keeps config-dir mode, the same files, the same
    // hash, and writes neither the Deployment nor the runtimes Secret.
    let mark = cp.audit_events().unwrap().len();
    let out = init_agent(&kubeconfig, home.path(), &agent_ns, &url, API_TOKEN).await;
    assert!(out.status.success(), "init re-run: {}", text(&out));
    let d = deployments.get("runner").await.unwrap();
    let env = env_names(&d);
    assert!(env.contains(&"VENONA_CONFIG_DIR".to_string()), "{env:?}");
    assert!(
        !env.contains(&"CODEFRESH_IN_CLUSTER_RUNTIME".to_string()),
        "init put the agent back into in-cluster mode: {env:?}"
    );
    assert_eq!(runtimes_hash(&d), hash);
    let init_writes = writes_since(cp, mark, &[&agent_ns]);
    eprintln!(
        "init re-run: {} writes in the agent's namespace: {init_writes:#?}",
        init_writes.len()
    );
    let agent_writes: Vec<String> = init_writes
        .into_iter()
        .filter(|w| w.contains("/deployments/runner") || w.contains("/secrets/runnerconf"))
        .collect();
    assert_eq!(
        agent_writes,
        Vec::<String>::new(),
        "init re-run wrote the agent"
    );
    assert_eq!(runtime_files(&client, &agent_ns).await.len(), 4);
    assert_eq!(agent_runtimes(&fake), all);

    // 4. An upgrade of the agent writes in no runtime namespace.
    let (mark, mark2) = (
        cp.audit_events().unwrap().len(),
        cp2.audit_events().unwrap().len(),
    );
    let mut upgrade = args(&["upgrade", "--yes", "--kube-namespace", &agent_ns]);
    upgrade.extend(args(&["--kube-context-name", CONTEXT, "--timeout=90s"]));
    upgrade.extend(args(&["--set-value", "Runtime.Mtu=1400"]));
    let out = run(&kubeconfig, home.path(), with_platform(upgrade)).await;
    assert!(out.status.success(), "upgrade: {}", text(&out));
    assert_eq!(
        writes_since(cp, mark, &[&a_ns, &b_ns]),
        Vec::<String>::new()
    );
    assert_eq!(writes_since(&cp2, mark2, &[&far]), Vec::<String>::new());
    let configmaps = |c: &Client, ns: &str| Api::<ConfigMap>::namespaced(c.clone(), ns);
    let cm = configmaps(&client, &agent_ns)
        .get("codefresh-dind-config")
        .await
        .unwrap();
    assert_eq!(dind_config(&cm)["mtu"], 1400);
    let cm = configmaps(&client, &a_ns)
        .get("codefresh-dind-config")
        .await
        .unwrap();
    assert!(
        dind_config(&cm).get("mtu").is_none(),
        "{:?}",
        dind_config(&cm)
    );

    // `runtime upgrade` of one runtime: its namespace only, from the agent's values.
    let (mark, mark2) = (
        cp.audit_events().unwrap().len(),
        cp2.audit_events().unwrap().len(),
    );
    let rb_spec_before = fake.runtimes()[&rb].clone();
    let runtime_upgrade = agent_flags(&["runtime", "upgrade"], Some(&a_ns));
    let out = run(&kubeconfig, home.path(), runtime_upgrade.clone()).await;
    assert!(out.status.success(), "runtime upgrade: {}", text(&out));
    let cm = configmaps(&client, &a_ns)
        .get("codefresh-dind-config")
        .await
        .unwrap();
    assert_eq!(
        dind_config(&cm)["mtu"],
        1400,
        "runtime upgrade left the old dind config"
    );
    let cm = configmaps(&client, &b_ns)
        .get("codefresh-dind-config")
        .await
        .unwrap();
    assert!(
        dind_config(&cm).get("mtu").is_none(),
        "another runtime was upgraded"
    );
    let a_writes = writes_since(cp, mark, &[&a_ns]);
    assert!(
        a_writes
            .iter()
            .any(|w| w.contains("/configmaps/codefresh-dind-config")),
        "{a_writes:?}"
    );
    assert_eq!(
        writes_since(cp, mark, &[&agent_ns, &b_ns]),
        Vec::<String>::new()
    );
    // Its runtime environment's spec now follows the agent's (the images
    // of its builds); another runtime's stays as it was registered.
    let specs = fake.runtimes();
    assert_eq!(
        specs[&ra]["dockerDaemonScheduler"]["dindImage"],
        specs[&own]["dockerDaemonScheduler"]["dindImage"]
    );
    assert_eq!(
        specs[&ra]["runtimeScheduler"]["cluster"]["namespace"],
        a_ns.as_str()
    );
    assert_eq!(
        specs[&rb], rb_spec_before,
        "another runtime's spec was changed"
    );
    assert_eq!(writes_since(&cp2, mark2, &[&far]), Vec::<String>::new());
    let mark = cp.audit_events().unwrap().len();
    fake.clear_requests();
    let out = run(&kubeconfig, home.path(), runtime_upgrade).await;
    assert!(
        out.status.success(),
        "runtime upgrade re-run: {}",
        text(&out)
    );
    assert_eq!(
        writes_since(cp, mark, &[&a_ns, &agent_ns]),
        Vec::<String>::new()
    );
    let platform_writes: Vec<String> = fake
        .calls()
        .into_iter()
        .filter(|c| !c.starts_with("GET "))
        .collect();
    assert_eq!(platform_writes, Vec::<String>::new());

    // A runtime whose environment the platform has under another cluster's
    // name: `runtime upgrade` with settings of its own refuses before any
    // write (exit 3), naming the runtime, both clusters and the fix; without
    // them it upgrades the objects and leaves the spec, as attach does.
    fake.add_runtime(&rb, "other-cluster", &b_ns);
    let rb_elsewhere = fake.runtimes()[&rb].clone();
    let writes_on_platform = |fake: &FakePlatform| -> Vec<String> {
        fake.calls()
            .into_iter()
            .filter(|c| !c.starts_with("GET "))
            .collect()
    };
    let mark = cp.audit_events().unwrap().len();
    fake.clear_requests();
    let mut upgrade_b = agent_flags(&["runtime", "upgrade"], Some(&b_ns));
    upgrade_b.extend(args(&["--set-value", "NodeSelector=disk=ssd"]));
    let out = run(&kubeconfig, home.path(), upgrade_b).await;
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    for named in [rb.as_str(), "other-cluster", CONTEXT, "drop --set-value"] {
        assert!(text(&out).contains(named), "{named}: {}", text(&out));
    }
    assert_eq!(
        writes_since(cp, mark, &[&b_ns, &agent_ns]),
        Vec::<String>::new()
    );
    assert_eq!(writes_on_platform(&fake), Vec::<String>::new());
    assert_eq!(fake.runtimes()[&rb], rb_elsewhere);
    let out = run(
        &kubeconfig,
        home.path(),
        agent_flags(&["runtime", "upgrade"], Some(&b_ns)),
    )
    .await;
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("registered for namespace") && text(&out).contains("left as it is"),
        "{}",
        text(&out)
    );
    let cm = configmaps(&client, &b_ns)
        .get("codefresh-dind-config")
        .await
        .unwrap();
    assert_eq!(
        dind_config(&cm)["mtu"],
        1400,
        "the objects were not upgraded"
    );
    assert_eq!(writes_on_platform(&fake), Vec::<String>::new());
    assert_eq!(fake.runtimes()[&rb], rb_elsewhere);
    fake.add_runtime(&rb, CONTEXT, &b_ns);

    // `delete` of a runtime's namespace (not the agent's) refuses: the
    // agent would keep a file whose token died. Nothing is deleted.
    let b_labelled = labelled_in(&client, &b_ns).await;
    let mut delete_b_ns = args(&["delete", "--yes", "--kube-namespace", &b_ns]);
    delete_b_ns.extend(args(&["--kube-context-name", CONTEXT]));
    let out = run(&kubeconfig, home.path(), with_platform(delete_b_ns)).await;
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(text(&out).contains("runtime delete"), "{}", text(&out));
    assert!(text(&out).contains("--ignore-agent"), "{}", text(&out));
    assert_eq!(labelled_in(&client, &b_ns).await, b_labelled);

    // 2. `runtime delete` of one runtime: detached, then only its objects go.
    let mine: ConfigMap = serde_json::from_value(json!({"metadata": {"name": "users-own"},
        "data": {"k": "v"}}))
    .unwrap();
    configmaps(&client, &a_ns)
        .create(&PostParams::default(), &mine)
        .await
        .unwrap();
    let b_before = labelled_in(&client, &b_ns).await;
    assert!(
        b_before.contains(&"ServiceAccount/cf-runner-agent".to_string()),
        "{b_before:?}"
    );
    let far_before = labelled_in(&client2, &far).await;
    let (mark, mark2) = (
        cp.audit_events().unwrap().len(),
        cp2.audit_events().unwrap().len(),
    );
    let watch = ReadyWatch::start(client.clone(), &agent_ns);
    let mut delete_a = agent_flags(&["runtime", "delete"], Some(&a_ns));
    delete_a.push("--yes".into());
    let out = run(&kubeconfig, home.path(), delete_a.clone()).await;
    let fewest = watch.fewest().await;
    assert!(out.status.success(), "runtime delete: {}", text(&out));
    assert!(text(&out).contains("deleted runtime"), "{}", text(&out));
    assert!(
        fewest >= 1,
        "the agent had {fewest} ready replicas during runtime delete"
    );
    assert_eq!(labelled_in(&client, &a_ns).await, Vec::<String>::new());
    assert!(configmaps(&client, &a_ns)
        .get_opt("users-own")
        .await
        .unwrap()
        .is_some());
    assert_eq!(labelled_in(&client, &b_ns).await, b_before);
    assert_eq!(labelled_in(&client2, &far).await, far_before);
    assert_eq!(writes_since(cp, mark, &[&b_ns]), Vec::<String>::new());
    assert_eq!(writes_since(&cp2, mark2, &[&far]), Vec::<String>::new());
    let deleted: Vec<String> = writes_since(cp, mark, &[&a_ns]);
    eprintln!(
        "runtime delete: in the agent's namespace: {:#?}",
        writes_since(cp, mark, &[&agent_ns])
    );
    eprintln!(
        "runtime delete: fewest ready agent replicas {fewest}; in the runtime's namespace: {deleted:#?}"
    );
    assert!(
        deleted.iter().all(|w| w.starts_with("\"delete\"")),
        "{deleted:?}"
    );
    let files = runtime_files(&client, &agent_ns).await;
    assert!(!files.contains_key(&key(&ra)), "{:?}", files.keys());
    assert_eq!(files.len(), 3);
    assert_eq!(agent_runtimes(&fake), {
        let mut v = vec![own.clone(), rb.clone(), rf.clone()];
        v.sort();
        v
    });
    assert!(
        !fake.runtimes().contains_key(&ra),
        "the runtime environment stayed"
    );
    assert!(fake.runtimes().contains_key(&rb));
    // A re-run finds nothing left and writes nothing.
    let mark = cp.audit_events().unwrap().len();
    let out = run(&kubeconfig, home.path(), delete_a).await;
    assert!(
        out.status.success(),
        "runtime delete re-run: {}",
        text(&out)
    );
    assert_eq!(
        writes_since(cp, mark, &[&a_ns, &agent_ns]),
        Vec::<String>::new()
    );
    // What is not an attached runtime is refused, naming the flag: the
    // agent's own runtime (exit 2), a runtime no longer attached (exit 3);
    // and without a terminal, a delete needs --yes (exit 2).
    let mut own_delete = agent_flags(&["runtime", "delete"], Some(&agent_ns));
    own_delete.push("--yes".into());
    let out = run(&kubeconfig, home.path(), own_delete).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--kube-namespace"), "{}", text(&out));
    let out = run(
        &kubeconfig,
        home.path(),
        agent_flags(&["runtime", "upgrade"], Some(&a_ns)),
    )
    .await;
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(text(&out).contains("is not attached"), "{}", text(&out));
    let out = run(
        &kubeconfig,
        home.path(),
        agent_flags(&["runtime", "delete"], Some(&b_ns)),
    )
    .await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--yes"), "{}", text(&out));

    // --keep-platform: detached and removed, its runtime environment stays.
    let mut delete_b = agent_flags(&["runtime", "delete"], Some(&b_ns));
    delete_b.extend(args(&["--yes", "--keep-platform"]));
    let out = run(&kubeconfig, home.path(), delete_b).await;
    assert!(
        out.status.success(),
        "runtime delete --keep-platform: {}",
        text(&out)
    );
    assert_eq!(labelled_in(&client, &b_ns).await, Vec::<String>::new());
    assert!(
        fake.runtimes().contains_key(&rb),
        "--keep-platform removed the runtime environment"
    );
    assert!(!agent_runtimes(&fake).contains(&rb));

    // 3. Deleting the agent refuses while a runtime is attached (exit 3,
    // naming it and the flag), and deletes nothing.
    let mark = cp.audit_events().unwrap().len();
    let mut delete_agent = args(&["delete", "--yes", "--kube-namespace", &agent_ns]);
    delete_agent.extend(args(&["--kube-context-name", CONTEXT, "--timeout=90s"]));
    let delete_agent = with_platform(delete_agent);
    let out = run(&kubeconfig, home.path(), delete_agent.clone()).await;
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(text(&out).contains(&rf), "{}", text(&out));
    assert!(text(&out).contains("--all-runtimes"), "{}", text(&out));
    assert_eq!(writes_since(cp, mark, &[&agent_ns]), Vec::<String>::new());
    assert!(!fake.agents().is_empty());

    // --all-runtimes with two runtimes attached (life-b again, life-far in
    // the second cluster). The agent is deleted next, so it is never
    // rolled for them: its Deployment and runtimes file are not written,
    // only deleted at the end. A run that fails half-way (the platform
    // refuses to delete a runtime environment) leaves the agent and its
    // runtimes file as they were, and a re-run finishes what is left.
    let out = run(
        &kubeconfig,
        home.path(),
        agent_flags(
            &["runtime", "attach", "--allow-builds-to-read-tokens"],
            Some(&b_ns),
        ),
    )
    .await;
    assert!(out.status.success(), "attach again: {}", text(&out));
    assert_eq!(runtime_files(&client, &agent_ns).await.len(), 3);
    let (mark, mark2) = (
        cp.audit_events().unwrap().len(),
        cp2.audit_events().unwrap().len(),
    );
    let mut all_runtimes = delete_agent;
    all_runtimes.push("--all-runtimes".into());
    let refused = "DELETE /api/runtime-environments/";
    fake.fail(refused, 500, 4);
    let out = run(&kubeconfig, home.path(), all_runtimes.clone()).await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(fake.faults_left(refused), 0, "{}", text(&out));
    assert!(
        text(&out).contains("re-run the same `cf-runner delete --all-runtimes`")
            && text(&out).contains("with the same flags: what is already gone is skipped"),
        "{}",
        text(&out)
    );
    assert!(deployments.get_opt("runner").await.unwrap().is_some());
    assert_eq!(
        runtime_files(&client, &agent_ns).await.len(),
        3,
        "the failed run dropped the file of a runtime that is not fully deleted"
    );
    let out = run(&kubeconfig, home.path(), all_runtimes.clone()).await;
    assert!(
        out.status.success(),
        "delete --all-runtimes re-run: {}",
        text(&out)
    );
    assert!(text(&out).contains("is not rolled"), "{}", text(&out));
    let agent_written: Vec<String> = writes_since(cp, mark, &[&agent_ns])
        .into_iter()
        .filter(|w| w.contains("/deployments/runner") || w.contains("/secrets/runnerconf"))
        .collect();
    eprintln!("delete --all-runtimes, both runs: the agent's Deployment and runtimes file: {agent_written:#?}");
    assert!(
        agent_written.iter().all(|w| w.starts_with("\"delete\"")),
        "delete --all-runtimes rolled the agent it deletes: {agent_written:?}"
    );
    assert_eq!(labelled_in(&client, &b_ns).await, Vec::<String>::new());
    assert_eq!(labelled_in(&client2, &far).await, Vec::<String>::new());
    assert!(!writes_since(&cp2, mark2, &[&far]).is_empty());
    for name in [&rb, &rf, &own] {
        assert!(
            !fake.runtimes().contains_key(name),
            "runtime environment {name} stayed on the platform"
        );
    }
    assert!(fake.agents().is_empty(), "{:?}", fake.agents());
    assert!(deployments.get_opt("runner").await.unwrap().is_none());
    // A further re-run finds nothing left and writes nothing.
    let (mark, mark2) = (
        cp.audit_events().unwrap().len(),
        cp2.audit_events().unwrap().len(),
    );
    let out = run(&kubeconfig, home.path(), all_runtimes).await;
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("nothing to delete"), "{}", text(&out));
    assert_eq!(
        writes_since(cp, mark, &[&agent_ns, &b_ns]),
        Vec::<String>::new()
    );
    assert_eq!(writes_since(&cp2, mark2, &[&far]), Vec::<String>::new());
}
