//! `info --wait`: a gate for pipelines that install runners. Polls each
//! installation until it is healthy (every workload ready, the runtime
//! environment registered, the dind certificate valid) or the deadline
//! passes, saying first what it waits for and for how long, then each
//! change, and at the deadline what is still not ready.

use std::time::{Duration, Instant};

use crate::app::identity::{certificate, register};
use crate::app::installation::read_installation;
use crate::app::session::options::PlatformOptions;
use crate::app::session::outcome::Outcome;
use crate::cluster::{wait, Cluster};
use crate::output;
use crate::platform;

/// How often the install is read again.
const POLL: Duration = Duration::from_secs(2);

/// `90s`, `5m`, `1m30s`.
pub(crate) fn span(d: Duration) -> String {
    let s = d.as_secs();
    match (s / 60, s % 60) {
        (0, s) => format!("{s}s"),
        (m, 0) => format!("{m}m"),
        (m, s) => format!("{m}m{s}s"),
    }
}

/// What is not ready yet in the installation in `namespace`, one item
/// each; empty when it is healthy.
async fn not_ready(
    cluster: &Cluster,
    namespace: &str,
    platform: &PlatformOptions,
    soon: &mut Vec<String>,
) -> Vec<String> {
    let inst = match read_installation(cluster, namespace).await {
        Ok(i) => i,
        Err(e) => return vec![format!("namespace {namespace}: not read ({e})")],
    };
    let Some(record) = &inst.record else {
        return vec![format!(
            "namespace {namespace}: no installation record (an init has not finished)"
        )];
    };
    let mut out = Vec::new();
    let workloads: Vec<_> = inst
        .objects
        .iter()
        .filter_map(|o| wait::rollout(&o.kind, &o.object).map(|r| (o, r)))
        .collect();
    if workloads.is_empty() {
        out.push(format!("namespace {namespace}: no runner workload"));
    }
    for (o, r) in workloads {
        if !r.ready || o.is_deleting() {
            out.push(format!(
                "{} {}/{} ready",
                o.display_name(),
                r.ready_pods,
                r.want
            ));
        }
    }
    // An agent installed alone has no runtime environment nor dind
    // certificate of its own: its runtimes are the attached ones.
    if crate::app::installation::record::agent_only(record) {
        return out;
    }
    match (&record.runtime_name, record.registered) {
        (_, Some(false)) => out.push(
            "runtime environment: never registered (an offline install, --agent-token only)".into(),
        ),
        (None, _) => out.push("runtime environment: none recorded".into()),
        (Some(name), _) => {
            if let Some(problem) = runtime_on_platform(platform, &inst, name).await {
                out.push(problem);
            }
        }
    }
    match certificate::read(cluster, namespace).await {
        Ok(state) => {
            let now = certificate::now();
            let v = certificate::judge(&state, now, namespace);
            // The gate waits for a certificate that works today; one that
            // expires within the warning period is said, not waited on.
            let works = matches!(state, certificate::CertState::Expires(at) if at > now);
            if !works || v.absent {
                out.push(format!("dind certificate: {}", v.text));
            } else if !v.ok {
                soon.push(format!("the dind certificate {}", v.text));
            }
        }
        Err(e) => out.push(format!("dind certificate: not read ({e})")),
    }
    out
}

/// `Some(problem)` when the platform, asked with a token at hand, does
/// not have runtime environment `name`. Without a token the record's word
/// that `init` registered it is taken.
async fn runtime_on_platform(
    platform: &PlatformOptions,
    inst: &crate::app::installation::Installation,
    name: &str,
) -> Option<String> {
    let host = inst.values.as_ref().map(|v| v.codefresh_host.clone());
    let auth = register::resolve(
        platform,
        host.as_deref().map(|url| platform::auth::NamedUrl {
            url,
            origin: register::RECORDED_HOST,
        }),
    )
    .ok()??;
    let client =
        crate::app::identity::register::platform_for(&auth, register::transport(platform)).ok()?;
    match client.runtime(name).await {
        Ok(Some(_)) => None,
        Ok(None) => Some(format!(
            "runtime environment {name}: not on the platform {}",
            client.url()
        )),
        Err(e) => Some(format!("runtime environment {name}: not confirmed ({e})")),
    }
}

/// Waits until every installation in `namespaces` is healthy, up to
/// `timeout`. `Err` (exit 1) names what is not ready at the deadline.
pub(crate) async fn wait_healthy(
    cluster: &Cluster,
    namespaces: &[String],
    platform: &PlatformOptions,
    timeout: Duration,
) -> Result<(), Outcome> {
    let started = Instant::now();
    let deadline = started + timeout;
    let which = if namespaces.is_empty() {
        format!("an installation in context {}", cluster.context)
    } else {
        format!("the installation in namespace {}", namespaces.join(", "))
    };
    output::note(&format!(
        "waiting up to {} for {which} to be healthy: every workload ready, the runtime environment registered, \
         the dind certificate valid",
        span(timeout)
    ));
    let mut last: Vec<String> = Vec::new();
    loop {
        let mut missing = Vec::new();
        if namespaces.is_empty() {
            missing.push(format!("no installation in context {}", cluster.context));
        }
        let mut soon = Vec::new();
        for ns in namespaces {
            missing.extend(not_ready(cluster, ns, platform, &mut soon).await);
        }
        if missing.is_empty() {
            for warning in soon {
                output::warn(&warning);
            }
            output::done(&format!(
                "{which} is healthy (after {})",
                span(started.elapsed())
            ));
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(Outcome::Failed(
                anyhow::anyhow!(
                    "{which} is not healthy after {}: {}",
                    span(timeout),
                    missing.join("; ")
                ),
                Some(
                    "see `cf-runner info` for the details; a longer --timeout waits longer".into(),
                ),
            ));
        }
        if missing != last {
            output::note(&format!("not yet: {}", missing.join("; ")));
            last = missing;
        }
        tokio::time::sleep(POLL.min(deadline.saturating_duration_since(Instant::now()))).await;
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn durations_read_as_typed() {
        use crate::app::day_two::health::span;
        use std::time::Duration;
        assert_eq!(span(Duration::from_secs(300)), "5m");
        assert_eq!(span(Duration::from_secs(45)), "45s");
        assert_eq!(span(Duration::from_secs(90)), "1m30s");
    }
}
