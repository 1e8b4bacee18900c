//! A binary of its own: a benchmark, which `bench/apply_vs_kubectl.sh`
//! builds alone in release and times; tests running beside it in one
//! binary would share its two cores and skew every figure.
//!
//! Benchmark (not a test: it asserts no timing and is ignored by default):
//! `cf-runner init` up to "all objects applied" against
//! `kubectl apply --server-side -f <the same dry-run folder>`, on a private
//! test control plane. Wall time (median of several runs, each into a fresh
//! namespace), API requests and writes per run, from the audit log.
//!
//! The same through a loopback HTTP CONNECT proxy (`proxy-url`), for both:
//! `apply_through_proxy_cf_runner_vs_kubectl`.
//!
//! Run with: `bash bench/apply_vs_kubectl.sh`, `bash bench/apply_through_proxy.sh`
//! (release build).
//!
//! The `diagnose` benchmark lives here too (`bench_diagnose`), for the
//! same reason.

mod bench_diagnose;
mod support;

use std::path::{Path, PathBuf};
use std::time::Instant;

use support::cli;
use support::controlplane::ControlPlane;

/// Runs of each kind; `CF_RUNNER_BENCH_RUNS` sets another number (more
/// pairs when comparing two builds whose difference is below the spread).
fn runs() -> usize {
    std::env::var("CF_RUNNER_BENCH_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(7)
}

struct Sample {
    millis: f64,
    requests: usize,
    writes: usize,
    /// SelfSubjectAccessReviews and SelfSubjectRulesReviews among the requests.
    reviews: (usize, usize),
}

/// Times `run` as a whole process, checks that it succeeded, and counts the
/// requests `agent` sent meanwhile (from the audit log).
fn sample(cp: &ControlPlane, agent: &str, run: impl FnOnce() -> std::process::Output) -> Sample {
    let mark = cp.audit_events().unwrap().len();
    let start = Instant::now();
    let out = run();
    let millis = start.elapsed().as_secs_f64() * 1000.0;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (requests, writes, reviews) = count_requests(cp, mark, agent);
    Sample {
        millis,
        requests,
        writes,
        reviews,
    }
}

fn cf_runner(kubeconfig: &Path, args: &[&str]) -> std::process::Output {
    cli::run(kubeconfig, args)
}

/// Another build of cf-runner to time side by side with this one
/// (`CF_RUNNER_BENCH_BEFORE=<path>`, e.g. a copy of the binary before a
/// change): same control plane, same load, its own fresh namespaces.
fn before_binary() -> Option<PathBuf> {
    std::env::var_os("CF_RUNNER_BENCH_BEFORE").map(PathBuf::from)
}

/// `bin` run as [`cli::run`] runs this build's binary.
fn run_other(bin: &Path, kubeconfig: &Path, args: &[&str]) -> std::process::Output {
    let home = tempfile::tempdir().unwrap();
    let cmd = cli::isolated(kubeconfig, home.path());
    let mut other = std::process::Command::new(bin);
    other.current_dir(home.path()).env_clear();
    for (k, v) in cmd.get_envs() {
        if let Some(v) = v {
            other.env(k, v);
        }
    }
    if let Some(path) = std::env::var_os("PATH") {
        other.env("PATH", path);
    }
    other
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
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
        .filter(|e| !crate::support::audit::is_dry_run(e))
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
    let mut before: Vec<Sample> = Vec::new();

    for i in 0..runs() {
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
            target.push(sample(&cp, "cf-runner", || cf_runner(&kubeconfig, &args)));
        }
        // cf-runner with its preflight checks, into another fresh namespace.
        let ns_checked = format!("bench-cfc-{i}");
        let mut args: Vec<&str> = base.to_vec();
        args[7] = &ns_checked;
        with_check.push(sample(&cp, "cf-runner", || cf_runner(&kubeconfig, &args)));
        if let Some(bin) = before_binary() {
            let ns_before = format!("bench-cfb-{i}");
            let mut args: Vec<&str> = base.to_vec();
            args[7] = &ns_before;
            before.push(sample(&cp, "cf-runner", || {
                run_other(&bin, &kubeconfig, &args)
            }));
        }

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
            target.push(sample(&cp, "kubectl", || {
                cp.kubectl()
                    .args([
                        "apply",
                        "--server-side",
                        "--field-manager",
                        "kubectl-bench",
                        "-f",
                    ])
                    .arg(&out_dir)
                    .output()
                    .unwrap()
            }));
        }
    }
    println!(
        "\n{objects} objects (values-examples/local.yaml), {} runs each, median:",
        runs()
    );
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
        "preflight: {preflight:.0} requests (the whole run sent {access:.0} access reviews, {rules:.0} rules reviews); \
         cf-runner with preflight / kubectl: x{:.2} median, x{:.2}..x{:.2} over pairs",
        median(ratios.clone()),
        ratios.iter().cloned().fold(f64::INFINITY, f64::min),
        ratios.iter().cloned().fold(0.0, f64::max),
    );
    if !before.is_empty() {
        summarize(
            "CF_RUNNER_BENCH_BEFORE init --no-wait, with preflight",
            &before,
            objects,
        );
        let ratios: Vec<f64> = before
            .iter()
            .zip(&kubectl)
            .map(|(c, k)| c.millis / k.millis)
            .collect();
        println!(
            "before / kubectl: x{:.2} median, x{:.2}..x{:.2} over pairs",
            median(ratios.clone()),
            ratios.iter().cloned().fold(f64::INFINITY, f64::min),
            ratios.iter().cloned().fold(0.0, f64::max),
        );
    }
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

/// A copy of `kubeconfig` in `dir` whose clusters go through `proxy_url`.
fn proxied(kubeconfig: &Path, proxy_url: &str, dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(kubeconfig).unwrap();
    let mut config: serde_yaml_ng::Value = serde_yaml_ng::from_str(&text).unwrap();
    for cluster in config["clusters"].as_sequence_mut().unwrap() {
        cluster["cluster"]["proxy-url"] = proxy_url.into();
    }
    let path = dir.join("proxied-kubeconfig");
    std::fs::write(&path, serde_yaml_ng::to_string(&config).unwrap()).unwrap();
    path
}

/// The pairwise ratio `a / b`: median, lowest, highest.
fn ratios(a: &[Sample], b: &[Sample]) -> (f64, f64, f64) {
    let r: Vec<f64> = a.iter().zip(b).map(|(a, b)| a.millis / b.millis).collect();
    let low = r.iter().cloned().fold(f64::INFINITY, f64::min);
    let high = r.iter().cloned().fold(0.0, f64::max);
    (median(r), low, high)
}

/// Benchmark: the install through a loopback HTTP CONNECT proxy named in
/// the kubeconfig's `proxy-url` (as behind a corporate proxy), against
/// `kubectl apply --server-side` of the same objects through the same proxy
/// and kubeconfig; and the same install direct, for what the proxy costs.
/// Tunnels per run come from the proxy's own log.
#[test]
#[ignore = "benchmark: run with bench/apply_through_proxy.sh"]
fn apply_through_proxy_cf_runner_vs_kubectl() {
    let cp = ControlPlane::start().expect("a private control plane");
    let (proxy, log) = support::connect_proxy::start();
    let dir = tempfile::tempdir().unwrap();
    let direct = cp.admin_kubeconfig().to_path_buf();
    let kubeconfig = proxied(&direct, &proxy, dir.path());
    let example = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("values-examples/local.yaml");
    let example = example.to_str().unwrap();
    let (mut cf, mut cf_direct, mut kubectl) = (Vec::new(), Vec::new(), Vec::new());
    let (mut cf_tunnels, mut kubectl_tunnels, mut objects) = (Vec::new(), Vec::new(), 0);
    let tunnels = || log.lock().unwrap().len();
    for i in 0..runs() {
        let install = |ns: &str| -> Vec<String> {
            let args = ["init", "--yes", "--values", example, "--kube-namespace", ns];
            let rest = ["--kube-context-name", "admin@cf-runner-test"];
            let rest = rest.iter().chain(&["--agent-token", "bench", "--no-wait"]);
            args.iter().chain(rest).map(|a| a.to_string()).collect()
        };
        let args = install(&format!("bench-pcf-{i}"));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mark = tunnels();
        cf.push(sample(&cp, "cf-runner", || cf_runner(&kubeconfig, &args)));
        cf_tunnels.push((tunnels() - mark) as f64);
        let args = install(&format!("bench-dcf-{i}"));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        cf_direct.push(sample(&cp, "cf-runner", || cf_runner(&direct, &args)));

        let out_dir = dir.path().join(format!("m{i}"));
        let mut args = install(&format!("bench-pkc-{i}"));
        args.extend(["--dry-run".into(), "--output-dir".into()]);
        args.push(out_dir.to_str().unwrap().into());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert!(cf_runner(&direct, &args).status.success());
        std::fs::remove_file(out_dir.join("runtime-environment.txt")).unwrap();
        objects = std::fs::read_dir(&out_dir).unwrap().count();
        let mark = tunnels();
        kubectl.push(sample(&cp, "kubectl", || {
            std::process::Command::new(cp.bin("kubectl"))
                .arg("--kubeconfig")
                .arg(&kubeconfig)
                .args([
                    "apply",
                    "--server-side",
                    "--field-manager",
                    "kubectl-bench",
                    "-f",
                ])
                .arg(&out_dir)
                .output()
                .unwrap()
        }));
        kubectl_tunnels.push((tunnels() - mark) as f64);
    }
    println!(
        "\n{objects} objects (values-examples/local.yaml), {} runs each, through {proxy}, median:",
        runs()
    );
    println!("load average: {}", load_average());
    summarize(
        "cf-runner init --no-wait, with preflight, proxy",
        &cf,
        objects,
    );
    summarize(
        "kubectl apply --server-side -f <dry-run folder>, proxy",
        &kubectl,
        objects,
    );
    summarize(
        "cf-runner init --no-wait, with preflight, direct",
        &cf_direct,
        objects,
    );
    println!(
        "tunnels per run: cf-runner {:.0}, kubectl {:.0}",
        median(cf_tunnels),
        median(kubectl_tunnels)
    );
    let (mid, low, high) = ratios(&cf, &kubectl);
    println!(
        "cf-runner / kubectl through the proxy: x{mid:.2} median, x{low:.2}..x{high:.2} over pairs"
    );
    let (mid, low, high) = ratios(&cf, &cf_direct);
    println!(
        "cf-runner through the proxy / direct: x{mid:.2} median, x{low:.2}..x{high:.2} over pairs"
    );
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// Seconds since midnight UTC of an audit timestamp
/// (`2026-01-02T03:04:05.123456Z`).
fn seconds_of_day(stamp: &str) -> f64 {
    let time = stamp.split('T').nth(1).unwrap_or_default();
    let time = time.trim_end_matches('Z');
    let mut parts = time.split(':');
    let h: f64 = parts.next().unwrap_or("0").parse().unwrap_or(0.0);
    let m: f64 = parts.next().unwrap_or("0").parse().unwrap_or(0.0);
    let s: f64 = parts.next().unwrap_or("0").parse().unwrap_or(0.0);
    h * 3600.0 + m * 60.0 + s
}

/// Benchmark aid: the per-request timeline of one `init` with its preflight
/// into a fresh namespace (after a warm-up install), from the audit log:
/// when each request reached the API server and when it was answered, in
/// ms after the process was started. `CF_RUNNER_TIMELINE_ARGS` adds
/// arguments (e.g. `--skip-cluster-test`); `CF_RUNNER_TIMELINE_BIN` runs
/// another build of cf-runner.
#[test]
#[ignore = "benchmark aid: run with --ignored --nocapture"]
fn timeline_of_one_install() {
    let cp = ControlPlane::start().expect("a private control plane");
    let kubeconfig = cp.admin_kubeconfig().to_path_buf();
    let example = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("values-examples/local.yaml");
    let extra = std::env::var("CF_RUNNER_TIMELINE_ARGS").unwrap_or_default();
    for i in 0..3 {
        let ns = format!("timeline-{i}");
        let mut args = vec![
            "init",
            "--yes",
            "--values",
            example.to_str().unwrap(),
            "--kube-context-name",
            "admin@cf-runner-test",
            "--kube-namespace",
            &ns,
            "--agent-token",
            "bench",
            "--no-wait",
        ];
        args.extend(extra.split_whitespace());
        let mark = cp.audit_events().unwrap().len();
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64()
            % 86400.0;
        let start = Instant::now();
        let out = match std::env::var_os("CF_RUNNER_TIMELINE_BIN") {
            Some(bin) => run_other(Path::new(&bin), &kubeconfig, &args),
            None => cf_runner(&kubeconfig, &args),
        };
        let millis = start.elapsed().as_secs_f64() * 1000.0;
        assert!(out.status.success(), "{}", cli::text(&out));
        if i == 0 {
            continue;
        }
        println!("\nrun {i}: {millis:.1} ms, load {}", load_average());
        let mut events: Vec<serde_json::Value> = cp
            .audit_events()
            .unwrap()
            .into_iter()
            .skip(mark)
            .filter(|e| e["stage"] == "ResponseComplete")
            .filter(|e| {
                e["userAgent"]
                    .as_str()
                    .unwrap_or_default()
                    .starts_with("cf-runner")
            })
            .collect();
        events.sort_by(|a, b| {
            let at = |e: &serde_json::Value| {
                seconds_of_day(e["requestReceivedTimestamp"].as_str().unwrap_or_default())
            };
            at(a).partial_cmp(&at(b)).unwrap()
        });
        for e in &events {
            let received =
                (seconds_of_day(e["requestReceivedTimestamp"].as_str().unwrap()) - wall) * 1000.0;
            let done = (seconds_of_day(e["stageTimestamp"].as_str().unwrap()) - wall) * 1000.0;
            let uri = e["requestURI"].as_str().unwrap_or_default();
            let uri: String = uri.chars().take(110).collect();
            println!(
                "{received:7.1} {done:7.1} {:>5.1} {:6} {} {uri}",
                done - received,
                e["verb"].as_str().unwrap_or_default(),
                e["responseStatus"]["code"]
            );
        }
        println!("{} requests", events.len());
    }
}
