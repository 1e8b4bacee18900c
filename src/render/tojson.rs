//! The templates' one filter, `tojson`, with the bytes MiniJinja's own
//! writes (HTML-safe: `<`, `>`, `&` and `'` escaped too). Strings, and
//! lists and maps of strings, booleans and whole numbers (all the 106 uses
//! insert), are written here directly; MiniJinja's filter first works out
//! its optional `indent` argument and keywords on every call, about as
//! much work as writing a string. Anything else (a float, say) goes to
//! MiniJinja's filter as before.

use minijinja::value::{Kwargs, ObjectRepr, ValueKind};
use minijinja::{Error, Value};

/// `value | tojson`, byte for byte as `minijinja::filters::tojson` writes it.
pub fn tojson(value: &Value) -> Result<Value, Error> {
    let mut out = String::new();
    if write_json(value, &mut out) {
        return Ok(Value::from_safe_string(out));
    }
    minijinja::filters::tojson(
        value,
        None,
        Kwargs::from_iter(std::iter::empty::<(&str, Value)>()),
    )
}

/// Writes `value` as MiniJinja's spaced JSON (`", "` between items, `": "`
/// after a key) when it holds only strings, booleans, none, whole numbers
/// and lists and maps of them with string keys; false (and `out` to be
/// dropped) for anything else, which MiniJinja's filter then writes.
fn write_json(value: &Value, out: &mut String) -> bool {
    match value.kind() {
        ValueKind::String => match value.as_str() {
            Some(text) => write_json_string(text, out),
            None => return false,
        },
        ValueKind::None => out.push_str("null"),
        ValueKind::Bool => out.push_str(if value.is_true() { "true" } else { "false" }),
        ValueKind::Number if value.is_integer() => match i64::try_from(value.clone()) {
            Ok(n) => {
                use std::fmt::Write;
                let _ = write!(out, "{n}");
            }
            Err(_) => return false,
        },
        ValueKind::Seq | ValueKind::Map => {
            let Some(object) = value.as_object() else {
                return false;
            };
            let map = match object.repr() {
                ObjectRepr::Seq => false,
                ObjectRepr::Map => true,
                _ => return false,
            };
            out.push(if map { '{' } else { '[' });
            if map {
                let Some(pairs) = object.try_iter_pairs() else {
                    return false;
                };
                for (i, (key, item)) in pairs.enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    if key.kind() != ValueKind::String {
                        return false;
                    }
                    match key.as_str() {
                        Some(text) => write_json_string(text, out),
                        None => return false,
                    }
                    out.push_str(": ");
                    if !write_json(&item, out) {
                        return false;
                    }
                }
            } else {
                let Some(items) = object.try_iter() else {
                    return false;
                };
                for (i, item) in items.enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    if !write_json(&item, out) {
                        return false;
                    }
                }
            }
            out.push(if map { '}' } else { ']' });
        }
        _ => return false,
    }
    true
}

/// A JSON string literal with the HTML special characters escaped as
/// `\u00XX`, as MiniJinja writes them.
fn write_json_string(text: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    let bytes = text.as_bytes();
    let mut start = 0;
    for (at, &byte) in bytes.iter().enumerate() {
        let escape = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\x08' => "\\b",
            b'\x0c' => "\\f",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            b if b < 0x20 || matches!(b, b'<' | b'>' | b'&' | b'\'') => "",
            _ => continue,
        };
        out.push_str(&text[start..at]);
        if escape.is_empty() {
            out.push_str("\\u00");
            out.push(HEX[(byte >> 4) as usize] as char);
            out.push(HEX[(byte & 0xf) as usize] as char);
        } else {
            out.push_str(escape);
        }
        start = at + 1;
    }
    out.push_str(&text[start..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn builtin(value: &Value) -> String {
        minijinja::filters::tojson(
            value,
            None,
            Kwargs::from_iter(std::iter::empty::<(&str, Value)>()),
        )
        .unwrap()
        .to_string()
    }

    #[test]
    fn every_value_is_written_as_minijinjas_own_tojson_writes_it() {
        let mut strings: Vec<String> = [
            "",
            "a",
            "plain-word",
            "<placeholder: token, issued by the platform>",
            "it's a \"quote\" & a \\ backslash",
            "line\nbreak\r\ttab\x08\x0c\x01\x1f\x7f",
            "ünïcödé \u{2028} \u{85} 😀",
            "x'y<z>&",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // Every byte below 0x80 on its own and amid text.
        for b in 0u8..0x80 {
            let c = b as char;
            strings.push(c.to_string());
            strings.push(format!("ab{c}cd{c}"));
        }
        for s in &strings {
            let value = Value::from(s.as_str());
            assert_eq!(
                tojson(&value).unwrap().to_string(),
                builtin(&value),
                "{s:?}"
            );
            let value = Value::from(s.clone());
            assert_eq!(
                tojson(&value).unwrap().to_string(),
                builtin(&value),
                "{s:?}"
            );
        }
        // Not strings: MiniJinja's filter, as before.
        let others = [
            Value::from(3),
            Value::from(true),
            Value::from(()),
            Value::from(vec!["a", "<b>"]),
            Value::from(minijinja::value::Serde(
                serde_json::json!({"k": "v<", "n": [1, 2], "e": {}}),
            )),
            Value::from_bytes(b"raw".to_vec()),
            Value::from(-7i64),
            Value::from(u64::MAX),
            Value::from(1.5),
            Value::from(Vec::<Value>::new()),
            Value::from(minijinja::value::Serde(serde_json::json!({}))),
            Value::from(minijinja::value::Serde(serde_json::json!({
                "nodeSelector": {"kubernetes.io/arch": "amd64", "x": "it's <b>"},
                "tolerations": [{"key": "a", "operator": "Exists", "effect": "NoSchedule"}],
                "limits": {"cpu": "400m", "memory": 1200, "neg": -3, "f": 0.25},
                "list": [[], [1, "two", null, true, false], {"n": {"m": []}}],
            }))),
            Value::from(minijinja::value::Serde(serde_json::json!({
                "nodeSelector": {"kubernetes.io/arch": "amd64", "x": "it's <b>"},
                "tolerations": [{"key": "a", "operator": "Exists", "effect": "NoSchedule"}],
                "limits": {"cpu": "400m", "memory": 1200, "neg": -3, "big": u64::MAX},
                "list": [[], [1, "two", null, true, false], {"n": {"m": []}}],
            }))),
            Value::from(minijinja::value::Serde(std::collections::BTreeMap::from([
                (1, "a"),
            ]))),
        ];
        for value in &others {
            assert_eq!(
                tojson(value).unwrap().to_string(),
                builtin(value),
                "{value:?}"
            );
        }
    }
}
