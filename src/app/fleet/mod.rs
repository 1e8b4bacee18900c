//! `cf-runner fleet register | export | retire`: runners for many clusters,
//! kept in Git and applied by a GitOps engine.
//!
//! `register` does the platform side of every runtime of the fleet file
//! without a cluster connection (agent, runtime environment, signed dind
//! certificate, runtime spec) and writes the secret material into the tree
//! encrypted with SOPS (age); a re-run that finds nothing changed does not
//! contact the platform. `export` writes the rest of the tree, the same
//! bytes for the same fleet file. `retire` removes from the platform what
//! was registered for runtimes the fleet file no longer lists (the engine
//! prunes the cluster side; it cannot reach the platform).

pub mod options;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::app::fleet::options::{
    FleetExportOptions, FleetFiles, FleetRegisterOptions, RegistrationTrust,
};
use crate::app::identity::register;
use crate::app::session::outcome::{Doing, Outcome};
use crate::export::{self, OutFile};
use crate::fleet::tree::{self, Registration, REGISTERED_SECRETS, REGISTRATION_FILE};
use crate::fleet::trust::{self, SealKey};
use crate::fleet::{self, external, sops, Cluster, Fleet, Runtime};
use crate::output;
use crate::platform::{self, Need, Platform, RegisterRuntime};
use crate::render::{self, Identity};
use crate::values::{Problem, Problems, Secret};

/// The largest fleet file read.
const FLEET_FILE_LIMIT: u64 = 4 << 20;

fn bad(key: &str, why: impl Into<String>, fix: impl Into<String>) -> Outcome {
    Outcome::BadInput(Problems(vec![Problem::new(key, None, why, fix)]))
}

fn load(files: &FleetFiles) -> Result<Fleet, Outcome> {
    let text = crate::input_file::read_text(&files.fleet, FLEET_FILE_LIMIT).map_err(|e| {
        bad(
            fleet::FLEET_FLAG,
            format!("could not read {}: {e}", files.fleet.display()),
            "name a readable fleet file",
        )
    })?;
    fleet::parse(&text, &files.fleet.display().to_string()).map_err(Outcome::BadInput)
}

fn export_failed(e: export::ExportError) -> Outcome {
    let fix = e.fix();
    if e.is_refusal() {
        return bad("--output-dir", e.to_string(), fix);
    }
    Outcome::Failed(anyhow::Error::new(e), Some(fix))
}

/// Marks the tree's root as cf-runner's (an empty record), so that its
/// sub-folders are not taken for a user's files.
fn claim_root(dir: &Path, overwrite: bool) -> Result<(), Outcome> {
    export::write_files(dir, &[], overwrite)
        .map(|_| ())
        .map_err(export_failed)
}

fn read(path: &Path) -> Option<String> {
    crate::input_file::read_text(path, 16 << 20).ok()
}

/// A (cluster, namespace) pair: the folder of a registration.
type At = (String, String);

/// The registrations found under `secrets/<cluster>/<namespace>/`, sorted
/// by what cf-runner can tell of them.
#[derive(Default)]
struct Found {
    /// Sealed with the user's key for their folder: cf-runner's own.
    sealed: BTreeMap<At, Registration>,
    /// Without a valid seal: claims, which only the user's explicit word
    /// ([`trust::ACCEPT_FLAG`]) lets cf-runner check and use.
    unsealed: BTreeMap<At, Registration>,
}

impl Found {
    /// The registrations a command may use: the sealed ones, and the
    /// unsealed ones when the user accepted them.
    fn usable(&self, ring: &Keyring) -> BTreeMap<At, Registration> {
        let mut out = self.sealed.clone();
        if ring.accept {
            out.extend(self.unsealed.clone());
        }
        out
    }

    /// The refusals of the unsealed registrations `wanted` picks, unless
    /// the user accepted them.
    fn refusals(&self, dir: &Path, ring: &Keyring, wanted: &dyn Fn(&At) -> bool) -> Vec<Problem> {
        if ring.accept {
            return Vec::new();
        }
        self.unsealed
            .keys()
            .filter(|at| wanted(at))
            .map(|(c, ns)| {
                trust::unsealed_problem(
                    &dir.join(tree::secrets_folder(c, ns))
                        .join(REGISTRATION_FILE),
                    &ring.path,
                    ring.key.is_some(),
                )
            })
            .collect()
    }
}

/// Registrations found under `secrets/<cluster>/<namespace>/`; a file that
/// is not a registration is left out (nothing is done with it).
fn registrations(dir: &Path, key: Option<&SealKey>) -> Found {
    let mut out = Found::default();
    let Ok(clusters) = std::fs::read_dir(dir.join("secrets")) else {
        return out;
    };
    for c in clusters.flatten() {
        let Ok(runtimes) = std::fs::read_dir(c.path()) else {
            continue;
        };
        for r in runtimes.flatten() {
            let Some(reg) = read(&r.path().join(REGISTRATION_FILE))
                .as_deref()
                .and_then(Registration::from_text)
            else {
                continue;
            };
            let at = (
                c.file_name().to_string_lossy().into_owned(),
                r.file_name().to_string_lossy().into_owned(),
            );
            if key.is_some_and(|k| trust::verify(k, &at.0, &at.1, &reg)) {
                out.sealed.insert(at, reg);
            } else {
                out.unsealed.insert(at, reg);
            }
        }
    }
    out
}

/// The registration key, where it is looked for, and whether registrations
/// without its seal are accepted.
struct Keyring {
    path: PathBuf,
    key: Option<SealKey>,
    accept: bool,
}

/// Reads the registration key the flags name (none there is no error:
/// `register` makes one, the others refuse what they cannot check).
fn keyring(args: &RegistrationTrust, tree: &Path) -> Result<Keyring, Outcome> {
    let path = args
        .registration_key_file
        .clone()
        .unwrap_or_else(trust::default_key_path);
    // A key anyone who reads the repository can read seals nothing.
    let trees = trust::git_work_trees(tree);
    if let Some(root) = trust::git_work_trees(&path)
        .into_iter()
        .find(|r| trees.contains(r))
    {
        return Err(bad(
            trust::KEY_FLAG,
            format!(
                "{} is inside the Git work tree {} that also holds the tree: whoever can read the repository \
                 could seal a registration with it",
                path.display(),
                root.display()
            ),
            "keep the key outside every Git work tree (the default is ~/.config/cf-runner/fleet-registration.key)",
        ));
    }
    let key = trust::read_key(&path).map_err(|why| {
        bad(
            trust::KEY_FLAG,
            format!("{}: {why}", path.display()),
            format!(
                "name the key file `cf-runner fleet register` made (or set {})",
                trust::KEY_ENV
            ),
        )
    })?;
    Ok(Keyring {
        path,
        key,
        accept: args.accept_unsigned_registrations,
    })
}

/// `problems` as the outcome, or nothing when there are none.
fn refuse(problems: Vec<Problem>) -> Result<(), Outcome> {
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Outcome::BadInput(Problems(problems)))
    }
}

/// The outcome of a run that stopped after it had changed the platform or
/// the tree (`done` says what): bad input then becomes a failure that says
/// what was done, never "nothing was applied or written".
fn honest(outcome: Outcome, done: &[String]) -> Outcome {
    match outcome {
        Outcome::BadInput(Problems(problems)) if !done.is_empty() => {
            let list: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
            Outcome::Failed(
                anyhow::anyhow!(
                    "{}\nbefore it stopped, this run did: {}",
                    list.join("\n"),
                    done.join("; ")
                ),
                Some(
                    "fix what is named above and re-run; what this run did stays done (an agent it created without \
                     writing its registration must first be removed in Codefresh: Account settings → Runners)"
                        .into(),
                ),
            )
        }
        other => other,
    }
}

/// The registrations an export renders with, after the checks: each sealed
/// (or accepted), and each runner sent to the platform it was registered on.
fn export_registrations(
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

fn sha256_hex(text: &str) -> String {
    let d = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, text.as_bytes());
    d.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

/// The registered Secrets' shape: metadata and keys, every value blanked.
fn secrets_shape(manifests: &[render::Manifest]) -> String {
    let mut shapes = Vec::new();
    for m in manifests {
        if m.kind == "Secret" && REGISTERED_SECRETS.contains(&m.name.as_str()) {
            let mut o = m.object.clone();
            for field in ["data", "stringData"] {
                if let Some(map) = o.get_mut(field).and_then(Value::as_object_mut) {
                    for v in map.values_mut() {
                        *v = json!("");
                    }
                }
            }
            shapes.push(o);
        }
    }
    sha256_hex(&Value::Array(shapes).to_string())
}

/// One run's context: the platform, once (the token checked the first
/// time it is needed), the key registrations are sealed with, and what the
/// run changed so far (on the platform or in the tree).
struct Lazy<'a> {
    args: &'a FleetRegisterOptions,
    client: Option<(Platform, Option<String>)>,
    key: SealKey,
    done: Vec<String>,
}

impl Lazy<'_> {
    async fn get(&mut self) -> Result<&(Platform, Option<String>), Outcome> {
        if self.client.is_none() {
            self.client = Some(connect(self.args, "fleet register").await?);
        }
        Ok(self.client.as_ref().expect("set above"))
    }

    /// Notes a change this run made.
    fn did(&mut self, what: String) {
        self.done.push(what);
    }
}

/// A client of the platform the flags name, its token checked, and the
/// account the token is for.
async fn connect(
    args: &FleetRegisterOptions,
    command: &str,
) -> Result<(Platform, Option<String>), Outcome> {
    let auth = match register::resolve(&args.platform, None) {
        Ok(Some(a)) => a,
        Ok(None) => {
            let why = if command == "fleet retire" {
                "retire the fleet's runtimes"
            } else {
                "register the fleet's runtimes"
            };
            return Err(register::token_needed(command, why, ""));
        }
        Err(e) => return Err(Outcome::from_platform(e, "finding the Codefresh API token")),
    };
    let (platform, who) = register::checked_client(
        &auth,
        register::transport(&args.platform),
        Some(&[Need::Agents, Need::RuntimeEnvironments][..]),
    )
    .await?;
    output::done(&format!(
        "Codefresh platform {}: token from {}",
        platform.url(),
        auth.source
    ));
    Ok((platform, who.account_id))
}

fn failed(why: String, fix: &str) -> Outcome {
    Outcome::Failed(anyhow::anyhow!(why), Some(fix.to_string()))
}

/// The URL of the platform the token is for, when there is a token: read
/// from the flags, `CF_API_KEY` and the cfconfig, without a call.
fn token_platform(args: &FleetRegisterOptions) -> Option<String> {
    register::resolve(&args.platform, None)
        .ok()
        .flatten()
        .map(|a| a.url.trim_end_matches('/').to_string())
}

/// The checks of `register` that need no platform call, over every runtime
/// of the fleet, so that a refusal comes before anything is done.
fn register_preflight(
    fleet: &Fleet,
    args: &FleetRegisterOptions,
    ring: &Keyring,
    found: &Found,
) -> Result<(), Outcome> {
    let dir = &args.files.output_dir;
    let listed: Vec<At> = fleet
        .clusters
        .iter()
        .flat_map(|c| {
            c.runtimes
                .iter()
                .map(|r| (c.name.clone(), r.namespace().to_string()))
        })
        .collect();
    let mut problems = found.refusals(dir, ring, &|at| listed.contains(at));
    let add = |list: Vec<Problem>, problems: &mut Vec<Problem>| {
        for p in list {
            if !problems.iter().any(|q| q.key == p.key) {
                problems.push(p);
            }
        }
    };
    let token = token_platform(args);
    if let Some(url) = &token {
        add(
            trust::host_problems(fleet, url, "the platform of the API token", &|_, _| true),
            &mut problems,
        );
    }
    let usable = found.usable(ring);
    for ((c, ns), reg) in usable.iter().filter(|(at, _)| listed.contains(at)) {
        let Some(registered_on) = &reg.platform else {
            continue;
        };
        let only = |k: &str, n: &str| k == c && n == ns;
        add(
            trust::host_problems(
                fleet,
                registered_on,
                "the platform it was registered on",
                &only,
            ),
            &mut problems,
        );
        if let Some(url) = token
            .as_deref()
            .filter(|u| !crate::platform::auth::same_platform(u, registered_on))
        {
            problems.push(Problem::new(
                "--url",
                Some(&Value::String(url.to_string())),
                format!("is not the platform runtime {ns} of cluster {c} was registered on ({registered_on})"),
                format!("register with a token for {registered_on} (`--url {registered_on}`)"),
            ));
        }
    }
    if fleet.external_secrets.is_none() && args.age_key_file.is_none() {
        for (c, ns) in usable.keys().filter(|at| listed.contains(at)) {
            if let Some(p) = recipients_problem(fleet, &dir.join(tree::secrets_folder(c, ns))) {
                problems.push(p);
            }
        }
    }
    if fleet.external_secrets.is_some() && args.store_material_dir.is_none() {
        if let Some((c, ns)) = listed.iter().find(|at| !usable.contains_key(*at)) {
            problems.push(Problem::new(
                "--store-material-dir",
                None,
                format!(
                    "is needed to register runtime {ns} of cluster {c}: with externalSecrets, its agent token and dind key \
                     are handed to you once, to load into your store"
                ),
                "pass --store-material-dir <folder outside the Git repository>",
            ));
        }
    }
    refuse(problems)
}

/// The SOPS files of a runtime's folder, each with the recipients it is
/// encrypted to.
fn sops_recipients(folder: &Path) -> Vec<(PathBuf, Vec<String>)> {
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
fn stale_recipients(fleet: &Fleet, folder: &Path) -> (Vec<PathBuf>, Vec<String>) {
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
fn recipients_problem(fleet: &Fleet, folder: &Path) -> Option<Problem> {
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

pub(crate) fn register_fleet(args: &FleetRegisterOptions) -> Outcome {
    let fleet = match load(&args.files) {
        Ok(f) => f,
        Err(o) => return o,
    };
    if fleet.age_recipients.is_empty() && fleet.external_secrets.is_none() {
        return bad(
            "sops.ageRecipients",
            "lists no age recipient: the agent tokens and dind keys are written only encrypted",
            "add `sops: {ageRecipients: [age1…]}` with the public key of the age key Flux decrypts with (`age-keygen`), \
             or `externalSecrets:` naming the store your clusters read Secrets from",
        );
    }
    let dir = &args.files.output_dir;
    if let Err(o) = check_material_dir(args) {
        return o;
    }
    let ring = match keyring(&args.trust, dir) {
        Ok(r) => r,
        Err(o) => return o,
    };
    let found = registrations(dir, ring.key.as_ref());
    if let Err(o) = register_preflight(&fleet, args, &ring, &found) {
        return o;
    }
    if let Err(o) = claim_root(dir, false) {
        return o;
    }
    let key = match ensure_key(&ring) {
        Ok(k) => k,
        Err(o) => return o,
    };
    let regs = found.usable(&ring);
    let mut lazy = Lazy {
        args,
        client: None,
        key,
        done: Vec::new(),
    };
    crate::app::session::connect::runtime().block_on(async {
        let (mut unchanged, mut total) = (0, 0);
        for cluster in &fleet.clusters {
            for runtime in &cluster.runtimes {
                let key = (cluster.name.clone(), runtime.namespace().to_string());
                let earlier = regs.get(&key).map(|reg| Earlier {
                    reg,
                    sealed: found.sealed.contains_key(&key),
                });
                total += 1;
                match register_runtime(&fleet, cluster, runtime, earlier, dir, &mut lazy).await {
                    Ok(true) => unchanged += 1,
                    Ok(false) => {}
                    Err(o) => return honest(o, &lazy.done),
                }
            }
        }
        if lazy.client.is_none() && unchanged == total {
            output::done(&format!(
                "all {unchanged} runtimes are registered as the fleet file says; the platform was not contacted"
            ));
        } else if lazy.client.is_none() {
            output::done(&format!(
                "{} of {total} runtimes brought up to date in the tree; the platform was not contacted",
                total - unchanged
            ));
        }
        Outcome::Ok
    })
}

/// The registration key: the one there, or a new one written to its place
/// (said, with what it is for).
fn ensure_key(ring: &Keyring) -> Result<SealKey, Outcome> {
    if let Some(k) = &ring.key {
        return Ok(k.clone());
    }
    let made = trust::new_key().and_then(|k| trust::write_key(&ring.path, &k).map(|()| k));
    let key = made.map_err(|why| {
        failed(
            format!(
                "could not write the registration key {}: {why}",
                ring.path.display()
            ),
            "name a writable place with --registration-key-file",
        )
    })?;
    output::note(&format!(
        "made the registration key {}: it seals what `fleet register` writes to the tree; keep it out of Git, \
         and give it to who registers or retires this fleet ({})",
        ring.path.display(),
        trust::KEY_FLAG
    ));
    Ok(key)
}

/// A registration found in the tree for the runtime being registered.
#[derive(Clone, Copy)]
struct Earlier<'a> {
    reg: &'a Registration,
    /// False for one the user accepted without a seal: it is checked on
    /// the platform, then sealed.
    sealed: bool,
}

/// The file of the tree that carries the registered Secret `secret`.
fn secret_file(fleet: &Fleet, secret: &str) -> String {
    match &fleet.external_secrets {
        Some(_) => external::file_name(secret),
        None => format!("{secret}.sops.yaml"),
    }
}

/// `--store-material-dir` must not be inside the tree, nor anywhere in a
/// Git work tree the tree is in: what it receives is the material in
/// clear, and `git add -A` there would stage it. Links are resolved first.
fn check_material_dir(args: &FleetRegisterOptions) -> Result<(), Outcome> {
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
fn external_files(
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
fn decrypted_material(
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

/// Registers one runtime (or brings its registration up to date). `Ok(true)`
/// when nothing had to change.
async fn register_runtime(
    fleet: &Fleet,
    cluster: &Cluster,
    runtime: &Runtime,
    earlier: Option<Earlier<'_>>,
    dir: &Path,
    lazy: &mut Lazy<'_>,
) -> Result<bool, Outcome> {
    let ns = runtime.namespace();
    let folder = dir.join(tree::secrets_folder(&cluster.name, ns));
    let place = Place {
        fleet,
        cluster,
        runtime,
        what: format!("runtime {ns} of cluster {}", cluster.name),
        files_there: REGISTERED_SECRETS
            .iter()
            .all(|n| folder.join(secret_file(fleet, n)).is_file()),
        folder,
    };
    let at = (cluster.name.as_str(), ns);

    // One the user accepted without a seal is a claim until the platform
    // shows it: then it is sealed, even when nothing else changed.
    let mut accepted = None;
    if let Some(e) = earlier.filter(|e| !e.sealed) {
        let (platform, account) = lazy.get().await?;
        claim_holds(platform, account.as_deref(), at, e.reg)
            .await
            .map_err(|why| claim_refused(&place.folder, why))?;
        let mut reg = e.reg.clone();
        reg.platform
            .get_or_insert_with(|| platform.url().trim_end_matches('/').to_string());
        accepted = Some(reg);
    }
    let earlier = accepted.as_ref().or(earlier.map(|e| e.reg));
    let reseal = accepted.is_some();
    match (&fleet.external_secrets, earlier) {
        // ExternalSecrets hold no material: they are written again from the
        // render whenever they are missing or their Secrets changed shape.
        (Some(store), Some(reg)) => refresh_external(&place, store, reg, reseal, lazy).await,
        (None, Some(reg)) if place.files_there => refresh_sops(&place, reg, reseal, lazy).await,
        _ => register_new(&place, lazy).await,
    }
}

/// One runtime of the fleet, where its registration lives in the tree.
struct Place<'a> {
    fleet: &'a Fleet,
    cluster: &'a Cluster,
    runtime: &'a Runtime,
    /// Its registration's folder.
    folder: PathBuf,
    /// `runtime <namespace> of cluster <name>`, for messages.
    what: String,
    /// Every Secret file of a registration is in the folder.
    files_there: bool,
}

impl Place<'_> {
    fn at(&self) -> (&str, &str) {
        (self.cluster.name.as_str(), self.runtime.namespace())
    }
}

/// A registered runtime whose Secrets come from an external store: the
/// spec sent and the ExternalSecrets written again when they changed.
/// True when nothing changed.
async fn refresh_external(
    place: &Place<'_>,
    store: &crate::fleet::external::Store,
    reg: &Registration,
    reseal: bool,
    lazy: &mut Lazy<'_>,
) -> Result<bool, Outcome> {
    let Place {
        fleet,
        cluster,
        runtime,
        folder,
        what,
        files_there,
    } = place;
    let at = place.at();
    let fail = |e: render::RenderError| Outcome::render_failed(e);
    let id = tree::identity(cluster, Some(reg));
    let rendered = tree::render_runtime(runtime, &id).map_err(fail)?;
    let spec = register::spec_to_send(&rendered.runtime_environment, reg.account_id.as_deref());
    let spec_digest = sha256_hex(&spec.to_string());
    let shape = secrets_shape(&rendered.manifests);
    if !reseal && *files_there && spec_digest == reg.spec_digest && shape == reg.secrets_digest {
        output::done(&format!(
            "{what}: registered as {}, unchanged",
            reg.runtime_name
        ));
        return Ok(true);
    }
    let mut next = reg.clone();
    if spec_digest != reg.spec_digest {
        send_spec(lazy, at, &reg.runtime_name, &spec).await?;
        next.spec_digest = spec_digest;
        output::done(&format!(
            "{what}: runtime spec of {} sent",
            reg.runtime_name
        ));
    }
    next.secrets_digest = shape;
    let (files, _) = external_files(store, cluster, &rendered, false);
    write_registration(fleet, folder, at, &lazy.key, &next, Some(files))?;
    lazy.did(format!("wrote {}", folder.display()));
    Ok(false)
}

/// A registered runtime whose Secrets are in the tree (SOPS): the spec
/// sent, the Secrets encrypted anew when their shape or the recipients
/// changed, the registration sealed. True when nothing changed.
async fn refresh_sops(
    place: &Place<'_>,
    reg: &Registration,
    reseal: bool,
    lazy: &mut Lazy<'_>,
) -> Result<bool, Outcome> {
    let Place {
        fleet,
        cluster,
        runtime,
        folder,
        what,
        ..
    } = place;
    let at = place.at();
    let fail = |e: render::RenderError| Outcome::render_failed(e);
    let id = tree::identity(cluster, Some(reg));
    let rendered = tree::render_runtime(runtime, &id).map_err(fail)?;
    let spec = register::spec_to_send(&rendered.runtime_environment, reg.account_id.as_deref());
    let spec_digest = sha256_hex(&spec.to_string());
    let shape = secrets_shape(&rendered.manifests);
    // Recipients are compared on every run: a key removed from the
    // fleet file (a leaked one) must stop opening the files.
    let (stale, removed) = stale_recipients(fleet, folder);
    if !reseal && stale.is_empty() && spec_digest == reg.spec_digest && shape == reg.secrets_digest
    {
        output::done(&format!(
            "{what}: registered as {}, unchanged",
            reg.runtime_name
        ));
        return Ok(true);
    }
    let mut next = reg.clone();
    let mut secret_files = None;
    if shape != reg.secrets_digest || !stale.is_empty() {
        let (token, ca, cert, key) = decrypted_material(folder, lazy.args)?;
        let id = Identity {
            agent_token: Some(token),
            dind_ca: Some(ca),
            dind_cert: Some(cert),
            dind_key: Some(key),
            ..id
        };
        let full = tree::render_runtime(runtime, &id).map_err(fail)?;
        secret_files = Some(encrypted_files(fleet, &full)?);
        next.secrets_digest = shape;
    }
    if spec_digest != reg.spec_digest {
        send_spec(lazy, at, &reg.runtime_name, &spec).await?;
        next.spec_digest = spec_digest;
        output::done(&format!(
            "{what}: runtime spec of {} sent",
            reg.runtime_name
        ));
    }
    write_registration(fleet, folder, at, &lazy.key, &next, secret_files)?;
    lazy.did(format!("wrote {}", folder.display()));
    if !stale.is_empty() {
        output::done(&format!(
            "{what}: secrets encrypted anew to the recipients of sops.ageRecipients"
        ));
    }
    if !removed.is_empty() {
        output::warn(&format!(
            "{what}: {} could read this runtime's agent token and dind key in earlier commits of the repository; \
             if that key leaked, replace them: remove the runtime from the fleet file, `fleet retire`, then add it back \
             and `fleet register`",
            removed.join(", ")
        ));
    }
    if reseal {
        output::done(&format!(
            "{what}: registration checked on the platform and sealed"
        ));
    }
    Ok(false)
}

/// A runtime the platform does not know yet: its agent, runtime
/// environment and dind certificate, then its files.
async fn register_new(place: &Place<'_>, lazy: &mut Lazy<'_>) -> Result<bool, Outcome> {
    let Place {
        fleet,
        cluster,
        runtime,
        folder,
        what,
        ..
    } = place;
    let ns = runtime.namespace();
    let material_dir = match (&fleet.external_secrets, &lazy.args.store_material_dir) {
        (Some(_), None) => {
            return Err(bad(
                "--store-material-dir",
                format!(
                    "is needed to register {what}: with externalSecrets, its agent token and dind key are handed to you once, \
                     to load into your store"
                ),
                "pass --store-material-dir <folder outside the Git repository>",
            ))
        }
        (Some(_), Some(d)) => Some(d.join(&cluster.name).join(ns)),
        (None, _) => None,
    };
    lazy.get().await?;
    let (platform, account_id) = lazy.client.as_ref().expect("got above");
    let mut made = Vec::new();
    let new = New {
        fleet,
        cluster,
        runtime,
        folder,
        material_dir,
        key: &lazy.key,
    };
    let result = new_registration(&new, platform, account_id, &mut made).await;
    lazy.done.extend(made);
    result
}

/// What a new registration is for and where it goes.
struct New<'a> {
    fleet: &'a Fleet,
    cluster: &'a Cluster,
    runtime: &'a Runtime,
    folder: &'a Path,
    /// With externalSecrets: where the material is handed over.
    material_dir: Option<PathBuf>,
    key: &'a SealKey,
}

/// Registers a runtime the tree has no registration for; `made` gets what
/// was done on the platform and in the tree, as it is done.
async fn new_registration(
    new: &New<'_>,
    platform: &Platform,
    account_id: &Option<String>,
    made: &mut Vec<String>,
) -> Result<bool, Outcome> {
    let New {
        cluster,
        runtime,
        folder,
        ..
    } = *new;
    let values = &runtime.loaded.values;
    let ns = runtime.namespace();
    let what = format!("runtime {ns} of cluster {}", cluster.name);
    let fail = |e: render::RenderError| Outcome::render_failed(e);
    let at = (cluster.name.as_str(), ns);
    let seed = tree::identity(cluster, None);
    let agent_name: String = seed
        .agent_name(values)
        .chars()
        .take(platform::MAX_NAME_LEN)
        .collect();
    let runtime_name: String = seed
        .runtime_name(values)
        .chars()
        .take(platform::MAX_NAME_LEN)
        .collect();
    let doing = |what: &str| format!("{what} for {} ({ns})", cluster.name);
    let (agent, token) = create_agent(platform, &agent_name, folder, &doing).await?;
    output::done(&format!("{what}: agent {agent_name} created"));
    made.push(format!("created agent {agent_name} on the platform"));
    let (ca, cert, key) = crate::app::identity::certificate::sign(platform, ns).await?;
    ensure_runtime_environment(platform, cluster, values, ns, &runtime_name, &doing, made).await?;
    let reg = Registration {
        agent_name: agent_name.clone(),
        runtime_name: runtime_name.clone(),
        account_id: account_id.clone(),
        platform: Some(platform.url().trim_end_matches('/').to_string()),
        ..Default::default()
    };
    let id = Identity {
        agent_token: Some(token),
        dind_ca: Some(ca),
        dind_cert: Some(cert),
        dind_key: Some(key),
        ..tree::identity(cluster, Some(&reg))
    };
    let rendered = tree::render_runtime(runtime, &id).map_err(fail)?;
    let spec = register::spec_to_send(&rendered.runtime_environment, account_id.as_deref());
    platform
        .update_agent(&agent, std::slice::from_ref(&runtime_name))
        .await
        .doing("attaching the runtime environment to the agent")?;
    made.push(format!("attached {runtime_name} to agent {agent_name}"));
    if put_spec(platform, at, &runtime_name, &spec).await? {
        made.push(format!("sent the runtime spec of {runtime_name}"));
    }
    let reg = Registration {
        spec_digest: sha256_hex(&spec.to_string()),
        secrets_digest: secrets_shape(&rendered.manifests),
        ..reg
    };
    write_new(new, &what, &runtime_name, &reg, &rendered, made)
}

/// A new agent for a runtime of the fleet, and its token: refused when
/// the platform has one of that name already (its token is lost).
async fn create_agent(
    platform: &Platform,
    agent_name: &str,
    folder: &Path,
    doing: &dyn Fn(&str) -> String,
) -> Result<(crate::platform::Agent, Secret), Outcome> {
    let existing = platform
        .agents_named(agent_name)
        .await
        .doing(&doing("looking up the agent"))?;
    if !existing.is_empty() {
        return Err(failed(
            format!("agent {agent_name} is on the platform already, but its token is not in {}", folder.display()),
            "remove the agent in Codefresh (Account settings → Runners), or restore the tree's secrets folder from Git, then re-run `cf-runner fleet register`",
        ));
    }
    let mut agent = platform
        .create_agent(agent_name)
        .await
        .doing(&doing("creating the agent"))?;
    let token = agent.token.take().map(Secret::new).ok_or_else(|| {
        failed(
            format!("the platform created agent {agent_name} but sent no token"),
            "delete the agent in Codefresh and re-run",
        )
    })?;
    Ok((agent, token))
}

/// The runtime environment of a new registration: registered unless the
/// platform has it for this cluster and namespace already; refused when
/// it is another's.
async fn ensure_runtime_environment(
    platform: &Platform,
    cluster: &Cluster,
    values: &crate::values::Values,
    ns: &str,
    runtime_name: &str,
    doing: &dyn Fn(&str) -> String,
    made: &mut Vec<String>,
) -> Result<(), Outcome> {
    match platform
        .runtime(runtime_name)
        .await
        .doing(&doing("looking up the runtime environment"))?
    {
        Some(re)
            if re.pointer("/runtimeScheduler/cluster/namespace").and_then(Value::as_str) == Some(ns)
                && re
                    .pointer("/runtimeScheduler/cluster/clusterProvider/selector")
                    .and_then(Value::as_str)
                    == Some(cluster.name.as_str()) => {}
        Some(_) => {
            return Err(failed(
                format!("runtime environment {runtime_name} exists on the platform for another cluster or namespace"),
                "set RuntimeEnvironmentName in the cluster's values to a free name",
            ))
        }
        None => {
            let node_selector: serde_json::Map<String, Value> = values
                .runtime
                .scheduling
                .node_selector
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect();
            platform
                .register_runtime(&RegisterRuntime {
                    cluster_name: cluster.name.clone(),
                    namespace: ns.to_string(),
                    storage_class_name: values.storage.class_name.clone(),
                    service_account: "codefresh-engine".into(),
                    runtime_environment_name: runtime_name.to_string(),
                    agent: true,
                    docker_daemon_scheduler: json!({"userAccess": values.runtime.docker_daemon_access}),
                    node_selector: Value::Object(node_selector),
                })
                .await
                .doing(&doing("registering the runtime environment"))?;
            made.push(format!("registered runtime environment {runtime_name}"));
        }
    }
    Ok(())
}

/// A new registration's files: its Secrets encrypted in the tree (SOPS),
/// or the material handed out for an external store.
fn write_new(
    new: &New<'_>,
    what: &str,
    runtime_name: &str,
    reg: &Registration,
    rendered: &render::Rendered,
    made: &mut Vec<String>,
) -> Result<bool, Outcome> {
    let New {
        fleet,
        cluster,
        runtime,
        folder,
        ..
    } = *new;
    let ns = runtime.namespace();
    let at = (cluster.name.as_str(), ns);
    if let (Some(store), Some(material_dir)) = (&fleet.external_secrets, &new.material_dir) {
        let (files, material) = external_files(store, cluster, rendered, true);
        // The material first: without it the store cannot be filled, and
        // a re-run would find the agent registered.
        export::write_files(material_dir, &material, false).map_err(export_failed)?;
        made.push(format!("wrote the material to {}", material_dir.display()));
        write_registration(fleet, folder, at, new.key, reg, Some(files))?;
        output::done(&format!(
            "{what}: runtime environment {runtime_name} registered; load the Secrets in {} into your store \
             under {}/… (each file names its key), then delete them",
            material_dir.display(),
            store.remote_key(&cluster.name, ns, "")
                .trim_end_matches('/')
        ));
        return Ok(false);
    }
    let secret_files = encrypted_files(fleet, rendered)?;
    write_registration(fleet, folder, at, new.key, reg, Some(secret_files))?;
    output::done(&format!(
        "{what}: runtime environment {runtime_name} registered; its secrets are in {} (encrypted)",
        folder.display()
    ));
    Ok(false)
}

/// Sends `spec` to runtime environment `name` unless the platform holds it
/// already; `true` when it was sent. A runtime environment that runs its
/// builds in another cluster or namespace than `at` is not this
/// registration's: refused before anything is sent.
async fn put_spec(
    platform: &Platform,
    at: (&str, &str),
    name: &str,
    spec: &Value,
) -> Result<bool, Outcome> {
    let current = platform
        .runtime(name)
        .await
        .doing("reading the runtime environment's spec")?;
    if let Some(why) = current.as_ref().and_then(|re| elsewhere(re, at)) {
        return Err(failed(
            format!("runtime environment {name} {why}: cf-runner does not send it the spec of runtime {} of cluster {}", at.1, at.0),
            "check the registration.yaml of that runtime in the tree: restore it from Git, or retire and register the runtime again",
        ));
    }
    register::put_spec(
        platform,
        name,
        spec,
        current.as_ref(),
        "sending the runtime environment's spec",
    )
    .await
}

/// [`put_spec`] for a registered runtime, noted in the run's changes.
async fn send_spec(
    lazy: &mut Lazy<'_>,
    at: (&str, &str),
    name: &str,
    spec: &Value,
) -> Result<(), Outcome> {
    let (platform, _) = lazy.get().await?;
    if put_spec(platform, at, name, spec).await? {
        lazy.did(format!("sent the runtime spec of {name}"));
    }
    Ok(())
}

/// Why runtime environment `re` is not for cluster `at.0`, namespace
/// `at.1`, as the platform shows it; `None` when it is.
fn elsewhere(re: &Value, at: (&str, &str)) -> Option<String> {
    let text = |p: &str| re.pointer(p).and_then(Value::as_str).unwrap_or("(none)");
    let (cluster, ns) = (
        text("/runtimeScheduler/cluster/clusterProvider/selector"),
        text("/runtimeScheduler/cluster/namespace"),
    );
    (cluster != at.0 || ns != at.1)
        .then(|| format!("runs its builds in namespace {ns} of cluster {cluster}"))
}

/// The registered Secrets, each encrypted in its own file.
fn encrypted_files(fleet: &Fleet, rendered: &render::Rendered) -> Result<Vec<OutFile>, Outcome> {
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
fn write_registration(
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

/// The platform's word on a registration found in the tree, for the
/// runtime of cluster `at.0`, namespace `at.1`: its runtime environment (if
/// still there) runs its builds there, in the token's account, and its
/// agent (if still there) serves nothing else. Reads only. Gives the
/// agents to delete and whether the runtime environment is there.
async fn claim_holds(
    platform: &Platform,
    account: Option<&str>,
    at: (&str, &str),
    reg: &Registration,
) -> Result<(Vec<crate::platform::Agent>, bool), String> {
    let runtime = platform
        .runtime(&reg.runtime_name)
        .await
        .map_err(|e| format!("could not be checked on the platform: {e}"))?;
    if let Some(re) = &runtime {
        if let Some(why) = elsewhere(re, at) {
            return Err(format!(
                "names runtime environment {}, which {why}",
                reg.runtime_name
            ));
        }
        let theirs = register::account_of_runtime(re);
        if let (Some(theirs), Some(ours)) = (theirs.as_deref(), account) {
            if theirs != ours {
                return Err(format!(
                    "names runtime environment {}, which belongs to another account than the token's",
                    reg.runtime_name
                ));
            }
        }
    }
    let agents = platform
        .agents_named(&reg.agent_name)
        .await
        .map_err(|e| format!("could not be checked on the platform: {e}"))?;
    for a in &agents {
        let others: Vec<&str> = a
            .runtimes
            .iter()
            .map(String::as_str)
            .filter(|r| *r != reg.runtime_name)
            .collect();
        if !others.is_empty() {
            return Err(format!(
                "names agent {}, which also serves {}: a fleet's agent serves its own runtime only",
                reg.agent_name,
                others.join(", ")
            ));
        }
    }
    Ok((agents, runtime.is_some()))
}

/// The refusal of a registration the platform does not bear out.
fn claim_refused(folder: &Path, why: String) -> Outcome {
    bad(
        &folder.join(REGISTRATION_FILE).display().to_string(),
        format!("{why}; nothing on the platform was changed for it"),
        "this registration is not the fleet's: remove it from the repository (and find out who wrote it)",
    )
}

/// The registrations `retire` acts on, after every check that needs no
/// platform call: sealed (or accepted), for the platform of the token, and
/// with no overlay left for their cluster.
fn retire_preflight(
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
async fn retire_one(
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
