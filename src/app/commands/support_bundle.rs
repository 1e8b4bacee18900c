//! `cf-runner support-bundle`: one redacted `.tar.gz` with what support
//! needs to look into a runner (`info`, `check`, the runtime spec on both
//! sides, the record, events, pods and their logs, volumes, nodes,
//! versions). The reads are the `bundle` step; the redaction, the index,
//! the last scan and the 0600 file are `crate::bundle`. What it prints
//! about the scan (how many values, how many encodings) is what the
//! scan did, as the bundle's README says in full.

use std::path::PathBuf;
use std::time::Instant;

use serde_json::json;

use crate::app::commands::flags;
use crate::app::day_two::bundle::{collect, Request};
use crate::app::day_two::status;
use crate::app::installation::{pick_installation, record};
use crate::app::session::connect::{connect_flags, runtime};
use crate::app::session::outcome::Outcome;
use crate::bundle::{self, WriteError};
use crate::cli::SupportBundleArgs;
use crate::output;
use crate::values::{Problem, Problems};

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

/// Runs `support-bundle`.
pub fn run(args: &SupportBundleArgs) -> Outcome {
    if args.max_size < bundle::MIN_MAX_SIZE {
        return bad(
            "--max-size",
            Some(&args.max_size.to_string()),
            format!(
                "leaves no room: the index alone takes up to {} bytes",
                bundle::INDEX_RESERVE
            ),
            format!("pass at least {}Ki, e.g. 20Mi", bundle::MIN_MAX_SIZE / 1024),
        );
    }
    let started = Instant::now();
    let rt = runtime();
    let found = rt.block_on(async {
        let cluster = connect_flags(&flags::kube(&args.kube)).await?;
        match pick_installation(&cluster, &flags::kube(&args.kube), "support-bundle").await? {
            Some(ns) => Ok((cluster, ns)),
            None => Err(Outcome::Failed(
                anyhow::anyhow!("no cf-runner installation in context {}", cluster.context),
                Some("name the runner's namespace with --kube-namespace".into()),
            )),
        }
    });
    let (cluster, ns) = match found {
        Ok(f) => f,
        Err(outcome) => return outcome,
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default();
    let path = args.output.clone().unwrap_or_else(|| {
        PathBuf::from(format!(
            "cf-runner-support-{ns}-{}.tar.gz",
            bundle::stamp(now)
        ))
    });
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

    let bundle = rt.block_on(async {
        // What `info -o json` shows for the namespace, from the step `info` runs.
        step("collecting what `cf-runner info -o json` shows");
        let info = match status::report(
            &cluster,
            std::slice::from_ref(&ns),
            &flags::platform(&args.platform),
        )
        .await
        {
            Ok(report) => Ok(format!(
                "{}\n",
                serde_json::to_string_pretty(&report).expect("the report serializes")
            )),
            Err(Outcome::Failed(e, _)) => Err(crate::text::chain_text(e.as_ref())),
            Err(_) => Err("info did not produce a report".to_string()),
        };
        let record = record::read(&cluster, &ns).await;
        // No answer at all (no HTTP status): there is nothing to collect. A
        // server that answers, even with errors, gets a bundle.
        let record = match record {
            Err(e) if e.code().is_none() => return Err(e),
            other => other,
        };
        let req = Request {
            namespace: &ns,
            platform: &flags::platform(&args.platform),
            since: args.since,
            max_log_bytes: args.max_log_bytes,
            max_size: args.max_size,
            info,
        };
        let mut bundle = collect(
            &cluster,
            record.as_ref().ok().and_then(Option::as_ref),
            &req,
            &step,
        )
        .await;
        if let Err(e) = record {
            bundle.failed("the installation record", e.chain_text());
        }
        Ok(bundle)
    });
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
    match bundle::write(&path, &entries, &known, args.max_size, args.overwrite) {
        Ok(size) => {
            output::done(&format!(
                "wrote {} ({size} bytes, {} files) in {:.1}s",
                path.display(),
                entries.len(),
                started.elapsed().as_secs_f64()
            ));
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
                    args.max_size
                ));
            }
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
        Err(e) => refused(&path, e),
    }
}
