//! What venonactl left for each runtime an adopted agent serves: where the
//! runtime runs, what its namespace holds under the names cf-runner renders,
//! which of those adopt may take over, and the old access objects it will
//! remove last.

use std::collections::{BTreeMap, BTreeSet};

use base64::Engine;
use serde_json::Value;

use crate::app::adopt::handover::OnPlatform;
use crate::app::adopt::objects::{in_namespace, kind, label, name, ObjectRef};
use crate::app::runtimes::target::IN_CLUSTER_HOST;
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster::{self, runtimes as live};
use crate::output;
use crate::render::runtimes::ACCESS_NAME;
use crate::render::{self, LABEL_MANAGED_BY};

/// The ServiceAccount venonactl's attach gives the agent by default
/// (`--kube-service-account`).
pub(crate) const VENONACTL_ACCOUNT: &str = "runner";

/// The Secret type Kubernetes fills with a ServiceAccount's token.
pub(crate) const TOKEN_TYPE: &str = "kubernetes.io/service-account-token";

/// One runtime of `runnerconf` besides the agent's own, in another
/// namespace of the agent's cluster.
pub(crate) struct Attached {
    pub name: String,
    pub namespace: String,
    /// The API server address the old file gave the agent (kept).
    pub(crate) host: String,
    /// The StorageClass its builds' volumes use, as its spec names it.
    pub(crate) storage_class: Option<String>,
    /// Its objects cf-runner renders under the same kind and name: taken over.
    pub taken_over: Vec<ObjectRef>,
    /// venonactl's access objects for the agent there: deleted last.
    pub replaced: Vec<ObjectRef>,
    /// The ServiceAccount (and token Secret) the old file's token is of.
    pub(crate) account: Option<String>,
    pub(crate) token_secret: Option<String>,
}

/// The layout `adopt` moves: the agent's own runtime and the others.
pub(crate) struct Layout {
    /// The runtime of the agent's namespace; `None` for an agent in a
    /// namespace of its own (it moves to an agent installed alone).
    pub own: Option<String>,
    /// The API server address the own runtime's old file gave (kept).
    pub(crate) own_host: Option<String>,
    pub others: Vec<Attached>,
}

/// True when `runnerconf`'s files name more than the agent's own runtime:
/// the agent must stay in config-dir mode with every one of them.
pub(crate) fn serves_several(files: &BTreeMap<String, String>) -> bool {
    files.len() > 1
}

/// What one `*.runtime.yaml` says, without its token.
pub(crate) struct FileFacts {
    pub(crate) name: Option<String>,
    pub(crate) host: Option<String>,
    /// The ServiceAccount the token is of, and the Secret it came from
    /// (read from the token's claims, never from the token's signature).
    pub(crate) account: Option<String>,
    pub(crate) token_secret: Option<String>,
}

pub(crate) fn file_facts(text: &str) -> FileFacts {
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
pub(crate) fn token_claims(token: &str) -> Option<Value> {
    let part = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(part.trim_end_matches('='))
        .ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Reads where each runtime of `files` (other than `platform`'s runtime,
/// the agent's own) builds, and what venonactl left there. Refuses (exit 3)
/// a runtime in another cluster, one the platform does not have, or one
/// whose namespace is gone. Writes nothing.
pub(crate) async fn survey(
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
pub(crate) struct Surveyed {
    pub(crate) runtime: String,
    /// The namespace its builds run in.
    pub(crate) ns: String,
    /// Its API server, as its file gives it.
    pub(crate) here: String,
    /// Its spec on the platform.
    pub(crate) spec: Option<Value>,
    pub(crate) facts: FileFacts,
}

/// Where runtime `runtime` builds, by its spec on the platform: refused
/// when the platform does not have it, when it builds in the agent's own
/// namespace, or when its namespace is gone.
pub(crate) async fn runtime_place(
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
pub(crate) async fn what_is_there(
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
pub(crate) fn claim_class(spec: &Value) -> Option<String> {
    let pvcs = spec.pointer("/dockerDaemonScheduler/pvcs")?;
    let dind = match pvcs {
        Value::Array(items) => items.iter().find(|p| p["name"] == "dind")?,
        other => other.get("dind")?,
    };
    dind["storageClassName"].as_str().map(str::to_string)
}

pub(crate) fn refusal(what: String, fix: String) -> Outcome {
    output::error(&anyhow::anyhow!(what), Some(&fix));
    Outcome::PreflightFailed
}

/// venonactl's objects of a runtime namespace that cf-runner renders under
/// the same kind and name (`rendered`: kind, name).
pub(crate) fn take_over_set(local: &[&Value], rendered: &[(String, String)]) -> Vec<ObjectRef> {
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
pub(crate) fn old_access(
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
pub(crate) fn runs_as(local: &[&Value], account: &str) -> bool {
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
