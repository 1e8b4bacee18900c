//! The plan of a move: each of the old install's objects classified as
//! replaced by cf-runner's, removed, or kept; refused when one cannot be
//! classified.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::app::adopt::credentials;
use crate::app::adopt::detect::{KNOWN_SECRETS, REMOVABLE_KINDS, STRAY_NOTE};
use crate::app::adopt::found::{Found, Plan};
use crate::app::adopt::objects::{component_of, ObjectRef, RUNNER_TOKEN_SECRET};
use crate::app::installation::leftovers;
use crate::render;

/// Sorts the old install's objects against what cf-runner would install.
/// `ours` holds each object cf-runner would install with its pod selector
/// (`Value::Null` for kinds without one).
pub fn plan(found: &Found, ours: &[(ObjectRef, Value)], namespace: &str) -> Plan {
    let selector_of: BTreeMap<&ObjectRef, &Value> = ours.iter().map(|(o, s)| (o, s)).collect();
    let ours: Vec<ObjectRef> = ours.iter().map(|(o, _)| o.clone()).collect();
    let mut plan = Plan::default();
    let mut helm_records = Vec::new();
    for old in &found.objects {
        let theirs = Theirs {
            found,
            ours: &ours,
            selector_of: &selector_of,
            namespace,
        };
        classify(old, &theirs, &mut plan, &mut helm_records);
    }
    plan.removed.extend(helm_records);
    say_left_alone(found, namespace, &mut plan);
    plan
}

/// What one old object is classified against.
struct Theirs<'a> {
    found: &'a Found,
    ours: &'a [ObjectRef],
    selector_of: &'a BTreeMap<&'a ObjectRef, &'a Value>,
    namespace: &'a str,
}

/// One old object: taken over, replaced, removed, left alone or not
/// classified (the Helm release records go last, into `helm_records`).
fn classify(old: &ObjectRef, at: &Theirs<'_>, plan: &mut Plan, helm_records: &mut Vec<ObjectRef>) {
    let Theirs {
        found,
        ours,
        selector_of,
        namespace,
    } = *at;
    let by_kind = |k: &str| {
        ours.iter()
            .filter(|o| o.kind == k)
            .cloned()
            .collect::<Vec<_>>()
    };
    if old.kind == "StorageClass" && ours.contains(old) {
        if let Some((_, provisioner)) = &found.storage_class {
            if *provisioner == render::provisioner_name(namespace) {
                plan.left_alone.push(format!(
                    "{old} (cf-runner uses the same name and provisioner {provisioner}: the class and its volumes stay as they are; cf-runner only adds its labels)"
                ));
                return;
            }
        }
    }
    if ours.contains(old) {
        let theirs = found.selectors.get(&old.to_string());
        let mine = selector_of.get(old).copied().filter(|s| !s.is_null());
        if theirs.is_some() && mine.is_some() && theirs != mine {
            plan.selector_clash.push(old.clone());
            return;
        }
        plan.taken_over.push(old.clone());
        return;
    }
    if found.token_secret.as_deref() == Some(old.name.as_str()) && old.kind == "Secret" {
        // The agent token moves to cf-runner's Secret; the old one goes
        // once the new runner serves builds.
        if let Some(new) = ours
            .iter()
            .find(|o| o.kind == "Secret" && o.name == RUNNER_TOKEN_SECRET)
        {
            plan.replaced.push((old.clone(), new.clone()));
            return;
        }
    }
    if old.kind == "StorageClass" {
        if let Some((_, provisioner)) = &found.storage_class {
            plan.left_alone.push(format!(
                "{old} (provisioner {provisioner}; cf-runner renders another name, so it stays and the new class is added)"
            ));
            return;
        }
    }
    if old.kind == "Secret" && old.name.starts_with("sh.helm.release.v1.") {
        helm_records.push(old.clone());
        return;
    }
    if old.kind == "Secret"
        && found
            .credentials
            .iter()
            .any(|c| c.carried_secret() == Some(old.name.as_str()))
    {
        // Its keys go into cf-runner's credentials Secret; the old one
        // goes once cf-runner's provisioner is up.
        plan.replaced.push((
            old.clone(),
            ObjectRef {
                kind: "Secret".into(),
                name: render::PROVISIONER_SECRET.into(),
            },
        ));
        return;
    }
    if found.run_time.contains(old) {
        // Made at run time by an object of the old install (a Job of
        // its CronJob, a token of its ServiceAccount): removed with it.
        plan.removed.push(old.clone());
        return;
    }
    if let Some(why) = unclassified(old) {
        plan.unclassified.push((old.clone(), why));
        return;
    }
    let counterpart = match old.kind.as_str() {
        "Deployment" | "DaemonSet" | "CronJob" => {
            let role = component_of(&old.name);
            by_kind(&old.kind)
                .into_iter()
                .find(|o| role.is_some() && component_of(&o.name) == role)
        }
        _ => None,
    };
    match counterpart {
        Some(new) => plan.replaced.push((old.clone(), new)),
        None => plan.removed.push(old.clone()),
    }
}

/// What the move leaves where it is: the user's credential Secrets, the
/// dind volumes, the namespace, the platform's side.
fn say_left_alone(found: &Found, namespace: &str, plan: &mut Plan) {
    let mut users = BTreeSet::new();
    for c in &found.credentials {
        if let (
            credentials::Source::SecretKey { secret, .. },
            credentials::Destination::UsersSecret,
        ) = (&c.from, &c.to)
        {
            if users.insert(secret.clone()) {
                plan.left_alone.push(if leftovers::runner_credential(secret, &[]).is_some() {
                    format!(
                        "Secret/{secret} ({STRAY_NOTE}; cf-runner's provisioner reads it where it is. {})",
                        removal(namespace, secret)
                    )
                } else {
                    format!(
                        "Secret/{secret} (yours: cf-runner's provisioner reads it where it is; cf-runner never deletes it)"
                    )
                });
            }
        }
    }
    for secret in &found.stray_credentials {
        plan.left_alone.push(format!(
            "Secret/{secret} ({STRAY_NOTE}; no component of the old install reads it. {})",
            removal(namespace, secret)
        ));
    }
    plan.left_alone.push(format!(
        "dind volume claims and their volumes ({})",
        if found.volume_claims.is_empty() {
            "none yet".to_string()
        } else {
            found.volume_claims.join(", ")
        }
    ));
    plan.left_alone.push("the namespace".into());
    plan.left_alone.push(
        "the agent and the runtime environment on the platform (same names, same agent token)"
            .into(),
    );
}

/// What the plan says about removing a credential Secret cf-runner leaves.
pub(crate) fn removal(namespace: &str, secret: &str) -> String {
    format!(
        "`cf-runner delete` names it as left; once no runner uses it: kubectl -n {namespace} delete secret {secret}"
    )
}

/// Why an old object the move has no rule for is not removed blindly, or
/// `None` when a rule removes it.
pub(crate) fn unclassified(old: &ObjectRef) -> Option<String> {
    if REMOVABLE_KINDS.contains(&old.kind.as_str()) {
        return None;
    }
    if old.kind == "Secret" {
        let known = KNOWN_SECRETS
            .iter()
            .any(|(n, _)| old.name == *n || (n.ends_with('-') && old.name.starts_with(n)))
            || old.name.ends_with("-volume-provisioner");
        return (!known).then(|| {
            "a Secret of the old tool's whose role adopt does not know: removing it could lose what it holds, keeping it could leave a credential behind".to_string()
        });
    }
    Some(format!(
        "adopt has no rule for a {} of the old tool's",
        old.kind
    ))
}
