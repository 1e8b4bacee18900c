//! A registration's files in the tree: its Secrets encrypted with SOPS (or,
//! with an external store, ExternalSecrets and the material handed out), the
//! recipients they are encrypted to, and the sealed registration.yaml.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::app::fleet::common::{bad, export_failed, failed, read, secret_file};
use crate::app::fleet::options::FleetRegisterOptions;
use crate::app::session::outcome::Outcome;
use crate::export::{self, OutFile};
use crate::fleet::tree::{Registration, REGISTERED_SECRETS, REGISTRATION_FILE};
use crate::fleet::trust::{self, SealKey};
use crate::fleet::{external, sops, Cluster, Fleet};
use crate::render;
use crate::values::{Problem, Secret};

/// The SOPS files of a runtime's folder, each with the recipients it is
/// encrypted to.
pub(crate) fn sops_recipients(folder: &Path) -> Vec<(PathBuf, Vec<String>)> {
    REGISTERED_SECRETS
        .iter()
        .map(|n| folder.join(format!("{n}.sops.yaml")))
        .filter_map(|file| {
            let value = render::yaml::parse(&read(&file)?).ok()?;
            Some((file, trust::recipients(&value)))
        })
        .collect()
}

/// The files of `folder` that are not encrypted to exactly the fleet's
/// recipients (each once), and the recipients they hold that the fleet
/// file no longer lists.
pub(crate) fn stale_recipients(fleet: &Fleet, folder: &Path) -> (Vec<PathBuf>, Vec<String>) {
    let mut want = fleet.age_recipients.clone();
    want.sort();
    let (mut files, mut removed) = (Vec::new(), std::collections::BTreeSet::new());
    for (file, have) in sops_recipients(folder) {
        if have != want {
            removed.extend(have.iter().filter(|r| !want.contains(r)).cloned());
            files.push(file);
        }
    }
    (files, removed.into_iter().collect())
}

/// A refusal when the folder's files are encrypted to other recipients
/// than the fleet file lists and there is no age key to re-encrypt them.
pub(crate) fn recipients_problem(fleet: &Fleet, folder: &Path) -> Option<Problem> {
    let (files, removed) = stale_recipients(fleet, folder);
    if files.is_empty() {
        return None;
    }
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let why = if removed.is_empty() {
        format!("is needed: {} are not encrypted to every recipient of sops.ageRecipients and must be encrypted anew", names.join(", "))
    } else {
        format!(
            "is needed: {} are still encrypted to {}, which sops.ageRecipients no longer lists; they must be encrypted anew",
            names.join(", "),
            removed.join(", ")
        )
    };
    Some(Problem::new(
        "--age-key-file",
        None,
        why,
        "pass --age-key-file (or set SOPS_AGE_KEY_FILE) with an age key the files are encrypted to",
    ))
}

/// `--store-material-dir` must not be inside the tree, nor anywhere in a
/// Git work tree the tree is in: what it receives is the material in
/// clear, and `git add -A` there would stage it. Links are resolved first.
pub(crate) fn check_material_dir(args: &FleetRegisterOptions) -> Result<(), Outcome> {
    let Some(material) = &args.store_material_dir else {
        return Ok(());
    };
    let (m, tree) = (
        trust::resolved(material),
        trust::resolved(&args.files.output_dir),
    );
    let refuse = |why: String| {
        Err(bad(
            "--store-material-dir",
            format!(
                "{} {why}: the agent tokens and dind keys written there are in clear and must never reach Git",
                material.display()
            ),
            "name a folder outside every Git work tree, e.g. a private temporary folder (`mktemp -d`)",
        ))
    };
    if m.starts_with(&tree) || tree.starts_with(&m) {
        return refuse(format!(
            "overlaps the tree {}",
            args.files.output_dir.display()
        ));
    }
    let trees = trust::git_work_trees(&tree);
    if let Some(root) = trust::git_work_trees(&m)
        .into_iter()
        .find(|r| trees.contains(r))
    {
        return refuse(format!(
            "is inside the Git work tree {} that also holds the tree {}",
            root.display(),
            args.files.output_dir.display()
        ));
    }
    Ok(())
}

/// The ExternalSecret files of a runtime, and (`with_material`) the
/// Secrets to load into the store, from its render.
pub(crate) fn external_files(
    store: &external::Store,
    cluster: &Cluster,
    rendered: &render::Rendered,
    with_material: bool,
) -> (Vec<OutFile>, Vec<OutFile>) {
    let (mut files, mut material) = (Vec::new(), Vec::new());
    for m in &rendered.manifests {
        if m.kind == "Secret" && REGISTERED_SECRETS.contains(&m.name.as_str()) {
            files.push(OutFile {
                name: external::file_name(&m.name),
                text: export::to_yaml(&external::external_secret(store, &cluster.name, m)),
                private: false,
            });
            if with_material {
                material.push(OutFile {
                    name: format!("{}.yaml", m.name),
                    text: external::material_text(store, &cluster.name, m),
                    private: true,
                });
            }
        }
    }
    (files, material)
}

/// What registration wrote for a runtime, re-read: token, CA, cert, key.
pub(crate) fn decrypted_material(
    folder: &Path,
    args: &FleetRegisterOptions,
) -> Result<(Secret, Secret, Secret, Secret), Outcome> {
    let Some(path) = &args.age_key_file else {
        return Err(bad(
            "--age-key-file",
            format!(
                "is needed: the Secrets in {} must be written anew and cf-runner has to read them first",
                folder.display()
            ),
            "pass --age-key-file (or set SOPS_AGE_KEY_FILE) with the age key the tree is encrypted to",
        ));
    };
    let ids = read(path).map(|t| sops::identities(&t)).unwrap_or_default();
    if ids.is_empty() {
        return Err(bad(
            "--age-key-file",
            format!(
                "{} holds no age identity (AGE-SECRET-KEY-1…)",
                path.display()
            ),
            "name the file `age-keygen` wrote",
        ));
    }
    let open = |name: &str| -> Result<Value, Outcome> {
        let file = folder.join(format!("{name}.sops.yaml"));
        let text = read(&file).ok_or_else(|| {
            failed(
                format!("{} is missing", file.display()),
                "retire the runtime (`cf-runner fleet retire` after removing it from the fleet file) and register it again",
            )
        })?;
        let value =
            render::yaml::parse(&text).map_err(|e| failed(e, "restore the file from Git"))?;
        sops::decrypt(&value, &ids).map_err(|e| {
            failed(
                format!("{}: {e}", file.display()),
                "restore the file from Git, or pass the right age key",
            )
        })
    };
    let runner = open(render::RUNNER_SECRET)?;
    let dind = open(render::DIND_CERTS_SECRET)?;
    let get = |v: &Value, k: &str| Secret::new(v["stringData"][k].as_str().unwrap_or_default());
    Ok((
        get(&runner, "codefresh.token"),
        get(&dind, "ca.pem"),
        get(&dind, "server-cert.pem"),
        get(&dind, "server-key.pem"),
    ))
}

/// The registered Secrets, each encrypted in its own file.
pub(crate) fn encrypted_files(
    fleet: &Fleet,
    rendered: &render::Rendered,
) -> Result<Vec<OutFile>, Outcome> {
    let now = sops::now_rfc3339();
    let mut out = Vec::new();
    for m in &rendered.manifests {
        if m.kind == "Secret" && REGISTERED_SECRETS.contains(&m.name.as_str()) {
            let enc = sops::encrypt(&m.object, &fleet.age_recipients, &now)
                .map_err(|e| failed(e.to_string(), "check sops.ageRecipients in the fleet file"))?;
            out.push(OutFile {
                name: format!("{}.sops.yaml", m.name),
                text: export::to_yaml(&enc),
                private: true,
            });
        }
    }
    Ok(out)
}

/// Writes a runtime's folder: the SOPS or ExternalSecret files (`None`:
/// the ones there are kept byte for byte), their kustomization, and the
/// registration.
pub(crate) fn write_registration(
    fleet: &Fleet,
    folder: &Path,
    at: (&str, &str),
    key: &SealKey,
    reg: &Registration,
    secrets: Option<Vec<OutFile>>,
) -> Result<(), Outcome> {
    let reg = &Registration {
        seal: None,
        ..reg.clone()
    };
    let reg = &Registration {
        seal: Some(trust::seal(key, at.0, at.1, reg)),
        ..reg.clone()
    };
    let secrets = match secrets {
        Some(s) => s,
        None => REGISTERED_SECRETS
            .iter()
            .map(|n| {
                let name = secret_file(fleet, n);
                OutFile {
                    text: read(&folder.join(&name)).unwrap_or_default(),
                    name,
                    private: true,
                }
            })
            .collect(),
    };
    let mut files = secrets.clone();
    // Sorted: the same list whether the files were written now or kept.
    let mut names: Vec<String> = secrets.iter().map(|f| f.name.clone()).collect();
    names.sort();
    files.push(OutFile {
        name: "kustomization.yaml".into(),
        text: export::to_yaml(&json!({
            "apiVersion": "kustomize.config.k8s.io/v1beta1",
            "kind": "Kustomization",
            "resources": names,
        })),
        private: false,
    });
    files.push(OutFile {
        name: REGISTRATION_FILE.into(),
        text: reg.to_text(),
        private: false,
    });
    export::write_files(folder, &files, false)
        .map(|_| ())
        .map_err(export_failed)
}
