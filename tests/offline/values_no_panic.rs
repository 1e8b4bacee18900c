//! No input makes the values layer panic: whatever a user puts in a values
//! file, a `--set-value`, a `--set-file` or a flag, `values::load` answers
//! with validated values or with problems. And whatever the shape of the
//! mistake, a secret's text never shows up in the problem report or in the
//! values record.

use std::collections::BTreeSet;

use cf_runner::values::{self, schema, tree, Input, SetFile, ValuesFile};
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{Map, Value};

/// Enough cases to hit every key a few times while the whole file runs in a
/// few seconds.
const CASES: u32 = 256;

/// Every known key path, `Storage.VolumeProvisioner.NodeSelector` and so on.
fn key_paths() -> Vec<&'static str> {
    schema::KEYS.iter().map(|(k, _)| *k).collect()
}

/// Every segment of every known key path, so random trees reach real sections.
fn key_segments() -> Vec<&'static str> {
    let set: BTreeSet<&'static str> = schema::KEYS
        .iter()
        .flat_map(|(k, _)| k.split('.'))
        .chain([
            "limits",
            "requests",
            "cpu",
            "memory",
            "key",
            "operator",
            "value",
            "effect",
            "tolerationSeconds",
            "HTTP_PROXY",
            "https_proxy",
            "NO_PROXY",
        ])
        .collect();
    set.into_iter().collect()
}

/// Values that drive the validation rules down their branches.
#[rustfmt::skip]
const INTERESTING: &[&str] = &[
    // storage
    "local", "ebs", "ebs-csi", "gcedisk", "azuredisk", "azuredisk-csi", "nfs", "gp2", "gp3",
    "io1", "io2", "pd-ssd", "Premium_LRS", "ReadOnly", "ext4", "xfs", "us-east-1a", "US East",
    "/var/lib/x", "/", "..",
    // quantities and numbers
    "1Gi", "16Gi", "500m", "1GB", ".5", "1e3", "1e400", "-1", "0", "007", "70000", "3000",
    "18446744073709551615", "9223372036854775808", "-9223372036854775808",
    // booleans and nulls, as old files spell them
    "true", "false", "yes", "null", "~", "", " ",
    // scheduling
    "Exists", "Equal", "NoSchedule", "NoExec", "k=v", "k=v,a=b", "foo", "a=b=c", "bad key=x",
    "kubernetes.io/arch=arm64", "amd64", "arm64",
    // images
    "quay.io/codefresh/venona:1.0", "quay.io/codefresh/venona", "x:latest", "x@sha256:00",
    // URLs and hosts
    "https://g.codefresh.io", "http://proxy:3128", "socks5://p:1", "ftp://x", "g.codefresh.io",
    "https://", "http://[::1", "*.example.com", "app.example.com", "/app", "app",
    // text that means something to the parsers
    "{a,b}", "{}", "[1,2]", "{\"type\":\"service_account\"}", "{", "é", "\u{0}", "\\",
    "a\\.b", "[0]", "a[1000]", "a[99999]", "a..b", "a.", ".",
];

fn interesting_text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => select(INTERESTING).prop_map(String::from),
        1 => "[ -~]{0,24}",
        1 => any::<String>(),
    ]
}

fn map_key() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => select(key_segments()).prop_map(String::from),
        1 => "[A-Za-z0-9_./\\[\\]\\\\ -]{0,12}",
        1 => any::<String>(),
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        1 => any::<i64>().prop_map(Value::from),
        1 => any::<u64>().prop_map(Value::from),
        // Non-finite floats become null, as serde_json has no NaN.
        1 => any::<f64>().prop_map(Value::from),
        4 => interesting_text().prop_map(Value::String),
    ]
}

/// Arbitrary JSON trees whose map keys are mostly real key segments.
fn json_tree() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((map_key(), inner), 0..6)
                .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A tree built from real key paths, each given an arbitrary value: close to
/// what users write, so the deep rules run, not just the unknown-key check.
fn shaped_tree() -> impl Strategy<Value = Value> {
    prop::collection::vec((select(key_paths()), json_tree()), 0..12).prop_map(|entries| {
        let mut root = Value::Object(Map::new());
        for (path, value) in entries {
            let steps = tree::parse_path(path).expect("known keys are valid paths");
            tree::set_path(&mut root, &steps, value);
        }
        root
    })
}

/// Text that looks like YAML: indented `key: value` lines, list items, flow
/// collections, anchors and tags, with real keys most of the time.
fn yamlish_text() -> impl Strategy<Value = String> {
    let line = (
        0usize..8,
        prop_oneof![
            (map_key(), interesting_text()).prop_map(|(k, v)| format!("{k}: {v}")),
            map_key().prop_map(|k| format!("{k}:")),
            interesting_text().prop_map(|v| format!("- {v}")),
            (map_key(), interesting_text()).prop_map(|(k, v)| format!("- {k}: {v}")),
            (map_key(), interesting_text()).prop_map(|(k, v)| format!("{k}: {{{k}: {v}}}")),
            (map_key(), interesting_text()).prop_map(|(k, v)| format!("{k}: [{v}, {v}]")),
            map_key().prop_map(|k| format!("{k}: &a {{x: 1}}")),
            map_key().prop_map(|k| format!("{k}: *a")),
            map_key().prop_map(|k| format!("{k}: !!binary aGk=")),
            map_key().prop_map(|k| format!("<<: *{k}")),
            Just("---".to_string()),
            Just("? [a, b]\n: c".to_string()),
            "[ -~]{0,30}",
        ],
    )
        .prop_map(|(indent, text)| format!("{}{text}", " ".repeat(indent)));
    prop::collection::vec(line, 0..16).prop_map(|lines| lines.join("\n"))
}

fn values_file_text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => yamlish_text(),
        2 => json_tree().prop_map(|v| serde_yaml_ng::to_string(&v).unwrap_or_default()),
        2 => shaped_tree().prop_map(|v| serde_yaml_ng::to_string(&v).unwrap_or_default()),
        1 => shaped_tree().prop_map(|v| v.to_string()),
        1 => any::<String>(),
    ]
}

/// `--set-value` strings: mostly `path=value` with real paths, plus paths
/// with indexes, escapes and no `=` at all.
fn set_value_string() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (select(key_paths()), interesting_text()).prop_map(|(k, v)| format!("{k}={v}")),
        2 => (
            select(key_paths()),
            0usize..4,
            map_key(),
            interesting_text()
        )
            .prop_map(|(k, i, f, v)| format!("{k}[{i}].{f}={v}")),
        1 => (map_key(), map_key(), interesting_text())
            .prop_map(|(a, b, v)| format!("{a}.{b}={v}")),
        1 => select(key_paths()).prop_map(String::from),
        1 => "[A-Za-z.\\[\\]0-9=\\\\{},]{0,30}",
        1 => any::<String>(),
    ]
}

fn set_file() -> impl Strategy<Value = SetFile> {
    (
        prop_oneof![
            3 => select(key_paths()).prop_map(|k| format!("{k}=file")),
            1 => "[ -~]{0,20}",
        ],
        prop_oneof![
            3 => values_file_text().prop_map(Ok),
            1 => "[ -~]{0,20}".prop_map(Err),
        ],
    )
        .prop_map(|(raw, contents)| SetFile { raw, contents })
}

fn override_pair() -> impl Strategy<Value = (String, Value)> {
    (
        prop_oneof![
            4 => select(key_paths()).prop_map(String::from),
            1 => "[A-Za-z.\\[\\]0-9\\\\]{0,20}",
        ],
        json_tree(),
    )
}

fn input() -> impl Strategy<Value = Input> {
    (
        prop::collection::vec(values_file_text(), 0..3),
        prop::collection::vec(set_value_string(), 0..6),
        prop::collection::vec(set_file(), 0..2),
        prop::collection::vec(override_pair(), 0..4),
    )
        .prop_map(|(files, set_values, set_files, overrides)| Input {
            files: files
                .into_iter()
                .enumerate()
                .map(|(i, text)| ValuesFile {
                    origin: format!("values-{i}.yaml"),
                    text,
                })
                .collect(),
            set_values,
            set_files,
            overrides,
        })
}

/// Loads `input` and checks the answer is coherent; panics only when the
/// values layer itself misbehaves.
fn load_and_check(input: &Input) -> Result<values::Loaded, values::Problems> {
    let result = values::load(input);
    match &result {
        Ok(loaded) => {
            // What was accepted renders into a record without trouble.
            serde_json::to_string(&loaded.redacted_tree).expect("record serialises");
            serde_json::to_string(&loaded.values).expect("values serialise");
        }
        Err(problems) => {
            assert!(
                !problems.0.is_empty(),
                "an error lists at least one problem"
            );
            let report = problems.to_string();
            assert!(report.contains("nothing was applied or written"));
        }
    }
    result
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn any_values_file_text_loads_or_fails_cleanly(text in values_file_text()) {
        let input = Input {
            files: vec![ValuesFile { origin: "values.yaml".into(), text }],
            ..Default::default()
        };
        let _ = load_and_check(&input);
    }

    #[test]
    fn any_set_value_strings_load_or_fail_cleanly(
        set_values in prop::collection::vec(set_value_string(), 0..8)
    ) {
        let _ = load_and_check(&Input { set_values, ..Default::default() });
    }

    #[test]
    fn any_json_tree_loads_or_fails_cleanly(tree in prop_oneof![json_tree(), shaped_tree()]) {
        // The same tree as a values file and as top-level flag overrides.
        let as_file = Input {
            files: vec![ValuesFile { origin: "tree.json".into(), text: tree.to_string() }],
            ..Default::default()
        };
        let _ = load_and_check(&as_file);
        let overrides = match &tree {
            Value::Object(map) => map
                .iter()
                .map(|(k, v)| (k.replace('\\', "\\\\").replace('.', "\\."), v.clone()))
                .collect(),
            other => vec![("Namespace".to_string(), other.clone())],
        };
        let _ = load_and_check(&Input { overrides, ..Default::default() });
    }

    #[test]
    fn any_mix_of_layers_loads_or_fails_cleanly(input in input()) {
        let _ = load_and_check(&input);
    }

    /// A secret, written right or wrong, in any layer, beside any other
    /// input: its text never reaches the report, the record or `Debug`.
    #[test]
    fn secrets_are_never_echoed(
        key in select(schema::SECRET_KEYS),
        marker in "[0-9]{8}",
        placement in 0usize..10,
        noise in input(),
    ) {
        let secret = format!("ZQSECRET{marker}");
        let steps = tree::parse_path(key).expect("secret keys are paths");
        let mut input = noise;
        let as_file = |value: Value| {
            let mut root = Value::Object(Map::new());
            tree::set_path(&mut root, &steps, value);
            ValuesFile {
                origin: "secret.yaml".into(),
                text: serde_yaml_ng::to_string(&root).expect("yaml"),
            }
        };
        match placement {
            0 => input.set_values.push(format!("{key}={secret}")),
            1 => input.set_values.push(format!("{key}:{secret}")),
            2 => input.set_values.push(format!("{key} {secret}")),
            3 => input.set_values.push(format!("{key}={{{secret},x}}")),
            4 => input.files.push(as_file(Value::String(secret.clone()))),
            5 => input.files.push(as_file(Value::Array(vec![Value::String(secret.clone())]))),
            6 => input.files.push(as_file(serde_json::json!({ "value": secret }))),
            7 => input.set_files.push(SetFile {
                raw: format!("{key}=key.json"),
                contents: Ok(format!("{{\"private_key\": \"{secret}\"}}")),
            }),
            8 => input.set_files.push(SetFile {
                raw: format!("{key}=key.txt"),
                contents: Ok(format!("{secret}\n")),
            }),
            _ => input.overrides.push((key.to_string(), Value::String(secret.clone()))),
        }
        match load_and_check(&input) {
            Ok(loaded) => {
                let record = loaded.redacted_tree.to_string();
                prop_assert!(!record.contains(&secret), "record: {record}");
                let debug = format!("{:?}", loaded.values);
                prop_assert!(!debug.contains(&secret), "debug: {debug}");
            }
            Err(problems) => {
                let report = problems.to_string();
                prop_assert!(!report.contains(&secret), "report: {report}");
            }
        }
    }
}

#[test]
fn deeply_nested_values_file_does_not_overflow_the_stack() {
    let depth = 10_000;
    let text = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    let _ = load_and_check(&Input {
        files: vec![ValuesFile {
            origin: "deep.yaml".into(),
            text: format!("Runtime: {{userVolumes: {text}}}"),
        }],
        ..Default::default()
    });
}
