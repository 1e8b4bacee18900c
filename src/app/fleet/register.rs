//! `fleet register`: every runtime of the fleet file registered on the
//! platform, or its registration refreshed (the spec, the Secrets' shape,
//! the recipients, the seal); a re-run that finds nothing changed does not
//! contact the platform.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::app::fleet::common::{
    bad, claim_holds, claim_refused, claim_root, failed, honest, keyring, load, refuse,
    registrations, secret_file, secrets_shape, sha256_hex, token_platform, At, Earlier, Found,
    Keyring, Lazy,
};
use crate::app::fleet::files::{
    check_material_dir, decrypted_material, encrypted_files, external_files, recipients_problem,
    stale_recipients, write_registration,
};
use crate::app::fleet::options::FleetRegisterOptions;
use crate::app::fleet::registration::{new_registration, send_spec, New};
use crate::app::identity::register;
use crate::app::session::outcome::Outcome;
use crate::fleet::tree::{self, Registration, REGISTERED_SECRETS};
use crate::fleet::trust::{self, SealKey};
use crate::fleet::{Cluster, Fleet, Runtime};
use crate::output;
use crate::render::{self, Identity};
use crate::values::Problem;

/// The checks of `register` that need no platform call, over every runtime
/// of the fleet, so that a refusal comes before anything is done.
pub(crate) fn register_preflight(
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
pub(crate) fn ensure_key(ring: &Keyring) -> Result<SealKey, Outcome> {
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

/// Registers one runtime (or brings its registration up to date). `Ok(true)`
/// when nothing had to change.
pub(crate) async fn register_runtime(
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
pub(crate) struct Place<'a> {
    pub(crate) fleet: &'a Fleet,
    pub(crate) cluster: &'a Cluster,
    pub(crate) runtime: &'a Runtime,
    /// Its registration's folder.
    pub(crate) folder: PathBuf,
    /// `runtime <namespace> of cluster <name>`, for messages.
    pub(crate) what: String,
    /// Every Secret file of a registration is in the folder.
    pub(crate) files_there: bool,
}

impl Place<'_> {
    pub(crate) fn at(&self) -> (&str, &str) {
        (self.cluster.name.as_str(), self.runtime.namespace())
    }
}

/// A registered runtime whose Secrets come from an external store: the
/// spec sent and the ExternalSecrets written again when they changed.
/// True when nothing changed.
pub(crate) async fn refresh_external(
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
pub(crate) async fn refresh_sops(
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
pub(crate) async fn register_new(place: &Place<'_>, lazy: &mut Lazy<'_>) -> Result<bool, Outcome> {
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
