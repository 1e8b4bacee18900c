//! `cf-runner schema` and the validator agree. The schema is checked with an
//! independent JSON Schema implementation (the `jsonschema` crate, draft
//! 2020-12), never with cf-runner's own code:
//! - the checked-in `values.schema.json` is what the binary prints;
//! - every values example carries the editor line and validates;
//! - every shape mistake of the bad-input catalogue is rejected by both, at
//!   the same key;
//! - for every key of the table and a spread of values of every shape, the
//!   schema accepts exactly what the validator's shape check accepts;
//! - every word of the schema's enums is accepted by the validator, and a
//!   word outside them is not.
//!
//! Regenerate the file with: `UPDATE_SCHEMA=1 cargo test --test offline values_schema::`
//! (refused under CI: any non-empty `CI`).

use crate::support;

use std::path::PathBuf;

use cf_runner::values::{self, json_schema, schema, Input, ValuesFile};
use serde_json::{json, Value};
use support::cli;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn validator() -> jsonschema::Validator {
    jsonschema::draft202012::new(&json_schema::values_schema()).expect("the schema compiles")
}

/// The JSON Pointer of a dotted key (`Tolerations[0].key` → `/Tolerations/0/key`).
fn pointer(key: &str) -> String {
    let mut out = String::new();
    for part in key.split('.') {
        let (name, index) = match part.split_once('[') {
            Some((n, i)) => (n, Some(i.trim_end_matches(']'))),
            None => (part, None),
        };
        out.push('/');
        out.push_str(name);
        if let Some(i) = index {
            out.push('/');
            out.push_str(i);
        }
    }
    out
}

/// The keys the validator reports for a values file's text.
fn validator_problems(yaml: &str) -> Vec<String> {
    let input = Input {
        files: vec![ValuesFile {
            origin: "values.yaml".into(),
            text: yaml.into(),
        }],
        ..Input::default()
    };
    match values::load(&input) {
        Ok(_) => Vec::new(),
        Err(problems) => problems.0.into_iter().map(|p| p.key).collect(),
    }
}

fn as_json(yaml: &str) -> Value {
    serde_yaml_ng::from_str(yaml).expect("the case is YAML")
}

#[test]
fn the_checked_in_schema_is_what_the_binary_prints() {
    let home = tempfile::tempdir().unwrap();
    let out = cli::cf_runner(home.path()).arg("schema").output().unwrap();
    assert!(out.status.success(), "cf-runner schema failed");
    let printed = String::from_utf8(out.stdout).unwrap();
    let parsed: Value = serde_json::from_str(&printed).expect("schema prints JSON");
    assert_eq!(
        parsed["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    jsonschema::meta::validate(&parsed).expect("the schema is a valid 2020-12 schema");
    let path = root().join("values.schema.json");
    if support::ci::updating("UPDATE_SCHEMA") {
        std::fs::write(&path, &printed).unwrap();
        return;
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == printed,
        "values.schema.json is stale: run UPDATE_SCHEMA=1 cargo test --test offline values_schema::"
    );
}

#[test]
fn every_example_names_the_schema_and_validates() {
    let validator = validator();
    let mut examples: Vec<PathBuf> = std::fs::read_dir(root().join("values-examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    examples.sort();
    assert!(examples.len() >= 10);
    for example in examples {
        let text = std::fs::read_to_string(&example).unwrap();
        assert!(
            text.lines()
                .any(|l| l == "# yaml-language-server: $schema=../values.schema.json"),
            "{} lacks the editor line",
            example.display()
        );
        let instance = as_json(&text);
        let errors: Vec<String> = validator
            .iter_errors(&instance)
            .map(|e| format!("{} at {}", e, e.instance_path().as_str()))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", example.display());
        assert!(
            validator_problems(&text).is_empty(),
            "{} is rejected by the validator",
            example.display()
        );
    }
}

/// The shape mistakes of `tests/offline/bad_input.rs` (types, enums, unknown keys),
/// written as values files, with the key the validator names.
const SHAPE_MISTAKES: &[(&str, &str, &str)] = &[
    ("unknown_key_gets_did_you_mean", "Storage:\n  Backnd: ebs\n", "Storage.Backnd"),
    ("lowercase_key_in_values_file", "namespace: codefresh\n", "namespace"),
    ("unknown_key_far_from_any", "Storage:\n  Zzqxv: 1\n", "Storage.Zzqxv"),
    ("section_given_a_scalar", "Storage: ebs\n", "Storage"),
    (
        "iops_with_a_unit",
        "Storage:\n  Backend: ebs\n  AvailabilityZone: us-east-1a\n  VolumeType: gp3\n  Iops: 3000iops\n",
        "Storage.Iops",
    ),
    (
        "iops_too_large_for_a_number_is_reported_not_dropped",
        "Storage:\n  Backend: ebs\n  AvailabilityZone: us-east-1a\n  VolumeType: gp3\n  Iops: 10000000000000000000\n",
        "Storage.Iops",
    ),
    (
        "volume_type_unknown",
        "Storage:\n  Backend: ebs\n  AvailabilityZone: us-east-1a\n  VolumeType: gp4\n",
        "Storage.VolumeType",
    ),
    (
        "volume_type_of_another_backend",
        "Storage:\n  Backend: ebs\n  AvailabilityZone: us-east-1a\n  VolumeType: pd-ssd\n",
        "Storage.VolumeType",
    ),
    ("unknown_backend_nfs", "Storage:\n  Backend: nfs\n", "Storage.Backend"),
    ("backend_azuredisk_csi", "Storage:\n  Backend: azuredisk-csi\n", "Storage.Backend"),
    (
        "encrypted_maybe",
        "Storage:\n  Backend: ebs\n  AvailabilityZone: us-east-1a\n  Encrypted: maybe\n",
        "Storage.Encrypted",
    ),
    (
        "aws_secret_as_a_list_is_not_echoed",
        "Storage:\n  Backend: ebs\n  AvailabilityZone: us-east-1a\n  AwsAccessKeyId: AKIAEXAMPLEKEYID\n  AwsSecretAccessKey: [wJalrSECRETbPxRfiCY]\n",
        "Storage.AwsSecretAccessKey",
    ),
    ("token_written_as_a_map_is_not_echoed", "Token:\n  value: CFTOKENSECRET0123\n", "Token"),
    (
        "memory_limit_in_gigabytes",
        "Runtime:\n  resources:\n    limits:\n      memory: 1GB\n",
        "Runtime.resources.limits.memory",
    ),
    (
        "resource_name_unknown",
        "Runner:\n  resources:\n    limits:\n      gpu: 1\n",
        "Runner.resources.limits.gpu",
    ),
    (
        "resources_section_misspelt",
        "Monitor:\n  resources:\n    limit:\n      cpu: 1\n",
        "Monitor.resources.limit",
    ),
    (
        "toleration_with_unknown_operator",
        "Tolerations:\n- {key: dedicated, operator: Equals, value: ci}\n",
        "Tolerations[0].operator",
    ),
    (
        "toleration_with_unknown_effect",
        "Tolerations:\n- {key: dedicated, value: ci, effect: NoExec}\n",
        "Tolerations[0].effect",
    ),
    (
        "toleration_exists_with_value",
        "Runtime:\n  tolerations:\n  - key: dedicated\n    operator: Exists\n    value: ci\n",
        "Runtime.tolerations[0].value",
    ),
    (
        "toleration_without_key",
        "Tolerations:\n- {operator: Equal, value: ci}\n",
        "Tolerations[0].key",
    ),
    (
        "toleration_field_misspelt",
        "Tolerations:\n- {key: a, efect: NoSchedule}\n",
        "Tolerations[0].efect",
    ),
    ("bool_key_with_yes", "Monitor:\n  Enabled: 'yes'\n", "Monitor.Enabled"),
    ("arch_unknown", "Arch: x86\n", "Arch"),
    ("values_file_is_a_list", "- Namespace: codefresh\n", "values.yaml"),
];

#[test]
fn every_shape_mistake_of_the_catalogue_is_rejected_by_the_schema_at_its_key() {
    let validator = validator();
    for (name, yaml, key) in SHAPE_MISTAKES {
        let problems = validator_problems(yaml);
        assert!(
            problems.iter().any(|p| p == key),
            "{name}: the validator reports {problems:?}, not {key}"
        );
        let instance = as_json(yaml);
        let at: Vec<String> = validator
            .iter_errors(&instance)
            .map(|e| e.instance_path().as_str().to_string())
            .collect();
        assert!(!at.is_empty(), "{name}: the schema accepts it");
        // The schema points at the key, or at its section for an unknown key.
        let want = if *key == "values.yaml" {
            String::new()
        } else {
            pointer(key)
        };
        assert!(
            at.iter()
                .any(|p| want == *p || want.starts_with(&format!("{p}/")) || p.is_empty()),
            "{name}: the schema complains at {at:?}, not at {want}"
        );
    }
}

/// Values of every shape the validator meets.
fn samples() -> Vec<Value> {
    vec![
        json!("abc"),
        json!(""),
        json!("true"),
        json!("12"),
        json!("-3"),
        json!("1.5"),
        json!(12),
        json!(-3),
        json!(1.5),
        json!(true),
        json!(false),
        json!([]),
        json!(["a", "b"]),
        json!({}),
        json!({"A": "b"}),
        json!({"A": 1, "B": true}),
        json!({"A": ["b"]}),
        json!({"A": {"b": "c"}}),
        json!([{"key": "dedicated", "operator": "Equal", "value": "ci", "effect": "NoSchedule"}]),
        json!([{"operator": "Exists"}]),
        json!([{"key": "k", "operator": "Exists", "value": "v"}]),
        json!(["k=v"]),
        json!({"limits": {"cpu": "500m", "memory": "1Gi"}, "requests": {"cpu": 0.25}}),
        json!({"limits": {"nvidia.com/gpu": 1}}),
        json!({"limits": {"gpu": 1}}),
        json!({"limit": {"cpu": "1"}}),
        json!({"limits": {"memory": "1GB"}}),
        json!({"limits": "1"}),
        json!({"data": {"hostPath": {"path": "/x"}}}),
    ]
}

/// Sets `path` in an empty tree.
fn tree_with(path: &str, value: &Value) -> Value {
    let mut root = json!({});
    let mut node = &mut root;
    let parts: Vec<&str> = path.split('.').collect();
    for part in &parts[..parts.len() - 1] {
        node = node
            .as_object_mut()
            .unwrap()
            .entry(part.to_string())
            .or_insert_with(|| json!({}));
    }
    node.as_object_mut()
        .unwrap()
        .insert(parts[parts.len() - 1].to_string(), value.clone());
    root
}

/// Whether the validator finds a problem at or under `path` in `tree`.
fn validator_rejects(path: &str, kind: schema::Kind, tree: &Value) -> bool {
    use schema::Kind::*;
    match kind {
        // Their inner shape is checked while typing the values: run it all.
        Tolerations | Resources | Opaque | NodeSelector => {
            let yaml = serde_yaml_ng::to_string(tree).unwrap();
            validator_problems(&yaml).iter().any(|k| {
                k == path
                    || k.starts_with(&format!("{path}."))
                    || k.starts_with(&format!("{path}["))
            })
        }
        // The shape check alone: the full validator also judges the text
        // itself (a URL, a DNS name), which the schema leaves to it.
        _ => {
            let mut problems = Vec::new();
            schema::check(tree, &mut problems);
            !problems.is_empty()
        }
    }
}

#[test]
fn the_schema_accepts_exactly_the_shapes_the_validator_accepts_for_every_key() {
    let validator = validator();
    let mut disagreements = Vec::new();
    for (path, kind) in schema::KEYS {
        if json_schema::enum_of(path).is_some() {
            continue; // words, not shapes: see the enum test below
        }
        for sample in samples() {
            let tree = tree_with(path, &sample);
            let schema_ok = validator.is_valid(&tree);
            let validator_ok = !validator_rejects(path, *kind, &tree);
            if schema_ok != validator_ok {
                disagreements.push(format!(
                    "{path} = {sample}: schema {}, validator {}",
                    if schema_ok { "accepts" } else { "rejects" },
                    if validator_ok { "accepts" } else { "rejects" },
                ));
            }
        }
    }
    assert!(disagreements.is_empty(), "{disagreements:#?}");
}

/// What a key with a fixed list of words needs beside it to be read at all.
fn context_for(path: &str, word: &str) -> &'static str {
    match path {
        "Storage.VolumeType" if word.starts_with("pd-") => {
            "Storage:\n  Backend: gcedisk\n  AvailabilityZone: us-central1-a\n"
        }
        "Storage.VolumeType" => "Storage:\n  Backend: ebs\n  AvailabilityZone: us-east-1a\n",
        "Storage.SkuName" | "Storage.CachingMode" => "Storage:\n  Backend: azuredisk\n",
        "Storage.Backend" if matches!(word, "ebs" | "ebs-csi" | "gcedisk") => {
            "Storage:\n  AvailabilityZone: us-central1-a\n"
        }
        _ => "",
    }
}

#[test]
fn every_enum_word_is_accepted_by_the_validator_and_no_other() {
    let validator = validator();
    for (path, words) in json_schema::ENUMS {
        for word in words.iter().copied().chain(["not-a-listed-word"]) {
            let mut tree = as_json(context_for(path, word));
            if tree.is_null() {
                tree = json!({});
            }
            let (section, leaf) = match path.split_once('.') {
                Some((s, l)) => (Some(s), l),
                None => (None, *path),
            };
            let node = match section {
                Some(s) => tree
                    .as_object_mut()
                    .unwrap()
                    .entry(s.to_string())
                    .or_insert_with(|| json!({})),
                None => &mut tree,
            };
            node.as_object_mut()
                .unwrap()
                .insert(leaf.to_string(), json!(word));
            let yaml = serde_yaml_ng::to_string(&tree).unwrap();
            let rejected = validator_problems(&yaml).iter().any(|k| k == path);
            let listed = words.contains(&word);
            assert_eq!(
                rejected,
                !listed,
                "{path} = {word}: the validator {} it",
                if rejected { "rejects" } else { "accepts" }
            );
            assert_eq!(
                validator.is_valid(&tree),
                listed,
                "{path} = {word}: the schema disagrees with the validator"
            );
        }
    }
}

#[test]
fn the_file_the_wizard_saves_names_the_schema_and_validates() {
    let tree = json!({"Context": "kind-dev", "Namespace": "cf", "Token": "secret-api-key",
        "Storage": {"Backend": "ebs", "AvailabilityZone": "us-east-1a", "VolumeType": "gp3",
            "Iops": 4000, "Encrypted": true},
        "Runtime": {"NodeSelector": {"a": "true"}, "tolerations": []}});
    let saved = cf_runner::wizard::values_file(&tree);
    assert!(
        saved
            .text
            .starts_with("# yaml-language-server: $schema=values.schema.json\n"),
        "{}",
        saved.text
    );
    let instance = as_json(&saved.text);
    let errors: Vec<String> = validator()
        .iter_errors(&instance)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
}

/// The words the validator's own fix lists for a wrong word at `path`.
fn words_the_validator_lists(path: &str, context: &str) -> Vec<String> {
    let mut tree = as_json(context);
    if tree.is_null() {
        tree = json!({});
    }
    let mut full = tree_with(path, &json!("not-a-listed-word"));
    if let (Some(a), Some(b)) = (full.as_object_mut(), tree.as_object()) {
        for (k, v) in b {
            let slot = a.entry(k.clone()).or_insert_with(|| json!({}));
            for (k2, v2) in v.as_object().unwrap() {
                slot.as_object_mut().unwrap().insert(k2.clone(), v2.clone());
            }
        }
    }
    let input = Input {
        files: vec![ValuesFile {
            origin: "values.yaml".into(),
            text: serde_yaml_ng::to_string(&full).unwrap(),
        }],
        ..Input::default()
    };
    let problems = values::load(&input)
        .expect_err("a wrong word is rejected")
        .0;
    let fix = &problems
        .iter()
        .find(|p| p.key == path)
        .unwrap_or_else(|| panic!("{path}: no problem in {problems:?}"))
        .fix;
    match fix.split_once("use one of: ") {
        Some((_, list)) => list.split(", ").map(str::to_string).collect(),
        None => Vec::new(),
    }
}

/// The reverse direction: a word the validator tells users to write is one
/// the schema offers them.
#[test]
fn every_word_the_validator_suggests_is_in_the_schema() {
    let mut checked = 0;
    for (path, words) in json_schema::ENUMS {
        for context in [context_for(path, "gp2"), context_for(path, "pd-ssd")] {
            let listed = words_the_validator_lists(path, context);
            for word in &listed {
                assert!(
                    words.contains(&word.as_str()),
                    "{path}: {word} is not in the schema"
                );
            }
            checked += listed.len();
        }
    }
    assert!(checked >= 20, "only {checked} words were compared");
}

/// `tolerationSeconds: "60"`: cf-runner reads it as 60 and writes the number
/// (see `honest_input.rs`), but the schema allowed only a number, so an
/// editor flagged a file cf-runner takes. Both now agree on each case:
/// whole seconds as a number or as their text are taken, anything else is
/// refused by both, at the same key.
#[test]
fn schema_and_validator_agree_on_toleration_seconds() {
    let validator = validator();
    let cases: &[(&str, bool)] = &[
        ("60", true),
        ("\"60\"", true),
        ("\" 60 \"", true),
        ("\"+60\"", true),
        ("-1", true),
        ("~", true),
        ("\"sixty\"", false),
        ("60.5", false),
        ("\"1m\"", false),
        ("[60]", false),
    ];
    for (written, taken) in cases {
        let yaml = format!(
            "Namespace: ns\nTolerations:\n  - key: a\n    operator: Exists\n    effect: NoExecute\n    tolerationSeconds: {written}\n"
        );
        let by_cf_runner = validator_problems(&yaml);
        let by_schema = validator.is_valid(&as_json(&yaml));
        assert_eq!(
            by_cf_runner.is_empty(),
            *taken,
            "cf-runner, {written}: {by_cf_runner:?}"
        );
        assert_eq!(by_schema, *taken, "schema, {written}");
        if !taken {
            assert!(
                by_cf_runner
                    .iter()
                    .any(|k| k == "Tolerations[0].tolerationSeconds"),
                "{written}: {by_cf_runner:?}"
            );
        }
    }
}
