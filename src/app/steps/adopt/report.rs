//! What `adopt --dry-run` shows and saves: the plan and the values file.

use super::*;

pub(super) fn report(found: &Found, namespace: &str, path: &Path) -> Outcome {
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
    let loaded = match values::load(&input) {
        Ok(l) => l,
        Err(p) => return Outcome::BadInput(p),
    };
    let identity = crate::app::steps::identity::seed(&loaded.values, loaded.values.context.clone());
    let rendered = match render::render(&loaded.values, &identity, &loaded.redacted_tree) {
        Ok(r) => r,
        Err(e) => return Outcome::render_failed(e),
    };
    let ours: Vec<(ObjectRef, Value)> = rendered
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
    if let Err(e) = crate::export::write_file(path, &saved.text, saved.holds_secret) {
        return Outcome::Failed(e.into(), None);
    }
    output::note(&format!(
        "saved what the install is to {}{} (tokens are not in it)",
        path.display(),
        if saved.holds_secret {
            " (mode 0600: it holds a secret)"
        } else {
            ""
        }
    ));
    let plan = plan(found, &ours, namespace);
    print_plan(Some(found), &plan, true);
    output::say("run `cf-runner adopt` without --dry-run to carry the plan out");
    Outcome::Ok
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

/// Refuses to write over a file `adopt` did not write, unless `overwrite`.
pub(crate) fn check_save_path(path: &Path, overwrite: bool) -> Result<(), Problems> {
    let Ok(meta) = path.symlink_metadata() else {
        return Ok(());
    };
    let flag = "--values-file";
    let shown = path.display().to_string();
    if !meta.is_file() {
        return Err(refuse(
            flag,
            Some(&shown),
            "is not a regular file; adopt writes the values file there",
            "pass --values-file with another path",
        ));
    }
    let ours = crate::input_file::read_regular_text(path, crate::values::tree::MAX_INPUT_BYTES)
        .map(|t| t.starts_with(SAVED_MARK))
        .unwrap_or(false);
    if ours || overwrite {
        Ok(())
    } else {
        Err(refuse(
            flag,
            Some(&shown),
            "is a file cf-runner adopt did not write; writing over it could lose your data",
            "pass --values-file with another path, or --overwrite to replace it",
        ))
    }
}
