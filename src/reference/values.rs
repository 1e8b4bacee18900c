//! `docs/reference/values.md`: every key of a values file, read from the
//! JSON Schema `cf-runner schema` prints (`values::json_schema`), so the
//! page says what the validator accepts: the key's path, its type, its
//! accepted words, and its description.

use serde_json::Value;

use crate::values::json_schema::values_schema;

/// One key of the schema, flattened.
struct KeyDoc {
    /// `Storage.Backend`, `Runtimes[].Namespace`.
    path: String,
    /// `string`, `boolean`, `map`, ...; several joined by ` or `.
    types: String,
    /// The accepted words, when the schema lists them.
    words: Vec<String>,
    /// The description, plus default, required and deprecated notes.
    text: String,
}

/// The page.
pub(super) fn page() -> String {
    let schema = values_schema();
    let mut keys = Vec::new();
    walk(&schema, "", &mut keys);
    let mut out = format!(
        "# Values\n\n{}\n\nThe keys below are those of the JSON Schema `cf-runner schema` \
         prints (for an editor or a CI linter). `[]` in a path is any item of a list. \
         A boolean may also be written as the string `\"true\"` or `\"false\"`, as venonactl \
         accepted.\n\n| key | type | description |\n|---|---|---|\n",
        super::prose(schema["description"].as_str().unwrap_or_default())
    );
    for key in keys {
        let mut description = super::prose(&key.text);
        if !key.words.is_empty() {
            description.push_str(&format!(" One of: {}.", key.words.join(", ")));
        }
        out.push_str(&format!(
            "| `{}` | {} | {} |\n",
            key.path,
            key.types,
            super::table_cell(&description)
        ));
    }
    out
}

/// Collects a row for each key under `node`'s properties (and list items),
/// depth first in the schema's order.
fn walk(node: &Value, path: &str, out: &mut Vec<KeyDoc>) {
    let required: Vec<&str> = node["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(properties) = node["properties"].as_object() {
        for (name, child) in properties {
            let child_path = if path.is_empty() {
                name.clone()
            } else {
                format!("{path}.{name}")
            };
            out.push(key_doc(
                &child_path,
                child,
                required.contains(&name.as_str()),
            ));
            walk(child, &child_path, out);
            for branch in child["anyOf"].as_array().into_iter().flatten() {
                walk(branch, &child_path, out);
            }
            if child["items"].is_object() {
                walk(&child["items"], &format!("{child_path}[]"), out);
            }
        }
    }
}

/// The row of one key.
fn key_doc(path: &str, node: &Value, required: bool) -> KeyDoc {
    let branches: Vec<&Value> = std::iter::once(node)
        .chain(node["anyOf"].as_array().into_iter().flatten())
        .collect();
    let mut types: Vec<String> = Vec::new();
    let mut words: Vec<String> = Vec::new();
    for branch in &branches {
        for t in type_names(branch) {
            if !types.contains(&t) {
                types.push(t);
            }
        }
        for word in branch["enum"].as_array().into_iter().flatten() {
            words.push(format!("`{}`", word_text(word)));
        }
    }
    // "" and null leave a key unset, as for every key; "true" and "false"
    // only spell a boolean as a string.
    words.retain(|w| !matches!(w.as_str(), "``" | "`null`"));
    if types.iter().any(|t| t == "boolean") {
        words.retain(|w| !matches!(w.as_str(), "`true`" | "`false`"));
    }
    if types.is_empty() && !words.is_empty() {
        types.push("word".to_string());
    }
    let mut text = node["description"].as_str().unwrap_or_default().to_string();
    if let Some(default) = node.get("default") {
        text.push_str(&format!(" Default: `{default}`."));
    }
    if required {
        text.push_str(" Required.");
    }
    if node["deprecated"] == Value::Bool(true) {
        text.push_str(" Deprecated.");
    }
    if node["writeOnly"] == Value::Bool(true) {
        text.push_str(" A secret: masked wherever cf-runner shows or records values.");
    }
    KeyDoc {
        path: path.to_string(),
        types: match types.join(" or ").as_str() {
            "" => "any".to_string(),
            // What venonactl read as text: any YAML scalar is taken.
            "string or number or boolean" => "scalar".to_string(),
            joined => joined.to_string(),
        },
        words,
        text: text.trim().to_string(),
    }
}

/// The type names of one schema node, `null` left out (every key may be
/// empty), an object with free keys called a map.
fn type_names(node: &Value) -> Vec<String> {
    let names: Vec<&str> = match &node["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    names
        .into_iter()
        .filter(|t| *t != "null")
        .map(|t| match t {
            "object" if node["additionalProperties"].is_object() => "map".to_string(),
            "array" => "list".to_string(),
            other => other.to_string(),
        })
        .collect()
}

/// An accepted word as written in a values file.
fn word_text(word: &Value) -> String {
    match word {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
