//! A runtime's side of the agent that serves it, shared by attach, detach,
//! a runtime's delete, upgrade and rotation: the agent's access objects in
//! its namespace, the runtime's own objects, its runtime environment on
//! the platform, and their removal.

use std::time::Duration;

use serde_json::Value;

use crate::app::identity::register;
use crate::app::runtimes::target::{
    AgentState, OnPlatform, Resolved, RuntimeRender, IN_CLUSTER_HOST,
};
use crate::app::session::converge;
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster::inventory::{self, LiveObject};
use crate::cluster::runtimes as live;
use crate::output;
use crate::platform::Platform;
use crate::render::runtimes::{access_manifests, RuntimeAccess, ACCESS_NAME, ACCESS_TOKEN_SECRET};
use crate::render::{Component, Manifest, LABEL_COMPONENT};

/// Makes the agent's credentials in one runtime namespace (0 writes when
/// they are there) and reads its token once Kubernetes has filled it.
pub(crate) async fn ensure_access(
    r: &Resolved,
    extra: Vec<Manifest>,
    timeout: Duration,
    command: &str,
) -> Result<RuntimeAccess, Outcome> {
    match live::namespace_exists(&r.cluster.client, &r.namespace).await {
        Ok(true) => {}
        Ok(false) => {
            output::error(
                &anyhow::anyhow!(
                    "namespace {} does not exist in context {}",
                    r.namespace,
                    r.cluster.context
                ),
                Some("create it (kubectl create namespace ...) or name another with --kube-namespace"),
            );
            return Err(Outcome::PreflightFailed);
        }
        Err(e) => {
            return Err(Outcome::from_cluster(
                e,
                "reading the runtime's namespace failed",
            ))
        }
    }
    let mut manifests = access_manifests(&r.namespace);
    manifests.extend(extra);
    converge::apply_with_progress(&r.cluster, &manifests, &r.namespace, false, command).await?;
    let wait = timeout.min(Duration::from_secs(60));
    let shown = output::waiting(&format!(
        "waiting up to {}s for Kubernetes to fill the token of Secret {ACCESS_TOKEN_SECRET} in namespace {} (context {})",
        wait.as_secs(),
        r.namespace,
        r.cluster.context
    ));
    let token =
        live::filled_token(&r.cluster.client, &r.namespace, ACCESS_TOKEN_SECRET, wait).await;
    drop(shown);
    let (token, ca_pem) = match token {
        Ok(Some(t)) => t,
        Ok(None) => {
            return Err(Outcome::Failed(
                anyhow::anyhow!(
                    "Kubernetes did not fill the token of Secret {ACCESS_TOKEN_SECRET} in namespace {} within {}s",
                    r.namespace,
                    wait.as_secs()
                ),
                Some(
                    "the cluster's token controller (kube-controller-manager) fills it: check that it runs, then re-run"
                        .into(),
                ),
            ))
        }
        Err(e) => return Err(Outcome::from_cluster(e, "reading the runtime's token failed")),
    };
    let host = r.target.kube_host.clone().unwrap_or_else(|| {
        if r.same_cluster {
            IN_CLUSTER_HOST.to_string()
        } else {
            r.cluster.server.trim_end_matches('/').to_string()
        }
    });
    Ok(RuntimeAccess {
        name: r.name.clone(),
        host,
        token,
        ca_pem,
    })
}

/// The agent's values for a runtime: its namespace and cluster, and its
/// own node selector, tolerations and storage where it gives them.
pub(crate) fn runtime_values(state: &AgentState, r: &Resolved) -> crate::values::Values {
    let mut values = state.values.clone();
    // The runtime's own objects are rendered, whatever the agent's install.
    values.agent_only = false;
    values.namespace = r.namespace.clone();
    values.context = Some(r.cluster.context.clone());
    let own = &r.target.settings;
    if let Some(selector) = &own.node_selector {
        values.runtime.scheduling.node_selector = selector.clone();
    }
    if let Some(tolerations) = &own.tolerations {
        values.runtime.scheduling.tolerations = tolerations.clone();
    }
    if let Some(storage) = &own.storage {
        values.storage = storage.clone();
    }
    values
}

/// The runtime's own objects in its namespace, rendered from the agent's
/// values for that namespace with the runtime's own settings: the engine's
/// ServiceAccount and Role, the dind TLS Secret, daemon config and Service
/// (what a build's pods mount and run as), and its storage when it has its
/// own. The dind certificate names the runtime's namespace: the one there
/// is kept, else the platform signs a new one (the key never leaves).
pub(crate) async fn runtime_objects(
    state: &AgentState,
    r: &Resolved,
    platform: &Platform,
    account_id: &str,
) -> Result<RuntimeRender, Outcome> {
    let values = runtime_values(state, r);
    let mut identity = state.identity.clone();
    identity.account_id = Some(account_id.to_string());
    identity.context = Some(r.cluster.context.clone());
    identity.runtime_name = Some(r.name.clone());
    let held = crate::cluster::secrets::read_text(
        &r.cluster.client,
        &r.namespace,
        crate::render::DIND_CERTS_SECRET,
    )
    .await
    .doing("reading the runtime's dind certificate failed")?
    .unwrap_or_default();
    let (ca, cert, key) = match (
        held.get("ca.pem"),
        held.get("server-cert.pem"),
        held.get("server-key.pem"),
    ) {
        (Some(ca), Some(cert), Some(key)) if !ca.is_empty() && !key.is_empty() => (
            crate::values::Secret::new(ca.clone()),
            crate::values::Secret::new(cert.clone()),
            crate::values::Secret::new(key.clone()),
        ),
        _ => crate::app::identity::certificate::sign(platform, &r.namespace).await?,
    };
    identity.dind_ca = Some(ca);
    identity.dind_cert = Some(cert);
    identity.dind_key = Some(key);
    let rendered = crate::render::render(&values, &identity, &state.record_tree)
        .map_err(Outcome::render_failed)?;
    let own_storage = r.target.settings.storage.is_some();
    let manifests = rendered
        .manifests
        .into_iter()
        .filter(|m| {
            (m.component == Component::Runtime && m.namespace.is_some())
                || (own_storage && m.component == Component::VolumeProvisioner)
        })
        .collect();
    Ok(RuntimeRender {
        manifests,
        spec: register::spec_to_send(&rendered.runtime_environment, Some(account_id)),
    })
}

/// The account the runtimes belong to: the agent's own runtime names it
/// (the record does not keep it), else the platform says whose the token is.
pub(crate) async fn account_of(platform: &Platform, state: &AgentState) -> Result<String, Outcome> {
    if let Some(own) = &state.own_runtime {
        let own = platform
            .runtime(own)
            .await
            .doing("reading the agent's runtime environment")?;
        if let Some(account) = own.as_ref().and_then(register::account_of_runtime) {
            return Ok(account);
        }
    }
    let who = platform
        .whoami()
        .await
        .doing("checking the Codefresh API token")?;
    who.account_id.ok_or_else(|| {
        Outcome::failed(
            anyhow::anyhow!(
                "the platform did not say which account the token is for (GET /api/user was refused, and {} names none)",
                match &state.own_runtime {
                    Some(own) => format!("runtime environment {own}"),
                    None => "no runtime of the agent's".to_string(),
                }
            ),
            Some("use an API key that may read the user (GET /api/user), then re-run".into()),
        )
    })
}

/// Where runtime environment `re` (the platform's, `None` when it has none)
/// sends `r`'s builds: the one check of `runtime attach` and `runtime upgrade`.
/// One registered for another namespace or cluster name is left as it is
/// (said in a note), or refused (exit 3, before any write, `fix` said) when
/// the run gives the runtime settings of its own, which live in that spec:
/// cf-runner does not change the spec of a runtime it did not register.
pub(crate) fn on_platform(
    r: &Resolved,
    re: Option<&Value>,
    fix: &str,
) -> Result<OnPlatform, Outcome> {
    let Some(re) = re else {
        return Ok(OnPlatform::Missing);
    };
    if register::runs_in(re, &r.namespace, &r.cluster.context) {
        return Ok(OnPlatform::Ours);
    }
    let place = |p: &str| {
        re.pointer(p)
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string()
    };
    let (ns, ctx) = (
        place("/runtimeScheduler/cluster/namespace"),
        place("/runtimeScheduler/cluster/clusterProvider/selector"),
    );
    if !r.target.settings.is_empty() {
        output::error(
            &anyhow::anyhow!(
                "runtime environment {} on the Codefresh platform runs builds in namespace {ns} of cluster {ctx}, not in namespace {} of {}: cf-runner does not change the spec of a runtime it did not register",
                r.name, r.namespace, r.cluster.context
            ),
            Some(fix),
        );
        return Err(Outcome::PreflightFailed);
    }
    output::note(&format!(
        "runtime environment {} is registered for namespace {ns} of cluster {ctx}; its spec is left as it is",
        r.name
    ));
    Ok(OnPlatform::Elsewhere)
}

/// Registers a missing runtime environment as `init` does, then sends its
/// spec when the platform's differs (a runtime registered for elsewhere is
/// left as it is).
pub(crate) async fn register_runtime(
    platform: &Platform,
    state: &AgentState,
    r: &Resolved,
    found: &OnPlatform,
    spec: &Value,
) -> Result<(), Outcome> {
    match found {
        OnPlatform::Elsewhere => return Ok(()),
        OnPlatform::Missing => {
            let request =
                register::registration(&runtime_values(state, r), &r.cluster.context, &r.name);
            platform
                .register_runtime(&request)
                .await
                .doing("registering the runtime environment")?;
            output::applied("created", &format!("runtime environment {}", r.name), None);
        }
        OnPlatform::Ours => {}
    }
    if register::send_spec(platform, &r.name, spec).await? {
        output::applied(
            "configured",
            &format!("runtime environment {}'s spec", r.name),
            None,
        );
    }
    Ok(())
}

/// True for the names of the agent's credentials in a runtime namespace:
/// the access ServiceAccount, Role and RoleBinding and its token Secret, and
/// the bridge a stopped `runtime rotate` may have left (a live token too).
pub(crate) fn is_access_credential(name: &str) -> bool {
    [
        ACCESS_NAME,
        ACCESS_TOKEN_SECRET,
        crate::render::runtimes::BRIDGE,
        crate::render::runtimes::BRIDGE_TOKEN_SECRET,
    ]
    .contains(&name)
}

/// Removes the agent's credentials from the runtime's namespace: only the
/// objects cf-runner labelled as such.
pub(crate) async fn remove_access(r: &Resolved, timeout: Duration) -> Result<(), Outcome> {
    let listed = inventory::labelled(&r.cluster.client, &r.namespace)
        .await
        .doing("listing the agent's credentials in the runtime's namespace failed")?;
    let ours: Vec<LiveObject> = listed
        .into_iter()
        .filter(|o| o.label(LABEL_COMPONENT) == Some(Component::RuntimeAccess.as_str()))
        .filter(|o| is_access_credential(&o.name))
        .collect();
    if ours.is_empty() {
        return Ok(());
    }
    converge::delete_with_progress(&r.cluster, ours, timeout).await
}
