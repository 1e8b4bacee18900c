//! The Codefresh platform: the only module that imports reqwest. A typed
//! client for the calls `init`, `info`, `delete` and `test-pipeline` make
//! (PRODUCT.md §5), with its own errors that say which token was used but
//! never show it.
//!
//! Idempotent requests (GET, PUT, DELETE) are retried with backoff on 5xx
//! answers and connection errors; POSTs are not, since the platform may have
//! acted on one before the connection dropped.

pub mod auth;
pub mod certs;

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

pub use auth::{Auth, TokenSource};

use crate::values::Secret;

/// Scopes a token needs for a runner install, as the platform names them.
pub const NEEDED_SCOPES: &str = "Runner-Installation, Agent and Agents (read and write)";

/// Why a platform call failed.
#[derive(Debug, thiserror::Error)]
pub enum PlatformError {
    #[error("no Codefresh API token: none given with --token, none in CF_API_KEY, and no current context in {cfconfig}")]
    NoToken { cfconfig: String },
    #[error("could not read {path}: {message}")]
    CfConfig { path: String, message: String },
    #[error("the Codefresh platform rejected the token from {source_name} (401 on {call})")]
    Unauthorized { call: String, source_name: String },
    #[error("the token from {source_name} may not do {call} (403): {message}")]
    Forbidden {
        call: String,
        source_name: String,
        message: String,
    },
    #[error("{call} answered {status}: {message}")]
    Status {
        call: String,
        status: u16,
        message: String,
    },
    #[error("{call} did not answer")]
    Transport {
        call: String,
        #[source]
        source: reqwest::Error,
    },
    #[error("{call} answered something cf-runner cannot read: {message}")]
    Decode { call: String, message: String },
    #[error("could not prepare the dind certificates: {0}")]
    Certs(String),
}

impl PlatformError {
    /// What the user can do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            PlatformError::NoToken { .. } => Some(
                "create an API key in Codefresh (User Settings → API keys) and pass it with --token or CF_API_KEY".into(),
            ),
            PlatformError::Unauthorized { .. } => Some(
                "the key is wrong, revoked or for another platform (--url): create a new one in User Settings → API keys".into(),
            ),
            PlatformError::Forbidden { .. } => Some(format!(
                "give the API key the scopes {NEEDED_SCOPES}"
            )),
            PlatformError::Transport { .. } => Some(
                "check the platform URL (--url) and your network or proxy (HTTPS_PROXY); use --insecure only for a self-signed on-prem platform".into(),
            ),
            _ => None,
        }
    }
}

/// The user the token belongs to.
#[derive(Debug, Clone, Deserialize)]
pub struct User {
    #[serde(rename = "userName", default)]
    pub user_name: String,
    #[serde(rename = "activeAccountName", default)]
    pub active_account_name: String,
    #[serde(default)]
    pub account: Vec<Account>,
}

/// One account of a user.
#[derive(Debug, Clone, Deserialize)]
pub struct Account {
    #[serde(rename = "_id", default)]
    pub id: String,
    #[serde(default)]
    pub name: String,
}

impl User {
    /// The id of the active account.
    pub fn account_id(&self) -> Option<String> {
        self.account
            .iter()
            .find(|a| a.name == self.active_account_name)
            .or(self.account.first())
            .map(|a| a.id.clone())
    }
}

/// An agent (runner) record.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Agent {
    #[serde(alias = "_id")]
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub runtimes: Vec<String>,
    /// Only in the answer to a create.
    #[serde(default, skip_serializing)]
    pub token: Option<String>,
    #[serde(default)]
    pub status: Option<Value>,
}

/// What registering a runtime environment needs.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RegisterRuntime {
    pub cluster_name: String,
    pub namespace: String,
    pub storage_class_name: String,
    pub service_account: String,
    pub runtime_environment_name: String,
    pub agent: bool,
    pub docker_daemon_scheduler: Value,
    pub node_selector: Value,
}

/// The typed client.
pub struct Platform {
    http: reqwest::Client,
    base: String,
    token: Secret,
    source: TokenSource,
    retry_base: Duration,
}

fn request_timeout() -> Duration {
    std::env::var("CF_RUNNER_REQUEST_TIMEOUT")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .map(Duration::from_secs)
        .unwrap_or(Duration::from_secs(30))
}

/// Encodes one path segment (runtime names hold `/`).
pub fn segment(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

impl Platform {
    /// A client for `auth.url`; `insecure` skips TLS verification.
    pub fn new(auth: &Auth, insecure: bool) -> Result<Self, PlatformError> {
        let http = reqwest::Client::builder()
            .user_agent(concat!("cf-runner/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(10))
            .timeout(request_timeout())
            .danger_accept_invalid_certs(insecure)
            .build()
            .map_err(|source| PlatformError::Transport {
                call: "building the HTTP client".into(),
                source,
            })?;
        Ok(Platform {
            http,
            base: auth.url.trim_end_matches('/').to_string(),
            token: auth.token.clone(),
            source: auth.source.clone(),
            retry_base: Duration::from_millis(
                std::env::var("CF_RUNNER_RETRY_BASE_MS")
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(500),
            ),
        })
    }

    /// The platform's base URL.
    pub fn url(&self) -> &str {
        &self.base
    }

    async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(StatusCode, Vec<u8>), PlatformError> {
        let call = format!("{method} {}", path.split('?').next().unwrap_or(path));
        let idempotent = method != Method::POST;
        let attempts = if idempotent { 4 } else { 1 };
        let mut last_err = None;
        for attempt in 0..attempts {
            if attempt > 0 {
                tokio::time::sleep(self.retry_base * 2u32.pow(attempt - 1)).await;
            }
            let mut request = self
                .http
                .request(method.clone(), format!("{}{path}", self.base))
                .header("Authorization", self.token.expose())
                .header("Accept", "application/json");
            if let Some(b) = body {
                request = request.json(b);
            }
            match request.send().await {
                Ok(response) => {
                    let status = response.status();
                    let bytes = match response.bytes().await {
                        Ok(b) => b.to_vec(),
                        Err(source) => {
                            last_err = Some(PlatformError::Transport {
                                call: call.clone(),
                                source,
                            });
                            continue;
                        }
                    };
                    if status.is_server_error() && attempt + 1 < attempts {
                        last_err = Some(self.status_error(&call, status, &bytes));
                        continue;
                    }
                    if status.is_success() {
                        return Ok((status, bytes));
                    }
                    return Err(self.status_error(&call, status, &bytes));
                }
                Err(source) => {
                    last_err = Some(PlatformError::Transport {
                        call: call.clone(),
                        source,
                    });
                }
            }
        }
        Err(last_err.expect("at least one attempt ran"))
    }

    fn status_error(&self, call: &str, status: StatusCode, body: &[u8]) -> PlatformError {
        let message = message_of(body, self.token.expose());
        match status.as_u16() {
            401 => PlatformError::Unauthorized {
                call: call.into(),
                source_name: self.source.to_string(),
            },
            403 => PlatformError::Forbidden {
                call: call.into(),
                source_name: self.source.to_string(),
                message,
            },
            code => PlatformError::Status {
                call: call.into(),
                status: code,
                message,
            },
        }
    }

    async fn json<T: serde::de::DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<T, PlatformError> {
        let call = format!("{method} {}", path.split('?').next().unwrap_or(path));
        let (_, bytes) = self.send(method, path, body).await?;
        serde_json::from_slice(&bytes).map_err(|e| PlatformError::Decode {
            call,
            message: e.to_string(),
        })
    }

    /// `GET /api/user`: validates the token and names the account.
    pub async fn user(&self) -> Result<User, PlatformError> {
        self.json(Method::GET, "/api/user", None).await
    }

    /// `GET /api/agents?name=`: agents with that name.
    pub async fn agents_named(&self, name: &str) -> Result<Vec<Agent>, PlatformError> {
        self.json(
            Method::GET,
            &format!("/api/agents?name={}", segment(name)),
            None,
        )
        .await
    }

    /// `POST /api/agents`: creates an agent; the answer holds its token (once).
    pub async fn create_agent(&self, name: &str) -> Result<Agent, PlatformError> {
        self.json(Method::POST, "/api/agents", Some(&json!({ "name": name })))
            .await
    }

    /// `PUT /api/agent/{id}`: sets the agent's runtimes.
    pub async fn update_agent(
        &self,
        agent: &Agent,
        runtimes: &[String],
    ) -> Result<(), PlatformError> {
        let body = json!({"name": agent.name, "runtimes": runtimes});
        self.send(
            Method::PUT,
            &format!("/api/agent/{}", segment(&agent.id)),
            Some(&body),
        )
        .await
        .map(|_| ())
    }

    /// `DELETE /api/agent/{id}`.
    pub async fn delete_agent(&self, id: &str) -> Result<(), PlatformError> {
        self.send(Method::DELETE, &format!("/api/agent/{}", segment(id)), None)
            .await
            .map(|_| ())
    }

    /// `POST /api/custom_clusters/signServerCerts`: the platform signs the dind
    /// server CSR; the answer is a zip with `cf-ca.pem` and `cf-server-cert.pem`.
    pub async fn sign_server_certs(
        &self,
        csr_pem: &str,
        sans: &str,
    ) -> Result<(String, String), PlatformError> {
        let body = json!({"reqSubjectAltName": sans, "csr": csr_pem});
        let (_, bytes) = self
            .send(
                Method::POST,
                "/api/custom_clusters/signServerCerts",
                Some(&body),
            )
            .await?;
        certs::unzip_signed(&bytes).map_err(|message| PlatformError::Decode {
            call: "POST /api/custom_clusters/signServerCerts".into(),
            message,
        })
    }

    /// `POST /api/custom_clusters/register`: registers the runtime environment.
    pub async fn register_runtime(
        &self,
        request: &RegisterRuntime,
    ) -> Result<Value, PlatformError> {
        let body = serde_json::to_value(request).expect("serializable");
        self.json(Method::POST, "/api/custom_clusters/register", Some(&body))
            .await
    }

    /// `GET /api/runtime-environments/{name}`, `None` when there is none.
    pub async fn runtime(&self, name: &str) -> Result<Option<Value>, PlatformError> {
        match self
            .json(
                Method::GET,
                &format!("/api/runtime-environments/{}", segment(name)),
                None,
            )
            .await
        {
            Ok(v) => Ok(Some(v)),
            Err(PlatformError::Status { status: 404, .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// `GET /api/runtime-environments`: every runtime environment of the account.
    pub async fn runtimes(&self) -> Result<Vec<Value>, PlatformError> {
        self.json(Method::GET, "/api/runtime-environments", None)
            .await
    }

    /// `PUT /api/runtime-environments/{name}`: replaces the runtime's spec.
    pub async fn put_runtime(&self, name: &str, spec: &Value) -> Result<(), PlatformError> {
        self.send(
            Method::PUT,
            &format!("/api/runtime-environments/{}", segment(name)),
            Some(spec),
        )
        .await
        .map(|_| ())
    }

    /// `PUT /api/runtime-environments/default/{name}`.
    pub async fn set_default_runtime(&self, name: &str) -> Result<(), PlatformError> {
        self.send(
            Method::PUT,
            &format!("/api/runtime-environments/default/{}", segment(name)),
            None,
        )
        .await
        .map(|_| ())
    }

    /// `DELETE /api/runtime-environments/{name}?force=true`.
    pub async fn delete_runtime(&self, name: &str) -> Result<(), PlatformError> {
        match self
            .send(
                Method::DELETE,
                &format!("/api/runtime-environments/{}?force=true", segment(name)),
                None,
            )
            .await
        {
            Ok(_) | Err(PlatformError::Status { status: 404, .. }) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// `GET /api/clusters`: the account's cluster integrations.
    pub async fn clusters(&self) -> Result<Vec<Value>, PlatformError> {
        self.json(Method::GET, "/api/clusters", None).await
    }

    /// `POST /api/clusters/local/cluster`: a behind-the-firewall cluster integration.
    pub async fn create_cluster_integration(
        &self,
        selector: &str,
        host: &str,
        token_b64: &str,
        ca_b64: &str,
    ) -> Result<Value, PlatformError> {
        let body = json!({
            "type": "sat",
            "providerAgent": "custom",
            "selector": selector,
            "host": host,
            "serviceAccountToken": token_b64,
            "clientCa": ca_b64,
            "behindFirewall": true,
        });
        self.json(Method::POST, "/api/clusters/local/cluster", Some(&body))
            .await
    }

    /// `DELETE /api/clusters/{provider}/cluster/{id}`.
    pub async fn delete_cluster_integration(
        &self,
        provider: &str,
        id: &str,
    ) -> Result<(), PlatformError> {
        self.send(
            Method::DELETE,
            &format!(
                "/api/clusters/{}/cluster/{}",
                segment(provider),
                segment(id)
            ),
            None,
        )
        .await
        .map(|_| ())
    }

    /// Creates (or updates) the demo pipeline on `runtime` and returns its name.
    pub async fn ensure_demo_pipeline(&self, runtime: &str) -> Result<String, PlatformError> {
        let project = "Runner";
        let name = format!("{project}/CF_Runner_Demo");
        match self
            .send(
                Method::GET,
                &format!("/api/projects/name/{}", segment(project)),
                None,
            )
            .await
        {
            Ok(_) => {}
            Err(PlatformError::Status { status: 404, .. }) => {
                self.send(
                    Method::POST,
                    "/api/projects",
                    Some(&json!({"projectName": project})),
                )
                .await?;
            }
            Err(e) => return Err(e),
        }
        let spec = json!({
            "metadata": {"name": name, "project": project},
            "spec": {
                "runtimeEnvironment": {"name": runtime},
                "stages": ["test"],
                "steps": {
                    "test": {
                        "stage": "test",
                        "title": "test",
                        "image": "quay.io/codefresh/alpine:3.11",
                        "commands": ["echo hello Codefresh Runner!"],
                    }
                }
            }
        });
        match self
            .send(
                Method::GET,
                &format!("/api/pipelines/{}", segment(&name)),
                None,
            )
            .await
        {
            Ok(_) => {
                self.send(
                    Method::PUT,
                    &format!("/api/pipelines/{}", segment(&name)),
                    Some(&spec),
                )
                .await?;
            }
            Err(PlatformError::Status { status: 404, .. }) => {
                self.send(Method::POST, "/api/pipelines", Some(&spec))
                    .await?;
            }
            Err(e) => return Err(e),
        }
        Ok(name)
    }

    /// `POST /api/pipelines/run/{name}` on `runtime`; returns the build id.
    pub async fn run_pipeline(&self, name: &str, runtime: &str) -> Result<String, PlatformError> {
        let body = json!({"options": {}, "userMachineConfig": {"runtimeName": runtime}});
        let build: Value = self
            .json(
                Method::POST,
                &format!("/api/pipelines/run/{}", segment(name)),
                Some(&body),
            )
            .await?;
        Ok(match build {
            Value::String(id) => id,
            other => other
                .get("id")
                .or(other.get("_id"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        })
    }
}

/// The `message` of an error body, cut short, with the token scrubbed in case
/// the platform echoed it.
fn message_of(body: &[u8], token: &str) -> String {
    let text = match serde_json::from_slice::<Value>(body) {
        Ok(v) => v
            .get("message")
            .or(v.get("error"))
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| v.to_string()),
        Err(_) => String::from_utf8_lossy(body).into_owned(),
    };
    let mut text = if token.len() >= 4 {
        text.replace(token, "<redacted>")
    } else {
        text
    };
    if text.chars().count() > 200 {
        text = format!("{}…", text.chars().take(200).collect::<String>());
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_segments_are_encoded() {
        assert_eq!(segment("ctx/ns"), "ctx%2Fns");
        assert_eq!(segment("a b@c"), "a%20b%40c");
        assert_eq!(segment("Runner/CF_Runner_Demo"), "Runner%2FCF_Runner_Demo");
    }

    #[test]
    fn an_echoed_token_is_scrubbed() {
        let body = br#"{"message":"bad key abcdef123456"}"#;
        assert_eq!(message_of(body, "abcdef123456"), "bad key <redacted>");
    }

    #[test]
    fn the_active_account_is_picked() {
        let user: User = serde_json::from_str(
            r#"{"userName":"u","activeAccountName":"b","account":[{"_id":"1","name":"a"},{"_id":"2","name":"b"}]}"#,
        )
        .unwrap();
        assert_eq!(user.account_id().as_deref(), Some("2"));
    }
}
