//! The real agent (venona 2.0.10) on what `cf-runner init` installed, with
//! one runtime in the agent's namespace (in-cluster mode): the agent polls
//! the fake platform with the agent token, creates and deletes a build's
//! pods and dind claim in the runtime namespace, and the API server's audit
//! log shows it did so as the runner's service account, with no request
//! denied and nothing outside that namespace. A task for another namespace
//! is refused by RBAC. See tests/support/venona.rs for how the agent runs.

use crate::support;

use std::time::Duration;

use k8s_openapi::api::core::v1::{PersistentVolumeClaim, Pod};
use kube::api::Api;
use serde_json::{json, Value};
use support::cli;
use support::controlplane::{self, poll_until};
use support::fake_platform::{BuildPod, FakePlatform, Recorded};
use support::namespace::unique;
use support::venona::{describe, requests_by, Agent};

const USER_TOKEN: &str = "user-api-key.0123456789abcdef";
const CONTEXT: &str = "admin@cf-runner-test";
const WAIT: Duration = Duration::from_secs(60);

fn agent_calls(fake: &FakePlatform, agent: &str) -> Vec<Recorded> {
    let prefix = format!("/api/agent/{agent}/");
    fake.requests()
        .into_iter()
        .filter(|r| {
            let path = r.path.split('?').next().unwrap_or_default();
            path.replace("%40", "@").starts_with(&prefix)
        })
        .collect()
}

/// The status the agent reported for `task`, once it has.
async fn reported(fake: &FakePlatform, task: &Value) -> Value {
    let id = task["_id"].as_str().unwrap().to_string();
    let mut found = Value::Null;
    poll_until(&format!("the agent's status of task {id}"), WAIT, || {
        let statuses = fake.task_statuses();
        if let Some((_, _, status)) = statuses.iter().find(|(_, t, _)| *t == id) {
            found = status.clone();
        }
        let done = !found.is_null();
        async move { Ok(done) }
    })
    .await
    .unwrap();
    found
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn the_real_agent_runs_a_build_with_the_runner_rights_only() {
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let ns = unique("cfagent");
    let home = tempfile::tempdir().unwrap();
    let out = cli::init(cp.admin_kubeconfig(), home.path(), "local", &ns, CONTEXT)
        .args(["--url", &fake.url(), "--token", USER_TOKEN])
        .args(["--skip-cluster-integration", "--timeout", "90s"])
        .env("CF_RUNNER_RETRY_BASE_MS", "20")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", cli::text(&out));
    let agent_name = format!("{CONTEXT}_{ns}");
    let runtime = format!("{CONTEXT}/{ns}");
    let agent_id = fake
        .agent_id(&agent_name)
        .expect("init registered the agent");

    let mut agent = Agent::start(cp, &ns, "runner").await.unwrap();
    assert_eq!(agent.env("CODEFRESH_HOST"), Some(fake.url().as_str()));
    assert_eq!(agent.env("AGENT_ID"), Some(agent_name.as_str()));
    assert_eq!(
        agent.env("CODEFRESH_IN_CLUSTER_RUNTIME"),
        Some(runtime.as_str())
    );
    assert_eq!(
        agent.username(),
        format!("system:serviceaccount:{ns}:runner")
    );

    // It polls for tasks and reports its status, named by AGENT_ID (the
    // agent's name) and with the agent token init stored, never the user's.
    poll_until("the agent to poll and report its status", WAIT, || {
        let calls = agent_calls(&fake, &agent_name);
        let polled = calls
            .iter()
            .any(|r| r.method == "GET" && r.path.contains("/tasks"));
        let reported = calls
            .iter()
            .any(|r| r.method == "PUT" && r.path.ends_with("/status"));
        async move { Ok(polled && reported) }
    })
    .await
    .unwrap_or_else(|e| panic!("{e:#}\n--- agent log:\n{}", agent.log()));
    for r in agent_calls(&fake, &agent_name) {
        // The agent names itself and the chart version from RUNTIME_CHART_VERSION.
        assert_eq!(
            r.user_agent.as_deref(),
            Some("cf-classic-runner/2.0.10 cf-classic-runtime/10.5.2"),
            "{} {}",
            r.method,
            r.path
        );
        assert!(
            r.authorized && r.agent.as_deref() == Some(agent_id.as_str()),
            "{} {} was not made with the agent's own token (answered {})",
            r.method,
            r.path,
            r.status
        );
    }
    assert_eq!(
        fake.agents()
            .iter()
            .find(|a| a["name"] == agent_name.as_str())
            .map(|a| a["status"]["message"].clone()),
        Some(json!("All good"))
    );

    // What the user sees: `info` shows the agent's own report.
    let info = cli::isolated(cp.admin_kubeconfig(), home.path())
        .args([
            "info",
            "-o",
            "json",
            "--token",
            USER_TOKEN,
            "--url",
            &fake.url(),
        ])
        .args(["--kube-namespace", &ns, "--kube-context-name", CONTEXT])
        .output()
        .unwrap();
    assert!(info.status.success(), "{}", cli::text(&info));
    let info: Value = serde_json::from_slice(&info.stdout).unwrap();
    let platform = info["installations"][0]["platform"]
        .as_str()
        .unwrap_or_default();
    assert!(
        platform.contains(&format!("agent {agent_name}: healthy, last seen")),
        "{platform}"
    );

    // A build: the dind claim, then the engine and dind pods, as the
    // platform hands them out, built from the runtime spec init registered.
    let audit_mark = cp.audit_events().unwrap().len();
    let workflow = "wf-0001";
    let claim = fake.task(
        &runtime,
        "CreatePvc",
        workflow,
        fake.dind_claim(&runtime, workflow),
    );
    let engine = fake.create_pod_task(&runtime, BuildPod::Engine, workflow);
    let dind = fake.create_pod_task(&runtime, BuildPod::Dind, workflow);
    for task in [&claim, &engine, &dind] {
        fake.queue_task(&agent_name, task.clone());
    }
    for task in [&claim, &engine, &dind] {
        let status = reported(&fake, task).await;
        assert_eq!(
            status["status"],
            "Success",
            "task {}: {status}\n--- agent log:\n{}",
            task["type"],
            agent.log()
        );
    }
    let pods: Api<Pod> = Api::namespaced(cp.client(), &ns);
    for name in ["engine-wf-0001", "dind-wf-0001"] {
        poll_until(&format!("pod {ns}/{name} to run"), WAIT, || async {
            let pod = pods.get_opt(name).await?;
            Ok(pod
                .and_then(|p| p.status)
                .and_then(|s| s.phase)
                .is_some_and(|phase| phase == "Running"))
        })
        .await
        .unwrap();
    }
    let claims: Api<PersistentVolumeClaim> = Api::namespaced(cp.client(), &ns);
    assert!(claims.get_opt("dind-wf-0001").await.unwrap().is_some());

    // The build ends: the platform asks for its pods and claim back.
    let gone = |kind: &str, name: &str| {
        fake.task(
            &runtime,
            kind,
            workflow,
            json!({"name": name, "namespace": ns}),
        )
    };
    let deletes = [
        gone("DeletePod", "engine-wf-0001"),
        gone("DeletePod", "dind-wf-0001"),
        gone("DeletePvc", "dind-wf-0001"),
    ];
    for task in &deletes {
        fake.queue_task(&agent_name, task.clone());
    }
    for task in &deletes {
        let status = reported(&fake, task).await;
        assert_eq!(
            status["status"], "Success",
            "task {}: {status}",
            task["type"]
        );
    }

    // The audit log: every one of those writes was made by the runner's
    // service account, in the runtime namespace, and none was refused.
    let user = agent.username();
    let by_agent = requests_by(cp, &user);
    let all = describe(&by_agent);
    eprintln!("requests by {user}:\n{all}");
    let writes: Vec<&Value> = by_agent
        .iter()
        .filter(|e| e["verb"] != "get" && e["verb"] != "list" && e["verb"] != "watch")
        .collect();
    for (verb, resource, name) in [
        ("create", "persistentvolumeclaims", "dind-wf-0001"),
        ("create", "pods", "engine-wf-0001"),
        ("create", "pods", "dind-wf-0001"),
        ("delete", "pods", "engine-wf-0001"),
        ("delete", "pods", "dind-wf-0001"),
        ("delete", "persistentvolumeclaims", "dind-wf-0001"),
    ] {
        let found = writes.iter().any(|e| {
            e["verb"] == verb
                && e["objectRef"]["resource"] == resource
                && e["objectRef"]["namespace"] == ns.as_str()
                && e["objectRef"]["name"] == name
                && e["responseStatus"]["code"]
                    .as_i64()
                    .is_some_and(|c| c < 300)
        });
        assert!(
            found,
            "no successful {verb} of {resource}/{name} by {user}:\n{all}"
        );
    }
    for e in &by_agent {
        assert_eq!(
            e["objectRef"]["namespace"],
            ns.as_str(),
            "{user} made a request outside its namespace:\n{all}"
        );
        let code = e["responseStatus"]["code"].as_i64().unwrap_or_default();
        assert!(code < 400, "{user} was refused a request:\n{all}");
    }
    // Nobody else created the build's pods.
    let creators: Vec<String> = cp
        .audit_events()
        .unwrap()
        .into_iter()
        .skip(audit_mark)
        .filter(|e| e["verb"] == "create" && e["objectRef"]["resource"] == "pods")
        // The scheduler's pods/binding is a create too.
        .filter(|e| e["objectRef"]["subresource"].is_null())
        .filter(|e| e["objectRef"]["namespace"] == ns.as_str())
        .filter(|e| e["stage"] == "ResponseComplete")
        .map(|e| {
            e["user"]["username"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    assert_eq!(creators, vec![user.clone(), user.clone()], "pod creators");

    // No wider rights: a build pod addressed to another namespace is
    // refused by RBAC, and the agent reports the task failed.
    let mut stray = fake.build_pod(&runtime, BuildPod::Engine, "wf-0002");
    stray["metadata"]["namespace"] = json!("default");
    let stray = fake.task(&runtime, "CreatePod", "wf-0002", stray);
    fake.queue_task(&agent_name, stray.clone());
    let status = reported(&fake, &stray).await;
    assert_eq!(status["status"], "Error", "{status}");
    assert!(
        status["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("forbidden"),
        "{status}"
    );
    let refused = requests_by(cp, &user)
        .into_iter()
        .filter(|e| e["objectRef"]["namespace"] == "default")
        .map(|e| e["responseStatus"]["code"].as_i64().unwrap_or_default())
        .collect::<Vec<_>>();
    assert_eq!(refused, vec![403], "the stray create in default");
    agent.stop();

    // The harness in config-dir mode (what an agent with several runtimes
    // runs): a copy of the runner Deployment that reads its runtime from a
    // mounted Secret, `<runtime>.runtime.yaml` with a token of the runner's
    // service account. The agent finds the file in the mounted folder and
    // creates the pod with that token.
    let dir_agent = config_dir_copy(cp, &ns, &runtime).await;
    let agent = Agent::start(cp, &ns, &dir_agent).await.unwrap();
    assert_eq!(agent.env("CODEFRESH_IN_CLUSTER_RUNTIME"), None);
    let conf = agent.mount("/etc/runnerconf").unwrap().to_path_buf();
    assert_eq!(agent.env("VENONA_CONFIG_DIR"), Some(conf.to_str().unwrap()));
    let task = fake.create_pod_task(&runtime, BuildPod::Engine, "wf-0003");
    fake.queue_task(&agent_name, task.clone());
    let status = reported(&fake, &task).await;
    assert_eq!(
        status["status"],
        "Success",
        "{status}\n--- agent log:\n{}",
        agent.log()
    );
    assert!(pods.get_opt("engine-wf-0003").await.unwrap().is_some());
    let creator: Vec<String> = requests_by(cp, &user)
        .into_iter()
        .filter(|e| e["verb"] == "create" && e["objectRef"]["name"] == "engine-wf-0003")
        .map(|e| e["responseStatus"]["code"].to_string())
        .collect();
    assert_eq!(
        creator,
        vec!["201"],
        "the create of engine-wf-0003 by {user}"
    );
}

/// A copy of Deployment `runner` named `runner-config-dir`, in config-dir
/// mode: `VENONA_CONFIG_DIR=/etc/runnerconf`, a mount of Secret
/// `runnerconf-test` holding `runtime` as venonactl wrote it (key: the
/// name with `/`, `@`, `:` as `.`, plus `.runtime.yaml`).
async fn config_dir_copy(cp: &controlplane::ControlPlane, ns: &str, runtime: &str) -> String {
    use k8s_openapi::api::apps::v1::Deployment;
    use k8s_openapi::api::authentication::v1::{TokenRequest, TokenRequestSpec};
    use k8s_openapi::api::core::v1::{Secret, ServiceAccount};
    use kube::api::PostParams;

    let client = cp.client();
    let token = Api::<ServiceAccount>::namespaced(client.clone(), ns)
        .create_token_request(
            "runner",
            &PostParams::default(),
            &TokenRequest {
                spec: Some(TokenRequestSpec {
                    expiration_seconds: Some(3600),
                    ..Default::default()
                }),
                ..Default::default()
            },
        )
        .await
        .unwrap()
        .status
        .and_then(|s| s.token)
        .unwrap();
    let key = format!("{}.runtime.yaml", runtime.replace(['/', '@', ':'], "."));
    let file = serde_yaml_ng::to_string(&json!({
        "type": "runtime",
        "name": runtime,
        "host": cp.server(),
        "token": token,
        "crt": std::fs::read_to_string(cp.ca_file()).unwrap(),
    }))
    .unwrap();
    let secret: Secret = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "runnerconf-test"},
        "stringData": {key: file},
    }))
    .unwrap();
    Api::<Secret>::namespaced(client.clone(), ns)
        .create(&PostParams::default(), &secret)
        .await
        .unwrap();

    let deployments: Api<Deployment> = Api::namespaced(client, ns);
    let mut copy = serde_json::to_value(deployments.get("runner").await.unwrap()).unwrap();
    let name = "runner-config-dir";
    copy["metadata"] = json!({"name": name});
    copy.as_object_mut().unwrap().remove("status");
    copy["spec"]["selector"]["matchLabels"]["app.kubernetes.io/name"] = json!(name);
    let template = &mut copy["spec"]["template"];
    template["metadata"]["labels"]["app.kubernetes.io/name"] = json!(name);
    let container = &mut template["spec"]["containers"][0];
    let env: Vec<Value> = container["env"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["name"] != "CODEFRESH_IN_CLUSTER_RUNTIME")
        .cloned()
        .chain([json!({"name": "VENONA_CONFIG_DIR", "value": "/etc/runnerconf"})])
        .collect();
    container["env"] = json!(env);
    container["volumeMounts"] =
        json!([{"name": "runnerconf", "mountPath": "/etc/runnerconf", "readOnly": true}]);
    template["spec"]["volumes"] =
        json!([{"name": "runnerconf", "secret": {"secretName": "runnerconf-test"}}]);
    deployments
        .create(
            &PostParams::default(),
            &serde_json::from_value(copy).unwrap(),
        )
        .await
        .unwrap();
    name.to_string()
}
