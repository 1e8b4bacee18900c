//! `support-bundle`: one redacted `.tar.gz` with what support needs to
//! look into a runner (`info`, `check`, the runtime spec on both sides, the
//! record, events, pods and their logs, volumes, nodes, versions). The
//! reads are [`crate::app::day_two::bundle`]; the redaction, the index, the
//! last scan and the 0600 file are `crate::bundle`. What it prints about
//! the scan (how many values, how many encodings) is what the scan did, as
//! the bundle's README says in full.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::app::day_two::bundle::collect;
use crate::app::day_two::cluster_reads::Request;
use crate::app::day_two::status;
use crate::app::installation::{pick_installation, record};
use crate::app::session::connect::{connect_flags, runtime};
use crate::app::session::options::{KubeOptions, PlatformOptions};
use crate::app::session::outcome::Outcome;
use crate::bundle::{self, Bundle, WriteError};
use crate::cluster::{Cluster, KubeError};
use crate::output;
use crate::values::{Problem, Problems};

/// What `support-bundle` is asked to do, from its flags.
#[derive(Debug, Clone)]
pub struct SupportBundleOptions {
    /// Where the runner is.
    pub kube: KubeOptions,
    /// How the platform is reached (for its side of the runtime spec).
    pub platform: PlatformOptions,
    /// Where to write the bundle (`None`: a name with the namespace and time, here).
    pub output: Option<PathBuf>,
    /// Write over a file that is not a bundle cf-runner wrote.
    pub overwrite: bool,
    /// Only log lines newer than this.
    pub since: Duration,
    /// Most bytes kept of each container log.
    pub max_log_bytes: u64,
    /// Largest bundle to write.
    pub max_size: u64,
}

fn bad(flag: &str, value: Option<&str>, why: impl Into<String>, fix: impl Into<String>) -> Outcome {
    let value = value.map(|v| serde_json::Value::String(v.to_string()));
    Outcome::BadInput(Problems(vec![Problem::new(flag, value.as_ref(), why, fix)]))
}

/// The outcome of a path `--output` may not be written to.
fn refused(path: &std::path::Path, e: WriteError) -> Outcome {
    let shown = path.display().to_string();
    match e {
        WriteError::NotOurs { .. } => bad(
            "--output",
            Some(&shown),
            "is a file that is not a support bundle cf-runner wrote; writing over it could lose your data",
            "pass --output with another path, or --overwrite to replace it",
        ),
        other => bad("--output", Some(&shown), other.to_string(), "pass --output with another path"),
    }
}

/// Runs `support-bundle`: find the installation, collect, write, and say
/// what the last scan did.
pub fn run(args: &SupportBundleOptions) -> Outcome {
    let started = Instant::now();
    let rt = runtime();
    let (cluster, ns) = match rt.block_on(find(&args.kube)) {
        Ok(found) => found,
        Err(outcome) => return outcome,
    };
    let path = args.output.clone().unwrap_or_else(|| default_path(&ns));
    if let Err(e) = bundle::check_path(&path, args.overwrite) {
        return refused(&path, e);
    }
    let progress =
        output::stderr_is_tty().then(|| output::waiting("collecting the support bundle"));
    let step = |line: &str| {
        if let Some(p) = &progress {
            p.set(line);
        }
    };
    let bundle = rt.block_on(gather(&cluster, &ns, args, &step));
    drop(progress);
    let bundle = match bundle {
        Ok(b) => b,
        Err(e) => {
            return Outcome::from_cluster(
                e,
                &format!(
                    "the API server at {} did not answer; no bundle was written",
                    cluster.server
                ),
            )
        }
    };
    write(bundle, &path, &cluster, &ns, args, started)
}

/// The cluster and the namespace of the installation to collect.
async fn find(kube: &KubeOptions) -> Result<(Cluster, String), Outcome> {
    let cluster = connect_flags(kube).await?;
    match pick_installation(&cluster, kube, "support-bundle").await? {
        Some(ns) => Ok((cluster, ns)),
        None => Err(Outcome::Failed(
            anyhow::anyhow!("no cf-runner installation in context {}", cluster.context),
            Some("name the runner's namespace with --kube-namespace".into()),
        )),
    }
}

/// `cf-runner-support-<namespace>-<UTC time>.tar.gz`, here.
fn default_path(ns: &str) -> PathBuf {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default();
    PathBuf::from(format!(
        "cf-runner-support-{ns}-{}.tar.gz",
        bundle::stamp(now)
    ))
}

/// Everything the bundle holds. `Err` only when the API server gives no
/// answer at all (no HTTP status): a server that answers, even with
/// errors, gets a bundle.
async fn gather(
    cluster: &Cluster,
    ns: &str,
    args: &SupportBundleOptions,
    step: &dyn Fn(&str),
) -> Result<Bundle, KubeError> {
    // What `info -o json` shows for the namespace, from the step `info` runs.
    step("collecting what `cf-runner info -o json` shows");
    let info = match status::report(cluster, &[ns.to_string()], &args.platform).await {
        Ok(report) => Ok(format!(
            "{}\n",
            serde_json::to_string_pretty(&report).expect("the report serializes")
        )),
        Err(Outcome::Failed(e, _)) => Err(crate::text::chain_text(e.as_ref())),
        Err(_) => Err("info did not produce a report".to_string()),
    };
    let record = match record::read(cluster, ns).await {
        Err(e) if e.code().is_none() => return Err(e),
        other => other,
    };
    let req = Request {
        namespace: ns,
        platform: &args.platform,
        since: args.since,
        max_log_bytes: args.max_log_bytes,
        max_size: args.max_size,
        info,
    };
    let mut bundle = collect(
        cluster,
        record.as_ref().ok().and_then(Option::as_ref),
        &req,
        step,
    )
    .await;
    if let Err(e) = record {
        bundle.failed("the installation record", e.chain_text());
    }
    Ok(bundle)
}

/// Writes the bundle (0600, after the last scan) and says what it holds
/// and what the scan looked for.
fn write(
    bundle: Bundle,
    path: &std::path::Path,
    cluster: &Cluster,
    ns: &str,
    args: &SupportBundleOptions,
    started: Instant,
) -> Outcome {
    let failed = bundle.failed.len();
    let over_cap = bundle.over_cap();
    let known = bundle.redactor().known().to_vec();
    let entries = bundle.finish(&json!({
        "namespace": ns,
        "context": cluster.context,
        "server": cluster.server,
        "cf-runner": env!("CARGO_PKG_VERSION"),
        "since": format!("{}s", args.since.as_secs()),
        "max log bytes": args.max_log_bytes,
    }));
    match bundle::write(path, &entries, &known, args.max_size, args.overwrite) {
        Ok(size) => {
            output::done(&format!(
                "wrote {} ({size} bytes, {} files) in {:.1}s",
                path.display(),
                entries.len(),
                started.elapsed().as_secs_f64()
            ));
            say_scanned(&known, failed, over_cap, args.max_size);
            Outcome::Ok
        }
        Err(e @ WriteError::Leak(_)) => Outcome::Failed(
            anyhow::Error::new(e),
            Some(
                "this is a bug in cf-runner's redaction: please report it (without the bundle)"
                    .into(),
            ),
        ),
        Err(e @ WriteError::TooBig { .. }) => Outcome::Failed(
            anyhow::Error::new(e),
            Some("raise --max-size, or lower --since or --max-log-bytes".into()),
        ),
        Err(e @ WriteError::Io { .. }) => Outcome::Failed(anyhow::Error::new(e), None),
        Err(e) => refused(path, e),
    }
}

/// What the last scan looked for, and what the bundle left out.
fn say_scanned(known: &[bundle::Known], failed: usize, over_cap: usize, max_size: u64) {
    if known.is_empty() {
        output::warn(
            "cf-runner could read no secret value to look for: the last scan looked for nothing \
                     (README.txt in the bundle says what could not be read)",
        );
    } else {
        output::note(&format!(
            "the last scan looked for {} secret value(s) cf-runner knows, each in {} encodings, \
                     and found none; README.txt names which",
            known.len(),
            bundle::ENCODINGS.len()
        ));
    }
    if failed > 0 {
        output::warn(&format!(
            "{failed} part(s) could not be collected; README.txt in the bundle names them and why"
        ));
    }
    if over_cap > 0 {
        output::warn(&format!(
            "{over_cap} file(s) were left out to stay under --max-size {}; README.txt names them \
                     (raise --max-size, or lower --since or --max-log-bytes)",
            max_size
        ));
    }
}
