//! `cf-runner adopt` of an agent venonactl installed with several runtimes:
//! the runner in config-dir mode reading Secret `runnerconf` (one
//! `*.runtime.yaml` per runtime, each with the token of the `runner`
//! ServiceAccount venonactl made in that runtime's namespace, from a
//! `runner-token-*` Secret), and in each runtime namespace venonactl's
//! runtime objects. Adopt ends with what `init` + `runtime attach` build:
//! every runtime still served (a runner ready at every look), every
//! runtime's credentials cf-runner's and working, the platform's list
//! unchanged; a re-run writes nothing; `runtime detach`, `runtime attach`
//! and `delete --all-runtimes` work on it, and what cf-runner did not
//! write or take over stays.

use crate::support;

use std::time::Duration;

use base64::Engine;
use serde_json::{json, Value};
use support::adopt::*;
use support::audit::cf_runner_writes;
use support::cli::{isolated, text};
use support::controlplane::{self, ControlPlane};
use support::fake_platform::{BuildPod, FakePlatform};
use support::venona::{requests_by, Agent};

use crate::e2e_adopt::{adopt_watching, move_args};

fn key(name: &str) -> String {
    format!("{}.runtime.yaml", name.replace(['/', '@', ':'], "."))
}

/// venonactl's runtime objects in `ns` (as `install runtime` leaves them)
/// and the agent's access there (as `attach` leaves it: ServiceAccount,
/// Role and RoleBinding `runner`, and the token Secret it made for it).
fn seed_runtime_namespace(cp: &ControlPlane, ns: &str) {
    let objects = vec![
        json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "runner"}}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "runner"},
               "rules": [{"apiGroups": [""], "resources": ["pods", "persistentvolumeclaims"],
                          "verbs": ["get", "create", "delete"]}]}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "runner"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "runner"},
               "subjects": [{"kind": "ServiceAccount", "name": "runner", "namespace": ns}]}),
        json!({"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/service-account-token",
               "metadata": {"name": "runner-token-v7x2q",
                            "annotations": {"kubernetes.io/service-account.name": "runner"}}}),
        json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "codefresh-engine", "labels": {"app": "app-proxy"}}}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "codefresh-engine"},
               "rules": [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}]}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "codefresh-engine"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "codefresh-engine"},
               "subjects": [{"kind": "ServiceAccount", "name": "codefresh-engine", "namespace": ns}]}),
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "codefresh-certs-server", "labels": {"app": "venona"}},
               "stringData": {"ca.pem": "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n",
                              "server-cert.pem": "-----BEGIN CERTIFICATE-----\nSERVER\n-----END CERTIFICATE-----\n",
                              "server-key.pem": format!("-----BEGIN PRIVATE KEY-----\nKEY-OF-{ns}\n-----END PRIVATE KEY-----\n")}}),
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "codefresh-dind-config"},
               "data": {"daemon.json": "{}"}}),
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "dind", "labels": {"app": "dind"}},
               "spec": {"clusterIP": "None", "selector": {"app": "dind"},
                        "ports": [{"name": "dind-port", "port": 1300}]}}),
    ];
    apply(cp, ns, &objects);
}

/// The token Kubernetes filled into Secret `runner-token-v7x2q` of `ns`.
async fn venonactl_token(cp: &ControlPlane, ns: &str) -> (String, String) {
    controlplane::poll_until(
        &format!("the token of runner-token-v7x2q in {ns}"),
        Duration::from_secs(60),
        || async {
            let out = cp
                .kubectl()
                .args(["-n", ns, "get", "secret", "runner-token-v7x2q", "-o"])
                .arg("jsonpath={.data.token}")
                .output()
                .unwrap();
            Ok(!out.stdout.is_empty())
        },
    )
    .await
    .unwrap();
    (
        secret_text(cp, ns, "runner-token-v7x2q", "token"),
        secret_text(cp, ns, "runner-token-v7x2q", "ca.crt"),
    )
}

/// The agent namespace as venonactl leaves it for an agent with runtimes
/// attached: the runner in config-dir mode (its platform at `platform`,
/// its token `agent_token`), its token Secret, and `runnerconf` with one
/// file per runtime (`runtimes`: name, token, CA), whose host is the API
/// server of the kubeconfig venonactl ran with.
struct Seed<'a> {
    platform: &'a str,
    agent_token: &'a str,
    runtimes: &'a [(String, String, String)],
}

fn seed_agent(cp: &ControlPlane, ns: &str, seed: &Seed<'_>) {
    let file = |name: &str, token: &str, ca: &str| {
        serde_yaml_ng::to_string(&json!({"type": "runtime", "name": name,
            "host": cp.server(), "token": token, "crt": ca}))
        .unwrap()
    };
    let runtimes = seed.runtimes;
    let data: serde_json::Map<String, Value> = runtimes
        .iter()
        .map(|(n, t, c)| (key(n), json!(file(n, t, c))))
        .collect();
    let runner = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "runner", "labels": {"app": "runner", "version": "1.10.2"}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "runner"}},
            "template": {
                "metadata": {"labels": {"app": "runner"}},
                "spec": {
                    "containers": [{"name": "runner", "image": "codefresh/venona:1.10.2",
                        "env": [{"name": "AGENT_ID", "value": "venona-agent"},
                                {"name": "CODEFRESH_HOST", "value": seed.platform},
                                {"name": "AGENT_MODE", "value": "InCluster"},
                                {"name": "AGENT_NAME", "value": "runner"},
                                {"name": "VENONA_CONFIG_DIR", "value": "/etc/secrets"},
                                {"name": "CODEFRESH_TOKEN", "valueFrom": {"secretKeyRef": {"name": "runner", "key": "codefresh.token"}}}],
                        "volumeMounts": [{"name": "runnerconf", "mountPath": "/etc/secrets", "readOnly": true}]}],
                    "volumes": [{"name": "runnerconf", "secret": {"secretName": "runnerconf"}}],
                },
            },
        },
    });
    apply(
        cp,
        ns,
        &[
            runner,
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "runner"},
                   "stringData": {"codefresh.token": seed.agent_token}}),
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "runnerconf"},
                   "stringData": data}),
        ],
    );
}

/// `kubectl get <kinds> -o name` in `ns`, without what every namespace has.
fn names_in(cp: &ControlPlane, ns: &str) -> Vec<String> {
    let out = cp
        .kubectl()
        .args([
            "-n",
            ns,
            "get",
            "deployments,secrets,configmaps,services,serviceaccounts,roles,rolebindings",
            "-o",
            "name",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let mut names: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| *l != "serviceaccount/default" && *l != "configmap/kube-root-ca.crt")
        .map(str::to_string)
        .collect();
    names.sort();
    names
}

fn object(cp: &ControlPlane, ns: &str, what: &str) -> Value {
    let out = cp
        .kubectl()
        .args(["-n", ns, "get", what, "-o", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The ServiceAccount a runtime file's token is of (from its claims).
fn token_account(file: &str) -> String {
    let v: Value = serde_yaml_ng::from_str(file).unwrap();
    let part = v["token"].as_str().unwrap().split('.').nth(1).unwrap();
    let claims: Value = serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(part.trim_end_matches('='))
            .unwrap(),
    )
    .unwrap();
    format!(
        "{}:{}",
        claims["kubernetes.io/serviceaccount/namespace"]
            .as_str()
            .unwrap(),
        claims["kubernetes.io/serviceaccount/service-account.name"]
            .as_str()
            .unwrap()
    )
}

/// Hands the real agent a build's engine pod for `runtime` and checks that
/// it was created in `ns` by `ns`'s own `cf-runner-agent`.
async fn build_runs(
    fake: &FakePlatform,
    agent: &Agent,
    cp: &ControlPlane,
    runtime: &str,
    ns: &str,
    workflow: &str,
) {
    let task = fake.create_pod_task(runtime, BuildPod::Engine, workflow);
    fake.queue_task("venona-agent", task.clone());
    let id = task["_id"].as_str().unwrap().to_string();
    let mut status = Value::Null;
    controlplane::poll_until(
        &format!("the agent's status of task {id}"),
        Duration::from_secs(60),
        || {
            if let Some((_, _, s)) = fake.task_statuses().iter().find(|(_, t, _)| *t == id) {
                status = s.clone();
            }
            let done = !status.is_null();
            async move { Ok(done) }
        },
    )
    .await
    .unwrap_or_else(|e| panic!("{e}\n--- agent log:\n{}", agent.log()));
    assert_eq!(status["status"], "Success", "{runtime}: {status}");
    let name = format!("engine-{workflow}");
    let user = format!("system:serviceaccount:{ns}:cf-runner-agent");
    let created: Vec<i64> = requests_by(cp, &user)
        .iter()
        .filter(|e| e["verb"] == "create" && e["objectRef"]["name"] == name.as_str())
        .filter(|e| e["objectRef"]["namespace"] == ns)
        .map(|e| e["responseStatus"]["code"].as_i64().unwrap_or_default())
        .collect();
    assert_eq!(created, vec![201], "the create of {ns}/{name} by {user}");
}

fn platform_runtimes(fake: &FakePlatform) -> Vec<String> {
    let mut list: Vec<String> = fake.agents()[0]["runtimes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap().to_string())
        .collect();
    list.sort();
    list
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn adopt_takes_over_an_agent_with_several_runtimes_and_each_stays_served() {
    let cp = controlplane::shared();
    let ns = cp.create_namespace("adoptvrt").await.unwrap();
    let far = cp.create_namespace("adoptvrt-far").await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let fake = FakePlatform::start(USER_TOKEN);
    // What `codefresh runner init` and `attach` registered.
    let own = format!("venona-cluster/{ns}");
    let far_rt = format!("venona-cluster/{far}");
    let agent = venonactl_registered(&fake, &[(&own, &ns), (&far_rt, &far)]);
    let listed_before = platform_runtimes(&fake);

    // venonactl's objects in both namespaces; in the far one also what is
    // not venonactl's runtime nor its access: a team's ConfigMap and the
    // volume provisioner's ServiceAccount.
    seed_runtime_namespace(cp, &ns);
    seed_runtime_namespace(cp, &far);
    apply(
        cp,
        &far,
        &[
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "team-notes"},
                   "data": {"owner": "builds team"}}),
            json!({"apiVersion": "v1", "kind": "ServiceAccount",
                   "metadata": {"name": "volume-provisioner-runner"}}),
            json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                   "metadata": {"name": format!("dind-local-volumes-runner-{far}")},
                   "provisioner": format!("codefresh.io/dind-volume-provisioner-runner-{far}"),
                   "parameters": {"volumeBackend": "local", "volumeParentDir": "/var/lib/codefresh/dind-volumes"}}),
        ],
    );
    let (own_token, own_ca) = venonactl_token(cp, &ns).await;
    let (far_token, far_ca) = venonactl_token(cp, &far).await;
    // The agent's token is the one the platform handed out, so that the
    // real agent can poll with it after the move.
    let agent_token = agent["token"].as_str().unwrap().to_string();
    seed_agent(
        cp,
        &ns,
        &Seed {
            platform: &fake.url(),
            agent_token: &agent_token,
            runtimes: &[
                (own.clone(), own_token.clone(), own_ca),
                (far_rt.clone(), far_token.clone(), far_ca.clone()),
            ],
        },
    );
    let ready = cp.client();
    controlplane::poll_until("venonactl's runner ready", Duration::from_secs(90), || {
        let api: kube::Api<k8s_openapi::api::apps::v1::Deployment> =
            kube::Api::namespaced(ready.clone(), &ns);
        async move {
            let d = api.get("runner").await?;
            Ok(d.status.and_then(|s| s.ready_replicas).unwrap_or(0) > 0)
        }
    })
    .await
    .unwrap();
    let secrets = [
        agent_token.as_str(),
        USER_TOKEN,
        own_token.as_str(),
        far_token.as_str(),
    ];
    let ca_line = far_ca.lines().nth(1).unwrap().to_string();
    let mut printed = String::new();

    // A dry run: runnerconf is taken over, every runtime named, nothing written.
    let mark = cp.audit_events().unwrap().len();
    let dry = adopt(cp, home.path(), &["--dry-run", "--kube-namespace", &ns]);
    printed.push_str(&text(&dry));
    assert_eq!(dry.status.code(), Some(0), "{}", text(&dry));
    assert!(
        section(&text(&dry), "taken over").contains(&"Secret/runnerconf"),
        "{}",
        text(&dry)
    );
    assert!(text(&dry).contains(&far_rt), "{}", text(&dry));
    assert_eq!(
        cf_runner_writes(cp, mark, &[&ns, &far]),
        Vec::<String>::new()
    );

    // The move, stopped twice, then finished by re-runs; a runner ready at
    // every look of each. First in the middle: venonactl's runner cannot go
    // (a finalizer holds it) and the wait for it times out, when cf-runner's
    // runner serves with cf-runner's tokens and venonactl's access is still
    // there.
    let hold = |on: bool| {
        let patch = if on {
            r#"{"metadata":{"finalizers":["e2e.cf-runner.io/hold"]}}"#
        } else {
            r#"{"metadata":{"finalizers":null}}"#
        };
        let out = cp
            .kubectl()
            .args([
                "-n",
                &ns,
                "patch",
                "deployment",
                "runner",
                "--type=merge",
                "-p",
                patch,
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
    };
    hold(true);
    let args = move_args(&ns, &fake);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let short: Vec<&str> = args
        .iter()
        .map(|a| if *a == "90s" { "20s" } else { *a })
        .collect();
    let mark = cp.audit_events().unwrap().len();
    let (out, lowest, looks) = adopt_watching(cp, home.path(), &ns, &short).await;
    let shown = text(&out);
    printed.push_str(&shown);
    assert_ne!(out.status.code(), Some(0), "{shown}");
    assert!(
        looks > 5 && lowest >= 1,
        "fewest ready runners {lowest}\n{shown}"
    );
    assert!(shown.contains(&far_rt), "{shown}");
    assert!(names_in(cp, &far).contains(&"serviceaccount/runner".to_string()));
    hold(false);
    // Then at its end (the platform refuses the spec once).
    fake.fail("PUT /api/runtime-environments", 400, 1);
    let (out, lowest, _) = adopt_watching(cp, home.path(), &ns, &args).await;
    let shown = text(&out);
    printed.push_str(&shown);
    assert_eq!(out.status.code(), Some(1), "{shown}");
    assert!(shown.contains("did not finish; continuing it"), "{shown}");
    assert!(lowest >= 1, "fewest ready runners {lowest}\n{shown}");
    let (out, lowest, _) = adopt_watching(cp, home.path(), &ns, &args).await;
    let shown = text(&out);
    printed.push_str(&shown);
    assert_eq!(out.status.code(), Some(0), "{shown}");
    assert!(shown.contains("did not finish; continuing it"), "{shown}");
    assert!(lowest >= 1, "fewest ready runners {lowest}\n{shown}");
    eprintln!(
        "adopt of 2 runtimes (three runs): {} writes in {ns}, {} in {far}, fewest ready runners {lowest}",
        cf_runner_writes(cp, mark, &[&ns]).len(),
        cf_runner_writes(cp, mark, &[&far]).len()
    );

    // The runner is cf-runner's, in config-dir mode, with one file per
    // runtime, each with the token of cf-runner's access ServiceAccount.
    let runner = object(cp, &ns, "deployment/runner");
    assert_eq!(
        runner["metadata"]["labels"]["app.kubernetes.io/managed-by"],
        json!("cf-runner")
    );
    let env = runner["spec"]["template"]["spec"]["containers"][0]["env"].to_string();
    assert!(
        env.contains("VENONA_CONFIG_DIR") && !env.contains("CODEFRESH_IN_CLUSTER_RUNTIME"),
        "{env}"
    );
    let conf = object(cp, &ns, "secret/runnerconf");
    assert_eq!(
        conf["metadata"]["labels"]["app.kubernetes.io/managed-by"],
        json!("cf-runner")
    );
    let mut keys: Vec<&String> = conf["data"].as_object().unwrap().keys().collect();
    keys.sort();
    let mut want = [key(&own), key(&far_rt)];
    want.sort();
    assert_eq!(keys, want.iter().collect::<Vec<_>>());
    for (k, in_ns) in [(key(&own), &ns), (key(&far_rt), &far)] {
        let file = secret_text(cp, &ns, "runnerconf", &k);
        assert_eq!(token_account(&file), format!("{in_ns}:cf-runner-agent"));
        // The address venonactl gave the agent is kept.
        assert!(file.contains(&format!("host: {}", cp.server())), "{k}");
    }
    // The agent token is kept.
    assert_eq!(
        secret_text(cp, &ns, "runner", "codefresh.token"),
        agent_token
    );
    // The platform's list of the agent's runtimes is unchanged.
    assert_eq!(platform_runtimes(&fake), listed_before);

    // In the far namespace: venonactl's runtime objects are cf-runner's
    // now (the dind key kept), venonactl's access is gone, the rest stays.
    let far_names = names_in(cp, &far);
    for gone in [
        "serviceaccount/runner",
        "role.rbac.authorization.k8s.io/runner",
        "rolebinding.rbac.authorization.k8s.io/runner",
        "secret/runner-token-v7x2q",
    ] {
        assert!(
            !far_names.contains(&gone.to_string()),
            "{gone}: {far_names:?}"
        );
    }
    for stays in [
        "configmap/team-notes",
        "serviceaccount/volume-provisioner-runner",
        "serviceaccount/cf-runner-agent",
        "secret/cf-runner-agent-token",
    ] {
        assert!(
            far_names.contains(&stays.to_string()),
            "{stays}: {far_names:?}"
        );
    }
    for taken in [
        "serviceaccount/codefresh-engine",
        "configmap/codefresh-dind-config",
        "service/dind",
        "secret/codefresh-certs-server",
    ] {
        let o = object(cp, &far, taken);
        assert_eq!(
            o["metadata"]["labels"]["app.kubernetes.io/managed-by"],
            json!("cf-runner"),
            "{taken}: {o}"
        );
    }
    assert!(
        secret_text(cp, &far, "codefresh-certs-server", "server-key.pem")
            .contains(&format!("KEY-OF-{far}"))
    );

    // `info`: every runtime, with credentials that work.
    let url = fake.url();
    let platform = ["--token", fake.token(), "--url", url.as_str()];
    let info = isolated(cp.admin_kubeconfig(), home.path())
        .args(["info", "-o", "json", "--kube-namespace", &ns])
        .args(platform)
        .output()
        .unwrap();
    printed.push_str(&text(&info));
    assert!(info.status.success(), "{}", text(&info));
    let report: Value = serde_json::from_slice(&info.stdout).unwrap();
    let runtimes = report["installations"][0]["runtimes"]
        .as_array()
        .unwrap_or_else(|| panic!("no runtimes: {report:#}"))
        .clone();
    for name in [&own, &far_rt] {
        let r = runtimes
            .iter()
            .find(|r| r["name"] == name.as_str())
            .unwrap_or_else(|| panic!("no {name} in {runtimes:#?}"));
        assert_eq!(r["works"], true, "{r:#}");
        assert_eq!(r["onPlatform"], true, "{r:#}");
    }

    // `check` (with the values adopt saved) finds every runtime's token
    // able to create pods in its namespace.
    let values = home.path().join("cf-runner-values.yaml");
    let check = isolated(cp.admin_kubeconfig(), home.path())
        .args(["check", "-o", "json", "--kube-namespace", &ns, "--values"])
        .arg(&values)
        .output()
        .unwrap();
    printed.push_str(&text(&check));
    let report: Value =
        serde_json::from_slice(&check.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&check)));
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

    // `runtime rotate` of the far runtime: a new token of cf-runner's, the
    // agent always ready.
    let before = secret_text(cp, &ns, "runnerconf", &key(&far_rt));
    let watch = support::rollout::ReadyWatch::start(cp.client(), &ns);
    let rotate = isolated(cp.admin_kubeconfig(), home.path())
        .args(["runtime", "rotate", "--agent-namespace", &ns])
        .args(["--kube-namespace", &far, "--runtime-name", &far_rt])
        .output()
        .unwrap();
    printed.push_str(&text(&rotate));
    assert!(rotate.status.success(), "{}", text(&rotate));
    assert!(watch.fewest().await >= 1);
    let after = secret_text(cp, &ns, "runnerconf", &key(&far_rt));
    assert_ne!(token_account(&before), String::new());
    assert!(before != after, "rotate kept the token");
    assert_eq!(token_account(&after), format!("{far}:cf-runner-agent"));

    // `runtime upgrade` of the far runtime: its builds' StorageClass is
    // venonactl's of its namespace (left alone, named by the platform's
    // spec), which upgrade refuses to replace with the agent's; given as the
    // plan says, it is kept, and upgrade writes in the far namespace only.
    let class = format!("dind-local-volumes-runner-{far}");
    assert!(
        printed.contains(&format!("Storage.StorageClassName={class}")),
        "{printed}"
    );
    let mark = cp.audit_events().unwrap().len();
    let upgrade = |extra: &[&str]| {
        isolated(cp.admin_kubeconfig(), home.path())
            .args(["runtime", "upgrade", "--agent-namespace", &ns])
            .args(["--kube-namespace", &far, "--runtime-name", &far_rt])
            .args(extra)
            .args(platform)
            .output()
            .unwrap()
    };
    // Adopt leaves the runtime environment registered under venonactl's
    // cluster name: with settings of its own, upgrade refuses to change
    // that spec (exit 3) before any write. Registered under this cluster's
    // name (as the user would, on the platform), it is cf-runner's to keep.
    let keep = format!("Storage.StorageClassName={class}");
    let out = upgrade(&["--set-value", &keep]);
    printed.push_str(&text(&out));
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(text(&out).contains("venona-cluster"), "{}", text(&out));
    assert_eq!(
        cf_runner_writes(cp, mark, &[&ns, &far]),
        Vec::<String>::new()
    );
    fake.add_runtime_like(&far_rt, "admin@cf-runner-test", &far, &far_rt);
    let out = upgrade(&[]);
    printed.push_str(&text(&out));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("dockerDaemonScheduler.pvcs.dind.storageClassName"),
        "{}",
        text(&out)
    );
    let out = upgrade(&[
        "--set-value",
        &keep,
        "--set-value",
        "Storage.CreateStorageClass=false",
    ]);
    printed.push_str(&text(&out));
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(cf_runner_writes(cp, mark, &[&ns]), Vec::<String>::new());
    assert_eq!(
        fake.runtimes()[&far_rt]["dockerDaemonScheduler"]["pvcs"][0]["storageClassName"],
        json!(class)
    );
    let sc = cp
        .kubectl()
        .args(["get", "storageclass", &class, "-o", "json"])
        .output()
        .unwrap();
    let sc: Value = serde_json::from_slice(&sc.stdout).unwrap();
    assert!(
        sc["metadata"]["labels"]
            .get("app.kubernetes.io/managed-by")
            .is_none(),
        "{sc}"
    );
    assert!(!names_in(cp, &far).contains(&"deployment.apps/dind-volume-provisioner".to_string()));

    // The real agent, on what cf-runner's runner Deployment gives its pod,
    // builds for each runtime in that runtime's namespace, as that
    // namespace's cf-runner-agent (the spec of the far runtime gets an
    // engine image like the own one's: the registration had none).
    fake.add_runtime_like(&far_rt, "venona-cluster", &far, &own);
    let venona = Agent::start(cp, &ns, "runner").await.unwrap();
    assert_eq!(venona.env("CODEFRESH_IN_CLUSTER_RUNTIME"), None);
    build_runs(&fake, &venona, cp, &own, &ns, "wf-own").await;
    build_runs(&fake, &venona, cp, &far_rt, &far, "wf-far").await;
    drop(venona);

    // A second adopt writes nothing.
    let mark = cp.audit_events().unwrap().len();
    let again = adopt(cp, home.path(), &args);
    printed.push_str(&text(&again));
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    assert!(
        text(&again).contains("nothing to adopt"),
        "{}",
        text(&again)
    );
    assert_eq!(
        cf_runner_writes(cp, mark, &[&ns, &far]),
        Vec::<String>::new()
    );

    // `runtime detach` of the far runtime, the agent always ready.
    let watch = support::rollout::ReadyWatch::start(cp.client(), &ns);
    let detach = isolated(cp.admin_kubeconfig(), home.path())
        .args(["runtime", "detach", "--agent-namespace", &ns])
        .args(["--kube-namespace", &far, "--runtime-name", &far_rt])
        .args(platform)
        .output()
        .unwrap();
    printed.push_str(&text(&detach));
    assert!(detach.status.success(), "{}", text(&detach));
    assert!(watch.fewest().await >= 1);
    assert_eq!(platform_runtimes(&fake), vec![own.clone()]);
    let conf = object(cp, &ns, "secret/runnerconf");
    assert!(conf["data"].get(key(&far_rt)).is_none(), "{conf}");
    assert!(!names_in(cp, &far).contains(&"secret/cf-runner-agent-token".to_string()));

    // Attached again by cf-runner, over the objects it took over.
    let attach = isolated(cp.admin_kubeconfig(), home.path())
        .args([
            "runtime",
            "attach",
            "--allow-builds-to-read-tokens",
            "--agent-namespace",
            &ns,
        ])
        .args(["--kube-namespace", &far, "--runtime-name", &far_rt])
        .args(platform)
        .output()
        .unwrap();
    printed.push_str(&text(&attach));
    assert!(attach.status.success(), "{}", text(&attach));
    assert_eq!(platform_runtimes(&fake), listed_before);

    // delete --all-runtimes: nothing cf-runner wrote or took over is left,
    // and what it did not write stays.
    let gone = isolated(cp.admin_kubeconfig(), home.path())
        .args([
            "delete",
            "--yes",
            "--all-runtimes",
            "--kube-namespace",
            &ns,
            "--timeout",
            "90s",
        ])
        .args(platform)
        .output()
        .unwrap();
    printed.push_str(&text(&gone));
    assert_eq!(gone.status.code(), Some(0), "{}", text(&gone));
    assert_eq!(names_in(cp, &ns), Vec::<String>::new());
    assert_eq!(
        names_in(cp, &far),
        vec![
            "configmap/team-notes".to_string(),
            "serviceaccount/volume-provisioner-runner".to_string()
        ]
    );
    let sc = cp
        .kubectl()
        .args(["get", "storageclass", &class, "-o", "name"])
        .output()
        .unwrap();
    assert!(sc.status.success(), "venonactl's StorageClass was deleted");

    for s in secrets {
        assert!(!printed.contains(s), "a token was shown:\n{printed}");
    }
    assert!(!printed.contains(&ca_line), "a CA line was shown");
}

/// venonactl's agent in a namespace of its own: the runner in config-dir
/// mode, `runnerconf` with two runtimes that build in two other
/// namespaces, and no runtime's objects in the agent's namespace. Adopt
/// moves it to an agent installed alone (`AgentOnly`): no runtime objects
/// there, each runtime namespace taken over with cf-runner's access and
/// token, venonactl's access gone last, a runner ready at every look; the
/// real agent builds in each runtime's namespace as its `cf-runner-agent`;
/// a second adopt writes nothing; `delete --all-runtimes` leaves nothing
/// cf-runner wrote or took over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn adopt_moves_an_agent_in_a_namespace_of_its_own_to_an_agent_alone() {
    let cp = controlplane::shared();
    let ns = cp.create_namespace("adoptalone").await.unwrap();
    let b1 = cp.create_namespace("adoptalone-b1").await.unwrap();
    let b2 = cp.create_namespace("adoptalone-b2").await.unwrap();
    let scratch = cp.create_namespace("adoptalone-spec").await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let fake = FakePlatform::start(USER_TOKEN);
    let url = fake.url();
    // A runtime spec with build images for the fake's tasks: one that
    // cf-runner registers (venonactl's registration carries none).
    let init = isolated(cp.admin_kubeconfig(), home.path())
        .args(["init", "--yes", "--kube-namespace", &scratch])
        .args(["--kube-context-name", "admin@cf-runner-test"])
        .args(["--skip-cluster-integration", "--no-wait"])
        .args(["--token", USER_TOKEN, "--url", &url])
        .output()
        .unwrap();
    assert!(init.status.success(), "{}", text(&init));
    let template = format!("admin@cf-runner-test/{scratch}");
    // What `codefresh runner init` (agent) and `attach` registered.
    let r1 = format!("venona-cluster/{b1}");
    let r2 = format!("venona-cluster/{b2}");
    let agent = venonactl_registered(&fake, &[(&r1, &b1), (&r2, &b2)]);
    let venona_runtimes = || -> Vec<String> {
        let agents = fake.agents();
        let a = agents.iter().find(|a| a["name"] == "venona-agent").unwrap();
        let mut list: Vec<String> = a["runtimes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap().to_string())
            .collect();
        list.sort();
        list
    };
    let listed_before = venona_runtimes();
    seed_runtime_namespace(cp, &b1);
    seed_runtime_namespace(cp, &b2);
    let (t1, ca1) = venonactl_token(cp, &b1).await;
    let (t2, ca2) = venonactl_token(cp, &b2).await;
    let agent_token = agent["token"].as_str().unwrap().to_string();
    seed_agent(
        cp,
        &ns,
        &Seed {
            platform: &url,
            agent_token: &agent_token,
            runtimes: &[(r1.clone(), t1.clone(), ca1), (r2.clone(), t2.clone(), ca2)],
        },
    );
    let ready = cp.client();
    controlplane::poll_until("venonactl's runner ready", Duration::from_secs(90), || {
        let api: kube::Api<k8s_openapi::api::apps::v1::Deployment> =
            kube::Api::namespaced(ready.clone(), &ns);
        async move {
            let d = api.get("runner").await?;
            Ok(d.status.and_then(|s| s.ready_replicas).unwrap_or(0) > 0)
        }
    })
    .await
    .unwrap();
    let mut printed = String::new();

    // The move: a runner ready at every look.
    let args = move_args(&ns, &fake);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mark = cp.audit_events().unwrap().len();
    let (out, lowest, looks) = adopt_watching(cp, home.path(), &ns, &args).await;
    let shown = text(&out);
    printed.push_str(&shown);
    assert_eq!(out.status.code(), Some(0), "{shown}");
    assert!(shown.contains("agent installed alone"), "{shown}");
    assert!(
        looks > 5 && lowest >= 1,
        "fewest ready runners {lowest}\n{shown}"
    );
    eprintln!(
        "adopt of an agent alone with 2 runtimes: {} writes in {ns}, {} in {b1}, {} in {b2}, fewest ready runners {lowest}",
        cf_runner_writes(cp, mark, &[&ns]).len(),
        cf_runner_writes(cp, mark, &[&b1]).len(),
        cf_runner_writes(cp, mark, &[&b2]).len()
    );

    // The agent's namespace: cf-runner's runner in config-dir mode, its
    // record an agent alone, no runtime's objects; one file per runtime
    // with cf-runner's token of that namespace.
    let here = names_in(cp, &ns);
    for none in [
        "serviceaccount/codefresh-engine",
        "secret/codefresh-certs-server",
        "configmap/codefresh-dind-config",
        "service/dind",
    ] {
        assert!(!here.contains(&none.to_string()), "{none} in {here:?}");
    }
    let runner = object(cp, &ns, "deployment/runner");
    assert_eq!(
        runner["metadata"]["labels"]["app.kubernetes.io/managed-by"],
        json!("cf-runner")
    );
    let env = runner["spec"]["template"]["spec"]["containers"][0]["env"].to_string();
    assert!(
        env.contains("VENONA_CONFIG_DIR") && !env.contains("CODEFRESH_IN_CLUSTER_RUNTIME"),
        "{env}"
    );
    let record = secret_text(cp, &ns, "cf-runner-values", "values.yaml");
    assert!(record.contains("AgentOnly: true"), "{record}");
    assert!(!record.contains("RuntimeEnvironmentName"), "{record}");
    for (rt, in_ns) in [(&r1, &b1), (&r2, &b2)] {
        let file = secret_text(cp, &ns, "runnerconf", &key(rt));
        assert_eq!(token_account(&file), format!("{in_ns}:cf-runner-agent"));
        let names = names_in(cp, in_ns);
        assert!(
            !names.contains(&"serviceaccount/runner".to_string()),
            "{names:?}"
        );
        assert!(
            names.contains(&"serviceaccount/cf-runner-agent".to_string()),
            "{names:?}"
        );
    }
    assert_eq!(
        secret_text(cp, &ns, "runner", "codefresh.token"),
        agent_token
    );
    assert_eq!(venona_runtimes(), listed_before);

    // The real agent builds in each runtime's namespace as its cf-runner-agent.
    fake.add_runtime_like(&r1, "venona-cluster", &b1, &template);
    fake.add_runtime_like(&r2, "venona-cluster", &b2, &template);
    let venona = Agent::start(cp, &ns, "runner").await.unwrap();
    assert_eq!(venona.env("CODEFRESH_IN_CLUSTER_RUNTIME"), None);
    build_runs(&fake, &venona, cp, &r1, &b1, "wf-alone-b1").await;
    build_runs(&fake, &venona, cp, &r2, &b2, "wf-alone-b2").await;
    drop(venona);

    // A second adopt writes nothing.
    let mark = cp.audit_events().unwrap().len();
    let again = adopt(cp, home.path(), &args);
    printed.push_str(&text(&again));
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    assert_eq!(
        cf_runner_writes(cp, mark, &[&ns, &b1, &b2]),
        Vec::<String>::new()
    );

    // delete --all-runtimes: nothing cf-runner wrote or took over is left.
    let gone = isolated(cp.admin_kubeconfig(), home.path())
        .args(["delete", "--yes", "--all-runtimes", "--kube-namespace", &ns])
        .args(["--timeout", "90s", "--token", USER_TOKEN, "--url", &url])
        .output()
        .unwrap();
    printed.push_str(&text(&gone));
    assert_eq!(gone.status.code(), Some(0), "{}", text(&gone));
    assert_eq!(names_in(cp, &ns), Vec::<String>::new());
    assert_eq!(names_in(cp, &b1), Vec::<String>::new());
    assert_eq!(names_in(cp, &b2), Vec::<String>::new());
    for s in [agent_token.as_str(), USER_TOKEN, t1.as_str(), t2.as_str()] {
        assert!(!printed.contains(s), "a token was shown:\n{printed}");
    }
}
