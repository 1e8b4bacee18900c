//! Version skew, read from the cluster alone (no network): an install made
//! by a newer cf-runner, or against another chart parity than this one
//! renders, and running images that are not the ones cf-runner pinned
//! (someone edited a workload: `kubectl set image`, `kubectl edit`).
//!
//! An edited image is told by `metadata.managedFields`: the API server
//! names the writer of each field, so a container's `image` owned by a
//! manager other than cf-runner's apply was changed by someone else. That
//! holds whatever version installed it, where comparing with this
//! version's render would flag every upgrade to come.

use serde_json::Value;

use crate::cluster::inventory::{self, LiveObject};
use crate::cluster::preflight::{Check, Status};
use crate::cluster::{Cluster, FIELD_MANAGER};
use crate::render::images::CHART_VERSION;

/// The env var the runner carries the chart parity in (templates/runner.yaml).
const CHART_ENV: &str = "RUNTIME_CHART_VERSION";

/// `1.2.3` as numbers; a pre-release or build suffix is ignored.
fn version(text: &str) -> Option<Vec<u64>> {
    let core = text
        .trim()
        .trim_start_matches('v')
        .split(['-', '+'])
        .next()?;
    core.split('.').map(|p| p.parse().ok()).collect()
}

/// Says when `recorded` (the record's cf-runner version) is newer than
/// `ours`.
pub(crate) fn newer_installer(recorded: Option<&str>, ours: &str) -> Option<String> {
    let recorded = recorded?;
    let (theirs, mine) = (version(recorded)?, version(ours)?);
    (theirs > mine).then(|| {
        format!(
            "installed by cf-runner {recorded}, newer than this cf-runner {ours}: use cf-runner {recorded} or newer \
             to upgrade or change it (this one may not know what it wrote)"
        )
    })
}

/// The pod spec of a workload.
fn pod_spec(o: &LiveObject) -> Option<&Value> {
    match o.kind.as_str() {
        "Deployment" | "DaemonSet" => o.object.pointer("/spec/template/spec"),
        "CronJob" => o.object.pointer("/spec/jobTemplate/spec/template/spec"),
        _ => None,
    }
}

/// Says when the runner was rendered against another chart parity.
pub(crate) fn chart_parity(objects: &[LiveObject], ours: &str) -> Option<String> {
    let found = objects
        .iter()
        .filter(|o| o.kind == "Deployment")
        .filter_map(pod_spec)
        .filter_map(|p| p["containers"].as_array())
        .flatten()
        .filter_map(|c| c["env"].as_array())
        .flatten()
        .find(|e| e["name"] == CHART_ENV)
        .and_then(|e| e["value"].as_str())?;
    (found != ours).then(|| {
        format!(
            "rendered against cf-runtime chart {found}, while this cf-runner renders chart {ours}: \
             `cf-runner upgrade` brings it to {ours}"
        )
    })
}

/// The managedFields path of the containers of a workload's pod template.
fn containers_path(kind: &str) -> &'static [&'static str] {
    match kind {
        "CronJob" => &["f:spec", "f:jobTemplate", "f:spec", "f:template", "f:spec"],
        _ => &["f:spec", "f:template", "f:spec"],
    }
}

/// `(container, manager)` for each container image of `o` written by a
/// manager other than cf-runner's apply.
fn edited_images(o: &LiveObject) -> Vec<(String, String, String)> {
    let Some(entries) = o
        .object
        .pointer("/metadata/managedFields")
        .and_then(Value::as_array)
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries {
        let manager = entry["manager"].as_str().unwrap_or("(unnamed)");
        if manager == FIELD_MANAGER && entry["operation"] == "Apply" {
            continue;
        }
        let mut node = &entry["fieldsV1"];
        for step in containers_path(&o.kind) {
            node = &node[*step];
        }
        for list in ["f:containers", "f:initContainers"] {
            let Some(items) = node[list].as_object() else {
                continue;
            };
            for (key, fields) in items {
                if fields.get("f:image").is_none() {
                    continue;
                }
                // `k:{"name":"runner"}`
                let name = key
                    .strip_prefix("k:")
                    .and_then(|k| serde_json::from_str::<Value>(k).ok())
                    .and_then(|k| k["name"].as_str().map(str::to_string))
                    .unwrap_or_else(|| key.clone());
                let image = pod_spec(o)
                    .and_then(|p| p[list.trim_start_matches("f:")].as_array())
                    .and_then(|cs| cs.iter().find(|c| c["name"] == name.as_str()))
                    .and_then(|c| c["image"].as_str())
                    .unwrap_or("?")
                    .to_string();
                out.push((name, manager.to_string(), image));
            }
        }
    }
    out
}

/// Says, for each workload container whose image someone else set, what
/// runs and who set it.
pub(crate) fn edited(objects: &[LiveObject]) -> Vec<String> {
    objects
        .iter()
        .flat_map(|o| {
            edited_images(o).into_iter().map(move |(container, manager, image)| {
                format!(
                    "{} container {container} runs {image}, set by {manager}, not the image cf-runner pinned: \
                     `cf-runner upgrade` puts the pinned one back (or set it in the values to keep it)",
                    o.display_name()
                )
            })
        })
        .collect()
}

/// Every skew note of one installation.
pub(crate) fn notes(recorded_version: Option<&str>, objects: &[LiveObject]) -> Vec<String> {
    let mut out = Vec::new();
    out.extend(newer_installer(recorded_version, env!("CARGO_PKG_VERSION")));
    out.extend(chart_parity(objects, CHART_VERSION));
    out.extend(edited(objects));
    out
}

/// The `check` line of an install already in `namespace` (`None` when
/// there is none): a warning naming each skew, which does not fail.
pub(crate) async fn check(cluster: &Cluster, namespace: &str) -> Option<Check> {
    let record = inventory::record(&cluster.client, namespace).await.ok()??;
    let objects = inventory::labelled(&cluster.client, namespace)
        .await
        .unwrap_or_default();
    let found = notes(record.cf_runner_version.as_deref(), &objects);
    Some(Check {
        name: CHECK_NAME.into(),
        status: if found.is_empty() {
            Status::Pass
        } else {
            Status::Warn
        },
        reason: if found.is_empty() {
            format!(
                "installed by cf-runner {}, chart {CHART_VERSION}, images as pinned",
                record.cf_runner_version.as_deref().unwrap_or("(unknown)")
            )
        } else {
            format!(
                "{} difference(s) from what this cf-runner installs",
                found.len()
            )
        },
        details: found.clone(),
        fix: (!found.is_empty()).then(|| "see each line".to_string()),
        unreachable: false,
    })
}

/// Name of the `check` line.
pub(crate) const CHECK_NAME: &str = "version skew";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment(object: Value) -> LiveObject {
        LiveObject {
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
            name: "runner".into(),
            namespace: Some("ci".into()),
            object,
        }
    }

    #[test]
    fn a_newer_installer_is_named_and_an_older_one_is_not() {
        assert!(newer_installer(Some("0.3.0"), "0.2.9").is_some());
        assert!(newer_installer(Some("0.10.0"), "0.9.0").is_some());
        assert!(newer_installer(Some("0.2.0"), "0.2.0").is_none());
        assert!(newer_installer(Some("0.1.0"), "0.2.0").is_none());
        assert!(newer_installer(None, "0.2.0").is_none());
    }

    #[test]
    fn an_image_set_by_kubectl_is_told_from_the_applied_one() {
        let fields = |image: bool| {
            let mut c = json!({"f:name": {}});
            if image {
                c["f:image"] = json!({});
            }
            json!({"f:spec": {"f:template": {"f:spec": {"f:containers": {"k:{\"name\":\"runner\"}": c}}}}})
        };
        let d = deployment(json!({
            "metadata": {"managedFields": [
                {"manager": "cf-runner", "operation": "Apply", "fieldsV1": fields(false)},
                {"manager": "kubectl-set", "operation": "Update", "fieldsV1": fields(true)},
            ]},
            "spec": {"template": {"spec": {"containers": [{"name": "runner", "image": "mine:1",
                "env": [{"name": "RUNTIME_CHART_VERSION", "value": "10.4.0"}]}]}}}
        }));
        let said = edited(std::slice::from_ref(&d));
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(said[0].contains("container runner runs mine:1, set by kubectl-set"));
        assert!(chart_parity(std::slice::from_ref(&d), "10.5.2")
            .unwrap()
            .contains("chart 10.4.0"));
        assert!(chart_parity(std::slice::from_ref(&d), "10.4.0").is_none());
        let applied = deployment(json!({"metadata": {"managedFields": [
            {"manager": "cf-runner", "operation": "Apply", "fieldsV1": fields(true)}]}}));
        assert!(edited(&[applied]).is_empty());
    }
}
