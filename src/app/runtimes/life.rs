//! Each attached runtime has a life of its own. `runtime delete` detaches
//! one runtime (the platform's list, its file, a rollout of the agent that
//! never leaves it without a ready replica), then removes only what attach
//! wrote for it in its namespace, then its runtime environment on the
//! platform. `runtime upgrade` re-applies one runtime's objects from the
//! agent's values and touches nothing else. `delete` of an agent refuses
//! while other runtimes are attached to it, or takes them first
//! (`--all-runtimes`), without rolling the agent it deletes next.
//!
//! What goes in a runtime's namespace is told by the labels and by
//! ownership, never by a list of names alone: the agent's access objects,
//! and the runtime's own objects (engine ServiceAccount, dind Secret,
//! ConfigMap, Service), only when cf-runner created them. A namespace that
//! holds a whole cf-runner installation keeps its runtime objects: they are
//! that installation's, and `delete` of it removes them.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use crate::app::identity::{register, verified};
use crate::app::runtimes::attach::{
    self, AgentSide, AgentState, Resolved, Target, IN_CLUSTER_HOST,
};
use crate::app::session::connect::need_yes;
use crate::app::session::converge;
use crate::app::session::options::PlatformOptions;
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster::inventory::{self, LiveObject};
use crate::cluster::ownership::{self, Ownership};
use crate::cluster::{attached, delete, runtimes as live, Cluster};
use crate::output;
use crate::platform::Platform;
use crate::render::runtimes::{file_runtime_name, ACCESS_NAME, ACCESS_TOKEN_SECRET, CONFIG_SECRET};
use crate::render::{Component, LABEL_COMPONENT, RECORD_SECRET};
use crate::values::{Problem, Problems};

/// How `runtime delete` goes.
pub(crate) struct DeleteOptions {
    /// Leave the runtime environment on the platform (`--keep-platform`).
    pub keep_platform: bool,
    /// Do not ask (`--yes`).
    pub yes: bool,
    pub timeout: Duration,
}

/// The runtime a `runtime delete|upgrade` names: a namespace is needed.
fn named_problems(t: &Target) -> Vec<Problem> {
    let mut p = attach::target_problems(t);
    if t.namespace.is_none() {
        p.push(Problem::new(
            "--kube-namespace",
            None,
            "is needed: it names the runtime",
            "pass --kube-namespace <runtime namespace> (and --kube-context-name for another cluster)",
        ));
    }
    p
}

/// The agent's own runtime is not one of its attached runtimes: it goes
/// with the agent (exit 2, naming the flag and the command that does it).
fn refuse_own(state: &AgentState, r: &Resolved, what: &str, fix: String) -> Result<(), Outcome> {
    if state.is_own(r) {
        return Err(Outcome::BadInput(Problems(vec![Problem::new(
            "--kube-namespace",
            Some(&Value::String(r.namespace.clone())),
            match &state.own_runtime {
                Some(own) => format!(
                    "is the agent's own runtime {own}: `runtime {what}` works on a runtime attached to it"
                ),
                None => format!(
                    "is the namespace of the agent installed alone: no runtime builds there, and `runtime {what}` works on a runtime attached to it"
                ),
            },
            fix,
        )])));
    }
    Ok(())
}

/// True when the agent holds a file for `r`.
fn is_attached(state: &AgentState, r: &Resolved) -> bool {
    state
        .files
        .iter()
        .any(|(k, text)| *k == r.key || file_runtime_name(text).as_deref() == Some(&r.name))
}

/// What attach wrote for runtime `r` in its namespace and cf-runner may
/// delete, and notes on what stays.
struct Written {
    objects: Vec<LiveObject>,
    notes: Vec<String>,
}

async fn written_for(r: &Resolved) -> Result<Written, Outcome> {
    let (listed, ledger) = futures::join!(
        inventory::labelled(&r.cluster.client, &r.namespace),
        ownership::Ledger::read(&r.cluster.client, &r.namespace)
    );
    let (listed, ledger) = listed
        .and_then(|l| Ok((l, ledger?)))
        .doing("listing cf-runner's objects in the runtime's namespace failed")?;
    let here = |o: &LiveObject| o.namespace.as_deref() == Some(r.namespace.as_str());
    let installation = listed
        .iter()
        .any(|o| here(o) && o.kind == "Secret" && o.name == RECORD_SECRET);
    let mut objects = Vec::new();
    let mut not_ours = Vec::new();
    // The runtime's storage of its own (attach with `Storage`): its volume
    // provisioner in the namespace and its StorageClass and cluster roles,
    // which carry the namespace's labels but no namespace.
    let storage = |o: &LiveObject| {
        !installation && o.label(LABEL_COMPONENT) == Some(Component::VolumeProvisioner.as_str())
    };
    for o in listed
        .into_iter()
        .filter(|o| here(o) || (o.namespace.is_none() && storage(o)))
    {
        let wanted = match o.label(LABEL_COMPONENT) {
            Some(c) if c == Component::RuntimeAccess.as_str() => {
                attach::is_access_credential(&o.name)
            }
            Some(c) if c == Component::Runtime.as_str() => !installation,
            _ => storage(&o),
        };
        if !wanted {
            continue;
        }
        match ownership::ownership(&o.object, &r.namespace, &ledger) {
            Ownership::Ours => objects.push(o),
            Ownership::ForceAdopted => not_ours.push(format!(
                "{} (existed before cf-runner took it over)",
                o.display_name()
            )),
            Ownership::Foreign(f) => {
                not_ours.push(format!("{} ({})", o.display_name(), f.describe()))
            }
        }
    }
    let mut notes = Vec::new();
    if installation {
        notes.push(format!(
            "namespace {} holds a cf-runner installation of its own: its runtime objects stay with it \
             (`cf-runner delete --kube-namespace {}` removes that installation)",
            r.namespace, r.namespace
        ));
    }
    if !not_ours.is_empty() {
        notes.push(format!(
            "left alone, not deleted: {} object(s) carry cf-runner's labels, but cf-runner did not create them: {}",
            not_ours.len(),
            not_ours.join(", ")
        ));
    }
    Ok(Written { objects, notes })
}

fn names(objects: &[LiveObject]) -> String {
    if objects.is_empty() {
        return "(nothing left)".into();
    }
    objects
        .iter()
        .map(LiveObject::display_name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Runs `cf-runner runtime delete`.
pub(crate) async fn delete_runtime(
    agent: AgentSide,
    target: Target,
    platform_args: &PlatformOptions,
    options: DeleteOptions,
) -> Outcome {
    let command = "runtime delete";
    let problems = named_problems(&target);
    if !problems.is_empty() {
        return Outcome::BadInput(Problems(problems));
    }
    if !options.yes && !output::stdin_is_tty() {
        return need_yes(command, "the deletion");
    }
    let ns = agent.namespace.clone();
    attach::under_agent_lock(&agent, command, options.timeout, async |cluster: &Cluster| {
        let state = attach::read_agent(cluster.clone(), &ns, command).await?;
        let platform = attach::platform_client(platform_args, &state, command)?;
        let r = attach::resolve(&state.cluster, &ns, &target).await?;
        attach::refuse_key_clash(&state, &target, &r)?;
        refuse_own(
            &state,
            &r,
            "delete",
            format!("to remove the agent and its runtime, run `cf-runner delete --kube-namespace {ns}`"),
        )?;
        if !options.keep_platform {
            check_claim(&platform, &r, Some(&state.agent_name), "this run").await?;
        }
        let written = written_for(&r).await?;
        output::say(&format!(
            "Deleting runtime {} (namespace {} of context {}):",
            r.name, r.namespace, r.cluster.context
        ));
        output::say(&format!(
            "  detach it from agent {} in namespace {}: its file in Secret {CONFIG_SECRET}, the agent's runtimes on the platform, a rollout of the agent",
            state.agent_name, state.namespace
        ));
        output::say(&format!(
            "  in namespace {}: {}",
            r.namespace,
            names(&written.objects)
        ));
        if options.keep_platform {
            output::say(&format!(
                "  runtime environment {} stays on the platform (--keep-platform)",
                r.name
            ));
        } else {
            output::say(&format!("  on the platform: runtime environment {}", r.name));
        }
        for note in &written.notes {
            output::note(note);
        }
        if !options.yes && !confirm(&r.name)? {
            output::say("Nothing was deleted.");
            return Ok(());
        }
        remove(
            &Leaving::AgentStays(&state),
            &r,
            Some(&platform),
            !options.keep_platform,
            written.objects,
            options.timeout,
        )
        .await
    })
    .await
}

fn confirm(name: &str) -> Result<bool, Outcome> {
    output::confirm(&format!("Delete runtime {name}?"), false).map_err(|e| {
        Outcome::Failed(
            anyhow::Error::new(e).context("reading the answer failed"),
            Some("re-run with --yes to skip the question".into()),
        )
    })
}

/// What becomes of the agent while one of its runtimes is deleted.
enum Leaving<'a> {
    /// `runtime delete`: the agent stays and serves the others, so the
    /// runtime leaves its list on the platform and its runtimes file, and
    /// the agent rolls to the rest before the runtime's objects go.
    AgentStays(&'a AgentState),
    /// `delete --all-runtimes`: the agent (`name`, in `namespace`) is
    /// deleted right after its runtimes, and its runtimes file with it.
    /// Neither is written for them, so the agent does not roll once per
    /// runtime; the file stays until then, and a re-run after a failure
    /// finds in it every runtime that is not fully gone yet.
    AgentGoes {
        namespace: &'a str,
        name: Option<&'a str>,
    },
}

/// Deletes runtime `r` as `leaving` says (for `runtime delete`: detached
/// first, the platform's list then its file and a rollout of the agent),
/// then `objects`, then its runtime environment when `delete_record`; then
/// checks that all of it is gone and says so.
async fn remove(
    leaving: &Leaving<'_>,
    r: &Resolved,
    platform: Option<&Platform>,
    delete_record: bool,
    objects: Vec<LiveObject>,
    timeout: Duration,
) -> Result<(), Outcome> {
    let serves = match leaving {
        Leaving::AgentStays(state) => detach(state, r, platform, timeout).await?,
        Leaving::AgentGoes { .. } => Vec::new(),
    };
    if !objects.is_empty() {
        let phases = delete::plan(objects);
        let report = delete::delete_all(&r.cluster.client, &phases, timeout, &|e| match e {
            delete::Event::Gone(o) => output::removed(&o.display_name(), o.namespace.as_deref()),
            delete::Event::Waiting(what) => {
                output::note(&delete::waiting_note(&r.cluster.server, what))
            }
            delete::Event::Phase(..) => {}
        })
        .await;
        if !report.ok() {
            return Err(converge::delete_failed(&report, timeout));
        }
    }
    if let (Some(p), true) = (platform, delete_record) {
        p.delete_runtime(&r.name)
            .await
            .doing("removing the runtime environment from the Codefresh platform")?;
        output::removed(&format!("runtime environment {}", r.name), None);
    }
    verify(leaving, r, platform, delete_record, &serves).await
}

/// Refuses to act on the platform for runtime `r` unless the platform shows
/// it runs builds in `r`'s namespace (`verified`): its name came from
/// `named_by`, which people with fewer rights may have written.
async fn check_claim(
    platform: &Platform,
    r: &Resolved,
    agent: Option<&str>,
    named_by: &str,
) -> Result<(), Outcome> {
    let claim = verified::RuntimeClaim {
        name: &r.name,
        namespace: &r.namespace,
        context: &r.cluster.context,
        named_by,
    };
    let fix = "; or pass --keep-platform to leave the platform as it is";
    verified::runtime_claim(platform, &claim, agent, fix)
        .await
        .map(|_| ())
}

/// Detaches `r` from an agent that stays: the platform's list first (when
/// a platform is given), then its file and a rollout of the agent. Returns
/// the runtimes the agent still serves on the platform.
async fn detach(
    state: &AgentState,
    r: &Resolved,
    platform: Option<&Platform>,
    timeout: Duration,
) -> Result<Vec<String>, Outcome> {
    let agent = match platform {
        Some(p) => Some(attach::agent_on_platform(p, &state.agent_name).await?),
        None => None,
    };
    attach::stop_serving(
        state,
        r,
        platform.zip(agent.as_ref()),
        timeout,
        "runtime delete",
    )
    .await
}

/// Reads back what the deletion should have left, and says it.
async fn verify(
    leaving: &Leaving<'_>,
    r: &Resolved,
    platform: Option<&Platform>,
    delete_record: bool,
    serves: &[String],
) -> Result<(), Outcome> {
    let left = written_for(r).await?.objects;
    let mut wrong = Vec::new();
    if !left.is_empty() {
        wrong.push(format!(
            "still in namespace {}: {}",
            r.namespace,
            names(&left)
        ));
    }
    if let Leaving::AgentStays(state) = leaving {
        let files = live::read_config(&state.cluster.client, &state.namespace, CONFIG_SECRET)
            .await
            .doing("reading the agent's runtimes failed")?
            .map(|c| c.files)
            .unwrap_or_default();
        let still_served = files
            .iter()
            .any(|(k, text)| *k == r.key || file_runtime_name(text).as_deref() == Some(&r.name));
        if still_served {
            wrong.push(format!(
                "Secret {CONFIG_SECRET} in namespace {} still holds its file",
                state.namespace
            ));
        }
    }
    let mut off_list = String::new();
    let mut platform_said = String::new();
    if let Some(p) = platform {
        let agent = match leaving {
            Leaving::AgentStays(state) => {
                Some(attach::agent_on_platform(p, &state.agent_name).await?)
            }
            Leaving::AgentGoes {
                name: Some(name), ..
            } => attach::agent_if_there(p, name).await?,
            Leaving::AgentGoes { name: None, .. } => None,
        };
        if let Some(agent) = agent {
            if agent.runtimes.contains(&r.name) {
                wrong.push(format!(
                    "agent {} still lists it on the platform",
                    agent.name
                ));
            }
            off_list = format!(", agent {} no longer lists it on the platform", agent.name);
        }
        let record = p
            .runtime(&r.name)
            .await
            .doing("reading the runtime environment on the Codefresh platform")?;
        match (delete_record, record.is_some()) {
            (true, true) => wrong.push(format!(
                "runtime environment {} is still on the platform",
                r.name
            )),
            (true, false) => {
                platform_said = "; its runtime environment is gone from the platform".into()
            }
            (false, _) => platform_said = "; its runtime environment stays on the platform".into(),
        }
    }
    if !wrong.is_empty() {
        return Err(Outcome::Failed(
            anyhow::anyhow!(
                "runtime {} is not fully deleted: {}",
                r.name,
                wrong.join("; ")
            ),
            Some("re-run the same command: what is already gone is skipped".into()),
        ));
    }
    match leaving {
        Leaving::AgentStays(state) => {
            let others = if serves.is_empty() {
                String::new()
            } else {
                format!(" (it serves {})", serves.join(", "))
            };
            output::done(&format!(
                "deleted runtime {}: nothing of it is left in namespace {} of context {}, and agent {} no longer serves it{others}{platform_said}",
                r.name, r.namespace, r.cluster.context, state.agent_name
            ));
        }
        Leaving::AgentGoes { namespace, .. } => output::done(&format!(
            "deleted runtime {}: nothing of it is left in namespace {} of context {}{off_list}{platform_said}; \
             its file in Secret {CONFIG_SECRET} (namespace {namespace}) goes with the agent",
            r.name, r.namespace, r.cluster.context
        )),
    }
    Ok(())
}

/// Runs `cf-runner runtime upgrade`: the runtime's objects rendered again
/// from the agent's values (images, dind config), applied in its
/// namespace only. The agent, its files and the other runtimes are not
/// written. Its spec goes to the platform unless the platform registered it
/// for another place (see [`attach::on_platform`]).
pub(crate) async fn upgrade_runtime(
    agent: AgentSide,
    target: Target,
    platform_args: &PlatformOptions,
    timeout: Duration,
) -> Outcome {
    let command = "runtime upgrade";
    let problems = named_problems(&target);
    if !problems.is_empty() {
        return Outcome::BadInput(Problems(problems));
    }
    let ns = agent.namespace.clone();
    attach::under_agent_lock(&agent, command, timeout, async |cluster: &Cluster| {
        let state = attach::read_agent(cluster.clone(), &ns, command).await?;
        let platform = attach::platform_client(platform_args, &state, command)?;
        let r = attach::resolve(&state.cluster, &ns, &target).await?;
        attach::refuse_key_clash(&state, &target, &r)?;
        refuse_own(
            &state,
            &r,
            "upgrade",
            format!("upgrade the agent and its own runtime with `cf-runner upgrade --kube-namespace {ns}`"),
        )?;
        if !is_attached(&state, &r) {
            output::error(
                &anyhow::anyhow!(
                    "runtime {} (namespace {}, context {}) is not attached to agent {} in namespace {ns}",
                    r.name,
                    r.namespace,
                    r.cluster.context,
                    state.agent_name
                ),
                Some(&format!(
                    "attach it first: `cf-runner runtime attach --agent-namespace {ns} --kube-namespace {}`",
                    r.namespace
                )),
            );
            return Err(Outcome::PreflightFailed);
        }
        // The platform's copy, read once: the guard and the send compare with it.
        let current = platform
            .runtime(&r.name)
            .await
            .doing("reading the runtime environment's spec")?;
        // A runtime environment registered for another place (another
        // cluster's name) keeps its spec, as `runtime attach` leaves it;
        // with settings of the runtime's own it is refused before any write.
        let fix = format!(
            "drop --set-value: cf-runner then upgrades the runtime's objects in namespace {} and leaves the spec of runtime environment {} as it is; or register it for namespace {} of cluster {} on the platform first",
            r.namespace, r.name, r.namespace, r.cluster.context
        );
        let found = attach::on_platform(&r, current.as_ref(), &fix)?;
        let send = !matches!(found, attach::OnPlatform::Elsewhere);
        let account_id = attach::account_of(&platform, &state).await?;
        let render = attach::runtime_objects(&state, &r, &platform, &account_id).await?;
        if let (true, Some(current)) = (send, &current) {
            keeps_own_scheduling(&r, &render.spec, current)?;
        }
        let report = converge::apply_with_progress(
            &r.cluster,
            &render.manifests,
            &r.namespace,
            false,
            command,
        )
        .await?;
        let counts: Vec<String> = report
            .counts()
            .into_iter()
            .map(|(word, n)| format!("{n} {word}"))
            .collect();
        if send {
            send_spec(&r, render.spec, current.as_ref(), &platform).await?;
        }
        output::done(&format!(
            "upgraded runtime {} in namespace {} of context {} from agent {}'s values ({}{}); the agent and its other runtimes were not touched",
            r.name,
            r.namespace,
            r.cluster.context,
            state.agent_name,
            counts.join(", "),
            if send { "" } else { "; its spec on the platform was left as it is" }
        ));
        Ok(())
    })
    .await
}

/// Sends runtime `r`'s spec (rendered from the agent's values for its
/// namespace and context, with the runtime's own settings) when the
/// platform's differs: the images and dind settings of its builds live
/// there, as `upgrade` of the agent keeps its own runtime's. A runtime
/// environment the platform does not hold is left to whoever registers it.
async fn send_spec(
    r: &Resolved,
    spec: Value,
    current: Option<&Value>,
    platform: &Platform,
) -> Result<(), Outcome> {
    let what = format!("runtime environment {} on the platform", r.name);
    let Some(current) = current else {
        output::warn(&format!(
            "{what} does not exist: its spec was not sent (register it, then re-run)"
        ));
        return Ok(());
    };
    let sent = register::put_spec(
        platform,
        &r.name,
        &spec,
        Some(current),
        "sending the runtime environment's spec",
    )
    .await?;
    output::applied(if sent { "configured" } else { "unchanged" }, &what, None);
    Ok(())
}

/// The runtime's own scheduling and storage (node selector, tolerations,
/// StorageClass) live only in its spec on the platform, given when it was
/// attached. An upgrade that does not give them again would silently drop
/// them: refused (exit 2), naming `--set-value`, before anything is written.
fn keeps_own_scheduling(r: &Resolved, spec: &Value, current: &Value) -> Result<(), Outcome> {
    let mut was = Vec::new();
    let mut now = Vec::new();
    scheduling_keys(current, "", &mut was);
    scheduling_keys(spec, "", &mut now);
    let lost: Vec<String> = was
        .iter()
        .filter(|(path, value)| now.iter().all(|(p, v)| p != path || v != value))
        .map(|(path, _)| path.clone())
        .collect();
    if lost.is_empty() {
        return Ok(());
    }
    Err(Outcome::BadInput(Problems(vec![Problem::new(
        "--set-value",
        None,
        format!(
            "runtime {} has settings of its own on the platform ({}) that this upgrade would replace with the agent's",
            r.name,
            lost.join(", ")
        ),
        "give the runtime's own settings again with --set-value (NodeSelector, Tolerations, Storage...), as at attach, or re-run `cf-runner runtime attach -f <runtimes file>`",
    )])))
}

/// Every `nodeSelector`, `tolerations` and `storageClassName` in `v`, by path.
fn scheduling_keys(v: &Value, path: &str, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                let here = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                if matches!(
                    k.as_str(),
                    "nodeSelector" | "tolerations" | "storageClassName"
                ) {
                    let empty = child.is_null()
                        || child.as_object().is_some_and(|m| m.is_empty())
                        || child.as_array().is_some_and(|a| a.is_empty());
                    if !empty {
                        out.push((here.clone(), child.clone()));
                    }
                }
                scheduling_keys(child, &here, out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                // A named item by its name: the chart and venonactl register
                // `pvcs` as a map by name, cf-runner as a list of named items.
                let here = match child["name"].as_str() {
                    Some(name) => format!("{path}.{name}"),
                    None => format!("{path}[{i}]"),
                };
                scheduling_keys(child, &here, out);
            }
        }
        _ => {}
    }
}

/// A runtime attached to an agent, besides its own, as its file names it.
pub(crate) struct Attached {
    /// The runtime environment's name.
    pub name: String,
    /// Where it is, when that could be told: `Err` says why not.
    place: Result<Target, String>,
}

impl Attached {
    fn describe(&self) -> String {
        match &self.place {
            Ok(t) => format!(
                "{} (namespace {}{})",
                self.name,
                t.namespace.as_deref().unwrap_or("?"),
                t.context
                    .as_deref()
                    .map(|c| format!(", context {c}"))
                    .unwrap_or_default()
            ),
            Err(_) => self.name.clone(),
        }
    }
}

/// The runtimes the agent in `namespace` serves besides `own`, from the
/// files cf-runner wrote for it. The namespace of each is the one its
/// token was issued in; its cluster is the agent's (in-cluster address)
/// or the kubeconfig context that reaches the address its file names.
pub(crate) async fn attached_to(
    cluster: &Cluster,
    namespace: &str,
    own: Option<&str>,
    kubeconfig: Option<&PathBuf>,
) -> Result<Vec<Attached>, Outcome> {
    let files = match live::read_config(&cluster.client, namespace, CONFIG_SECRET).await {
        Ok(Some(c)) if c.ours => c.files,
        Ok(_) => return Ok(Vec::new()),
        Err(e) => {
            return Err(Outcome::from_cluster(
                e,
                "reading the agent's runtimes failed",
            ))
        }
    };
    let mut out = Vec::new();
    for text in files.values() {
        let file = crate::render::runtimes::read_runtime_file(text);
        let name = file.name.clone().unwrap_or_default();
        if name.is_empty() || Some(name.as_str()) == own {
            continue;
        }
        let host = file
            .host
            .as_deref()
            .unwrap_or_default()
            .trim_end_matches('/')
            .to_string();
        let place = match attached::token_namespace(
            file.token.as_ref().map(|t| t.expose()).unwrap_or_default(),
        ) {
            None => Err("its token names no namespace".to_string()),
            Some(ns) => {
                let context =
                    if host == IN_CLUSTER_HOST || host == cluster.server.trim_end_matches('/') {
                        Ok(None)
                    } else {
                        match attached::contexts_serving(kubeconfig, &host) {
                            Ok(list) => list
                                .into_iter()
                                .next()
                                .map(Some)
                                .ok_or_else(|| format!("no kubeconfig context reaches {host}")),
                            Err(e) => Err(format!("the kubeconfig cannot be read: {e}")),
                        }
                    };
                context.map(|context| Target {
                    settings: Default::default(),
                    context,
                    kubeconfig: kubeconfig.cloned(),
                    namespace: Some(ns),
                    name: Some(name.clone()),
                    kube_host: None,
                    origin: String::new(),
                })
            }
        };
        out.push(Attached { name, place });
    }
    Ok(out)
}

/// Before `delete` of an agent: with runtimes attached, refuses (exit 3,
/// naming them and `--all-runtimes`), unless `all_runtimes`; then every
/// one of them must be found, and the plan names them.
pub(crate) fn check_agent_delete(
    attached: &[Attached],
    namespace: &str,
    all_runtimes: bool,
) -> Result<(), Outcome> {
    if attached.is_empty() {
        return Ok(());
    }
    let listed: Vec<String> = attached.iter().map(Attached::describe).collect();
    if !all_runtimes {
        output::error(
            &anyhow::anyhow!(
                "the agent in namespace {namespace} serves {} attached runtime(s): {}; deleting it would leave them without an agent",
                attached.len(),
                listed.join(", ")
            ),
            Some(&format!(
                "delete them one by one with `cf-runner runtime delete --agent-namespace {namespace} --kube-namespace <namespace>`, \
                 or re-run this command with --all-runtimes to delete them all first, then the agent"
            )),
        );
        return Err(Outcome::PreflightFailed);
    }
    let unplaced: Vec<String> = attached
        .iter()
        .filter_map(|a| {
            a.place
                .as_ref()
                .err()
                .map(|why| format!("{} ({why})", a.name))
        })
        .collect();
    if !unplaced.is_empty() {
        output::error(
            &anyhow::anyhow!(
                "--all-runtimes cannot tell where these attached runtimes are: {}",
                unplaced.join(", ")
            ),
            Some(&format!(
                "delete each with `cf-runner runtime delete --agent-namespace {namespace} --runtime-name <name> \
                 --kube-context-name <context> --kube-namespace <namespace>`, then re-run this command"
            )),
        );
        return Err(Outcome::PreflightFailed);
    }
    Ok(())
}

/// Whether `objects` (one namespace's) are those of a runtime attached to
/// an agent of another namespace: the agent's access objects are there, and
/// no runtimes file (so it is not the agent's own namespace).
pub(crate) fn is_attached_runtime(objects: &[LiveObject]) -> bool {
    let access =
        |o: &&LiveObject| o.label(LABEL_COMPONENT) == Some(Component::RuntimeAccess.as_str());
    let served = objects
        .iter()
        .filter(access)
        .any(|o| o.kind == "ServiceAccount" && o.name == ACCESS_NAME);
    let agent_here = objects
        .iter()
        .filter(access)
        .any(|o| o.kind == "Secret" && o.name == CONFIG_SECRET);
    served && !agent_here
}

/// Before `delete` of a namespace: one that an agent serves as an attached
/// runtime (the agent's access objects are there, and no runtimes file: it
/// is not the agent's own) is refused (exit 3) unless `ignore_agent`. Its
/// objects gone, the agent would keep a file whose token no longer works;
/// `runtime delete` detaches it first.
pub(crate) fn check_runtime_namespace(
    objects: &[LiveObject],
    namespace: &str,
    ignore_agent: bool,
) -> Result<(), Outcome> {
    if !is_attached_runtime(objects) || ignore_agent {
        return Ok(());
    }
    output::error(
        &anyhow::anyhow!(
            "namespace {namespace} is a runtime attached to an agent (ServiceAccount {ACCESS_NAME} and Secret \
             {ACCESS_TOKEN_SECRET} are that agent's credentials there): deleting its objects here would leave \
             the agent serving a runtime whose token no longer works"
        ),
        Some(&format!(
            "delete it with `cf-runner runtime delete --agent-namespace <the agent's namespace> --kube-namespace {namespace}`, \
             which detaches it first; if its agent is gone, re-run this command with --ignore-agent"
        )),
    );
    Err(Outcome::PreflightFailed)
}

/// The line of `delete`'s plan that names the attached runtimes it takes
/// first, and what becomes of them; `platform` when the platform is cleaned.
pub(crate) fn say_attached(attached: &[Attached], platform: bool) {
    if attached.is_empty() {
        return;
    }
    let listed: Vec<String> = attached.iter().map(Attached::describe).collect();
    output::say(&attached_plan(&listed, platform));
}

fn attached_plan(listed: &[String], platform: bool) -> String {
    let what = if platform {
        "the agent's runtimes on the platform drop them, then each one's objects in its namespace \
         and its runtime environment on the platform go"
    } else {
        "each one's objects in its namespace go (the platform is left as it is)"
    };
    format!(
        "  first, the runtime(s) attached to the agent (--all-runtimes): {}; {what}. The agent is not \
         rolled for them: it is deleted next, and its runtimes file (Secret {CONFIG_SECRET}) with it",
        listed.join(", ")
    )
}

/// `delete --all-runtimes`: the agent `agent_name` in `namespace` is about
/// to be deleted, so its attached runtimes are not detached one by one
/// (each a rollout of the agent and a wait): the platform's list of the
/// agent's runtimes drops them all at once, so that no build of theirs goes
/// to it, then each runtime's objects and runtime environment go. The
/// agent's runtimes file is not written: it goes with the agent, and until
/// then it names what a re-run must still finish. With no platform
/// (`--keep-platform`, or an install the platform never saw), the platform
/// is left as it is.
pub(crate) async fn delete_attached(
    cluster: &Cluster,
    namespace: &str,
    agent_name: Option<&str>,
    attached: &[Attached],
    platform: Option<&Platform>,
    timeout: Duration,
) -> Result<(), Outcome> {
    if attached.is_empty() {
        return Ok(());
    }
    // The runtimes Secret names them: a claim. Each is resolved and held
    // against the platform before anything is written there.
    let mut resolved = Vec::new();
    for a in attached {
        let Ok(target) = &a.place else { continue };
        let r = attach::resolve(cluster, namespace, target).await?;
        if let Some(p) = platform {
            check_claim(p, &r, agent_name, "the agent's runtimes Secret").await?;
        }
        resolved.push((a, r));
    }
    if let (Some(p), Some(name)) = (platform, agent_name) {
        match attach::agent_if_there(p, name).await? {
            Some(agent) => {
                let wanted = agent
                    .runtimes
                    .iter()
                    .filter(|n| attached.iter().all(|a| a.name != **n))
                    .cloned()
                    .collect();
                attach::set_platform_runtimes(p, &agent, wanted).await?;
            }
            None => output::note(&format!(
                "agent {name} is not on the Codefresh platform: no list of runtimes to take them off there"
            )),
        }
    }
    let leaving = Leaving::AgentGoes {
        namespace,
        name: agent_name,
    };
    for (a, r) in resolved {
        output::say(&format!("Deleting attached runtime {}", a.describe()));
        let written = written_for(&r).await?;
        for note in &written.notes {
            output::note(note);
        }
        remove(
            &leaving,
            &r,
            platform,
            platform.is_some(),
            written.objects,
            timeout,
        )
        .await
        .map_err(|outcome| match outcome {
            // The agent's runtimes file still names every runtime not
            // fully gone: the same command finds them again.
            Outcome::Failed(e, None) => Outcome::Failed(
                e,
                Some(format!(
                    "re-run the same `cf-runner delete --all-runtimes` of namespace {namespace}, with the same \
                     flags: what is already gone is skipped"
                )),
            ),
            other => other,
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
