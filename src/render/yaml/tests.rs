//! Unit tests of the YAML reader and writer: the subset read as the full
//! parser reads it, round trips, quoting, blocks, masking.

use super::*;
use serde_json::json;

fn full(text: &str) -> Value {
    serde_yaml_ng::from_str(text).unwrap()
}

#[test]
fn the_known_subset_reads_as_the_full_parser_reads_it() {
    let doc = r#"
# a comment
apiVersion: apps/v1
kind: Deployment
metadata:
  name: runner
  labels: {"a":"b","c.d/e":"1.10"}
spec:
  replicas: 1
  maxSurge: 50%
  list:
  - a
  - "b: c"
  nested:
    - name: x
      value: "y"
    - name: z
      items: ["", "pods"]
    -
      k: -3
  empty:
  flag: false
  "quoted key": 0
"#;
    let known = parse_known(doc).expect("within the subset");
    assert_eq!(known, full(doc));
}

#[test]
fn anything_outside_the_subset_is_left_to_the_full_parser() {
    for doc in [
        "a: yes\n",
        "a: 1.10\n",
        "a: 0755\n",
        "a: 0x1F\n",
        "a: |\n  x\n",
        "a: &x 1\nb: *x\n",
        "a: !!str 1\n",
        "a: b # c\n",
        "a: 'q'\n",
        "a: 1\na: 2\n",
        "a: [1.5]\n",
        "a: 2026-01-01\n",
        "a:\n  b: 1\n c: 2\n",
        "a: On\n",
    ] {
        assert_eq!(parse_known(doc), None, "{doc:?}");
        let general = serde_yaml_ng::from_str::<Value>(doc).map_err(|e| e.to_string());
        assert_eq!(parse(doc), general, "{doc:?}");
    }
}

/// What the render did before [`parse_documents`]: split the stream,
/// then read each document kept.
fn split_then_parse(stream: &str) -> Result<Vec<Value>, (usize, String)> {
    crate::render::split_documents(stream)
        .into_iter()
        .enumerate()
        .map(|(index, doc)| parse(doc).map_err(|e| (index, e)))
        .collect()
}

/// The one-pass reader keeps, drops and reads the same documents as
/// splitting then reading each: separators with trailing blanks,
/// documents of comments alone, lines outside the fast subset (read by
/// the full parser), carriage returns, and the index of a bad document.
#[test]
fn reading_a_stream_in_one_pass_gives_what_splitting_then_reading_gives() {
    let streams = [
        "a: 1\n---\nb: [1, 2]\n",
        "# only a comment\n---  \n\n---\nkind: x\n  # indented comment\n---\n",
        "a: 1\n--- # not a separator\nb: 2\n",
        "a: yes\n---\nb:\n\t- 1\n---\nc: |\n  x\n",
        "a: 1\r\n---\r\nb:\r\n  - c\r\n",
        "k: v\n...\n",
        "  ---\nk: v\n",
        "\t# tab comment\n---\nk: v\n",
        "a: 1\n---\nb: [\n---\nc: 3\n",
        "x: \"a\\\"b\"\n\"k\\u0041\": \"\\n\"\n\"q\": \"r\"\n",
        "",
        "---\n",
        "no newline at the end: 1",
    ];
    for stream in streams {
        assert_eq!(
            parse_documents(stream),
            split_then_parse(stream),
            "{stream:?}"
        );
    }
    assert_eq!(parse_documents("a: 1\n---\nb: [\n").unwrap_err().0, 1);

    let mut seen = 0;
    for (_, input) in crate::values::example_inputs() {
        let loaded = crate::values::load(&input).unwrap();
        let outputs = crate::render::template_output(
            &loaded.values,
            &crate::render::Identity::default(),
            &loaded.redacted_tree,
        )
        .unwrap();
        for (template, _, text) in outputs {
            let one_pass = parse_documents(&text);
            assert!(one_pass.is_ok(), "{template}: {one_pass:?}");
            assert_eq!(one_pass, split_then_parse(&text), "{template}");
        }
        seen += 1;
    }
    assert!(seen > 5, "{seen} examples");
}

fn tricky_strings() -> Vec<String> {
    [
        "",
        " ",
        "a",
        "yes",
        "No",
        "ON",
        "y",
        "null",
        "~",
        "true",
        "1",
        "-1",
        "0755",
        "1.10",
        "1e3",
        ".inf",
        ".nan",
        "0x1F",
        "12:30",
        "a: b",
        "a #b",
        "#a",
        "- a",
        "? a",
        "[a]",
        "{a}",
        "&a",
        "*a",
        "!a",
        "|a",
        ">a",
        "'a'",
        "\"a\"",
        "%a",
        "@a",
        "`a",
        "a\nb",
        "a\nb\n",
        "a\nb\n\n",
        "\na",
        " a\nb",
        "a\n  b",
        "a\n \nb",
        "a\r\nb",
        "tab\there",
        "nul\0x",
        "del\u{7f}",
        "nel\u{85}x",
        "ls\u{2028}x",
        "bom\u{feff}",
        "é",
        "😀",
        "a\\b",
        "C:\\x",
        "2026-01-01",
        "1_000",
        "+1",
        "=",
        "<<",
        "a:",
        ":a",
        "a,b",
        "500m",
        "1200Mi",
        "0.1.0",
        "10.5.2",
        "0xabc",
        "1e5",
        "3d",
        "12h",
        "1:30",
        "1h:30",
        "-v=4",
        "--x=1",
        "-",
        "--",
        "---",
        "-1",
        "-.5",
        "-inf",
        "a:b",
        "https://a.b/c?d=e",
        "q.io/a:1@sha256:ab",
        "a@b",
        "+a",
        "a+b",
        "a=b",
        "%",
        "50%",
        "1%a",
        "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

#[test]
fn every_emitted_document_reads_back_the_same() {
    let strings = tricky_strings();
    let mut map = Map::new();
    for (i, s) in strings.iter().enumerate() {
        map.insert(s.clone(), json!(s));
        map.insert(format!("k{i}"), json!([s, {"in": s}, [s]]));
    }
    map.insert("empty".into(), json!({"m": {}, "l": [], "n": null}));
    map.insert("numbers".into(), json!([0, -7, 1.5, 1e300, u64::MAX, true]));
    map.insert("deep".into(), json!([[["a", {"b": [{"c": "d\ne"}]}]]]));
    let tree = Value::Object(map);
    let text = emit(&tree);
    assert_eq!(full(&text), tree, "{text}");
    for s in &strings {
        assert_eq!(full(&emit(&json!(s))), json!(s), "{s:?}");
        assert_eq!(full(&emit(&json!([s]))), json!([s]), "{s:?}");
    }
}

/// The values record is written without the general emitter when the
/// bytes are the same: for trees of every shape, with every tricky
/// word as a value and as a key (those outside what qualifies go to the
/// general emitter), and for every example's record.
#[test]
fn the_record_is_written_byte_for_byte_as_the_general_emitter_writes_it() {
    let general = |v: &Value| serde_yaml_ng::to_string(v).unwrap();
    let mut words = tricky_strings();
    words.extend(
        [
            "node-role/ci=true",
            "http://proxy:3128",
            "/app-proxy",
            "-v=4",
            "a_b",
            "Ab9",
            "x.y/z",
            "1200Mi",
            "50%",
            "a@b.c",
            "key=val+1",
            "_x",
            "/",
            "<redacted>",
            "203.0.113.0/24",
            "a,b",
            "x y",
            "0",
            "007",
            "1.5",
            "True",
            "NULL",
            "Yes",
            "off",
        ]
        .map(String::from),
    );
    let mut trees = Vec::new();
    for (i, w) in words.iter().enumerate() {
        trees.push(json!({ w.clone(): w }));
        trees.push(json!({"k": [w, {"in": w, "num": i, "neg": -(i as i64)}], "deep": {"a": {"b": [[w, [w]], null, true]}}}));
        trees.push(json!([w, [w, {"m": [w]}], {"a": null, "b": false}]));
        trees.push(json!({"a": {"b": w, "c": [w, w], "d": {"e": w}}}));
    }
    trees.push(json!({"big": u64::MAX, "small": i64::MIN, "list": [1, 2]}));
    for tree in [
        json!({"a": 1.5}),
        json!({"a": {}}),
        json!({"a": []}),
        json!({"a": "l1\nl2\n"}),
        json!({"a b": 1}),
        json!({}),
    ] {
        trees.push(tree);
    }
    let mut own = 0;
    for tree in &trees {
        assert_eq!(emit_like_serde_yaml(tree), general(tree), "{tree}");
        if emit(tree) == general(tree) {
            own += 1;
        }
    }
    assert!(own > 50, "{own}");
    for (path, input) in crate::values::example_inputs() {
        let record = crate::values::load(&input).unwrap().redacted_tree;
        assert_eq!(
            emit_like_serde_yaml(&record),
            general(&record),
            "{}",
            path.display()
        );
    }
}

#[test]
fn words_a_yaml_1_1_reader_takes_for_booleans_or_null_are_quoted() {
    // kubectl and Go's YAML readers follow YAML 1.1, where these are not
    // strings; the full parser here reads them as strings either way.
    for word in [
        "yes", "No", "ON", "off", "y", "N", "null", "~", "True", "NaN", "Inf",
    ] {
        assert_eq!(emit(&json!(word)), format!("'{word}'\n"));
    }
    assert_eq!(emit(&json!({"maxSurge": "50%"})), "maxSurge: 50%\n");
    // Numbers in every form YAML 1.1 knows stay strings.
    for number in [
        "0.1.0",
        "10.5.2",
        "0xabc",
        "1e5",
        "1_000",
        "1:30",
        "0o17",
        "-1",
        "+1",
        "0x1p-2",
        "-inf",
        "-Infinity",
        "-NaN",
        "--inf",
    ] {
        assert_eq!(emit(&json!(number)), format!("'{number}'\n"));
    }
    for plain in [
        "500m",
        "1200Mi",
        "-v=4",
        "--resync-period=50s",
        "https://g.codefresh.io",
    ] {
        assert_eq!(emit(&json!(plain)), format!("{plain}\n"));
    }
}

#[test]
fn a_certificate_is_written_as_a_literal_block() {
    let text = emit(&json!({"ca.pem": "-----BEGIN-----\nMIIB\n-----END-----\n"}));
    assert_eq!(
        text,
        "ca.pem: |\n  -----BEGIN-----\n  MIIB\n  -----END-----\n"
    );
}

#[test]
fn masking_while_writing_gives_the_bytes_of_writing_a_masked_copy() {
    use crate::values::secrets::mask_urls_in;
    let mask = crate::text::mask_value;
    let mut trees = vec![
        json!("http://user:pass@proxy.example:8080"),
        json!({"env": [
            {"name": "HTTP_PROXY", "value": "http://u:p@proxy:3128"},
            {"name": "NO_PROXY", "value": "localhost"},
            {"name": "list", "value": ["https://a:b@h/x", "plain", 3, null]},
        ]}),
        json!({"http://k:v@h": "key not masked", "nested": {"deeper": {"url": "ftp://x:y@z/"}}}),
        json!(["a", ["https://t:s@h", {"m": "ssh://q:r@h:22/p\nsecond line"}]]),
    ];
    let mut with_urls = 0;
    for (_, input) in crate::values::example_inputs() {
        let loaded = crate::values::load(&input).unwrap();
        let rendered = crate::render::render(
            &loaded.values,
            &crate::render::Identity::default(),
            &loaded.redacted_tree,
        )
        .unwrap();
        trees.extend(rendered.manifests.into_iter().map(|m| m.object));
    }
    for tree in &trees {
        let masked = mask_urls_in(tree);
        with_urls += usize::from(&masked != tree);
        let mut out = String::new();
        emit_masked_into(tree, &mut out, &mask);
        assert_eq!(out, emit(&masked), "{tree}");
    }
    assert!(with_urls >= 4, "{with_urls} trees with something masked");
}

#[test]
fn a_byte_outside_the_plain_set_is_found_wherever_it_stands() {
    for len in 0..20 {
        let plain = vec![b'a'; len];
        assert!(all_plain_bytes(&plain), "{len}");
        for at in 0..len {
            for bad in [b' ', b'#', b'\'', 0x80, b'\n'] {
                let mut bytes = plain.clone();
                bytes[at] = bad;
                assert!(!all_plain_bytes(&bytes), "{len} {at} {bad}");
            }
        }
    }
}
