//! `renew certificate`: a new dind key and certificate signed by the
//! platform (`certificate::sign`), written over the install's dind Secret as
//! `upgrade` would render it. Builds already running keep the old one.

use serde_json::Value;

use crate::app::identity::certificate::{date, not_after, now, read, sign, CertState};
use crate::app::installation::standing;
use crate::app::session::outcome::Outcome;
use crate::cluster::Cluster;
use crate::output;
use crate::platform::Platform;
use crate::render::{self, DIND_CERTS_SECRET};
use crate::values::Secret;

/// Renews the dind certificate of the install in `namespace`, under its
/// lock: a new key and CSR, signed by `platform` as `init` has them signed,
/// written into the Secret as `upgrade` renders it. The old certificate is
/// only shown, never required.
pub(crate) async fn renew(
    cluster: &Cluster,
    namespace: &str,
    platform: &Platform,
) -> Result<(), Outcome> {
    let before = read(cluster, namespace).await.ok();
    // The install as `upgrade` would write it, from its record: the Secret
    // keeps its labels and everything else the render gives it.
    let plan = standing::as_it_stands(cluster, namespace).await?;
    if plan.loaded.values.agent_only {
        // Before the platform signs anything: there is nothing to renew.
        return Err(Outcome::BadInput(crate::values::Problems(vec![
            crate::values::Problem::new(
                "--kube-namespace",
                Some(&serde_json::Value::String(namespace.to_string())),
                "holds an agent installed alone (AgentOnly): no build runs there, so it has no dind certificate",
                "nothing to renew in this namespace; each attached runtime keeps its certificate in its own namespace",
            ),
        ])));
    }
    let (ca, cert, key) = sign(platform, namespace).await?;
    let expires = not_after(cert.expose()).map_err(|e| {
        Outcome::Failed(
            anyhow::anyhow!(
                "the platform {} signed a certificate that cannot be read: {e}",
                platform.url()
            ),
            Some(
                "nothing was written; re-run the renewal, and report it if it happens again".into(),
            ),
        )
    })?;
    output::done(&format!(
        "dind TLS certificate signed by the platform, valid until {} (the key stays in the cluster)",
        date(expires)
    ));
    let manifest =
        secret_manifest(&plan.rendered.manifests, &ca, &cert, &key).ok_or_else(|| {
            Outcome::Failed(
                anyhow::anyhow!(
                    "the render of namespace {namespace} has no Secret {DIND_CERTS_SECRET}"
                ),
                Some("a bug in cf-runner: please report it".into()),
            )
        })?;
    crate::app::session::converge::apply_with_progress(
        cluster,
        &[manifest],
        namespace,
        false,
        "renew",
    )
    .await?;
    let was = match before {
        Some(CertState::Expires(at)) if at <= now() => {
            format!(" (the old one expired on {})", date(at))
        }
        Some(CertState::Expires(at)) => format!(" (the old one was valid until {})", date(at)),
        _ => String::new(),
    };
    output::done(&format!(
        "the dind certificate of namespace {namespace} is renewed{was}"
    ));
    output::note(
        "no restart is needed: each build's dind pod mounts the Secret when it starts; \
         builds already running keep the old certificate until they end",
    );
    Ok(())
}

/// The rendered dind Secret with the new material in place.
pub(crate) fn secret_manifest(
    manifests: &[render::Manifest],
    ca: &Secret,
    cert: &Secret,
    key: &Secret,
) -> Option<render::Manifest> {
    let mut m = manifests
        .iter()
        .find(|m| m.kind == "Secret" && m.name == DIND_CERTS_SECRET)?
        .clone();
    let data = m.object.get_mut("stringData")?.as_object_mut()?;
    data.insert("ca.pem".into(), Value::String(ca.expose().to_string()));
    data.insert(
        "server-cert.pem".into(),
        Value::String(cert.expose().to_string()),
    );
    data.insert(
        "server-key.pem".into(),
        Value::String(key.expose().to_string()),
    );
    Some(m)
}
