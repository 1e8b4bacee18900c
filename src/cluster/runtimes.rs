//! The cluster side of attached runtimes: the agent's runtimes-file Secret
//! as it is, a runtime namespace's presence, the token Kubernetes fills in
//! for the agent's ServiceAccount there, and the agent's ready replicas.

use std::collections::BTreeMap;
use std::time::Duration;

use base64::Engine;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, Secret as KubeSecret};
use kube::api::Api;
use kube::Client;

use super::secrets::{text_data, wait_for_token};
use super::{ownership, request, KubeError};
use crate::values::Secret;

/// The runtimes-file Secret of an agent, as the cluster holds it.
pub struct ConfigSecret {
    /// True when cf-runner wrote it (for the agent's namespace).
    pub ours: bool,
    /// Key → `*.runtime.yaml` text.
    pub files: BTreeMap<String, String>,
}

/// The Secret `name` in `namespace`, `None` when absent.
pub async fn read_config(
    client: &Client,
    namespace: &str,
    name: &str,
) -> Result<Option<ConfigSecret>, KubeError> {
    let api: Api<KubeSecret> = Api::namespaced(client.clone(), namespace);
    let what = format!("Secret/{name} in namespace {namespace}");
    let Some(secret) = request("reading", &what, api.get_opt(name)).await? else {
        return Ok(None);
    };
    let as_json = serde_json::to_value(&secret).unwrap_or_default();
    let ledger = ownership::Ledger::read(client, namespace).await?;
    Ok(Some(ConfigSecret {
        ours: ownership::is_ours(&as_json, namespace, &ledger),
        files: text_data(secret.data.unwrap_or_default()),
    }))
}

/// True when `namespace` exists.
pub async fn namespace_exists(client: &Client, namespace: &str) -> Result<bool, KubeError> {
    let api: Api<Namespace> = Api::all(client.clone());
    let what = format!("Namespace/{namespace}");
    Ok(request("reading", &what, api.get_opt(namespace))
        .await?
        .is_some())
}

/// The token and CA (PEM) of a ServiceAccount token Secret once
/// Kubernetes has filled it, `None` if it has not within `timeout`.
pub async fn filled_token(
    client: &Client,
    namespace: &str,
    name: &str,
    timeout: Duration,
) -> Result<Option<(Secret, String)>, KubeError> {
    let b64 = base64::engine::general_purpose::STANDARD;
    let Some((token, ca)) = wait_for_token(client, namespace, name, timeout).await? else {
        return Ok(None);
    };
    let text = |v: &str| {
        b64.decode(v)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
    };
    Ok(match (text(&token), text(&ca)) {
        (Some(t), Some(c)) => Some((Secret::new(t), c)),
        _ => None,
    })
}

/// The ready replicas of Deployment `name`, `None` when it is absent.
pub async fn ready_replicas(
    client: &Client,
    namespace: &str,
    name: &str,
) -> Result<Option<i32>, KubeError> {
    let api: Api<Deployment> = Api::namespaced(client.clone(), namespace);
    let what = format!("Deployment/{name} in namespace {namespace}");
    let d = request("reading", &what, api.get_opt(name)).await?;
    Ok(d.map(|d| d.status.and_then(|s| s.ready_replicas).unwrap_or(0)))
}
