//! `fleet retire`: what was registered for runtimes the fleet file no
//! longer lists, removed from the platform (the engine prunes the cluster
//! side; it cannot reach the platform).

use serde_json::Value;

use crate::app::fleet::common::{
    bad, claim_holds, claim_refused, connect, export_failed, honest, keyring, load, refuse,
    registrations, token_platform, At,
};
use crate::app::fleet::options::FleetRegisterOptions;
use crate::app::session::outcome::Outcome;
use crate::export;
use crate::fleet::tree::{self, Registration};
use crate::fleet::Fleet;
use crate::output;
use crate::platform::Platform;
use crate::values::{Problem, Problems};

/// The registrations `retire` acts on, after every check that needs no
/// platform call: sealed (or accepted), for the platform of the token, and
/// with no overlay left for their cluster.
pub(crate) fn retire_preflight(
    fleet: &Fleet,
    args: &FleetRegisterOptions,
) -> Result<Vec<(At, Registration)>, Outcome> {
    let dir = &args.files.output_dir;
    let ring = keyring(&args.trust, dir)?;
    let found = registrations(dir, ring.key.as_ref());
    let listed = |(c, ns): &At| {
        fleet
            .clusters
            .iter()
            .any(|k| k.name == *c && k.runtimes.iter().any(|r| r.namespace() == ns))
    };
    let mut problems = found.refusals(dir, &ring, &|at| !listed(at));
    let gone: Vec<(At, Registration)> = found
        .usable(&ring)
        .into_iter()
        .filter(|(at, _)| !listed(at))
        .collect();
    let token = token_platform(args);
    for ((c, ns), reg) in &gone {
        let overlay = dir.join("clusters").join(c);
        if !fleet.clusters.iter().any(|k| &k.name == c) && overlay.exists() {
            problems.push(Problem::new(
                "--output-dir",
                None,
                format!("{} still holds cluster {c}'s overlay: its runner would lose its agent while it still runs", overlay.display()),
                "run `cf-runner fleet export` first, commit, and let the engine prune the cluster; then retire",
            ));
        }
        if let (Some(on), Some(url)) = (&reg.platform, &token) {
            if !crate::platform::auth::same_platform(on, url) {
                problems.push(Problem::new(
                    "--url",
                    Some(&Value::String(url.clone())),
                    format!("is not the platform runtime {ns} of cluster {c} was registered on ({on}): the names there may be another account's"),
                    format!("retire with a token for {on} (`--url {on}`)"),
                ));
            }
        }
    }
    refuse(problems)?;
    Ok(gone)
}

pub(crate) fn retire(args: &FleetRegisterOptions) -> Outcome {
    if args.store_material_dir.is_some() {
        // Shared with `register`, where it means something: never ignored.
        return bad(
            "--store-material-dir",
            "is for `fleet register`: `fleet retire` writes no Secret material",
            "leave --store-material-dir out of `fleet retire`",
        );
    }
    let fleet = match load(&args.files) {
        Ok(f) => f,
        Err(o) => return o,
    };
    let dir = &args.files.output_dir;
    let gone = match retire_preflight(&fleet, args) {
        Ok(g) => g,
        Err(o) => return o,
    };
    if gone.is_empty() {
        output::done(
            "every runtime registered in the tree is in the fleet file: nothing to retire",
        );
        return Outcome::Ok;
    }
    crate::app::session::connect::runtime().block_on(async {
        let (platform, account) = match connect(args, "fleet retire").await {
            Ok(c) => c,
            Err(o) => return o,
        };
        // Every registration checked before anything is deleted: a refusal
        // leaves the platform as it was.
        let mut checked = Vec::new();
        let mut problems = Vec::new();
        for ((c, ns), reg) in &gone {
            let folder = dir.join(tree::secrets_folder(c, ns));
            match claim_holds(&platform, account.as_deref(), (c, ns), reg).await {
                Ok(state) => checked.push(((c, ns), reg, folder, state)),
                Err(why) => {
                    if let Outcome::BadInput(Problems(p)) = claim_refused(&folder, why) {
                        problems.extend(p);
                    }
                }
            }
        }
        if let Err(o) = refuse(problems) {
            return o;
        }
        let mut done = Vec::new();
        for ((c, ns), reg, folder, (agents, runtime_there)) in checked {
            let result = retire_one(&platform, reg, &agents, runtime_there, &mut done).await;
            if let Err(e) = result {
                return honest(Outcome::from_platform(e, &format!("retiring runtime {ns} of cluster {c}")), &done);
            }
            match export::remove_files(&folder) {
                Ok(left) if left.is_empty() => {}
                Ok(left) => output::warn(&format!("{} keeps files cf-runner did not write: {}", folder.display(), left.join(", "))),
                Err(e) => return honest(export_failed(e), &done),
            }
            done.push(format!("removed {}", folder.display()));
            let _ = std::fs::remove_dir(dir.join("secrets").join(c));
            output::done(&format!("runtime {ns} of cluster {c} retired: agent {} and runtime environment {} removed from the platform", reg.agent_name, reg.runtime_name));
        }
        Outcome::Ok
    })
}

/// Deletes a checked registration's agents and runtime environment; `done`
/// gets each deletion as it happens. A fleet registers no cluster
/// integration, so none is removed (one named like the cluster is someone
/// else's).
pub(crate) async fn retire_one(
    platform: &Platform,
    reg: &Registration,
    agents: &[crate::platform::Agent],
    runtime_there: bool,
    done: &mut Vec<String>,
) -> Result<(), crate::platform::PlatformError> {
    for a in agents {
        platform.delete_agent(&a.id).await?;
        output::removed(&format!("agent {}", a.name), None);
        done.push(format!("deleted agent {}", a.name));
    }
    if runtime_there {
        platform.delete_runtime(&reg.runtime_name).await?;
        output::removed(&format!("runtime environment {}", reg.runtime_name), None);
        done.push(format!("deleted runtime environment {}", reg.runtime_name));
    }
    Ok(())
}
