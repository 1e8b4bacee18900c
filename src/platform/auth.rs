//! Which token and which platform: `--token`, then `CF_API_KEY`, then the
//! current context of `~/.cfconfig` (`CFCONFIG` names another file), the
//! same YAML `codefresh auth create-context` writes.

use std::path::PathBuf;

use serde_json::Value;

use super::PlatformError;
use crate::values::{Secret, DEFAULT_CODEFRESH_HOST};

/// Where the token came from: named in errors, never the token itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenSource {
    Flag,
    Values,
    Env,
    CfConfig { path: String, context: String },
}

impl std::fmt::Display for TokenSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TokenSource::Flag => f.write_str("--token"),
            TokenSource::Values => f.write_str("Token in the values"),
            TokenSource::Env => f.write_str("CF_API_KEY"),
            TokenSource::CfConfig { path, context } => {
                write!(f, "context {context:?} of {path}")
            }
        }
    }
}

/// A token, where it came from, and the platform URL it is for.
#[derive(Debug, Clone)]
pub struct Auth {
    pub token: Secret,
    pub source: TokenSource,
    pub url: String,
}

/// The largest `~/.cfconfig` read (a real one, with a few contexts, is well
/// under a kilobyte).
pub const MAX_CFCONFIG_BYTES: u64 = 1024 * 1024;

/// The cfconfig path: `$CFCONFIG`, else `~/.cfconfig`.
pub fn cfconfig_path() -> PathBuf {
    if let Some(p) = crate::env::var_os("CFCONFIG").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    crate::env::home()
        .map(|h| h.join(".cfconfig"))
        .unwrap_or_else(|| PathBuf::from(".cfconfig"))
}

/// A platform URL that the command line did not give: from a values file,
/// the installation's record in the cluster, an old runner's
/// `CODEFRESH_HOST`. Anyone who can edit those can write any host there,
/// so a token goes to it only when it is the token's own platform.
#[derive(Debug, Clone, Copy)]
pub struct NamedUrl<'a> {
    pub url: &'a str,
    /// Where it was read, for the refusal ("CodefreshHost in the values").
    pub origin: &'a str,
}

/// Picks the token, then the URL it may go to.
///
/// `flag_token`/`values_token` are `--token` and `Token` (the caller knows
/// which). Each source has its own platform: the cfconfig context's URL,
/// `CF_URL` (with `CF_API_KEY` or `--token`), else the public platform; a
/// token in the values goes with the values' host. `cli_url` (`--url` on
/// the command line) is the user's word and always wins. A `named` URL is
/// used only when it is the token's own platform (same scheme, host and
/// port); otherwise the token is not sent anywhere and the error names
/// both hosts.
pub fn resolve(
    flag_token: Option<&Secret>,
    values_token: Option<&Secret>,
    cli_url: Option<&str>,
    named: Option<NamedUrl<'_>>,
) -> Result<Auth, PlatformError> {
    let (token, source, own) = token_and_own_url(flag_token, values_token)?;
    let url = match (cli_url, named) {
        (Some(url), _) => url.to_string(),
        (None, None) => own,
        (None, Some(n)) if source == TokenSource::Values || same_platform(n.url, &own) => {
            n.url.to_string()
        }
        (None, Some(n)) => {
            return Err(PlatformError::HostMismatch {
                source_name: source.to_string(),
                own: crate::text::masked(&own),
                named: crate::text::masked(n.url),
                origin: n.origin.to_string(),
            })
        }
    };
    Ok(Auth { token, source, url })
}

/// True when two platform URLs are the same origin: scheme, host and port.
/// A plain `http://` URL is never the same as an `https://` one.
pub fn same_platform(a: &str, b: &str) -> bool {
    let origin = |u: &str| {
        url::Url::parse(u.trim()).ok().and_then(|u| {
            Some((
                u.scheme().to_string(),
                u.host_str()?.to_ascii_lowercase(),
                u.port_or_known_default(),
            ))
        })
    };
    match (origin(a), origin(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a.trim().trim_end_matches('/') == b.trim().trim_end_matches('/'),
    }
}

/// The token, where it came from, and the platform URL of that source.
fn token_and_own_url(
    flag_token: Option<&Secret>,
    values_token: Option<&Secret>,
) -> Result<(Secret, TokenSource, String), PlatformError> {
    let cf_url = || {
        crate::env::var("CF_URL")
            .filter(|u| !u.trim().is_empty())
            .map(|u| u.trim().trim_end_matches('/').to_string())
            .unwrap_or_else(|| DEFAULT_CODEFRESH_HOST.to_string())
    };
    if let Some(t) = flag_token {
        return Ok((t.clone(), TokenSource::Flag, cf_url()));
    }
    if let Some(t) = values_token {
        return Ok((
            t.clone(),
            TokenSource::Values,
            DEFAULT_CODEFRESH_HOST.to_string(),
        ));
    }
    if let Some(t) = crate::env::var("CF_API_KEY").filter(|t| !t.trim().is_empty()) {
        return Ok((Secret::new(t.trim()), TokenSource::Env, cf_url()));
    }
    let path = cfconfig_path();
    let shown = path.display().to_string();
    let text = match crate::input_file::read_regular_text_if_exists(&path, MAX_CFCONFIG_BYTES) {
        Ok(Some(t)) => t,
        Ok(None) => return Err(PlatformError::NoToken { cfconfig: shown }),
        Err(why) => {
            return Err(PlatformError::CfConfig {
                path: shown,
                message: why.to_string(),
            })
        }
    };
    let config: Value = serde_yaml_ng::from_str(&text).map_err(|e| PlatformError::CfConfig {
        path: shown.clone(),
        message: format!("not valid YAML ({e})"),
    })?;
    let Some(current) = config.get("current-context").and_then(Value::as_str) else {
        return Err(PlatformError::NoToken { cfconfig: shown });
    };
    let context = config
        .get("contexts")
        .and_then(|c| c.get(current))
        .ok_or_else(|| PlatformError::CfConfig {
            path: shown.clone(),
            message: format!("current-context {current:?} is not among its contexts"),
        })?;
    let token = context
        .get("token")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| PlatformError::CfConfig {
            path: shown.clone(),
            message: format!("context {current:?} has no token"),
        })?;
    let context_url = context
        .get("url")
        .and_then(Value::as_str)
        .map(|u| u.trim_end_matches('/').to_string());
    Ok((
        Secret::new(token),
        TokenSource::CfConfig {
            path: shown,
            context: current.to_string(),
        },
        context_url.unwrap_or_else(|| DEFAULT_CODEFRESH_HOST.to_string()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::with_vars;

    /// The order of the sources, each seen through the environment seam:
    /// the flag, the values, `CF_API_KEY` (with `CF_URL`), then the current
    /// context of the cfconfig `CFCONFIG` names, else of `~/.cfconfig`.
    #[test]
    fn the_token_comes_from_the_first_source_that_has_one() {
        let dir = tempfile::tempdir().unwrap();
        let cfconfig = dir.path().join("cfconfig");
        std::fs::write(
            &cfconfig,
            "current-context: work\ncontexts:\n  work:\n    token: from-cfconfig\n    url: https://cf.example.test/\n",
        )
        .unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir(&home).unwrap();
        let path = cfconfig.to_str().unwrap();
        let flag = Secret::new("from-flag");
        let from_env = [
            ("CF_API_KEY", Some(" from-env ")),
            ("CF_URL", Some("https://env.example.test")),
            ("CFCONFIG", Some(path)),
        ];
        with_vars(&from_env, || {
            let auth = resolve(Some(&flag), None, None, None).unwrap();
            assert_eq!(
                (auth.token.expose(), auth.source),
                ("from-flag", TokenSource::Flag)
            );
            let auth = resolve(None, None, None, None).unwrap();
            assert_eq!(auth.token.expose(), "from-env");
            assert_eq!(
                (auth.source, auth.url.as_str()),
                (TokenSource::Env, "https://env.example.test")
            );
        });
        let from_cfconfig = [("CF_API_KEY", None), ("CFCONFIG", Some(path))];
        with_vars(&from_cfconfig, || {
            let auth = resolve(None, None, None, None).unwrap();
            assert_eq!(auth.token.expose(), "from-cfconfig");
            assert_eq!(auth.url, "https://cf.example.test");
        });
        let nothing = [
            ("CF_API_KEY", None),
            ("CFCONFIG", None),
            ("HOME", home.to_str()),
        ];
        with_vars(&nothing, || {
            let err = resolve(None, None, None, None).unwrap_err();
            assert!(err.to_string().contains(".cfconfig"), "{err}");
        });
    }

    /// A token goes only to its own platform or to `--url` from the command
    /// line; a host from a values file or the cluster that differs is
    /// refused, naming both, and nothing is sent. Every source against
    /// hosts that match and hosts that do not.
    #[test]
    fn a_token_never_goes_to_a_host_that_a_file_or_the_cluster_names() {
        let dir = tempfile::tempdir().unwrap();
        let cfconfig = dir.path().join("cfconfig");
        std::fs::write(
            &cfconfig,
            "current-context: work\ncontexts:\n  work:\n    token: from-cfconfig\n    url: https://cf.example.test/\n",
        )
        .unwrap();
        let path = cfconfig.to_str().unwrap();
        let named = |url| NamedUrl {
            url,
            origin: "CodefreshHost in the values",
        };
        let foreign = [
            "http://127.0.0.1:8765",
            "https://evil.example.test",
            "http://cf.example.test",
            "https://cf.example.test:8443",
            "https://cf.example.test.evil.test",
            "https://user:pw@evil.example.test",
        ];
        let own = [
            "https://cf.example.test",
            "https://cf.example.test/",
            "https://CF.example.test:443",
        ];
        let mut cases = 0;
        type Vars<'a> = &'a [(&'a str, Option<&'a str>)];
        let sources: [(Vars, Option<Secret>); 3] = [
            (
                &[
                    ("CF_API_KEY", None),
                    ("CF_URL", None),
                    ("CFCONFIG", Some(path)),
                ],
                None,
            ),
            (
                &[
                    ("CF_API_KEY", Some("from-env")),
                    ("CF_URL", Some("https://cf.example.test")),
                ],
                None,
            ),
            (
                &[
                    ("CF_API_KEY", None),
                    ("CF_URL", Some("https://cf.example.test")),
                ],
                Some(Secret::new("from-flag")),
            ),
        ];
        for (vars, flag) in &sources {
            with_vars(vars, || {
                for host in foreign {
                    cases += 1;
                    let err = resolve(flag.as_ref(), None, None, Some(named(host))).unwrap_err();
                    let text = err.to_string();
                    assert!(matches!(err, PlatformError::HostMismatch { .. }), "{text}");
                    assert!(err.is_bad_input());
                    assert!(text.contains("https://cf.example.test"), "{text}");
                    assert!(text.contains("CodefreshHost in the values"), "{text}");
                    assert!(!text.contains("pw@") && !text.contains("from-"), "{text}");
                    // `--url` on the command line is the user's word.
                    cases += 1;
                    let auth = resolve(flag.as_ref(), None, Some(host), Some(named(host))).unwrap();
                    assert_eq!(auth.url, host);
                }
                for host in own {
                    cases += 1;
                    let auth = resolve(flag.as_ref(), None, None, Some(named(host))).unwrap();
                    assert_eq!(auth.url, host);
                }
            });
        }
        // Without CF_URL, `--token` is for the public platform.
        with_vars(&[("CF_URL", None)], || {
            cases += 1;
            let flag = Secret::new("from-flag");
            let err = resolve(Some(&flag), None, None, Some(named("https://onprem.test")));
            assert!(err
                .unwrap_err()
                .to_string()
                .contains(DEFAULT_CODEFRESH_HOST));
        });
        // A token in the values goes with the values' host.
        cases += 1;
        let values = Secret::new("from-values");
        let auth = resolve(
            None,
            Some(&values),
            None,
            Some(named("https://onprem.test")),
        )
        .unwrap();
        assert_eq!(auth.url, "https://onprem.test");
        assert_eq!(cases, 3 * (6 * 2 + 3) + 2);
    }
}
