//! One agent and N runtimes from one values file, against a real control
//! plane and the fake platform: `init` with `Runtimes:` installs the agent,
//! then attaches two runtimes in two namespaces, each with its own node
//! selector, tolerations and storage. The platform has neither runtime, so
//! attach registers both, and the runtime spec the platform holds carries
//! each one's namespace, node selector, tolerations and StorageClass. The
//! runtime with storage of its own gets its StorageClass and volume
//! provisioner in its namespace; the other none. Re-running init, and
//! `runtime attach -f` with the same list, writes nothing in the cluster
//! and nothing on the platform. A bad entry exits 2 naming its key.

use crate::attached_runtimes::{args, run};
use crate::support;

use std::path::Path;
use std::process::Output;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::api::storage::v1::StorageClass;
use kube::api::Api;
use serde_json::json;
use support::cli::{self, text};
use support::controlplane::{self, ControlPlane};
use support::fake_platform::FakePlatform;

const CONTEXT: &str = "admin@cf-runner-test";
const API_TOKEN: &str = "api-token-for-attach-values-0123456789ab";

fn writes_since(cp: &ControlPlane, since: usize, namespaces: &[&str]) -> Vec<String> {
    support::audit::cf_runner_writes(cp, since, namespaces)
}

fn platform_writes(fake: &FakePlatform) -> Vec<String> {
    fake.calls()
        .into_iter()
        .filter(|c| !c.starts_with("GET "))
        .collect()
}

async fn init(kubeconfig: &Path, home: &Path, ns: &str, values: &Path, url: &str) -> Output {
    let (k, h, ns, v, u) = (
        kubeconfig.to_path_buf(),
        home.to_path_buf(),
        ns.to_string(),
        values.to_path_buf(),
        url.to_string(),
    );
    tokio::task::spawn_blocking(move || {
        cli::init(&k, &h, "local", &ns, CONTEXT)
            .arg("--values")
            .arg(&v)
            .args(["--skip-cluster-test", "--timeout=90s"])
            .arg("--allow-builds-to-read-tokens")
            .args(["--token", API_TOKEN, "--url", &u])
            .output()
            .unwrap()
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn init_installs_one_agent_and_runtimes_each_with_its_own_placement_and_storage() {
    controlplane::ensure_crypto_provider();
    let cp = controlplane::shared();
    let client = cp.client();
    let home = tempfile::tempdir().unwrap();
    let kubeconfig = cp.admin_kubeconfig().to_path_buf();
    let fake = FakePlatform::start(API_TOKEN);
    let url = fake.url();
    let agent_ns = cp.create_namespace("vals-agent").await.unwrap();
    let zone_a = cp.create_namespace("vals-zone-a").await.unwrap();
    let zone_b = cp.create_namespace("vals-zone-b").await.unwrap();
    let (name_a, name_b) = (format!("{CONTEXT}/{zone_a}"), format!("{CONTEXT}/{zone_b}"));

    // A bad entry: exit 2, each problem named by the key as written, nothing written.
    let bad = home.path().join("bad.yaml");
    std::fs::write(
        &bad,
        format!(
            "Runtimes:\n  - Namespace: {zone_a}\n  - Namespace: {zone_b}\n    NodeSelector: [zone]\n    Storage: {{Backend: ebs}}\n    Colour: red\n"
        ),
    )
    .unwrap();
    let mark = cp.audit_events().unwrap().len();
    let out = init(&kubeconfig, home.path(), &agent_ns, &bad, &url).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    for key in [
        "Runtimes[1].NodeSelector",
        "Runtimes[1].Storage.AvailabilityZone",
        "Runtimes[1].Colour",
    ] {
        assert!(text(&out).contains(key), "{key} not named: {}", text(&out));
    }
    assert_eq!(
        writes_since(cp, mark, &[&agent_ns, &zone_a, &zone_b]),
        Vec::<String>::new()
    );
    assert_eq!(platform_writes(&fake), Vec::<String>::new());

    // One agent and two runtimes from one values file.
    let runtimes = format!(
        "Runtimes:
  - Namespace: {zone_a}
    NodeSelector: {{topology.kubernetes.io/zone: eu-1a}}
    Tolerations: [{{key: builds, operator: Exists, effect: NoSchedule}}]
    Storage: {{Backend: local, LocalVolumeParentDir: /var/lib/codefresh/zone-a}}
  - Namespace: {zone_b}
    NodeSelector: topology.kubernetes.io/zone=eu-1b
    StorageClass: fast-b
"
    );
    let values = home.path().join("values.yaml");
    std::fs::write(&values, &runtimes).unwrap();
    let out = init(&kubeconfig, home.path(), &agent_ns, &values, &url).await;
    assert!(out.status.success(), "init: {}", text(&out));
    let printed = text(&out);

    // The platform had neither runtime: attach registered both, and their
    // specs carry each runtime's own place, selector, tolerations and storage.
    let specs = fake.runtimes();
    let a = specs
        .get(&name_a)
        .unwrap_or_else(|| panic!("{name_a} registered: {specs:#?}"));
    let b = specs
        .get(&name_b)
        .unwrap_or_else(|| panic!("{name_b} registered"));
    for (spec, ns) in [(a, &zone_a), (b, &zone_b)] {
        for scheduler in ["runtimeScheduler", "dockerDaemonScheduler"] {
            assert_eq!(spec[scheduler]["cluster"]["namespace"], json!(ns));
            assert_eq!(
                spec[scheduler]["cluster"]["clusterProvider"]["selector"],
                json!(CONTEXT)
            );
        }
    }
    // Of the agent's account, as init's own runtime is.
    let own = &specs[&format!("{CONTEXT}/{agent_ns}")];
    let account = &own["runtimeScheduler"]["cluster"]["clusterProvider"]["accountId"];
    assert!(account.is_string(), "{own}");
    for spec in [a, b] {
        assert_eq!(&spec["accountId"], account);
        for scheduler in ["runtimeScheduler", "dockerDaemonScheduler"] {
            assert_eq!(
                &spec[scheduler]["cluster"]["clusterProvider"]["accountId"],
                account
            );
        }
    }
    let toleration = json!([{"key": "builds", "operator": "Exists", "effect": "NoSchedule"}]);
    for scheduler in ["runtimeScheduler", "dockerDaemonScheduler"] {
        assert_eq!(
            a[scheduler]["cluster"]["nodeSelector"],
            json!({"topology.kubernetes.io/zone": "eu-1a"})
        );
        assert_eq!(a[scheduler]["tolerations"], toleration);
        assert_eq!(
            b[scheduler]["cluster"]["nodeSelector"],
            json!({"topology.kubernetes.io/zone": "eu-1b"})
        );
        assert_eq!(b[scheduler].get("tolerations"), None);
    }
    let class_a = format!("dind-local-volumes-runner-{zone_a}");
    assert_eq!(
        a["dockerDaemonScheduler"]["pvcs"][0]["storageClassName"],
        json!(class_a)
    );
    assert_eq!(
        b["dockerDaemonScheduler"]["pvcs"][0]["storageClassName"],
        json!("fast-b")
    );
    let agent = fake
        .agents()
        .into_iter()
        .find(|x| x["name"] == json!(format!("{CONTEXT}_{agent_ns}")))
        .expect("the agent is on the platform");
    let mut served: Vec<String> = agent["runtimes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    served.sort();
    let mut expected = vec![
        format!("{CONTEXT}/{agent_ns}"),
        name_a.clone(),
        name_b.clone(),
    ];
    expected.sort();
    assert_eq!(served, expected);

    // Zone a has storage of its own: its StorageClass (for its own
    // provisioner, with its folder) and the provisioner in its namespace.
    let class = Api::<StorageClass>::all(client.clone())
        .get(&class_a)
        .await
        .expect("zone a's StorageClass");
    let class_json = serde_json::to_value(&class).unwrap();
    assert!(
        class_json.to_string().contains("/var/lib/codefresh/zone-a"),
        "{class_json}"
    );
    let provisioner = |ns: String| {
        let api: Api<Deployment> = Api::namespaced(client.clone(), &ns);
        async move { api.get_opt("dind-volume-provisioner").await.unwrap() }
    };
    assert!(provisioner(zone_a.clone()).await.is_some());
    // Zone b uses a class of the user's: no provisioner there.
    assert!(provisioner(zone_b.clone()).await.is_none());

    // The agent serves three runtimes from its files.
    let conf = Api::<Secret>::namespaced(client.clone(), &agent_ns)
        .get("runnerconf")
        .await
        .unwrap();
    assert_eq!(conf.data.unwrap_or_default().len(), 3);
    assert!(!printed.contains("eyJ"), "a token was printed: {printed}");

    // A re-run of init writes nothing: the agent stays in config-dir mode.
    fake.clear_requests();
    let mark = cp.audit_events().unwrap().len();
    let out = init(&kubeconfig, home.path(), &agent_ns, &values, &url).await;
    assert!(out.status.success(), "init re-run: {}", text(&out));
    assert_eq!(
        writes_since(cp, mark, &[&agent_ns, &zone_a, &zone_b]),
        Vec::<String>::new(),
        "init re-run: {}",
        text(&out)
    );
    assert_eq!(platform_writes(&fake), Vec::<String>::new());

    // And so does `runtime attach -f` with the same list.
    let file = home.path().join("runtimes.yaml");
    std::fs::write(&file, &runtimes).unwrap();
    let mut attach = args(&[
        "runtime",
        "attach",
        "--allow-builds-to-read-tokens",
        "--agent-namespace",
        &agent_ns,
    ]);
    attach.extend(args(&["--agent-context", CONTEXT, "-f"]));
    attach.push(file.display().to_string());
    attach.extend(args(&["--token", API_TOKEN, "--url", &url]));
    fake.clear_requests();
    let mark = cp.audit_events().unwrap().len();
    let out = run(&kubeconfig, home.path(), attach).await;
    assert!(out.status.success(), "attach re-run: {}", text(&out));
    assert_eq!(
        writes_since(cp, mark, &[&agent_ns, &zone_a, &zone_b]),
        Vec::<String>::new()
    );
    assert_eq!(platform_writes(&fake), Vec::<String>::new());

    // A runtime's setting by flag: a bad one is named by the flag.
    let mut by_flag = args(&[
        "runtime",
        "attach",
        "--allow-builds-to-read-tokens",
        "--agent-namespace",
        &agent_ns,
    ]);
    by_flag.extend(args(&["--kube-namespace", &zone_b]));
    by_flag.extend(args(&["--set-value", "Tolerations=none"]));
    by_flag.extend(args(&["--token", API_TOKEN, "--url", &url]));
    let out = run(&kubeconfig, home.path(), by_flag).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("--set-value Tolerations"),
        "{}",
        text(&out)
    );

    // `runtime upgrade` of a runtime with settings of its own: not given
    // again, they would be replaced by the agent's; refused, nothing written.
    let mut upgrade = args(&["runtime", "upgrade", "--agent-namespace", &agent_ns]);
    upgrade.extend(args(&["--kube-namespace", &zone_b]));
    upgrade.extend(args(&["--token", API_TOKEN, "--url", &url]));
    fake.clear_requests();
    let mark = cp.audit_events().unwrap().len();
    let out = run(&kubeconfig, home.path(), upgrade.clone()).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--set-value"), "{}", text(&out));
    assert!(text(&out).contains("nodeSelector"), "{}", text(&out));
    assert_eq!(
        writes_since(cp, mark, &[&agent_ns, &zone_a, &zone_b]),
        Vec::<String>::new()
    );
    assert_eq!(platform_writes(&fake), Vec::<String>::new());
    // Given again, the upgrade goes through and the spec stays as it was.
    let before = fake.runtimes()[&name_b].clone();
    upgrade.extend(args(&[
        "--set-value",
        "NodeSelector=topology.kubernetes.io/zone=eu-1b",
        "--set-value",
        "StorageClass=fast-b",
    ]));
    let out = run(&kubeconfig, home.path(), upgrade).await;
    assert!(out.status.success(), "runtime upgrade: {}", text(&out));
    assert_eq!(fake.runtimes()[&name_b], before);
    assert_eq!(platform_writes(&fake), Vec::<String>::new());

    // `runtime delete` of the runtime with storage of its own takes its
    // volume provisioner and its StorageClass with the rest.
    let mut delete = args(&["runtime", "delete", "--agent-namespace", &agent_ns]);
    delete.extend(args(&["--kube-namespace", &zone_a, "--yes"]));
    delete.extend(args(&["--token", API_TOKEN, "--url", &url]));
    let out = run(&kubeconfig, home.path(), delete).await;
    assert!(out.status.success(), "runtime delete: {}", text(&out));
    assert!(
        provisioner(zone_a.clone()).await.is_none(),
        "the provisioner stayed: {}",
        text(&out)
    );
    assert!(
        Api::<StorageClass>::all(client.clone())
            .get_opt(&class_a)
            .await
            .unwrap()
            .is_none(),
        "the runtime's StorageClass stayed: {}",
        text(&out)
    );
}
