//! The server version: one the rendered objects work on. Asked with its own
//! deadline: when it is the preflight's first request (there is no
//! namespace to read first), a server that does not answer is found once
//! rather than by every check in turn.

use kube::Client;

use super::{api_message, names, Check};
use crate::cluster::KubeError;

/// Oldest minor version of Kubernetes 1.x the project tests on (CI runs the
/// cluster suites on each of the `TESTED_VERSIONS`); older servers get a
/// warning, not a failure. 1.33 is the oldest minor the clouds still support
/// whose Go modules can all be had to build a test control plane (1.32's
/// `k8s.io/endpointslice` is not served).
pub const MIN_MINOR: u32 = 33;
/// Newest minor version the rendered objects were tested against.
pub const MAX_TESTED_MINOR: u32 = 37;
/// The releases CI runs the cluster suites on (`tests/controlplane*/go.mod`).
pub const TESTED_VERSIONS: [&str; 3] = ["1.33.13", "1.36.3", "1.37.2"];
/// Below this minor the rendered objects cannot be applied at all: there is
/// no `batch/v1` CronJob before 1.21.
const REQUIRED_MINOR: u32 = 21;

/// The Kubernetes minors the pinned `deploy` step image supports: chart
/// 10.1.x moved `kube-deploy` (cf-deploy-kubernetes) to a kubectl that
/// speaks to 1.33–1.35 only (its README, "To 10.1.x"). Builds' `deploy`
/// steps target the cluster the pipeline names, most often this one.
pub const DEPLOY_STEP_MINORS: std::ops::RangeInclusive<u32> = 33..=35;

/// What `check` and `info` say on a server outside [`DEPLOY_STEP_MINORS`]:
/// the install works, but pipelines' `deploy` steps against it may not.
pub fn deploy_step_note(major: &str, minor: &str, shown: &str) -> Option<String> {
    let digits = |s: &str| -> Option<u32> {
        let d: String = s.chars().take_while(char::is_ascii_digit).collect();
        d.parse().ok()
    };
    let m = digits(minor).filter(|_| digits(major) == Some(1))?;
    if DEPLOY_STEP_MINORS.contains(&m) {
        return None;
    }
    let step = crate::render::images::KUBE_DEPLOY;
    Some(format!(
        "the pipelines' `deploy` step image ({}:{}) supports Kubernetes 1.{}–1.{}, and this server \
         runs {shown}: `deploy` steps against this cluster may fail (set the step's kubectl \
         version, or deploy with a freestyle step and your own kubectl)",
        step.repository,
        step.tag,
        DEPLOY_STEP_MINORS.start(),
        DEPLOY_STEP_MINORS.end()
    ))
}

/// [`deploy_step_note`] for the server `client` talks to; `None` also when
/// it does not say its version in time (`info` goes on without it).
pub async fn server_deploy_step_note(client: &Client) -> Option<String> {
    let info = tokio::time::timeout(FIRST_ANSWER_TIMEOUT, client.apiserver_version())
        .await
        .ok()?
        .ok()?;
    deploy_step_note(&info.major, &info.minor, &info.git_version)
}

/// How long the first request of the preflight may take: a server that
/// has not answered by then is not reachable from here.
pub const FIRST_ANSWER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(20);

pub(super) async fn check_version(client: &Client) -> Check {
    let started = std::time::Instant::now();
    match tokio::time::timeout(FIRST_ANSWER_TIMEOUT, client.apiserver_version()).await {
        Ok(Ok(info)) => version_check(&info.major, &info.minor, &info.git_version),
        Ok(Err(e)) => {
            let err = KubeError::from_kube("reading", "the server version", e);
            let mut check = Check::fail(
                names::VERSION,
                format!(
                    "could not read the server version (after {:.1}s): {}",
                    started.elapsed().as_secs_f32(),
                    api_message(&err)
                ),
                err.hint().unwrap_or_else(|| {
                    "check that the API server is reachable with this kubeconfig".into()
                }),
            );
            check.unreachable = err.code().is_none();
            check
        }
        Err(_) => unanswered(),
    }
}

/// The version check when the preflight's first request (this one, or the
/// namespace's GET that goes first) got no answer within
/// [`FIRST_ANSWER_TIMEOUT`].
pub(super) fn unanswered() -> Check {
    let mut check = Check::fail(
        names::VERSION,
        format!(
            "the API server did not answer within {}s",
            FIRST_ANSWER_TIMEOUT.as_secs()
        ),
        "check the server address in the kubeconfig, that the cluster is running, \
         and the network path to it (VPN, firewall, HTTPS_PROXY/NO_PROXY)",
    );
    check.unreachable = true;
    check
}

/// Decides the version check from `/version`'s `major` and `minor` (which
/// some distributions suffix, e.g. `28+`).
pub fn version_check(major: &str, minor: &str, shown: &str) -> Check {
    let digits = |s: &str| -> Option<u32> {
        let d: String = s.chars().take_while(char::is_ascii_digit).collect();
        d.parse().ok()
    };
    let shown = if shown.is_empty() {
        format!("{major}.{minor}")
    } else {
        shown.to_string()
    };
    let range = format!("1.{MIN_MINOR}–1.{MAX_TESTED_MINOR}");
    let tested = TESTED_VERSIONS.join(", ");
    // A detail, not a warning: the runner itself works on the server.
    let deploy_note: Vec<String> = deploy_step_note(major, minor, &shown).into_iter().collect();
    let check = match (digits(major), digits(minor)) {
        (Some(1), Some(m)) if m < REQUIRED_MINOR => Check::fail(
            names::VERSION,
            format!(
                "Kubernetes {shown} is older than 1.{REQUIRED_MINOR}, which the runner needs \
                 (batch/v1 CronJob)"
            ),
            format!("upgrade the cluster to 1.{MIN_MINOR} or newer (tested: {tested})"),
        ),
        (Some(1), Some(m)) if m < MIN_MINOR => Check::warn(
            names::VERSION,
            format!("Kubernetes {shown} is older than the tested range {range}"),
            format!(
                "it will most likely work, but only {tested} are tested; \
                 if something misbehaves, report it with the version"
            ),
        ),
        (Some(1), Some(m)) if m > MAX_TESTED_MINOR => Check::warn(
            names::VERSION,
            format!("Kubernetes {shown} is newer than tested ({range})"),
            format!(
                "it will most likely work, but only {tested} are tested; \
                 if something misbehaves, report it with the version"
            ),
        ),
        (Some(1), Some(_)) => Check::pass(
            names::VERSION,
            format!("Kubernetes {shown} is in the supported range {range}"),
        ),
        _ => Check::warn(
            names::VERSION,
            format!("could not understand the server version {shown:?}"),
            format!("make sure the cluster runs Kubernetes {range} (tested: {tested})"),
        ),
    };
    check.with_details(deploy_note)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::preflight::Status;

    #[test]
    fn the_supported_range_is_the_tested_one() {
        for (minor, shown) in [("33", "v1.33.13"), ("36", "v1.36.3"), ("37", "")] {
            let check = version_check("1", minor, shown);
            assert_eq!(check.status, Status::Pass, "{minor}: {}", check.reason);
            assert!(
                check.reason.contains("supported range 1.33–1.37"),
                "{}",
                check.reason
            );
        }
        assert_eq!(
            version_check("1", "34+", "v1.34.3-eks").status,
            Status::Pass
        );
    }

    #[test]
    fn versions_outside_the_tested_range_warn_naming_the_tested_ones() {
        for (minor, shown, words) in [
            ("32", "v1.32.13", "older than the tested range 1.33–1.37"),
            ("25", "v1.25.0", "older than the tested range 1.33–1.37"),
            ("38", "v1.38.0", "newer than tested (1.33–1.37)"),
        ] {
            let check = version_check("1", minor, shown);
            assert_eq!(check.status, Status::Warn, "{shown}: {}", check.reason);
            assert!(
                check.reason.contains(shown) && check.reason.contains(words),
                "{}",
                check.reason
            );
            let fix = check.fix.unwrap_or_default();
            assert!(fix.contains("1.33.13, 1.36.3, 1.37.2"), "{fix}");
        }
        assert_eq!(version_check("", "", "").status, Status::Warn);
    }

    #[test]
    fn versions_without_batch_v1_cronjob_fail() {
        let old = version_check("1", "20", "v1.20.15");
        assert_eq!(old.status, Status::Fail);
        assert!(old.reason.contains("v1.20.15") && old.fix.is_some());
        assert_eq!(version_check("1", "21", "v1.21.0").status, Status::Warn);
    }

    #[test]
    fn a_server_the_deploy_step_does_not_support_is_named_in_the_check() {
        assert!(version_check("1", "34", "v1.34.1").details.is_empty());
        let newer = version_check("1", "36", "v1.36.3");
        assert_eq!(newer.status, Status::Pass);
        assert_eq!(newer.details.len(), 1, "{:?}", newer.details);
        assert!(newer.details[0].contains("1.33–1.35") && newer.details[0].contains("v1.36.3"));
        assert!(deploy_step_note("1", "32+", "v1.32.9-eks").is_some());
        assert!(deploy_step_note("1", "33", "").is_none());
        assert!(deploy_step_note("", "", "").is_none());
    }
}
