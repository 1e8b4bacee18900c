//! The one place that knows what a secret value is and how to hide it.
//!
//! Two kinds of values are secret: the values of the keys in
//! [`SECRET_KEYS`] (tokens, cloud keys, licences), whole; and the
//! credentials inside any URL (`scheme://user:PASSWORD@host`), wherever the
//! URL appears (proxies, hosts, environment variables). Everything that
//! shows values to a person or keeps them in a non-Secret place (the record
//! Secret, info, upgrade's diff, error messages, dry-run files, stdout)
//! goes through [`redact`], [`mask_urls_in`] or [`mask_text`].
//!
//! Pure: no I/O.

use std::collections::BTreeMap;

use serde_json::Value;

/// What a hidden value is replaced with.
pub const REDACTED: &str = "<redacted>";

/// Keys whose whole value is secret: never echoed in messages, redacted in
/// the values record.
pub const SECRET_KEYS: &[&str] = &[
    "Token",
    "AgentToken",
    "Storage.AwsAccessKeyId",
    "Storage.AwsSecretAccessKey",
    "Storage.GoogleServiceAccount",
    "NewRelicLicense",
];

/// True when `key` (a dotted path) is, or is inside, a secret key.
pub fn is_secret_key(key: &str) -> bool {
    SECRET_KEYS
        .iter()
        .any(|s| key == *s || key.strip_prefix(s).is_some_and(|r| r.starts_with('.')))
}

/// Where the part of a URL that can hold credentials ends in `tail` (the
/// text after `://`): at white space or a control character, or where the
/// next URL's `://` begins. Not at `/`, `?`, `#` or `@`: a password may
/// hold any of them unescaped, and a mask that stopped there would show
/// its tail.
fn credentials_span(tail: &str, whole_value: bool) -> usize {
    let blank = if whole_value {
        tail.len()
    } else {
        tail.find(|c: char| c.is_whitespace() || c.is_control())
            .unwrap_or(tail.len())
    };
    let next_url = tail.find("://").unwrap_or(tail.len());
    blank.min(next_url)
}

/// `text` with the credentials of every URL in it replaced: the password
/// (`user:<redacted>@`), or a lone user name, which is often a token
/// (`<redacted>@`). `None` when there was nothing to hide.
///
/// The user part is read as a URL parser that trusts the last `@` reads
/// it: everything from `://` to the LAST `@` before the host, so
/// `http://u:p#ss@proxy` and `postgres://u:p?ss@db/x` hide `p#ss` and
/// `p?ss` whole. An `@` later in a path or query hides more than needed,
/// never less.
///
/// For one value rather than a text, see [`mask_value`].
pub fn mask_text(text: &str) -> Option<String> {
    mask(text, false)
}

/// [`mask_text`] for one value (a setting, an env var, an answer): its
/// URLs' user parts run to the last `@` even across white space, which no
/// URL holds but a mistyped password may (`http://u:p ss@proxy`).
pub fn mask_value(value: &str) -> Option<String> {
    mask(value, true)
}

fn mask(text: &str, whole_value: bool) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut changed = false;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        let span = &tail[..credentials_span(tail, whole_value)];
        match span.rfind('@') {
            Some(i) if i > 0 && &span[..i] != REDACTED => {
                let userinfo = &span[..i];
                match userinfo.split_once(':') {
                    Some((user, pass)) if pass != REDACTED => {
                        out.push_str(user);
                        out.push(':');
                        out.push_str(REDACTED);
                        changed = true;
                    }
                    Some(_) => out.push_str(userinfo),
                    None => {
                        out.push_str(REDACTED);
                        changed = true;
                    }
                }
                rest = &tail[i..];
            }
            _ => rest = tail,
        }
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// [`mask_text`], giving the text back unchanged when there was nothing to hide.
pub fn masked(text: &str) -> String {
    mask_text(text).unwrap_or_else(|| text.to_string())
}

/// Words that make a field's name a credential's, in what another program
/// printed (an auth plugin's ExecCredential, a token service's answer):
/// `token`, `access_token`, `clientKeyData`, `apiKey`, `client_secret`,
/// `password`, `--token=` …
const CREDENTIAL_FIELD_WORDS: &[&str] = &["token", "key", "secret", "password", "passwd"];

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// `text` with the value of every credential-named field replaced, in JSON
/// (`"token": "…"`), YAML (`token: …`) or flag (`--token=…`) form; nested
/// objects are left to their own fields. `None` when there was nothing to
/// hide. For text cf-runner did not write and shows anyway.
pub fn mask_credential_fields(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let len = bytes.len();
    let mut out = String::with_capacity(len);
    let mut copied = 0;
    let mut pos = 0;
    while pos < len {
        if !is_name_byte(bytes[pos]) || (pos > 0 && is_name_byte(bytes[pos - 1])) {
            pos += 1;
            continue;
        }
        let mut end = pos;
        while end < len && is_name_byte(bytes[end]) {
            end += 1;
        }
        let name = text[pos..end].to_ascii_lowercase();
        pos = end;
        if !CREDENTIAL_FIELD_WORDS.iter().any(|w| name.contains(w)) {
            continue;
        }
        let skip_blanks = |mut j: usize| {
            while j < len && matches!(bytes[j], b' ' | b'\t') {
                j += 1;
            }
            j
        };
        // The name's closing quote, then `:` or `=`.
        let mut j = end;
        if j < len && matches!(bytes[j], b'"' | b'\'') {
            j += 1;
        }
        j = skip_blanks(j);
        if j >= len || !matches!(bytes[j], b':' | b'=') {
            continue;
        }
        j = skip_blanks(j + 1);
        if j >= len {
            break;
        }
        let (start, stop) = match bytes[j] {
            b'{' | b'[' => continue,
            quote @ (b'"' | b'\'') => {
                let mut k = j + 1;
                while k < len && bytes[k] != quote {
                    k += if bytes[k] == b'\\' { 2 } else { 1 };
                }
                (j + 1, k.min(len))
            }
            _ => {
                let mut k = j;
                while k < len
                    && !matches!(bytes[k], b',' | b'}' | b']' | b'\n' | b'\r' | b' ' | b'\t')
                {
                    k += 1;
                }
                (j, k)
            }
        };
        if start < stop && &text[start..stop] != REDACTED {
            out.push_str(&text[copied..start]);
            out.push_str(REDACTED);
            copied = stop;
        }
        pos = stop.max(pos);
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&text[copied..]);
    Some(out)
}

/// What another program printed, safe to show: URL credentials
/// ([`mask_text`]) and credential-named fields ([`mask_credential_fields`])
/// masked.
pub fn masked_printout(text: &str) -> String {
    let urls = masked(text);
    mask_credential_fields(&urls).unwrap_or(urls)
}

/// [`mask_value`], giving the value back unchanged when there was nothing to hide.
pub fn masked_value(value: &str) -> String {
    mask_value(value).unwrap_or_else(|| value.to_string())
}

/// True when the value `text` holds a URL with credentials.
pub fn has_url_credentials(text: &str) -> bool {
    mask_value(text).is_some()
}

/// A copy of `value` with the URL credentials in every string masked.
pub fn mask_urls_in(value: &Value) -> Value {
    match value {
        Value::String(s) => match mask_value(s) {
            Some(m) => Value::String(m),
            None => value.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(mask_urls_in).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), mask_urls_in(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Replaces every secret value in a values tree: the secret keys' values
/// whole, and URL credentials anywhere.
pub fn redact(tree: &Value) -> Value {
    let mut out = mask_urls_in(tree);
    for key in SECRET_KEYS {
        if let Some(v) = lookup_mut(&mut out, key) {
            if !v.is_null() {
                *v = Value::String(REDACTED.into());
            }
        }
    }
    out
}

fn lookup_mut<'a>(root: &'a mut Value, path: &str) -> Option<&'a mut Value> {
    let mut node = root;
    for key in path.split('.') {
        node = node.as_object_mut()?.get_mut(key)?;
    }
    Some(node)
}

/// The key a leaf's credentials are kept under in the credentials Secret:
/// its dotted path, with characters a Secret key cannot hold as `_`.
fn secret_key_of(path: &[String]) -> String {
    path.join(".")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn walk_strings(value: &Value, path: &mut Vec<String>, f: &mut dyn FnMut(&[String], &str)) {
    match value {
        Value::String(s) => f(path, s),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(i.to_string());
                walk_strings(item, path, f);
                path.pop();
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                path.push(k.clone());
                walk_strings(v, path, f);
                path.pop();
            }
        }
        _ => {}
    }
}

fn walk_strings_mut(
    value: &mut Value,
    path: &mut Vec<String>,
    f: &mut dyn FnMut(&[String], &mut String),
) {
    match value {
        Value::String(s) => f(path, s),
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                path.push(i.to_string());
                walk_strings_mut(item, path, f);
                path.pop();
            }
        }
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                path.push(k.clone());
                walk_strings_mut(v, path, f);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Every value of the tree (outside the secret keys) that carries URL
/// credentials, by the key the credentials Secret keeps it under.
pub fn url_credentials(tree: &Value) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    walk_strings(tree, &mut Vec::new(), &mut |path, s| {
        if !is_secret_key(&path.join(".")) && has_url_credentials(s) {
            out.insert(secret_key_of(path), s.trim().to_string());
        }
    });
    out
}

/// The keys (dotted, `[i]` for a list item) of the values outside the
/// secret keys that carry URL credentials, in the tree's order.
pub fn keys_with_url_credentials(tree: &Value) -> Vec<String> {
    fn walk(value: &Value, key: String, out: &mut Vec<String>) {
        match value {
            Value::String(s) if !is_secret_key(&key) && has_url_credentials(s) => out.push(key),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    walk(item, format!("{key}[{i}]"), out);
                }
            }
            Value::Object(map) => {
                for (k, v) in map {
                    let child = if key.is_empty() {
                        k.clone()
                    } else {
                        format!("{key}.{k}")
                    };
                    walk(v, child, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(tree, String::new(), &mut out);
    out
}

/// The credentials-Secret keys of the masked URLs in a redacted tree: what
/// [`restore_url_credentials`] needs to read.
pub fn masked_url_keys(tree: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk_strings(tree, &mut Vec::new(), &mut |path, s| {
        if !is_secret_key(&path.join(".")) && s.contains(&format!("{REDACTED}@")) {
            out.push(secret_key_of(path));
        }
    });
    out
}

/// The dotted keys of the masked URLs left in a tree (nothing restored them).
pub fn masked_url_paths(tree: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk_strings(tree, &mut Vec::new(), &mut |path, s| {
        let dotted = path.join(".");
        if !is_secret_key(&dotted) && s.contains(&format!("{REDACTED}@")) {
            out.push(dotted);
        }
    });
    out
}

/// Puts the real values back into a redacted tree's masked URLs, from what
/// the credentials Secret holds. Gives the keys it could not restore.
pub fn restore_url_credentials(tree: &mut Value, held: &BTreeMap<String, String>) -> Vec<String> {
    let mut lost = Vec::new();
    walk_strings_mut(tree, &mut Vec::new(), &mut |path, s| {
        let dotted = path.join(".");
        if is_secret_key(&dotted) || !s.contains(&format!("{REDACTED}@")) {
            return;
        }
        match held.get(&secret_key_of(path)) {
            // Only a value whose masked form is what the record shows.
            Some(real) if masked_value(real) == *s => *s = real.clone(),
            _ => lost.push(dotted),
        }
    });
    lost
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_url_password_is_masked_wherever_it_is() {
        assert_eq!(
            masked("http://user:s3cret@proxy:3128"),
            "http://user:<redacted>@proxy:3128"
        );
        assert_eq!(
            masked("ftp://u:LEAK@p:3128 uses the scheme `ftp`"),
            "ftp://u:<redacted>@p:3128 uses the scheme `ftp`"
        );
        assert_eq!(
            masked("https://ghp_token@github.com/x"),
            "https://<redacted>@github.com/x"
        );
        assert_eq!(
            masked("a http://a:b@h, then https://c:d@i/p"),
            "a http://a:<redacted>@h, then https://c:<redacted>@i/p"
        );
        assert_eq!(masked("http://proxy:3128"), "http://proxy:3128");
        assert_eq!(masked("no url here"), "no url here");
        // Idempotent: masking a masked URL changes nothing.
        assert_eq!(mask_text("http://user:<redacted>@proxy:3128"), None);
    }

    /// A password may hold every reserved character unescaped; the mask
    /// used to stop at the first `/`, `?`, `#` or quote and show the rest.
    /// Each character, in four schemes, bare, in a sentence, quoted the way
    /// a message quotes a value, and as `KEY=URL`; with a password and as a
    /// lone token. Returns how many cases ran.
    #[test]
    fn a_url_password_with_reserved_characters_is_masked_whole() {
        let reserved = [
            '#', '?', '/', '@', ':', '%', ';', ',', '"', '`', '\'', '[', ']', '\\', '=', '&', '!',
            '$', '+', '*', '(', ')', '{', '}', '|', '^', '~', '<', '>',
        ];
        let mut cases = 0;
        for c in reserved {
            let password = format!("S3cr{c}etX");
            for scheme in ["http", "https", "socks5", "postgres"] {
                for userinfo in [format!("user:{password}"), password.clone()] {
                    let url = format!("{scheme}://{userinfo}@db.example.com:5432/x");
                    for text in [
                        url.clone(),
                        format!("proxy {url} is refused"),
                        format!("value {url:?}: bad"),
                        format!("DB_URL={url}"),
                    ] {
                        cases += 1;
                        let shown = masked(&text);
                        // A lone `S3cr:etX@` is user `S3cr`, password `etX`.
                        let user_shown = c == ':' && !userinfo.starts_with("user:");
                        assert!(
                            !shown.contains("etX") && (user_shown || !shown.contains("S3cr")),
                            "{text} shows as {shown}"
                        );
                        assert!(shown.contains("@db.example.com:5432"), "{shown}");
                        assert!(has_url_credentials(&text), "{text}");
                        assert_eq!(mask_text(&shown), None, "masking {shown} twice");
                        let tree = json!({"EnvVars": {"DB_URL": text}});
                        assert!(!redact(&tree).to_string().contains("etX"), "{text}");
                        assert_eq!(url_credentials(&tree).len(), 1, "{text}");
                    }
                }
            }
        }
        assert_eq!(cases, 29 * 4 * 2 * 4);
        // A value: white space does not end its URL's user part either.
        for value in [
            "http://u:p ss@proxy:3128",
            "http://u:p\tss@proxy:3128",
            "http://p ss@proxy",
        ] {
            let shown = masked_value(value);
            assert!(
                !shown.contains("ss@") && shown.ends_with("@proxy:3128")
                    || shown.ends_with("@proxy"),
                "{shown}"
            );
            assert!(has_url_credentials(value), "{value}");
            assert!(!redact(&json!({"EnvVars": {"P": value}}))
                .to_string()
                .contains("ss@"));
        }
        // Two URLs in one word are masked each, the host between them kept.
        assert_eq!(
            masked("http://a:b#1@h1,https://c:d?2@h2"),
            "http://a:<redacted>@h1,https://c:<redacted>@h2"
        );
    }

    #[test]
    fn credential_fields_in_a_printout_are_masked() {
        assert_eq!(
            masked_printout(
                r#"{"kind":"ExecCredential","status":{"token":"k8s-aws-v1.SECRET","expirationTimestamp":"2026-01-01T00:00:00Z"}}"#
            ),
            r#"{"kind":"ExecCredential","status":{"token":"<redacted>","expirationTimestamp":"2026-01-01T00:00:00Z"}}"#
        );
        assert_eq!(
            masked_printout("status:\n  clientKeyData: PRIVATE\n  access_token: 'AT' id_token=IT"),
            "status:\n  clientKeyData: <redacted>\n  access_token: '<redacted>' id_token=<redacted>"
        );
        assert_eq!(
            masked_printout(r#"--token=T "password" : "p\"w" https://u:PW@h"#),
            r#"--token=<redacted> "password" : "<redacted>" https://u:<redacted>@h"#
        );
        // Names that are not credentials, nested objects, and a cut-off
        // value at the end.
        assert_eq!(
            mask_credential_fields(r#"{"tokens":{"kind":"x"},"monkeys":[1]}"#),
            None
        );
        assert_eq!(
            masked_printout(r#"{"token":"abc"#),
            r#"{"token":"<redacted>"#
        );
        assert_eq!(mask_credential_fields("no fields here: token"), None);
        // Idempotent.
        assert_eq!(mask_credential_fields("token: <redacted>"), None);
    }

    #[test]
    fn redact_hides_every_secret_kind() {
        let tree = json!({
            "Token": "tok",
            "NewRelicLicense": "lic",
            "Storage": {"AwsSecretAccessKey": "aws"},
            "EnvVars": {"HTTPS_PROXY": "http://u:PASS@p:3128"},
            "Runtime": {"RegistryMirrors": ["https://m:MIRROR@mirror"]},
        });
        let text = redact(&tree).to_string();
        for secret in ["tok", "lic", "aws", "PASS", "MIRROR"] {
            assert!(!text.contains(&format!("\"{secret}")), "{secret} in {text}");
            assert!(!text.contains(&format!(":{secret}@")), "{secret} in {text}");
        }
    }

    #[test]
    fn url_credentials_round_trip_through_the_secret() {
        let tree = json!({
            "Token": "http://not:this@one",
            "EnvVars": {"HTTPS_PROXY": "http://u:PASS@p:3128", "NO_PROXY": "x"},
            "Runtime": {"RegistryMirrors": ["https://m:MIRROR@mirror"]},
        });
        let held = url_credentials(&tree);
        assert_eq!(
            held.keys().collect::<Vec<_>>(),
            ["EnvVars.HTTPS_PROXY", "Runtime.RegistryMirrors.0"]
        );
        let mut stored = redact(&tree);
        let lost = restore_url_credentials(&mut stored, &held);
        assert!(lost.is_empty());
        assert_eq!(stored["EnvVars"], tree["EnvVars"]);
        assert_eq!(stored["Runtime"], tree["Runtime"]);

        let mut stored = redact(&tree);
        let lost = restore_url_credentials(&mut stored, &BTreeMap::new());
        assert_eq!(lost, ["EnvVars.HTTPS_PROXY", "Runtime.RegistryMirrors.0"]);
    }
}
