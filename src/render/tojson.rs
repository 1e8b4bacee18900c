//! The templates' one filter, `tojson`, with the bytes MiniJinja's own
//! writes (HTML-safe: `<`, `>`, `&` and `'` escaped too). A string, which
//! most of the 106 uses insert, is written here directly; MiniJinja's
//! filter first works out its optional `indent` argument and keywords on
//! every call, about as much work as writing the string. Anything else
//! goes to MiniJinja's filter as before.

use minijinja::value::{Kwargs, ValueKind};
use minijinja::{Error, Value};

/// `value | tojson`, byte for byte as `minijinja::filters::tojson` writes it.
pub fn tojson(value: &Value) -> Result<Value, Error> {
    if value.kind() == ValueKind::String {
        if let Some(text) = value.as_str() {
            let mut out = String::with_capacity(text.len() + 2);
            write_json_string(text, &mut out);
            return Ok(Value::from_safe_string(out));
        }
    }
    minijinja::filters::tojson(
        value,
        None,
        Kwargs::from_iter(std::iter::empty::<(&str, Value)>()),
    )
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
