//! `OpenShift: auto|true|false`: whether the install follows the chart
//! README's OpenShift recipe. On OpenShift, SecurityContextConstraints
//! (SCCs) admit pods: the runner creates privileged dind pods and the
//! volume provisioner's node cleaner writes host folders, so both service
//! accounts must be allowed the `privileged` SCC, and no pod may fix a user
//! or group the SCC assigns itself.
//!
//! `auto` (the default) is decided where a cluster is at hand: `init` asks
//! the API server whether it serves `security.openshift.io` and records the
//! answer as `true` in the stored values, so `upgrade` and `diff` render the
//! same without asking again. Rendered with no cluster (a dry run that
//! could not reach one), `auto` is plain Kubernetes.

use serde::Serialize;

use super::model::reader::Reader;

/// The values key.
pub const KEY: &str = "OpenShift";

/// The API group whose presence marks an OpenShift cluster.
pub const SCC_GROUP: &str = "security.openshift.io";

/// The ClusterRole OpenShift defines for using the `privileged` SCC; a
/// binding to it is what `oc adm policy add-scc-to-user privileged` makes.
pub const PRIVILEGED_SCC_ROLE: &str = "system:openshift:scc:privileged";

/// Whether to render for OpenShift.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OpenShift {
    /// Decided by the cluster (off where no cluster was asked).
    #[default]
    Auto,
    On,
    Off,
}

impl OpenShift {
    /// True when the render follows the OpenShift recipe.
    pub fn is_on(self) -> bool {
        self == OpenShift::On
    }
}

/// Reads `OpenShift` (`auto`, `true` or `false`; booleans too).
pub(super) fn resolve(r: &mut Reader) -> OpenShift {
    match r.one_of(KEY, "auto", &["auto", "true", "false"]).as_str() {
        "true" => OpenShift::On,
        "false" => OpenShift::Off,
        _ => OpenShift::Auto,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(values: serde_json::Value) -> (OpenShift, usize) {
        let mut r = Reader::new(&values);
        let o = resolve(&mut r);
        (o, r.problems.len())
    }

    #[test]
    fn openshift_is_auto_unless_said_and_a_boolean_counts() {
        assert_eq!(read(json!({})), (OpenShift::Auto, 0));
        assert_eq!(read(json!({"OpenShift": true})), (OpenShift::On, 0));
        assert_eq!(read(json!({"OpenShift": "false"})), (OpenShift::Off, 0));
        assert_eq!(read(json!({"OpenShift": "yes"})), (OpenShift::Auto, 1));
    }
}
