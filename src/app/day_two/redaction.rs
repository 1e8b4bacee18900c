//! The secret values the support bundle must never hold: every value of
//! the install's Secrets, the attached runtimes' tokens, the public parts
//! left out; the bundle's last scan looks for each of them.

use std::collections::BTreeMap;

use crate::bundle::Redactor;
use crate::cluster::inventory;
use crate::cluster::{attached, secrets, Cluster};
use crate::render;
use crate::values::Secret;

/// The Secrets looked up by name besides those labelled as the install's:
/// cf-runner's own (an older version may not have labelled them), the
/// runtimes file and the attached runtime's token (labelled with the
/// agent's namespace, not this one), and venonactl's provisioner Secret,
/// whose keys an adopted install carries. Looking for more values only
/// makes the redaction and the scan stricter, so a claim is enough here.
pub(crate) const NAMED_SECRETS: &[&str] = &[
    render::RUNNER_SECRET,
    render::MONITOR_SECRET,
    render::PROVISIONER_SECRET,
    render::CREDENTIALS_SECRET,
    render::DIND_CERTS_SECRET,
    render::CLUSTER_READER_TOKEN_SECRET,
    render::runtimes::CONFIG_SECRET,
    render::runtimes::ACCESS_TOKEN_SECRET,
    "dind-volume-provisioner-runner",
];

/// Keys whose values are public by design: a CA or certificate, the
/// namespace of a service-account token Secret. Looking for them would
/// redact (or refuse) what support needs.
pub(crate) fn public_key(key: &str, value: &str) -> bool {
    let certificates_only = value
        .trim_start()
        .starts_with("-----BEGIN CERTIFICATE-----")
        && !value.contains("PRIVATE KEY-----")
        && value
            .lines()
            .filter(|l| l.starts_with("-----BEGIN "))
            .all(|l| l == "-----BEGIN CERTIFICATE-----");
    certificates_only
        || key == "namespace"
        || key.ends_with(".crt")
        || matches!(key, "ca.pem" | "server-cert.pem")
}

/// The secret values of one Secret, each with what it is (never the
/// value): every key but the public ones; of a runtime's file in
/// `runnerconf`, its token (the rest is its name, host and CA). The
/// record holds no secret (only names, and values already redacted).
pub(crate) fn secret_values(name: &str, data: &BTreeMap<String, String>) -> Vec<(String, Secret)> {
    if name == render::RECORD_SECRET {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (key, value) in data {
        if render::is_placeholder(value) {
            continue;
        }
        // A runtime's file holds its CA too: the token is looked for
        // before the file could pass for a certificate.
        if name == render::runtimes::CONFIG_SECRET && key.ends_with(".runtime.yaml") {
            let file = render::runtimes::read_runtime_file(value);
            if let Some(token) = file.token.as_ref().map(|t| t.expose()) {
                let runtime = file.name.as_deref().unwrap_or(key);
                out.push((
                    format!("the token of attached runtime {runtime} (Secret {name}, key {key})"),
                    Secret::new(token),
                ));
                continue;
            }
        }
        if public_key(key, value) {
            continue;
        }
        let kind = match (name, key.as_str()) {
            (render::RUNNER_SECRET, render::TOKEN_KEY) => {
                format!("the agent token (Secret {name}, key {key})")
            }
            (render::DIND_CERTS_SECRET, _) => format!("the dind key (Secret {name}, key {key})"),
            (render::runtimes::ACCESS_TOKEN_SECRET, "token") => {
                format!("an attached runtime's token (Secret {name}, key {key})")
            }
            _ => format!("the value of Secret {name}, key {key}"),
        };
        out.push((kind, Secret::new(value.as_str())));
    }
    out
}

/// The Secrets labelled as the install's in `namespace`, with their data.
pub(crate) async fn labelled_secrets(
    client: &kube::Client,
    namespace: &str,
) -> Result<Vec<(String, BTreeMap<String, String>)>, kube::Error> {
    use k8s_openapi::api::core::v1::Secret as KubeSecret;
    let api: kube::Api<KubeSecret> = kube::Api::namespaced(client.clone(), namespace);
    let params = kube::api::ListParams::default().labels(&inventory::instance_selector(namespace));
    let list = api.list(&params).await?;
    Ok(list
        .items
        .into_iter()
        .map(|s| {
            (
                s.metadata.name.unwrap_or_default(),
                secrets::text_data(s.data.unwrap_or_default()),
            )
        })
        .collect())
}

/// Reads every secret value cf-runner wrote or uses for the install in
/// `namespace`, into a redactor: the API key in use, every value of every
/// Secret labelled as the install's and of the Secrets of
/// [`NAMED_SECRETS`], and the tokens of the attached runtimes (from
/// `runnerconf`, and from their `cf-runner-agent-token` Secrets where this
/// cluster has them). Names in `gaps` what it could not read: the last
/// scan then covers less, and the bundle's README says so.
pub(crate) async fn known_secrets(
    cluster: &Cluster,
    namespace: &str,
    auth: Option<&crate::platform::auth::Auth>,
    gaps: &mut Vec<(String, String)>,
) -> Redactor {
    let mut redactor = Redactor::default();
    if let Some(auth) = auth {
        redactor.know("the Codefresh API key in use", auth.token.clone());
    }
    let mut read: Vec<(String, BTreeMap<String, String>)> = Vec::new();
    match labelled_secrets(&cluster.client, namespace).await {
        Ok(list) => read.extend(list),
        Err(e) => gaps.push((
            format!("the values of the Secrets labelled as the install's in namespace {namespace}, for the last scan"),
            format!("listing them failed: {e}; the scan could not look for them"),
        )),
    }
    for name in NAMED_SECRETS {
        if read.iter().any(|(n, _)| n == name) {
            continue;
        }
        match secrets::read_text(&cluster.client, namespace, name).await {
            Ok(Some(data)) => read.push((name.to_string(), data)),
            Ok(None) => {}
            Err(e) => gaps.push((
                format!("the values of Secret {name}, for the last scan"),
                format!("{}; the scan could not look for them", e.chain_text()),
            )),
        }
    }
    for (name, data) in &read {
        for (kind, value) in secret_values(name, data) {
            redactor.know(kind, value);
        }
    }
    for (other, data) in attached_tokens(cluster, namespace, &read, gaps).await {
        for (kind, value) in secret_values(render::runtimes::ACCESS_TOKEN_SECRET, &data) {
            redactor.know(format!("{kind} in namespace {other}"), value);
        }
    }
    redactor
}

/// The `cf-runner-agent-token` Secrets of the runtimes attached to the
/// agent in `namespace`, in the namespaces their tokens in `runnerconf`
/// were issued for, where this cluster has them (a runtime in another
/// cluster is covered by its token in `runnerconf`).
pub(crate) async fn attached_tokens(
    cluster: &Cluster,
    namespace: &str,
    read: &[(String, BTreeMap<String, String>)],
    gaps: &mut Vec<(String, String)>,
) -> Vec<(String, BTreeMap<String, String>)> {
    let name = render::runtimes::ACCESS_TOKEN_SECRET;
    let mut namespaces: Vec<String> = read
        .iter()
        .filter(|(n, _)| n == render::runtimes::CONFIG_SECRET)
        .flat_map(|(_, data)| data.values())
        .filter_map(|file| render::runtimes::read_runtime_file(file).token)
        .filter_map(|token| attached::token_namespace(token.expose()))
        .filter(|ns| ns != namespace)
        .collect();
    namespaces.sort();
    namespaces.dedup();
    let mut out = Vec::new();
    for other in namespaces {
        match secrets::read_text(&cluster.client, &other, name).await {
            Ok(Some(data)) => out.push((other, data)),
            Ok(None) => {}
            Err(e) => gaps.push((
                format!("the values of Secret {name} in namespace {other}, for the last scan"),
                format!(
                    "{}; the scan looked for the token runnerconf holds for it instead",
                    e.chain_text()
                ),
            )),
        }
    }
    out
}

#[cfg(test)]
mod tests;
