//! Where an attached runtime is, told from what the agent holds for it:
//! the namespace its token was issued in, and the kubeconfig contexts that
//! reach the API server its file names. `delete --all-runtimes` needs this
//! for runtimes nobody named on the command line.

use std::path::PathBuf;

use base64::Engine;
use serde_json::Value;

use super::KubeError;

/// The namespace a ServiceAccount token Secret's token was issued in (its
/// `kubernetes.io/serviceaccount/namespace` claim, else its subject
/// `system:serviceaccount:<namespace>:<name>`). Only the claims are read;
/// the token is neither checked nor kept.
pub fn token_namespace(token: &str) -> Option<String> {
    let claims = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(claims.trim_end_matches('='))
        .ok()?;
    let claims: Value = serde_json::from_slice(&bytes).ok()?;
    if let Some(ns) = claims
        .get("kubernetes.io/serviceaccount/namespace")
        .and_then(Value::as_str)
    {
        return Some(ns.to_string());
    }
    let sub = claims.get("sub")?.as_str()?;
    let mut parts = sub.strip_prefix("system:serviceaccount:")?.split(':');
    parts.next().map(str::to_string)
}

/// The contexts of the kubeconfig `connect` would read whose cluster is
/// the API server `server` (compared without a trailing `/`), in the
/// file's order.
pub fn contexts_serving(
    explicit: Option<&PathBuf>,
    server: &str,
) -> Result<Vec<String>, KubeError> {
    let Some((config, _)) = super::read_kubeconfig(explicit)? else {
        return Ok(Vec::new());
    };
    let wanted = server.trim_end_matches('/');
    let serves = |cluster: &str| {
        config.clusters.iter().any(|c| {
            c.name == cluster
                && c.cluster
                    .as_ref()
                    .and_then(|c| c.server.as_deref())
                    .is_some_and(|s| s.trim_end_matches('/') == wanted)
        })
    };
    Ok(config
        .contexts
        .iter()
        .filter(|c| c.context.as_ref().is_some_and(|ctx| serves(&ctx.cluster)))
        .map(|c| c.name.clone())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jwt(claims: Value) -> String {
        let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        format!(
            "{}.{}.sig",
            b64.encode(br#"{"alg":"RS256"}"#),
            b64.encode(claims.to_string())
        )
    }

    #[test]
    fn the_namespace_comes_from_the_token_claims() {
        let legacy = jwt(serde_json::json!({
            "iss": "kubernetes/serviceaccount",
            "kubernetes.io/serviceaccount/namespace": "builds-eu",
            "sub": "system:serviceaccount:other:cf-runner-agent"}));
        assert_eq!(token_namespace(&legacy).as_deref(), Some("builds-eu"));
        let by_subject =
            jwt(serde_json::json!({"sub": "system:serviceaccount:b2:cf-runner-agent"}));
        assert_eq!(token_namespace(&by_subject).as_deref(), Some("b2"));
        assert_eq!(token_namespace("not-a-token"), None);
        assert_eq!(
            token_namespace(&jwt(serde_json::json!({"sub": "alice"}))),
            None
        );
    }
}

#[cfg(test)]
mod kubeconfig_tests {
    use super::*;

    #[test]
    fn the_contexts_that_reach_a_server_are_found_by_its_address() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config");
        std::fs::write(
            &path,
            "apiVersion: v1\nkind: Config\nclusters:\n\
             - name: hub\n  cluster: {server: 'https://10.0.0.1:6443'}\n\
             - name: builds\n  cluster: {server: 'https://10.0.0.2:6443/'}\n\
             contexts:\n\
             - name: hub-admin\n  context: {cluster: hub, user: u}\n\
             - name: builds-admin\n  context: {cluster: builds, user: u}\n\
             - name: builds-ci\n  context: {cluster: builds, user: u}\n\
             users:\n- name: u\n  user: {token: t}\n",
        )
        .unwrap();
        let found = contexts_serving(Some(&path), "https://10.0.0.2:6443").unwrap();
        assert_eq!(found, ["builds-admin", "builds-ci"]);
        assert!(contexts_serving(Some(&path), "https://10.9.9.9")
            .unwrap()
            .is_empty());
    }
}
