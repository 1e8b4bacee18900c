//! A fast path for the YAML a dry-run reads and writes: the documents the
//! embedded templates render, and the objects written to an export.
//!
//! Reading: the templates use a small, known part of YAML (block mappings
//! and sequences, plain words and whole numbers, and every value from the
//! user inserted as JSON). `parse` reads that part itself and hands anything
//! else to the full YAML parser, so a template that strays outside it is
//! slower, never read differently (a test compares both on every example).
//!
//! Writing: `emit` writes a JSON tree as block YAML. A string is written
//! plain only when no YAML 1.1 or 1.2 reader could take it for anything else;
//! otherwise it is quoted, or a literal block when it has several lines.
//! Tests read every emitted document back with the full parser.
//!
//! Both exist for speed alone: together they were a third of a dry-run's own
//! CPU time with the general-purpose parser and emitter (issue 11).

use serde_json::{Map, Number, Value};

/// Reads one rendered YAML document.
pub fn parse(doc: &str) -> Result<Value, String> {
    if let Some(value) = parse_known(doc) {
        return Ok(value);
    }
    serde_yaml_ng::from_str(doc).map_err(|e| e.to_string())
}

/// One meaningful line: its indentation and its text. A `- ` item becomes a
/// dash at the item's column and a line two columns in.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Token<'a> {
    Dash(usize),
    Line(usize, &'a str),
}

impl Token<'_> {
    fn indent(&self) -> usize {
        match self {
            Token::Dash(n) | Token::Line(n, _) => *n,
        }
    }
}

/// The known subset, or `None` when the document uses anything else.
pub fn parse_known(doc: &str) -> Option<Value> {
    let mut tokens = Vec::new();
    for raw in doc.lines() {
        if !push_tokens(raw, &mut tokens) {
            return None;
        }
    }
    tokens_to_value(&tokens)
}

/// Adds the tokens of one line (with or without its line break) to
/// `tokens`; false when the line is outside the known subset.
fn push_tokens<'a>(raw: &'a str, tokens: &mut Vec<Token<'a>>) -> bool {
    let text = raw.trim_end();
    let body = text.trim_start_matches(' ');
    if body.is_empty() || body.starts_with('#') {
        return true;
    }
    if body.starts_with('\t') || body.starts_with("---") || body.starts_with("...") {
        return false;
    }
    let mut indent = text.len() - body.len();
    let mut body = body;
    while body == "-" || body.starts_with("- ") {
        tokens.push(Token::Dash(indent));
        let rest = body[1..].trim_start_matches(' ');
        if rest.is_empty() {
            body = rest;
            break;
        }
        indent += body.len() - rest.len();
        body = rest;
    }
    if !body.is_empty() {
        tokens.push(Token::Line(indent, body));
    }
    true
}

/// The value of a whole document's tokens, or `None` outside the subset.
fn tokens_to_value(tokens: &[Token]) -> Option<Value> {
    if tokens.is_empty() {
        return Some(Value::Null);
    }
    let mut pos = 0;
    let value = node(tokens, &mut pos, 0)?;
    (pos == tokens.len()).then_some(value)
}

/// Reads a rendered multi-document stream: the documents that
/// [`split_documents`](super::split_documents) finds, each read as
/// [`parse`] reads it, in one pass over the lines instead of two (one to
/// split, one to read). An error names the index of the document among
/// those kept.
pub fn parse_documents(stream: &str) -> Result<Vec<Value>, (usize, String)> {
    let mut docs = Vec::new();
    let mut tokens = Vec::with_capacity(128);
    // The open document: where it starts, whether a line in it holds
    // anything but blanks or a comment, and whether it is in the subset.
    let (mut start, mut kept, mut known) = (0, false, true);
    let mut finish = |doc: &str, tokens: &mut Vec<Token>, kept: bool, known: bool| {
        let read = if !kept {
            None
        } else if let Some(value) = known.then(|| tokens_to_value(tokens)).flatten() {
            Some(Ok(value))
        } else {
            Some(serde_yaml_ng::from_str(doc).map_err(|e| e.to_string()))
        };
        tokens.clear();
        match read {
            None => Ok(()),
            Some(Ok(value)) => {
                docs.push(value);
                Ok(())
            }
            Some(Err(message)) => Err((docs.len(), message)),
        }
    };
    let mut offset = 0;
    let bytes = stream.as_bytes();
    while offset < bytes.len() {
        // `find` of one ASCII character is core's word-at-a-time memchr.
        let end = stream[offset..]
            .find('\n')
            .map_or(bytes.len(), |at| offset + at + 1);
        let line = &stream[offset..end];
        if line.trim_end() == "---" {
            finish(&stream[start..offset], &mut tokens, kept, known)?;
            (start, kept, known) = (end, false, true);
        } else {
            kept = kept || (!line.trim().is_empty() && !line.trim_start().starts_with('#'));
            known = known && push_tokens(line, &mut tokens);
        }
        offset = end;
    }
    finish(&stream[start..], &mut tokens, kept, known)?;
    Ok(docs)
}

/// The node that starts at `pos`, indented at least `min`.
fn node(tokens: &[Token], pos: &mut usize, min: usize) -> Option<Value> {
    match *tokens.get(*pos)? {
        Token::Dash(n) if n >= min => sequence(tokens, pos, n),
        Token::Line(n, text) if n >= min => {
            if key_and_rest(text).is_some() {
                mapping(tokens, pos, n)
            } else {
                *pos += 1;
                scalar(text)
            }
        }
        _ => None,
    }
}

fn sequence(tokens: &[Token], pos: &mut usize, indent: usize) -> Option<Value> {
    let mut items = Vec::new();
    while tokens.get(*pos) == Some(&Token::Dash(indent)) {
        *pos += 1;
        match tokens.get(*pos) {
            Some(t) if t.indent() > indent => items.push(node(tokens, pos, indent + 1)?),
            _ => items.push(Value::Null),
        }
    }
    match tokens.get(*pos) {
        Some(t) if t.indent() > indent => None,
        _ => Some(Value::Array(items)),
    }
}

fn mapping(tokens: &[Token], pos: &mut usize, indent: usize) -> Option<Value> {
    let mut map = Map::new();
    while let Some(Token::Line(n, text)) = tokens.get(*pos).copied() {
        if n != indent {
            break;
        }
        let (key, rest) = key_and_rest(text)?;
        *pos += 1;
        let value = if rest.is_empty() {
            match tokens.get(*pos) {
                Some(t) if t.indent() > indent => node(tokens, pos, indent + 1)?,
                // A sequence may sit at its key's own column.
                Some(Token::Dash(n)) if *n == indent => sequence(tokens, pos, indent)?,
                _ => Value::Null,
            }
        } else {
            scalar(rest)?
        };
        if map.insert(key, value).is_some() {
            return None; // a duplicate key: the full parser says what it thinks
        }
    }
    match tokens.get(*pos) {
        Some(t) if t.indent() > indent => None,
        _ => Some(Value::Object(map)),
    }
}

/// `key: rest` or `key:`, with a plain or JSON-quoted key.
fn key_and_rest(text: &str) -> Option<(String, &str)> {
    if text.starts_with('"') {
        if let Some((key, after)) = simple_json_string(text) {
            let rest = after.strip_prefix(':')?;
            return (rest.is_empty() || rest.starts_with(' '))
                .then(|| (key.to_string(), rest.trim_start()));
        }
        let mut stream = serde_json::Deserializer::from_str(text).into_iter::<String>();
        let key = stream.next()?.ok()?;
        let after = &text[stream.byte_offset()..];
        let rest = after.strip_prefix(':')?;
        return (rest.is_empty() || rest.starts_with(' ')).then(|| (key, rest.trim_start()));
    }
    // A plain key holds no `:`, so it ends at the first one, which must be
    // followed by a space or end the line.
    let at = text.bytes().position(|b| b == b':')?;
    let (key, after) = (&text[..at], &text[at + 1..]);
    let rest = if after.is_empty() {
        ""
    } else {
        after.strip_prefix(' ')?.trim_start()
    };
    plain_string(key).map(|key| (key.to_string(), rest))
}

/// A JSON string with no escape in it at the start of `text` (the common
/// case of what `tojson` writes), as its content and what follows it;
/// `None` for anything else, which the JSON reader then reads.
fn simple_json_string(text: &str) -> Option<(&str, &str)> {
    let inner = text.strip_prefix('"')?;
    let end = inner
        .bytes()
        .position(|b| b == b'"' || b == b'\\' || b < 0x20)?;
    (inner.as_bytes()[end] == b'"').then(|| (&inner[..end], &inner[end + 1..]))
}

/// A value on one line: JSON, or a plain word or whole number.
fn scalar(text: &str) -> Option<Value> {
    if let Some((content, "")) = simple_json_string(text) {
        return Some(Value::String(content.to_string()));
    }
    if text.starts_with(['"', '[', '{']) {
        // The JSON the templates insert; YAML reads it the same way. Numbers
        // other than whole ones are left to the full parser.
        let value: Value = serde_json::from_str(text).ok()?;
        return only_whole_numbers(&value).then_some(value);
    }
    if let Some(n) = whole_number(text) {
        return Some(Value::Number(n));
    }
    match text {
        "true" => Some(Value::Bool(true)),
        "false" => Some(Value::Bool(false)),
        "null" | "~" => Some(Value::Null),
        _ => plain_string(text).map(|s| Value::String(s.to_string())),
    }
}

fn only_whole_numbers(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.is_i64() || n.is_u64(),
        Value::Array(items) => items.iter().all(only_whole_numbers),
        Value::Object(map) => map.values().all(only_whole_numbers),
        _ => true,
    }
}

/// `0`, or digits with no leading zero and an optional minus, that fit i64.
fn whole_number(text: &str) -> Option<Number> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if digits.len() > 1 && digits.starts_with('0') {
        return None;
    }
    text.parse::<i64>().ok().map(Number::from)
}

/// Words no YAML reader resolves to anything but a string.
const RESERVED: &[&str] = &[
    "y", "n", "yes", "no", "on", "off", "true", "false", "null", "~", "nan", "inf", "infinity",
];

/// The text itself when it is a string every YAML reader (1.1, as kubectl
/// and Go read it, or 1.2) reads as that same string written plain:
/// - only letters, digits and `_ . / - % : @ = +`, never ending in `:`;
/// - starting with a letter, `_` or `/`; or with `-` or `--` then a letter
///   (`--resync-period=50s`); or with a digit when a letter that no number
///   form uses follows (`500m`, `1200Mi`), and no `:` (no sexagesimal),
///   or a percentage (`50%`);
/// - and no word a reader resolves to a boolean, null or a float.
fn plain_string(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let first = *bytes.first()?;
    if !all_plain_bytes(bytes) || text.ends_with(':') {
        return None;
    }
    let dashed = text.strip_prefix("--").or_else(|| text.strip_prefix('-'));
    let starts_well = match first {
        // Go's readers (kubectl) take `-inf` or `-NaN` for floats.
        b'-' => dashed.is_some_and(|rest| {
            rest.starts_with(|c: char| c.is_ascii_alphabetic()) && !is_reserved(rest)
        }),
        b'0'..=b'9' => {
            // Hex digits, exponents (`p` too: Go reads hex floats such as
            // `0x1p-2`) and base prefixes are number forms.
            let non_numeric =
                |b: &u8| b.is_ascii_alphabetic() && !b"aAbBcCdDeEfFoOpPxX".contains(b);
            let percent = text
                .strip_suffix('%')
                .is_some_and(|d| d.bytes().all(|b| b.is_ascii_digit()));
            percent || (!text.contains(':') && bytes.iter().any(non_numeric))
        }
        b => b.is_ascii_alphabetic() || b == b'_' || b == b'/',
    };
    (starts_well && !is_reserved(text)).then_some(text)
}

/// Every byte of `bytes` is a [`PLAIN_BYTE`]. Eight at a time without a
/// branch per byte: most strings tested are plain, so the whole of each is
/// read anyway.
fn all_plain_bytes(bytes: &[u8]) -> bool {
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        if !chunk
            .iter()
            .fold(true, |all, &b| all & PLAIN_BYTE[b as usize])
        {
            return false;
        }
    }
    chunks.remainder().iter().all(|&b| PLAIN_BYTE[b as usize])
}

/// The bytes a plain string may hold: letters, digits and `_ . / - % : @ = +`.
const PLAIN_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'_' | b'.' | b'/' | b'-' | b'%' | b':' | b'@' | b'=' | b'+'
            );
        b += 1;
    }
    table
};

/// The length of the longest [`RESERVED`] word.
const LONGEST_RESERVED: usize = {
    let (mut i, mut longest) = (0, 0);
    while i < RESERVED.len() {
        if RESERVED[i].len() > longest {
            longest = RESERVED[i].len();
        }
        i += 1;
    }
    longest
};

/// One of the [`RESERVED`] words, in any case. Most strings are longer
/// than the longest of them, so the length decides first.
fn is_reserved(text: &str) -> bool {
    text.len() <= LONGEST_RESERVED && RESERVED.iter().any(|w| text.eq_ignore_ascii_case(w))
}

/// Writes a JSON tree as one block-style YAML document.
pub fn emit(value: &Value) -> String {
    let mut out = String::with_capacity(1024);
    emit_into(value, &mut out);
    out
}

/// The text the general-purpose emitter (`serde_yaml_ng::to_string`)
/// writes for `value`, without running it on the whole tree when [`emit`]
/// can give the same bytes: every key one [`emit`] writes plain (a word no
/// reader takes for anything else, which the general emitter writes plain
/// too), every number whole, no collection empty, and every other string
/// on one line with no blank or control character in it, which is written
/// the way the general emitter writes it alone (quoted or not: with no
/// blank in it, where it stands changes nothing). Anything else goes to the
/// general emitter whole. The values record is stored byte for byte, so the
/// two must never differ.
pub fn emit_like_serde_yaml(value: &Value) -> String {
    fn collect<'a>(
        value: &'a Value,
        as_written: &mut std::collections::HashMap<&'a str, String>,
    ) -> bool {
        match value {
            Value::Null | Value::Bool(_) => true,
            Value::Number(n) => n.is_i64() || n.is_u64(),
            Value::String(s) if plain_string(s).is_some() => true,
            Value::String(s) => {
                if s.is_empty() || !s.chars().all(|c| c.is_ascii_graphic()) {
                    return false;
                }
                if !as_written.contains_key(s.as_str()) {
                    let Ok(text) = serde_yaml_ng::to_string(s) else {
                        return false;
                    };
                    match text.strip_suffix('\n') {
                        Some(line) if !line.contains('\n') && !line.starts_with("---") => {
                            as_written.insert(s, line.to_string());
                        }
                        _ => return false,
                    }
                }
                true
            }
            Value::Array(items) => {
                !items.is_empty() && items.iter().all(|v| collect(v, as_written))
            }
            Value::Object(map) => {
                !map.is_empty()
                    && map
                        .iter()
                        .all(|(k, v)| plain_string(k).is_some() && collect(v, as_written))
            }
        }
    }
    let mut as_written = std::collections::HashMap::new();
    if collect(value, &mut as_written) {
        let mut out = String::with_capacity(1024);
        emit_with(
            value,
            &mut out,
            Strings {
                as_written: Some(&as_written),
                mask: None,
            },
        );
        out
    } else {
        serde_yaml_ng::to_string(value).expect("a JSON tree serializes")
    }
}

/// [`emit`], appended to `out` (a stream of documents grows one buffer).
pub fn emit_into(value: &Value, out: &mut String) {
    emit_with(value, out, Strings::default());
}

/// [`emit_into`] with every string value (not key) first passed through
/// `mask`, which gives the text to write instead, or `None` to write it as
/// it is. The same bytes as emitting a copy of `value` with those strings
/// replaced, without making the copy or walking the tree twice (once to
/// find whether anything changes, once to copy).
pub fn emit_masked_into(value: &Value, out: &mut String, mask: Mask) {
    emit_with(
        value,
        out,
        Strings {
            as_written: None,
            mask: Some(mask),
        },
    );
}

/// How strings are written: `as_written` holds strings that are not plain,
/// as the general emitter writes each one (see [`emit_like_serde_yaml`]),
/// `None` for [`emit`]'s own quoting; `mask` replaces string values (see
/// [`emit_masked_into`]).
#[derive(Clone, Copy, Default)]
struct Strings<'a> {
    as_written: Option<&'a std::collections::HashMap<&'a str, String>>,
    mask: Option<Mask<'a>>,
}

/// What [`emit_masked_into`] passes every string value through.
type Mask<'a> = &'a dyn Fn(&str) -> Option<String>;

type AsWritten<'a> = Strings<'a>;

fn emit_with(value: &Value, out: &mut String, as_written: AsWritten) {
    match value {
        Value::Object(map) if !map.is_empty() => mapping_out(map, 0, out, as_written),
        Value::Array(items) if !items.is_empty() => sequence_out(items, 0, out, as_written),
        other => {
            scalar_out(other, 0, out, as_written);
            out.push('\n');
        }
    }
}

fn pad(out: &mut String, indent: usize) {
    const SPACES: &str = "                                ";
    let mut left = indent;
    while left > 0 {
        let n = left.min(SPACES.len());
        out.push_str(&SPACES[..n]);
        left -= n;
    }
}

fn mapping_out(map: &Map<String, Value>, indent: usize, out: &mut String, as_written: AsWritten) {
    for (i, (key, value)) in map.iter().enumerate() {
        if i > 0 {
            pad(out, indent);
        }
        key_out(key, out);
        out.push(':');
        after_key(value, indent, out, as_written);
    }
}

/// What follows `key:` (or stands after `- `).
fn after_key(value: &Value, indent: usize, out: &mut String, as_written: AsWritten) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push('\n');
            pad(out, indent + 2);
            mapping_out(map, indent + 2, out, as_written);
        }
        Value::Array(items) if !items.is_empty() => {
            out.push('\n');
            pad(out, indent);
            sequence_out(items, indent, out, as_written);
        }
        other => {
            out.push(' ');
            scalar_out(other, indent, out, as_written);
            out.push('\n');
        }
    }
}

fn sequence_out(items: &[Value], indent: usize, out: &mut String, as_written: AsWritten) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            pad(out, indent);
        }
        out.push_str("- ");
        match item {
            Value::Object(map) if !map.is_empty() => mapping_out(map, indent + 2, out, as_written),
            Value::Array(inner) if !inner.is_empty() => {
                sequence_out(inner, indent + 2, out, as_written)
            }
            other => {
                scalar_out(other, indent, out, as_written);
                out.push('\n');
            }
        }
    }
}

fn key_out(key: &str, out: &mut String) {
    if plain_string(key).is_some() {
        out.push_str(key);
    } else {
        quoted(key, out);
    }
}

/// A scalar or an empty collection; a string of several lines becomes a
/// literal block indented under `indent`.
fn scalar_out(value: &Value, indent: usize, out: &mut String, as_written: AsWritten) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            use std::fmt::Write;
            let _ = write!(out, "{n}");
        }
        Value::Object(_) => out.push_str("{}"),
        Value::Array(_) => out.push_str("[]"),
        Value::String(s) => {
            if let Some(masked) = as_written.mask.and_then(|mask| mask(s)) {
                let unmasked = Strings {
                    mask: None,
                    ..as_written
                };
                return scalar_out(&Value::String(masked), indent, out, unmasked);
            }
            if plain_string(s).is_some() {
                out.push_str(s);
            } else if let Some(text) = as_written.as_written.and_then(|w| w.get(s.as_str())) {
                out.push_str(text);
            } else if let Some(chomp) = literal_block(s) {
                out.push('|');
                out.push_str(chomp);
                for line in s.lines() {
                    out.push('\n');
                    if !line.is_empty() {
                        pad(out, indent + 2);
                        out.push_str(line);
                    }
                }
            } else {
                quoted(s, out);
            }
        }
    }
}

/// The chomping indicator when `s` can be a literal block: several lines,
/// the first not starting with a space, every character printable, no
/// carriage return, and at most one line break at the end.
fn literal_block(s: &str) -> Option<&'static str> {
    let body = s.strip_suffix('\n');
    let inner = body.unwrap_or(s);
    if !inner.contains('\n') || inner.ends_with('\n') || inner.starts_with([' ', '\n']) {
        return None;
    }
    if !s.chars().all(|c| c == '\n' || (c != '\t' && printable(c))) {
        return None;
    }
    // Trailing spaces are kept by a literal block, but a line of spaces
    // alone would be read as part of the indentation.
    if inner.lines().any(|l| !l.is_empty() && l.trim().is_empty()) {
        return None;
    }
    Some(if body.is_some() { "" } else { "-" })
}

/// A character YAML lets stand as itself inside quotes.
fn printable(c: char) -> bool {
    matches!(c, '\u{20}'..='\u{7E}' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
        && !matches!(c, '\u{2028}' | '\u{2029}' | '\u{FEFF}')
}

/// A quoted scalar: single quotes when every character is printable (as
/// the general-purpose emitter writes it), else double quotes with anything
/// not printable escaped.
fn quoted(s: &str, out: &mut String) {
    if s.chars().all(printable) {
        out.push('\'');
        for c in s.chars() {
            if c == '\'' {
                out.push('\'');
            }
            out.push(c);
        }
        out.push('\'');
        return;
    }
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if printable(c) => out.push(c),
            c if (c as u32) <= 0xFFFF => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push_str(&format!("\\U{:08X}", c as u32)),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests;
