//! The real agent (venona 2.0.10, run by `support::venona` as its pod
//! would run) serving the runtimes `cf-runner runtime attach` gave it: two
//! runtimes in two more namespaces of its cluster and one in a second
//! control plane. Each build pod appears in its runtime's namespace, created
//! (the API server's audit log says) as that namespace's own
//! `cf-runner-agent` ServiceAccount: the Role attach wrote is enough, and no
//! wider right was used. After `runtime detach` of one, and `runtime
//! delete` of another, the agent's new pod still serves the rest.

mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kube::api::Api;
use serde_json::Value;
use support::cli::{self, isolated, text};
use support::controlplane::{self, poll_until, ControlPlane};
use support::fake_platform::{BuildPod, FakePlatform};
use support::venona::{requests_by, Agent};

const USER_TOKEN: &str = "user-api-key.attach-0123456789abcdef";
const CONTEXT: &str = "admin@cf-runner-test";
const SECOND: &str = "admin2@second-cp";
const WAIT: Duration = Duration::from_secs(60);

/// A kubeconfig holding the shared control plane ([`CONTEXT`]) and a second one ([`SECOND`]).
fn merged_kubeconfig(first: &ControlPlane, second: &ControlPlane, dir: &Path) -> PathBuf {
    let read = |p: &Path| std::fs::read_to_string(p).unwrap();
    let other = read(second.admin_kubeconfig())
        .replace("cf-runner-test", "second-cp")
        .replace("- name: admin\n", "- name: admin2\n")
        .replace("user: admin\n", "user: admin2\n")
        .replace("admin@second-cp", SECOND);
    let mut a: Value = serde_yaml_ng::from_str(&read(first.admin_kubeconfig())).unwrap();
    let b: Value = serde_yaml_ng::from_str(&other).unwrap();
    for list in ["clusters", "users", "contexts"] {
        let extra = b[list].as_array().unwrap().clone();
        a[list].as_array_mut().unwrap().extend(extra);
    }
    let path = dir.join("kubeconfig");
    std::fs::write(&path, serde_yaml_ng::to_string(&a).unwrap()).unwrap();
    path
}

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
