//! What an apply would change, without changing anything: each rendered
//! object is sent as a server-side apply with `dryRun=All` (the same object,
//! field manager and hash annotation `apply` sends), and the server's answer
//! is compared with the live object. Both come from the server, so defaults
//! it fills in appear on both sides and cancel out; `managedFields`, status
//! and the bookkeeping metadata are left out. Secret values never appear:
//! each is replaced by a marker that only says whether it changed.

use futures::future::join_all;
use kube::api::{Patch, PatchParams};
use kube::Client;
use serde::Serialize;
use serde_json::{Map, Value};

use super::apply::{with_hash, APPLIED_HASH_ANNOTATION};
use super::inventory::LiveObject;
use super::{api_for, request, KubeError, FIELD_MANAGER};
use crate::render::Manifest;

/// What an apply would do to one object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// It does not exist yet.
    Create,
    /// It exists and some fields would change.
    Change,
    /// It exists and nothing would change.
    Same,
    /// It exists, carries our labels, and is no longer rendered.
    Prune,
    /// It exists but belongs to someone else; apply leaves it alone.
    Skip,
}

/// One object's diff.
#[derive(Debug, Clone, Serialize)]
pub struct ObjectDiff {
    /// `Kind/name`.
    pub object: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub action: Action,
    /// A unified diff of the YAML, live first (empty when the same).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub diff: String,
}

/// Diffs every manifest against the cluster, and lists `prune` as removals.
pub async fn diff_all(
    client: &Client,
    manifests: &[Manifest],
    prune: &[LiveObject],
) -> Result<Vec<ObjectDiff>, KubeError> {
    let results = join_all(manifests.iter().map(|m| diff_one(client, m))).await;
    let mut out = Vec::new();
    for r in results {
        out.push(r?);
    }
    for live in prune {
        let mut object = normalized(&live.object);
        if live.kind == "Secret" {
            mask_secret(&mut object, None);
        }
        out.push(ObjectDiff {
            object: live.display_name(),
            namespace: live.namespace.clone(),
            action: Action::Prune,
            diff: unified(
                &to_yaml(&object),
                "",
                &format!("live {}", live.display_name()),
                "(removed)",
            ),
        });
    }
    Ok(out)
}

async fn diff_one(client: &Client, manifest: &Manifest) -> Result<ObjectDiff, KubeError> {
    let name = manifest.display_name();
    let api = api_for(
        client,
        &manifest.api_version,
        &manifest.kind,
        manifest.namespace.as_deref(),
    );
    let live = request("reading", &name, api.get_opt(&manifest.name)).await?;
    let desired = with_hash(&manifest.object);
    let result = |action, diff| ObjectDiff {
        object: name.clone(),
        namespace: manifest.namespace.clone(),
        action,
        diff,
    };
    let Some(live) = live else {
        let mut object = desired.clone();
        if manifest.kind == "Secret" {
            mask_secret(&mut object, None);
        }
        return Ok(result(
            Action::Create,
            unified(
                "",
                &to_yaml(&object),
                "(absent)",
                &format!("cf-runner {name}"),
            ),
        ));
    };
    let ours = super::namespace_is_ours(&live);
    if manifest.kind == "Namespace" && !ours {
        return Ok(result(Action::Skip, String::new()));
    }
    // Forced, as `--force-conflicts` would be: the diff shows what cf-runner
    // wants even where a hand edit took a field over.
    let params = PatchParams::apply(FIELD_MANAGER).dry_run().force();
    let after = request(
        "dry-run applying",
        &name,
        api.patch(&manifest.name, &params, &Patch::Apply(&desired)),
    )
    .await?;
    let mut before = normalized(&serde_json::to_value(&live).unwrap_or(Value::Null));
    let mut after = normalized(&serde_json::to_value(&after).unwrap_or(Value::Null));
    if annotation(&before, APPLIED_HASH_ANNOTATION).is_none() {
        // Applied by someone else (a GitOps engine applying the exported
        // tree): cf-runner's bookkeeping is not a change to the runner.
        remove_annotation(&mut after, APPLIED_HASH_ANNOTATION);
    }
    if manifest.kind == "Secret" {
        let old = before.clone();
        mask_secret(&mut before, None);
        mask_secret(&mut after, Some(&old));
    }
    let (old, new) = (to_yaml(&before), to_yaml(&after));
    if old == new {
        return Ok(result(Action::Same, String::new()));
    }
    Ok(result(
        Action::Change,
        unified(
            &old,
            &new,
            &format!("live {name}"),
            &format!("cf-runner {name}"),
        ),
    ))
}

/// The object without what the server keeps for itself.
fn normalized(object: &Value) -> Value {
    let mut out = object.clone();
    if let Some(map) = out.as_object_mut() {
        map.remove("status");
        if let Some(Value::Object(meta)) = map.get_mut("metadata") {
            // `shift_remove`: the diff compares texts, and a plain
            // (swapping) remove would move another key into the gap.
            for key in [
                "managedFields",
                "resourceVersion",
                "generation",
                "uid",
                "creationTimestamp",
                "selfLink",
            ] {
                meta.shift_remove(key);
            }
        }
    }
    for key in [
        "deployment.kubernetes.io/revision",
        "deprecated.daemonset.template.generation",
    ] {
        remove_annotation(&mut out, key);
    }
    out
}

fn annotation<'a>(object: &'a Value, key: &str) -> Option<&'a Value> {
    object.pointer("/metadata/annotations")?.get(key)
}

/// Removes an annotation, and the annotations map once it is empty,
/// keeping the order of the other keys.
fn remove_annotation(object: &mut Value, key: &str) {
    let Some(Value::Object(meta)) = object.get_mut("metadata") else {
        return;
    };
    if let Some(Value::Object(annotations)) = meta.get_mut("annotations") {
        annotations.shift_remove(key);
        if annotations.is_empty() {
            meta.shift_remove("annotations");
        }
    }
}

/// Replaces every value of a Secret's `data`/`stringData` by a marker; with
/// `before`, the marker says whether the value differs from the one there.
fn mask_secret(object: &mut Value, before: Option<&Value>) {
    for field in ["data", "stringData"] {
        let Some(Value::Object(entries)) = object.get_mut(field) else {
            continue;
        };
        let masked: Map<String, Value> = entries
            .iter()
            .map(|(k, v)| {
                let changed = before.is_some_and(|b| {
                    b.get(field)
                        .and_then(|d| d.get(k))
                        .is_none_or(|old| old != v)
                });
                let marker = if changed {
                    "(secret value, changed)"
                } else {
                    "(secret value)"
                };
                (k.clone(), Value::String(marker.into()))
            })
            .collect();
        *entries = masked;
    }
}

fn to_yaml(object: &Value) -> String {
    serde_yaml_ng::to_string(object).expect("a JSON tree serializes to YAML")
}

/// A unified diff of two texts by lines, with three lines of context.
pub fn unified(old: &str, new: &str, old_name: &str, new_name: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    // Longest common subsequence table, from the end.
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    // The edit script: (' ' | '-' | '+', old index, new index, line).
    let mut ops: Vec<(char, usize, usize, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push((' ', i, j, a[i]));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            ops.push(('-', i, j, a[i]));
            i += 1;
        } else {
            ops.push(('+', i, j, b[j]));
            j += 1;
        }
    }
    const CONTEXT: usize = 3;
    let changed: Vec<usize> = (0..ops.len()).filter(|&k| ops[k].0 != ' ').collect();
    if changed.is_empty() {
        return String::new();
    }
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    let mut k = 0;
    while k < changed.len() {
        let start = changed[k].saturating_sub(CONTEXT);
        let mut end = (changed[k] + CONTEXT + 1).min(ops.len());
        while k + 1 < changed.len() && changed[k + 1] <= end + CONTEXT {
            k += 1;
            end = (changed[k] + CONTEXT + 1).min(ops.len());
        }
        let hunk = &ops[start..end];
        let old_len = hunk.iter().filter(|o| o.0 != '+').count();
        let new_len = hunk.iter().filter(|o| o.0 != '-').count();
        let old_start = hunk[0].1 + usize::from(old_len > 0);
        let new_start = hunk[0].2 + usize::from(new_len > 0);
        out.push_str(&format!(
            "@@ -{old_start},{old_len} +{new_start},{new_len} @@\n"
        ));
        for (op, _, _, line) in hunk {
            out.push(*op);
            out.push_str(line);
            out.push('\n');
        }
        k += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_unified_diff_shows_only_the_changed_lines_with_context() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nd\nE\nf\ng\nh\n";
        let d = unified(old, new, "live", "new");
        assert_eq!(
            d,
            "--- live\n+++ new\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n"
        );
        assert_eq!(unified(old, old, "x", "y"), "");
        let created = unified("", "a\nb\n", "(absent)", "new");
        assert!(created.contains("@@ -0,0 +1,2 @@\n+a\n+b\n"), "{created}");
    }

    #[test]
    fn secret_values_become_markers() {
        let live = json!({"data": {"token": "b2xk", "same": "eA=="}});
        let mut after = json!({"data": {"token": "bmV3", "same": "eA=="}});
        let mut before = live.clone();
        mask_secret(&mut before, None);
        mask_secret(&mut after, Some(&live));
        assert_eq!(before["data"]["token"], "(secret value)");
        assert_eq!(after["data"]["token"], "(secret value, changed)");
        assert_eq!(after["data"]["same"], "(secret value)");
        assert!(!to_yaml(&after).contains("bmV3"));
    }

    #[test]
    fn leaving_out_bookkeeping_keeps_the_order_of_the_other_keys() {
        // A Deployment whose only annotation is the server's revision (as
        // one a GitOps engine applied): dropping it must not reorder
        // metadata, or the live and dry-run texts differ in every line.
        let live = json!({"metadata": {"annotations": {"deployment.kubernetes.io/revision": "1"},
            "labels": {"a": "b"}, "name": "runner", "namespace": "ns", "uid": "u"}});
        let keys: Vec<String> = normalized(&live)["metadata"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(keys, ["labels", "name", "namespace"]);
    }

    #[test]
    fn server_bookkeeping_is_left_out() {
        let live = json!({"metadata": {"name": "x", "resourceVersion": "7", "managedFields": [],
            "annotations": {"deployment.kubernetes.io/revision": "2"}}, "status": {"ready": 1},
            "spec": {"replicas": 1}});
        assert_eq!(
            normalized(&live),
            json!({"metadata": {"name": "x"}, "spec": {"replicas": 1}})
        );
    }
}
