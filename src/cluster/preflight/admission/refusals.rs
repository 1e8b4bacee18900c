//! Refusals: which admission control said no, and the fix that fits it.

use super::candidates::EVERY_BUILD;
use super::pod_security::{label_command, Level};

/// What refused an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refuser {
    PodSecurity,
    Quota,
    LimitRange,
    Webhook,
    Policy,
    /// The pod's ServiceAccount does not exist (yet).
    ServiceAccount,
    Other,
}

/// Which admission control a refusal's message comes from.
pub fn refuser(message: &str) -> Refuser {
    if message.contains("violates PodSecurity") {
        Refuser::PodSecurity
    } else if message.contains("exceeded quota") || message.contains("must specify") {
        Refuser::Quota
    } else if message.contains("usage per Container")
        || message.contains("usage per Pod")
        || message.contains("usage per PersistentVolumeClaim")
        || message.contains("ratio")
    {
        Refuser::LimitRange
    } else if message.contains("admission webhook") {
        Refuser::Webhook
    } else if message.contains("ValidatingAdmissionPolicy") {
        Refuser::Policy
    } else if message.contains("error looking up service account") {
        Refuser::ServiceAccount
    } else {
        Refuser::Other
    }
}

/// The text between the first pair of double quotes after `after`.
fn quoted_after<'a>(message: &'a str, after: &str) -> Option<&'a str> {
    let rest = &message[message.find(after)? + after.len()..];
    let start = rest.find('"')? + 1;
    let end = rest[start..].find('"')? + start;
    Some(&rest[start..end])
}

/// Where the values set a component's resources, for fixes.
fn resources_key(component: &str) -> String {
    if component.starts_with(EVERY_BUILD) {
        "the builds' dind resources (Runtime.resources)".into()
    } else {
        format!("the resources of {component}")
    }
}

/// What to do about one refusal of `component`. `level` is the Pod
/// Security level the refused pod needs; `limit_ranges` the names of the
/// namespace's LimitRanges when they are known.
pub fn fix_for(
    message: &str,
    component: &str,
    namespace: &str,
    level: Level,
    limit_ranges: &[String],
) -> String {
    match refuser(message) {
        Refuser::PodSecurity => format!(
            "the namespace's Pod Security level must allow {level} pods: `{}` (or ask the cluster admin for it)",
            label_command(namespace, level)
        ),
        Refuser::Quota => {
            let quota = message
                .split("exceeded quota: ")
                .nth(1)
                .and_then(|r| r.split(',').next())
                .map(str::trim);
            match quota {
                Some(q) => format!(
                    "raise ResourceQuota {q} (`kubectl edit resourcequota {q} -n {namespace}`) by what {component} asks, or lower {} in the values",
                    resources_key(component)
                ),
                None => {
                    let quota = message
                        .split("failed quota: ")
                        .nth(1)
                        .and_then(|r| r.split(':').next())
                        .map(|q| format!("ResourceQuota {} of namespace {namespace}", q.trim()))
                        .unwrap_or_else(|| format!("a ResourceQuota of namespace {namespace}"));
                    format!(
                        "{quota} only admits containers that set what the message names: set it in the values for each component named, or ask for a LimitRange that gives a default"
                    )
                }
            }
        }
        Refuser::LimitRange => {
            let which = match limit_ranges {
                [] => "the namespace's LimitRange".to_string(),
                names => format!("LimitRange {}", names.join(", ")),
            };
            format!(
                "ask for {which} of namespace {namespace} to allow it (`kubectl edit limitrange -n {namespace}`), or change {} in the values to fit",
                resources_key(component)
            )
        }
        Refuser::Webhook => {
            let hook = quoted_after(message, "admission webhook").unwrap_or("the webhook");
            format!(
                "ask the owner of the policy behind admission webhook \"{hook}\" for an exception for {component} in namespace {namespace}"
            )
        }
        Refuser::Policy => format!(
            "ask the owner of the ValidatingAdmissionPolicy for an exception for {component} in namespace {namespace}"
        ),
        Refuser::ServiceAccount => format!(
            "the ServiceAccount comes with the install: run `cf-runner init` into namespace {namespace} first"
        ),
        Refuser::Other => "read the API server's message; fix the cluster or the values and re-run".into(),
    }
}

/// The level a Pod Security refusal names (`violates PodSecurity "baseline:latest"`).
pub(super) fn enforced_in(message: &str) -> Option<Level> {
    let quoted = quoted_after(message, "violates PodSecurity")?;
    Level::parse(quoted.split(':').next()?)
}
