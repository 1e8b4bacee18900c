//! The one place that knows what a secret value is and how to hide it.
//!
//! Three kinds of values are secret: the values of the keys in
//! [`SECRET_KEYS`] (tokens, cloud keys, licences), whole; the values of
//! the environment variables ([`ENV_MAPS`]) whose names are a credential's
//! (`DB_PASSWORD`, `NPM_TOKEN`: `text::is_credential_name`), whole; and the
//! credentials inside any URL (`scheme://user:PASSWORD@host`), wherever the
//! URL appears (proxies, hosts, environment variables). The last two are
//! kept in the credentials Secret, which pods read them from, and restored
//! from it on upgrade ([`url_credentials`], [`restore_url_credentials`]).
//! Everything that
//! shows values to a person or keeps them in a non-Secret place (the record
//! Secret, info, upgrade's diff, error messages, dry-run files, stdout)
//! goes through [`redact`], [`mask_urls_in`] or, for a text, `crate::text`'s
//! masking.
//!
//! Pure: no I/O.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde_json::Value;

use crate::text::{has_url_credentials, is_credential_name, mask_value, REDACTED};
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

/// The maps of environment variables: the values whose URL credentials,
/// and whose credential-named variables, cf-runner carries through the
/// credentials Secret (pods read them with `secretKeyRef`).
pub const ENV_MAPS: &[&str] = &[
    "EnvVars",
    "AdditionalEnvVars",
    "Runtime.AdditionalEnvVars",
    "Monitor.AdditionalEnvVars",
    "AppProxy.AdditionalEnvVars",
];

/// True when `key` (a dotted path) is a variable of an environment map
/// whose name is a credential's (`EnvVars.DB_PASSWORD`): its value is
/// secret, whole.
pub fn is_credential_env(key: &str) -> bool {
    ENV_MAPS.iter().any(|map| {
        key.strip_prefix(map)
            .and_then(|rest| rest.strip_prefix('.'))
            .is_some_and(|name| !name.is_empty() && is_credential_name(name))
    })
}

/// True when the whole value at `key` is secret: a secret key's, or a
/// credential-named environment variable's.
pub fn hides_whole(key: &str) -> bool {
    is_secret_key(key) || is_credential_env(key)
}

/// The credential-named environment variables of a tree with a value to
/// hide: (path, value as text). Numbers count too (`PIN_PASSWORD: 1234`).
fn credential_envs(tree: &Value) -> Vec<(Vec<String>, String)> {
    let mut out = Vec::new();
    for map in ENV_MAPS {
        let mut node = tree;
        for step in map.split('.') {
            match node.get(step) {
                Some(n) => node = n,
                None => {
                    node = &Value::Null;
                    break;
                }
            }
        }
        let Some(vars) = node.as_object() else {
            continue;
        };
        for (name, value) in vars {
            if !is_credential_name(name) {
                continue;
            }
            let text = match value {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                Value::Bool(b) => b.to_string(),
                _ => continue,
            };
            if text.is_empty() {
                continue;
            }
            let mut path: Vec<String> = map.split('.').map(str::to_string).collect();
            path.push(name.clone());
            out.push((path, text));
        }
    }
    out
}

/// A copy of `value` with the URL credentials in every string masked.
pub fn mask_urls_in(value: &Value) -> Value {
    let mut out = value.clone();
    mask_urls_where_they_are(&mut out);
    out
}

/// [`mask_urls_in`] in place: only the strings that change are rewritten.
fn mask_urls_where_they_are(value: &mut Value) {
    match value {
        Value::String(s) => {
            if let Some(m) = mask_value(s) {
                *s = m;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(mask_urls_where_they_are),
        Value::Object(map) => map.values_mut().for_each(mask_urls_where_they_are),
        _ => {}
    }
}

/// True when [`mask_urls_in`] would change something in `value`: a string
/// in it holds a URL with credentials. Lets a caller show a tree without
/// copying it when there is nothing to mask (most objects).
pub fn has_urls_to_mask(value: &Value) -> bool {
    match value {
        Value::String(s) => mask_value(s).is_some(),
        Value::Array(items) => items.iter().any(has_urls_to_mask),
        Value::Object(map) => map.values().any(has_urls_to_mask),
        _ => false,
    }
}

/// A runtime-environment spec as cf-runner may show it: URL credentials
/// masked, and the values of credential-named variables of its `envVars`
/// maps hidden whole (the platform gets the real ones: it starts the build
/// pods).
pub fn redact_runtime_spec(spec: &Value) -> Value {
    fn walk(value: &mut Value) {
        match value {
            Value::Object(map) => {
                for (k, v) in map.iter_mut() {
                    match v {
                        Value::Object(vars) if k == "envVars" => {
                            for (name, var) in vars.iter_mut() {
                                if hides_spec_var(name, var) {
                                    *var = Value::String(REDACTED.into());
                                }
                            }
                        }
                        _ => walk(v),
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    let mut out = mask_urls_in(spec);
    walk(&mut out);
    out
}

/// [`redact_runtime_spec`], without a copy of the spec when it changes
/// nothing (no URL with credentials, no credential-named variable set).
pub fn redacted_runtime_spec(spec: &Value) -> std::borrow::Cow<'_, Value> {
    fn has_hidden_var(value: &Value) -> bool {
        match value {
            Value::Object(map) => map.iter().any(|(k, v)| match v {
                Value::Object(vars) if k == "envVars" => {
                    vars.iter().any(|(name, var)| hides_spec_var(name, var))
                }
                _ => has_hidden_var(v),
            }),
            Value::Array(items) => items.iter().any(has_hidden_var),
            _ => false,
        }
    }
    if has_urls_to_mask(spec) || has_hidden_var(spec) {
        std::borrow::Cow::Owned(redact_runtime_spec(spec))
    } else {
        std::borrow::Cow::Borrowed(spec)
    }
}

/// True when the runtime spec's variable `name` is hidden whole: a
/// credential's name with a value set.
fn hides_spec_var(name: &str, var: &Value) -> bool {
    let empty = var.is_null() || var.as_str() == Some("");
    !empty && is_credential_name(name)
}

/// Replaces every secret value in a values tree: the secret keys' values
/// and credential-named environment variables' whole, and URL credentials
/// anywhere.
pub fn redact(tree: &Value) -> Value {
    redacted(tree.clone())
}

/// [`redact`] of a tree the caller gives up: masked where it lies, with no
/// second tree built (validation's merged tree becomes the record's).
pub fn redacted(tree: Value) -> Value {
    // The variables are found before any masking, as `redact` finds them in
    // the tree it was given (masking never empties a value).
    let envs = credential_envs(&tree);
    let mut out = tree;
    mask_urls_where_they_are(&mut out);
    for key in SECRET_KEYS {
        if let Some(v) = lookup_mut(&mut out, key) {
            if !v.is_null() {
                *v = Value::String(REDACTED.into());
            }
        }
    }
    for (path, _) in envs {
        if let Some(v) = lookup_mut(&mut out, &path.join(".")) {
            *v = Value::String(REDACTED.into());
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

/// True when the value `s` at `path` is a credential-named variable's,
/// masked whole.
fn is_masked_env<S: std::borrow::Borrow<str>>(path: &[S], s: &str) -> bool {
    s == REDACTED && is_credential_env(&path.join("."))
}

/// The key a leaf's credentials are kept under in the credentials Secret:
/// its dotted path, with characters a Secret key cannot hold as `_`.
fn secret_key_of<S: std::borrow::Borrow<str>>(path: &[S]) -> String {
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

/// Calls `f` with every string of the tree and its path. A map's key is
/// borrowed, not copied: the walk runs over every node of the values.
fn walk_strings<'a>(
    value: &'a Value,
    path: &mut Vec<Cow<'a, str>>,
    f: &mut dyn FnMut(&[Cow<'a, str>], &str),
) {
    match value {
        Value::String(s) => f(path, s),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(Cow::Owned(i.to_string()));
                walk_strings(item, path, f);
                path.pop();
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                path.push(Cow::Borrowed(k));
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

/// Every value of the tree (outside the secret keys) that the credentials
/// Secret keeps, by the key it keeps it under: those that carry URL
/// credentials, and the credential-named environment variables' (whole).
pub fn url_credentials(tree: &Value) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    walk_strings(tree, &mut Vec::new(), &mut |path, s| {
        // The URL test first: it is cheap, the key's path is not.
        if has_url_credentials(s) && !is_secret_key(&path.join(".")) {
            out.insert(secret_key_of(path), s.trim().to_string());
        }
    });
    for (path, value) in credential_envs(tree) {
        if value != REDACTED {
            out.insert(secret_key_of(&path), value);
        }
    }
    out
}

/// The keys (dotted, `[i]` for a list item) of the values outside the
/// secret keys that carry URL credentials, in the tree's order.
pub fn keys_with_url_credentials(tree: &Value) -> Vec<String> {
    /// One step down to a value: a map's key or a list's index.
    enum Step<'a> {
        Key(&'a str),
        Index(usize),
    }
    // The steps are kept as borrowed names and the dotted key is written
    // only for a value that has credentials (almost never): no string is
    // built per node of the tree.
    fn walk<'a>(value: &'a Value, path: &mut Vec<Step<'a>>, out: &mut Vec<String>) {
        match value {
            Value::String(s) if has_url_credentials(s) => {
                let mut key = String::new();
                for step in path.iter() {
                    match step {
                        Step::Key(k) => {
                            if !key.is_empty() {
                                key.push('.');
                            }
                            key.push_str(k);
                        }
                        Step::Index(i) => key.push_str(&format!("[{i}]")),
                    }
                }
                if !is_secret_key(&key) {
                    out.push(key);
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    path.push(Step::Index(i));
                    walk(item, path, out);
                    path.pop();
                }
            }
            Value::Object(map) => {
                for (k, v) in map {
                    path.push(Step::Key(k));
                    walk(v, path, out);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(tree, &mut Vec::new(), &mut out);
    out
}

/// The credentials-Secret keys of the masked URLs in a redacted tree: what
/// [`restore_url_credentials`] needs to read.
pub fn masked_url_keys(tree: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk_strings(tree, &mut Vec::new(), &mut |path, s| {
        if !is_secret_key(&path.join("."))
            && (s.contains(&format!("{REDACTED}@")) || is_masked_env(path, s))
        {
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
        if !is_secret_key(&dotted)
            && (s.contains(&format!("{REDACTED}@")) || is_masked_env(path, s))
        {
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
        let whole = is_masked_env(path, s);
        if is_secret_key(&dotted) || !(whole || s.contains(&format!("{REDACTED}@"))) {
            return;
        }
        match held.get(&secret_key_of(path)) {
            Some(real) if whole => *s = real.clone(),
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

    /// The keys named in "carries credentials in a URL" messages, and the
    /// record's redaction, whichever way the tree nests them.
    #[test]
    fn url_credentials_are_named_by_their_dotted_key_in_the_trees_order() {
        let tree = json!({
            "Token": "http://u:TOK@h",
            "Storage": {"AwsAccessKeyId": ["ftp://u:AK@h"]},
            "Runtime": {
                "RegistryMirrors": ["https://m@mirror", "https://plain", "https://a:b@c"],
                "userVolumes": {"v": {"nfs": [[{"": "nfs://x:y@srv"}]]}},
            },
            "": {"": "http://e:E@h"},
            "EnvVars": {"HTTPS_PROXY": "http://u:PASS@p:3128", "DB_KEY": "k-1"},
            "Note": "mail me@home, see http://docs",
        });
        assert_eq!(
            keys_with_url_credentials(&tree),
            [
                // A secret key's list item is not the secret key itself.
                "Storage.AwsAccessKeyId[0]",
                "Runtime.RegistryMirrors[0]",
                "Runtime.RegistryMirrors[2]",
                "Runtime.userVolumes.v.nfs[0][0].",
                "",
                "EnvVars.HTTPS_PROXY",
            ]
        );
        assert_eq!(
            url_credentials(&tree).into_iter().collect::<Vec<_>>(),
            [
                (".".to_string(), "http://e:E@h".to_string()),
                ("EnvVars.DB_KEY".into(), "k-1".into()),
                ("EnvVars.HTTPS_PROXY".into(), "http://u:PASS@p:3128".into()),
                (
                    "Runtime.RegistryMirrors.0".into(),
                    "https://m@mirror".into()
                ),
                ("Runtime.RegistryMirrors.2".into(), "https://a:b@c".into()),
                (
                    "Runtime.userVolumes.v.nfs.0.0.".into(),
                    "nfs://x:y@srv".into()
                ),
            ]
        );
        let shown = redacted(tree.clone());
        assert_eq!(shown, redact(&tree));
        assert_eq!(
            shown,
            json!({
                "Token": REDACTED,
                "Storage": {"AwsAccessKeyId": REDACTED},
                "Runtime": {
                    "RegistryMirrors": ["https://<redacted>@mirror", "https://plain", "https://a:<redacted>@c"],
                    "userVolumes": {"v": {"nfs": [[{"": "nfs://x:<redacted>@srv"}]]}},
                },
                "": {"": "http://e:<redacted>@h"},
                "EnvVars": {"HTTPS_PROXY": "http://u:<redacted>@p:3128", "DB_KEY": REDACTED},
                "Note": "mail me@home, see http://docs",
            })
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

    /// `info -o json` printed `EnvVars.SEED_DB_PASSWORD` in clear: only
    /// the secret keys and URL credentials were masked. A credential-named
    /// variable is hidden whole, kept by the credentials Secret, and put
    /// back from it on upgrade; other variables stay readable.
    #[test]
    fn a_credential_named_env_value_is_hidden_whole_and_restored_from_the_secret() {
        let tree = json!({
            "EnvVars": {"SEED_DB_PASSWORD": "pw-0123", "NO_PROXY": "x", "EMPTY_TOKEN": ""},
            "Runtime": {"AdditionalEnvVars": {"npm_token": "npm-4567", "PIN_SECRET": 8910}},
            "Monitor": {"AdditionalEnvVars": {"Git_Credentials": "gc-1112"}},
            "Tolerations": [{"key": "dedicated"}],
        });
        let shown = redact(&tree);
        let text = shown.to_string();
        for secret in ["pw-0123", "npm-4567", "8910", "gc-1112"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        assert_eq!(shown["EnvVars"]["NO_PROXY"], "x");
        assert_eq!(shown["EnvVars"]["EMPTY_TOKEN"], "");
        assert_eq!(shown["Tolerations"][0]["key"], "dedicated");
        let held = url_credentials(&tree);
        assert_eq!(
            held.keys().collect::<Vec<_>>(),
            [
                "EnvVars.SEED_DB_PASSWORD",
                "Monitor.AdditionalEnvVars.Git_Credentials",
                "Runtime.AdditionalEnvVars.PIN_SECRET",
                "Runtime.AdditionalEnvVars.npm_token",
            ]
        );
        let mut stored = shown.clone();
        assert_eq!(masked_url_keys(&stored).len(), 4);
        assert!(restore_url_credentials(&mut stored, &held).is_empty());
        assert_eq!(stored["EnvVars"], tree["EnvVars"]);
        assert_eq!(
            stored["Runtime"]["AdditionalEnvVars"]["npm_token"],
            "npm-4567"
        );
        let mut stored = shown;
        assert_eq!(masked_url_paths(&stored).len(), 4);
        assert_eq!(
            restore_url_credentials(&mut stored, &BTreeMap::new()).len(),
            4
        );
        assert!(hides_whole("EnvVars.SEED_DB_PASSWORD") && hides_whole("Token"));
        let spec = json!({"runtimeScheduler": {"envVars": {"DB_PASSWORD": "pw-0123", "HTTP_PROXY": "http://u:pp-99@p"}}});
        let spec = redact_runtime_spec(&spec).to_string();
        assert!(
            !spec.contains("pw-0123") && !spec.contains("pp-99"),
            "{spec}"
        );
        assert!(!hides_whole("EnvVars.NO_PROXY") && !hides_whole("Tolerations"));
    }

    /// The export shows the runtime spec through [`redacted_runtime_spec`],
    /// which copies the spec only when something in it is hidden: it must
    /// hide exactly what [`redact_runtime_spec`] hides.
    #[test]
    fn the_runtime_spec_is_shown_as_redact_runtime_spec_shows_it() {
        let specs = [
            json!({"a": {"envVars": {"DB_PASSWORD": "pw-0123", "X": "y"}}}),
            json!({"a": [{"envVars": {"NPM_TOKEN": "t-1"}}]}),
            json!({"a": {"b": "http://u:pp-99@p:3128"}}),
            json!({"a": {"envVars": {"DB_PASSWORD": "", "T_TOKEN": null, "X": "y"}}}),
            json!({"a": {"envVars": {"HTTP_PROXY": "http://p:3128"}, "c": [1, "d"]}}),
        ];
        for (i, spec) in specs.iter().enumerate() {
            let shown = redacted_runtime_spec(spec);
            assert_eq!(*shown, redact_runtime_spec(spec), "{spec}");
            let copied = matches!(shown, std::borrow::Cow::Owned(_));
            assert_eq!(copied, i < 3, "{spec}");
            assert_eq!(copied, *shown != *spec, "{spec}");
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
