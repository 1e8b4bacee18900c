//! The preflight as `init` and `check` show it: one line per check, the
//! failure summary, and the gate `init` passes before it applies anything.

use crate::app::session::outcome::Outcome;
use crate::cluster::lock::NamespaceSeen;
use crate::cluster::preflight::{self, Check, NamespaceState, Status};
use crate::cluster::Cluster;
use crate::output;
use crate::render::Manifest;
use crate::values::{gateway, Problem, Problems};

/// The mark of a check line.
fn mark(status: Status) -> output::Mark {
    match status {
        Status::Pass => output::Mark::Pass,
        Status::Warn => output::Mark::Warn,
        Status::Fail => output::Mark::Fail,
    }
}

/// One line per check, with its details and fix.
pub(crate) fn print_checks<'a>(checks: impl IntoIterator<Item = &'a Check>) {
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

/// The error that ends a failed preflight: how many checks failed, and `hint`.
pub(crate) fn report_failure(checks: &[Check], hint: &str) {
    let failed = checks.iter().filter(|c| c.status == Status::Fail).count();
    output::error(
        &anyhow::anyhow!(
            "preflight failed: {failed} of {} checks failed",
            checks.len()
        ),
        Some(hint),
    );
}

/// Says what the preflight waits for before it waits (stderr, so `-o json`
/// stays clean).
pub(crate) fn waiting_for(cluster: &Cluster) {
    output::note(&format!(
        "running the preflight against {} (context {}); the API server has {}s to answer",
        cluster.server,
        cluster.context,
        preflight::FIRST_ANSWER_TIMEOUT.as_secs()
    ));
}

/// The first step of `init` against a cluster. Prints the warnings (or,
/// when a check fails, every check) and gives `Err(PreflightFailed)` when
/// the install must not go ahead; else what it saw of the namespace, for
/// the lock.
pub(crate) async fn gate_install(
    cluster: &Cluster,
    manifests: &[Manifest],
    runtime_environment: &serde_json::Value,
    namespace: &str,
) -> Result<NamespaceSeen, Outcome> {
    waiting_for(cluster);
    let (checks, state) = preflight::run_seeing_namespace(
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
    Ok(match state {
        NamespaceState::Missing => NamespaceSeen::Missing,
        NamespaceState::Ours | NamespaceState::Foreign => NamespaceSeen::Exists,
        NamespaceState::Unknown => NamespaceSeen::Unknown,
    })
}

/// Refuses, as bad input (exit 2, naming the key), settings whose objects
/// the cluster cannot hold: prometheus-operator monitors where its CRDs are
/// not installed, an HTTPRoute where the Gateway API's are not. Asked by
/// `init`, `upgrade` and `check` before anything else touches the cluster;
/// `--skip-cluster-test` does not skip it, since the apply would fail on
/// it halfway.
pub(crate) async fn require_served(
    cluster: &Cluster,
    manifests: &[Manifest],
) -> Result<(), Outcome> {
    let missing = crate::cluster::served::unserved(&cluster.client, manifests)
        .await
        .map_err(|e| Outcome::from_cluster(e, "asking which APIs the cluster serves"))?;
    let problems: Vec<Problem> = missing
        .iter()
        .map(|(api_version, kind)| {
            let (key, crds, fix) = match kind.as_str() {
                "HTTPRoute" => (
                    gateway::HTTP_ROUTE_ENABLED_KEY,
                    "the Gateway API's CRDs",
                    "install the Gateway API's standard CRDs and a Gateway controller, or set \
                     AppProxy.HttpRoute.Enabled to false and expose the app-proxy with its \
                     Ingress or your own way"
                        .to_string(),
                ),
                _ => {
                    let key = crate::render::metrics::key_for_kind(kind);
                    (
                        key,
                        "the prometheus-operator's CRDs",
                        format!("install the prometheus-operator or its CRDs first, or set {key}: false"),
                    )
                }
            };
            Problem::new(
                key,
                Some(&serde_json::Value::Bool(true)),
                format!(
                    "asks for {kind} objects, but context {} does not serve {api_version} \
                     ({crds} are not installed)",
                    cluster.context
                ),
                fix,
            )
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Outcome::BadInput(Problems(problems)))
    }
}
