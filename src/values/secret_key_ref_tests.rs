//! Unit tests of references to keys of Secrets: a user's Secret is read
//! from there; cf-runner's own, or a reference beside its value, is refused.

use super::*;

fn load_text(text: &str) -> Result<Loaded, Problems> {
    load(&Input {
        files: vec![ValuesFile {
            origin: "v.yaml".into(),
            text: text.into(),
        }],
        ..Default::default()
    })
}

#[test]
fn a_key_in_a_secret_of_the_users_is_read_from_there_and_pairs_with_a_value() {
    let loaded = load_text(
        "Storage:\n  Backend: ebs\n  AvailabilityZone: us-east-1a\n  AwsAccessKeyId: AKIA1\n  \
             AwsSecretAccessKeySecretKeyRef: {Name: my-keys, Key: secret}\n",
    )
    .unwrap();
    let creds = &loaded.values.storage.credentials;
    assert_eq!(creds.aws_access_key_id, Some(Secret::new("AKIA1")));
    let r = creds.aws_secret_access_key_ref.as_ref().unwrap();
    assert_eq!((r.name.as_str(), r.key.as_str()), ("my-keys", "secret"));
}

#[test]
fn a_reference_beside_its_value_to_cf_runners_own_secret_or_alone_is_refused() {
    let err = load_text(
            "Storage:\n  Backend: ebs\n  AvailabilityZone: us-east-1a\n  AwsAccessKeyId: AKIA1\n  \
             AwsSecretAccessKey: s\n  AwsAccessKeyIdSecretKeyRef: {Name: dind-volume-provisioner, Key: id}\n",
        )
        .unwrap_err();
    let keys: Vec<&str> = err.0.iter().map(|p| p.key.as_str()).collect();
    assert!(
        keys.contains(&"Storage.AwsAccessKeyIdSecretKeyRef"),
        "{err}"
    );
    assert!(
        keys.contains(&"Storage.AwsAccessKeyIdSecretKeyRef.Name"),
        "{err}"
    );
    let err = load_text(
        "Storage:\n  Backend: ebs\n  AvailabilityZone: us-east-1a\n  \
             AwsAccessKeyIdSecretKeyRef: {Name: mine, Key: id}\n",
    )
    .unwrap_err();
    assert_eq!(err.0[0].key, "Storage.AwsSecretAccessKey", "{err}");
    let err = load_text(
        "Storage:\n  Backend: gcedisk\n  AvailabilityZone: us-central1-a\n  \
             GoogleServiceAccountSecretKeyRef: {Name: mine}\n",
    )
    .unwrap_err();
    assert_eq!(
        err.0[0].key, "Storage.GoogleServiceAccountSecretKeyRef",
        "{err}"
    );
}
