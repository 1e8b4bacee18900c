//! Pieces of a pod spec that every component's template context uses, the
//! warm-capacity and metrics modules as much as the main context: the node
//! selector with the architecture, and a container's env with credentials
//! taken from the credentials Secret. A leaf of `render`, so that those
//! modules and `context` (which calls them) do not import each other.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::CREDENTIALS_SECRET;
use crate::values::{Arch, Scheduling};

/// Node selector for a group of pods: its own, plus the architecture.
pub(super) fn selector_with_arch(scheduling: &Scheduling, arch: Arch) -> BTreeMap<String, String> {
    let mut selector = scheduling.node_selector.clone();
    match arch {
        Arch::Any => {}
        Arch::Amd64 => {
            selector.insert("kubernetes.io/arch".into(), "amd64".into());
        }
        Arch::Arm64 => {
            selector.insert("kubernetes.io/arch".into(), "arm64".into());
        }
    }
    selector
}

/// A container's env list. A value that carries URL credentials, or whose
/// variable is named as a credential's (`DB_PASSWORD`), comes from the
/// credentials Secret (under the values key it was given at, else under
/// `env.NAME`, added to `credentials`), never from a literal.
pub(super) fn env_list(
    env: &BTreeMap<String, String>,
    credentials: &mut BTreeMap<String, String>,
) -> Vec<Value> {
    env.iter()
        .map(|(k, v)| {
            let named = !v.is_empty() && crate::text::is_credential_name(k);
            if !named && !crate::text::has_url_credentials(v) {
                return json!({"name": k, "value": v});
            }
            let key = credentials
                .iter()
                .find(|(_, real)| real.as_str() == v.trim() || real.as_str() == v.as_str())
                .map(|(key, _)| key.clone())
                .unwrap_or_else(|| {
                    let key = format!("env.{k}");
                    credentials.insert(key.clone(), v.clone());
                    key
                });
            json!({"name": k, "valueFrom": {"secretKeyRef": {"name": CREDENTIALS_SECRET, "key": key}}})
        })
        .collect()
}
