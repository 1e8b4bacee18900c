//! The lifecycle of an installation against a real control plane: `info`,
//! `delete` and `upgrade`, driven through the real binary. Every storage
//! backend makes the round trip init → info → delete and leaves nothing
//! carrying our labels behind, checked over every resource type the API
//! server's discovery reports (not just the kinds cf-runner knows).

use crate::support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Secret};
use kube::api::{Api, DynamicObject, ListParams, Patch, PatchParams, PostParams};
use kube::discovery::{verbs, Discovery};
use kube::Client;
use serde_json::{json, Value};
use support::cli::{self, isolated, shared_home, text};
use support::controlplane::{self, ControlPlane};
use support::fake_platform::FakePlatform;
use support::namespace::unique;

const AGENT_TOKEN: &str = "agent-token-for-lifecycle-0123456789";
const API_TOKEN: &str = "api-token-for-lifecycle-9876543210";
const CONTEXT: &str = "admin@cf-runner-test";

fn command(kubeconfig: &Path, args: &[&str]) -> Command {
    let mut cmd = isolated(kubeconfig, shared_home());
    cmd.args(args);
    cmd
}

fn cf_runner(cp: &ControlPlane, args: &[&str]) -> Output {
    command(cp.admin_kubeconfig(), args).output().unwrap()
}

/// An offline `init` (with an agent token, no platform), not waiting.
fn init(cp: &ControlPlane, ns: &str, example_name: &str, extra: &[&str]) -> Output {
    init_then(cp, None, ns, example_name, "--no-wait", extra)
}

/// `init` against the fake platform (`--token`; it issues the agent token
/// and signs the dind certificate) or offline, then `wait` (`--no-wait`, or
/// `--timeout=90s` to wait for the rollout).
fn init_then(
    cp: &ControlPlane,
    platform: Option<&FakePlatform>,
    ns: &str,
    example_name: &str,
    wait: &str,
    extra: &[&str],
) -> Output {
    let mut cmd = cli::init(
        cp.admin_kubeconfig(),
        shared_home(),
        example_name,
        ns,
        CONTEXT,
    );
    cmd.args(["--skip-cluster-test", wait]);
    match platform {
        Some(fake) => cmd.args(["--token", fake.token(), "--url", &fake.url()]),
        None => cmd.args(["--agent-token", AGENT_TOKEN]),
    };
    let out = cmd.args(extra).output().unwrap();
    assert!(out.status.success(), "init {example_name}: {}", text(&out));
    out
}

fn delete(cp: &ControlPlane, ns: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "delete",
        "--yes",
        "--kube-namespace",
        ns,
        "--kube-context-name",
        CONTEXT,
        "--timeout",
        "90s",
    ];
    args.extend_from_slice(extra);
    cf_runner(cp, &args)
}

fn info_json(cp: &ControlPlane, ns: &str) -> Value {
    let out = cf_runner(
        cp,
        &[
            "info",
            "--kube-namespace",
            ns,
            "--kube-context-name",
            CONTEXT,
            "-o",
            "json",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)))
}

/// The agent token the runner Secret holds.
async fn runner_token(client: &Client, ns: &str) -> String {
    let secrets: Api<Secret> = Api::namespaced(client.clone(), ns);
    let runner = secrets.get("runner").await.unwrap();
    String::from_utf8(runner.data.unwrap()["codefresh.token"].0.clone()).unwrap()
}

/// Every object, of every listable resource type the discovery reports,
/// that carries the instance label `ns`.
async fn labelled_anywhere(client: &Client, ns: &str) -> Vec<String> {
    let discovery = Discovery::new(client.clone()).run().await.unwrap();
    let lp = ListParams::default().labels(&format!("app.kubernetes.io/instance={ns}"));
    let mut found = Vec::new();
    for group in discovery.groups() {
        for (ar, caps) in group.recommended_resources() {
            if !caps.supports_operation(verbs::LIST) {
                continue;
            }
            let api: Api<DynamicObject> = Api::all_with(client.clone(), &ar);
            match api.list_metadata(&lp).await {
                Ok(list) => found.extend(list.items.into_iter().map(|o| {
                    format!(
                        "{}/{} {}",
                        ar.kind,
                        o.metadata.name.unwrap_or_default(),
                        o.metadata.namespace.unwrap_or_default()
                    )
                })),
                // Aggregated APIs that are not served are not objects of ours.
                Err(kube::Error::Api(s)) if s.code == 404 || s.code == 503 => {}
                Err(e) => panic!("listing {}: {e}", ar.plural),
            }
        }
    }
    found.sort();
    found
}

/// Waits (briefly: controllers remove Endpoints after their Service) until
/// nothing carries the instance label, else fails naming what is left.
async fn assert_nothing_labelled(client: &Client, ns: &str, why: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let left = labelled_anywhere(client, ns).await;
        if left.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{why}: still labelled with instance {ns}: {left:?}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

async fn labelled_names(client: &Client, ns: &str) -> Vec<String> {
    let mut out = Vec::new();
    let selector =
        format!("app.kubernetes.io/managed-by=cf-runner,app.kubernetes.io/instance={ns}");
    for k in cf_runner::cluster::inventory::RENDERED_KINDS {
        let (api_version, kind) = (k.api_version, k.kind);
        let api =
            cf_runner::cluster::api_for(client, api_version, kind, k.namespaced.then_some(ns));
        // A CRD's kind this control plane does not serve holds nothing.
        let listed = api.list(&ListParams::default().labels(&selector)).await;
        let list = match listed {
            Err(kube::Error::Api(e))
                if e.code == 404 && cf_runner::cluster::inventory::may_be_unserved(k) =>
            {
                continue
            }
            other => other.unwrap(),
        };
        for item in list.items {
            out.push(format!(
                "{kind}/{} {}",
                item.metadata.name.unwrap(),
                item.metadata.resource_version.unwrap()
            ));
        }
    }
    out.sort();
    out
}

/// [`labelled_names`] once controllers have stopped updating the objects'
/// status (two reads a second apart agree).
async fn settled_names(client: &Client, ns: &str) -> Vec<String> {
    let mut last = labelled_names(client, ns).await;
    for _ in 0..30 {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let now = labelled_names(client, ns).await;
        if now == last {
            return now;
        }
        last = now;
    }
    panic!("the objects of {ns} never settled: {last:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn every_backend_makes_the_round_trip_and_leaves_nothing_labelled() {
    let cp = controlplane::shared();
    let client = cp.client();
    let fake = FakePlatform::start(API_TOKEN);
    for (name, backend) in [
        ("local", Some("local")),
        ("ebs-gp3", Some("ebs")),
        ("ebs-csi", Some("ebs-csi")),
        ("gcedisk-workload-identity", Some("gcedisk")),
        ("azuredisk", Some("azuredisk")),
        ("custom-storage-class", None),
    ] {
        let started = Instant::now();
        let ns = unique("rt");
        init_then(
            cp,
            Some(&fake),
            &ns,
            name,
            "--no-wait",
            &["--install-monitor"],
        );
        let agent_token = runner_token(&client, &ns).await;

        let info = info_json(cp, &ns);
        let raw = info.to_string();
        assert!(
            !raw.contains(&agent_token) && !raw.contains(API_TOKEN),
            "{name}: info leaks a token"
        );
        let inst = &info["installations"][0];
        assert_eq!(inst["namespace"], ns.as_str(), "{name}: {info:#}");
        assert_eq!(inst["installedBy"], env!("CARGO_PKG_VERSION"), "{name}");
        let components: Vec<&str> = inst["components"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        for c in ["namespace", "runner", "runtime", "monitor", "record"] {
            assert!(components.contains(&c), "{name}: no {c} in {components:?}");
        }
        let runner = inst["components"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "runner")
            .unwrap();
        let deployment = runner["objects"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["kind"] == "Deployment")
            .unwrap();
        assert!(
            deployment["images"][0].as_str().unwrap().contains("venona"),
            "{name}"
        );
        match backend {
            Some(b) => {
                assert_eq!(
                    inst["storage"]["backend"], b,
                    "{name}: {:#}",
                    inst["storage"]
                );
                assert_eq!(inst["storage"]["installedByCfRunner"], true, "{name}");
                assert!(components.contains(&"volume-provisioner"), "{name}");
            }
            None => {
                assert_eq!(inst["storage"]["className"], "fast-ssd", "{name}");
                assert_eq!(inst["storage"]["installedByCfRunner"], false, "{name}");
                assert!(!components.contains(&"volume-provisioner"), "{name}");
            }
        }

        let table = cf_runner(
            cp,
            &[
                "info",
                "--kube-namespace",
                &ns,
                "--kube-context-name",
                CONTEXT,
            ],
        );
        let shown = text(&table);
        assert!(table.status.success(), "{shown}");
        assert!(
            shown.contains("Deployment/runner") && shown.contains("Components"),
            "{shown}"
        );
        assert!(
            !shown.contains(&agent_token) && !shown.contains(API_TOKEN),
            "{shown}"
        );

        let url = fake.url();
        let out = delete(
            cp,
            &ns,
            &["--delete-namespace", "--token", fake.token(), "--url", &url],
        );
        let said = text(&out);
        assert!(out.status.success(), "{name}: {said}");
        assert!(
            said.contains("deleted") && said.contains("Deployment/runner"),
            "{said}"
        );
        // The platform side went too: agent, runtime and cluster integration.
        assert!(fake.agents().is_empty(), "{name}: {:?}", fake.agents());
        assert!(fake.runtimes().is_empty(), "{name}: {:?}", fake.runtimes());
        assert!(fake.clusters().is_empty(), "{name}: {:?}", fake.clusters());
        assert!(
            said.contains("agent") && said.contains("runtime environment"),
            "{said}"
        );
        assert!(!said.contains(&agent_token), "{said}");
        assert_nothing_labelled(&client, &ns, name).await;
        let nss: Api<Namespace> = Api::all(client.clone());
        assert!(
            nss.get_opt(&ns).await.unwrap().is_none(),
            "{name}: the namespace stayed"
        );
        eprintln!("{name}: round trip in {:?}", started.elapsed());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn delete_removes_only_our_objects_and_is_not_an_error_twice() {
    let cp = controlplane::shared();
    let client = cp.client();
    // A namespace the user made: it must stay, even with --delete-namespace.
    let ns = cp.create_namespace("cfdel").await.unwrap();
    init(cp, &ns, "local", &[]);

    // The user's own objects next to ours.
    let cms: Api<ConfigMap> = Api::namespaced(client.clone(), &ns);
    cms.create(
        &PostParams::default(),
        &serde_json::from_value(json!({"metadata": {"name": "users-config"}, "data": {"a": "b"}}))
            .unwrap(),
    )
    .await
    .unwrap();
    let deployments = cf_runner::cluster::api_for(&client, "apps/v1", "Deployment", Some(&ns));
    let users_deployment = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "users-app", "labels": {"app": "users-app"}},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "users-app"}},
                 "template": {"metadata": {"labels": {"app": "users-app"}},
                              "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}}
    });
    deployments
        .create(
            &PostParams::default(),
            &serde_json::from_value(users_deployment).unwrap(),
        )
        .await
        .unwrap();
    // A dind volume claim and a volume of our StorageClass.
    let class = format!("dind-local-volumes-runner-{ns}");
    let pvcs = cf_runner::cluster::api_for(&client, "v1", "PersistentVolumeClaim", Some(&ns));
    pvcs.create(
        &PostParams::default(),
        &serde_json::from_value(json!({
            "apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": "dind-vol-1", "labels": {"codefresh-app": "dind"}},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": class,
                     "resources": {"requests": {"storage": "1Gi"}}}
        }))
        .unwrap(),
    )
    .await
    .unwrap();
    let pv_name = format!("dind-pv-{ns}");
    let pvs = cf_runner::cluster::api_for(&client, "v1", "PersistentVolume", None);
    pvs.create(
        &PostParams::default(),
        &serde_json::from_value(json!({
            "apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": pv_name},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": class,
                     "capacity": {"storage": "1Gi"}, "persistentVolumeReclaimPolicy": "Retain",
                     "hostPath": {"path": "/tmp/dind"}}
        }))
        .unwrap(),
    )
    .await
    .unwrap();
    let info = info_json(cp, &ns);
    let volumes: Vec<String> = info["installations"][0]["volumes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            format!(
                "{}/{}",
                v["kind"].as_str().unwrap(),
                v["name"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        volumes,
        vec![
            format!("PersistentVolume/{pv_name}"),
            "PersistentVolumeClaim/dind-vol-1".to_string()
        ]
    );

    // No terminal and no --yes: refused at once, naming the flag.
    let out = cf_runner(
        cp,
        &[
            "delete",
            "--kube-namespace",
            &ns,
            "--kube-context-name",
            CONTEXT,
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--yes"), "{}", text(&out));
    assert!(
        !labelled_names(&client, &ns).await.is_empty(),
        "deleted without --yes"
    );

    let out = delete(cp, &ns, &["--delete-namespace", "--keep-platform"]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("--purge-volumes"),
        "the kept volumes are not mentioned: {said}"
    );
    assert!(said.contains("did not create it"), "{said}");
    assert!(said.contains("--keep-platform"), "{said}");
    assert!(labelled_names(&client, &ns).await.is_empty());
    // The user's objects, the namespace and the volumes are untouched.
    assert!(cms.get_opt("users-config").await.unwrap().is_some());
    assert!(deployments.get_opt("users-app").await.unwrap().is_some());
    let nss: Api<Namespace> = Api::all(client.clone());
    assert!(nss.get_opt(&ns).await.unwrap().is_some());
    assert!(pvcs.get_opt("dind-vol-1").await.unwrap().is_some());
    assert!(pvs.get_opt(&pv_name).await.unwrap().is_some());

    // Twice: not an error.
    let out = delete(cp, &ns, &[]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("nothing to delete"), "{said}");

    // The volumes go when asked.
    let out = delete(cp, &ns, &["--purge-volumes"]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("PersistentVolumeClaim/dind-vol-1"), "{said}");
    assert!(pvcs.get_opt("dind-vol-1").await.unwrap().is_none());
    assert!(pvs.get_opt(&pv_name).await.unwrap().is_none());
    assert_nothing_labelled(&client, &ns, "after delete").await;
    assert!(deployments.get_opt("users-app").await.unwrap().is_some());

    // Nothing installed: info says so, and exits 0.
    let out = cf_runner(
        cp,
        &[
            "info",
            "--kube-namespace",
            &ns,
            "--kube-context-name",
            CONTEXT,
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("No Codefresh Runner is installed"),
        "{}",
        text(&out)
    );
    assert_eq!(info_json(cp, &ns)["installations"], json!([]));
}

fn is_monitor(line: &str) -> bool {
    line.contains("/monitor ")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn upgrade_without_the_monitor_removes_it_and_changes_nothing_else() {
    let cp = controlplane::shared();
    let client = cp.client();
    let ns = unique("up");
    let fake = FakePlatform::start(API_TOKEN);
    // Rolled out first, so that no controller moves a resourceVersion later.
    init_then(
        cp,
        Some(&fake),
        &ns,
        "local",
        "--timeout=90s",
        &["--install-monitor", "--skip-cluster-integration"],
    );
    let agent_token = runner_token(&client, &ns).await;
    let before = settled_names(&client, &ns).await;
    assert!(
        before.iter().any(|l| l.starts_with("Deployment/monitor ")),
        "{before:?}"
    );

    let upgrade = |extra: &[&str]| {
        let mut args = vec![
            "upgrade",
            "--yes",
            "--kube-namespace",
            &ns,
            "--kube-context-name",
            CONTEXT,
            "--no-wait",
        ];
        args.extend_from_slice(extra);
        cf_runner(cp, &args)
    };
    let out = upgrade(&["--install-monitor", "false"]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("Monitor.Enabled: true → false"), "{said}");
    assert!(
        !said.contains("AgentToken"),
        "only what changed is listed: {said}"
    );
    assert!(said.contains("unchanged  Deployment/runner"), "{said}");
    assert!(said.contains("Deployment/monitor"), "{said}");
    assert!(
        !said.contains(&agent_token) && !said.contains(API_TOKEN),
        "{said}"
    );

    let after = labelled_names(&client, &ns).await;
    assert!(
        !after.iter().any(|l| is_monitor(l)),
        "monitor objects left: {after:?}"
    );
    let keep = |list: &[String]| -> Vec<String> {
        list.iter()
            .filter(|l| !is_monitor(l) && !l.starts_with("Secret/cf-runner-values "))
            .cloned()
            .collect()
    };
    assert_eq!(keep(&before), keep(&after), "a resourceVersion moved");
    // The secrets were restored, not replaced by placeholders or `<redacted>`.
    let secrets: Api<Secret> = Api::namespaced(client.clone(), &ns);
    assert_eq!(runner_token(&client, &ns).await, agent_token);

    // Again with nothing new: nothing moves at all.
    let out = upgrade(&[]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("values: unchanged"), "{}", text(&out));
    assert_eq!(after, labelled_names(&client, &ns).await);

    // Turning it back on needs the token again: the monitor Secret is gone.
    let out = upgrade(&["--install-monitor"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--token"), "{}", text(&out));
    // The record names the fake platform: the token goes there only when
    // the command line says so.
    let url = fake.url();
    let out = upgrade(&["--install-monitor", "--token", API_TOKEN, "--url", &url]);
    assert!(out.status.success(), "{}", text(&out));
    let monitor = secrets.get("monitor").await.unwrap();
    assert_eq!(
        monitor.data.unwrap()["codefresh.token"].0,
        API_TOKEN.as_bytes()
    );

    // What cannot change in place is refused before anything is written.
    // (The monitor was just created with --no-wait: its controllers settle
    // it first, or their writes would look like the refused upgrade's.)
    let frozen = settled_names(&client, &ns).await;
    let out = upgrade(&[
        "--set-value",
        "Storage.Backend=ebs",
        "--set-value",
        "Storage.AvailabilityZone=us-east-1a",
    ]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains("Storage.Backend") && said.contains("cf-runner delete"),
        "{said}"
    );
    assert!(said.contains("cf-runner init"), "{said}");
    assert_eq!(frozen, labelled_names(&client, &ns).await);

    // A registered install needs a token to clean the platform, or --keep-platform.
    let out = delete(cp, &ns, &["--delete-namespace"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--keep-platform"), "{}", text(&out));
    assert_eq!(
        frozen,
        labelled_names(&client, &ns).await,
        "nothing was deleted"
    );
    let url = fake.url();
    let out = delete(
        cp,
        &ns,
        &["--delete-namespace", "--token", fake.token(), "--url", &url],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(fake.agents().is_empty() && fake.runtimes().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn an_older_record_upgrades_cleanly() {
    let cp = controlplane::shared();
    let client = cp.client();
    let ns = unique("old");
    init(cp, &ns, "local", &[]);
    // What an older version would have recorded: venonactl keys as they
    // were written then, no record format, an old version.
    let old_values = format!(
        "Namespace: {ns}\nContext: {CONTEXT}\nCodefreshHost: https://g.codefresh.io\n\
         Token: <redacted>\nAgentToken: <redacted>\nInCluster: false\n\
         Storage:\n  Backend: local\n  LocalVolumeParentDir: /var/lib/codefresh/dind-volumes\n  \
         VolumeProvisioner:\n    CreateDindVolDirResouces: true\n\
         Monitor:\n  Enabled: false\n  Helm3: true\n\
         Runtime:\n  EngineAppName: app\n"
    );
    let secrets: Api<Secret> = Api::namespaced(client.clone(), &ns);
    let patch = json!({
        "stringData": {"cf-runner-version": "0.0.1", "values.yaml": old_values},
        "data": {"record-format": null}
    });
    // Written as the older cf-runner wrote it: with its field manager (a
    // write by another manager in the second the record was created would
    // pass for its creation, see cluster::ownership).
    let as_cf_runner = PatchParams {
        field_manager: Some("cf-runner".into()),
        ..PatchParams::default()
    };
    secrets
        .patch("cf-runner-values", &as_cf_runner, &Patch::Merge(&patch))
        .await
        .unwrap();
    let upgrade = [
        "upgrade",
        "--yes",
        "--kube-namespace",
        &ns,
        "--kube-context-name",
        CONTEXT,
        "--no-wait",
    ];
    let out = cf_runner(cp, &upgrade);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("cf-runner 0.0.1 →"), "{said}");
    assert!(
        said.contains("InCluster"),
        "the ignored venonactl key is not mentioned: {said}"
    );
    let record = secrets.get("cf-runner-values").await.unwrap().data.unwrap();
    assert_eq!(
        record["cf-runner-version"].0,
        env!("CARGO_PKG_VERSION").as_bytes()
    );
    assert_eq!(record["record-format"].0, b"1");
    let stored = String::from_utf8(record["values.yaml"].0.clone()).unwrap();
    assert!(!stored.contains(AGENT_TOKEN), "{stored}");
    // The older record named `Token`, which no Secret holds without the
    // monitor: this one rewrite drops it, and the next upgrade leaves the
    // record (and everything else) as it is.
    assert!(!stored.lines().any(|l| l.starts_with("Token:")), "{stored}");
    let mark = cp.audit_events().unwrap().len();
    let out = cf_runner(cp, &upgrade);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        support::audit::cf_runner_writes(cp, mark, &[&ns]),
        Vec::<String>::new()
    );
    let runner = secrets.get("runner").await.unwrap();
    assert_eq!(
        runner.data.unwrap()["codefresh.token"].0,
        AGENT_TOKEN.as_bytes()
    );
    assert!(delete(cp, &ns, &["--delete-namespace"]).status.success());
}

/// Runs `delete` in the background; calls `interrupt` once its first
/// deletion is reported, then gives the finished output.
async fn delete_interrupted(
    cp: &ControlPlane,
    ns: &str,
    interrupt: impl FnOnce(&mut Child),
) -> Output {
    let mut child = command(
        cp.admin_kubeconfig(),
        &[
            "delete",
            "--yes",
            "--kube-namespace",
            ns,
            "--kube-context-name",
            CONTEXT,
        ],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut seen = String::new();
        let mut told = false;
        for line in BufReader::new(stdout).lines() {
            let line = line.unwrap_or_default();
            if !told && line.trim_start().starts_with("deleted ") {
                tx.send(()).unwrap();
                told = true;
            }
            seen.push_str(&line);
            seen.push('\n');
        }
        seen
    });
    rx.recv_timeout(Duration::from_secs(60))
        .expect("delete never reported a deletion");
    interrupt(&mut child);
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    let stdout = reader.join().unwrap();
    Output {
        status: out.status,
        stdout: stdout.into_bytes(),
        stderr: out.stderr,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_killed_delete_is_finished_by_the_rerun() {
    let cp = controlplane::shared();
    let client = cp.client();
    let ns = cp.create_namespace("cfkill").await.unwrap();
    init(cp, &ns, "local", &[]);
    let out = delete_interrupted(cp, &ns, |child| child.kill().unwrap()).await;
    assert!(!out.status.success(), "{}", text(&out));
    let left = labelled_names(&client, &ns).await;
    assert!(
        left.iter()
            .any(|l| l.starts_with("Secret/cf-runner-values ")),
        "the record must be deleted last: {left:?}"
    );

    let out = delete(cp, &ns, &[]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("Secret/cf-runner-values"), "{said}");
    assert_nothing_labelled(&client, &ns, "after the re-run").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_delete_that_loses_the_apiserver_is_finished_by_the_rerun() {
    // A private control plane: stopping the shared one would break other tests.
    let cp = ControlPlane::start().expect("a private control plane");
    let client = cp.client();
    let ns = "cfgone";
    init(&cp, ns, "local", &[]);
    let out = delete_interrupted(&cp, ns, |child| {
        let pid = child.id() as i32;
        unsafe { libc::kill(pid, libc::SIGSTOP) };
        cp.stop_apiserver();
        unsafe { libc::kill(pid, libc::SIGCONT) };
    })
    .await;
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("the delete stopped"), "{said}");
    assert!(said.contains("re-run `cf-runner delete`"), "{said}");

    cp.start_apiserver().unwrap();
    let out = delete(&cp, ns, &["--delete-namespace"]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert_nothing_labelled(&client, ns, "after the re-run").await;
}

/// Runs cf-runner on a pseudo-terminal (its controlling terminal, as a
/// person's shell would give it), typing `answer` once `prompt` shows.
/// Gives the exit code and everything the terminal showed.
fn on_a_terminal(
    cp: &ControlPlane,
    args: &[&str],
    prompt: &str,
    answer: &str,
) -> (Option<i32>, String) {
    use std::io::{Read, Write};
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::os::unix::process::CommandExt;

    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty fills two fds we then own.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(rc, 0, "openpty failed");
    // SAFETY: both fds were just opened and are owned here.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let mut cmd = command(cp.admin_kubeconfig(), args);
    cmd.env("TERM", "xterm")
        .stdin(Stdio::from(slave.try_clone().unwrap()))
        .stdout(Stdio::from(slave.try_clone().unwrap()))
        .stderr(Stdio::from(slave));
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            libc::setsid();
            libc::ioctl(0, libc::TIOCSCTTY as _, 0);
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    drop(cmd);
    // A prompt that never shows must fail the test, not hang it.
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watchdog = {
        let (done, pid) = (done.clone(), child.id() as i32);
        std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(90);
            while Instant::now() < deadline {
                if done.load(std::sync::atomic::Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            // SAFETY: signals the child we started, which has not been reaped.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        })
    };
    let mut terminal = std::fs::File::from(master);
    let mut shown = Vec::new();
    let mut answered = false;
    let mut buf = [0u8; 4096];
    // Reading ends with EIO once the child and every copy of the slave are gone.
    while let Ok(n) = terminal.read(&mut buf) {
        if n == 0 {
            break;
        }
        shown.extend_from_slice(&buf[..n]);
        if !answered && String::from_utf8_lossy(&shown).contains(prompt) {
            terminal.write_all(answer.as_bytes()).unwrap();
            answered = true;
        }
    }
    let status = child.wait().unwrap();
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    watchdog.join().unwrap();
    (status.code(), String::from_utf8_lossy(&shown).into_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn delete_on_a_terminal_asks_first() {
    let cp = controlplane::shared();
    let client = cp.client();
    let ns = unique("ask");
    init(cp, &ns, "local", &[]);
    let args = [
        "delete",
        "--kube-namespace",
        &ns,
        "--kube-context-name",
        CONTEXT,
    ];

    let (code, shown) = on_a_terminal(cp, &args, "Delete these", "n");
    assert_eq!(code, Some(0), "{shown}");
    assert!(
        shown.contains("Deployment/runner"),
        "the plan is not shown: {shown}"
    );
    assert!(shown.contains("Nothing was deleted"), "{shown}");
    assert!(!labelled_names(&client, &ns).await.is_empty());

    let (code, shown) = on_a_terminal(cp, &args, "Delete these", "y");
    assert_eq!(code, Some(0), "{shown}");
    assert!(shown.contains("deleted"), "{shown}");
    let left: Vec<String> = labelled_names(&client, &ns)
        .await
        .into_iter()
        .filter(|l| !l.starts_with("Namespace/"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_proxy_password_stays_out_of_the_record_info_and_the_upgrade_diff() {
    let cp = controlplane::shared();
    let client = cp.client();
    let ns = unique("pxy");
    let out = init_then(
        cp,
        None,
        &ns,
        "local",
        "--no-wait",
        &[
            "--https-proxy",
            "http://proxyuser:OLDPASS@proxy.example.com:3128",
        ],
    );
    assert!(!text(&out).contains("OLDPASS"), "{}", text(&out));
    let secrets: Api<Secret> = Api::namespaced(client.clone(), &ns);
    let credentials = |secret: Secret| -> String {
        secret
            .data
            .unwrap_or_default()
            .values()
            .map(|v| String::from_utf8_lossy(&v.0).into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    };

    // The record keeps which proxy, without the password.
    let record = secrets.get("cf-runner-values").await.unwrap();
    let values_yaml = String::from_utf8(record.data.unwrap()["values.yaml"].0.clone()).unwrap();
    assert!(!values_yaml.contains("OLDPASS"), "{values_yaml}");
    assert!(
        values_yaml.contains("proxyuser:<redacted>@proxy.example.com:3128"),
        "{values_yaml}"
    );
    // The pods read it from the credentials Secret.
    let held = credentials(secrets.get("cf-runner-credentials").await.unwrap());
    assert!(held.contains("OLDPASS"), "{held}");
    let deployments: Api<k8s_openapi::api::apps::v1::Deployment> =
        Api::namespaced(client.clone(), &ns);
    let runner = serde_json::to_value(deployments.get("runner").await.unwrap()).unwrap();
    let runner_text = runner.to_string();
    assert!(
        !runner_text.contains("OLDPASS"),
        "a literal in the runner Deployment"
    );
    assert!(
        runner_text.contains("cf-runner-credentials"),
        "{runner_text}"
    );

    // info, in every format.
    for format in ["table", "json", "yaml"] {
        let out = cf_runner(
            cp,
            &[
                "info",
                "--kube-namespace",
                &ns,
                "--kube-context-name",
                CONTEXT,
                "-o",
                format,
            ],
        );
        assert!(out.status.success(), "{}", text(&out));
        assert!(
            !text(&out).contains("OLDPASS"),
            "info -o {format}: {}",
            text(&out)
        );
    }

    // upgrade: the diff hides both passwords; the new one reaches the Secret.
    let upgrade = |extra: &[&str]| {
        let mut args = vec![
            "upgrade",
            "--yes",
            "--kube-namespace",
            &ns,
            "--kube-context-name",
            CONTEXT,
            "--no-wait",
        ];
        args.extend_from_slice(extra);
        cf_runner(cp, &args)
    };
    let out = upgrade(&[
        "--https-proxy",
        "http://proxyuser:NEWPASS@proxy.example.com:3128",
    ]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        !said.contains("OLDPASS") && !said.contains("NEWPASS"),
        "{said}"
    );
    let held = credentials(secrets.get("cf-runner-credentials").await.unwrap());
    assert!(
        held.contains("NEWPASS") && !held.contains("OLDPASS"),
        "{held}"
    );
    assert!(
        said.contains("EnvVars.HTTPS_PROXY: credentials changed"),
        "{said}"
    );
    // Its pods read it only when they start: the runner is rolled.
    assert!(said.contains("restarted (new credentials)"), "{said}");
    let runner = deployments.get("runner").await.unwrap();
    let annotations = runner
        .spec
        .unwrap()
        .template
        .metadata
        .unwrap()
        .annotations
        .unwrap_or_default();
    assert!(
        annotations.contains_key("cf-runner.codefresh.io/restarted-at"),
        "{annotations:?}"
    );

    // Again with nothing new: the password is read back, not replaced by `<redacted>`.
    let out = upgrade(&[]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("values: unchanged"), "{}", text(&out));
    let held = credentials(secrets.get("cf-runner-credentials").await.unwrap());
    assert!(
        held.contains("NEWPASS") && !held.contains("<redacted>"),
        "{held}"
    );

    // Lost from the Secret: refused, never installed masked.
    secrets
        .delete("cf-runner-credentials", &Default::default())
        .await
        .unwrap();
    let out = upgrade(&[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("EnvVars.HTTPS_PROXY"), "{}", text(&out));
    assert!(!text(&out).contains("NEWPASS"), "{}", text(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn upgrade_on_a_terminal_shows_the_diff_before_it_asks() {
    let cp = controlplane::shared();
    let ns = unique("askdiff");
    init(cp, &ns, "local", &[]);
    let args = [
        "upgrade",
        "--kube-namespace",
        &ns,
        "--kube-context-name",
        CONTEXT,
        "--build-node-selector",
        "pool=builds",
        "--no-wait",
    ];
    let (code, shown) = on_a_terminal(cp, &args, "Upgrade?", "n");
    assert_eq!(code, Some(0), "{shown}");
    let before_prompt = &shown[..shown.find("Upgrade?").expect("it asks")];
    assert!(
        before_prompt.contains("+        pool: builds")
            || before_prompt.contains("+      pool: builds"),
        "the diff is not shown before the question: {shown}"
    );
    assert!(before_prompt.contains("0 to create"), "{shown}");
    assert!(shown.contains("Nothing was changed"), "{shown}");
}
