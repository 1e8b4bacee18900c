//! `cf-runner delete`: removes exactly what cf-runner installed. The objects
//! come from the labels (`kube::inventory`), never from a list in this
//! version's templates, so whatever an older or newer version installed goes
//! too and a user's own objects next to them stay. Shows the plan, asks (or
//! takes `--yes`), deletes in reverse dependency order and waits until
//! everything is gone (`kube::delete`). Re-running is safe: it picks up
//! whatever is left, and says so when nothing is.

use super::steps::converge::delete_failed;
use super::steps::installation::{names, pick_installation, read_installation};
use super::steps::register;
use super::steps::session::{connect_flags, failed, need_yes, runtime};
use super::Outcome;
use crate::cli::DeleteArgs;
use crate::kube::delete::{self, Event};
use crate::kube::inventory::LiveObject;
use crate::output;
use crate::render::LABEL_MANAGED_BY;

/// Runs `delete`.
pub fn run(args: &DeleteArgs) -> Outcome {
    if !args.yes && !output::stdin_is_tty() {
        return need_yes("delete", "the deletion");
    }
    runtime().block_on(async {
        let cluster = match connect_flags(&args.kube).await {
            Ok(c) => c,
            Err(outcome) => return outcome,
        };
        let namespace = match pick_installation(&cluster, &args.kube, "delete").await {
            Ok(Some(ns)) => ns,
            Ok(None) => {
                output::done(&format!(
                    "nothing to delete: no Codefresh Runner is installed in context {}",
                    cluster.context
                ));
                return Outcome::Ok;
            }
            Err(outcome) => return outcome,
        };
        let inst = match read_installation(&cluster, &namespace).await {
            Ok(i) => i,
            Err(e) => {
                return failed(
                    e,
                    &format!("reading the installation in namespace {namespace} failed"),
                )
            }
        };
        let record = inst.record.clone().unwrap_or_default();
        // The platform first: checked before anything is deleted, cleaned
        // before the cluster (whose record names what to clean).
        let offline = record.registered == Some(false);
        if offline && !args.keep_platform {
            output::note("the install was offline (registered nothing on the Codefresh platform): there is nothing to clean there");
        }
        let platform = if args.keep_platform || offline || (record.agent_name.is_none() && record.runtime_name.is_none()) {
            None
        } else {
            let host = inst.values.as_ref().map(|v| v.codefresh_host.clone());
            let auth = match register::resolve(&args.platform, host.as_deref()) {
                Ok(Some(a)) => Some(a),
                Ok(None) if record.registered.is_none() => {
                    // A record older than the platform client: it may have
                    // been an offline install, so no token is no error.
                    output::warn(&format!(
                        "no Codefresh API token: if agent {} and runtime environment {} exist on the platform, \
                         remove them there (or re-run with --token)",
                        record.agent_name.as_deref().unwrap_or("(none)"),
                        record.runtime_name.as_deref().unwrap_or("(none)")
                    ));
                    None
                }
                Ok(None) => {
                    return register::token_needed(
                        "delete",
                        "remove the agent and runtime environment from Codefresh",
                        ", or pass --keep-platform to leave them there",
                    )
                }
                Err(e) => {
                    let hint = e.hint();
                    return Outcome::Failed(e.into(), hint);
                }
            };
            match auth {
                None => None,
                Some(auth) => {
                    let needs = [
                        crate::platform::Need::Agents,
                        crate::platform::Need::RuntimeEnvironments,
                        crate::platform::Need::Clusters,
                    ];
                    let transport = register::transport(&args.platform);
                    match register::checked_client(&auth, transport, Some(&needs)).await {
                        Ok((client, _)) => Some(client),
                        Err(o) => return o,
                    }
                }
            }
        };

        let mut targets: Vec<LiveObject> = Vec::new();
        let mut namespace_note = None;
        let mut adopted = Vec::new();
        for o in &inst.objects {
            let was_users = o
                .object
                .pointer("/metadata/annotations")
                .and_then(|a| a.get(crate::kube::apply::ADOPTED_ANNOTATION))
                .is_some();
            if was_users && !args.delete_adopted {
                adopted.push(o.display_name());
                continue;
            }
            if o.kind != "Namespace" || args.delete_namespace {
                targets.push(o.clone());
            } else {
                namespace_note = Some(format!(
                    "the namespace {namespace} stays (cf-runner created it: --delete-namespace removes it and everything in it)"
                ));
            }
        }
        if args.delete_namespace && !inst.objects.iter().any(|o| o.kind == "Namespace") {
            namespace_note = Some(format!(
                "the namespace {namespace} stays: cf-runner did not create it (it carries no {LABEL_MANAGED_BY}=cf-runner label)"
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
            targets.extend(inst.volumes.iter().cloned());
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

        if targets.is_empty() {
            output::done(&format!(
                "nothing to delete: no object in namespace {namespace} or cluster-wide carries cf-runner's labels for it"
            ));
            for note in [namespace_note, volume_note].into_iter().flatten() {
                output::note(&note);
            }
            return Outcome::Ok;
        }

        let total = targets.len();
        let phases = delete::plan(targets);
        output::say(&format!(
            "Deleting the Codefresh Runner in namespace {namespace} of context {} ({}):",
            cluster.context, cluster.server
        ));
        for (phase, objects) in &phases {
            output::say(&format!("  {}: {}", phase.describe(), names(objects)));
        }
        if platform.is_some() {
            output::say(&format!(
                "  on the Codefresh platform: runtime environment {}, agent {} (unless it serves another runtime), \
                 and the cluster integration of {} if no runtime uses it any more",
                record.runtime_name.as_deref().unwrap_or("(none)"),
                record.agent_name.as_deref().unwrap_or("(none)"),
                cluster.context
            ));
        }
        for note in [&namespace_note, &volume_note].into_iter().flatten() {
            output::note(note);
        }
        if !args.yes {
            match output::confirm(&format!("Delete these {total} objects?"), false) {
                Ok(true) => {}
                Ok(false) => {
                    output::say("Nothing was deleted.");
                    return Outcome::Ok;
                }
                Err(e) => {
                    return Outcome::Failed(
                        anyhow::Error::new(e).context("reading the answer failed"),
                        Some("re-run with --yes to skip the question".into()),
                    )
                }
            }
        }

        if let Some(client) = &platform {
            if let Err(e) = register::clean_up(
                client,
                record.agent_name.as_deref(),
                record.runtime_name.as_deref(),
                &cluster.context,
            )
            .await
            {
                let hint = e.hint();
                return Outcome::Failed(
                    anyhow::Error::new(e).context("removing the runner from the Codefresh platform failed; nothing in the cluster was deleted yet"),
                    hint.or(Some("re-run `cf-runner delete`: what is already gone is skipped".into())),
                );
            }
        }
        let on_event = |e: &Event| match e {
            Event::Phase(phase, n) => output::say(&format!("Deleting {} ({n})", phase.describe())),
            Event::Gone(o) => output::removed(&o.display_name(), o.namespace.as_deref()),
        };
        // A probe stopped hard (kill -9) leaves its claim, pod or Job.
        if let Err(e) = crate::kube::probe::clean_up(&cluster.client, &namespace).await {
            output::warn(&format!("leftover probe objects could not be removed: {e}"));
        }
        let report = delete::delete_all(&cluster.client, &phases, args.timeout, &on_event).await;
        if !report.ok() {
            return delete_failed(&report, args.timeout);
        }
        output::done(&format!(
            "deleted {} objects of the Codefresh Runner in namespace {namespace}",
            report.gone.len()
        ));
        if args.keep_platform {
            output::note("the agent and runtime environment stay on the Codefresh platform (--keep-platform)");
        }
        Outcome::Ok
    })
}
