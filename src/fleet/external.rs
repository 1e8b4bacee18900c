//! The ExternalSecret flavour of the fleet: in place of SOPS files, the
//! registered Secrets (agent token, dind key and certificate) are
//! `ExternalSecret`s of external-secrets.io/v1beta1 that only reference a
//! store the team already runs; the External Secrets Operator in each
//! cluster makes the Secret from the store.
//!
//! The store is written by the team, not by cf-runner: registration hands
//! the material over once, as plain Secret manifests (0600) in a folder
//! outside the tree, each naming the store key it belongs under. Field
//! names follow the ExternalSecret CRD (`spec.secretStoreRef`,
//! `spec.target.template`, `spec.data[].remoteRef.{key,property}`).

use serde_json::{json, Map, Value};

use crate::render::Manifest;

/// The API version of the objects written.
pub const API_VERSION: &str = "external-secrets.io/v1beta1";
/// How an ExternalSecret file of the tree is named, for a Secret `name`.
pub fn file_name(secret: &str) -> String {
    format!("{secret}.externalsecret.yaml")
}

/// The fleet file's `externalSecrets` section, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Store {
    /// `SecretStore` (in the runner's namespace) or `ClusterSecretStore`.
    pub kind: String,
    pub name: String,
    /// Store keys are `<keyPrefix>/<cluster>/<namespace>/<Secret name>`.
    pub key_prefix: String,
    pub refresh_interval: String,
}

impl Store {
    /// The store key that holds the Secret `secret` of a runtime; one
    /// property per key of the Secret.
    pub fn remote_key(&self, cluster: &str, namespace: &str, secret: &str) -> String {
        format!("{}/{cluster}/{namespace}/{secret}", self.key_prefix)
    }
}

/// The keys of a rendered Secret, in its order (`stringData`, then `data`).
fn secret_keys(secret: &Manifest) -> Vec<String> {
    let mut keys = Vec::new();
    for field in ["stringData", "data"] {
        if let Some(map) = secret.object.get(field).and_then(Value::as_object) {
            keys.extend(map.keys().cloned());
        }
    }
    keys
}

/// The ExternalSecret that makes `secret` (as cf-runner renders it: same
/// name, labels, annotations, type and keys) from the store.
pub fn external_secret(store: &Store, cluster: &str, secret: &Manifest) -> Value {
    let ns = secret.namespace.clone().unwrap_or_default();
    let key = store.remote_key(cluster, &ns, &secret.name);
    let data: Vec<Value> = secret_keys(secret)
        .into_iter()
        .map(|k| json!({"secretKey": k, "remoteRef": {"key": key, "property": k}}))
        .collect();
    let meta = secret.object.get("metadata").cloned().unwrap_or_default();
    let mut template_meta = Map::new();
    for field in ["labels", "annotations"] {
        if let Some(v) = meta
            .get(field)
            .filter(|v| v.as_object().is_some_and(|m| !m.is_empty()))
        {
            template_meta.insert(field.into(), v.clone());
        }
    }
    let mut template = Map::new();
    template.insert(
        "type".into(),
        secret
            .object
            .get("type")
            .cloned()
            .unwrap_or(json!("Opaque")),
    );
    if !template_meta.is_empty() {
        template.insert("metadata".into(), Value::Object(template_meta));
    }
    let mut metadata = Map::new();
    metadata.insert("name".into(), json!(secret.name));
    metadata.insert("namespace".into(), json!(ns));
    if let Some(labels) = meta.get("labels") {
        metadata.insert("labels".into(), labels.clone());
    }
    json!({
        "apiVersion": API_VERSION,
        "kind": "ExternalSecret",
        "metadata": metadata,
        "spec": {
            "refreshInterval": store.refresh_interval,
            "secretStoreRef": {"kind": store.kind, "name": store.name},
            "target": {
                "name": secret.name,
                "creationPolicy": "Owner",
                "template": template,
            },
            "data": data,
        },
    })
}

/// The file a team loads into its store, for a registered Secret: the
/// Secret as cf-runner renders it, with the store key it goes under in a
/// comment. Written 0600, outside the tree, only at registration.
pub fn material_text(store: &Store, cluster: &str, secret: &Manifest) -> String {
    let ns = secret.namespace.clone().unwrap_or_default();
    format!(
        "# Put each key of this Secret into your store as a property of the key\n\
         #   {}\n\
         # (the ExternalSecret {}/{} in the tree reads it from there), then delete this file.\n{}",
        store.remote_key(cluster, &ns, &secret.name),
        ns,
        secret.name,
        crate::export::to_yaml(&secret.object)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> Store {
        Store {
            kind: "ClusterSecretStore".into(),
            name: "vault".into(),
            key_prefix: "codefresh/runners".into(),
            refresh_interval: "1h".into(),
        }
    }

    fn secret() -> Manifest {
        let object = json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "runner", "namespace": "cf", "labels": {"app.kubernetes.io/component": "runner"}},
            "type": "Opaque", "stringData": {"codefresh.token": "s3cr3t-agent-token"}});
        Manifest {
            api_version: "v1".into(),
            kind: "Secret".into(),
            name: "runner".into(),
            namespace: Some("cf".into()),
            component: crate::render::Component::Runner,
            stage: 1,
            object,
        }
    }

    #[test]
    fn an_external_secret_names_the_store_key_and_never_the_value() {
        let es = external_secret(&store(), "alpha", &secret());
        let text = crate::export::to_yaml(&es);
        assert!(!text.contains("s3cr3t"), "{text}");
        assert_eq!(es["spec"]["target"]["name"], "runner");
        assert_eq!(
            es["spec"]["data"][0],
            json!({"secretKey": "codefresh.token",
                   "remoteRef": {"key": "codefresh/runners/alpha/cf/runner", "property": "codefresh.token"}})
        );
        assert_eq!(
            es["spec"]["target"]["template"]["metadata"]["labels"]["app.kubernetes.io/component"],
            "runner"
        );
    }

    #[test]
    fn the_material_file_says_where_it_goes() {
        let text = material_text(&store(), "alpha", &secret());
        assert!(text.contains("codefresh/runners/alpha/cf/runner"), "{text}");
        assert!(text.contains("s3cr3t-agent-token"));
    }
}
