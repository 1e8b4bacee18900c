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

/// The cfconfig path: `$CFCONFIG`, else `~/.cfconfig`.
pub fn cfconfig_path() -> PathBuf {
    if let Some(p) = std::env::var_os("CFCONFIG").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    directories::BaseDirs::new()
        .map(|b| b.home_dir().join(".cfconfig"))
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
    if let Some(t) = std::env::var("CF_API_KEY")
        .ok()
        .filter(|t| !t.trim().is_empty())
    {
        return Ok(Auth {
            token: Secret::new(t.trim()),
            source: TokenSource::Env,
            url: url_or(std::env::var("CF_URL").ok().filter(|u| !u.is_empty())),
        });
    }
    let path = cfconfig_path();
    let shown = path.display().to_string();
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(_) => return Err(PlatformError::NoToken { cfconfig: shown }),
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
