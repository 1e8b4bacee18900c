//! `fleet export`: the tree for the GitOps engine, the same bytes for the
//! same fleet file, from the registrations in it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::app::fleet::common::{
    bad, claim_root, export_failed, honest, keyring, load, read, refuse, registrations, At,
};
use crate::app::fleet::options::FleetExportOptions;
use crate::app::session::outcome::Outcome;
use crate::export::{self, OutFile};
use crate::fleet::tree::{self, Registration};
use crate::fleet::trust;
use crate::fleet::Fleet;
use crate::output;

/// The registrations an export renders with, after the checks: each sealed
/// (or accepted), and each runner sent to the platform it was registered on.
pub(crate) fn export_registrations(
    fleet: &Fleet,
    args: &FleetExportOptions,
) -> Result<BTreeMap<At, Registration>, Outcome> {
    let dir = &args.files.output_dir;
    let ring = keyring(&args.trust, dir)?;
    let found = registrations(dir, ring.key.as_ref());
    let listed = |(c, ns): &At| {
        fleet
            .clusters
            .iter()
            .any(|k| k.name == *c && k.runtimes.iter().any(|r| r.namespace() == ns))
    };
    let mut problems = found.refusals(dir, &ring, &listed);
    let usable = found.usable(&ring);
    for ((c, ns), reg) in &usable {
        if let Some(platform) = &reg.platform {
            let only = |k: &str, n: &str| k == c && n == ns;
            for p in
                trust::host_problems(fleet, platform, "the platform it was registered on", &only)
            {
                if !problems.iter().any(|q| q.key == p.key) {
                    problems.push(p);
                }
            }
        }
    }
    refuse(problems)?;
    Ok(usable)
}

pub(crate) fn export_tree(args: &FleetExportOptions) -> Outcome {
    let fleet = match load(&args.files) {
        Ok(f) => f,
        Err(o) => return o,
    };
    let dir = &args.files.output_dir;
    let regs = match export_registrations(&fleet, args) {
        Ok(r) => r,
        Err(o) => return o,
    };
    let files = match tree::files(&fleet, &regs) {
        Ok(f) => f,
        Err(tree::TreeError::NotRegistered { cluster, namespace }) => {
            return bad(
                &format!("clusters[{cluster}]"),
                format!("runtime {namespace} is not registered in {}", dir.display()),
                format!(
                    "run `cf-runner fleet register --fleet {} --output-dir {}` first: it registers the runtime and writes its secrets encrypted",
                    args.files.fleet.display(),
                    dir.display()
                ),
            )
        }
        Err(tree::TreeError::Render(e)) => return Outcome::render_failed(e),
    };
    if let Err(o) = claim_root(dir, args.overwrite) {
        return o;
    }
    let mut by_folder: BTreeMap<String, Vec<OutFile>> = BTreeMap::new();
    for f in &files {
        by_folder
            .entry(f.folder.clone())
            .or_default()
            .push(OutFile {
                name: f.name.clone(),
                text: f.text.clone(),
                private: false,
            });
    }
    let mut changed = 0;
    // Folders written so far: a refusal after them must not say that
    // nothing was written.
    let mut done = Vec::new();
    for (folder, list) in &by_folder {
        let at = dir.join(folder);
        let differ = list
            .iter()
            .filter(|f| read(&at.join(&f.name)).as_deref() != Some(f.text.as_str()))
            .count();
        changed += differ;
        if let Err(e) = export::write_files(&at, list, args.overwrite) {
            return honest(export_failed(e), &done);
        }
        if differ > 0 {
            done.push(format!("wrote {}", at.display()));
        }
    }
    // Overlays of clusters the fleet file no longer lists.
    if let Ok(entries) = std::fs::read_dir(dir.join("clusters")) {
        let mut gone: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| !fleet.clusters.iter().any(|c| *e.file_name() == *c.name))
            .map(|e| e.path())
            .collect();
        gone.sort();
        for path in gone {
            match export::remove_files(&path) {
                Ok(left) if left.is_empty() => {
                    changed += 1;
                    done.push(format!("removed {}", path.display()));
                    output::removed(&format!("overlay {}", path.display()), None)
                }
                Ok(left) => output::warn(&format!(
                    "{} keeps files cf-runner did not write: {}",
                    path.display(),
                    left.join(", ")
                )),
                Err(e) => return honest(export_failed(e), &done),
            }
        }
    }
    output::done(&format!(
        "fleet of {} {} exported to {} ({} files, {changed} changed)",
        fleet.clusters.len(),
        if fleet.clusters.len() == 1 {
            "cluster"
        } else {
            "clusters"
        },
        dir.display(),
        files.len()
    ));
    Outcome::Ok
}
