//! What the record Secret keeps of the values: the merged values, secrets
//! redacted, naming only the secrets some rendered Secret holds. One rule
//! for every command that renders (init, upgrade, diff, adopt, the dry
//! run), so an upgrade with unchanged inputs right after `init` renders the
//! record `init` wrote, byte for byte, and writes nothing.
//!
//! Why only the held ones: an upgrade reads a redacted secret back from the
//! Secret that holds it. `Token` without the monitor (the API key `init`
//! used to register) lives in no Secret, so the record cannot promise it.

use serde_json::Value;

use super::{is_placeholder, record_keys, yaml, Manifest};
use super::{MONITOR_SECRET, PROVISIONER_SECRET, RECORD_SECRET, RUNNER_SECRET, TOKEN_KEY};

/// Where each secret value of the values lives in the cluster: key path,
/// Secret, key in the Secret.
pub const SECRET_HOMES: &[(&str, &str, &str)] = &[
    ("Token", MONITOR_SECRET, TOKEN_KEY),
    ("AgentToken", RUNNER_SECRET, TOKEN_KEY),
    (
        "Storage.AwsAccessKeyId",
        PROVISIONER_SECRET,
        "aws_access_key_id",
    ),
    (
        "Storage.AwsSecretAccessKey",
        PROVISIONER_SECRET,
        "aws_secret_access_key",
    ),
    (
        "Storage.GoogleServiceAccount",
        PROVISIONER_SECRET,
        "google-service-account.json",
    ),
];

/// True when the rendered Secret `secret` holds `key` (with a real value).
pub fn holds(manifests: &[Manifest], secret: &str, key: &str) -> bool {
    manifests
        .iter()
        .filter(|m| m.kind == "Secret" && m.name == secret)
        .filter_map(|m| m.object.pointer("/stringData").and_then(|d| d.get(key)))
        .any(|v| v.as_str().is_some_and(|t| !is_placeholder(t)))
}

/// The secrets `record` (the redacted values) names that no Secret of
/// `manifests` holds: what the record Secret leaves out.
fn unheld<'a>(
    record: &'a Value,
    manifests: &'a [Manifest],
) -> impl Iterator<Item = &'static str> + 'a {
    SECRET_HOMES
        .iter()
        .filter(move |(path, secret, key)| {
            path.split('.')
                .try_fold(record, |node, k| node.get(k))
                .is_some()
                && !holds(manifests, secret, key)
        })
        .map(|(path, _, _)| *path)
}

/// `record` (the redacted values) without the secrets no Secret of
/// `manifests` holds: what the record Secret keeps.
pub fn recorded_values(record: &Value, manifests: &[Manifest]) -> Value {
    let mut kept = record.clone();
    for path in unheld(record, manifests) {
        remove_path(&mut kept, path);
    }
    kept
}

/// Removes the dotted key `path` from `root`, if it is there.
pub fn remove_path(root: &mut Value, path: &str) {
    let mut keys: Vec<&str> = path.split('.').collect();
    let Some(last) = keys.pop() else { return };
    let mut node = root;
    for key in keys {
        match node.get_mut(key) {
            Some(child) => node = child,
            None => return,
        }
    }
    if let Some(map) = node.as_object_mut() {
        map.remove(last);
    }
}

/// Puts [`recorded_values`] into the rendered record Secret, when they
/// differ from `record`, which the template was given.
pub(super) fn keep_held(manifests: &mut [Manifest], record: &Value) {
    // Most renders name no secret that is not held: nothing to copy then.
    if unheld(record, manifests).next().is_none() {
        return;
    }
    let kept = recorded_values(record, manifests);
    let text = yaml::emit_like_serde_yaml(&kept);
    if let Some(m) = manifests
        .iter_mut()
        .find(|m| m.kind == "Secret" && m.name == RECORD_SECRET)
    {
        m.object["stringData"][record_keys::VALUES] = Value::String(text);
    }
}

#[cfg(test)]
mod tests {
    fn recorded_text(values_text: &str) -> String {
        let input = crate::values::Input {
            files: vec![crate::values::ValuesFile {
                origin: "test".into(),
                text: values_text.into(),
            }],
            ..Default::default()
        };
        let loaded = crate::values::load(&input).expect("the values load");
        let rendered = super::super::render(
            &loaded.values,
            &super::super::Identity::default(),
            &loaded.redacted_tree,
        )
        .expect("it renders");
        let record = rendered
            .manifests
            .iter()
            .find(|m| m.kind == "Secret" && m.name == super::RECORD_SECRET)
            .expect("the record is rendered");
        record.object["stringData"][super::record_keys::VALUES]
            .as_str()
            .expect("the recorded values")
            .to_string()
    }

    /// `init` registers with `Token`, which no Secret holds without the
    /// monitor: the record does not name it, as `upgrade` would not, so the
    /// first upgrade has no record to rewrite.
    #[test]
    fn the_record_names_only_the_secrets_a_secret_holds() {
        let base = "Namespace: ci\nAgentToken: agent-secret\nToken: api-secret\n";
        let names_token = |text: &str| text.lines().any(|l| l == "Token: <redacted>");
        let without = recorded_text(base);
        assert!(!names_token(&without), "{without}");
        assert!(without.contains("AgentToken: <redacted>"), "{without}");
        let with = recorded_text(&format!("{base}Monitor:\n  Enabled: true\n"));
        assert!(names_token(&with), "{with}");
        for text in [&without, &with] {
            assert!(!text.contains("api-secret") && !text.contains("agent-secret"));
        }
    }
}
