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

use std::time::Duration;

use serde_json::Value;

use crate::app::identity::verified;
use crate::app::runtimes::target::{self, AgentSide, AgentState, Resolved, Target};
use crate::app::runtimes::{access, agent_side};
use crate::app::session::connect::need_yes;
use crate::app::session::converge;
use crate::app::session::options::PlatformOptions;
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster::inventory::{self, LiveObject};
use crate::cluster::ownership::{self, Ownership};
use crate::cluster::{delete, runtimes as live, Cluster};
use crate::output;
use crate::platform::Platform;
use crate::render::runtimes::{file_runtime_name, CONFIG_SECRET};
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
pub(crate) fn named_problems(t: &Target) -> Vec<Problem> {
    let mut p = target::target_problems(t);
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
pub(crate) fn refuse_own(
    state: &AgentState,
    r: &Resolved,
    what: &str,
    fix: String,
) -> Result<(), Outcome> {
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
pub(crate) fn is_attached(state: &AgentState, r: &Resolved) -> bool {
    state
        .files
        .iter()
        .any(|(k, text)| *k == r.key || file_runtime_name(text).as_deref() == Some(&r.name))
}

/// What attach wrote for runtime `r` in its namespace and cf-runner may
/// delete, and notes on what stays.
pub(crate) struct Written {
    pub(crate) objects: Vec<LiveObject>,
    pub(crate) notes: Vec<String>,
}

pub(crate) async fn written_for(r: &Resolved) -> Result<Written, Outcome> {
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
                access::is_access_credential(&o.name)
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
    agent_side::under_agent_lock(&agent, command, options.timeout, async |cluster: &Cluster| {
        let state = agent_side::read_agent(cluster.clone(), &ns, command).await?;
        let platform = agent_side::platform_client(platform_args, &state, command)?;
        let r = target::resolve(&state.cluster, &ns, &target).await?;
        target::refuse_key_clash(&state, &target, &r)?;
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
pub(crate) enum Leaving<'a> {
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
pub(crate) async fn remove(
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
pub(crate) async fn check_claim(
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
        Some(p) => Some(agent_side::agent_on_platform(p, &state.agent_name).await?),
        None => None,
    };
    agent_side::stop_serving(
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
                Some(agent_side::agent_on_platform(p, &state.agent_name).await?)
            }
            Leaving::AgentGoes {
                name: Some(name), ..
            } => agent_side::agent_if_there(p, name).await?,
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

#[cfg(test)]
mod tests;
