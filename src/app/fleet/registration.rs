//! A new registration on the platform: the agent and its token, the
//! runtime environment, the dind certificate, the spec, then the files.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::app::fleet::common::{
    elsewhere, export_failed, failed, secrets_shape, sha256_hex, Lazy,
};
use crate::app::fleet::files::{encrypted_files, external_files, write_registration};
use crate::app::identity::register;
use crate::app::session::outcome::{Doing, Outcome};
use crate::export;
use crate::fleet::tree::{self, Registration};
use crate::fleet::trust::SealKey;
use crate::fleet::{Cluster, Fleet, Runtime};
use crate::output;
use crate::platform::{self, Platform};
use crate::render::{self, Identity};
use crate::values::Secret;

/// What a new registration is for and where it goes.
pub(crate) struct New<'a> {
    pub(crate) fleet: &'a Fleet,
    pub(crate) cluster: &'a Cluster,
    pub(crate) runtime: &'a Runtime,
    pub(crate) folder: &'a Path,
    /// With externalSecrets: where the material is handed over.
    pub(crate) material_dir: Option<PathBuf>,
    pub(crate) key: &'a SealKey,
}

/// Registers a runtime the tree has no registration for; `made` gets what
/// was done on the platform and in the tree, as it is done.
pub(crate) async fn new_registration(
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
pub(crate) async fn create_agent(
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
pub(crate) async fn ensure_runtime_environment(
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
            platform
                .register_runtime(&register::registration(values, &cluster.name, runtime_name))
                .await
                .doing(&doing("registering the runtime environment"))?;
            made.push(format!("registered runtime environment {runtime_name}"));
        }
    }
    Ok(())
}

/// A new registration's files: its Secrets encrypted in the tree (SOPS),
/// or the material handed out for an external store.
pub(crate) fn write_new(
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
pub(crate) async fn put_spec(
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
pub(crate) async fn send_spec(
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
