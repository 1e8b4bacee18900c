//! The runtimes an agent serves, as `info` shows them: one per file of the
//! agent's [`CONFIG_SECRET`] (cf-runner's or venonactl's), each with
//! whether its credentials still work, checked as the agent uses them
//! (`cluster::runtime_access`). With a platform token at hand, the
//! platform's list of the agent's runtimes is compared with the files: a
//! runtime the platform sends builds for and the agent holds no
//! credentials for is a finding, with the command that fixes it.
//!
//! An agent in in-cluster mode that the platform knows with its one
//! runtime shows nothing here: the single-runtime picture is unchanged.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::app::identity::register;
use crate::app::installation::Installation;
use crate::app::runtimes::target::IN_CLUSTER_HOST;
use crate::app::session::options::PlatformOptions;
use crate::cluster::preflight::{Check, Status};
use crate::cluster::runtime_access::{self, Access};
use crate::cluster::{runtimes as live, Cluster};
use crate::output::info::RuntimeInfo;
use crate::render::runtimes::CONFIG_SECRET;
use crate::values::Secret;

/// One `*.runtime.yaml` as the agent reads it.
struct RuntimeFile {
    key: String,
    name: Option<String>,
    host: Option<String>,
    token: Option<Secret>,
    crt: Option<String>,
}

fn parse_file(key: &str, text: &str) -> RuntimeFile {
    let file = crate::render::runtimes::read_runtime_file(text);
    RuntimeFile {
        key: key.to_string(),
        name: file.name,
        host: file.host,
        token: file.token.filter(|t| !t.expose().is_empty()),
        crt: file.crt,
    }
}

/// Where a runtime's builds run, as its spec on the platform says.
#[derive(Default, Clone)]
struct Place {
    namespace: Option<String>,
    context: Option<String>,
}

fn place_of(spec: &Value) -> Place {
    let text = |p: &str| spec.pointer(p).and_then(Value::as_str).map(str::to_string);
    Place {
        namespace: text("/runtimeScheduler/cluster/namespace"),
        context: text("/runtimeScheduler/cluster/clusterProvider/selector"),
    }
}

/// The platform's side: the agent's runtimes and where each runs, `None`
/// when no token is at hand or the platform did not answer (said in `notes`).
async fn platform_side(
    platform_args: &PlatformOptions,
    inst: &Installation,
    agent_name: &str,
    only_own: Option<&str>,
    notes: &mut Vec<String>,
) -> Option<BTreeMap<String, Place>> {
    let host = inst.values.as_ref().map(|v| v.codefresh_host.clone());
    let auth = register::resolve(
        platform_args,
        host.as_deref().map(|url| crate::platform::auth::NamedUrl {
            url,
            origin: register::RECORDED_HOST,
        }),
    )
    .ok()
    .flatten()?;
    let platform =
        crate::app::identity::register::platform_for(&auth, register::transport(platform_args))
            .ok()?;
    let agent = match platform.agents_named(agent_name).await {
        Ok(list) => list.into_iter().find(|a| a.name == agent_name),
        Err(e) => {
            notes.push(format!(
                "the agent's runtimes on the platform are not shown: {e}"
            ));
            return None;
        }
    };
    let Some(agent) = agent else {
        notes.push(format!(
            "the Codefresh platform has no agent named {agent_name}"
        ));
        return None;
    };
    let mut out = BTreeMap::new();
    // An agent in in-cluster mode with its own runtime alone shows nothing:
    // no more calls for it.
    if let Some(own) = only_own {
        if agent.runtimes.iter().all(|r| r == own) {
            out.extend(agent.runtimes.into_iter().map(|r| (r, Place::default())));
            return Some(out);
        }
    }
    for name in agent.runtimes {
        let place = match platform.runtime(&name).await {
            Ok(Some(spec)) => place_of(&spec),
            _ => Place::default(),
        };
        out.insert(name, place);
    }
    Some(out)
}

fn access_words(access: &Access, checked_at: &str) -> (Option<bool>, String) {
    let as_user = |user: &Option<String>| {
        user.as_deref()
            .map(|u| format!(" as {u}"))
            .unwrap_or_default()
    };
    match access {
        Access::Works { user, namespace } => (
            Some(true),
            format!("work: may create pods in namespace {namespace}{}", as_user(user)),
        ),
        Access::Forbidden { user, namespace } => (
            Some(false),
            format!(
                "do not work: the token{} may not create pods in namespace {namespace}",
                as_user(user)
            ),
        ),
        Access::Refused => (
            Some(false),
            format!("do not work: {checked_at} refused the token (401): deleted, rotated or of another cluster"),
        ),
        Access::NamespaceUnknown { user } => (
            None,
            format!(
                "not checked: the token is valid{} but the runtime's namespace is unknown (no platform token)",
                as_user(user)
            ),
        ),
        Access::NotChecked(why) => (None, format!("not checked: {why}")),
    }
}

/// A host the agent's pod reaches its own cluster by is checked at the
/// address this kubeconfig reaches that cluster by.
fn checked_at(cluster: &Cluster, host: &str) -> String {
    if host.trim_end_matches('/') == IN_CLUSTER_HOST {
        cluster.server.trim_end_matches('/').to_string()
    } else {
        host.to_string()
    }
}

async fn check_file(file: &RuntimeFile, at: &str, namespace: Option<&str>) -> Access {
    match (&file.token, &file.crt, file.name.is_some(), at.is_empty()) {
        (Some(token), Some(crt), true, false) => {
            runtime_access::check(at, crt, token, namespace).await
        }
        _ => Access::NotChecked(format!(
            "the file {} lacks a name, host, token or crt",
            file.key
        )),
    }
}

/// For `check`: whether the agent's credentials for each runtime of its
/// [`CONFIG_SECRET`] still work (`None`: the agent has no runtime files).
/// Fails naming each runtime whose token is refused or forbidden.
pub(crate) async fn check(cluster: &Cluster, namespace: &str) -> Option<Check> {
    let files = live::read_config(&cluster.client, namespace, CONFIG_SECRET)
        .await
        .ok()??
        .files;
    if files.is_empty() {
        return None;
    }
    let mut details = Vec::new();
    let mut fixes = Vec::new();
    for (key, text) in &files {
        let file = parse_file(key, text);
        let name = file.name.clone().unwrap_or_else(|| key.clone());
        let at = checked_at(cluster, file.host.as_deref().unwrap_or_default());
        let access = check_file(&file, &at, None).await;
        let (works, words) = access_words(&access, &at);
        if works == Some(false) {
            let place = Place {
                namespace: match &access {
                    Access::Forbidden { namespace, .. } => Some(namespace.clone()),
                    _ => None,
                },
                context: None,
            };
            fixes.push(attach_command_in(cluster, namespace, &name, &place));
            details.push(format!("runtime {name}: {words}"));
        }
    }
    let failed = !details.is_empty();
    Some(Check {
        name: "the agent's runtime credentials".into(),
        status: if failed { Status::Fail } else { Status::Pass },
        reason: if failed {
            format!(
                "{} of {} runtime(s) of Secret {CONFIG_SECRET} have credentials that do not work",
                details.len(),
                files.len()
            )
        } else {
            format!(
                "the token of each of the {} runtime(s) of Secret {CONFIG_SECRET} may create pods in its namespace",
                files.len()
            )
        },
        details,
        fix: failed.then(|| format!("issue new credentials: {}", fixes.join("; "))),
        unreachable: false,
    })
}

/// The command that gives the agent in `inst` credentials for `name`.
fn attach_command(cluster: &Cluster, inst: &Installation, name: &str, place: &Place) -> String {
    attach_command_in(cluster, &inst.namespace, name, place)
}

fn attach_command_in(cluster: &Cluster, agent_ns: &str, name: &str, place: &Place) -> String {
    let mut cmd = format!(
        "cf-runner runtime attach --agent-namespace {agent_ns} --agent-context {} --runtime-name {name}",
        cluster.context
    );
    match &place.namespace {
        Some(ns) => cmd.push_str(&format!(" --kube-namespace {ns}")),
        None => cmd.push_str(" --kube-namespace <the runtime's namespace>"),
    }
    if let Some(ctx) = place.context.as_deref().filter(|c| *c != cluster.context) {
        cmd.push_str(&format!(" --kube-context-name {ctx}"));
    }
    cmd
}

/// What one runtimes file of the agent says, its credentials tried where
/// the agent uses them, with the command that mends them when they fail.
async fn file_info(
    cluster: &Cluster,
    inst: &Installation,
    key: &str,
    text: &str,
    on_platform: Option<&BTreeMap<String, Place>>,
    notes: &mut Vec<String>,
) -> RuntimeInfo {
    let file = parse_file(key, text);
    let name = file.name.clone().unwrap_or_default();
    let place = on_platform
        .and_then(|p| p.get(&name))
        .cloned()
        .unwrap_or_default();
    let checked_at = checked_at(cluster, file.host.as_deref().unwrap_or_default());
    let access = check_file(&file, &checked_at, place.namespace.as_deref()).await;
    let namespace = match &access {
        Access::Works { namespace, .. } | Access::Forbidden { namespace, .. } => {
            Some(namespace.clone())
        }
        _ => place.namespace.clone(),
    };
    let (works, credentials) = access_words(&access, &checked_at);
    let fix = (works == Some(false)).then(|| attach_command(cluster, inst, &name, &place));
    let listed = on_platform.map(|p| p.contains_key(&name));
    if let Some(fix) = &fix {
        notes.push(format!(
            "the agent's credentials for runtime {name} {credentials}; to issue new ones run `{fix}`"
        ));
    }
    RuntimeInfo {
        name,
        config_key: Some(file.key),
        host: file.host,
        namespace,
        on_platform: listed,
        works,
        credentials,
        fix,
    }
}

/// The runtimes the agent of `inst` serves, and findings for `notes`.
/// Empty for an agent in in-cluster mode with only its own runtime.
pub(crate) async fn view(
    cluster: &Cluster,
    inst: &Installation,
    platform_args: &PlatformOptions,
    notes: &mut Vec<String>,
) -> Vec<RuntimeInfo> {
    let files = match live::read_config(&cluster.client, &inst.namespace, CONFIG_SECRET).await {
        Ok(Some(c)) => c.files,
        Ok(None) => BTreeMap::new(),
        Err(e) => {
            notes.push(format!(
                "the agent's runtimes (Secret {CONFIG_SECRET}) could not be read: {}",
                e.chain_text()
            ));
            BTreeMap::new()
        }
    };
    let record = inst.record.as_ref();
    let own = record.and_then(|r| r.runtime_name.clone());
    let on_platform = match record
        .filter(|r| r.registered != Some(false))
        .and_then(|r| r.agent_name.clone())
    {
        Some(agent) => {
            let only_own = own.as_deref().filter(|_| files.is_empty());
            platform_side(platform_args, inst, &agent, only_own, notes).await
        }
        None => None,
    };
    let extra_on_platform = on_platform
        .as_ref()
        .is_some_and(|p| p.keys().any(|n| Some(n) != own.as_ref()));
    if files.is_empty() && !extra_on_platform {
        return Vec::new();
    }

    let mut out = Vec::new();
    let mut served = Vec::new();
    for (key, text) in &files {
        let info = file_info(cluster, inst, key, text, on_platform.as_ref(), notes).await;
        served.push(info.name.clone());
        out.push(info);
    }
    if files.is_empty() {
        // In-cluster mode: the agent serves its own runtime with its pod's ServiceAccount.
        if let Some(own) = &own {
            served.push(own.clone());
            out.push(RuntimeInfo {
                name: own.clone(),
                config_key: None,
                host: None,
                namespace: Some(inst.namespace.clone()),
                on_platform: on_platform.as_ref().map(|p| p.contains_key(own)),
                works: None,
                credentials: "in-cluster: the agent's own ServiceAccount".into(),
                fix: None,
            });
        }
    }
    for (name, place) in on_platform.iter().flatten() {
        if served.contains(name) {
            continue;
        }
        let fix = attach_command(cluster, inst, name, place);
        notes.push(format!(
            "the platform sends the builds of runtime {name} to this agent, but the agent holds no credentials for it; run `{fix}`"
        ));
        out.push(RuntimeInfo {
            name: name.clone(),
            config_key: None,
            host: None,
            namespace: place.namespace.clone(),
            on_platform: Some(true),
            works: Some(false),
            credentials: "none: the agent holds no credentials for it".into(),
            fix: Some(fix),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runtime_file_is_read_without_showing_its_token() {
        let f = parse_file(
            "a.b.runtime.yaml",
            "type: runtime\nname: a/b\nhost: https://h\ntoken: t0k3n\ncrt: PEM\n",
        );
        assert_eq!(f.name.as_deref(), Some("a/b"));
        assert_eq!(f.host.as_deref(), Some("https://h"));
        assert_eq!(f.token.as_ref().map(Secret::expose), Some("t0k3n"));
        assert!(!format!("{:?}", f.token).contains("t0k3n"));
    }

    #[test]
    fn a_refused_token_says_where_and_why() {
        let (works, words) = access_words(&Access::Refused, "https://far:6443");
        assert_eq!(works, Some(false));
        assert!(
            words.contains("https://far:6443 refused the token (401)"),
            "{words}"
        );
    }
}
