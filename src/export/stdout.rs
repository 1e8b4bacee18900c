//! An export on stdout: the manifests as one stream and the Helm values,
//! with every secret value withheld (stdout ends up in logs).

use serde_json::Value;

use super::{runtime_environment_text, to_yaml, RUNTIME_ENVIRONMENT_FILE};
use crate::render::Rendered;
use crate::values::secrets;

/// The Helm values for stdout: every string holding one of `hide`
/// withheld, URL credentials masked. Gives the text (the header comments
/// kept) and how many values were hidden.
pub fn helm_values_for_stdout(text: &str, hide: &[String]) -> (String, usize) {
    let header: String = text
        .lines()
        .take_while(|l| l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    let tree: Value = serde_yaml_ng::from_str(text).expect("cf-runner's Helm values parse");
    let mut hidden = 0;
    let tree = withhold_in(&tree, hide, &mut hidden);
    (format!("{header}{}", to_yaml(&tree)), hidden)
}

fn withhold_in(value: &Value, hide: &[String], hidden: &mut usize) -> Value {
    match value {
        Value::String(s) => {
            if hide.iter().any(|h| s.contains(h.as_str())) {
                *hidden += 1;
                Value::String("<withheld from stdout: name a file to get it>".into())
            } else if let Some(m) = crate::text::mask_value(s) {
                *hidden += 1;
                Value::String(m)
            } else {
                value.clone()
            }
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| withhold_in(v, hide, hidden)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), withhold_in(v, hide, hidden)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// One multi-document YAML stream for stdout: every object, then the
/// runtime environment's spec as comment lines (kubectl skips them; strip
/// the leading `# ` to read the spec). Secret values other than placeholders
/// are withheld (stdout ends up in logs); returns the stream and how many
/// values were withheld.
pub fn to_stream(rendered: &Rendered) -> (String, usize) {
    // About 40 KB for the largest example: one allocation, no regrowth.
    let mut out = String::with_capacity(64 * 1024);
    let mut withheld = 0;
    for m in &rendered.manifests {
        out.push_str("---\n");
        // A copy only of a Secret, whose values are withheld. Withheld
        // values are replaced whole, so masking first changes nothing of
        // what is shown. Any other object is written as it stands, with
        // URL credentials masked string by string as they are written
        // (what `secrets::mask_urls_in` does to a copy).
        if m.is_secret() {
            let mut object = secrets::mask_urls_in(&m.object);
            withheld += withhold_secret_values(&mut object);
            crate::render::yaml::emit_into(&object, &mut out);
        } else {
            crate::render::yaml::emit_masked_into(&m.object, &mut out, &crate::text::mask_value);
        }
    }
    out.push_str(&format!(
        "# ---- {RUNTIME_ENVIRONMENT_FILE} (not a Kubernetes object) ----\n"
    ));
    for line in runtime_environment_text(&rendered.runtime_environment).lines() {
        if line.starts_with('#') {
            out.push_str(line);
        } else {
            out.push_str("# ");
            out.push_str(line);
        }
        out.push('\n');
    }
    (out, withheld)
}

fn withhold_secret_values(secret: &mut Value) -> usize {
    let mut count = 0;
    for field in ["stringData", "data"] {
        if let Some(Value::Object(map)) = secret.get_mut(field) {
            for (key, value) in map.iter_mut() {
                let is_placeholder = value
                    .as_str()
                    .is_some_and(|s| s.starts_with("<placeholder:"));
                if !is_placeholder && !is_record_field(key) {
                    *value = Value::String(
                        "<withheld from stdout: use --output-dir to write it to a 0600 file>"
                            .into(),
                    );
                    count += 1;
                }
            }
        }
    }
    count
}

/// The record Secret's fields are already redacted and safe to show.
fn is_record_field(key: &str) -> bool {
    matches!(
        key,
        "cf-runner-version"
            | "record-format"
            | "agent-name"
            | "runtime-name"
            | "registered-on-platform"
            | "values.yaml"
    )
}
