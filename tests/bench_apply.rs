//! Benchmark (not a test: it asserts no timing and is ignored by default):
//! `cf-runner init` up to "all objects applied" against
//! `kubectl apply --server-side -f <the same dry-run folder>`, on a private
//! test control plane. Wall time (median of several runs, each into a fresh
//! namespace), API requests and writes per run, from the audit log.
//!
//! Run with: `bash bench/apply_vs_kubectl.sh` (release build).

mod support;

use std::path::{Path, PathBuf};
use std::time::Instant;

use support::cli;
use support::controlplane::ControlPlane;

const RUNS: usize = 7;

struct Sample {
    millis: f64,
    requests: usize,
    writes: usize,
    /// SelfSubjectAccessReviews and SelfSubjectRulesReviews among the requests.
    reviews: (usize, usize),
}

fn cf_runner(kubeconfig: &Path, args: &[&str]) -> std::process::Output {
    cli::run(kubeconfig, args)
}

fn count_requests(cp: &ControlPlane, since: usize, agent: &str) -> (usize, usize, (usize, usize)) {
    let events: Vec<serde_json::Value> = cp
        .audit_events()
        .unwrap()
        .into_iter()
        .skip(since)
        .filter(|e| e["stage"] == "ResponseComplete")
        .filter(|e| {
            e["userAgent"]
                .as_str()
                .unwrap_or_default()
                .to_ascii_lowercase()
                .starts_with(agent)
        })
        .collect();
    // Writes change stored objects: access reviews and server dry-runs do not.
    let writes = events
        .iter()
        .filter(|e| {
            matches!(
                e["verb"].as_str(),
                Some("create" | "update" | "patch" | "delete")
            )
        })
        .filter(|e| {
            !matches!(
                e["objectRef"]["resource"].as_str(),
                Some("selfsubjectaccessreviews" | "selfsubjectrulesreviews")
            )
        })
        .filter(|e| {
            !e["requestURI"]
                .as_str()
                .unwrap_or_default()
                .contains("dryRun=All")
        })
        .count();
    let of = |resource: &str| {
        events
            .iter()
            .filter(|e| e["objectRef"]["resource"] == resource)
            .count()
    };
    let reviews = (
        of("selfsubjectaccessreviews"),
        of("selfsubjectrulesreviews"),
    );
    (events.len(), writes, reviews)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn summarize(name: &str, samples: &[Sample], objects: usize) {
    let ms = median(samples.iter().map(|s| s.millis).collect());
    let requests = median(samples.iter().map(|s| s.requests as f64).collect());
    let writes = median(samples.iter().map(|s| s.writes as f64).collect());
    println!(
        "{name:58} median {ms:7.1} ms  requests {requests:4.0}  writes {writes:4.0}  ({:.2} writes/object)",
        writes / objects as f64
    );
}

#[test]
#[ignore = "benchmark: run with bench/apply_vs_kubectl.sh"]
fn apply_cf_runner_vs_kubectl() {
    let cp = ControlPlane::start().expect("a private control plane");
    let kubeconfig = cp.admin_kubeconfig().to_path_buf();
    let example = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("values-examples/local.yaml");
    let example = example.to_str().unwrap();
    let context = "admin@cf-runner-test";
    let mut objects = 0;
    let (mut first, mut rerun, mut with_check, mut kubectl, mut kubectl_rerun) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());

    for i in 0..RUNS {
        // cf-runner, fresh install, no preflight, no readiness wait.
        let ns = format!("bench-cf-{i}");
        let base = [
            "init",
            "--yes",
            "--values",
            example,
            "--kube-context-name",
            context,
            "--kube-namespace",
            &ns,
            "--agent-token",
            "bench",
            "--no-wait",
        ];
        let mut args = base.to_vec();
        args.push("--skip-cluster-test");
        for target in [&mut first, &mut rerun] {
            let mark = cp.audit_events().unwrap().len();
            let start = Instant::now();
            let out = cf_runner(&kubeconfig, &args);
            let millis = start.elapsed().as_secs_f64() * 1000.0;
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let (requests, writes, reviews) = count_requests(&cp, mark, "cf-runner");
            target.push(Sample {
                millis,
                requests,
                writes,
                reviews,
            });
        }
        // cf-runner with its preflight checks, into another fresh namespace.
        let ns_checked = format!("bench-cfc-{i}");
        let mut args: Vec<&str> = base.to_vec();
        args[7] = &ns_checked;
        let mark = cp.audit_events().unwrap().len();
        let start = Instant::now();
        let out = cf_runner(&kubeconfig, &args);
        let millis = start.elapsed().as_secs_f64() * 1000.0;
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let (requests, writes, reviews) = count_requests(&cp, mark, "cf-runner");
        with_check.push(Sample {
            millis,
            requests,
            writes,
            reviews,
        });

        // kubectl, the same objects from a dry-run folder (Kubernetes objects only).
        let ns = format!("bench-kc-{i}");
        let dir = tempfile::tempdir().unwrap();
        let out_dir = dir.path().join("m");
        let out = cf_runner(
            &kubeconfig,
            &[
                "init",
                "--yes",
                "--values",
                example,
                "--kube-context-name",
                context,
                "--kube-namespace",
                &ns,
                "--agent-token",
                "bench",
                "--dry-run",
                "--output-dir",
                out_dir.to_str().unwrap(),
            ],
        );
        assert!(out.status.success());
        std::fs::remove_file(out_dir.join("runtime-environment.txt")).unwrap();
        objects = std::fs::read_dir(&out_dir).unwrap().count();
        for target in [&mut kubectl, &mut kubectl_rerun] {
            let mark = cp.audit_events().unwrap().len();
            let start = Instant::now();
            let out = cp
                .kubectl()
                .args([
                    "apply",
                    "--server-side",
                    "--field-manager",
                    "kubectl-bench",
                    "-f",
                ])
                .arg(&out_dir)
                .output()
                .unwrap();
            let millis = start.elapsed().as_secs_f64() * 1000.0;
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let (requests, writes, reviews) = count_requests(&cp, mark, "kubectl");
            target.push(Sample {
                millis,
                requests,
                writes,
                reviews,
            });
        }
    }
    println!("\n{objects} objects (values-examples/local.yaml), {RUNS} runs each, median:");
    println!("load average: {}", load_average());
    summarize(
        "cf-runner init --skip-cluster-test --no-wait (fresh)",
        &first,
        objects,
    );
    summarize(
        "cf-runner init --no-wait, with preflight (fresh)",
        &with_check,
        objects,
    );
    summarize(
        "kubectl apply --server-side -f <dry-run folder> (fresh)",
        &kubectl,
        objects,
    );
    // The preflight's own requests: the same install with and without it,
    // run by run; and the install with the preflight over kubectl's apply,
    // pair by pair (both in the same iteration of the loop).
    let preflight = median(
        with_check
            .iter()
            .zip(&first)
            .map(|(c, f)| c.requests as f64 - f.requests as f64)
            .collect(),
    );
    let access = median(with_check.iter().map(|c| c.reviews.0 as f64).collect());
    let rules = median(with_check.iter().map(|c| c.reviews.1 as f64).collect());
    let ratios: Vec<f64> = with_check
        .iter()
        .zip(&kubectl)
        .map(|(c, k)| c.millis / k.millis)
        .collect();
    println!(
        "preflight: {preflight:.0} requests (of which {access:.0} access reviews, {rules:.0} rules reviews); \
         cf-runner with preflight / kubectl: x{:.2} median, x{:.2}..x{:.2} over pairs",
        median(ratios.clone()),
        ratios.iter().cloned().fold(f64::INFINITY, f64::min),
        ratios.iter().cloned().fold(0.0, f64::max),
    );
    summarize(
        "cf-runner init --skip-cluster-test --no-wait (re-run)",
        &rerun,
        objects,
    );
    summarize(
        "kubectl apply --server-side (re-run)",
        &kubectl_rerun,
        objects,
    );
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}
