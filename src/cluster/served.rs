//! Whether the cluster serves every kind an install renders. The core
//! kinds always are; a kind from a set of CRDs (the Gateway API's
//! `HTTPRoute`) is only where someone installed them. Asked before the
//! first write, so that a missing API is said as what it is (a setting the
//! cluster cannot hold) rather than as a failed apply halfway through.

use std::collections::BTreeSet;

use kube::Client;

use super::inventory::{may_be_unserved, RENDERED_KINDS};
use super::{request, resource_for, KubeError};
use crate::render::Manifest;

/// The `apiVersion` and kind of each rendered object whose API the cluster
/// does not serve (only kinds that [`may_be_unserved`] are asked about).
pub async fn unserved(
    client: &Client,
    manifests: &[Manifest],
) -> Result<Vec<(String, String)>, KubeError> {
    let asked: BTreeSet<(&str, &str)> = manifests
        .iter()
        .filter(|m| {
            RENDERED_KINDS
                .iter()
                .any(|k| k.kind == m.kind && k.api_version == m.api_version && may_be_unserved(k))
        })
        .map(|m| (m.api_version.as_str(), m.kind.as_str()))
        .collect();
    let mut out = Vec::new();
    for (api_version, kind) in asked {
        let listed = request(
            "discovering",
            api_version,
            client.list_api_group_resources(api_version),
        )
        .await;
        let plural = resource_for(api_version, kind).plural;
        let served = match listed {
            Ok(list) => list.resources.iter().any(|r| r.name == plural),
            Err(e) if e.code() == Some(404) => false,
            Err(e) => return Err(e),
        };
        if !served {
            out.push((api_version.to_string(), kind.to_string()));
        }
    }
    Ok(out)
}
