//! `Storage.AwsPodIdentity`: the volume provisioner gets its AWS rights
//! from an EKS Pod Identity association, the fourth way besides IRSA, keys
//! and the nodes' role.
//!
//! Nothing in the cluster names the role: the association lives in EKS
//! (`aws eks create-pod-identity-association`), bound to a namespace and a
//! ServiceAccount name, and EKS's agent hands the credentials to the pods
//! of that account. So the key is a yes/no that cf-runner keeps in the
//! record, checks against the other ways (an IRSA annotation would win
//! over the association in the AWS SDK, keys would make it pointless), and
//! turns into the command the user runs ([`association_command`]). The
//! provisioner image that reads Pod Identity credentials (2.1.0, the
//! chart's since 10.5.0) is the pinned one.

use super::cloud::IAM_ROLE_ANNOTATION;
use super::model::reader::Reader;
use super::{Backend, Problem, Storage};

/// The values key.
pub const KEY: &str = "Storage.AwsPodIdentity";

/// The ServiceAccount of cf-runner's volume provisioner: the association's
/// `--service-account`.
pub const SERVICE_ACCOUNT: &str = "volume-provisioner";

/// The variable EKS's Pod Identity webhook puts into the pods of an
/// associated ServiceAccount: its presence in a running provisioner is how
/// `adopt` and `info` tell the association works.
pub const INJECTED_ENV: &str = "AWS_CONTAINER_CREDENTIALS_FULL_URI";

/// The command that associates the provisioner's ServiceAccount in
/// `namespace` with a role, for the user to run (the cluster's name and the
/// role are theirs to fill in).
pub fn association_command(namespace: &str, service_account: &str) -> String {
    format!(
        "aws eks create-pod-identity-association --cluster-name <EKS cluster> \
         --namespace {namespace} --service-account {service_account} \
         --role-arn <IAM role ARN with the EC2 volume rights>"
    )
}

/// What an install or `info` says of Pod Identity: which ServiceAccount
/// needs the association, and the command that makes it.
pub fn install_note(values: &super::Values) -> Option<String> {
    values.aws_pod_identity.then(|| {
        format!(
            "The volume provisioner takes its AWS rights from EKS Pod Identity: unless done already, associate a role with ServiceAccount {SERVICE_ACCOUNT} of namespace {ns}:\n  {}",
            association_command(&values.namespace, SERVICE_ACCOUNT),
            ns = values.namespace,
        )
    })
}

/// The chart's name for the provisioner's ServiceAccount (release
/// `cf-runtime`), which a chart install's association must name.
pub const CHART_SERVICE_ACCOUNT: &str = "cf-runtime-volume-provisioner";

/// The Helm values file's header note: the chart has no key for Pod
/// Identity, its provisioner (2.1.0) just uses the association.
pub fn helm_note(values: &super::Values) -> Option<String> {
    values.aws_pod_identity.then(|| {
        format!(
            "Storage.AwsPodIdentity has no chart key: associate the role with the chart's ServiceAccount: {}",
            association_command(&values.namespace, CHART_SERVICE_ACCOUNT)
        )
    })
}

/// Reads `Storage.AwsPodIdentity` and checks it against the storage.
pub(super) fn resolve(r: &mut Reader, storage: &Storage) -> bool {
    if !r.boolean(KEY, false) {
        return false;
    }
    let clash = if !matches!(storage.backend, Backend::Ebs { .. }) {
        Some((
            format!(
                "is for EBS volumes, and Storage.Backend is {}",
                storage.backend.name()
            ),
            "set Storage.Backend to ebs or ebs-csi, or drop Storage.AwsPodIdentity".to_string(),
        ))
    } else if !storage.provisioned {
        Some((
            "is for cf-runner's volume provisioner, and StorageClass names a class of yours (no provisioner is installed)".into(),
            "drop Storage.AwsPodIdentity, or StorageClass to let cf-runner provision volumes".into(),
        ))
    } else if storage.credentials.aws_access_key_id.is_some()
        || storage.credentials.aws_access_key_id_ref.is_some()
    {
        Some((
            "is set together with AWS access keys, which the provisioner would use instead".into(),
            "keep one: drop Storage.AwsAccessKeyId and Storage.AwsSecretAccessKey (or their SecretKeyRefs), or Storage.AwsPodIdentity".into(),
        ))
    } else if storage
        .provisioner_sa_annotations
        .contains_key(IAM_ROLE_ANNOTATION)
    {
        Some((
            format!("is set together with an IRSA role ({IAM_ROLE_ANNOTATION}), which the AWS SDK takes first"),
            format!("keep one: drop the {IAM_ROLE_ANNOTATION} annotation of Storage.VolumeProvisioner.ServiceAccount.Annotations, or Storage.AwsPodIdentity"),
        ))
    } else {
        None
    };
    match clash {
        Some((why, fix)) => {
            r.problems.push(Problem::new(
                KEY,
                Some(&serde_json::Value::Bool(true)),
                why,
                fix,
            ));
            false
        }
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use crate::values::{load, Input};
    use serde_json::{json, Value};

    fn load_with(pairs: &[(&str, Value)]) -> Result<bool, String> {
        let input = Input {
            overrides: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
            ..Default::default()
        };
        load(&input)
            .map(|l| l.values.aws_pod_identity)
            .map_err(|p| p.to_string())
    }

    fn ebs() -> Vec<(&'static str, Value)> {
        vec![
            ("Namespace", json!("ns")),
            ("Storage.Backend", json!("ebs")),
            ("Storage.AvailabilityZone", json!("us-east-1a")),
            ("Storage.AwsPodIdentity", json!(true)),
        ]
    }

    #[test]
    fn pod_identity_is_taken_with_ebs_and_no_other_credential() {
        assert_eq!(load_with(&ebs()), Ok(true));
        let mut local = ebs();
        local[1].1 = json!("local");
        let e = load_with(&local).unwrap_err();
        assert!(
            e.contains("Storage.AwsPodIdentity") && e.contains("local"),
            "{e}"
        );
    }

    #[test]
    fn pod_identity_with_irsa_or_keys_is_refused_naming_the_key() {
        let mut irsa = ebs();
        irsa.push((
            "Storage.VolumeProvisioner.ServiceAccount.Annotations",
            json!({"eks.amazonaws.com/role-arn": "arn:aws:iam::123456789012:role/x"}),
        ));
        let e = load_with(&irsa).unwrap_err();
        assert!(
            e.contains("Storage.AwsPodIdentity") && e.contains("IRSA"),
            "{e}"
        );

        let mut keys = ebs();
        keys.push(("Storage.AwsAccessKeyId", json!("AKIAAAAAAAAAAAAAAAAA")));
        keys.push(("Storage.AwsSecretAccessKey", json!("s3cr3t-s3cr3t-s3cr3t")));
        let e = load_with(&keys).unwrap_err();
        assert!(e.contains("access keys"), "{e}");
        assert!(!e.contains("s3cr3t"), "the key is never shown: {e}");
    }
}
