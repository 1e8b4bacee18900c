//! `delete`: removes exactly what cf-runner installed. The objects
//! come from the labels (`cluster::inventory`), never from a list in this
//! version's templates, so whatever an older or newer version installed goes
//! too and a user's own objects next to them stay; of the labelled ones,
//! only those cf-runner created go (`cluster::ownership`). The namespace
//! goes only when nothing but cf-runner's objects is in it, or with
//! `--delete-namespace-with-contents`. Shows the plan, asks (or
//! takes `--yes`), deletes in reverse dependency order and waits until
//! everything is gone (`cluster::delete`). Re-running is safe: it picks up
//! whatever is left, and says so when nothing is.

pub(crate) mod options;
pub(crate) mod platform;

use std::collections::BTreeSet;

use crate::app::install::delete::platform::{
    agent_to_clean, platform_named, platform_side, PlatformSide,
};
use crate::app::installation::{
    leftovers, names, pick_installation, read_installation, Installation,
};
use crate::app::runtimes::attached;
use crate::app::session::connect::{connect_flags, runtime};
use crate::app::session::converge::delete_failed;
use crate::app::session::lock::{self, LockWait};
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster::delete::{self, Event};
use crate::cluster::inventory::LiveObject;
use crate::cluster::ownership::{self, Ownership};
use crate::cluster::Cluster;
use crate::output;
use crate::platform::Platform;

pub use crate::app::install::delete::options::DeleteOptions;

/// Runs `delete`: find the installation, check the platform token, work
/// out what goes, show it and ask, clean the platform, delete, wait.
pub fn run(args: &DeleteOptions) -> Outcome {
    runtime().block_on(async {
        match delete_installation(args).await {
            Ok(()) => Outcome::Ok,
            Err(outcome) => outcome,
        }
    })
}

/// The steps of `delete`, in order. `Err` is the outcome to return.
async fn delete_installation(args: &DeleteOptions) -> Result<(), Outcome> {
    let cluster = connect_flags(&args.kube).await?;
    let Some(namespace) = pick_installation(&cluster, &args.kube, "delete").await? else {
        output::done(&format!(
            "nothing to delete: no Codefresh Runner is installed in context {}",
            cluster.context
        ));
        return Ok(());
    };
    // Under the lock, from reading the installation to the last deletion:
    // a run that changes it meanwhile would leave half an install.
    let how = LockWait::of(args.no_wait_for_lock, args.timeout);
    let held = lock::take(&cluster, &namespace, "delete", how, None).await?;
    let deleted = delete_locked(args, &cluster, &namespace).await;
    lock::release(held, &namespace).await;
    deleted
}

/// The steps of `delete` under the install's lock.
async fn delete_locked(
    args: &DeleteOptions,
    cluster: &Cluster,
    namespace: &str,
) -> Result<(), Outcome> {
    let inst = read_installation(cluster, namespace).await.doing(&format!(
        "reading the installation in namespace {namespace} failed"
    ))?;
    attached::check_runtime_namespace(&inst.objects, namespace, args.ignore_agent)?;
    let record = inst.record.clone().unwrap_or_default();
    // The record only claims which agent is this install's: checked against
    // the Deployment before any platform call (`verified`).
    let agent = if platform_named(args, &record) {
        agent_to_clean(cluster, namespace, &record).await?
    } else {
        None
    };
    // An agent that serves attached runtimes goes last, or not at all.
    let attached = attached::attached_to(
        cluster,
        namespace,
        record.runtime_name.as_deref(),
        args.kube.kube_config_path.as_ref(),
    )
    .await?;
    attached::check_agent_delete(&attached, namespace, args.all_runtimes)?;
    let side = platform_side(args, cluster, namespace, &inst, &record, agent).await?;
    let mut targets = targets(args, &inst, namespace);
    check_namespace(args, cluster, &inst, namespace, &mut targets).await?;
    if targets.objects.is_empty() {
        output::done(&format!(
            "nothing to delete: no object in namespace {namespace} or cluster-wide is cf-runner's for it"
        ));
        for note in [targets.namespace_note, targets.volume_note]
            .into_iter()
            .flatten()
        {
            output::note(&note);
        }
        return namespace_kept(targets.namespace_kept);
    }
    let total = targets.objects.len();
    let phases = delete::plan(std::mem::take(&mut targets.objects));
    show_plan(cluster, namespace, &phases, &attached, &side, &targets);
    if !args.yes && !confirm(total)? {
        output::say("Nothing was deleted.");
        return Ok(());
    }
    attached::delete_attached(
        cluster,
        namespace,
        side.agent.as_deref(),
        &attached,
        side.client.as_ref(),
        args.timeout,
    )
    .await?;
    if let Some(client) = &side.client {
        clean_platform(
            client,
            side.agent.as_deref(),
            side.runtime.as_deref(),
            &side.strays,
            cluster,
        )
        .await?;
    }
    delete_objects(args, cluster, namespace, &phases).await?;
    // Left on the platform, the record's names are only said, never acted on.
    let (agent, runtime) = match &side.client {
        Some(_) => (side.agent.clone(), side.runtime.clone()),
        None => (record.agent_name.clone(), record.runtime_name.clone()),
    };
    let asked = leftovers::Asked {
        deleted: total,
        purge_volumes: args.purge_volumes,
        delete_namespace: args.delete_namespace || args.delete_namespace_with_contents,
        keep_platform: args.keep_platform,
        platform: side.client.as_ref(),
        registered: record.registered,
        agent: agent.as_deref(),
        runtime: runtime.as_deref(),
    };
    leftovers::verify(cluster, namespace, &asked).await;
    namespace_kept(targets.namespace_kept)
}

/// What the delete will remove, phase by phase, on the platform too, with
/// its notes and warnings.
fn show_plan(
    cluster: &Cluster,
    namespace: &str,
    phases: &[(delete::Phase, Vec<LiveObject>)],
    attached: &[attached::Attached],
    side: &PlatformSide,
    targets: &Targets,
) {
    output::say(&format!(
        "Deleting the Codefresh Runner in namespace {namespace} of context {} ({}):",
        cluster.context, cluster.server
    ));
    attached::say_attached(attached, side.client.is_some());
    for (phase, objects) in phases {
        output::say(&format!("  {}: {}", phase.describe(), names(objects)));
    }
    if side.client.is_some() {
        // An agent installed alone has no runtime environment of its own.
        let own_runtime = side
            .runtime
            .as_deref()
            .map(|name| format!("runtime environment {name}, "))
            .unwrap_or_default();
        output::say(&format!(
            "  on the Codefresh platform: {own_runtime}agent {} (unless it serves another runtime), \
             and the cluster integration of {} if no runtime uses it any more",
            side.agent.as_deref().unwrap_or("(none)"),
            cluster.context
        ));
        if !side.strays.is_empty() {
            output::say(&format!(
                "  also on the platform: agent(s) {} (named like this install's agent and listed with its \
                 runtime environment {}, left by runs that raced: no runner serves them)",
                side.strays.join(", "),
                side.runtime.as_deref().unwrap_or("(none)")
            ));
        }
    }
    for note in [&targets.namespace_note, &targets.volume_note]
        .into_iter()
        .flatten()
    {
        output::note(note);
    }
    if let Some(warning) = &targets.contents_warning {
        output::warn(warning);
    }
}

/// Exit 1 when the namespace was asked to go and stays: the user's
/// objects in it are not cf-runner's to delete.
fn namespace_kept(kept: Option<(String, String)>) -> Result<(), Outcome> {
    match kept {
        Some((message, hint)) => Err(Outcome::Failed(anyhow::anyhow!(message), Some(hint))),
        None => Ok(()),
    }
}

/// What `delete` removes, and what stays with a note saying why.
struct Targets {
    objects: Vec<LiveObject>,
    namespace_note: Option<String>,
    volume_note: Option<String>,
    /// Why the namespace cf-runner created stays although it was asked to
    /// go (what else is in it): the delete then exits 1.
    namespace_kept: Option<(String, String)>,
    /// What `--delete-namespace-with-contents` deletes besides cf-runner's
    /// objects, shown with the plan.
    contents_warning: Option<String>,
}

/// The labelled objects to delete: only those cf-runner created
/// (`cluster::ownership`); adopted ones, the namespace and the dind
/// volumes only when their flags say so.
fn targets(args: &DeleteOptions, inst: &Installation, namespace: &str) -> Targets {
    let mut objects: Vec<LiveObject> = Vec::new();
    let mut namespace_note = None;
    let mut adopted = Vec::new();
    let mut not_ours = Vec::new();
    let delete_namespace = args.delete_namespace || args.delete_namespace_with_contents;
    if inst.ledger.is_absent() && inst.objects.iter().any(|o| o.namespace.is_some()) {
        output::warn(&ownership::no_ledger_warning(namespace));
    }
    for o in &inst.objects {
        match ownership::ownership(&o.object, namespace, &inst.ledger) {
            Ownership::Ours => {}
            Ownership::ForceAdopted if args.delete_adopted => {}
            Ownership::ForceAdopted => {
                adopted.push(o.display_name());
                continue;
            }
            Ownership::Foreign(f) => {
                not_ours.push(format!("{} ({})", o.display_name(), f.describe()));
                continue;
            }
        }
        if o.kind != "Namespace" || delete_namespace {
            objects.push(o.clone());
        } else {
            namespace_note = Some(format!(
                "the namespace {namespace} stays (cf-runner created it: --delete-namespace removes it when nothing else is in it)"
            ));
        }
    }
    if delete_namespace && !objects.iter().any(|o| o.kind == "Namespace") {
        namespace_note = Some(format!(
            "the namespace {namespace} stays: cf-runner did not create it"
        ));
    }
    if !not_ours.is_empty() {
        output::note(&format!(
            "left alone, not deleted: {} object(s) carry cf-runner's labels, but cf-runner did not create them:\n  {}",
            not_ours.len(),
            not_ours.join("\n  ")
        ));
    }
    if !adopted.is_empty() {
        let (verb, pronoun) = if adopted.len() == 1 {
            ("stays", "it")
        } else {
            ("stay", "they")
        };
        output::note(&format!(
            "{} {verb}: {pronoun} existed before the install and cf-runner took {pronoun} over with \
             --force-conflicts (--delete-adopted deletes {pronoun} too)",
            adopted.join(", "),
        ));
    }
    let volume_note = if args.purge_volumes {
        objects.extend(inst.volumes.iter().cloned());
        None
    } else if !inst.volumes.is_empty() {
        Some(format!(
            "{} dind volume(s) stay (--purge-volumes removes them): {}",
            inst.volumes.len(),
            names(&inst.volumes)
        ))
    } else {
        None
    };
    Targets {
        objects,
        namespace_note,
        volume_note,
        namespace_kept: None,
        contents_warning: None,
    }
}

/// How many objects a message names before it gives a count.
const NAMED_AT_MOST: usize = 10;

/// Before the namespace goes: what else is in it. Anything cf-runner did
/// not create (or anything that cannot be listed) keeps the namespace,
/// unless `--delete-namespace-with-contents`, which lists it first.
async fn check_namespace(
    args: &DeleteOptions,
    cluster: &Cluster,
    inst: &Installation,
    namespace: &str,
    targets: &mut Targets,
) -> Result<(), Outcome> {
    if !targets.objects.iter().any(|o| o.kind == "Namespace") {
        return Ok(());
    }
    let ours: BTreeSet<String> = targets
        .objects
        .iter()
        .chain(inst.volumes.iter())
        .filter_map(|o| o.uid().map(str::to_string))
        .collect();
    let contents = ownership::namespace_contents(&cluster.client, namespace, &ours)
        .await
        .doing(&format!(
            "listing what is in namespace {namespace} failed; nothing was deleted"
        ))?;
    if contents.is_empty() {
        return Ok(());
    }
    let mut why = Vec::new();
    if !contents.others.is_empty() {
        why.push(format!(
            "it holds {} object(s) cf-runner did not create: {}",
            contents.others.len(),
            contents.first(NAMED_AT_MOST)
        ));
    }
    if !contents.unlisted.is_empty() {
        why.push(format!(
            "what else is in it cannot be told: these resource types could not be listed: {}",
            contents.unlisted.join(", ")
        ));
    }
    if args.delete_namespace_with_contents {
        let mut text = format!(
            "--delete-namespace-with-contents: the namespace {namespace} goes with everything in it"
        );
        if !contents.others.is_empty() {
            text.push_str(&format!(
                ", including {} object(s) cf-runner did not create:\n  {}",
                contents.others.len(),
                contents.others.join("\n  ")
            ));
        }
        if !contents.unlisted.is_empty() {
            text.push_str(&format!(
                "\n  and whatever is in the resource types that could not be listed: {}",
                contents.unlisted.join(", ")
            ));
        }
        targets.contents_warning = Some(text);
        return Ok(());
    }
    targets.objects.retain(|o| o.kind != "Namespace");
    targets.namespace_note = Some(format!(
        "the namespace {namespace} stays: {} (named at the end)",
        if contents.others.is_empty() {
            "some resource types in it could not be listed"
        } else {
            "it holds objects cf-runner did not create"
        }
    ));
    let message = format!("the namespace {namespace} stays: {}", why.join("; "));
    let hint = format!(
        "cf-runner's own objects are deleted; once you have decided about the rest, remove the namespace \
         by hand (`kubectl delete namespace {namespace}` deletes everything in it), or re-run \
         `cf-runner delete --kube-namespace {namespace} --delete-namespace-with-contents`"
    );
    targets.namespace_kept = Some((message, hint));
    Ok(())
}

/// Asks before deleting `total` objects; `true` to go ahead.
fn confirm(total: usize) -> Result<bool, Outcome> {
    output::confirm(&format!("Delete these {total} objects?"), false).map_err(|e| {
        Outcome::Failed(
            anyhow::Error::new(e).context("reading the answer failed"),
            Some("re-run with --yes to skip the question".into()),
        )
    })
}

/// Removes the agent, runtime and cluster integration from the platform.
async fn clean_platform(
    client: &Platform,
    agent: Option<&str>,
    runtime: Option<&str>,
    strays: &[String],
    cluster: &Cluster,
) -> Result<(), Outcome> {
    crate::app::identity::unregister::clean_up(client, agent, strays, runtime, &cluster.context)
    .await
    .map_err(|e| {
        let hint = e.hint();
        Outcome::Failed(
            anyhow::Error::new(e).context("removing the runner from the Codefresh platform failed; nothing in the cluster was deleted yet"),
            hint.or(Some("re-run `cf-runner delete`: what is already gone is skipped".into())),
        )
    })
}

/// Deletes phase by phase and waits until everything is gone.
async fn delete_objects(
    args: &DeleteOptions,
    cluster: &Cluster,
    namespace: &str,
    phases: &[(delete::Phase, Vec<LiveObject>)],
) -> Result<(), Outcome> {
    let on_event = |e: &Event| match e {
        Event::Phase(phase, n) => output::say(&format!("Deleting {} ({n})", phase.describe())),
        Event::Gone(o) => output::removed(&o.display_name(), o.namespace.as_deref()),
        Event::Waiting(what) => output::note(&delete::waiting_note(&cluster.server, what)),
    };
    // A probe stopped hard (kill -9) leaves its claim, pod or Job.
    let cleaned = delete::noting_quiet(
        crate::cluster::probe::clean_up(&cluster.client, namespace),
        || "the removal of leftover probe objects".to_string(),
        &on_event,
    )
    .await;
    if let Err(e) = cleaned {
        output::warn(&format!("leftover probe objects could not be removed: {e}"));
    }
    let report = delete::delete_all(&cluster.client, phases, args.timeout, &on_event).await;
    if !report.ok() {
        return Err(delete_failed(&report, args.timeout));
    }
    output::done(&format!(
        "deleted {} objects of the Codefresh Runner in namespace {namespace}",
        report.gone.len()
    ));
    if args.keep_platform {
        output::note(
            "the agent and runtime environment stay on the Codefresh platform (--keep-platform)",
        );
    }
    Ok(())
}
