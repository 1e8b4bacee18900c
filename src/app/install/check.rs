//! `check`: the preflight of an install, without installing. Renders what
//! `init` would apply and asks the cluster whether it can take it
//! (`cluster::preflight`); on an install already there, the day-two checks
//! (dind certificate, version skew, the agent's runtime credentials) and
//! dind's bridge; with `--probe`, the build path. `init` runs the same
//! preflight first (`session::preflight`).

use std::time::Duration;

use serde::Serialize;

use crate::app::identity::certificate;
use crate::app::install::probe;
use crate::app::installation::{identity, skew};
use crate::app::session::connect::{connect, runtime};
use crate::app::session::outcome::Outcome;
use crate::app::session::preflight::{print_checks, report_failure, waiting_for};
use crate::app::session::{input, lock};
use crate::cluster::preflight::{self, Check};
use crate::cluster::probe::Stage;
use crate::cluster::Cluster;
use crate::output::{self, Structured};
use crate::render::{self, Rendered};
use crate::values;

/// What `check` is asked to do besides the values.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// `--probe`: the build path after a passed preflight, with this timeout.
    pub probe: Option<Duration>,
    /// `-o json|yaml`; `None` prints the checks for people.
    pub format: Option<Structured>,
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
    probe: Option<&'a [Stage]>,
}

/// Runs `check` on the loaded values: exit 3 when a check fails.
pub fn run(loaded: &values::Loaded, options: &CheckOptions) -> Outcome {
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
        .block_on(check(loaded, options))
        .unwrap_or_else(|outcome| outcome)
}

/// [`run`] once the preview is said.
async fn check(loaded: &values::Loaded, options: &CheckOptions) -> Result<Outcome, Outcome> {
    let values = &loaded.values;
    let cluster = connect(values).await?;
    let identity = identity::seed(values, Some(cluster.context.clone()));
    let rendered = render::render(values, &identity, &loaded.redacted_tree)?;
    crate::app::session::preflight::require_served(&cluster, &rendered.manifests).await?;
    waiting_for(&cluster);
    let mut checks = checks(&cluster, &rendered, &values.namespace).await;
    crate::app::install::init::openshift::as_init_would(loaded, &identity, &mut checks);
    let mut passed = !preflight::failed(&checks);
    // The build path, after the preflight passed (`--probe`).
    let probe = match options.probe {
        Some(timeout) if passed => {
            let url = Some(values.codefresh_host.clone());
            Some(probe::run(&cluster, &rendered, &values.namespace, timeout, url).await?)
        }
        _ => None,
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
    match options.format {
        Some(format) => output::print_structured(&report, format),
        None => print_report(&report, options.probe.is_some()),
    }
    Ok(if passed {
        Outcome::Ok
    } else {
        Outcome::PreflightFailed
    })
}

/// The preflight, then, from a server that answered: the day-two checks of
/// an install already there and dind's bridge.
async fn checks(cluster: &Cluster, rendered: &Rendered, namespace: &str) -> Vec<Check> {
    let (mut checks, state) = preflight::run_seeing_namespace(
        &cluster.client,
        &rendered.manifests,
        Some(&rendered.runtime_environment),
        namespace,
    )
    .await;
    let answered = !checks.iter().any(|c| c.unreachable);
    // A namespace that does not exist holds no install, no agent files and
    // no lock: nothing in it is read (its 404 said so).
    let installed_here = answered && state != preflight::NamespaceState::Missing;
    if state == preflight::NamespaceState::Missing {
        output::note(&format!(
            "namespace {namespace} does not exist (init creates it): no installation, dind certificate or lock to look at in it"
        ));
    }
    // Day two, from a server that answered: an install already there (its
    // dind certificate's expiry, version skew, the agent's runtime
    // credentials), and dind's bridge.
    if installed_here {
        checks.extend(certificate::check(cluster, namespace).await);
        checks.extend(skew::check(cluster, namespace).await);
        checks.extend(crate::app::runtimes::view::check(cluster, namespace).await);
    }
    if answered {
        checks.push(crate::cluster::bridge::check(&cluster.client, &rendered.manifests).await);
    }
    // After the preflight, and only from a server that answered it: a
    // silent one is named once, by the preflight, with its deadline.
    if installed_here {
        lock::note_holder(cluster, namespace).await;
    }
    checks
}

/// The checks for people, then the verdict: the stage the probe failed at,
/// or the failed checks with what to do.
fn print_report(report: &Report<'_>, probe_asked: bool) {
    output::say(&format!(
        "Preflight for namespace {} of context {} ({})",
        report.namespace, report.context, report.server
    ));
    print_checks(report.checks);
    if let Some(stages) = report.probe {
        probe::print_stages(stages);
    }
    if report.passed {
        output::done(&format!(
            "the cluster can take the runner in namespace {}",
            report.namespace
        ));
    } else if let Some(stage) = report
        .probe
        .iter()
        .flat_map(|s| s.iter())
        .find(|s| !s.passed)
    {
        output::error(
            &anyhow::anyhow!(
                "the build path probe failed at \"{}\": {}",
                stage.name,
                stage.detail
            ),
            stage.fix.as_deref(),
        );
    } else {
        if probe_asked {
            output::note("the probe did not run: the preflight failed first");
        }
        report_failure(
            report.checks,
            "fix what is listed above and re-run `cf-runner check`",
        );
    }
}
