//! EKS Pod Identity on an old install's volume provisioner. The chart's
//! recipe (10.5.0 on) sets nothing in its values: no keys, no annotation;
//! the association lives in EKS. What the cluster does show is its effect:
//! EKS's webhook puts [`pod_identity::INJECTED_ENV`] into every pod of an
//! associated ServiceAccount. So adopt reads the running provisioner pods,
//! and only when the values leave nothing else (EBS, no keys, no IRSA
//! role) does it carry `Storage.AwsPodIdentity`.
//!
//! The association names the ServiceAccount, and cf-runner's provisioner
//! runs as another one (`volume-provisioner`), so the move needs a second
//! association before the new provisioner makes volumes: adopt says which.

use serde_json::Value;

use crate::app::adopt::found::Found;
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster;
use crate::output;
use crate::values::{self, pod_identity, tree};

/// The container the chart, venonactl and cf-runner name the provisioner.
const CONTAINER: &str = "dind-volume-provisioner";

/// True when a running provisioner pod got Pod Identity credentials.
pub(crate) fn provisioner_has_pod_identity(pods: &[Value]) -> bool {
    pods.iter()
        .flat_map(|p| p["spec"]["containers"].as_array().into_iter().flatten())
        .filter(|c| c["name"] == CONTAINER)
        .flat_map(|c| c["env"].as_array().into_iter().flatten())
        .any(|e| e["name"] == pod_identity::INJECTED_ENV)
}

/// True when the old values leave the provisioner no other AWS identity.
fn nothing_else(values: &Value) -> bool {
    let text = |k: &str| {
        tree::lookup(values, k)
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let ebs = matches!(text("Storage.Backend").as_deref(), Some("ebs" | "ebs-csi"));
    let keys = [
        "Storage.AwsAccessKeyId",
        "Storage.AwsAccessKeyIdSecretKeyRef",
    ]
    .iter()
    .any(|k| tree::lookup(values, k).is_some());
    let irsa = tree::lookup(
        values,
        "Storage.VolumeProvisioner.ServiceAccount.Annotations",
    )
    .and_then(|a| a.get(values::cloud::IAM_ROLE_ANNOTATION))
    .is_some();
    ebs && !keys && !irsa
}

/// Sets `Storage.AwsPodIdentity` in `values` when `pods` show it and the
/// values allow it; the note for the user, when it did.
pub(crate) fn carry(values: &mut Value, pods: &[Value], namespace: &str) -> Option<String> {
    if !nothing_else(values) || !provisioner_has_pod_identity(pods) {
        return None;
    }
    let steps = tree::parse_path(pod_identity::KEY).expect("a plain key path");
    tree::set_path(values, &steps, Value::Bool(true));
    Some(format!(
        "the old volume provisioner takes its AWS rights from EKS Pod Identity ({key}: true is carried); \
         cf-runner's provisioner runs as ServiceAccount {sa}, so associate the same role with it before the move:\n  {command}",
        key = pod_identity::KEY,
        sa = pod_identity::SERVICE_ACCOUNT,
        command = pod_identity::association_command(namespace, pod_identity::SERVICE_ACCOUNT),
    ))
}

/// Reads the namespace's pods and carries Pod Identity into `found`.
pub(crate) async fn read(
    cluster: &cluster::Cluster,
    namespace: &str,
    found: &mut Found,
) -> Result<(), Outcome> {
    if !nothing_else(&found.values) {
        return Ok(()); // no pod to read: the values already say
    }
    let pods = cluster::support::list(&cluster.client, "v1", "Pod", Some(namespace))
        .await
        .doing("reading the volume provisioner's pods failed")?;
    if let Some(note) = carry(&mut found.values, &pods, namespace) {
        output::say(&note);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(env: &[&str]) -> Value {
        let env: Vec<Value> = env
            .iter()
            .map(|n| json!({"name": n, "value": "x"}))
            .collect();
        json!({"spec": {"containers": [{"name": CONTAINER, "env": env}]}})
    }

    fn chart_values() -> Value {
        json!({"Storage": {"Backend": "ebs-csi", "AvailabilityZone": "us-east-1a"}})
    }

    #[test]
    fn a_chart_install_with_pod_identity_carries_the_key_and_names_the_new_account() {
        let mut values = chart_values();
        let pods = [pod(&["AWS_REGION", pod_identity::INJECTED_ENV])];
        let note = carry(&mut values, &pods, "cf").expect("carried");
        assert_eq!(values["Storage"]["AwsPodIdentity"], json!(true));
        assert!(
            note.contains("--namespace cf --service-account volume-provisioner"),
            "{note}"
        );
    }

    #[test]
    fn the_nodes_role_irsa_or_keys_are_not_taken_for_pod_identity() {
        let mut node_role = chart_values();
        assert!(carry(&mut node_role, &[pod(&["AWS_REGION"])], "cf").is_none());
        assert!(node_role["Storage"].get("AwsPodIdentity").is_none());

        let mut irsa = chart_values();
        irsa["Storage"]["VolumeProvisioner"] = json!({"ServiceAccount": {"Annotations": {
            "eks.amazonaws.com/role-arn": "arn:aws:iam::123456789012:role/x"}}});
        // IRSA's env is there too on such a pod; the annotation decides.
        assert!(carry(&mut irsa, &[pod(&[pod_identity::INJECTED_ENV])], "cf").is_none());
    }
}
