//! The build settings an old install keeps on the platform, in its
//! runtime environment's spec, as cf-runner keys: the engine's resources,
//! the engine's and dind's grace periods, the volume sort order and the
//! engine's user env (the chart's `runtime.engine.resources`,
//! `terminationGracePeriodSeconds`, `reuseVolumeSortOrder`,
//! `userEnvVars`). adopt sends cf-runner's spec in place of the old one,
//! so a setting not carried here would be lost with it.
//!
//! Only what differs from cf-runner's default is carried. Images are not:
//! an older chart's pinned engine is indistinguishable from a user's
//! choice, and carrying it would hold builds on that version after every
//! cf-runner upgrade. A user env entry holding a credential as text is
//! not carried either (cf-runner never writes one into a spec): adopt
//! names it, and the user moves it to a Secret.

use serde_json::{json, Value};

use crate::output;
use crate::render::{runtime_spec, tuning};
use crate::text;

/// `(values key, value)` for each setting of `spec` that differs from
/// cf-runner's default, and the names of the user env entries left out.
pub(crate) fn carried(spec: &Value) -> (Vec<(String, Value)>, Vec<String>) {
    let engine = &spec["runtimeScheduler"];
    let dind = &spec["dockerDaemonScheduler"];
    let mut out = Vec::new();
    let mut grace = |key: &str, at: &Value, default: i64| {
        if let Some(n) = at["terminationGracePeriodSeconds"].as_i64() {
            if n != default {
                out.push((key.to_string(), json!(n)));
            }
        }
    };
    grace(
        "Runtime.Engine.TerminationGracePeriodSeconds",
        engine,
        runtime_spec::ENGINE_GRACE_PERIOD_SECONDS,
    );
    grace(
        "Runtime.Dind.TerminationGracePeriodSeconds",
        dind,
        runtime_spec::DIND_GRACE_PERIOD_SECONDS,
    );
    let resources = &engine["resources"];
    if resources.is_object() && *resources != tuning::default_engine_resources() {
        out.push(("Runtime.Engine.resources".into(), resources.clone()));
    }
    if let Some(order) = dind["pvcs"][0]["reuseVolumeSortOrder"].as_str() {
        if order != runtime_spec::DEFAULT_REUSE_VOLUME_SORT_ORDER {
            out.push(("Runtime.ReuseVolumeSortOrder".into(), json!(order)));
        }
    }
    let (entries, left_out): (Vec<Value>, Vec<Value>) = engine["userEnvVars"]
        .as_array()
        .into_iter()
        .flatten()
        .cloned()
        .partition(|e| !holds_a_credential_as_text(e));
    if !entries.is_empty() {
        out.push(("Runtime.Engine.UserEnvVars".into(), Value::Array(entries)));
    }
    let left_out = left_out
        .iter()
        .map(|e| e["name"].as_str().unwrap_or_default().to_string())
        .collect();
    (out, left_out)
}

/// An entry with a credential's name and a literal value.
fn holds_a_credential_as_text(entry: &Value) -> bool {
    let name = entry["name"].as_str().unwrap_or_default();
    entry["value"].is_string() && text::is_credential_name(name)
}

/// Says which user env entries were left out, by name (never the value).
pub(crate) fn warn_left_out(names: &[String]) {
    for name in names {
        output::warn(&format!(
            "the runtime spec's user env variable {name} holds a credential as text: not carried; \
             put it in a Secret of the namespace and add it to Runtime.Engine.UserEnvVars with valueFrom.secretKeyRef"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_differs_from_the_default_is_carried_and_a_literal_token_is_not() {
        let spec = json!({
            "runtimeScheduler": {
                "terminationGracePeriodSeconds": 600,
                "resources": {"requests": {"cpu": "100m", "memory": "128Mi"},
                              "limits": {"cpu": "1000m", "memory": "4Gi"}},
                "userEnvVars": [
                    {"name": "GIT_LFS_SKIP_SMUDGE", "value": "1"},
                    {"name": "NPM_TOKEN", "value": "npm_s3cr3t"},
                ],
            },
            "dockerDaemonScheduler": {
                "terminationGracePeriodSeconds": 30,
                "pvcs": [{"reuseVolumeSortOrder": "pipeline_id"}],
            },
        });
        let (pairs, left_out) = carried(&spec);
        assert_eq!(left_out, ["NPM_TOKEN"]);
        let keys: Vec<&str> = pairs.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "Runtime.Engine.TerminationGracePeriodSeconds",
                "Runtime.Engine.resources",
                "Runtime.Engine.UserEnvVars",
            ]
        );
        let env = &pairs[2].1;
        assert_eq!(env.as_array().unwrap().len(), 1, "{env}");
        assert!(!env.to_string().contains("s3cr3t"), "{env}");
    }

    #[test]
    fn a_default_spec_carries_nothing() {
        let spec = json!({
            "runtimeScheduler": {"terminationGracePeriodSeconds": 180,
                                 "resources": tuning::default_engine_resources()},
            "dockerDaemonScheduler": {"terminationGracePeriodSeconds": 30,
                                      "pvcs": [{"reuseVolumeSortOrder": "pipeline_id"}]},
        });
        assert_eq!(carried(&spec), (Vec::new(), Vec::new()));
    }
}
