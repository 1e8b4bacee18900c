//! Unit tests of the support bundle: redaction of every known value and
//! its encodings, the caps, the file's mode, the stamp.

use super::*;
use serde_json::json;

const TOKEN: &str = "agent-token-0123456789abcdef";

fn redactor() -> Redactor {
    let mut r = Redactor::default();
    r.know("the agent token", Secret::new(TOKEN));
    r
}

fn unpack(bytes: &[u8]) -> Vec<(String, String)> {
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes));
    archive
        .entries()
        .unwrap()
        .map(|e| {
            let mut e = e.unwrap();
            let name = e.path().unwrap().display().to_string();
            let mut text = String::new();
            e.read_to_string(&mut text).unwrap();
            (name, text)
        })
        .collect()
}

/// The last scan is the net under the redaction: a token planted in an
/// entry after redaction (as a bug would leave it) stops the write, and
/// the error names the secret's kind and the entry, never the value.
#[test]
fn a_planted_token_stops_the_bundle_and_is_named_by_kind_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.tar.gz");
    let r = redactor();
    for planted in [
        TOKEN.to_string(),
        base64::engine::general_purpose::STANDARD.encode(TOKEN),
    ] {
        let entries = vec![
            ("events.yaml".to_string(), b"nothing here".to_vec()),
            (
                "pods/runner.log".to_string(),
                format!("line\ncalling with {planted} now\n").into_bytes(),
            ),
        ];
        let err = write(&path, &entries, r.known(), 1 << 20, false).unwrap_err();
        let text = err.to_string();
        assert_eq!(
                text,
                "the agent token was found in pods/runner.log of the bundle; the bundle was not written"
            );
        assert!(!text.contains(TOKEN));
        assert!(!path.exists(), "nothing is written");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}

/// Each way a person would write a known value down: the value in
/// every encoding of [`ENCODINGS`], alone and inside a longer text
/// (base64 of `user:` + value, at all three alignments).
fn encoded(value: &str) -> Vec<(String, String)> {
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    let mut out = vec![("as it is".to_string(), value.to_string())];
    for prefix in ["", "u:", "user:", "x"] {
        let text = format!("{prefix}{value}");
        for (alphabet, engine) in [
            ("standard", &STANDARD),
            ("standard, no padding", &STANDARD_NO_PAD),
            ("URL-safe", &URL_SAFE),
            ("URL-safe, no padding", &URL_SAFE_NO_PAD),
        ] {
            out.push((
                format!("base64 {alphabet} of {prefix:?}+value"),
                engine.encode(&text),
            ));
        }
    }
    let hex: String = value.bytes().map(|b| format!("{b:02x}")).collect();
    out.push(("hex".into(), hex.clone()));
    out.push(("HEX".into(), hex.to_ascii_uppercase()));
    out.push((
        "percent-encoded".into(),
        url::form_urlencoded::byte_serialize(value.as_bytes()).collect(),
    ));
    let json = serde_json::to_string(value).unwrap();
    out.push(("JSON-escaped".into(), json.clone()));
    out.push(("JSON-escaped with \\/".into(), json.replace('/', "\\/")));
    out
}

/// The values the encodings are tried with: a token, an AWS secret key
/// (`/` and `+`: percent and JSON escapes differ from the value), and a
/// PEM key (newlines).
const VALUES: [&str; 3] = [
        TOKEN,
        "aws/secret+key/0123456789ABCDEFabcdef==",
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\nVJTUt9Us8cKjMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvuNMoSfm76oqFvAp8Gy0iz5sxjZmSnXyCdPEovGhLa0VzMaQ8s+CLOyS56YyCFGeJZ\n-----END PRIVATE KEY-----\n",
    ];

/// The last scan and the redaction know every encoding of every known
/// value: each planted form stops the write, naming the value by its
/// kind; the same text through the redaction comes out without it.
#[test]
fn every_encoding_of_a_known_value_is_redacted_and_stops_the_scan() {
    let mut r = Redactor::default();
    for (i, v) in VALUES.iter().enumerate() {
        r.know(format!("value {i}"), Secret::new(*v));
    }
    let mut tried = 0;
    for (i, value) in VALUES.iter().enumerate() {
        let mut cases = encoded(value);
        // A PEM key in a YAML block, each line indented.
        let indented: String = value.lines().map(|l| format!("    {l}\n")).collect();
        cases.push(("re-indented lines".into(), indented));
        for (how, planted) in cases {
            tried += 1;
            let text = format!("line one\nAuthorization: Basic {planted} end\n");
            let entries = vec![("pods/p/c.log".to_string(), text.clone().into_bytes())];
            let leak = scan(&entries, r.known()).expect_err(&how);
            assert_eq!(leak.kind, format!("value {i}"), "{how}");
            let safe = r.text(&text);
            let entries = vec![("pods/p/c.log".to_string(), safe.clone().into_bytes())];
            assert!(scan(&entries, r.known()).is_ok(), "{how}: {safe}");
            assert!(safe.contains(REDACTED), "{how}: {safe}");
        }
    }
    eprintln!("encodings tried: {tried}");
    assert!(tried >= 60, "{tried}");
}

/// The README claims what the scan did: how many values, which
/// encodings, their kinds, and what it could not read.
#[test]
fn the_readme_names_the_values_counted_and_the_encodings() {
    let mut r = redactor();
    r.know(
        "the dind key (Secret codefresh-certs-server, key server-key.pem)",
        Secret::new(VALUES[2]),
    );
    r.know("a short one", Secret::new("abc"));
    let mut b = Bundle::new(r, 1 << 20);
    b.failed(
        "the values of Secret runnerconf, for the last scan",
        "forbidden",
    );
    let entries = b.finish(&json!({}));
    let readme = String::from_utf8_lossy(&entries[0].1).to_string();
    for want in [
        "looked for the 2 secret value(s) cf-runner knows",
        "  - the agent token\n",
        "  - the dind key (Secret codefresh-certs-server, key server-key.pem)\n",
        "hex, lower and upper case",
        "at each of the three byte alignments",
        "JSON string escaping",
        "URL percent-encoding",
        "1 value(s) shorter than 8 characters were not looked for",
        "could not look for what it could not read (1 part(s)",
    ] {
        assert!(readme.contains(want), "{want} not in:\n{readme}");
    }
    let empty = Bundle::new(Redactor::default(), 1 << 20).finish(&json!({}));
    let readme = String::from_utf8_lossy(&empty[0].1).to_string();
    assert!(
        readme.contains("knew no secret value to look for"),
        "{readme}"
    );
    assert!(!readme.contains("found none"), "{readme}");
}

#[test]
fn every_string_is_redacted_on_the_way_in() {
    let mut b = Bundle::new(redactor(), 1 << 20);
    let pod = json!({
        "metadata": {"annotations": {"my-api-token": "abc123secretvalue", "note": "ok"}},
        "spec": {
            "volumes": [{"name": "t", "secret": {"secretName": "runner"}}],
            "tolerations": [{"key": "dedicated", "value": "builds"}],
            "containers": [{
            "args": ["--token=flagsecret123", "--url=https://u:urlpass123@host"],
            "env": [
                {"name": "REGISTRY_PASSWORD", "value": "envsecret123"},
                {"name": "HTTPS_PROXY", "value": "http://p:proxypass123@proxy:3128"},
                {"name": "LOG_LEVEL", "value": "debug"},
                {"name": "X", "value": format!("prefix {TOKEN} suffix")},
            ]
        }]}
    });
    b.add_value("pods/p.yaml", &pod);
    b.add_text(
        "pods/p/c.log",
        &format!("token: logsecret123\nbearer {TOKEN}\n"),
    );
    let entries = b.finish(&json!({}));
    let all: String = entries
        .iter()
        .map(|(_, b)| String::from_utf8_lossy(b).to_string())
        .collect();
    for secret in [
        "abc123secretvalue",
        "flagsecret123",
        "urlpass123",
        "envsecret123",
        "proxypass123",
        "logsecret123",
        TOKEN,
    ] {
        assert!(!all.contains(secret), "{secret} in:\n{all}");
    }
    // What names a key or an object is kept: support needs it.
    for kept in [
        "debug",
        "note: ok",
        "secretName: runner",
        "key: dedicated",
        "value: builds",
    ] {
        assert!(all.contains(kept), "{kept} not in:\n{all}");
    }
    assert!(scan(&entries, redactor().known()).is_ok());
}

#[test]
fn entries_past_the_cap_are_left_out_and_listed() {
    let mut b = Bundle::new(Redactor::default(), MIN_MAX_SIZE);
    b.add_text("small.txt", "hello");
    b.add_text("big.log", &"x".repeat(INDEX_RESERVE as usize));
    assert_eq!(b.over_cap(), 1);
    let entries = b.finish(&json!({}));
    let names: Vec<&str> = entries.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["README.txt", "index.json", "small.txt"]);
    let readme = String::from_utf8_lossy(&entries[0].1);
    assert!(
        readme.contains("big.log: 65536 bytes would take the bundle past --max-size"),
        "{readme}"
    );
}

#[test]
fn a_bundle_is_written_0600_and_only_over_its_own_kind() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.tar.gz");
    let entries = vec![("a.txt".to_string(), b"hello".to_vec())];
    write(&path, &entries, &[], 1 << 20, false).unwrap();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert_eq!(
        unpack(&std::fs::read(&path).unwrap()),
        [("a.txt".to_string(), "hello".to_string())]
    );
    // Its own bundle: written over.
    write(&path, &entries, &[], 1 << 20, false).unwrap();
    // Someone else's file: refused, untouched; --overwrite replaces it.
    std::fs::write(&path, "my notes").unwrap();
    let err = write(&path, &entries, &[], 1 << 20, false).unwrap_err();
    assert!(matches!(err, WriteError::NotOurs { .. }), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "my notes");
    write(&path, &entries, &[], 1 << 20, true).unwrap();
    // Too big: refused, nothing written.
    let other = dir.path().join("c.tar.gz");
    let err = write(&other, &entries, &[], 10, false).unwrap_err();
    assert!(matches!(err, WriteError::TooBig { max: 10, .. }), "{err}");
    assert!(!other.exists());
}

#[test]
fn the_stamp_is_utc_civil_time() {
    assert_eq!(stamp(0), "19700101-000000");
    assert_eq!(stamp(1_764_091_425), "20251125-172345");
}
