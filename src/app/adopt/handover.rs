//! The small steps of a move that one runtime and several share: what the
//! move needs from the platform ([`OnPlatform`]), the dind certificates it
//! keeps or has signed, marking the old objects taken over, removing them.

use serde_json::Value;

use crate::app::adopt::objects::{kind, name};
use crate::app::installation::record;
use crate::app::session::converge;
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster;
use crate::output;
use crate::render;
use crate::values;

/// Everything the move needs from the platform, checked before the
/// cluster is touched.
pub(crate) struct OnPlatform {
    pub(crate) client: crate::platform::Platform,
    /// The API token, for a monitor the install runs.
    pub(crate) token: values::Secret,
    pub(crate) account_id: Option<String>,
    pub(crate) agent: String,
    pub(crate) runtime: String,
    /// The runtime environment as the platform has it now.
    pub(crate) spec: Value,
}

/// The dind TLS material in place (`None`: the install has none yet).
pub(crate) async fn kept_certs(
    cluster: &cluster::Cluster,
    namespace: &str,
) -> Result<Option<(values::Secret, values::Secret, values::Secret)>, Outcome> {
    let mut got = Vec::new();
    for key in render::DIND_CERT_KEYS {
        let value = record::read_kept(cluster, namespace, render::DIND_CERTS_SECRET, key)
            .await
            .doing("reading the dind certificates failed")?;
        got.push(value);
    }
    Ok(match got.as_slice() {
        [Some(ca), Some(cert), Some(key)] => Some((
            values::Secret::new(ca.clone()),
            values::Secret::new(cert.clone()),
            values::Secret::new(key.clone()),
        )),
        _ => None,
    })
}

/// A new dind key, signed by the platform, for an install that has none.
pub(crate) async fn signed_certs(
    namespace: &str,
    platform: &OnPlatform,
) -> Result<(values::Secret, values::Secret, values::Secret), Outcome> {
    let tls = crate::app::identity::certificate::sign(&platform.client, namespace).await?;
    output::done("the install had no dind TLS certificate: a new one was signed by the platform");
    Ok(tls)
}

/// Deletes scanned objects (after taking the old tool's finalizer off
/// them), waiting until they are gone.
pub(crate) async fn remove(
    cluster: &cluster::Cluster,
    objects: Vec<&Value>,
    timeout: std::time::Duration,
) -> Result<(), Outcome> {
    if objects.is_empty() {
        return Ok(());
    }
    for o in &objects {
        cluster::adopt::remove_old_marks(
            cluster,
            o["apiVersion"].as_str().unwrap_or_default(),
            kind(o),
            o["metadata"]["namespace"].as_str(),
            name(o),
        )
        .await
        .doing("preparing the old installer's objects for removal failed")?;
    }
    let live: Vec<cluster::inventory::LiveObject> = objects
        .iter()
        .map(|o| cluster::adopt::live_object(o))
        .collect();
    converge::delete_with_progress(cluster, live, timeout).await
}

/// Marks one old installer's object (as listed, with its uid) as taken over
/// by cf-runner; one without a uid is left as it is.
pub(crate) async fn mark_taken_over(
    cluster: &cluster::Cluster,
    instance: &str,
    o: &Value,
) -> Result<(), Outcome> {
    let Some(uid) = o["metadata"]["uid"].as_str() else {
        return Ok(());
    };
    cluster::ownership::mark_adopted(
        &cluster.client,
        instance,
        o["apiVersion"].as_str().unwrap_or_default(),
        kind(o),
        o["metadata"]["namespace"].as_str(),
        name(o),
        uid,
    )
    .await
    .doing("marking the old installer's objects as taken over failed")
}
