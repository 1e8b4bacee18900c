//! The reads a support bundle makes, and only reads: the pods, events,
//! Secrets (their names, keys and sizes, never their values), volumes,
//! StorageClasses and nodes around one installation, and the pods' logs.
//! Each read stands alone, so a bundle taken from a partly broken API
//! server keeps what answered and names what did not.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Pod, Secret};
use kube::api::{Api, ListParams, LogParams};
use kube::Client;
use serde::Serialize;
use serde_json::Value;

use super::{api_for, request, KubeError};

/// Every object of a kind, in a namespace or cluster-wide, as JSON, with
/// `managedFields` dropped (noise in a bundle). Not for Secrets: see
/// [`secret_summaries`].
pub async fn list(
    client: &Client,
    api_version: &str,
    kind: &str,
    namespace: Option<&str>,
) -> Result<Vec<Value>, KubeError> {
    debug_assert_ne!(
        kind, "Secret",
        "Secret payloads are never listed for a bundle"
    );
    let api = api_for(client, api_version, kind, namespace);
    let plural = if kind.ends_with('s') {
        format!("{kind}es")
    } else {
        format!("{kind}s")
    };
    let what = match namespace {
        Some(ns) => format!("{plural} in namespace {ns}"),
        None => plural,
    };
    let items = request("listing", &what, api.list(&ListParams::default())).await?;
    Ok(items
        .items
        .iter()
        .map(|item| {
            let mut object = serde_json::to_value(item).unwrap_or(Value::Null);
            if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
                meta.remove("managedFields");
            }
            object
        })
        .collect())
}

/// What a bundle shows of a Secret: never a value.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct SecretSummary {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    /// Each key with the size of its value in bytes.
    pub keys: BTreeMap<String, usize>,
    pub labels: BTreeMap<String, String>,
}

/// The Secrets of `namespace`, as names, keys and sizes. The values are
/// read (the API has no way to list keys without them) and dropped here,
/// before anything leaves this function; annotations are not kept at all
/// (`kubectl apply` copies the whole Secret into one).
pub async fn secret_summaries(
    client: &Client,
    namespace: &str,
) -> Result<Vec<SecretSummary>, KubeError> {
    let api: Api<Secret> = Api::namespaced(client.clone(), namespace);
    let what = format!("Secrets in namespace {namespace}");
    let list = request("listing", &what, api.list(&ListParams::default())).await?;
    Ok(list
        .items
        .into_iter()
        .map(|s| {
            let mut keys: BTreeMap<String, usize> = s
                .data
                .unwrap_or_default()
                .into_iter()
                .map(|(k, v)| (k, v.0.len()))
                .collect();
            for (k, v) in s.string_data.unwrap_or_default() {
                keys.insert(k, v.len());
            }
            SecretSummary {
                name: s.metadata.name.unwrap_or_default(),
                kind: s.type_.unwrap_or_default(),
                keys,
                labels: s.metadata.labels.unwrap_or_default(),
            }
        })
        .collect())
}

/// Which log of a container to read.
#[derive(Debug, Clone, Copy)]
pub struct LogLimits {
    /// Only lines newer than this many seconds.
    pub since_seconds: i64,
    /// At most this many bytes (the newest are kept by the server's cut).
    pub max_bytes: i64,
}

/// A container's log, current or previous (`previous`: of the container's
/// last terminated run), within `limits`.
pub async fn container_log(
    client: &Client,
    namespace: &str,
    pod: &str,
    container: &str,
    previous: bool,
    limits: LogLimits,
) -> Result<String, KubeError> {
    let api: Api<Pod> = Api::namespaced(client.clone(), namespace);
    let params = LogParams {
        container: Some(container.to_string()),
        previous,
        since_seconds: Some(limits.since_seconds),
        limit_bytes: Some(limits.max_bytes),
        timestamps: true,
        ..LogParams::default()
    };
    let what = format!(
        "the {}log of container {container} of Pod/{pod}",
        if previous { "previous " } else { "" }
    );
    request("reading", &what, api.logs(pod, &params)).await
}
