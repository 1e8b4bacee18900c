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

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use base64::Engine;
use serde_json::Value;

use crate::app::adopt::handover::{remove, OnPlatform};
use crate::app::adopt::objects::{in_namespace, kind, label, name, ObjectRef};
use crate::app::runtimes::access::ensure_access;
use crate::app::runtimes::target::{Resolved, Target, IN_CLUSTER_HOST};
use crate::app::session::converge;
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster::{self, runtimes as live};
use crate::output;
use crate::render::runtimes::{
    config_dir_mode, config_key, config_manifest, ACCESS_NAME, AGENT_DEPLOYMENT, CONFIG_SECRET,
};
use crate::render::{self, Component, Identity, Manifest, LABEL_MANAGED_BY};
use crate::values::{self, Loaded};

/// The ServiceAccount venonactl's attach gives the agent by default
/// (`--kube-service-account`).
const VENONACTL_ACCOUNT: &str = "runner";
/// The Secret type Kubernetes fills with a ServiceAccount's token.
const TOKEN_TYPE: &str = "kubernetes.io/service-account-token";

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

/// What one `*.runtime.yaml` says, without its token.
struct FileFacts {
    name: Option<String>,
    host: Option<String>,
    /// The ServiceAccount the token is of, and the Secret it came from
    /// (read from the token's claims, never from the token's signature).
    account: Option<String>,
    token_secret: Option<String>,
}

fn file_facts(text: &str) -> FileFacts {
    let file = crate::render::runtimes::read_runtime_file(text);
    let claims = file.token.as_ref().and_then(|t| token_claims(t.expose()));
    let claim = |k: &str| {
        claims
            .as_ref()
            .and_then(|c| c.get(k))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    FileFacts {
        name: file.name,
        host: file.host,
        account: claim("kubernetes.io/serviceaccount/service-account.name"),
        token_secret: claim("kubernetes.io/serviceaccount/secret.name"),
    }
}

/// The claims of a JWT (its middle part), `None` if it is not one.
fn token_claims(token: &str) -> Option<Value> {
    let part = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(part.trim_end_matches('='))
        .ok()?;
    serde_json::from_slice(&bytes).ok()
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

/// One runtime of `runnerconf` besides the agent's own, in another
/// namespace of the agent's cluster.
pub(super) struct Attached {
    pub name: String,
    pub namespace: String,
    /// The API server address the old file gave the agent (kept).
    host: String,
    /// The StorageClass its builds' volumes use, as its spec names it.
    storage_class: Option<String>,
    /// Its objects cf-runner renders under the same kind and name: taken over.
    pub taken_over: Vec<ObjectRef>,
    /// venonactl's access objects for the agent there: deleted last.
    pub replaced: Vec<ObjectRef>,
    /// The ServiceAccount (and token Secret) the old file's token is of.
    account: Option<String>,
    token_secret: Option<String>,
}

/// The layout `adopt` moves: the agent's own runtime and the others.
pub(super) struct Layout {
    /// The runtime of the agent's namespace; `None` for an agent in a
    /// namespace of its own (it moves to an agent installed alone).
    pub own: Option<String>,
    /// The API server address the own runtime's old file gave (kept).
    own_host: Option<String>,
    pub others: Vec<Attached>,
}

/// True when `runnerconf`'s files name more than the agent's own runtime:
/// the agent must stay in config-dir mode with every one of them.
pub(super) fn serves_several(files: &BTreeMap<String, String>) -> bool {
    files.len() > 1
}

/// Reads where each runtime of `files` (other than `platform`'s runtime,
/// the agent's own) builds, and what venonactl left there. Refuses (exit 3)
/// a runtime in another cluster, one the platform does not have, or one
/// whose namespace is gone. Writes nothing.
pub(super) async fn survey(
    cluster: &cluster::Cluster,
    namespace: &str,
    platform: &OnPlatform,
    own: Option<&str>,
    files: &BTreeMap<String, String>,
    rendered_names: &[(String, String)],
) -> Result<Layout, Outcome> {
    let mut others = Vec::new();
    let mut own_host = None;
    for (key, text) in files {
        let facts = file_facts(text);
        let Some(runtime) = facts.name.clone() else {
            return Err(refusal(
                format!("the runtime file {key} in Secret runnerconf of namespace {namespace} names no runtime (no name: entry)"),
                "fix or remove that entry with the tool that wrote it, then re-run adopt; nothing was changed".into(),
            ));
        };
        let host = facts.host.clone().unwrap_or_default();
        let here = host.trim_end_matches('/').to_string();
        if Some(runtime.as_str()) == own {
            own_host = Some(here);
            continue;
        }
        if here != IN_CLUSTER_HOST && here != cluster.server.trim_end_matches('/') {
            return Err(refusal(
                format!(
                    "runtime {runtime} (Secret runnerconf, key {key}) builds in another cluster (its host is {here}); \
                     adopt reads only the agent's cluster (context {})",
                    cluster.context
                ),
                format!(
                    "detach {runtime} with the tool that attached it, adopt, then attach it again with \
                     `cf-runner runtime attach --agent-namespace {namespace} --runtime-name {runtime} \
                     --kube-namespace <its namespace> --kube-context-name <its context>`; nothing was changed"
                ),
            ));
        }
        let (spec, ns) = runtime_place(cluster, namespace, platform, own, &runtime).await?;
        let found = Surveyed {
            runtime,
            ns,
            here,
            spec,
            facts,
        };
        others.push(what_is_there(cluster, namespace, found, rendered_names).await?);
    }
    Ok(Layout {
        own: own.map(str::to_string),
        own_host,
        others,
    })
}

/// An attached runtime of runnerconf, as far as the survey read it.
struct Surveyed {
    runtime: String,
    /// The namespace its builds run in.
    ns: String,
    /// Its API server, as its file gives it.
    here: String,
    /// Its spec on the platform.
    spec: Option<Value>,
    facts: FileFacts,
}

/// Where runtime `runtime` builds, by its spec on the platform: refused
/// when the platform does not have it, when it builds in the agent's own
/// namespace, or when its namespace is gone.
async fn runtime_place(
    cluster: &cluster::Cluster,
    namespace: &str,
    platform: &OnPlatform,
    own: Option<&str>,
    runtime: &str,
) -> Result<(Option<Value>, String), Outcome> {
    let spec = platform
        .client
        .runtime(runtime)
        .await
        .doing("reading the runtime environment")?;
    let Some(ns) = spec
        .as_ref()
        .and_then(|s| s.pointer("/runtimeScheduler/cluster/namespace"))
        .and_then(Value::as_str)
        .map(str::to_string)
    else {
        return Err(refusal(
            format!(
                "runtime {runtime}, which Secret runnerconf in namespace {namespace} serves, is not on the \
                 Codefresh platform {} (or its spec names no namespace)",
                platform.client.url()
            ),
            "pass --token for the account the runner was installed with, or remove the entry with the tool \
             that wrote it; nothing was changed"
                .into(),
        ));
    };
    if ns == namespace {
        return Err(refusal(
            format!(
                "Secret runnerconf in namespace {namespace} holds two runtimes of that namespace: {} and {runtime}",
                own.unwrap_or("(the agent's)")
            ),
            "remove the stale entry with the tool that wrote it, then re-run adopt; nothing was changed".into(),
        ));
    }
    match live::namespace_exists(&cluster.client, &ns).await {
        Ok(true) => {}
        Ok(false) => {
            return Err(refusal(
                format!("runtime {runtime} builds in namespace {ns}, which does not exist in context {}", cluster.context),
                format!("detach {runtime} from the agent with the tool that attached it (its builds cannot run), then re-run adopt; nothing was changed"),
            ))
        }
        Err(e) => return Err(Outcome::from_cluster(e, "reading the runtime's namespace failed")),
    }
    Ok((spec, ns))
}

/// What venonactl left in a runtime's namespace: refused when another
/// installer's objects hold cf-runner's names there, or when it holds a
/// cf-runner installation of its own.
async fn what_is_there(
    cluster: &cluster::Cluster,
    namespace: &str,
    found: Surveyed,
    rendered_names: &[(String, String)],
) -> Result<Attached, Outcome> {
    let Surveyed {
        runtime,
        ns,
        here,
        spec,
        facts,
    } = found;
    let objects = cluster::adopt::scan(cluster, &ns)
        .await
        .doing("reading the runtime's namespace failed")?;
    let ledger = cluster::ownership::Ledger::read(&cluster.client, &ns)
        .await
        .doing("reading the runtime's namespace failed")?;
    let local: Vec<&Value> = objects.iter().filter(|o| in_namespace(o, &ns)).collect();
    if let Some(record) = local
        .iter()
        .find(|o| kind(o) == "Secret" && name(o) == render::RECORD_SECRET)
    {
        return Err(refusal(
            format!(
                "runtime {runtime} builds in namespace {ns}, which holds a cf-runner installation of its own (Secret/{})",
                name(record)
            ),
            format!("adopt the agent without it: detach {runtime} with the tool that attached it, adopt, then `cf-runner runtime attach --agent-namespace {namespace} --kube-namespace {ns} --runtime-name {runtime}`; nothing was changed"),
        ));
    }
    // On a re-run of an interrupted move the file may hold cf-runner's
    // token already: venonactl's account was its default, `runner`.
    let (account, token_secret) = match facts.account.as_deref() {
        Some(ACCESS_NAME) | None => (Some(VENONACTL_ACCOUNT.to_string()), None),
        _ => (facts.account.clone(), facts.token_secret.clone()),
    };
    // An object of cf-runner's runtime names that is neither venonactl's
    // (unlabelled) nor cf-runner's for this namespace: someone else's.
    let blocked: Vec<String> = local
        .iter()
        .filter(|o| {
            rendered_names
                .iter()
                .any(|(k, n)| k == kind(o) && n == name(o))
        })
        .filter(|o| {
            label(o, "helm.sh/chart").is_some()
                || (label(o, LABEL_MANAGED_BY) == Some("cf-runner")
                    && !cluster::ownership::is_ours(o, &ns, &ledger))
        })
        .map(|o| crate::app::adopt::objects::reference(o).to_string())
        .collect();
    if !blocked.is_empty() {
        return Err(refusal(
            format!(
                "runtime {runtime} builds in namespace {ns}, where {} belong to another installer, not venonactl",
                blocked.join(", ")
            ),
            format!("move or remove them, or detach {runtime} with the tool that attached it, adopt, then `cf-runner runtime attach` it; nothing was changed"),
        ));
    }
    let taken_over = take_over_set(&local, rendered_names);
    let replaced = old_access(&local, account.as_deref(), token_secret.as_deref());
    let storage_class = spec.as_ref().and_then(claim_class);
    Ok(Attached {
        name: runtime,
        namespace: ns,
        host: here,
        storage_class,
        taken_over,
        replaced,
        account,
        token_secret,
    })
}

/// The StorageClass of the dind claim a runtime spec names (`pvcs` as the
/// chart's and venonactl's map by name, or as cf-runner's list).
fn claim_class(spec: &Value) -> Option<String> {
    let pvcs = spec.pointer("/dockerDaemonScheduler/pvcs")?;
    let dind = match pvcs {
        Value::Array(items) => items.iter().find(|p| p["name"] == "dind")?,
        other => other.get("dind")?,
    };
    dind["storageClassName"].as_str().map(str::to_string)
}

fn refusal(what: String, fix: String) -> Outcome {
    output::error(&anyhow::anyhow!(what), Some(&fix));
    Outcome::PreflightFailed
}

/// venonactl's objects of a runtime namespace that cf-runner renders under
/// the same kind and name (`rendered`: kind, name).
fn take_over_set(local: &[&Value], rendered: &[(String, String)]) -> Vec<ObjectRef> {
    local
        .iter()
        .filter(|o| label(o, LABEL_MANAGED_BY) != Some("cf-runner"))
        .filter(|o| label(o, "helm.sh/chart").is_none())
        .filter(|o| rendered.iter().any(|(k, n)| k == kind(o) && n == name(o)))
        .map(|o| crate::app::adopt::objects::reference(o))
        .collect()
}

/// The agent's old access in a runtime namespace: the ServiceAccount its
/// file's token is of, the token Secret (named by the token, or any
/// token Secret of that account), the RoleBindings whose only subject is
/// that account, and the Roles only those bind. Never cf-runner's objects,
/// never the runtime's objects cf-runner takes over.
fn old_access(
    local: &[&Value],
    account: Option<&str>,
    token_secret: Option<&str>,
) -> Vec<ObjectRef> {
    let Some(account) = account else {
        return Vec::new();
    };
    let foreign = |o: &&&Value| {
        label(o, LABEL_MANAGED_BY) != Some("cf-runner") && label(o, "helm.sh/chart").is_none()
    };
    // An account something else runs as (the namespace's `default`, or one
    // a workload there names) keeps its ServiceAccount, bindings and Roles:
    // deleting them would take that workload's rights. Only the token
    // Secret the agent's file was made from goes, which ends the old token.
    if account == "default" || runs_as(local, account) {
        return local
            .iter()
            .filter(foreign)
            .filter(|o| kind(o) == "Secret" && o["type"].as_str() == Some(TOKEN_TYPE))
            .filter(|o| Some(name(o)) == token_secret)
            .map(|o| crate::app::adopt::objects::reference(o))
            .collect();
    }
    let mut out = Vec::new();
    out.extend(
        local
            .iter()
            .filter(foreign)
            .filter(|o| kind(o) == "ServiceAccount" && name(o) == account)
            .map(|o| crate::app::adopt::objects::reference(o)),
    );
    out.extend(
        local
            .iter()
            .filter(foreign)
            .filter(|o| kind(o) == "Secret" && o["type"].as_str() == Some(TOKEN_TYPE))
            .filter(|o| {
                Some(name(o)) == token_secret
                    || o["metadata"]["annotations"]["kubernetes.io/service-account.name"].as_str()
                        == Some(account)
            })
            .map(|o| crate::app::adopt::objects::reference(o)),
    );
    let only_this_account = |b: &Value| {
        b["subjects"].as_array().is_some_and(|s| {
            !s.is_empty()
                && s.iter()
                    .all(|s| s["kind"] == "ServiceAccount" && s["name"].as_str() == Some(account))
        })
    };
    let bindings: Vec<&&Value> = local
        .iter()
        .filter(foreign)
        .filter(|o| kind(o) == "RoleBinding" && only_this_account(o))
        .collect();
    let roles: BTreeSet<&str> = bindings
        .iter()
        .filter(|b| b["roleRef"]["kind"] == "Role")
        .filter_map(|b| b["roleRef"]["name"].as_str())
        .collect();
    let bound_elsewhere: BTreeSet<&str> = local
        .iter()
        .filter(|o| kind(o) == "RoleBinding" && !only_this_account(o))
        .filter_map(|b| b["roleRef"]["name"].as_str())
        .collect();
    out.extend(
        bindings
            .iter()
            .map(|o| crate::app::adopt::objects::reference(o)),
    );
    out.extend(
        local
            .iter()
            .filter(foreign)
            .filter(|o| kind(o) == "Role" && roles.contains(name(o)))
            .filter(|o| !bound_elsewhere.contains(name(o)))
            .map(|o| crate::app::adopt::objects::reference(o)),
    );
    out.sort();
    out.dedup();
    out
}

/// Whether a workload in `local` runs its pods as ServiceAccount `account`.
fn runs_as(local: &[&Value], account: &str) -> bool {
    local.iter().any(|o| {
        let spec = match kind(o) {
            "CronJob" => o.pointer("/spec/jobTemplate/spec/template/spec"),
            "Deployment" | "DaemonSet" | "Job" | "StatefulSet" => o.pointer("/spec/template/spec"),
            _ => None,
        };
        spec.and_then(|s| {
            s.get("serviceAccountName")
                .or_else(|| s.get("serviceAccount"))
        })
        .and_then(Value::as_str)
            == Some(account)
    })
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
