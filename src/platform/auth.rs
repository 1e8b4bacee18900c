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

/// Picks the token. `flag_token`/`values_token` are `--token` and `Token`
/// (the caller knows which); `url` is `--url`/`CodefreshHost` when given
/// explicitly, else the context's URL, else the public platform.
pub fn resolve(
    flag_token: Option<&Secret>,
    values_token: Option<&Secret>,
    explicit_url: Option<&str>,
) -> Result<Auth, PlatformError> {
    let url_or = |fallback: Option<String>| {
        explicit_url
            .map(str::to_string)
            .or(fallback)
            .unwrap_or_else(|| DEFAULT_CODEFRESH_HOST.to_string())
    };
    if let Some(t) = flag_token {
        return Ok(Auth {
            token: t.clone(),
            source: TokenSource::Flag,
            url: url_or(None),
        });
    }
    if let Some(t) = values_token {
        return Ok(Auth {
            token: t.clone(),
            source: TokenSource::Values,
            url: url_or(None),
        });
    }
    if let Some(t) = crate::env::var("CF_API_KEY").filter(|t| !t.trim().is_empty()) {
        return Ok(Auth {
            token: Secret::new(t.trim()),
            source: TokenSource::Env,
            url: url_or(crate::env::var("CF_URL").filter(|u| !u.is_empty())),
        });
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
    Ok(Auth {
        token: Secret::new(token),
        source: TokenSource::CfConfig {
            path: shown,
            context: current.to_string(),
        },
        url: url_or(context_url),
    })
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
            let auth = resolve(Some(&flag), None, None).unwrap();
            assert_eq!(
                (auth.token.expose(), auth.source),
                ("from-flag", TokenSource::Flag)
            );
            let auth = resolve(None, None, None).unwrap();
            assert_eq!(auth.token.expose(), "from-env");
            assert_eq!(
                (auth.source, auth.url.as_str()),
                (TokenSource::Env, "https://env.example.test")
            );
        });
        let from_cfconfig = [("CF_API_KEY", None), ("CFCONFIG", Some(path))];
        with_vars(&from_cfconfig, || {
            let auth = resolve(None, None, None).unwrap();
            assert_eq!(auth.token.expose(), "from-cfconfig");
            assert_eq!(auth.url, "https://cf.example.test");
        });
        let nothing = [
            ("CF_API_KEY", None),
            ("CFCONFIG", None),
            ("HOME", home.to_str()),
        ];
        with_vars(&nothing, || {
            let err = resolve(None, None, None).unwrap_err();
            assert!(err.to_string().contains(".cfconfig"), "{err}");
        });
    }
}
