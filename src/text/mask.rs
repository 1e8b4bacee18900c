//! Masking: URL credentials and credential-named fields in a text replaced
//! by [`REDACTED`]. Which values of the values tree are secret, whole, is
//! `values::secrets`'s; it masks the rest through here.

/// What a hidden value is replaced with.
pub const REDACTED: &str = "<redacted>";

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

/// True when `text` holds `://`. A loop over the colons: most strings
/// have none or one, and a substring search costs more to set up than
/// that for the short strings of an object.
fn has_scheme_separator(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(at) = bytes[from..].iter().position(|&b| b == b':') {
        let colon = from + at;
        if bytes[colon + 1..].starts_with(b"//") {
            return true;
        }
        from = colon + 1;
    }
    false
}

fn mask(text: &str, whole_value: bool) -> Option<String> {
    // Most values hold no URL: no copy for them (a dry-run masks every
    // string of every object). Nothing is hidden without an `@` (every
    // change below needs one), and that byte is looked for word by word,
    // so the long strings of an object (scripts, configs) cost little.
    if !text.as_bytes().contains(&b'@') || !has_scheme_separator(text) {
        return None;
    }
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

/// Words that make a name a credential's, in any case: a field of what
/// another program printed (an auth plugin's ExecCredential, a token
/// service's answer: `token`, `access_token`, `clientKeyData`, `apiKey`,
/// `client_secret`, `--token=` …) and an environment variable of the
/// values (`DB_PASSWORD`, `NPM_TOKEN`, `AWS_SECRET_ACCESS_KEY`,
/// `GIT_CREDENTIALS` …). A name that holds one of them anywhere counts:
/// hiding a value that was not secret costs a look in a Secret, showing
/// one that was costs the credential.
const CREDENTIAL_FIELD_WORDS: &[&str] = &[
    "token",
    "key",
    "secret",
    "password",
    "passwd",
    "passphrase",
    "credential",
];

/// The first letters of [`CREDENTIAL_FIELD_WORDS`], by byte.
const STARTS_A_CREDENTIAL_WORD: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < CREDENTIAL_FIELD_WORDS.len() {
        table[CREDENTIAL_FIELD_WORDS[i].as_bytes()[0] as usize] = true;
        i += 1;
    }
    table
};

/// True when `name` (a field, an environment variable) names a credential:
/// it holds one of the words above, in any case.
pub fn is_credential_name(name: &str) -> bool {
    // One pass over the name, with no lowercase copy: the words are tried
    // only where one of their first letters stands (a dry-run asks this of
    // every variable of the runtime spec and of every object).
    let bytes = name.as_bytes();
    (0..bytes.len()).any(|at| {
        let first = bytes[at].to_ascii_lowercase();
        if !STARTS_A_CREDENTIAL_WORD[usize::from(first)] {
            return false;
        }
        CREDENTIAL_FIELD_WORDS.iter().any(|word| {
            let word = word.as_bytes();
            word[0] == first
                && bytes
                    .get(at..at + word.len())
                    .is_some_and(|here| here.eq_ignore_ascii_case(word))
        })
    })
}

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
        let name = &text[pos..end];
        pos = end;
        if !is_credential_name(name) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_credential_name_is_found_as_a_lowercase_search_finds_it() {
        let lowercase_search = |name: &str| {
            let name = name.to_ascii_lowercase();
            CREDENTIAL_FIELD_WORDS.iter().any(|w| name.contains(w))
        };
        for name in [
            "",
            "k",
            "ke",
            "KEY",
            "apiKey",
            "DB_PASSWORD",
            "PASSWD",
            "my_passphrase",
            "pass",
            "GIT_CREDENTIALS",
            "credentia",
            "NPM_TOKEN",
            "toke",
            "TOKENS",
            "client_secret",
            "secre",
            "monkey",
            "BUILDKIT_PROGRESS",
            "HTTP_PROXY",
            "ÄKEY",
            "kéy",
            "sec\u{0}ret",
            "xxpasswordxx",
            "ssecret",
            "ppassword",
        ] {
            assert_eq!(is_credential_name(name), lowercase_search(name), "{name:?}");
        }
    }

    #[test]
    fn the_scheme_separator_is_found_where_the_substring_search_finds_it() {
        for text in [
            "",
            ":",
            "://",
            "a:/",
            "a:/b://c",
            "::://",
            "a:b:c",
            "http://x",
            "x:",
            "é://",
            "a: //b",
            "q.io/a:1@sha256:ab",
        ] {
            assert_eq!(has_scheme_separator(text), text.contains("://"), "{text:?}");
        }
    }

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
}
