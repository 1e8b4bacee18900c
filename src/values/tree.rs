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
        // A path deeper than a values file may nest would build a tree that
        // later code walks recursively (a stack overflow, not a message).
        if steps.len() > MAX_DEPTH {
            return Err(format!(
                "is more than {MAX_DEPTH} keys deep, deeper than a values tree may nest"
            ));
        }
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
    if steps.len() > MAX_DEPTH {
        return Err(format!(
            "is more than {MAX_DEPTH} keys deep, deeper than a values tree may nest"
        ));
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

/// The largest values file (or `--set-file`, or tolerations file) read: a
/// real one is a few kilobytes; a service-account key about two.
pub const MAX_INPUT_BYTES: u64 = 1024 * 1024;
/// The deepest nesting of maps and lists a values file may have.
pub const MAX_DEPTH: usize = 64;
/// The most values (after aliases are expanded) one file may hold.
pub const MAX_NODES: usize = 100_000;

/// Reads a values file's text into a tree. An empty file is an empty map.
/// Returns the first problem; [`parse_values`] returns them all.
pub fn parse_values_text(text: &str, origin: &str) -> Result<Value, Problem> {
    parse_values(text, origin).map_err(|mut problems| problems.remove(0))
}

/// Reads a values file's text into a tree, reporting every duplicate key.
///
/// Scalars keep the text the user wrote: a plain scalar becomes a number
/// only when the number prints back exactly as written (`42`, `1.5`), so
/// `1.10`, `1e3`, `0x1F`, `.nan` or `007` stay the strings they were typed
/// as, and a key written twice is an error naming both lines, never
/// "the last one wins".
pub fn parse_values(text: &str, origin: &str) -> Result<Value, Vec<Problem>> {
    let value = parse_yaml(text, origin)?;
    match value {
        Value::Null => Ok(Value::Object(Map::new())),
        Value::Object(_) => Ok(value),
        other => Err(vec![Problem::new(
            origin,
            None,
            format!(
                "holds a {} at the top level, not a map of keys",
                kind_name(&other)
            ),
            "a values file is a YAML map such as `Namespace: codefresh`",
        )]),
    }
}

/// One open collection while the events stream in.
enum Frame {
    Map {
        map: Map<String, Value>,
        /// The key read and waiting for its value, with its line.
        key: Option<(String, usize)>,
        /// The line each key of `map` was written on, in `map`'s order
        /// (the tree keeps keys in the order read): a key's first line is
        /// looked up only for a key written twice, so no key is copied or
        /// hashed a second time to remember it.
        lines: Vec<usize>,
        anchor: usize,
    },
    Seq {
        items: Vec<Value>,
        anchor: usize,
    },
}

/// Parses one YAML document into a JSON-shaped tree, bounded in depth and
/// size, keeping scalar text and refusing duplicate keys.
pub fn parse_yaml(text: &str, origin: &str) -> Result<Value, Vec<Problem>> {
    use yaml_rust2::parser::{Event, Parser};

    if text.len() as u64 > MAX_INPUT_BYTES {
        return Err(vec![too_big(origin, text.len() as u64)]);
    }
    // A byte order mark opens many files saved on Windows; it is no part of
    // the first key. Anywhere else it, like a NUL (which the YAML reader
    // takes for the end of the text) or another control character, is
    // refused by name and line instead of being read silently.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Some(problem) = not_yaml_text(text, origin) {
        return Err(vec![problem]);
    }
    let mut parser = Parser::new_from_str(text);
    let mut reader = TreeReader::new(origin);
    loop {
        let (event, mark) = parser.next_token().map_err(|e| {
            not_valid(
                origin,
                format!(
                    "{} at line {} column {}",
                    e.info(),
                    e.marker().line(),
                    e.marker().col() + 1
                ),
            )
        })?;
        if matches!(event, Event::StreamEnd) {
            break;
        }
        let line = mark.line();
        if let Some((value, anchor)) = reader.node(event, line)? {
            reader.place(value, anchor, line)?;
        }
    }
    reader.finish()
}

/// The answer for text the YAML reader refuses: `why` is its own word.
fn not_valid(origin: &str, why: String) -> Vec<Problem> {
    vec![Problem::new(
        origin,
        None,
        format!("is not valid YAML: {why}"),
        "fix the YAML syntax at the line and column shown",
    )]
}

/// The tree as the events of one YAML text build it: the open maps and
/// lists, the anchors seen, the count of values (aliases included) and
/// every key written twice.
struct TreeReader<'o> {
    origin: &'o str,
    stack: Vec<Frame>,
    anchors: std::collections::HashMap<usize, Value>,
    nodes: usize,
    documents: usize,
    root: Option<Value>,
    problems: Vec<Problem>,
}

impl<'o> TreeReader<'o> {
    fn new(origin: &'o str) -> Self {
        TreeReader {
            origin,
            stack: Vec::new(),
            anchors: std::collections::HashMap::new(),
            nodes: 0,
            documents: 0,
            root: None,
            problems: Vec::new(),
        }
    }

    /// The node an event finishes (a scalar, an alias, or a closed
    /// collection), with its anchor; `None` for an event that only opens
    /// something or says nothing of the tree.
    fn node(
        &mut self,
        event: yaml_rust2::parser::Event,
        line: usize,
    ) -> Result<Option<(Value, usize)>, Vec<Problem>> {
        use yaml_rust2::parser::Event;
        let origin = self.origin;
        match event {
            Event::StreamEnd | Event::Nothing | Event::StreamStart | Event::DocumentEnd => Ok(None),
            Event::DocumentStart => {
                self.documents += 1;
                if self.documents > 1 {
                    return Err(vec![Problem::new(
                        origin,
                        None,
                        format!(
                            "holds more than one YAML document (a second `---` at line {line})"
                        ),
                        "keep one document per values file; pass several files with --values",
                    )]);
                }
                Ok(None)
            }
            Event::MappingStart(_, tag) | Event::SequenceStart(_, tag)
                if tag
                    .as_ref()
                    .is_some_and(|t| !is_core_tag(t, &["map", "seq"])) =>
            {
                Err(vec![unknown_tag(origin, tag.as_ref(), line)])
            }
            Event::MappingStart(anchor, _) => self.open(
                Frame::Map {
                    map: Map::new(),
                    key: None,
                    lines: Vec::new(),
                    anchor,
                },
                line,
            ),
            Event::SequenceStart(anchor, _) => self.open(
                Frame::Seq {
                    items: Vec::new(),
                    anchor,
                },
                line,
            ),
            Event::MappingEnd => match self.stack.pop() {
                Some(Frame::Map { map, anchor, .. }) => Ok(Some((Value::Object(map), anchor))),
                _ => Err(not_valid(
                    origin,
                    format!("a map closes where none is open at line {line}"),
                )),
            },
            Event::SequenceEnd => match self.stack.pop() {
                Some(Frame::Seq { items, anchor }) => Ok(Some((Value::Array(items), anchor))),
                _ => Err(not_valid(
                    origin,
                    format!("a list closes where none is open at line {line}"),
                )),
            },
            Event::Alias(id) => match self.anchors.get(&id) {
                Some(v) => {
                    self.nodes += count_nodes(v);
                    Ok(Some((v.clone(), 0)))
                }
                None => Err(not_valid(
                    origin,
                    format!("an alias names no anchor at line {line}"),
                )),
            },
            Event::Scalar(text, style, anchor, tag) => {
                Ok(Some((scalar(text, style, tag, origin, line)?, anchor)))
            }
        }
    }

    /// Opens a map or a list, unless it would nest deeper than a values
    /// tree may.
    fn open(&mut self, frame: Frame, line: usize) -> Result<Option<(Value, usize)>, Vec<Problem>> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(vec![too_deep(self.origin, line)]);
        }
        self.stack.push(frame);
        Ok(None)
    }

    /// Puts a finished node where it belongs: the root, the open list, or
    /// the open map (as a key, or as the value of the key read before).
    fn place(&mut self, value: Value, anchor: usize, line: usize) -> Result<(), Vec<Problem>> {
        let origin = self.origin;
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(vec![Problem::new(
                origin,
                None,
                format!("holds more than {MAX_NODES} values (counting what its aliases repeat)"),
                "a values file needs a few dozen keys; remove the repetition",
            )]);
        }
        if anchor > 0 {
            self.anchors.insert(anchor, value.clone());
        }
        // A key written twice, with the line it was first written on; its
        // path is only worked out then (most values files have none).
        let written_twice = match self.stack.last_mut() {
            None => {
                self.root = Some(value);
                None
            }
            Some(Frame::Seq { items, .. }) => {
                items.push(value);
                None
            }
            Some(Frame::Map {
                map, key, lines, ..
            }) => match key.take() {
                None => {
                    let name = key_name(value, origin, line)?;
                    // Every key before this one has its value: it is in `map`.
                    let first = if map.contains_key(&name) {
                        map.keys()
                            .position(|k| *k == name)
                            .and_then(|at| lines.get(at).copied())
                            .or(Some(line))
                    } else {
                        lines.push(line);
                        None
                    };
                    let twice = first.map(|first| (first, name.clone()));
                    *key = Some((name, line));
                    twice
                }
                Some((name, _)) => {
                    // The first one written stays; the duplicate is an error anyway.
                    map.entry(name).or_insert(value);
                    None
                }
            },
        };
        if let Some((first, name)) = written_twice {
            self.written_twice(first, name, line);
        }
        Ok(())
    }

    /// Notes a key written twice, by its path in the tree.
    fn written_twice(&mut self, first: usize, name: String, line: usize) {
        // The open maps and lists around the key's own map.
        let path = frame_path(&self.stack[..self.stack.len() - 1]);
        let at = if path.is_empty() {
            name
        } else {
            format!("{path}.{name}")
        };
        self.problems.push(Problem::new(
            &at,
            None,
            format!(
                "is written twice in {}, at lines {first} and {line}; cf-runner does not guess which one you meant",
                self.origin
            ),
            "keep one of the two lines",
        ));
    }

    /// The tree read, or every key written twice.
    fn finish(self) -> Result<Value, Vec<Problem>> {
        if !self.problems.is_empty() {
            return Err(self.problems);
        }
        Ok(self.root.unwrap_or(Value::Null))
    }
}

/// A scalar's value: a plain one typed as YAML types it (see
/// [`plain_scalar`]), a quoted or `!!str` one kept as text.
fn scalar(
    text: String,
    style: yaml_rust2::scanner::TScalarStyle,
    tag: Option<yaml_rust2::parser::Tag>,
    origin: &str,
    line: usize,
) -> Result<Value, Vec<Problem>> {
    use yaml_rust2::scanner::TScalarStyle;
    Ok(match &tag {
        Some(t) if is_core_tag(t, &["str"]) || (t.handle == "!" && t.suffix.is_empty()) => {
            Value::String(text)
        }
        Some(t) if is_core_tag(t, &["int", "float", "bool", "null"]) => plain_scalar(text),
        Some(_) => return Err(vec![unknown_tag(origin, tag.as_ref(), line)]),
        None if style == TScalarStyle::Plain => plain_scalar(text),
        None => Value::String(text),
    })
}

/// A map key as text; a map or a list used as a key is refused.
fn key_name(value: Value, origin: &str, line: usize) -> Result<String, Vec<Problem>> {
    match value {
        Value::String(s) => Ok(s),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Null => Ok(String::new()),
        other => Err(vec![Problem::new(
            origin,
            None,
            format!("has a {} used as a key at line {line}", kind_name(&other)),
            "keys are plain names such as `Namespace`",
        )]),
    }
}

/// The dotted path of the innermost open map's key, for messages.
fn frame_path(stack: &[Frame]) -> String {
    let mut out = String::new();
    for frame in stack {
        match frame {
            Frame::Map {
                key: Some((k, _)), ..
            } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&k.replace('.', "\\."));
            }
            Frame::Seq { items, .. } => out.push_str(&format!("[{}]", items.len())),
            Frame::Map { key: None, .. } => {}
        }
    }
    out
}

fn count_nodes(v: &Value) -> usize {
    match v {
        Value::Array(items) => 1 + items.iter().map(count_nodes).sum::<usize>(),
        Value::Object(map) => 1 + map.values().map(count_nodes).sum::<usize>(),
        _ => 1,
    }
}

fn is_core_tag(tag: &yaml_rust2::parser::Tag, names: &[&str]) -> bool {
    (tag.handle == "!!" || tag.handle == "tag:yaml.org,2002:")
        && names.contains(&tag.suffix.as_str())
}

fn unknown_tag(origin: &str, tag: Option<&yaml_rust2::parser::Tag>, line: usize) -> Problem {
    let name = tag
        .map(|t| format!("{}{}", t.handle, t.suffix))
        .unwrap_or_default();
    Problem::new(
        origin,
        None,
        format!("uses the YAML tag `{name}` at line {line}, which cf-runner does not read"),
        "remove the tag; write the value plainly (quote it to keep it a string)",
    )
}

fn too_deep(origin: &str, line: usize) -> Problem {
    Problem::new(
        origin,
        None,
        format!("nests maps and lists more than {MAX_DEPTH} levels deep (at line {line})"),
        "a values file nests a few levels; check for unclosed `[` or `{`",
    )
}

/// True for the characters YAML allows in a stream (its `c-printable`).
fn yaml_printable(c: char) -> bool {
    matches!(c,
        '\t' | '\n' | '\r' | ' '..='~' | '\u{85}' | '\u{a0}'..='\u{d7ff}'
        | '\u{e000}'..='\u{fffd}' | '\u{10000}'..='\u{10ffff}')
        && c != '\u{feff}'
}

/// The problem for the first character of `text` that YAML does not allow
/// (a NUL, a byte order mark inside the text, a control character), naming
/// it, its line and column.
fn not_yaml_text(text: &str, origin: &str) -> Option<Problem> {
    // Most files are printable ASCII: one look at each byte settles it.
    if text
        .bytes()
        .all(|b| matches!(b, b' '..=b'~' | b'\t' | b'\n' | b'\r'))
    {
        return None;
    }
    let (at, c) = text.char_indices().find(|(_, c)| !yaml_printable(*c))?;
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before[before.rfind('\n').map_or(0, |i| i + 1)..]
        .chars()
        .count()
        + 1;
    let name = match c {
        '\0' => " (NUL)".to_string(),
        '\u{feff}' => " (a byte order mark)".to_string(),
        c if c.is_control() => " (a control character)".to_string(),
        _ => String::new(),
    };
    Some(Problem::new(
        origin,
        None,
        format!(
            "holds the character U+{:04X}{name} at line {line}, column {column}, which a YAML text may not hold",
            c as u32
        ),
        "remove it: a values file is plain UTF-8 text (a file saved as UTF-16 or as binary shows NUL bytes)",
    ))
}

/// The problem for an input over [`MAX_INPUT_BYTES`].
pub fn too_big(origin: &str, size: u64) -> Problem {
    Problem::new(
        origin,
        None,
        format!(
            "is {} bytes, over the {} bytes cf-runner reads from one file",
            size, MAX_INPUT_BYTES
        ),
        "check that this is the file you meant; a values file is a few kilobytes",
    )
}

/// Types a plain (unquoted) YAML scalar, keeping the text as written unless
/// the typed value prints back identically.
fn plain_scalar(text: String) -> Value {
    match text.as_str() {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" => return Value::Bool(true),
        "false" => return Value::Bool(false),
        _ => {}
    }
    let looks_numeric = text
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '-' | '.' | 'e' | 'E' | '+'))
        && text.chars().any(|c| c.is_ascii_digit());
    if looks_numeric {
        if let Ok(n) = text.parse::<i64>() {
            if n.to_string() == text {
                return Value::from(n);
            }
        } else if let Ok(f) = text.parse::<f64>() {
            if let Some(n) = serde_json::Number::from_f64(f) {
                if n.to_string() == text {
                    return Value::Number(n);
                }
            }
        }
    }
    Value::String(text)
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

    /// Each key written twice names the line it was FIRST written on,
    /// wherever it stands in its map and however deep.
    #[test]
    fn a_key_written_twice_names_its_first_line() {
        let text = "A: 1\nB:\n  x: 1\n  y: 2\n  x: 3\nC: [1]\nB: 2\nA: 3\nA: 4\nD:\n  - {k: 1, j: 2, k: 3}\n";
        let problems = parse_values(text, "v.yaml").unwrap_err();
        let said: Vec<String> = problems
            .iter()
            .map(|p| format!("{}: {}", p.key, p.why))
            .collect();
        let twice = |key: &str, first: usize, again: usize| {
            format!(
                "{key}: is written twice in v.yaml, at lines {first} and {again}; cf-runner does not guess which one you meant"
            )
        };
        assert_eq!(
            said,
            [
                twice("B.x", 3, 5),
                twice("B", 2, 7),
                twice("A", 1, 8),
                twice("A", 1, 9),
                twice("D[0].k", 11, 11),
            ]
        );
    }

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
    fn duplicate_keys_name_both_lines_and_numbers_keep_their_text() {
        let problems = parse_values("A:\n  b: 1\n  b: 2\nA: x\n", "f.yaml").unwrap_err();
        let keys: Vec<_> = problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(keys, vec!["A.b", "A"]);
        assert!(
            problems[0].why.contains("lines 2 and 3"),
            "{}",
            problems[0].why
        );
        let v = parse_values(
            "a: 1.10\nb: 1e3\nc: 0x1F\nd: .nan\ne: 42\nf: 1.5\ng: ~\nh: True\n",
            "f",
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"a": "1.10", "b": "1e3", "c": "0x1F", "d": ".nan", "e": 42, "f": 1.5, "g": null, "h": "True"})
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(
            crate::env::var("CF_RUNNER_FUZZ_CASES").and_then(|n| n.parse().ok()).unwrap_or(512)
        ))]
        /// Whatever plain scalar a user writes, its text reaches the tree
        /// unchanged (or as the number or boolean that prints identically).
        #[test]
        fn a_plain_scalar_keeps_the_text_written(text in "[-+.0-9eExXoObBa-fA-F_:]{1,10}") {
            let doc = format!("A: {text}\n");
            if let Ok(v) = parse_values(&doc, "f") {
                let got = match &v["A"] {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    Value::Bool(b) => b.to_string(),
                    Value::Null => return Ok(()),
                    other => panic!("{other:?}"),
                };
                proptest::prop_assert_eq!(got, text);
            }
        }

        /// No text makes the parser panic; a failure always says something.
        #[test]
        fn any_text_parses_or_fails_naming_the_file(text in "[\\[\\]{}:,&*!|>'\"#\n -~]{0,200}") {
            if let Err(problems) = parse_values(&text, "fuzz.yaml") {
                proptest::prop_assert!(!problems.is_empty());
            }
        }
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
