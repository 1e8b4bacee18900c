//! A binary of its own: it adds a kwok node no pod fits on and runs probe
//! pods with the registry's failures staged by kwok, on a control plane
//! whose nodes other tests would see change (the scheduler's `0/N nodes`
//! count, the preflight's node room) and whose probe pods would compete with
//! the tests of `e2e_preflight_nodes`, which delete the nodes they add.
//!
//! `check --probe` on the control plane, where kwok stands in for the nodes:
//! a probe that gets its volume (the test plays the provisioner) passes
//! every stage; an unschedulable pod, an image the registry lacks and a claim
//! nobody provisions fail at their stage with the reason; every run leaves no
//! probe object behind.
//! kwok cannot show a real image pull or a real volume; see docs/guide/check-and-probe.md.

mod support;

use std::process::Output;
use std::time::{Duration, Instant};

use kube::api::{Api, DynamicObject, ListParams, PostParams};
use kube::Client;
use serde_json::{json, Value};
use support::cli::{example, isolated, shared_home, text};
use support::controlplane::{self, ControlPlane};
use support::namespace::unique;

const AGENT_TOKEN: &str = "agent-token-for-probe-0123456789";
const CONTEXT: &str = "admin@cf-runner-test";

fn cf_runner(cp: &ControlPlane, args: &[&str]) -> Output {
    isolated(cp.admin_kubeconfig(), shared_home())
        .args(args)
        .output()
        .unwrap()
}

fn init(cp: &ControlPlane, ns: &str) {
    let ex = example("local");
    let out = cf_runner(
        cp,
        &[
            "init",
            "--yes",
            "--values",
            ex.to_str().unwrap(),
            "--kube-namespace",
            ns,
            "--kube-context-name",
            CONTEXT,
            "--skip-cluster-test",
            "--no-wait",
            "--agent-token",
            AGENT_TOKEN,
        ],
    );
    assert!(out.status.success(), "init: {}", text(&out));
}

/// `check --probe -o json` for the local example in `ns`.
async fn probe(cp: &'static ControlPlane, ns: &str, extra: &[&str]) -> (Output, Value) {
    let ex = example("local");
    let mut args: Vec<String> = [
        "check",
        "-f",
        ex.to_str().unwrap(),
        "--kube-namespace",
        ns,
        "--kube-context-name",
        CONTEXT,
        "--probe",
        "-o",
        "json",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    let started = Instant::now();
    let out = tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        cf_runner(cp, &args)
    })
    .await
    .unwrap();
    // A figure for the report, not a check.
    eprintln!("check --probe {extra:?} took {:?}", started.elapsed());
    let report =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    (out, report)
}

/// Probe objects left in `ns`.
async fn leftovers(client: &Client, ns: &str) -> Vec<String> {
    let lp = ListParams::default().labels("cf-runner.codefresh.io/probe=true");
    let mut out = Vec::new();
    for (kind, plural) in [
        ("Pod", "pods"),
        ("PersistentVolumeClaim", "persistentvolumeclaims"),
    ] {
        let ar = kube::api::ApiResource::from_gvk_with_plural(
            &kube::api::GroupVersionKind::gvk("", "v1", kind),
            plural,
        );
        let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), ns, &ar);
        for item in api.list(&lp).await.unwrap().items {
            // Gone once deleted; a deletion in progress counts as cleaned up.
            if item.metadata.deletion_timestamp.is_none() {
                out.push(format!("{kind}/{}", item.metadata.name.unwrap_or_default()));
            }
        }
    }
    out
}

/// Plays the volume provisioner: a PersistentVolume for the probe's claim.
async fn provide_volume(client: Client, ns: String) {
    let pvs: Api<DynamicObject> = Api::all_with(
        client.clone(),
        &kube::api::ApiResource::from_gvk_with_plural(
            &kube::api::GroupVersionKind::gvk("", "v1", "PersistentVolume"),
            "persistentvolumes",
        ),
    );
    let claims: Api<DynamicObject> = Api::namespaced_with(
        client,
        &ns,
        &kube::api::ApiResource::from_gvk_with_plural(
            &kube::api::GroupVersionKind::gvk("", "v1", "PersistentVolumeClaim"),
            "persistentvolumeclaims",
        ),
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if let Ok(Some(claim)) = claims.get_opt("cf-runner-probe").await {
            let class = claim.data["spec"]["storageClassName"].clone();
            let pv: DynamicObject = serde_json::from_value(json!({
                "apiVersion": "v1",
                "kind": "PersistentVolume",
                "metadata": {"name": format!("probe-{ns}")},
                "spec": {
                    "capacity": {"storage": "1Gi"},
                    "accessModes": ["ReadWriteOnce"],
                    "storageClassName": class,
                    "persistentVolumeReclaimPolicy": "Retain",
                    "hostPath": {"path": "/tmp/probe"},
                    "claimRef": {"namespace": ns, "name": "cf-runner-probe",
                        "uid": claim.metadata.uid},
                },
            }))
            .unwrap();
            pvs.create(&PostParams::default(), &pv).await.unwrap();
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn stage<'a>(report: &'a Value, name: &str) -> Option<&'a Value> {
    report["probe"]
        .as_array()?
        .iter()
        .find(|s| s["name"] == name)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_probe_that_gets_its_volume_passes_every_stage_and_cleans_up() {
    let cp = controlplane::shared();
    let client = cp.client();
    let ns = unique("probeok");
    init(cp, &ns);
    let provisioner = tokio::spawn(provide_volume(client.clone(), ns.clone()));
    let (out, report) = probe(cp, &ns, &["--probe-timeout", "60s"]).await;
    provisioner.await.unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    for name in [
        "volume bound",
        "scheduled",
        "image pulled",
        "started",
        "platform reached",
    ] {
        let s = stage(&report, name).unwrap_or_else(|| panic!("no {name} stage: {report}"));
        assert_eq!(s["passed"], true, "{s}");
    }
    assert!(stage(&report, "scheduled").unwrap()["detail"]
        .as_str()
        .unwrap()
        .contains("kwok-node-"));
    assert_eq!(leftovers(&client, &ns).await, Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn an_unschedulable_probe_names_the_schedulers_reason_and_cleans_up() {
    let cp = controlplane::shared();
    let client = cp.client();
    let ns = unique("probeunsched");
    init(cp, &ns);
    // A node the builds are pinned to that may run no pod at all: the
    // preflight sees a matching node with room (it reads selectors, taints
    // and CPU and memory, not the pod count), and only the scheduler can
    // say no, as the probe must show.
    let node = controlplane::add_node(
        &format!("{ns}-tainted"),
        controlplane::NodeShape {
            labels: &[("cf-runner-probe-test", &ns)],
            taints: json!([]),
            cpu: "4",
            memory: "16Gi",
            pods: "0",
        },
    );
    let provisioner = tokio::spawn(provide_volume(client.clone(), ns.clone()));
    let selector = format!("Runtime.NodeSelector=cf-runner-probe-test={ns}");
    let (out, report) = probe(
        cp,
        &ns,
        &["--set-value", &selector, "--probe-timeout", "60s"],
    )
    .await;
    provisioner.await.unwrap();
    drop(node);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let s = stage(&report, "scheduled").unwrap_or_else(|| panic!("{report}"));
    assert_eq!(s["passed"], false, "{s}");
    let detail = s["detail"].as_str().unwrap();
    assert!(detail.starts_with("Unschedulable: 0/"), "{detail}");
    assert!(
        s["fix"].as_str().unwrap().contains("Runtime.NodeSelector"),
        "{s}"
    );
    assert_eq!(leftovers(&client, &ns).await, Vec::<String>::new());
}

/// An image the registry does not have: the node reports ErrImagePull (a
/// kwok stage plays it for image names containing `does-not-exist`), and
/// the probe must say so at the pull, with the image and the node's reason.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn an_image_the_registry_lacks_fails_at_the_pull_and_cleans_up() {
    let cp = controlplane::shared();
    let client = cp.client();
    let ns = unique("probepull");
    init(cp, &ns);
    let provisioner = tokio::spawn(provide_volume(client.clone(), ns.clone()));
    // Only the probe's dind image moves to the missing registry: `check`
    // renders with it, the installed workloads keep theirs.
    let (out, report) = probe(
        cp,
        &ns,
        &[
            "--set-value",
            "DockerRegistry=registry.does-not-exist.test",
            "--probe-timeout",
            "60s",
        ],
    )
    .await;
    provisioner.await.unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let scheduled = stage(&report, "scheduled").unwrap_or_else(|| panic!("{report}"));
    assert_eq!(scheduled["passed"], true, "{scheduled}");
    let s = stage(&report, "image pulled").unwrap_or_else(|| panic!("{report}"));
    assert_eq!(s["passed"], false, "{s}");
    let detail = s["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("ErrImagePull for registry.does-not-exist.test/"),
        "{detail}"
    );
    assert!(detail.contains("not found (simulated by kwok)"), "{detail}");
    assert!(
        s["fix"]
            .as_str()
            .unwrap()
            .contains("cf-runner images --check"),
        "{s}"
    );
    assert!(stage(&report, "started").is_none(), "{report}");
    assert_eq!(leftovers(&client, &ns).await, Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_claim_nobody_provisions_fails_at_the_volume_and_cleans_up() {
    let cp = controlplane::shared();
    let client = cp.client();
    let ns = unique("probenovol");
    init(cp, &ns);
    let (out, report) = probe(cp, &ns, &["--probe-timeout", "5s"]).await;
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let s = stage(&report, "volume bound").unwrap_or_else(|| panic!("{report}"));
    assert_eq!(s["passed"], false, "{s}");
    assert!(
        s["detail"]
            .as_str()
            .unwrap()
            .contains("was not bound within 5s"),
        "{s}"
    );
    assert!(stage(&report, "scheduled").is_none(), "{report}");
    assert_eq!(leftovers(&client, &ns).await, Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn init_probe_tries_the_build_path_after_the_install() {
    let cp = controlplane::shared();
    let client = cp.client();
    let ns = unique("initprobe");
    let provisioner = tokio::spawn(provide_volume(client.clone(), ns.clone()));
    let ns_arg = ns.clone();
    let out = tokio::task::spawn_blocking(move || {
        let ex = example("local");
        cf_runner(
            cp,
            &[
                "init",
                "--yes",
                "--values",
                ex.to_str().unwrap(),
                "--kube-namespace",
                &ns_arg,
                "--kube-context-name",
                CONTEXT,
                "--skip-cluster-test",
                "--no-wait",
                "--agent-token",
                AGENT_TOKEN,
                "--probe",
                "--probe-timeout",
                "60s",
            ],
        )
    })
    .await
    .unwrap();
    provisioner.await.unwrap();
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    for name in [
        "volume bound",
        "scheduled",
        "image pulled",
        "started",
        "platform reached",
    ] {
        assert!(said.contains(&format!("✓ probe: {name}")), "{name}: {said}");
    }
    assert!(said.contains("the build path works"), "{said}");
    assert_eq!(leftovers(&client, &ns).await, Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn delete_removes_what_a_killed_probe_left() {
    let cp = controlplane::shared();
    let client = cp.client();
    let ns = unique("probeleft");
    init(cp, &ns);
    // What a probe killed with SIGKILL leaves: its claim, with its labels.
    let claims: Api<DynamicObject> = Api::namespaced_with(
        client.clone(),
        &ns,
        &kube::api::ApiResource::from_gvk_with_plural(
            &kube::api::GroupVersionKind::gvk("", "v1", "PersistentVolumeClaim"),
            "persistentvolumeclaims",
        ),
    );
    let claim: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "cf-runner-probe", "labels": {
            "cf-runner.codefresh.io/probe": "true",
            "app.kubernetes.io/managed-by": "cf-runner",
            "app.kubernetes.io/instance": ns,
        }},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }))
    .unwrap();
    claims.create(&PostParams::default(), &claim).await.unwrap();
    assert_eq!(
        leftovers(&client, &ns).await,
        vec!["PersistentVolumeClaim/cf-runner-probe".to_string()]
    );
    let ns_arg = ns.clone();
    let out = tokio::task::spawn_blocking(move || {
        cf_runner(
            cp,
            &[
                "delete",
                "--yes",
                "--kube-namespace",
                &ns_arg,
                "--kube-context-name",
                CONTEXT,
                "--timeout",
                "90s",
            ],
        )
    })
    .await
    .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(leftovers(&client, &ns).await, Vec::<String>::new());
}
