//! The real agent (venona 2.0.10, run by `support::venona` as its pod
//! would run) serving the runtimes `cf-runner runtime attach` gave it: two
//! runtimes in two more namespaces of its cluster and one in a second
//! control plane. Each build pod appears in its runtime's namespace, created
//! (the API server's audit log says) as that namespace's own
//! `cf-runner-agent` ServiceAccount: the Role attach wrote is enough, and no
//! wider right was used. After `runtime detach` of one, and `runtime
//! delete` of another, the agent's new pod still serves the rest.

use crate::attached_runtimes::{merged_kubeconfig, SECOND};
use crate::support;

use std::path::Path;
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kube::api::Api;
use serde_json::Value;
use support::cli::{self, isolated, text};
use support::controlplane::{self, poll_until, ControlPlane};
use support::fake_platform::{BuildPod, FakePlatform};
use support::objects::labelled_in;
use support::venona::{requests_by, Agent};

const USER_TOKEN: &str = "user-api-key.attach-0123456789abcdef";
const CONTEXT: &str = "admin@cf-runner-test";
const WAIT: Duration = Duration::from_secs(60);

async fn cf_runner(kubeconfig: &Path, home: &Path, args: Vec<String>) {
    let (k, h) = (kubeconfig.to_path_buf(), home.to_path_buf());
    let out = tokio::task::spawn_blocking(move || isolated(&k, &h).args(&args).output().unwrap())
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
}

/// The status the agent reported for `task`, once it has.
async fn reported(fake: &FakePlatform, task: &Value) -> Value {
    let id = task["_id"].as_str().unwrap().to_string();
    let mut found = Value::Null;
    poll_until(&format!("the agent's status of task {id}"), WAIT, || {
        if let Some((_, _, s)) = fake.task_statuses().iter().find(|(_, t, _)| *t == id) {
            found = s.clone();
        }
        let done = !found.is_null();
        async move { Ok(done) }
    })
    .await
    .unwrap();
    found
}

/// Hands the agent a build's engine pod for `runtime` and checks that it
/// was created in `ns` of `cp`, by `ns`'s own `cf-runner-agent`, and that
/// this user's every request there succeeded.
async fn build_runs(
    fake: &FakePlatform,
    agent: &Agent,
    agent_name: &str,
    cp: &ControlPlane,
    runtime: &str,
    ns: &str,
    workflow: &str,
) {
    let task = fake.create_pod_task(runtime, BuildPod::Engine, workflow);
    fake.queue_task(agent_name, task.clone());
    let status = reported(fake, &task).await;
    assert_eq!(
        status["status"],
        "Success",
        "{runtime}: {status}\n--- agent log:\n{}",
        agent.log()
    );
    let name = format!("engine-{workflow}");
    let pods: Api<Pod> = Api::namespaced(cp.client(), ns);
    assert!(
        pods.get_opt(&name).await.unwrap().is_some(),
        "pod {ns}/{name}"
    );
    let user = format!("system:serviceaccount:{ns}:cf-runner-agent");
    let by_user = requests_by(cp, &user);
    let created: Vec<i64> = by_user
        .iter()
        .filter(|e| e["verb"] == "create" && e["objectRef"]["name"] == name.as_str())
        .filter(|e| e["objectRef"]["namespace"] == ns)
        .map(|e| e["responseStatus"]["code"].as_i64().unwrap_or_default())
        .collect();
    assert_eq!(created, vec![201], "the create of {ns}/{name} by {user}");
    let refused: Vec<&Value> = by_user
        .iter()
        .filter(|e| e["responseStatus"]["code"].as_i64().unwrap_or_default() >= 400)
        .collect();
    assert!(refused.is_empty(), "{user} was refused: {refused:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn the_real_agent_serves_attached_runtimes_with_their_own_credentials() {
    controlplane::ensure_crypto_provider();
    let cp = controlplane::shared();
    let cp2 = tokio::task::spawn_blocking(ControlPlane::start)
        .await
        .unwrap()
        .expect("a second control plane starts");
    let home = tempfile::tempdir().unwrap();
    let kubeconfig = merged_kubeconfig(cp, &cp2, home.path());
    let fake = FakePlatform::start(USER_TOKEN);
    let agent_ns = cp.create_namespace("venona-agent").await.unwrap();
    let b1 = cp.create_namespace("venona-b1").await.unwrap();
    let b2 = cp.create_namespace("venona-b2").await.unwrap();
    let far = cp2.create_namespace("venona-far").await.unwrap();

    let (k, h, ns, u) = (
        kubeconfig.clone(),
        home.path().to_path_buf(),
        agent_ns.clone(),
        fake.url(),
    );
    let out = tokio::task::spawn_blocking(move || {
        cli::init(&k, &h, "local", &ns, CONTEXT)
            .args(["--url", &u, "--token", USER_TOKEN])
            .args(["--skip-cluster-integration", "--timeout", "90s"])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let agent_name = format!("{CONTEXT}_{agent_ns}");
    let own = format!("{CONTEXT}/{agent_ns}");
    let (r1, r2, r3) = (
        format!("{CONTEXT}/{b1}"),
        format!("{CONTEXT}/{b2}"),
        format!("{SECOND}/{far}"),
    );
    fake.add_runtime_like(&r1, CONTEXT, &b1, &own);
    fake.add_runtime_like(&r2, CONTEXT, &b2, &own);
    fake.add_runtime_like(&r3, SECOND, &far, &own);

    // The agent runs as a process here, not in a pod: it reaches its own
    // cluster's API server at the kubeconfig's address (KubeHost).
    let file = home.path().join("runtimes.yaml");
    std::fs::write(
        &file,
        format!(
            "Runtimes:\n  - Namespace: {b1}\n    KubeHost: {s}\n  - Namespace: {b2}\n    KubeHost: {s}\n  - Namespace: {far}\n    Context: {SECOND}\n",
            s = cp.server()
        ),
    )
    .unwrap();
    let base = |verb: &str| -> Vec<String> {
        [
            "runtime",
            verb,
            "--agent-namespace",
            &agent_ns,
            "--agent-context",
            CONTEXT,
            "--token",
            USER_TOKEN,
            "--url",
            &fake.url(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let mut attach = base("attach");
    attach.extend(["-f".to_string(), file.display().to_string()]);
    attach.push("--allow-builds-to-read-tokens".to_string());
    cf_runner(&kubeconfig, home.path(), attach).await;

    let mut agent = Agent::start(cp, &agent_ns, "runner").await.unwrap();
    assert_eq!(agent.env("CODEFRESH_IN_CLUSTER_RUNTIME"), None);
    assert!(agent.env("VENONA_CONFIG_DIR").is_some());
    build_runs(&fake, &agent, &agent_name, cp, &r1, &b1, "wf-b1-1").await;
    build_runs(&fake, &agent, &agent_name, cp, &r2, &b2, "wf-b2-1").await;
    build_runs(&fake, &agent, &agent_name, &cp2, &r3, &far, "wf-far-1").await;
    agent.stop();

    // Detach b1; the agent's new pod (the rollout's) still serves b2 and far.
    let mut detach = base("detach");
    detach.extend(["--kube-namespace".to_string(), b1.clone()]);
    cf_runner(&kubeconfig, home.path(), detach).await;
    let mut agent = Agent::start(cp, &agent_ns, "runner").await.unwrap();
    build_runs(&fake, &agent, &agent_name, cp, &r2, &b2, "wf-b2-2").await;
    build_runs(&fake, &agent, &agent_name, &cp2, &r3, &far, "wf-far-2").await;
    let conf = std::fs::read_dir(agent.mount("/etc/secrets").unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".runtime.yaml"))
        .count();
    assert_eq!(
        conf, 3,
        "the agent's files after detach: its own, b2 and far"
    );
    agent.stop();

    // Delete b2 (detached, then its objects and runtime environment gone);
    // the agent's new pod still serves far.
    let mut delete = base("delete");
    delete.extend(["--kube-namespace".to_string(), b2.clone(), "--yes".into()]);
    cf_runner(&kubeconfig, home.path(), delete).await;
    assert!(!fake.runtimes().contains_key(&r2));
    let agent = Agent::start(cp, &agent_ns, "runner").await.unwrap();
    build_runs(&fake, &agent, &agent_name, &cp2, &r3, &far, "wf-far-3").await;
    let conf = std::fs::read_dir(agent.mount("/etc/secrets").unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".runtime.yaml"))
        .count();
    assert_eq!(conf, 2, "the agent's files after delete: its own and far");
}

/// The files of Secret runnerconf in `ns`.
async fn runtime_files_count(cp: &ControlPlane, ns: &str) -> usize {
    use k8s_openapi::api::core::v1::Secret;
    let s = Api::<Secret>::namespaced(cp.client(), ns)
        .get("runnerconf")
        .await
        .unwrap();
    s.data.unwrap_or_default().len()
}

/// The platform's runtimes of agent `name`, sorted.
fn agent_runtimes(fake: &FakePlatform, name: &str) -> Vec<String> {
    let agents = fake.agents();
    let agent = agents
        .iter()
        .find(|a| a["name"] == name)
        .unwrap_or_else(|| panic!("no agent {name} in {agents:#?}"));
    let mut list: Vec<String> = agent["runtimes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    list.sort();
    list
}

async fn run_out(kubeconfig: &Path, home: &Path, args: Vec<String>) -> std::process::Output {
    let (k, h) = (kubeconfig.to_path_buf(), home.to_path_buf());
    tokio::task::spawn_blocking(move || isolated(&k, &h).args(&args).output().unwrap())
        .await
        .unwrap()
}

/// An agent installed alone (`init --agent-only`) in a namespace of its
/// own: no runtime there, an agent on the platform with no runtime, and
/// the real agent running in config-dir mode with no file, polling. Then a
/// runtime in another namespace is attached, and the agent builds there as
/// that namespace's `cf-runner-agent`; re-runs write nothing; `info` sees
/// the runtime's credentials work; the agent is never without a ready
/// replica; `delete` refuses while the runtime is attached, and after
/// detach and `runtime delete` it leaves nothing cf-runner wrote.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn an_agent_installed_alone_serves_the_runtime_attached_to_it() {
    use support::audit::cf_runner_writes;
    use support::rollout::ReadyWatch;
    controlplane::ensure_crypto_provider();
    let started = std::time::Instant::now();
    let cp = controlplane::shared();
    let home = tempfile::tempdir().unwrap();
    let kubeconfig = cp.admin_kubeconfig().to_path_buf();
    let fake = FakePlatform::start(USER_TOKEN);
    let agent_ns = cp.create_namespace("alone-agent").await.unwrap();
    let builds = cp.create_namespace("alone-builds").await.unwrap();
    let builds_c = cp.create_namespace("alone-builds-c").await.unwrap();
    let runtime_c = format!("{CONTEXT}/{builds_c}");
    let agent_name = format!("{CONTEXT}_{agent_ns}");
    let runtime = format!("{CONTEXT}/{builds}");
    let url = fake.url();
    let mut printed = String::new();
    let platform: Vec<String> = ["--token", USER_TOKEN, "--url", &url]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let strings = |list: &[&str]| -> Vec<String> { list.iter().map(|s| s.to_string()).collect() };
    let platform_writes = |fake: &FakePlatform| -> Vec<String> {
        fake.calls()
            .into_iter()
            .filter(|c| !c.starts_with("GET "))
            .collect()
    };

    // The agent alone.
    let mut init = strings(&[
        "init",
        "--yes",
        "--agent-only",
        "--kube-namespace",
        &agent_ns,
        "--kube-context-name",
        CONTEXT,
        "--skip-cluster-integration",
        "--timeout",
        "90s",
    ]);
    init.extend(platform.clone());
    let mark = cp.audit_events().unwrap().len();
    let t = std::time::Instant::now();
    let out = run_out(&kubeconfig, home.path(), init.clone()).await;
    let init_time = t.elapsed();
    printed.push_str(&text(&out));
    assert!(out.status.success(), "init --agent-only: {}", text(&out));
    let init_writes = cf_runner_writes(cp, mark, &[&agent_ns]);
    eprintln!(
        "init --agent-only: {} writes in {init_time:?}: {init_writes:#?}",
        init_writes.len()
    );
    assert!(text(&out).contains("runs alone"), "{}", text(&out));
    assert_eq!(
        labelled_in(&cp.client(), &agent_ns).await,
        strings(&[
            "Deployment/runner",
            "Role/runner",
            "RoleBinding/runner",
            "Secret/cf-runner-values",
            "Secret/runner",
            "Secret/runnerconf",
            "ServiceAccount/runner",
        ]),
        "the agent's objects only: no runtime's"
    );
    assert_eq!(agent_runtimes(&fake, &agent_name), Vec::<String>::new());
    assert!(fake.runtimes().is_empty(), "{:#?}", fake.runtimes());
    let agent_token = {
        use k8s_openapi::api::core::v1::Secret;
        let s = Api::<Secret>::namespaced(cp.client(), &agent_ns)
            .get("runner")
            .await
            .unwrap();
        String::from_utf8(s.data.unwrap()["codefresh.token"].0.clone()).unwrap()
    };
    assert!(fake.token_is_of(&agent_token, &agent_name));
    assert!(
        !platform_writes(&fake)
            .iter()
            .any(|c| c.starts_with("PUT /api/agent/")),
        "{:?}",
        fake.calls()
    );

    // A re-run writes nothing, in the cluster or on the platform.
    fake.clear_requests();
    let mark = cp.audit_events().unwrap().len();
    let out = run_out(&kubeconfig, home.path(), init.clone()).await;
    printed.push_str(&text(&out));
    assert!(out.status.success(), "init re-run: {}", text(&out));
    let rerun = cf_runner_writes(cp, mark, &[&agent_ns]);
    eprintln!("init --agent-only re-run: {} writes", rerun.len());
    assert_eq!(rerun, Vec::<String>::new());
    assert_eq!(platform_writes(&fake), Vec::<String>::new());

    // No runtime, no replica: venona exits at start without one.
    let replicas = || async {
        use k8s_openapi::api::apps::v1::Deployment;
        let d = Api::<Deployment>::namespaced(cp.client(), &agent_ns)
            .get("runner")
            .await
            .unwrap();
        d.spec.unwrap().replicas
    };
    assert_eq!(replicas().await, Some(0));

    // Attach a runtime in another namespace (registered by attach).
    let base = |verb: &str| -> Vec<String> {
        let mut a = strings(&[
            "runtime",
            verb,
            "--agent-namespace",
            &agent_ns,
            "--agent-context",
            CONTEXT,
        ]);
        a.extend(platform.clone());
        a
    };
    let mut attach = base("attach");
    // The agent runs as a process here: it reaches the API server at the kubeconfig's address.
    attach.extend(strings(&[
        "--kube-namespace",
        &builds,
        "--kube-host",
        cp.server(),
    ]));
    let mark = cp.audit_events().unwrap().len();
    let watch = ReadyWatch::start(cp.client(), &agent_ns);
    let t = std::time::Instant::now();
    let out = run_out(&kubeconfig, home.path(), attach.clone()).await;
    let attach_time = t.elapsed();
    printed.push_str(&text(&out));
    assert!(out.status.success(), "attach: {}", text(&out));
    let fewest = watch.fewest().await;
    let attach_writes = cf_runner_writes(cp, mark, &[&agent_ns, &builds]);
    eprintln!(
        "attach: {} writes in {attach_time:?}, fewest ready agent replicas {fewest} (from none): {attach_writes:#?}",
        attach_writes.len()
    );
    // The first runtime starts the agent (from no replica, by design).
    assert_eq!(replicas().await, Some(1));
    assert!(
        text(&out).contains("starts with its first runtime"),
        "{}",
        text(&out)
    );
    assert_eq!(agent_runtimes(&fake, &agent_name), vec![runtime.clone()]);
    assert!(fake.runtimes().contains_key(&runtime));
    // The runtime's own objects in its namespace, though the agent's
    // namespace has none.
    let in_builds = labelled_in(&cp.client(), &builds).await;
    for o in [
        "ServiceAccount/codefresh-engine",
        "Secret/codefresh-certs-server",
        "ConfigMap/codefresh-dind-config",
        "Service/dind",
        "ServiceAccount/cf-runner-agent",
    ] {
        assert!(
            in_builds.contains(&o.to_string()),
            "{o} not in {in_builds:?}"
        );
    }

    fake.clear_requests();
    let mark = cp.audit_events().unwrap().len();
    let out = run_out(&kubeconfig, home.path(), attach.clone()).await;
    printed.push_str(&text(&out));
    assert!(out.status.success(), "attach re-run: {}", text(&out));
    let rerun = cf_runner_writes(cp, mark, &[&agent_ns, &builds]);
    eprintln!("attach re-run: {} writes", rerun.len());
    assert_eq!(rerun, Vec::<String>::new());
    assert_eq!(platform_writes(&fake), Vec::<String>::new());
    // And init again: the agent keeps its runtime's file.
    let mark = cp.audit_events().unwrap().len();
    let out = run_out(&kubeconfig, home.path(), init.clone()).await;
    printed.push_str(&text(&out));
    assert!(out.status.success(), "init after attach: {}", text(&out));
    assert_eq!(
        cf_runner_writes(cp, mark, &[&agent_ns, &builds]),
        Vec::<String>::new()
    );

    // The real agent builds in the runtime's namespace, as its cf-runner-agent.
    let agent = Agent::start(cp, &agent_ns, "runner").await.unwrap();
    let files = std::fs::read_dir(agent.mount("/etc/secrets").unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".runtime.yaml"))
        .count();
    assert_eq!(files, 1, "the agent's files: the attached runtime's only");
    build_runs(
        &fake,
        &agent,
        &agent_name,
        cp,
        &runtime,
        &builds,
        "wf-alone-1",
    )
    .await;
    drop(agent);

    // A second runtime: the serving agent keeps a ready replica throughout.
    let mut attach_c = base("attach");
    attach_c.extend(strings(&[
        "--kube-namespace",
        &builds_c,
        "--kube-host",
        cp.server(),
    ]));
    let mark = cp.audit_events().unwrap().len();
    let watch = ReadyWatch::start(cp.client(), &agent_ns);
    let out = run_out(&kubeconfig, home.path(), attach_c).await;
    printed.push_str(&text(&out));
    assert!(out.status.success(), "attach c: {}", text(&out));
    let fewest_c = watch.fewest().await;
    let writes_c = cf_runner_writes(cp, mark, &[&agent_ns, &builds_c]);
    eprintln!(
        "second attach: {} writes, fewest ready agent replicas {fewest_c}",
        writes_c.len()
    );
    assert!(fewest_c >= 1, "{fewest_c} ready during the second attach");
    assert_eq!(
        agent_runtimes(&fake, &agent_name),
        vec![runtime.clone(), runtime_c.clone()]
    );
    let agent = Agent::start(cp, &agent_ns, "runner").await.unwrap();
    build_runs(
        &fake,
        &agent,
        &agent_name,
        cp,
        &runtime_c,
        &builds_c,
        "wf-alone-c",
    )
    .await;
    build_runs(
        &fake,
        &agent,
        &agent_name,
        cp,
        &runtime,
        &builds,
        "wf-alone-2",
    )
    .await;
    drop(agent);

    // info: the agent, and the runtime with working credentials.
    let mut info = strings(&["info", "-o", "json", "--kube-namespace", &agent_ns]);
    info.extend(platform.clone());
    let out = run_out(&kubeconfig, home.path(), info).await;
    printed.push_str(&text(&out));
    assert!(out.status.success(), "info: {}", text(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let inst = &report["installations"][0];
    assert_eq!(inst["agentName"], agent_name.as_str(), "{inst:#}");
    assert!(inst["runtimeName"].is_null(), "{inst:#}");
    let runtimes = inst["runtimes"]
        .as_array()
        .unwrap_or_else(|| panic!("{inst:#}"));
    assert_eq!(runtimes.len(), 2, "{runtimes:#?}");
    for r in runtimes {
        assert!(
            r["name"] == runtime.as_str() || r["name"] == runtime_c.as_str(),
            "{r:#}"
        );
        assert_eq!(r["works"], true, "{r:#}");
        assert_eq!(r["onPlatform"], true, "{r:#}");
    }
    let notes = inst["notes"].to_string();
    assert!(!notes.contains("StorageClass"), "{notes}");

    // `upgrade` of the agent and `runtime upgrade` of one runtime: nothing
    // changed, nothing written, no runtime spec of the agent's to send.
    fake.clear_requests();
    let mark = cp.audit_events().unwrap().len();
    let mut upgrade = strings(&["upgrade", "--yes", "--kube-namespace", &agent_ns]);
    upgrade.extend(platform.clone());
    let out = run_out(&kubeconfig, home.path(), upgrade).await;
    printed.push_str(&text(&out));
    assert!(out.status.success(), "upgrade: {}", text(&out));
    let mut rupgrade = base("upgrade");
    rupgrade.extend(strings(&["--kube-namespace", &builds]));
    let out = run_out(&kubeconfig, home.path(), rupgrade).await;
    printed.push_str(&text(&out));
    assert!(out.status.success(), "runtime upgrade: {}", text(&out));
    // The record included: init recorded what upgrade records.
    let written = cf_runner_writes(cp, mark, &[&agent_ns, &builds, &builds_c]);
    assert_eq!(written, Vec::<String>::new());
    assert_eq!(platform_writes(&fake), Vec::<String>::new());

    // `check` of the agent's namespace, as an agent alone: each runtime's
    // token may create pods in its namespace.
    let out = run_out(
        &kubeconfig,
        home.path(),
        strings(&[
            "check",
            "-o",
            "json",
            "--kube-namespace",
            &agent_ns,
            "--set-value",
            "AgentOnly=true",
        ]),
    )
    .await;
    printed.push_str(&text(&out));
    let report: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    let creds = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "the agent's runtime credentials")
        .unwrap_or_else(|| panic!("{report:#}"))
        .clone();
    assert_eq!(creds["status"], "pass", "{creds:#}");
    assert!(
        creds["reason"]
            .as_str()
            .unwrap()
            .contains("each of the 2 runtime(s)"),
        "{creds:#}"
    );

    // No dind certificate to renew in the agent's namespace: refused
    // before the platform signs anything.
    fake.clear_requests();
    let mut renew = strings(&["renew", "certificate", "--kube-namespace", &agent_ns]);
    renew.extend(platform.clone());
    let out = run_out(&kubeconfig, home.path(), renew).await;
    printed.push_str(&text(&out));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("installed alone"), "{}", text(&out));
    assert_eq!(platform_writes(&fake), Vec::<String>::new());

    // `runtime rotate` of C: the agent keeps a ready replica.
    let rotate = strings(&[
        "runtime",
        "rotate",
        "--agent-namespace",
        &agent_ns,
        "--agent-context",
        CONTEXT,
        "--kube-namespace",
        &builds_c,
    ]);
    let watch = ReadyWatch::start(cp.client(), &agent_ns);
    let out = run_out(&kubeconfig, home.path(), rotate).await;
    printed.push_str(&text(&out));
    assert!(out.status.success(), "rotate: {}", text(&out));
    let fewest_rotate = watch.fewest().await;
    eprintln!("rotate: fewest ready agent replicas {fewest_rotate}");
    assert!(fewest_rotate >= 1, "{fewest_rotate} ready during rotate");

    // delete of the agent refuses while the runtime is attached.
    let mut delete = strings(&["delete", "--kube-namespace", &agent_ns, "--yes"]);
    delete.extend(platform.clone());
    let out = run_out(&kubeconfig, home.path(), delete.clone()).await;
    printed.push_str(&text(&out));
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(text(&out).contains(&runtime), "{}", text(&out));

    // Detach C: the agent keeps a ready replica and serves B.
    let mut detach = base("detach");
    detach.extend(strings(&["--kube-namespace", &builds_c]));
    let watch = ReadyWatch::start(cp.client(), &agent_ns);
    let out = run_out(&kubeconfig, home.path(), detach).await;
    printed.push_str(&text(&out));
    assert!(out.status.success(), "detach: {}", text(&out));
    let fewest_detach = watch.fewest().await;
    eprintln!("detach: fewest ready agent replicas {fewest_detach}");
    assert!(fewest_detach >= 1, "{fewest_detach} ready during detach");
    assert_eq!(agent_runtimes(&fake, &agent_name), vec![runtime.clone()]);
    let agent = Agent::start(cp, &agent_ns, "runner").await.unwrap();
    build_runs(
        &fake,
        &agent,
        &agent_name,
        cp,
        &runtime,
        &builds,
        "wf-alone-3",
    )
    .await;
    drop(agent);
    let mut rdelete_c = base("delete");
    rdelete_c.extend(strings(&["--kube-namespace", &builds_c, "--yes"]));
    let out = run_out(&kubeconfig, home.path(), rdelete_c).await;
    printed.push_str(&text(&out));
    assert!(out.status.success(), "runtime delete c: {}", text(&out));

    // runtime delete (its objects and its runtime environment), then the agent.
    let mut rdelete = base("delete");
    rdelete.extend(strings(&["--kube-namespace", &builds, "--yes"]));
    let out = run_out(&kubeconfig, home.path(), rdelete).await;
    printed.push_str(&text(&out));
    assert!(out.status.success(), "runtime delete: {}", text(&out));
    assert!(!fake.runtimes().contains_key(&runtime));
    // The last runtime gone: an agent with none, and no replica.
    assert_eq!(agent_runtimes(&fake, &agent_name), Vec::<String>::new());
    assert_eq!(replicas().await, Some(0));
    assert_eq!(
        runtime_files_count(cp, &agent_ns).await,
        0,
        "runnerconf's files"
    );
    let out = run_out(&kubeconfig, home.path(), delete).await;
    printed.push_str(&text(&out));
    assert!(out.status.success(), "delete: {}", text(&out));
    // Its plan names the agent alone: it has no runtime environment.
    assert!(
        text(&out).contains(&format!("on the Codefresh platform: agent {agent_name} ")),
        "{}",
        text(&out)
    );
    assert_eq!(
        labelled_in(&cp.client(), &agent_ns).await,
        Vec::<String>::new()
    );
    assert_eq!(
        labelled_in(&cp.client(), &builds).await,
        Vec::<String>::new()
    );
    assert_eq!(
        labelled_in(&cp.client(), &builds_c).await,
        Vec::<String>::new()
    );
    assert!(
        !fake
            .agents()
            .iter()
            .any(|a| a["name"] == agent_name.as_str()),
        "{:#?}",
        fake.agents()
    );
    assert!(!printed.contains(USER_TOKEN), "the API token was printed");
    assert!(
        !printed.contains(&agent_token),
        "the agent token was printed"
    );
    eprintln!("the agent-only test took {:?}", started.elapsed());
}
