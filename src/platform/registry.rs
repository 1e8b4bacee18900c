//! Container registries: does an image exist there? Asked the way every
//! container runtime asks, through the OCI distribution API (`HEAD
//! /v2/<name>/manifests/<reference>`), with the token dance registries use
//! (a 401 naming a Bearer realm, or Basic) and credentials from the docker
//! config file. `cf-runner images --check` uses it to list what a mirror
//! lacks before anyone installs.
//!
//! It lives under `platform` only because this is the one module allowed to
//! import reqwest (STYLE.md); it shares nothing with the Codefresh client.
//! Credentials are [`Secret`]s: they go into Authorization headers, never
//! into a message.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use base64::Engine;
use reqwest::header::{HeaderMap, ACCEPT, AUTHORIZATION, WWW_AUTHENTICATE};
use reqwest::StatusCode;
use serde_json::Value;

use crate::values::Secret;

/// Docker Hub's names as written in image references and in docker config.
const DOCKER_HUB: &str = "docker.io";
/// Where Docker Hub serves the distribution API.
const DOCKER_HUB_API: &str = "registry-1.docker.io";
/// The key `docker login` writes for Docker Hub.
const DOCKER_HUB_CONFIG_KEY: &str = "https://index.docker.io/v1/";

/// The manifest media types a runtime accepts: an index (multi-arch) or a
/// single manifest, OCI or Docker.
const MANIFEST_TYPES: &str = "application/vnd.oci.image.index.v1+json, \
    application/vnd.docker.distribution.manifest.list.v2+json, \
    application/vnd.oci.image.manifest.v1+json, \
    application/vnd.docker.distribution.manifest.v2+json";

/// An image reference split into where to ask and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageRef {
    /// Registry host (and port) as written, `docker.io` when none is.
    pub host: String,
    /// Repository path on that registry (`library/` added for Docker Hub).
    pub repository: String,
    /// The digest when the reference pins one, else the tag.
    pub reference: String,
}

impl ImageRef {
    /// Splits `host/path/name:tag@sha256:…` (host, tag and digest optional).
    pub fn parse(image: &str) -> ImageRef {
        let (name_tag, digest) = match image.split_once('@') {
            Some((n, d)) => (n, Some(d)),
            None => (image, None),
        };
        let (name, tag) = match name_tag.rsplit_once(':') {
            Some((n, t)) if !t.contains('/') => (n, Some(t)),
            _ => (name_tag, None),
        };
        let (host, mut repository) = match name.split_once('/') {
            Some((first, rest))
                if first.contains('.') || first.contains(':') || first == "localhost" =>
            {
                (first.to_string(), rest.to_string())
            }
            _ => (DOCKER_HUB.to_string(), name.to_string()),
        };
        let host = if host == "index.docker.io" {
            DOCKER_HUB.to_string()
        } else {
            host
        };
        if host == DOCKER_HUB && !repository.contains('/') {
            repository = format!("library/{repository}");
        }
        let reference = digest
            .or(tag)
            .map(str::to_string)
            .unwrap_or_else(|| "latest".into());
        ImageRef {
            host,
            repository,
            reference,
        }
    }

    /// The base URL of the registry's API. Loopback registries are asked
    /// over plain HTTP, as docker does; every other one over HTTPS.
    fn api_base(&self) -> String {
        if self.host == DOCKER_HUB {
            return format!("https://{DOCKER_HUB_API}");
        }
        let bare = self
            .host
            .rsplit_once(':')
            .map_or(self.host.as_str(), |(h, _)| h);
        let loopback = bare == "localhost"
            || bare.starts_with("127.")
            || bare == "[::1]"
            || bare
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback());
        let scheme = if loopback { "http" } else { "https" };
        format!("{scheme}://{}", self.host)
    }
}

/// What a registry said about one image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Presence {
    /// The manifest is there.
    Present,
    /// The registry answered 404: the repository or the tag/digest is not there.
    Missing,
    /// The registry wants credentials it did not get, or refused them.
    Denied(String),
    /// No answer, or one that means nothing here.
    Failed(String),
}

/// User and password for one registry, from the docker config file.
#[derive(Clone)]
pub struct Credentials {
    user: String,
    password: Secret,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Credentials({}, <redacted>)", self.user)
    }
}

/// The largest docker `config.json` read (one with dozens of registries is a
/// few kilobytes).
pub const MAX_DOCKER_CONFIG_BYTES: u64 = 4 * 1024 * 1024;

/// The credentials of a docker config file, by registry host.
#[derive(Debug, Clone, Default)]
pub struct DockerConfig {
    by_host: BTreeMap<String, Credentials>,
    /// Set when the file names a credential helper cf-runner does not run.
    pub helper: Option<String>,
}

impl DockerConfig {
    /// The file docker reads: `$DOCKER_CONFIG/config.json`, else
    /// `~/.docker/config.json`.
    pub fn default_path() -> Option<PathBuf> {
        if let Some(dir) = crate::env::var_os("DOCKER_CONFIG") {
            return Some(PathBuf::from(dir).join("config.json"));
        }
        crate::env::home().map(|h| h.join(".docker").join("config.json"))
    }

    /// Reads `path`; a missing file is no credentials. The error names the
    /// file and why, never its content.
    pub fn load(path: &Path) -> Result<DockerConfig, String> {
        let text =
            match crate::input_file::read_regular_text_if_exists(path, MAX_DOCKER_CONFIG_BYTES) {
                Ok(Some(t)) => t,
                Ok(None) => return Ok(DockerConfig::default()),
                Err(why) => return Err(format!("{} {why}", path.display())),
            };
        let json: Value = serde_json::from_str(&text)
            .map_err(|e| format!("{} is not JSON (line {})", path.display(), e.line()))?;
        Ok(DockerConfig::from_json(&json))
    }

    /// Reads the `auths` map (`auth` as base64 `user:password`, or
    /// `username`/`password`).
    pub fn from_json(json: &Value) -> DockerConfig {
        let mut config = DockerConfig {
            helper: json
                .get("credsStore")
                .and_then(Value::as_str)
                .map(str::to_string),
            ..DockerConfig::default()
        };
        let Some(auths) = json.get("auths").and_then(Value::as_object) else {
            return config;
        };
        for (key, entry) in auths {
            let pair = match entry.get("auth").and_then(Value::as_str) {
                Some(encoded) => base64::engine::general_purpose::STANDARD
                    .decode(encoded.trim())
                    .ok()
                    .and_then(|raw| String::from_utf8(raw).ok())
                    .and_then(|s| {
                        s.split_once(':')
                            .map(|(u, p)| (u.to_string(), p.to_string()))
                    }),
                None => match (
                    entry.get("username").and_then(Value::as_str),
                    entry.get("password").and_then(Value::as_str),
                ) {
                    (Some(u), Some(p)) => Some((u.to_string(), p.to_string())),
                    _ => None,
                },
            };
            let Some((user, password)) = pair else {
                continue;
            };
            config.by_host.insert(
                config_host(key),
                Credentials {
                    user,
                    password: Secret::new(password),
                },
            );
        }
        config
    }

    /// The credentials for a registry host, if the file has them.
    pub fn for_host(&self, host: &str) -> Option<&Credentials> {
        self.by_host.get(host)
    }

    /// Whether the file holds any credentials at all.
    pub fn is_empty(&self) -> bool {
        self.by_host.is_empty()
    }
}

/// The registry host a docker config key stands for (`https://host/v1/` →
/// `host`; Docker Hub's key → `docker.io`).
fn config_host(key: &str) -> String {
    if key == DOCKER_HUB_CONFIG_KEY || key == "index.docker.io" {
        return DOCKER_HUB.into();
    }
    let bare = key
        .trim_start_matches("https://")
        .trim_start_matches("http://");
    bare.split('/').next().unwrap_or(bare).to_string()
}

/// Asks registries about images, sharing one HTTP client.
pub struct Registry {
    http: reqwest::Client,
    config: DockerConfig,
}

impl Registry {
    /// A client with the credentials of `config`.
    pub fn new(config: DockerConfig) -> Result<Registry, String> {
        let http = reqwest::Client::builder()
            .user_agent(concat!("cf-runner/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(30))
            .build()
            .map_err(|e| format!("building the HTTP client failed: {e}"))?;
        Ok(Registry { http, config })
    }

    /// Whether `image` exists on its registry.
    pub async fn presence(&self, image: &str) -> Presence {
        let target = ImageRef::parse(image);
        let url = format!(
            "{}/v2/{}/manifests/{}",
            target.api_base(),
            target.repository,
            target.reference
        );
        let creds = self.config.for_host(&target.host);
        let first = match self.head(&url, None).await {
            Ok(r) => r,
            Err(e) => return e,
        };
        let (status, headers) = first;
        if status != StatusCode::UNAUTHORIZED {
            return judge(status, creds.is_some());
        }
        let challenge = headers
            .get(WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let authorization = if let Some(params) = strip_scheme(&challenge, "Bearer") {
            match self.bearer_token(params, &target, creds).await {
                Ok(token) => format!("Bearer {}", token.expose()),
                Err(p) => return p,
            }
        } else if strip_scheme(&challenge, "Basic").is_some() {
            match creds {
                Some(c) => basic(c),
                None => return no_credentials(&target.host),
            }
        } else {
            return Presence::Denied(format!(
                "the registry answered 401 without a usable challenge ({challenge:?})"
            ));
        };
        match self.head(&url, Some(&authorization)).await {
            Ok((status, _)) => judge(status, creds.is_some()),
            Err(e) => e,
        }
    }

    async fn head(
        &self,
        url: &str,
        authorization: Option<&str>,
    ) -> Result<(StatusCode, HeaderMap), Presence> {
        let mut request = self.http.head(url).header(ACCEPT, MANIFEST_TYPES);
        if let Some(a) = authorization {
            request = request.header(AUTHORIZATION, a);
        }
        match request.send().await {
            Ok(r) => Ok((r.status(), r.headers().clone())),
            Err(e) => Err(Presence::Failed(format!(
                "no answer from {}: {}",
                url.split("/v2/").next().unwrap_or(url),
                crate::text::root_cause(&e)
            ))),
        }
    }

    /// Gets a pull token from the realm the registry named.
    async fn bearer_token(
        &self,
        params: &str,
        target: &ImageRef,
        creds: Option<&Credentials>,
    ) -> Result<Secret, Presence> {
        let fields = challenge_fields(params);
        let Some(realm) = fields.get("realm") else {
            return Err(Presence::Denied(
                "the registry's Bearer challenge names no realm".into(),
            ));
        };
        let scope = fields
            .get("scope")
            .cloned()
            .unwrap_or_else(|| format!("repository:{}:pull", target.repository));
        let mut query: Vec<(&str, &str)> = vec![("scope", &scope)];
        if let Some(service) = fields.get("service") {
            query.push(("service", service));
        }
        let Ok(token_url) = url::Url::parse_with_params(realm, &query) else {
            return Err(Presence::Denied(format!(
                "the registry's token realm {realm:?} is not a URL"
            )));
        };
        if creds.is_some() && !sends_credentials_safely(&token_url, target) {
            return Err(Presence::Denied(format!(
                "the registry {} names a token service over plain http:// on another host ({}): \
                 cf-runner does not send the docker config's credentials there",
                target.host,
                crate::text::masked(realm)
            )));
        }
        let mut request = self.http.get(token_url.as_str());
        if let Some(c) = creds {
            request = request.header(AUTHORIZATION, basic(c));
        }
        let response = request.send().await.map_err(|e| {
            Presence::Failed(format!(
                "no answer from the token service {realm}: {}",
                crate::text::root_cause(&e)
            ))
        })?;
        let status = response.status();
        if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN {
            return Err(match creds {
                Some(_) => Presence::Denied(format!(
                    "the token service refused the credentials for {} ({status})",
                    target.host
                )),
                None => no_credentials(&target.host),
            });
        }
        if !status.is_success() {
            return Err(Presence::Failed(format!(
                "the token service {realm} answered {status}"
            )));
        }
        let body: Value = response.json().await.map_err(|_| {
            Presence::Failed(format!("the token service {realm} did not answer JSON"))
        })?;
        body.get("token")
            .or_else(|| body.get("access_token"))
            .and_then(Value::as_str)
            .map(Secret::new)
            .ok_or_else(|| Presence::Failed(format!("the token service {realm} gave no token")))
    }
}

/// True when a registry's credentials may go to `realm`: over https, or
/// over plain http only to the registry's own host (a loopback registry
/// that itself speaks http). A realm is whatever the registry's 401 says,
/// so a registry must not be able to send them in clear elsewhere.
fn sends_credentials_safely(realm: &url::Url, target: &ImageRef) -> bool {
    if realm.scheme() == "https" {
        return true;
    }
    let registry = url::Url::parse(&target.api_base()).ok();
    registry.is_some_and(|r| {
        r.scheme() == "http"
            && r.host_str().map(str::to_ascii_lowercase)
                == realm.host_str().map(str::to_ascii_lowercase)
    })
}

fn basic(c: &Credentials) -> String {
    let raw = format!("{}:{}", c.user, c.password.expose());
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(raw)
    )
}

fn no_credentials(host: &str) -> Presence {
    Presence::Denied(format!(
        "{host} wants credentials and the docker config has none for it (docker login {host})"
    ))
}

fn judge(status: StatusCode, had_credentials: bool) -> Presence {
    match status {
        s if s.is_success() => Presence::Present,
        StatusCode::NOT_FOUND => Presence::Missing,
        StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => Presence::Denied(if had_credentials {
            format!(
                "the registry refused the credentials ({status}); or the repository does not exist"
            )
        } else {
            format!("the registry wants credentials ({status}); or the repository does not exist")
        }),
        other => Presence::Failed(format!("the registry answered {other}")),
    }
}

/// `Bearer realm="…",service="…"` → the part after the scheme.
fn strip_scheme<'a>(challenge: &'a str, scheme: &str) -> Option<&'a str> {
    let trimmed = challenge.trim_start();
    let head = trimmed.get(..scheme.len())?;
    head.eq_ignore_ascii_case(scheme)
        .then(|| trimmed[scheme.len()..].trim_start())
}

/// `realm="x",service="y"` → {realm: x, service: y}.
fn challenge_fields(params: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut rest = params;
    while let Some((name, after)) = rest.split_once('=') {
        let name = name
            .trim()
            .trim_start_matches(',')
            .trim()
            .to_ascii_lowercase();
        let after = after.trim_start();
        let (value, next) = if let Some(quoted) = after.strip_prefix('"') {
            match quoted.split_once('"') {
                Some((v, n)) => (v.to_string(), n),
                None => (quoted.to_string(), ""),
            }
        } else {
            match after.split_once(',') {
                Some((v, n)) => (v.trim().to_string(), n),
                None => (after.trim().to_string(), ""),
            }
        };
        out.insert(name, value);
        rest = next;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn references_split_into_host_repository_and_reference() {
        let r = ImageRef::parse("quay.io/codefresh/venona:2.0.10@sha256:abc");
        assert_eq!(
            (r.host.as_str(), r.repository.as_str(), r.reference.as_str()),
            ("quay.io", "codefresh/venona", "sha256:abc")
        );
        let r = ImageRef::parse("localhost:5000/mirror/codefresh/dind:3.0.25");
        assert_eq!(
            (r.host.as_str(), r.repository.as_str(), r.reference.as_str()),
            ("localhost:5000", "mirror/codefresh/dind", "3.0.25")
        );
        assert_eq!(r.api_base(), "http://localhost:5000");
        let r = ImageRef::parse("tonistiigi/binfmt:qemu-v9.2.2");
        assert_eq!(r.host, "docker.io");
        assert_eq!(r.api_base(), format!("https://{DOCKER_HUB_API}"));
        assert_eq!(ImageRef::parse("alpine").repository, "library/alpine");
        assert_eq!(ImageRef::parse("alpine").reference, "latest");
        assert_eq!(
            ImageRef::parse("registry.example.com/x").api_base(),
            "https://registry.example.com"
        );
    }

    #[test]
    fn docker_config_credentials_by_host_and_never_in_debug() {
        let encoded = base64::engine::general_purpose::STANDARD.encode("robot:s3cr3t-pass");
        let config = DockerConfig::from_json(&json!({
            "auths": {
                "https://index.docker.io/v1/": {"auth": encoded},
                "mirror.example.com:5000": {"username": "u", "password": "p"},
            },
            "credsStore": "desktop",
        }));
        assert_eq!(config.for_host("docker.io").unwrap().user, "robot");
        assert!(config.for_host("mirror.example.com:5000").is_some());
        assert_eq!(config.helper.as_deref(), Some("desktop"));
        assert!(!format!("{config:?}").contains("s3cr3t-pass"));
    }

    #[test]
    fn bearer_challenges_are_read() {
        let f = challenge_fields(
            r#"realm="https://auth.example.com/token",service="registry.example.com",scope="repository:a/b:pull""#,
        );
        assert_eq!(f["realm"], "https://auth.example.com/token");
        assert_eq!(f["service"], "registry.example.com");
        assert_eq!(f["scope"], "repository:a/b:pull");
        assert_eq!(strip_scheme("bearer realm=x", "Bearer"), Some("realm=x"));
    }

    /// The token realm is whatever a registry's 401 names: the docker
    /// config's credentials go there over https, or over plain http only to
    /// the loopback registry's own host. Returns how many cases ran.
    #[test]
    fn registry_credentials_never_go_over_plain_http_to_another_host() {
        let cases = [
            ("localhost:5000/x", "http://localhost:5000/token", true),
            ("127.0.0.1:5000/x", "http://127.0.0.1:5000/token", true),
            ("127.0.0.1:5000/x", "http://127.0.0.1:6000/token", true),
            ("127.0.0.1:5000/x", "https://auth.example.com/token", true),
            (
                "registry.example.com/x",
                "https://auth.example.com/token",
                true,
            ),
            ("alpine", "https://auth.docker.io/token", true),
            ("127.0.0.1:5000/x", "http://127.0.0.2:5000/token", false),
            ("127.0.0.1:5000/x", "http://evil.example.com/token", false),
            ("localhost:5000/x", "http://127.0.0.1:5000/token", false),
            (
                "registry.example.com/x",
                "http://registry.example.com/token",
                false,
            ),
            (
                "registry.example.com/x",
                "http://evil.example.com/token",
                false,
            ),
            ("alpine", "http://auth.docker.io/token", false),
            (
                "registry.example.com/x",
                "ftp://registry.example.com/token",
                false,
            ),
        ];
        for (image, realm, safe) in cases {
            let realm = url::Url::parse(realm).unwrap();
            assert_eq!(
                sends_credentials_safely(&realm, &ImageRef::parse(image)),
                safe,
                "{image} → {realm}"
            );
        }
        assert_eq!(cases.len(), 13);
    }
}
