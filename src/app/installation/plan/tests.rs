//! Unit tests of `app/installation/plan.rs`.

use serde_json::json;

use super::*;
use crate::app::installation::in_place::{in_place_problems, in_place_problems_raw};
use crate::render::is_placeholder;
use crate::values::{Values, ValuesFile};

fn load(tree: Value) -> Values {
    let input = Input {
        files: vec![ValuesFile {
            origin: "test".into(),
            text: serde_yaml_ng::to_string(&tree).unwrap(),
        }],
        ..Input::default()
    };
    values::load(&input).unwrap().values
}

#[test]
fn moving_the_namespace_is_refused_with_the_way_to_do_it() {
    let old = load(json!({"Namespace": "ci"}));
    let new = load(json!({"Namespace": "other"}));
    let problems = in_place_problems("ci", Some(&old), &new);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].key, "Namespace");
    assert!(problems[0]
        .fix
        .contains("cf-runner delete --kube-namespace ci"));
}

#[test]
fn changing_the_storage_backend_or_its_parameters_is_refused() {
    let old = load(json!({"Namespace": "ci", "Storage": {"Backend": "local"}}));
    let ebs = load(
        json!({"Namespace": "ci", "Storage": {"Backend": "ebs", "AvailabilityZone": "us-east-1a"}}),
    );
    let problems = in_place_problems("ci", Some(&old), &ebs);
    assert_eq!(problems[0].key, "Storage.Backend");
    assert!(problems[0].fix.contains("init"));

    let moved = load(
        json!({"Namespace": "ci", "Storage": {"Backend": "local", "LocalVolumeParentDir": "/data"}}),
    );
    let problems = in_place_problems("ci", Some(&old), &moved);
    assert_eq!(problems[0].key, "Storage");
    assert!(problems[0].why.contains("parameters"));

    let custom = load(json!({"Namespace": "ci", "StorageClass": "fast"}));
    assert_eq!(
        in_place_problems("ci", Some(&old), &custom)[0].key,
        "StorageClass"
    );
    assert!(in_place_problems("ci", Some(&old), &old).is_empty());
}

#[test]
fn a_new_backend_is_refused_before_its_keys_are_validated() {
    let stored =
        json!({"Namespace": "ci", "Storage": {"Backend": "local", "LocalVolumeParentDir": "/d"}});
    let merged =
        json!({"Namespace": "ci", "Storage": {"Backend": "ebs", "LocalVolumeParentDir": "/d"}});
    let problems = in_place_problems_raw("ci", &stored, &merged);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].key, "Storage.Backend");
    assert!(problems[0].why.contains("local to ebs"));
    assert!(in_place_problems_raw("ci", &stored, &stored).is_empty());
    let moved = json!({"Namespace": "other"});
    assert_eq!(
        in_place_problems_raw("ci", &stored, &moved)[0].key,
        "Namespace"
    );
    let custom = json!({"Namespace": "ci", "StorageClass": "fast"});
    assert_eq!(
        in_place_problems_raw("ci", &stored, &custom)[0].key,
        "StorageClass"
    );
}

#[test]
fn value_changes_are_listed_by_key() {
    let old = json!({"Monitor": {"Enabled": true}, "Token": "<redacted>"});
    let new = json!({"Monitor": {"Enabled": false}, "Token": "<redacted>", "DockerRegistry": "r.example.com"});
    assert_eq!(
        values_changes(&old, &new),
        vec![
            "DockerRegistry: (unset) → \"r.example.com\"",
            "Monitor.Enabled: true → false"
        ]
    );
}

#[test]
fn the_values_diff_never_shows_a_url_password() {
    let old =
        json!({"EnvVars": {"HTTPS_PROXY": "http://u:OLDPASS@p:3128"}, "NewRelicLicense": "LIC1"});
    let new =
        json!({"EnvVars": {"HTTPS_PROXY": "http://v:NEWPASS@p:3128"}, "NewRelicLicense": "LIC2"});
    let changes = values_changes(&values::redact(&old), &values::redact(&new)).join("\n");
    for secret in ["OLDPASS", "NEWPASS", "LIC1", "LIC2"] {
        assert!(!changes.contains(secret), "{changes}");
    }
    assert!(changes.contains("EnvVars.HTTPS_PROXY"), "{changes}");

    let old = BTreeMap::from([(
        "EnvVars.HTTPS_PROXY".to_string(),
        "http://u:OLDPASS@p".to_string(),
    )]);
    let new = BTreeMap::from([(
        "EnvVars.HTTPS_PROXY".to_string(),
        values::Secret::new("http://u:NEWPASS@p"),
    )]);
    assert_eq!(
        credential_changes(&old, &new),
        ["EnvVars.HTTPS_PROXY: credentials changed"]
    );
}

#[test]
fn placeholders_are_not_restored_as_secrets() {
    assert!(is_placeholder(&render::placeholder("agent token")));
    assert!(!is_placeholder("a-real-token"));
}
