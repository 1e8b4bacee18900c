//! What `adopt --dry-run` shows and saves: the plan and the values file.

use std::path::Path;

use serde_json::Value;

use crate::app::adopt::classify::plan;
use crate::app::adopt::detect::{refuse, INTERIM_SUFFIX};
use crate::app::adopt::found::{Found, Plan};
use crate::app::adopt::objects::ObjectRef;
use crate::app::adopt::old_values::values_text;
use crate::app::session::outcome::Outcome;
use crate::output;
use crate::render;
use crate::values::{self, Input, Problem, Problems};

/// Shows what a move would do and saves the values file, changing nothing
/// in the cluster.
pub(super) fn report(found: &Found, namespace: &str, path: &Path) -> Result<(), Outcome> {
    output::say(&format!(
        "found in namespace {namespace}: a runner made by {}",
        found.tool.describe()
    ));
    let saved = values_text(found, namespace);
    // What cf-runner would install from these values.
    let input = Input {
        files: vec![values::ValuesFile {
            origin: path.display().to_string(),
            text: saved.text.clone(),
        }],
        ..Default::default()
    };
    let loaded = values::load(&input)?;
    let identity =
        crate::app::installation::identity::seed(&loaded.values, loaded.values.context.clone());
    let rendered = render::render(&loaded.values, &identity, &loaded.redacted_tree)
        .map_err(Outcome::render_failed)?;
    let mut ours: Vec<(ObjectRef, Value)> = rendered
        .manifests
        .iter()
        .map(|m| {
            let reference = ObjectRef {
                kind: m.kind.clone(),
                name: m.name.clone(),
            };
            (reference, m.object["spec"]["selector"].clone())
        })
        .collect();
    let several = found.runnerconf_runtimes.len() > 1;
    if several {
        // The move keeps the agent in config-dir mode: runnerconf is taken over.
        ours.push((
            ObjectRef {
                kind: "Secret".into(),
                name: render::runtimes::CONFIG_SECRET.into(),
            },
            Value::Null,
        ));
    }
    let plan = plan(found, &ours, namespace);
    if let Some(problems) = unclassified_refusal(&plan) {
        return Err(Outcome::BadInput(problems));
    }
    // Checked by `check_save_path` before anything was read.
    let stamped = crate::export::stamped(&saved.text);
    crate::export::replace_file(path, &stamped, saved.holds_secret)
        .map_err(|e| Outcome::Failed(e.into(), None))?;
    output::note(&format!(
        "saved what the install is to {}{} (tokens are not in it)",
        path.display(),
        if saved.holds_secret {
            " (mode 0600: it holds a secret)"
        } else {
            ""
        }
    ));
    print_plan(Some(found), &plan, true);
    if several {
        output::say(&format!(
            "  runtimes the agent serves (Secret runnerconf): {}; the move keeps each served, takes each \
             runtime namespace's venonactl objects over and gives the agent cf-runner's token there (the \
             move reads from the platform where each builds and shows each namespace's plan before it asks)",
            found.runnerconf_runtimes.join(", ")
        ));
    }
    output::say("run `cf-runner adopt` without --dry-run to carry the plan out");
    Ok(())
}

pub(super) fn print_plan(found: Option<&Found>, plan: &Plan, dry_run: bool) {
    output::say(if dry_run {
        "plan (dry run: nothing was changed in the cluster or on the platform):"
    } else {
        "plan:"
    });
    if let Some(t) = found.and_then(|f| f.token_secret.as_ref()) {
        output::say(&format!("  keep the agent token from Secret/{t}"));
    }
    if let Some(f) = found {
        if let Some(name) = f.values["RuntimeEnvironmentName"].as_str() {
            let from = if f.runnerconf_runtimes.iter().any(|r| r == name) {
                "Secret runnerconf's name: entry"
            } else {
                "the runner's CODEFRESH_IN_CLUSTER_RUNTIME"
            };
            output::say(&format!(
                "  runtime environment {name} (from {from}; the move checks it against the platform's agent record)"
            ));
        }
        output::say("  credentials (where each comes from -> where it goes):");
        list(f.credentials.iter().map(|c| c.line()));
    }
    output::say(
        "  taken over (same kind and name; applied by cf-runner, then labelled as cf-runner's):",
    );
    list(plan.taken_over.iter().map(ToString::to_string));
    output::say("  replaced (cf-runner's comes up and is ready, then the old one is deleted):");
    list(
        plan.replaced
            .iter()
            .map(|(old, new)| format!("{old} -> {new}")),
    );
    if !plan.selector_clash.is_empty() {
        output::say(&format!(
            "  same name, different pod selector (Kubernetes cannot change it in place; \
             cf-runner's comes up as <name>{INTERIM_SUFFIX} first, then the old one goes, then cf-runner's takes the name):"
        ));
        list(plan.selector_clash.iter().map(ToString::to_string));
    }
    output::say("  removed (only the old tool needed them; a Helm release record goes last):");
    list(plan.removed.iter().map(ToString::to_string));
    output::say("  left alone:");
    list(plan.left_alone.iter().cloned());
    if let Some(f) = found.filter(|f| !f.not_read.is_empty()) {
        output::say("  not read from the install by this version (check them in the values file):");
        list(f.not_read.iter().cloned());
    }
}

pub(super) fn list(items: impl Iterator<Item = String>) {
    let mut any = false;
    for item in items {
        any = true;
        output::say(&format!("    - {item}"));
    }
    if !any {
        output::say("    (none)");
    }
}

/// The refusal of a plan with objects no rule places (exit 2, before
/// anything is written), naming each.
pub(super) fn unclassified_refusal(plan: &Plan) -> Option<Problems> {
    if plan.unclassified.is_empty() {
        return None;
    }
    Some(Problems(
        plan.unclassified
            .iter()
            .map(|(o, why)| {
                Problem::new(
                    "--kube-namespace",
                    None,
                    format!("holds {o} of the old install, which adopt cannot place: {why}"),
                    format!(
                        "move what {o} holds where you keep it and delete it, or keep the old install; then re-run adopt"
                    ),
                )
            })
            .collect(),
    ))
}

/// Refuses to write over a file `adopt` did not write, or one changed
/// since it did, unless `overwrite`; and anything that is not a regular
/// file, always.
pub(crate) fn check_save_path(path: &Path, overwrite: bool) -> Result<(), Problems> {
    let flag = "--values-file";
    let shown = path.display().to_string();
    match crate::export::check_owned_path(path, overwrite) {
        Ok(()) => Ok(()),
        Err(crate::export::ExportError::NotOurs { .. }) => Err(refuse(
            flag,
            Some(&shown),
            "is a file cf-runner adopt did not write, or one edited since it did; writing over it could lose your data",
            "pass --values-file with another path, or --overwrite to replace it",
        )),
        Err(e) => Err(refuse(
            flag,
            Some(&shown),
            format!("{e}; adopt writes the values file there"),
            "pass --values-file with another path",
        )),
    }
}
