//! venonactl's layout of one agent with several runtimes: Secret
//! `runnerconf` in the agent's namespace holds one `*.runtime.yaml` per
//! runtime (the agent's own namespace's included), each with the token of
//! a ServiceAccount venonactl made in that runtime's namespace (`runner`,
//! bound to Role `runner`, its token in a `runner-token-*` Secret).
//!
//! `adopt` ends with what `init` + `runtime attach` would have built:
//!
//! - in each other runtime namespace, the runtime's objects venonactl made
//!   under the names cf-runner renders (`codefresh-engine` ServiceAccount,
//!   Role and RoleBinding, the dind Secret, ConfigMap and Service) are
//!   marked as taken over and applied by cf-runner; the dind certificate is
//!   kept;
//! - in every runtime namespace (the agent's own too) the agent gets
//!   cf-runner's access objects (`cf-runner-agent` and its token), and
//!   `runnerconf` (taken over) holds one file per runtime with that token;
//! - cf-runner's runner comes up in config-dir mode with every runtime
//!   before the old runner goes, so the agent never serves fewer runtimes;
//! - venonactl's access objects in the other runtime namespaces (the
//!   ServiceAccount the old file's token is of, that token's Secret, the
//!   RoleBindings of that ServiceAccount and the Roles only they bind) are
//!   deleted last, once the agent runs with cf-runner's tokens: the old
//!   token stays valid until it is no longer used.
//!
//! Everything else in a runtime namespace (volume provisioner, storage
//! class, volumes, anything of the user's) is left alone. The platform's
//! agent runtime list and the other runtimes' specs are not changed. A
//! runtime in another cluster is refused (exit 3): adopt reads only the
//! agent's cluster.

pub(crate) mod survey;

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;

use crate::app::adopt::handover::{remove, OnPlatform};
use crate::app::adopt::objects::{in_namespace, kind, name, ObjectRef};
use crate::app::adopt::runtimes::survey::{old_access, Layout};
use crate::app::runtimes::access::ensure_access;
use crate::app::runtimes::target::{Resolved, Target, IN_CLUSTER_HOST};
use crate::app::session::converge;
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster::{self, runtimes as live};
use crate::output;
use crate::render::runtimes::{
    config_dir_mode, config_key, config_manifest, AGENT_DEPLOYMENT, CONFIG_SECRET,
};
use crate::render::{self, Component, Identity, Manifest};
use crate::values::{self, Loaded};

/// The files of Secret `runnerconf` in `namespace`, whoever wrote it
/// (empty when there is none). Their tokens stay in memory only.
pub(super) async fn read_files(
    cluster: &cluster::Cluster,
    namespace: &str,
) -> Result<BTreeMap<String, String>, Outcome> {
    live::read_config(&cluster.client, namespace, CONFIG_SECRET)
        .await
        .map(|c| c.map(|c| c.files).unwrap_or_default())
        .doing("reading Secret runnerconf failed")
}

/// The agent's own runtime among those the platform lists for it and
/// `runnerconf` holds: the one whose spec builds in `namespace`. With none
/// there, the first of them (adopt then refuses an agent in a namespace of
/// its own, naming where that runtime builds).
pub(super) async fn own_of(
    client: &crate::platform::Platform,
    listed: &[String],
    runnerconf: &[String],
    namespace: &str,
) -> Result<Option<String>, Outcome> {
    let candidates: Vec<&String> = listed.iter().filter(|r| runnerconf.contains(r)).collect();
    for r in &candidates {
        let spec = client
            .runtime(r)
            .await
            .doing("reading the runtime environment")?;
        let ns = spec
            .as_ref()
            .and_then(|s| s.pointer("/runtimeScheduler/cluster/namespace"))
            .and_then(Value::as_str);
        if ns == Some(namespace) {
            return Ok(Some((*r).clone()));
        }
    }
    Ok(candidates.first().map(|r| (*r).clone()))
}

/// Adds the plan's lines for the runtime namespaces.
pub(super) fn print_plan(layout: &Layout, agent_namespace: &str) {
    output::say(&format!(
        "  runtimes the agent serves (Secret runnerconf, taken over; one file each with cf-runner's token; \
         the runner runs in config-dir mode): {}",
        match &layout.own {
            Some(own) => format!("{own} (namespace {agent_namespace})"),
            None => format!(
                "none in namespace {agent_namespace}: the agent has a namespace of its own and becomes an agent installed alone (AgentOnly)"
            ),
        }
    ));
    for a in &layout.others {
        let names = |list: &[ObjectRef]| {
            if list.is_empty() {
                "(none)".to_string()
            } else {
                list.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        output::say(&format!(
            "    - {} (namespace {}): taken over: {}; the agent's access ServiceAccount/cf-runner-agent is added; \
             venonactl's access, deleted once the agent uses cf-runner's token: {}; everything else there is left alone",
            a.name,
            a.namespace,
            names(&a.taken_over),
            names(&a.replaced)
        ));
        if let Some(class) = &a.storage_class {
            output::say(&format!(
                "      its builds' volumes keep StorageClass {class} (left alone); `cf-runner runtime upgrade` of it \
                 keeps it with --set-value Storage.StorageClassName={class} --set-value Storage.CreateStorageClass=false"
            ));
        }
    }
    output::say(
        "  the platform's list of the agent's runtimes and the other runtimes' specs are left as they are",
    );
}

/// The kinds and names of what cf-runner renders in a runtime namespace.
pub(super) fn runtime_object_names(
    loaded: &Loaded,
    identity: &Identity,
) -> Result<Vec<(String, String)>, Outcome> {
    let rendered = render_runtime(loaded, identity, "runtime-namespace", None)?;
    Ok(rendered.into_iter().map(|m| (m.kind, m.name)).collect())
}

/// The runtime's own objects for namespace `ns`, from the agent's values.
fn render_runtime(
    loaded: &Loaded,
    identity: &Identity,
    ns: &str,
    runtime: Option<&str>,
) -> Result<Vec<Manifest>, Outcome> {
    let mut values = loaded.values.clone();
    values.namespace = ns.to_string();
    // A runtime's objects, whether or not the agent is installed alone.
    values.agent_only = false;
    let mut identity = identity.clone();
    if let Some(r) = runtime {
        identity.runtime_name = Some(r.to_string());
    }
    let rendered = render::render(&values, &identity, &loaded.redacted_tree)
        .map_err(Outcome::render_failed)?;
    Ok(rendered
        .manifests
        .into_iter()
        .filter(|m| m.component == Component::Runtime && m.namespace.is_some())
        .collect())
}

/// Puts `rendered` in config-dir mode with `files`: Secret runnerconf
/// (replacing any earlier one of the render) and the runner Deployment
/// reading it, with the files' hash on its pod template.
pub(super) fn config_dir(
    rendered: &mut render::Rendered,
    namespace: &str,
    files: &BTreeMap<String, String>,
) {
    rendered
        .manifests
        .retain(|m| !(m.kind == "Secret" && m.name == CONFIG_SECRET));
    rendered.manifests.push(config_manifest(namespace, files));
    for m in rendered
        .manifests
        .iter_mut()
        .filter(|m| m.kind == "Deployment" && m.name == AGENT_DEPLOYMENT)
    {
        config_dir_mode(m, files);
    }
}

/// Takes each other runtime's objects over and gives the agent cf-runner's
/// access in every runtime namespace. Gives the files `runnerconf` holds
/// from now on (one per runtime, with cf-runner's tokens). Each write is
/// compared first: a re-run writes nothing.
pub(super) async fn take_over(
    cluster: &cluster::Cluster,
    namespace: &str,
    layout: &Layout,
    loaded: &Loaded,
    identity: &Identity,
    platform: &OnPlatform,
    timeout: Duration,
) -> Result<BTreeMap<String, String>, Outcome> {
    let resolved = |name: &str, ns: &str, host: Option<&str>| -> Result<Resolved, Outcome> {
        let key = config_key(name).ok_or_else(|| {
            Outcome::BadInput(values::Problems(vec![values::Problem::new(
                "RuntimeEnvironmentName",
                Some(&Value::String(name.to_string())),
                "cannot name a runtime file: only letters, digits, -, _, ., /, @ and : may appear",
                "rename the runtime environment on the platform",
            )]))
        })?;
        // The address the agent reached the API server at stays: venonactl
        // wrote the kubeconfig's (or --kube-host), which the pod reaches.
        let target = Target {
            kube_host: host
                .filter(|h| *h != IN_CLUSTER_HOST && !h.is_empty())
                .map(str::to_string),
            ..Target::default()
        };
        Ok(Resolved {
            target,
            cluster: cluster.clone(),
            namespace: ns.to_string(),
            name: name.to_string(),
            key,
            same_cluster: true,
        })
    };
    let mut files = BTreeMap::new();
    output::say(
        "Before step 1: the agent's access in each runtime namespace (cf-runner's token; the old one stays valid until step 3)",
    );
    if let Some(own) = &layout.own {
        let own = resolved(own, namespace, layout.own_host.as_deref())?;
        let access = ensure_access(&own, Vec::new(), timeout, "adopt").await?;
        files.insert(own.key.clone(), access.file_text());
    }
    for a in &layout.others {
        let certs = kept_or_signed(cluster, &a.namespace, platform).await?;
        let mut id = identity.clone();
        (id.dind_ca, id.dind_cert, id.dind_key) = (Some(certs.0), Some(certs.1), Some(certs.2));
        let manifests = render_runtime(loaded, &id, &a.namespace, Some(&a.name))?;
        mark(cluster, &a.namespace, &a.taken_over).await?;
        converge::apply_with_progress(cluster, &manifests, &a.namespace, true, "adopt").await?;
        let r = resolved(&a.name, &a.namespace, Some(&a.host))?;
        let access = ensure_access(&r, Vec::new(), timeout, "adopt").await?;
        files.insert(r.key.clone(), access.file_text());
    }
    Ok(files)
}

/// Marks venonactl's objects `list` in `ns` as cf-runner's (by their uid).
async fn mark(cluster: &cluster::Cluster, ns: &str, list: &[ObjectRef]) -> Result<(), Outcome> {
    if list.is_empty() {
        return Ok(());
    }
    let objects = cluster::adopt::scan(cluster, ns)
        .await
        .doing("reading the runtime's namespace failed")?;
    for r in list {
        let Some(o) = objects
            .iter()
            .find(|o| in_namespace(o, ns) && kind(o) == r.kind && name(o) == r.name)
        else {
            continue;
        };
        crate::app::adopt::handover::mark_taken_over(cluster, ns, o).await?;
    }
    Ok(())
}

/// The dind TLS material of runtime namespace `ns`: kept when there, else
/// a new key signed by the platform (the key never leaves).
async fn kept_or_signed(
    cluster: &cluster::Cluster,
    ns: &str,
    platform: &OnPlatform,
) -> Result<(values::Secret, values::Secret, values::Secret), Outcome> {
    if let Some(kept) = crate::app::adopt::handover::kept_certs(cluster, ns).await? {
        return Ok(kept);
    }
    crate::app::adopt::handover::signed_certs(ns, platform).await
}

/// Deletes venonactl's access objects in each other runtime namespace
/// (read again: a re-run finds what is left). The agent runs with
/// cf-runner's tokens by now; the old tokens die here.
pub(super) async fn remove_old_access(
    cluster: &cluster::Cluster,
    layout: &Layout,
    timeout: Duration,
) -> Result<(), Outcome> {
    for a in &layout.others {
        let objects = cluster::adopt::scan(cluster, &a.namespace)
            .await
            .doing("reading the runtime's namespace failed")?;
        let local: Vec<&Value> = objects
            .iter()
            .filter(|o| in_namespace(o, &a.namespace))
            .collect();
        let now = old_access(&local, a.account.as_deref(), a.token_secret.as_deref());
        let gone: Vec<&Value> = local
            .iter()
            .copied()
            .filter(|o| now.contains(&crate::app::adopt::objects::reference(o)))
            .collect();
        remove(cluster, gone, timeout).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
