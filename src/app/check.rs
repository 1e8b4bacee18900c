//! `cf-runner check`: the preflight of an install, without installing. Loads
//! the values as `init` does, renders what `init` would apply, and asks the
//! cluster whether it can take it (`kube::preflight`). Exit code 3 when a
//! check fails. `init` runs the same checks first (`preflight_for_install`).

use serde::Serialize;
use serde_json::Value;

use super::{init, Outcome};
use crate::cli::{CheckArgs, OutputFormat};
use crate::kube::preflight::{self, Check, Status};
use crate::render::Manifest;
use crate::values::{self, Input, Problems};
use crate::{output, render};

/// Reads the values files and turns the flags into the highest-precedence
/// overrides, as `init` does for the flags `check` shares with it.
fn gather_input(args: &CheckArgs) -> Result<Input, Problems> {
    let (mut input, problems) = super::init::read_input(&args.values, &args.set_value, &[]);
    if !problems.is_empty() {
        return Err(Problems(problems));
    }
    let kube = &args.kube;
    for (key, value) in [
        ("Context", kube.kube_context_name.clone()),
        ("Namespace", kube.kube_namespace.clone()),
        (
            "ConfigPath",
            kube.kube_config_path
                .as_ref()
                .map(|p| p.display().to_string()),
        ),
    ] {
        if let Some(v) = value {
            input.overrides.push((key.to_string(), Value::String(v)));
        }
    }
    Ok(input)
}

/// What `check -o json|yaml` prints.
#[derive(Serialize)]
struct Report<'a> {
    context: &'a str,
    server: &'a str,
    namespace: &'a str,
    /// False when any check failed (the exit code is then 3).
    passed: bool,
    checks: &'a [Check],
    /// With `--probe`: each stage of the build path, with its time.
    #[serde(skip_serializing_if = "Option::is_none")]
    probe: Option<&'a [crate::kube::probe::Stage]>,
}

/// Runs `check`.
pub fn run(args: &CheckArgs) -> Outcome {
    let loaded = match gather_input(args).and_then(|input| values::load(&input)) {
        Ok(l) => l,
        Err(problems) => return Outcome::BadInput(problems),
    };
    for line in &loaded.warnings {
        output::warn(line);
    }
    for key in &loaded.ignored_keys {
        output::warn(&format!(
            "{key} is a venonactl key that cf-runner accepts but does not use"
        ));
    }
    let values = &loaded.values;
    init::runtime().block_on(async {
        let cluster = match init::connect(values).await {
            Ok(c) => c,
            Err(outcome) => return outcome,
        };
        let identity = render::Identity {
            context: Some(cluster.context.clone()),
            agent_name: values.agent_name.clone(),
            runtime_name: values.runtime_name.clone(),
            ..Default::default()
        };
        let rendered = match render::render(values, &identity, &loaded.redacted_tree) {
            Ok(r) => r,
            Err(e) => {
                return Outcome::Failed(
                    anyhow::Error::new(e).context("rendering failed (a bug in cf-runner)"),
                    Some("please report it with the values file (secrets removed)".into()),
                )
            }
        };
        waiting_for(&cluster);
        let checks = preflight::run(
            &cluster.client,
            &rendered.manifests,
            Some(&rendered.runtime_environment),
            &values.namespace,
        )
        .await;
        let mut passed = !preflight::failed(&checks);
        // The build path, after the preflight passed (`--probe`).
        let probe = if args.probe && passed {
            let url = Some(values.codefresh_host.clone());
            match super::probe::run(
                &cluster,
                &rendered,
                &values.namespace,
                args.probe_timeout,
                url,
            )
            .await
            {
                Ok(stages) => Some(stages),
                Err(outcome) => return outcome,
            }
        } else {
            None
        };
        if let Some(stages) = &probe {
            passed &= stages.iter().all(|s| s.passed);
        }
        let report = Report {
            context: &cluster.context,
            server: &cluster.server,
            namespace: &values.namespace,
            passed,
            checks: &checks,
            probe: probe.as_deref(),
        };
        match args.output {
            OutputFormat::Table => {
                output::say(&format!(
                    "Preflight for namespace {} of context {} ({})",
                    values.namespace, cluster.context, cluster.server
                ));
                print_checks(&checks);
                if let Some(stages) = &probe {
                    super::probe::print_stages(stages);
                }
                if passed {
                    output::done(&format!(
                        "the cluster can take the runner in namespace {}",
                        values.namespace
                    ));
                } else if let Some(stage) = probe.iter().flatten().find(|s| !s.passed) {
                    output::error(
                        &anyhow::anyhow!(
                            "the build path probe failed at \"{}\": {}",
                            stage.name,
                            stage.detail
                        ),
                        stage.fix.as_deref(),
                    );
                } else {
                    if args.probe {
                        output::note("the probe did not run: the preflight failed first");
                    }
                    report_failure(
                        &checks,
                        "fix what is listed above and re-run `cf-runner check`",
                    );
                }
            }
            OutputFormat::Json => output::print_raw(&format!(
                "{}\n",
                serde_json::to_string_pretty(&report).expect("the report serializes")
            )),
            OutputFormat::Yaml => output::print_raw(
                &serde_yaml_ng::to_string(&report).expect("the report serializes"),
            ),
        }
        if passed {
            Outcome::Ok
        } else {
            Outcome::PreflightFailed
        }
    })
}

fn mark(status: Status) -> output::Mark {
    match status {
        Status::Pass => output::Mark::Pass,
        Status::Warn => output::Mark::Warn,
        Status::Fail => output::Mark::Fail,
    }
}

fn print_checks<'a>(checks: impl IntoIterator<Item = &'a Check>) {
    for c in checks {
        output::check_line(
            mark(c.status),
            &c.name,
            &c.reason,
            &c.details,
            c.fix.as_deref(),
        );
    }
}

fn report_failure(checks: &[Check], hint: &str) {
    let failed = checks.iter().filter(|c| c.status == Status::Fail).count();
    output::error(
        &anyhow::anyhow!(
            "preflight failed: {failed} of {} checks failed",
            checks.len()
        ),
        Some(hint),
    );
}

/// The first step of `init` against a cluster. Prints the warnings (or,
/// when a check fails, every check) and gives `Err(PreflightFailed)` when
/// the install must not go ahead.
/// Says what the preflight waits for before it waits (stderr, so `-o json`
/// stays clean).
fn waiting_for(cluster: &crate::kube::Cluster) {
    output::note(&format!(
        "running the preflight against {} (context {}); the API server has {}s to answer",
        cluster.server,
        cluster.context,
        preflight::FIRST_ANSWER_TIMEOUT.as_secs()
    ));
}

pub(crate) async fn preflight_for_install(
    cluster: &crate::kube::Cluster,
    manifests: &[Manifest],
    runtime_environment: &serde_json::Value,
    namespace: &str,
) -> Result<(), Outcome> {
    waiting_for(cluster);
    let checks = preflight::run(
        &cluster.client,
        manifests,
        Some(runtime_environment),
        namespace,
    )
    .await;
    if preflight::failed(&checks) {
        print_checks(&checks);
        report_failure(
            &checks,
            "nothing was applied; fix what is listed above and re-run init \
             (--skip-cluster-test skips these checks)",
        );
        return Err(Outcome::PreflightFailed);
    }
    print_checks(checks.iter().filter(|c| c.status != Status::Pass));
    let warnings = checks.iter().filter(|c| c.status == Status::Warn).count();
    output::done(&format!(
        "preflight passed ({} checks{})",
        checks.len(),
        match warnings {
            0 => String::new(),
            n => format!(", {n} warning(s)"),
        }
    ));
    Ok(())
}
