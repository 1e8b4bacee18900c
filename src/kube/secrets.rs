//! Reading what an earlier install left in the cluster (the agent token, the
//! dind certificates, the values record), so a re-run picks it up instead of
//! creating anything twice — the cluster is the install's only state.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use base64::Engine;
use k8s_openapi::api::core::v1::Secret;
use kube::api::Api;
use kube::Client;

use super::{request, KubeError};

/// A Secret's data as text (non-UTF-8 values are skipped), or `None` when
/// the Secret (or its namespace) does not exist.
pub async fn read_text(
    client: &Client,
    namespace: &str,
    name: &str,
) -> Result<Option<BTreeMap<String, String>>, KubeError> {
    let api: Api<Secret> = Api::namespaced(client.clone(), namespace);
    let secret = request("reading", &format!("Secret/{name}"), api.get_opt(name)).await?;
    Ok(secret.map(|s| {
        s.data
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(k, v)| String::from_utf8(v.0).ok().map(|t| (k, t)))
            .collect()
    }))
}

/// Waits until Kubernetes has filled a ServiceAccount token Secret, and
/// returns its `token` and `ca.crt`, base64-encoded.
pub async fn wait_for_token(
    client: &Client,
    namespace: &str,
    name: &str,
    timeout: Duration,
) -> Result<Option<(String, String)>, KubeError> {
    let deadline = Instant::now() + timeout;
    let b64 = base64::engine::general_purpose::STANDARD;
    loop {
        let api: Api<Secret> = Api::namespaced(client.clone(), namespace);
        let secret = request("reading", &format!("Secret/{name}"), api.get_opt(name)).await?;
        if let Some(data) = secret.and_then(|s| s.data) {
            if let (Some(token), Some(ca)) = (data.get("token"), data.get("ca.crt")) {
                if !token.0.is_empty() {
                    return Ok(Some((b64.encode(&token.0), b64.encode(&ca.0))));
                }
            }
        }
        if Instant::now() >= deadline {
            return Ok(None);
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}
