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

/// A Secret's data as text, or `None` when the Secret (or its namespace)
/// does not exist. The one reader of what an install left: every caller
/// sees the same text (see [`text_data`]).
pub async fn read_text(
    client: &Client,
    namespace: &str,
    name: &str,
) -> Result<Option<BTreeMap<String, String>>, KubeError> {
    let api: Api<Secret> = Api::namespaced(client.clone(), namespace);
    let what = format!("Secret/{name} in namespace {namespace}");
    let secret = request("reading", &what, api.get_opt(name)).await?;
    Ok(secret.map(|s| text_data(s.data.unwrap_or_default())))
}

/// One key of a Secret as text ([`read_text`]); `None` when the Secret or
/// the key is missing, or the value is not text.
pub async fn read_key(
    client: &Client,
    namespace: &str,
    name: &str,
    key: &str,
) -> Result<Option<String>, KubeError> {
    Ok(read_text(client, namespace, name)
        .await?
        .and_then(|mut data| data.remove(key)))
}

/// A Secret's values as text. A value that is not UTF-8 is left out, as if
/// absent: a token or a key with its bytes replaced would be a different
/// one, and cf-runner never passes on a changed value.
pub fn text_data(data: BTreeMap<String, k8s_openapi::ByteString>) -> BTreeMap<String, String> {
    data.into_iter()
        .filter_map(|(k, v)| String::from_utf8(v.0).ok().map(|t| (k, t)))
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::ByteString;

    /// `upgrade` read Secrets lossily (a bad byte became U+FFFD) while
    /// `init` skipped such values: both now go through `text_data`.
    #[test]
    fn a_secret_value_that_is_not_utf8_reads_as_absent_not_as_changed_text() {
        let data = BTreeMap::from([
            ("token".to_string(), ByteString(b"abc".to_vec())),
            ("bad".to_string(), ByteString(vec![0x61, 0xff, 0x62])),
        ]);
        let text = text_data(data);
        assert_eq!(text.get("token").map(String::as_str), Some("abc"));
        assert_eq!(text.get("bad"), None);
    }
}
