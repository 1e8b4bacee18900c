//! `cf-runner check`: the preflight of an install, without installing. Loads
//! the values as `init` does, renders what `init` would apply, and asks the
//! cluster whether it can take it (`cluster::preflight`). Exit code 3 when a
//! check fails. `init` runs the same checks first (`session::preflight`).

use serde::Serialize;

use crate::app::commands::flags;
use crate::app::day_two::skew;
use crate::app::identity::certificate;
use crate::app::install::probe;
use crate::app::installation::identity;
use crate::app::session::connect::{connect, runtime};
use crate::app::session::input::{self, Overrides};
use crate::app::session::lock;
use crate::app::session::outcome::Outcome;
use crate::app::session::preflight::{print_checks, report_failure, waiting_for};
use crate::cli::{CheckArgs, OutputFormat};
use crate::cluster::preflight::{self, Check};
use crate::output::{self, Structured};
use crate::render;
use crate::values::{self, Input, Problems};

/// Reads the values files and turns the flags into the highest-precedence
/// overrides, as `init` does for the flags `check` shares with it.
fn gather_input(args: &CheckArgs) -> Result<Input, Problems> {
    let (mut input, problems) = input::read_input(&args.values, &args.set_value, &[]);
    if !problems.is_empty() {
        return Err(Problems(problems));
    }
    let mut out = Overrides::default();
    flags::kube_overrides(&args.kube, &mut out);
    input.overrides = out.list;
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
    probe: Option<&'a [crate::cluster::probe::Stage]>,
}

/// Runs `check`.
pub fn run(args: &CheckArgs) -> Outcome {
    crate::app::session::connect::give_consent(crate::app::session::connect::KubeconfigConsent {
        named: args
            .kube
            .kube_config_path
            .iter()
            .cloned()
            .chain(crate::app::session::connect::set_value_kubeconfigs(
                &args.set_value,
            ))
            .collect(),
        trust_files: args.trust_values_kubeconfig,
    });
    let loaded = match gather_input(args).and_then(|input| values::load(&input)) {
        Ok(l) => l,
        Err(problems) => return Outcome::BadInput(problems),
    };
    input::warn_loaded(&loaded);
    let values = &loaded.values;
    // What the RBAC grants does not depend on the cluster: said before
    // connecting, so it shows even when the cluster cannot be reached.
    if let Ok(preview) = render::render(
        values,
        &identity::seed(values, values.context.clone()),
        &loaded.redacted_tree,
    ) {
        input::warn_cluster_wide_secret_readers(&preview, &values.namespace);
    }
    runtime()
        .block_on(async {
            let cluster = connect(values).await?;
            let identity = identity::seed(values, Some(cluster.context.clone()));
            let rendered = render::render(values, &identity, &loaded.redacted_tree)?;
            waiting_for(&cluster);
            let (mut checks, state) = preflight::run_seeing_namespace(
                &cluster.client,
                &rendered.manifests,
                Some(&rendered.runtime_environment),
                &values.namespace,
            )
            .await;
            let answered = !checks.iter().any(|c| c.unreachable);
            // A namespace that does not exist holds no install, no agent
            // files and no lock: nothing in it is read (its 404 said so).
            let installed_here = answered && state != preflight::NamespaceState::Missing;
            if state == preflight::NamespaceState::Missing {
                output::note(&format!(
                    "namespace {} does not exist (init creates it): no installation, dind certificate or lock to look at in it",
                    values.namespace
                ));
            }
            // Day two, from a server that answered: an install already there
            // (its dind certificate's expiry, version skew, the agent's
            // runtime credentials), and dind's bridge.
            if installed_here {
                checks.extend(certificate::check(&cluster, &values.namespace).await);
                checks.extend(skew::check(&cluster, &values.namespace).await);
                checks
                    .extend(crate::app::runtimes::view::check(&cluster, &values.namespace).await);
            }
            if answered {
                checks.push(
                    crate::cluster::bridge::check(&cluster.client, &rendered.manifests).await,
                );
            }
            // After the preflight, and only from a server that answered it: a
            // silent one is named once, by the preflight, with its deadline.
            if installed_here {
                lock::note_holder(&cluster, &values.namespace).await;
            }
            let mut passed = !preflight::failed(&checks);
            // The build path, after the preflight passed (`--probe`).
            let probe = if args.probe && passed {
                let url = Some(values.codefresh_host.clone());
                Some(
                    probe::run(
                        &cluster,
                        &rendered,
                        &values.namespace,
                        args.probe_timeout,
                        url,
                    )
                    .await?,
                )
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
                        probe::print_stages(stages);
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
                OutputFormat::Json => output::print_structured(&report, Structured::Json),
                OutputFormat::Yaml => output::print_structured(&report, Structured::Yaml),
            }
            Ok::<_, Outcome>(if passed {
                Outcome::Ok
            } else {
                Outcome::PreflightFailed
            })
        })
        .unwrap_or_else(|outcome| outcome)
}
