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

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::steps::register;
use crate::app::Outcome;
use crate::cli::{FleetCommand, FleetExportArgs, FleetFiles, FleetRegisterArgs};
use crate::export::{self, OutFile};
use crate::fleet::tree::{self, Registration, REGISTERED_SECRETS, REGISTRATION_FILE};
use crate::fleet::{self, external, sops, Cluster, Fleet, Runtime};
use crate::output;
use crate::platform::{self, certs, Need, Platform, RegisterRuntime};
use crate::render::{self, Identity};
use crate::values::{Problem, Problems, Secret};

/// Runs one `fleet` command.
pub fn run(command: &FleetCommand) -> Outcome {
    match command {
        FleetCommand::Export(args) => export_tree(args),
        FleetCommand::Register(args) => register_fleet(args),
        FleetCommand::Retire(args) => retire(args),
    }
}

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

/// Registrations found under `secrets/<cluster>/<namespace>/`.
fn registrations(dir: &Path) -> BTreeMap<(String, String), Registration> {
    let mut out = BTreeMap::new();
    let Ok(clusters) = std::fs::read_dir(dir.join("secrets")) else {
        return out;
    };
    for c in clusters.flatten() {
        let Ok(runtimes) = std::fs::read_dir(c.path()) else {
            continue;
        };
        for r in runtimes.flatten() {
            if let Some(reg) = read(&r.path().join(REGISTRATION_FILE))
                .as_deref()
                .and_then(Registration::from_text)
            {
                out.insert(
                    (
                        c.file_name().to_string_lossy().into_owned(),
                        r.file_name().to_string_lossy().into_owned(),
                    ),
                    reg,
                );
            }
        }
    }
    out
}

fn export_tree(args: &FleetExportArgs) -> Outcome {
    let fleet = match load(&args.files) {
        Ok(f) => f,
        Err(o) => return o,
    };
    let dir = &args.files.output_dir;
    let regs = registrations(dir);
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
    for (folder, list) in &by_folder {
        let at = dir.join(folder);
        changed += list
            .iter()
            .filter(|f| read(&at.join(&f.name)).as_deref() != Some(f.text.as_str()))
            .count();
        if let Err(e) = export::write_files(&at, list, args.overwrite) {
            return export_failed(e);
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
                    output::removed(&format!("overlay {}", path.display()), None)
                }
                Ok(left) => output::warn(&format!(
                    "{} keeps files cf-runner did not write: {}",
                    path.display(),
                    left.join(", ")
                )),
                Err(e) => return export_failed(e),
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

/// The platform, once: the token checked the first time it is needed.
struct Lazy<'a> {
    args: &'a FleetRegisterArgs,
    client: Option<(Platform, Option<String>)>,
}

impl Lazy<'_> {
    async fn get(&mut self) -> Result<&(Platform, Option<String>), Outcome> {
        if self.client.is_none() {
            let auth = match register::resolve(&self.args.platform, None) {
                Ok(Some(a)) => a,
                Ok(None) => {
                    return Err(register::token_needed(
                        "fleet register",
                        "register the fleet's runtimes",
                        "",
                    ))
                }
                Err(e) => return Err(register::failed(e, "finding the Codefresh API token")),
            };
            let (platform, who) = register::checked_client(
                &auth,
                register::transport(&self.args.platform),
                Some(&[Need::Agents, Need::RuntimeEnvironments][..]),
            )
            .await?;
            output::done(&format!(
                "Codefresh platform {}: token from {}",
                platform.url(),
                auth.source
            ));
            self.client = Some((platform, who.account_id));
        }
        Ok(self.client.as_ref().expect("set above"))
    }
}

fn failed(why: String, fix: &str) -> Outcome {
    Outcome::Failed(anyhow::anyhow!(why), Some(fix.to_string()))
}

fn register_fleet(args: &FleetRegisterArgs) -> Outcome {
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
    if let Err(o) = claim_root(dir, false) {
        return o;
    }
    let regs = registrations(dir);
    let mut lazy = Lazy { args, client: None };
    super::steps::session::runtime().block_on(async {
        let mut unchanged = 0;
        for cluster in &fleet.clusters {
            for runtime in &cluster.runtimes {
                let key = (cluster.name.clone(), runtime.namespace().to_string());
                match register_runtime(&fleet, cluster, runtime, regs.get(&key), dir, &mut lazy).await {
                    Ok(true) => unchanged += 1,
                    Ok(false) => {}
                    Err(o) => return o,
                }
            }
        }
        if lazy.client.is_none() {
            output::done(&format!(
                "all {unchanged} runtimes are registered as the fleet file says; the platform was not contacted"
            ));
        }
        Outcome::Ok
    })
}

/// The file of the tree that carries the registered Secret `secret`.
fn secret_file(fleet: &Fleet, secret: &str) -> String {
    match &fleet.external_secrets {
        Some(_) => external::file_name(secret),
        None => format!("{secret}.sops.yaml"),
    }
}

/// `--store-material-dir` must not be inside the tree: what it receives is
/// the material in clear, and the tree goes to Git.
fn check_material_dir(args: &FleetRegisterArgs) -> Result<(), Outcome> {
    let Some(material) = &args.store_material_dir else {
        return Ok(());
    };
    let absolute = |p: &Path| {
        std::path::absolute(p)
            .map(|a| a.components().collect::<PathBuf>())
            .unwrap_or_else(|_| p.to_path_buf())
    };
    let (m, tree) = (absolute(material), absolute(&args.files.output_dir));
    if m.starts_with(&tree) || tree.starts_with(&m) {
        return Err(bad(
            "--store-material-dir",
            format!(
                "{} overlaps the tree {}: the agent tokens and dind keys written there are in clear and must never reach Git",
                material.display(),
                args.files.output_dir.display()
            ),
            "name a folder outside the Git repository, e.g. a private temporary folder",
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
    args: &FleetRegisterArgs,
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
    earlier: Option<&Registration>,
    dir: &Path,
    lazy: &mut Lazy<'_>,
) -> Result<bool, Outcome> {
    let values = &runtime.loaded.values;
    let ns = runtime.namespace();
    let folder = dir.join(tree::secrets_folder(&cluster.name, ns));
    let what = format!("runtime {ns} of cluster {}", cluster.name);
    let files_there = REGISTERED_SECRETS
        .iter()
        .all(|n| folder.join(secret_file(fleet, n)).is_file());
    let fail = |e: render::RenderError| Outcome::render_failed(e);

    // ExternalSecrets hold no material: they are written again from the
    // render whenever they are missing or their Secrets changed shape.
    if let (Some(store), Some(reg)) = (&fleet.external_secrets, earlier) {
        let id = tree::identity(cluster, Some(reg));
        let rendered = tree::render_runtime(runtime, &id).map_err(fail)?;
        let spec = register::spec_to_send(&rendered.runtime_environment, reg.account_id.as_deref());
        let spec_digest = sha256_hex(&spec.to_string());
        let shape = secrets_shape(&rendered.manifests);
        if files_there && spec_digest == reg.spec_digest && shape == reg.secrets_digest {
            output::done(&format!(
                "{what}: registered as {}, unchanged",
                reg.runtime_name
            ));
            return Ok(true);
        }
        let mut next = reg.clone();
        if spec_digest != reg.spec_digest {
            let (platform, _) = lazy.get().await?;
            put_spec(platform, &reg.runtime_name, &spec).await?;
            next.spec_digest = spec_digest;
            output::done(&format!(
                "{what}: runtime spec of {} sent",
                reg.runtime_name
            ));
        }
        next.secrets_digest = shape;
        let (files, _) = external_files(store, cluster, &rendered, false);
        write_registration(fleet, &folder, &next, Some(files))?;
        return Ok(false);
    }

    if let Some(reg) = earlier.filter(|_| files_there) {
        let id = tree::identity(cluster, Some(reg));
        let rendered = tree::render_runtime(runtime, &id).map_err(fail)?;
        let spec = register::spec_to_send(&rendered.runtime_environment, reg.account_id.as_deref());
        let spec_digest = sha256_hex(&spec.to_string());
        let shape = secrets_shape(&rendered.manifests);
        if spec_digest == reg.spec_digest && shape == reg.secrets_digest {
            output::done(&format!(
                "{what}: registered as {}, unchanged",
                reg.runtime_name
            ));
            return Ok(true);
        }
        let mut next = reg.clone();
        let mut secret_files = None;
        if shape != reg.secrets_digest {
            let (token, ca, cert, key) = decrypted_material(&folder, lazy.args)?;
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
            let (platform, _) = lazy.get().await?;
            put_spec(platform, &reg.runtime_name, &spec).await?;
            next.spec_digest = spec_digest;
            output::done(&format!(
                "{what}: runtime spec of {} sent",
                reg.runtime_name
            ));
        }
        write_registration(fleet, &folder, &next, secret_files)?;
        return Ok(false);
    }

    // A new registration.
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
    let (platform, account_id) = lazy.get().await?;
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
    let existing = platform
        .agents_named(&agent_name)
        .await
        .map_err(|e| register::failed(e, &doing("looking up the agent")))?;
    if !existing.is_empty() {
        return Err(failed(
            format!("agent {agent_name} is on the platform already, but its token is not in {}", folder.display()),
            "remove the agent in Codefresh (Account settings → Runners), or restore the tree's secrets folder from Git, then re-run `cf-runner fleet register`",
        ));
    }
    let mut agent = platform
        .create_agent(&agent_name)
        .await
        .map_err(|e| register::failed(e, &doing("creating the agent")))?;
    let token = agent.token.take().map(Secret::new).ok_or_else(|| {
        failed(
            format!("the platform created agent {agent_name} but sent no token"),
            "delete the agent in Codefresh and re-run",
        )
    })?;
    output::done(&format!("{what}: agent {agent_name} created"));
    let generated = certs::generate(ns)
        .map_err(|e| register::failed(e, "preparing the dind TLS certificate"))?;
    let (ca, cert) = platform
        .sign_server_certs(&generated.csr_pem, &certs::subject_alt_names(ns))
        .await
        .map_err(|e| register::failed(e, "having the platform sign the dind certificate"))?;
    match platform
        .runtime(&runtime_name)
        .await
        .map_err(|e| register::failed(e, &doing("looking up the runtime environment")))?
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
                    runtime_environment_name: runtime_name.clone(),
                    agent: true,
                    docker_daemon_scheduler: json!({"userAccess": values.runtime.docker_daemon_access}),
                    node_selector: Value::Object(node_selector),
                })
                .await
                .map_err(|e| register::failed(e, &doing("registering the runtime environment")))?;
        }
    }
    let reg = Registration {
        agent_name: agent_name.clone(),
        runtime_name: runtime_name.clone(),
        account_id: account_id.clone(),
        ..Default::default()
    };
    let id = Identity {
        agent_token: Some(token),
        dind_ca: Some(Secret::new(ca)),
        dind_cert: Some(Secret::new(cert)),
        dind_key: Some(generated.key_pem),
        ..tree::identity(cluster, Some(&reg))
    };
    let rendered = tree::render_runtime(runtime, &id).map_err(fail)?;
    let spec = register::spec_to_send(&rendered.runtime_environment, account_id.as_deref());
    platform
        .update_agent(&agent, std::slice::from_ref(&runtime_name))
        .await
        .map_err(|e| register::failed(e, "attaching the runtime environment to the agent"))?;
    put_spec(platform, &runtime_name, &spec).await?;
    let reg = Registration {
        spec_digest: sha256_hex(&spec.to_string()),
        secrets_digest: secrets_shape(&rendered.manifests),
        ..reg
    };
    if let (Some(store), Some(material_dir)) = (&fleet.external_secrets, material_dir) {
        let (files, material) = external_files(store, cluster, &rendered, true);
        // The material first: without it the store cannot be filled, and
        // a re-run would find the agent registered.
        export::write_files(&material_dir, &material, false).map_err(export_failed)?;
        write_registration(fleet, &folder, &reg, Some(files))?;
        output::done(&format!(
            "{what}: runtime environment {runtime_name} registered; load the Secrets in {} into your store \
             under {}/… (each file names its key), then delete them",
            material_dir.display(),
            store.remote_key(&cluster.name, ns, "")
                .trim_end_matches('/')
        ));
        return Ok(false);
    }
    let secret_files = encrypted_files(fleet, &rendered)?;
    write_registration(fleet, &folder, &reg, Some(secret_files))?;
    output::done(&format!(
        "{what}: runtime environment {runtime_name} registered; its secrets are in {} (encrypted)",
        folder.display()
    ));
    Ok(false)
}

async fn put_spec(platform: &Platform, name: &str, spec: &Value) -> Result<(), Outcome> {
    let current = platform
        .runtime(name)
        .await
        .map_err(|e| register::failed(e, "reading the runtime environment's spec"))?;
    if current.is_none_or(|c| !register::spec_differences(spec, &c).is_empty()) {
        platform
            .put_runtime(name, spec)
            .await
            .map_err(|e| register::failed(e, "sending the runtime environment's spec"))?;
    }
    Ok(())
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
    reg: &Registration,
    secrets: Option<Vec<OutFile>>,
) -> Result<(), Outcome> {
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

fn retire(args: &FleetRegisterArgs) -> Outcome {
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
    let listed = |c: &str, ns: &str| {
        fleet
            .clusters
            .iter()
            .any(|k| k.name == c && k.runtimes.iter().any(|r| r.namespace() == ns))
    };
    let gone: Vec<((String, String), Registration)> = registrations(dir)
        .into_iter()
        .filter(|((c, ns), _)| !listed(c, ns))
        .collect();
    if gone.is_empty() {
        output::done(
            "every runtime registered in the tree is in the fleet file: nothing to retire",
        );
        return Outcome::Ok;
    }
    for ((c, _), _) in &gone {
        let overlay = dir.join("clusters").join(c);
        if !fleet.clusters.iter().any(|k| &k.name == c) && overlay.exists() {
            return bad(
                "--output-dir",
                format!("{} still holds cluster {c}'s overlay: its runner would lose its agent while it still runs", overlay.display()),
                "run `cf-runner fleet export` first, commit, and let the engine prune the cluster; then retire",
            );
        }
    }
    let mut lazy = Lazy { args, client: None };
    super::steps::session::runtime().block_on(async {
        for ((c, ns), reg) in &gone {
            let (platform, _) = match lazy.get().await {
                Ok(p) => p,
                Err(o) => return o,
            };
            if let Err(e) = register::clean_up(platform, Some(&reg.agent_name), &[], Some(&reg.runtime_name), c).await {
                return register::failed(e, &format!("retiring runtime {ns} of cluster {c}"));
            }
            let folder = dir.join(tree::secrets_folder(c, ns));
            match export::remove_files(&folder) {
                Ok(left) if left.is_empty() => {}
                Ok(left) => output::warn(&format!("{} keeps files cf-runner did not write: {}", folder.display(), left.join(", "))),
                Err(e) => return export_failed(e),
            }
            let _ = std::fs::remove_dir(dir.join("secrets").join(c));
            output::done(&format!("runtime {ns} of cluster {c} retired: agent {} and runtime environment {} removed from the platform", reg.agent_name, reg.runtime_name));
        }
        Outcome::Ok
    })
}
