//! The untyped values tree: YAML files and `--set-value` strings become one
//! JSON-shaped tree, merged in precedence order, before anything is typed.
//!
//! Working on an untyped tree first is what lets a venonactl values file be
//! accepted unchanged, unknown keys be reported by path, and every layer
//! (file, `--set-value`, `--set-file`, flags) be merged by one rule.

use serde_json::{Map, Value};

use super::Problem;

/// One step of a dotted key path: a map key or a list index (`a.b[2].c`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Key(String),
    Index(usize),
}

/// Splits `Storage.VolumeProvisioner.NodeSelector` or `Tolerations[0].key`
/// into steps. Backslash escapes a dot inside a key
/// (`NodeSelector.kubernetes\.io/arch`).
pub fn parse_path(path: &str) -> Result<Vec<Step>, String> {
    let mut steps = Vec::new();
    let mut current = String::new();
    let mut chars = path.chars().peekable();
    let mut after_index = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(escaped) => current.push(escaped),
                None => return Err("ends with a lone backslash".into()),
            },
            '.' => {
                if current.is_empty() && !after_index {
                    return Err("has an empty key between dots".into());
                }
                if !current.is_empty() {
                    steps.push(Step::Key(std::mem::take(&mut current)));
                }
                after_index = false;
            }
            '[' => {
                if !current.is_empty() {
                    steps.push(Step::Key(std::mem::take(&mut current)));
                } else if steps.is_empty() {
                    return Err("starts with a list index".into());
                }
                let mut digits = String::new();
                loop {
                    match chars.next() {
                        Some(']') => break,
                        Some(d) if d.is_ascii_digit() => digits.push(d),
                        _ => return Err("has a list index that is not [number]".into()),
                    }
                }
                let index: usize = digits
                    .parse()
                    .map_err(|_| "has a list index that is not [number]".to_string())?;
                if index > 1000 {
                    return Err(format!("has a list index {index} over 1000"));
                }
                steps.push(Step::Index(index));
                after_index = true;
            }
            _ => {
                if after_index {
                    return Err("needs a dot after a list index".into());
                }
                current.push(c)
            }
        }
    }
    if !current.is_empty() {
        steps.push(Step::Key(current));
    } else if !after_index {
        return Err("is empty or ends with a dot".into());
    }
    Ok(steps)
}

/// Renders steps back into the dotted form used in messages.
pub fn display_path(steps: &[Step]) -> String {
    let mut out = String::new();
    for step in steps {
        match step {
            Step::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&k.replace('.', "\\."));
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// Sets `value` at `steps`, creating maps and lists on the way; a scalar in
/// the way is replaced, as Helm's `--set` does.
pub fn set_path(root: &mut Value, steps: &[Step], value: Value) {
    let mut node = root;
    for step in steps {
        node = match step {
            Step::Key(k) => {
                if !node.is_object() {
                    *node = Value::Object(Map::new());
                }
                node.as_object_mut()
                    .expect("just made an object")
                    .entry(k.clone())
                    .or_insert(Value::Null)
            }
            Step::Index(i) => {
                if !node.is_array() {
                    *node = Value::Array(Vec::new());
                }
                let list = node.as_array_mut().expect("just made an array");
                while list.len() <= *i {
                    list.push(Value::Null);
                }
                &mut list[*i]
            }
        };
    }
    *node = value;
}

/// Deep-merges `overlay` into `base`: maps merge key by key, anything else
/// replaces. A `null` in the overlay keeps the base value (an empty key in a
/// values file means "not set", as in the venonactl examples).
pub fn merge(base: &mut Value, overlay: Value) {
    match (base, overlay) {
        (_, Value::Null) => {}
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                match b.get_mut(&k) {
                    Some(existing) => merge(existing, v),
                    None => {
                        if !v.is_null() {
                            b.insert(k, v);
                        }
                    }
                }
            }
        }
        (b, o) => *b = o,
    }
}

/// Reads a values file's text into a tree. An empty file is an empty map.
pub fn parse_values_text(text: &str, origin: &str) -> Result<Value, Problem> {
    let value: Value = match serde_yaml_ng::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return Err(Problem::new(
                origin,
                None,
                format!("is not valid YAML: {e}"),
                "fix the YAML syntax at the line and column shown",
            ))
        }
    };
    match value {
        Value::Null => Ok(Value::Object(Map::new())),
        Value::Object(_) => Ok(value),
        other => Err(Problem::new(
            origin,
            None,
            format!(
                "holds a {} at the top level, not a map of keys",
                kind_name(&other)
            ),
            "a values file is a YAML map such as `Namespace: codefresh`",
        )),
    }
}

/// Types a `--set-value` string the way Helm's strvals does: `true`/`false`,
/// `null`, integers, `{a,b}` lists; everything else is a string.
pub fn typed_scalar(text: &str) -> Value {
    if let Some(inner) = text.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
        if inner.is_empty() {
            return Value::Array(Vec::new());
        }
        // Items are scalars: lists do not nest (as in Helm), so no input can
        // recurse deeply.
        return Value::Array(inner.split(',').map(|s| typed_item(s.trim())).collect());
    }
    typed_item(text)
}

fn typed_item(text: &str) -> Value {
    match text {
        "true" => return Value::Bool(true),
        "false" => return Value::Bool(false),
        "null" => return Value::Null,
        _ => {}
    }
    // Leading zeros stay strings (`007`), as do numbers too large for i64.
    let digits = text.strip_prefix('-').unwrap_or(text);
    if !digits.is_empty()
        && digits.chars().all(|c| c.is_ascii_digit())
        && !(digits.len() > 1 && digits.starts_with('0'))
    {
        if let Ok(n) = text.parse::<i64>() {
            return Value::from(n);
        }
    }
    Value::String(text.to_string())
}

/// A short name for a value's kind, for messages.
pub fn kind_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "map",
    }
}

/// Looks a dotted path (map keys only) up in the tree.
pub fn lookup<'a>(root: &'a Value, path: &str) -> Option<&'a Value> {
    let mut node = root;
    for key in path.split('.') {
        node = node.as_object()?.get(key)?;
    }
    if node.is_null() {
        None
    } else {
        Some(node)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_with_escaped_dots_and_indexes() {
        assert_eq!(
            parse_path("Runtime.NodeSelector.kubernetes\\.io/arch").unwrap(),
            vec![
                Step::Key("Runtime".into()),
                Step::Key("NodeSelector".into()),
                Step::Key("kubernetes.io/arch".into())
            ]
        );
        assert_eq!(
            parse_path("Tolerations[1].key").unwrap(),
            vec![
                Step::Key("Tolerations".into()),
                Step::Index(1),
                Step::Key("key".into())
            ]
        );
        for bad in ["", ".", "a..b", "a.", "[0]", "a[x]", "a[0]b", "a\\"] {
            assert!(parse_path(bad).is_err(), "{bad:?} should be rejected");
        }
    }

    #[test]
    fn set_creates_and_replaces() {
        let mut root = json!({"Storage": "oops"});
        set_path(
            &mut root,
            &parse_path("Storage.Backend").unwrap(),
            json!("ebs"),
        );
        set_path(&mut root, &parse_path("T[1].key").unwrap(), json!("k"));
        assert_eq!(
            root,
            json!({"Storage": {"Backend": "ebs"}, "T": [null, {"key": "k"}]})
        );
    }

    #[test]
    fn merge_keeps_base_for_null_and_merges_maps() {
        let mut base = json!({"a": {"b": 1, "c": 2}, "d": [1]});
        merge(&mut base, json!({"a": {"c": 3, "e": null}, "d": [2, 3]}));
        assert_eq!(base, json!({"a": {"b": 1, "c": 3}, "d": [2, 3]}));
    }

    #[test]
    fn scalars_are_typed_like_helm() {
        assert_eq!(typed_scalar("true"), json!(true));
        assert_eq!(typed_scalar("42"), json!(42));
        assert_eq!(typed_scalar("007"), json!("007"));
        assert_eq!(typed_scalar("1.5"), json!("1.5"));
        assert_eq!(typed_scalar("{a, b}"), json!(["a", "b"]));
        assert_eq!(
            typed_scalar("99999999999999999999"),
            json!("99999999999999999999")
        );
    }
}
