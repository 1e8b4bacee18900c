//! The last word of `delete`: what is left, verified by reading the
//! cluster and the platform again after the deletion, not assumed from
//! what was asked. Either one statement that nothing is left (how many
//! objects, the volumes, the namespace, the agent, runtime environment and
//! cluster integration), or each thing still there with why.
//!
//! A credential an old installer left (venonactl's provisioner Secret
//! `dind-volume-provisioner-runner` with AWS keys, say) that `adopt` could
//! not prove was the old tool's stays in the namespace: cf-runner never
//! deletes what it did not write. It is named here, with the `kubectl`
//! command that removes it, so that a delete never leaves a key behind
//! silently. Naming needs no proof (a wrong name deletes nothing), so the
//! Secret is recognised by the names and keys the old tools use.

use serde_json::Value;

use crate::app::installation::read_installation;
use crate::cluster::inventory::{self, LiveObject};
use crate::cluster::ownership::{self, Ledger, Ownership};
use crate::cluster::support::{secret_summaries, SecretSummary};
use crate::cluster::Cluster;
use crate::output;
use crate::platform::Platform;

/// What `delete` was asked to do, for the reasons of what is left.
pub(crate) struct Asked<'a> {
    /// Objects the delete removed (its count).
    pub deleted: usize,
    pub purge_volumes: bool,
    pub delete_namespace: bool,
    pub keep_platform: bool,
    /// The platform client the delete cleaned with (`None`: it did not).
    pub platform: Option<&'a Platform>,
    /// Whether the install was registered (`Some(false)`: offline).
    pub registered: Option<bool>,
    pub agent: Option<&'a str>,
    pub runtime: Option<&'a str>,
}

/// Why a labelled object is still in the cluster.
fn why_left(o: &LiveObject, namespace: &str, ledger: &Ledger, asked: &Asked<'_>) -> String {
    if o.is_deleting() {
        return "still being deleted (a finalizer holds it)".into();
    }
    if o.kind == "Namespace" {
        return if asked.delete_namespace {
            "it holds objects cf-runner did not create, or could not list them".into()
        } else {
            "namespaces stay unless --delete-namespace".into()
        };
    }
    match ownership::ownership(&o.object, namespace, ledger) {
        Ownership::ForceAdopted => {
            "it existed before the install (taken over with --force-conflicts): --delete-adopted deletes it"
                .into()
        }
        Ownership::Foreign(f) => format!("cf-runner did not create it ({})", f.describe()),
        Ownership::Ours => "cf-runner's, yet it survived the delete: re-run `cf-runner delete`".into(),
    }
}

/// The key names the runner's credentials go under, in the old tools'
/// Secrets and in cf-runner's (the provisioner's cloud keys, agent tokens).
const CREDENTIAL_KEYS: &[&str] = &[
    "aws_access_key_id",
    "aws_secret_access_key",
    "google-service-account.json",
    "agent-codefresh-token",
    "codefresh.token",
];

/// What a Secret left in a runner's namespace holds, when its name is one
/// an old installer gives its credentials (venonactl's and the cf-runtime
/// chart's provisioner Secret, venonactl's runtimes file, the chart's API
/// key) or its keys are the runner's credential keys; `None` otherwise.
pub(crate) fn runner_credential(name: &str, keys: &[&str]) -> Option<&'static str> {
    if name.starts_with("dind-volume-provisioner-") || name.ends_with("-volume-provisioner") {
        return Some("the volume provisioner's cloud credentials, under an old installer's name");
    }
    match name {
        "runnerconf" => return Some("venonactl's runtimes file (service-account tokens)"),
        "codefresh-user-token" => return Some("the Codefresh API key the cf-runtime chart used"),
        _ => {}
    }
    keys.iter()
        .any(|k| CREDENTIAL_KEYS.contains(k))
        .then_some("keys under the names of the runner's credentials")
}

/// True when `secret` carries the labels of the install in `namespace`
/// (those are listed with the install's objects).
fn labelled_as_ours(secret: &SecretSummary, namespace: &str) -> bool {
    secret
        .labels
        .get(crate::render::LABEL_MANAGED_BY)
        .map(String::as_str)
        == Some("cf-runner")
        && secret
            .labels
            .get(crate::render::LABEL_INSTANCE)
            .map(String::as_str)
            == Some(namespace)
}

/// The credentials of a runner left in `namespace` that cf-runner did not
/// write (see the module comment), each with the command that removes it.
async fn credentials_left(cluster: &Cluster, namespace: &str) -> Vec<String> {
    let secrets = match secret_summaries(&cluster.client, namespace).await {
        Ok(list) => list,
        Err(e) => {
            return vec![format!(
                "Secrets in namespace {namespace}: not verified ({}); an old installer's credentials may be left",
                e.chain_text()
            )]
        }
    };
    secrets
        .iter()
        .filter(|s| !labelled_as_ours(s, namespace))
        .filter_map(|s| {
            let keys: Vec<&str> = s.keys.keys().map(String::as_str).collect();
            let what = runner_credential(&s.name, &keys)?;
            Some(format!(
                "Secret/{name}: {what} (keys: {keys}); cf-runner did not write it and never deletes it. \
                 Once no runner uses it: kubectl --context {context} -n {namespace} delete secret {name}",
                name = s.name,
                keys = if keys.is_empty() { "none".to_string() } else { keys.join(", ") },
                context = crate::text::shell_word(&cluster.context),
            ))
        })
        .collect()
}

/// What the platform still holds of the install, each with why.
async fn on_platform(platform: &Platform, asked: &Asked<'_>, context: &str) -> Vec<String> {
    let mut left = Vec::new();
    if let Some(name) = asked.agent {
        match platform.agents_named(name).await {
            Ok(list) => {
                for a in list.iter().filter(|a| a.name == name) {
                    left.push(if a.runtimes.is_empty() {
                        format!("agent {name} is still on the platform")
                    } else {
                        format!(
                            "agent {name} stays on the platform: it serves {}",
                            a.runtimes.join(", ")
                        )
                    });
                }
            }
            Err(e) => left.push(format!("agent {name}: could not be verified ({e})")),
        }
    }
    if let Some(name) = asked.runtime {
        match platform.runtime(name).await {
            Ok(Some(_)) => left.push(format!(
                "runtime environment {name} is still on the platform"
            )),
            Ok(None) => {}
            Err(e) => left.push(format!(
                "runtime environment {name}: could not be verified ({e})"
            )),
        }
    }
    let selector = |v: &Value| {
        v.get("selector")
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    match platform.clusters().await {
        Ok(clusters)
            if clusters
                .iter()
                .any(|c| selector(c).as_deref() == Some(context)) =>
        {
            let users: Vec<String> = platform
                .runtimes()
                .await
                .unwrap_or_default()
                .iter()
                .filter(|re| {
                    re.pointer("/runtimeScheduler/cluster/clusterProvider/selector")
                        .and_then(Value::as_str)
                        == Some(context)
                })
                .filter_map(|re| re.pointer("/metadata/name").and_then(Value::as_str))
                .map(str::to_string)
                .collect();
            left.push(if users.is_empty() {
                format!("the cluster integration of {context} is still on the platform")
            } else {
                format!(
                    "the cluster integration of {context} stays: runtime environment(s) {} use it",
                    users.join(", ")
                )
            });
        }
        Ok(_) => {}
        Err(e) => left.push(format!(
            "the cluster integration of {context}: could not be verified ({e})"
        )),
    }
    left
}

/// Reads the cluster and platform again and says what is left of the
/// install in `namespace`, one item each with why, or that nothing is.
/// Gives what is left (empty: nothing).
pub(crate) async fn verify(cluster: &Cluster, namespace: &str, asked: &Asked<'_>) -> Vec<String> {
    let mut left = Vec::new();
    let (objects, volumes, ledger) = match read_installation(cluster, namespace).await {
        Ok(inst) => (inst.objects, inst.volumes, inst.ledger),
        Err(e) => {
            output::warn(&format!(
                "what is left in namespace {namespace} could not be verified: {e}"
            ));
            return vec![format!("namespace {namespace}: not verified")];
        }
    };
    for o in &objects {
        left.push(format!(
            "{}: {}",
            o.display_name(),
            why_left(o, namespace, &ledger, asked)
        ));
    }
    for v in &volumes {
        let why = if asked.purge_volumes {
            "still there after --purge-volumes (being released?)"
        } else {
            "dind volumes stay unless --purge-volumes"
        };
        left.push(format!("{}: {why}", v.display_name()));
    }
    let namespace_object =
        inventory::get(&cluster.client, "v1", "Namespace", None, namespace).await;
    let namespace_there = namespace_object
        .as_ref()
        .map(|n| n.is_some())
        .unwrap_or(true);
    // A namespace being deleted takes its Secrets with it.
    let namespace_stays = namespace_object
        .as_ref()
        .is_ok_and(|n| n.as_ref().is_some_and(|n| !n.is_deleting()));
    if namespace_stays {
        left.extend(credentials_left(cluster, namespace).await);
    }
    if namespace_there && !objects.iter().any(|o| o.kind == "Namespace") {
        left.push(format!(
            "Namespace/{namespace}: {}",
            if asked.delete_namespace {
                "cf-runner did not create it"
            } else {
                "namespaces stay unless --delete-namespace"
            }
        ));
    }
    let platform_clause = match (asked.platform, asked.registered) {
        (Some(p), _) => {
            left.extend(on_platform(p, asked, &cluster.context).await);
            format!(
                "; on the Codefresh platform, agent {}, runtime environment {} and the cluster integration of {} are gone",
                asked.agent.unwrap_or("(none)"),
                asked.runtime.unwrap_or("(none)"),
                cluster.context
            )
        }
        (None, Some(false)) => "; the install was offline: nothing was on the platform".into(),
        (None, _) if asked.keep_platform => {
            left.push(format!(
                "agent {} and runtime environment {}: on the platform (--keep-platform)",
                asked.agent.unwrap_or("(none)"),
                asked.runtime.unwrap_or("(none)")
            ));
            String::new()
        }
        (None, _) => {
            if asked.agent.is_some() || asked.runtime.is_some() {
                left.push(format!(
                    "agent {} and runtime environment {}: not verified on the platform (no token)",
                    asked.agent.unwrap_or("(none)"),
                    asked.runtime.unwrap_or("(none)")
                ));
            }
            String::new()
        }
    };
    if left.is_empty() {
        output::done(&format!(
            "verified: nothing is left of the runner in namespace {namespace}: {} objects deleted, \
             no dind volume (PVC or PV) remains and the namespace is gone{platform_clause}",
            asked.deleted
        ));
    } else {
        output::say(&format!(
            "Left of the runner in namespace {namespace}, verified ({}):",
            left.len()
        ));
        for item in &left {
            output::say(&format!("  {item}"));
        }
    }
    left
}

#[cfg(test)]
mod tests {
    use crate::app::installation::leftovers::runner_credential;

    /// The old installers' credential Secrets are recognised by name or by
    /// the runner's credential keys; a user's Secret of other names is not.
    #[test]
    fn an_old_installers_credential_is_recognised_by_name_or_keys() {
        for (name, keys, named) in [
            ("dind-volume-provisioner-runner", vec![], true),
            (
                "cf-runtime-volume-provisioner",
                vec!["aws_access_key_id"],
                true,
            ),
            ("runnerconf", vec!["a.runtime.yaml"], true),
            ("codefresh-user-token", vec!["token"], true),
            ("my-keys", vec!["aws_secret_access_key"], true),
            ("old-runner", vec!["agent-codefresh-token"], true),
            ("my-aws-keys", vec!["id", "secret"], false),
            ("registry", vec![".dockerconfigjson"], false),
        ] {
            assert_eq!(runner_credential(name, &keys).is_some(), named, "{name}");
        }
    }
}
