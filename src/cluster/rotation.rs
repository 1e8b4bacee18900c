//! The pending agent-token rotation, as an annotation of the installation
//! record: written before the platform is asked for a new agent, removed
//! once the old one is gone, so a run that stopped half-way is finished by
//! the next instead of starting another. A merge patch of its own field
//! manager: `upgrade`'s server-side apply of the record neither owns nor
//! removes it.

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, Patch, PatchParams};
use kube::Client;

use super::{request, KubeError};

/// The annotation of the record Secret holding the pending rotation (JSON).
pub const ROTATION_ANNOTATION: &str = "cf-runner.codefresh.io/agent-rotation";
/// Field manager of that annotation, apart from the applied fields.
pub const ROTATION_FIELD_MANAGER: &str = "cf-runner-rotation";

/// The pending rotation recorded on Secret `record` in `namespace`, if any.
pub async fn pending(
    client: &Client,
    namespace: &str,
    record: &str,
) -> Result<Option<String>, KubeError> {
    let api: Api<Secret> = Api::namespaced(client.clone(), namespace);
    let what = format!("Secret/{record} in namespace {namespace}");
    let secret = request("reading", &what, api.get_metadata_opt(record)).await?;
    Ok(secret
        .and_then(|s| s.metadata.annotations)
        .and_then(|mut a| a.remove(ROTATION_ANNOTATION)))
}

/// Records the pending rotation `value` on Secret `record`, or removes it
/// (`None`).
pub async fn set_pending(
    client: &Client,
    namespace: &str,
    record: &str,
    value: Option<&str>,
) -> Result<(), KubeError> {
    let api: Api<Secret> = Api::namespaced(client.clone(), namespace);
    let what = format!("Secret/{record} in namespace {namespace}");
    let patch = serde_json::json!({"metadata": {"annotations": {ROTATION_ANNOTATION: value}}});
    let params = PatchParams {
        field_manager: Some(ROTATION_FIELD_MANAGER.into()),
        ..PatchParams::default()
    };
    request(
        "annotating",
        &what,
        api.patch(record, &params, &Patch::Merge(&patch)),
    )
    .await
    .map(|_| ())
}

/// The value of env variable `variable` of the first container of
/// Deployment `name`, as the live object writes it (`None` when the
/// Deployment, the variable or a literal value is missing).
pub async fn deployment_env(
    client: &Client,
    namespace: &str,
    name: &str,
    variable: &str,
) -> Result<Option<String>, KubeError> {
    let api: Api<Deployment> = Api::namespaced(client.clone(), namespace);
    let what = format!("Deployment/{name} in namespace {namespace}");
    let d = request("reading", &what, api.get_opt(name)).await?;
    Ok(d.and_then(|d| d.spec)
        .and_then(|s| s.template.spec)
        .and_then(|p| p.containers.into_iter().next())
        .and_then(|c| c.env)
        .and_then(|env| env.into_iter().find(|e| e.name == variable))
        .and_then(|e| e.value))
}
