//! Benchmark (not a test: it asserts no timing and is ignored by default):
//! `cf-runner diagnose` of a runtime namespace holding 500 build pods (250
//! builds, an engine and a dind pod each; one in ten unschedulable, one in
//! ten OOM-killed, the rest running) and 5,000 events about them, on a
//! private test control plane. Wall time of the whole process (median of
//! several runs) and the API requests of one run, from the audit log.
//! Part of the `bench_apply` binary so it never shares its cores with
//! other tests.
//!
//! Run with: `bash bench/diagnose_scale.sh` (release build).

use std::time::Instant;

use futures::{stream, StreamExt};
use k8s_openapi::api::core::v1::{Event, Pod};
use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::{json, Value};

use crate::support::cli;
use crate::support::controlplane::ControlPlane;

const BUILDS: usize = 250;
const EVENTS_PER_POD: usize = 10;
/// Requests in flight while the namespace is filled.
const PARALLEL: usize = 16;

fn status_of(i: usize, now: &str) -> Value {
    let scheduled = json!({"type": "PodScheduled", "status": "True", "lastTransitionTime": now});
    match i % 10 {
        0 => json!({"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
            "reason": "Unschedulable", "lastTransitionTime": now,
            "message": "0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."}]}),
        1 => {
            json!({"phase": "Failed", "conditions": [scheduled], "containerStatuses": [{"name": "c",
            "image": "quay.io/codefresh/dind:26.1", "imageID": "", "ready": false, "restartCount": 0,
            "state": {"terminated": {"reason": "OOMKilled", "exitCode": 137, "startedAt": now, "finishedAt": now}}}]})
        }
        _ => {
            json!({"phase": "Running", "conditions": [scheduled], "containerStatuses": [{"name": "c",
            "image": "quay.io/codefresh/dind:26.1", "imageID": "", "ready": true, "restartCount": 0,
            "state": {"running": {"startedAt": now}}}]})
        }
    }
}

/// One build pod, created and given its status.
async fn seed_pod(pods: &Api<Pod>, name: String, i: usize, now: &str) {
    let pod = json!({"metadata": {"name": name, "labels": {"app": if name.starts_with("dind") { "dind" } else { "runtime" }}},
        "spec": {"schedulerName": "cf-runner-bench-no-scheduler", "containers": [{"name": "c",
            "image": "quay.io/codefresh/dind:26.1",
            "resources": {"requests": {"cpu": "1", "memory": "4Gi"}, "limits": {"memory": "8Gi"}}}]}});
    pods.create(
        &PostParams::default(),
        &serde_json::from_value(pod).unwrap(),
    )
    .await
    .unwrap();
    let status = json!({"status": status_of(i, now)});
    pods.patch_status(&name, &PatchParams::default(), &Patch::Merge(status))
        .await
        .unwrap();
}

async fn seed_event(events: &Api<Event>, ns: &str, pod: &str, n: usize, now: &str) {
    // The unschedulable pods (build 0, 10, 20, ...) get the scheduler's
    // complaints; the others the kubelet's routine.
    let unschedulable = pod.ends_with('0') && n >= 5;
    let (reason, message) = match if unschedulable { 5 } else { n % 5 } {
        0 => (
            "Scheduled",
            format!("Successfully assigned {ns}/{pod} to node-1"),
        ),
        1 => (
            "Pulling",
            "Pulling image \"quay.io/codefresh/dind:26.1\"".to_string(),
        ),
        2 => ("Pulled", "Successfully pulled image".to_string()),
        3 => ("Created", "Created container c".to_string()),
        4 => ("Started", "Started container c".to_string()),
        _ => (
            "FailedScheduling",
            "0/3 nodes are available: 3 Insufficient memory.".to_string(),
        ),
    };
    let e = json!({"metadata": {"name": format!("{pod}.{n}")},
        "involvedObject": {"kind": "Pod", "name": pod, "namespace": ns, "apiVersion": "v1"},
        "reason": reason, "message": message, "type": "Normal",
        "firstTimestamp": now, "lastTimestamp": now, "count": 1, "source": {"component": "bench"}});
    events
        .create(&PostParams::default(), &serde_json::from_value(e).unwrap())
        .await
        .unwrap();
}

async fn seed(cp: &ControlPlane, ns: &str) {
    let now = k8s_openapi::jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string();
    let pods: Api<Pod> = Api::namespaced(cp.client(), ns);
    let events: Api<Event> = Api::namespaced(cp.client(), ns);
    let names: Vec<(usize, String)> = (0..BUILDS)
        .flat_map(|b| [(b, format!("dind-b{b}")), (b, format!("engine-b{b}"))])
        .collect();
    stream::iter(names.iter().cloned())
        .for_each_concurrent(PARALLEL, |(i, name)| {
            let (pods, now) = (&pods, &now);
            async move { seed_pod(pods, name, i, now).await }
        })
        .await;
    let all: Vec<(String, usize)> = names
        .iter()
        .flat_map(|(_, name)| (0..EVENTS_PER_POD).map(move |n| (name.clone(), n)))
        .collect();
    stream::iter(all)
        .for_each_concurrent(PARALLEL, |(pod, n)| {
            let (events, now) = (&events, &now);
            async move { seed_event(events, ns, &pod, n, now).await }
        })
        .await;
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark: run with bench/diagnose_scale.sh"]
async fn diagnose_500_build_pods_and_5000_events() {
    let cp = ControlPlane::start().expect("a private control plane");
    let ns = cp.create_namespace("bench-diagnose").await.unwrap();
    let started = Instant::now();
    seed(&cp, &ns).await;
    println!(
        "seeded {} build pods and {} events in {:.1}s",
        BUILDS * 2,
        BUILDS * 2 * EVENTS_PER_POD,
        started.elapsed().as_secs_f64()
    );
    let kubeconfig = cp.admin_kubeconfig().to_path_buf();
    let runs: usize = std::env::var("CF_RUNNER_BENCH_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(7);
    let mut times = Vec::new();
    let mut requests = 0;
    for run in 0..runs {
        let mark = cp.audit_events().unwrap().len();
        let (kubeconfig, ns) = (kubeconfig.clone(), ns.clone());
        let start = Instant::now();
        let out = tokio::task::spawn_blocking(move || {
            cli::run(
                &kubeconfig,
                &["diagnose", "--kube-namespace", &ns, "-o", "json"],
            )
        })
        .await
        .unwrap();
        times.push(start.elapsed().as_secs_f64());
        assert_eq!(out.status.code(), Some(1), "{}", cli::text(&out));
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        let pods = report["runtimes"][0]["pods"].as_array().unwrap();
        assert_eq!(pods.len(), BUILDS * 2);
        let with_causes = pods
            .iter()
            .filter(|p| p["causes"].as_array().is_some_and(|c| !c.is_empty()));
        assert_eq!(
            with_causes.count(),
            BUILDS * 2 / 5,
            "one in ten unschedulable, one in ten OOM-killed"
        );
        if run == 0 {
            requests = crate::support::audit::answered_for(&cp, mark, "cf-runner").len();
        }
    }
    println!(
        "diagnose of {} build pods and {} events: median {:.2}s, fastest {:.2}s, slowest {:.2}s over {runs} runs; {requests} API requests per run",
        BUILDS * 2,
        BUILDS * 2 * EVENTS_PER_POD,
        median(times.clone()),
        times.iter().cloned().fold(f64::MAX, f64::min),
        times.iter().cloned().fold(0.0, f64::max),
    );
}
