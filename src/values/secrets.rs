//! The one place that knows what a secret value is and how to hide it.
//!
//! Two kinds of values are secret: the values of the keys in
//! [`SECRET_KEYS`] (tokens, cloud keys, licences), whole; and the
//! credentials inside any URL (`scheme://user:PASSWORD@host`), wherever the
//! URL appears (proxies, hosts, environment variables). Everything that
//! shows values to a person or keeps them in a non-Secret place (the record
//! Secret, info, upgrade's diff, error messages, dry-run files, stdout)
//! goes through [`redact`], [`mask_urls_in`] or, for a text, `crate::text`'s
//! masking.
//!
//! Pure: no I/O.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::text::{has_url_credentials, mask_value, REDACTED};
// Callers that show one value take its mask from here or from `text`: the
// same function.
use crate::text::masked_value;

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
    use crate::text::{mask_text, masked};
    use serde_json::json;

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
