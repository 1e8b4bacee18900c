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
mod error;
pub mod registry;
mod runtimes;

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

pub use auth::{Auth, TokenSource};
pub use error::PlatformError;

use crate::values::Secret;

/// Scopes a token needs for a plain runner install, as the platform names
/// them; [`Need::scopes`] gives the full list for a run's options.
pub const NEEDED_SCOPES: &str = "Agent, Agents and Runner-Installation (read and write)";

/// The longest agent or runtime environment name cf-runner makes up, so a
/// clash suffix never pushes a name past the platform's limit.
pub const MAX_NAME_LEN: usize = 63;

/// A kind of platform resource a run will touch: each has the API-key scope
/// that grants it and a read-only call that shows whether the key has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// `/api/agents`, `/api/agent/{id}`.
    Agents,
    /// `/api/runtime-environments`, `/api/custom_clusters`.
    RuntimeEnvironments,
    /// `/api/clusters` (the cluster integration).
    Clusters,
    /// `/api/projects` (the demo pipeline's project).
    Projects,
    /// `/api/pipelines` (the demo pipeline and its build).
    Pipelines,
}

impl Need {
    /// The API-key scopes, as Codefresh's key dialog names them.
    pub fn scopes(self) -> &'static [&'static str] {
        match self {
            Need::Agents => &["Agent", "Agents"],
            Need::RuntimeEnvironments => &["Runner-Installation"],
            Need::Clusters => &["Cluster"],
            Need::Projects => &["Project"],
            Need::Pipelines => &["Pipeline"],
        }
    }

    /// A call that reads and never changes anything; a 403 on it means the
    /// key lacks the scope.
    fn probe(self) -> &'static str {
        match self {
            Need::Agents => "/api/agents",
            Need::RuntimeEnvironments => "/api/runtime-environments",
            Need::Clusters => "/api/clusters",
            Need::Projects => "/api/projects/name/Runner",
            Need::Pipelines => "/api/pipelines/Runner%2FCF_Runner_Demo",
        }
    }

    /// Every scope of `needs`, in words ("Agent, Agents and Cluster").
    pub fn describe(needs: &[Need]) -> String {
        let mut all: Vec<&str> = needs
            .iter()
            .flat_map(|n| n.scopes().iter().copied())
            .collect();
        all.dedup();
        match all.split_last() {
            None => String::new(),
            Some((last, [])) => last.to_string(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        }
    }
}

/// How to reach the platform: TLS verification and plain HTTP.
#[derive(Debug, Clone, Default)]
pub struct Transport {
    /// `--insecure`: skip TLS verification (the only way to).
    pub insecure: bool,
    /// `--allow-http`: send the API key over plain `http://` to a host
    /// other than this machine.
    pub allow_http: bool,
    /// `CaBundle`: PEM certificates trusted besides the public roots (a
    /// TLS-inspecting proxy between this machine and the platform).
    pub extra_roots: Option<std::sync::Arc<str>>,
}

impl Transport {
    /// How a run with these values reaches the platform: `Insecure` and
    /// `CaBundle` from the values, `allow_http` from the command line.
    pub fn of(values: &crate::values::Values, allow_http: bool) -> Self {
        Transport {
            insecure: values.insecure,
            allow_http,
            extra_roots: values.ca_bundle.as_ref().map(|b| b.pem.as_str().into()),
        }
    }

    /// The same without the values' `CaBundle`: for a run whose bundle only
    /// an installation's record holds (see `upgrade` and `diff`).
    pub fn without_extra_roots(self) -> Self {
        Transport {
            extra_roots: None,
            ..self
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

/// An agent (runner) record. Decoded as the old CLI reads it: `id`, else
/// `_id` (a record may carry both); unknown fields are ignored.
#[derive(Debug, Clone, Serialize)]
pub struct Agent {
    pub id: String,
    pub name: String,
    pub runtimes: Vec<String>,
    /// Only in the answer to a create.
    #[serde(skip_serializing)]
    pub token: Option<String>,
    pub status: Option<Value>,
}

/// The wire form: `id` and `_id` as separate fields, so that both may be present.
#[derive(Deserialize)]
struct AgentWire {
    #[serde(default)]
    id: Option<Value>,
    #[serde(rename = "_id", default)]
    underscore_id: Option<Value>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    runtimes: Option<Vec<String>>,
    #[serde(default)]
    token: Option<String>,
    #[serde(default)]
    status: Option<Value>,
}

impl<'de> Deserialize<'de> for Agent {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let wire = AgentWire::deserialize(d)?;
        let text = |v: Option<Value>| match v {
            Some(Value::String(s)) if !s.is_empty() => Some(s),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        let id = text(wire.id)
            .or_else(|| text(wire.underscore_id))
            .ok_or_else(|| serde::de::Error::custom("an agent record without id or _id"))?;
        Ok(Agent {
            id,
            name: wire.name.unwrap_or_default(),
            runtimes: wire.runtimes.unwrap_or_default(),
            token: wire.token,
            status: wire.status,
        })
    }
}

/// Who an API key belongs to (`GET /api/auth/key/{keyId}`).
#[derive(Debug, Clone, Deserialize)]
pub struct KeySubject {
    /// "agent" for an agent's token, "user" for a user's API key.
    #[serde(rename = "type", default)]
    pub kind: String,
    /// The id of the agent (or user).
    #[serde(rename = "ref", default)]
    pub reference: String,
}

/// How the token was validated, and what it showed.
#[derive(Debug, Clone)]
pub struct Whoami {
    /// The user, when `/api/user` answered.
    pub user: Option<User>,
    /// The account's name, when known.
    pub account_name: Option<String>,
    /// The account's id, when known.
    pub account_id: Option<String>,
    /// The call that accepted the token.
    pub via: &'static str,
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

/// What the platform said to a token sent on an agent's own call
/// ([`Platform::probe_agent_token`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenProbe {
    /// A 2xx: the token still works.
    Accepted,
    /// 401 or 403: the token is refused.
    Refused(u16),
    /// Any other answer, or none: why it could not be told.
    Unclear(String),
}

/// The typed client.
pub struct Platform {
    http: reqwest::Client,
    base: String,
    token: Secret,
    source: TokenSource,
    retry_base: Duration,
    deadline: Duration,
}

/// The deadline of one platform call, its retries and their pauses
/// included: a platform that accepts connections and never answers ends the
/// call (and the run) after this, never after four such waits in a row.
pub const CALL_DEADLINE: Duration = Duration::from_secs(30);

/// How long a call may go unanswered before the run says what it waits
/// for (a spinner on a terminal, a note line otherwise).
const QUIET: Duration = Duration::from_secs(2);

/// [`CALL_DEADLINE`], or `CF_RUNNER_REQUEST_TIMEOUT` seconds (for tests).
fn call_deadline() -> Duration {
    crate::env::var("CF_RUNNER_REQUEST_TIMEOUT")
        .and_then(|s| s.parse::<u64>().ok())
        .map(Duration::from_secs)
        .unwrap_or(CALL_DEADLINE)
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
    /// A client for `auth.url`. Refuses a URL that would leak the key: plain
    /// `http://` to another machine (unless `allow_http`), or one holding
    /// `user:password@` (which would send a second Authorization header).
    /// `transport.insecure` skips TLS verification.
    pub fn new(auth: &Auth, transport: Transport) -> Result<Self, PlatformError> {
        check_url(&auth.url, transport.allow_http)?;
        let insecure = transport.insecure;
        let mut builder = reqwest::Client::builder()
            .user_agent(concat!("cf-runner/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(10))
            .timeout(call_deadline())
            .danger_accept_invalid_certs(insecure);
        if let Some(pem) = &transport.extra_roots {
            // Added to the public roots, never instead of them: the
            // values checked the PEM, so a failure here is a bug.
            let certs =
                reqwest::Certificate::from_pem_bundle(pem.as_bytes()).map_err(|source| {
                    PlatformError::Transport {
                        call: "reading the certificates of CaBundle".into(),
                        source,
                    }
                })?;
            builder = builder.tls_certs_merge(certs);
        }
        let http = builder.build().map_err(|source| PlatformError::Transport {
            call: "building the HTTP client".into(),
            source,
        })?;
        Ok(Platform {
            http,
            base: auth.url.trim_end_matches('/').to_string(),
            token: auth.token.clone(),
            source: auth.source.clone(),
            retry_base: Duration::from_millis(
                crate::env::var("CF_RUNNER_RETRY_BASE_MS")
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(500),
            ),
            deadline: call_deadline(),
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
        self.send_accepting(method, path, body, true).await
    }

    /// `accept_json` false leaves out `Accept: application/json`, for the
    /// call that answers with a zip.
    async fn send_accepting(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        accept_json: bool,
    ) -> Result<(StatusCode, Vec<u8>), PlatformError> {
        let call = format!("{method} {}", path.split('?').next().unwrap_or(path));
        // Said once the call has gone unanswered for a while; the guard it
        // holds clears a spinner when the call ends.
        let notice = {
            let line = format!(
                "waiting for the Codefresh platform at {} to answer {call} (up to {}s)",
                self.base,
                self.deadline.as_secs()
            );
            tokio::spawn(async move {
                tokio::time::sleep(QUIET).await;
                let _shown = crate::output::waiting(&line);
                std::future::pending::<()>().await;
            })
        };
        let answer = tokio::time::timeout(
            self.deadline,
            self.attempts(&method, path, body, accept_json, &call),
        )
        .await;
        notice.abort();
        match answer {
            Ok(result) => result,
            Err(_) => Err(PlatformError::Deadline {
                call,
                url: self.base.clone(),
                seconds: self.deadline.as_secs(),
            }),
        }
    }

    /// The call's attempts: idempotent ones are retried with backoff on 5xx
    /// answers and connection errors. The caller bounds them all with one
    /// deadline.
    async fn attempts(
        &self,
        method: &Method,
        path: &str,
        body: Option<&Value>,
        accept_json: bool,
        call: &str,
    ) -> Result<(StatusCode, Vec<u8>), PlatformError> {
        let call = call.to_string();
        let idempotent = *method != Method::POST;
        let attempts = if idempotent { 4 } else { 1 };
        let mut last_err = None;
        for attempt in 0..attempts {
            if attempt > 0 {
                tokio::time::sleep(self.retry_base * 2u32.pow(attempt - 1)).await;
            }
            let mut request = self
                .http
                .request(method.clone(), format!("{}{path}", self.base))
                .header("Authorization", self.token.expose());
            if accept_json {
                request = request.header("Accept", "application/json");
            }
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

    /// Validates the token as the old CLI does: `GET /api/user`, and when
    /// that refuses the key (a scoped key may not read the user), `GET
    /// /api/execution-contexts/current`. A 401 there is final.
    pub async fn whoami(&self) -> Result<Whoami, PlatformError> {
        let refused = match self.user().await {
            Ok(user) => {
                return Ok(Whoami {
                    account_id: user.account_id(),
                    account_name: Some(user.active_account_name.clone()),
                    user: Some(user),
                    via: "GET /api/user",
                })
            }
            Err(e @ PlatformError::Unauthorized { .. }) => return Err(e),
            Err(e) => e,
        };
        if !matches!(
            refused,
            PlatformError::Forbidden { .. }
                | PlatformError::Status { .. }
                | PlatformError::Decode { .. }
        ) {
            return Err(refused);
        }
        let (_, bytes) = match self
            .send(Method::GET, "/api/execution-contexts/current", None)
            .await
        {
            Ok(answer) => answer,
            Err(e @ PlatformError::Unauthorized { .. }) => return Err(e),
            Err(_) => return Err(refused),
        };
        let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        let text = |key: &str| body.get(key).and_then(Value::as_str).map(str::to_string);
        Ok(Whoami {
            user: None,
            account_id: text("accountId").or_else(|| text("account")),
            account_name: text("accountName"),
            via: "GET /api/execution-contexts/current",
        })
    }

    /// The scopes among `needs` the key lacks: each gets one read-only call,
    /// and a 403 means the scope is missing. Other errors (401, network)
    /// end the check. Write rights cannot be seen without writing.
    pub async fn missing_scopes(
        &self,
        needs: &[Need],
    ) -> Result<Vec<(Need, String)>, PlatformError> {
        let mut missing = Vec::new();
        for need in needs {
            let path = need.probe();
            match self.send(Method::GET, path, None).await {
                Ok(_) | Err(PlatformError::Status { .. }) => {}
                Err(PlatformError::Forbidden { call, .. }) => missing.push((*need, call)),
                Err(e) => return Err(e),
            }
        }
        Ok(missing)
    }

    /// [`Platform::missing_scopes`] as an error naming every missing scope
    /// and the full list the run needs.
    pub async fn require_scopes(&self, needs: &[Need]) -> Result<(), PlatformError> {
        let missing = self.missing_scopes(needs).await?;
        if missing.is_empty() {
            return Ok(());
        }
        let lacking: Vec<Need> = missing.iter().map(|(n, _)| *n).collect();
        Err(PlatformError::MissingScopes {
            source_name: self.source.to_string(),
            missing: Need::describe(&lacking),
            calls: missing
                .iter()
                .map(|(_, c)| c.clone())
                .collect::<Vec<_>>()
                .join(", "),
            needed: Need::describe(needs),
        })
    }

    /// `GET /api/agents`: every agent of the account (as the old CLI's
    /// install and delete wizards list them).
    pub async fn agents(&self) -> Result<Vec<Agent>, PlatformError> {
        self.json(Method::GET, "/api/agents", None).await
    }

    /// `GET /api/agents?name=`, filtered here for exactly `name`: the
    /// server's filter may match loosely, or not at all.
    pub async fn agents_named(&self, name: &str) -> Result<Vec<Agent>, PlatformError> {
        let list: Vec<Agent> = self
            .json(
                Method::GET,
                &format!("/api/agents?name={}", segment(name)),
                None,
            )
            .await?;
        Ok(list.into_iter().filter(|a| a.name == name).collect())
    }

    /// `GET /api/auth/key/{keyId}` for a token `<keyId>.<secret>`: whom it
    /// belongs to. `None` when the platform does not know the key.
    pub async fn key_subject(&self, token: &Secret) -> Result<Option<KeySubject>, PlatformError> {
        let key_id = token.expose().split('.').next().unwrap_or_default();
        if key_id.is_empty() {
            return Ok(None);
        }
        let path = format!("/api/auth/key/{}", segment(key_id));
        // The key id is part of the token: errors name the call without it.
        let body: Value = match self.json(Method::GET, &path, None).await {
            Ok(v) => v,
            Err(PlatformError::Status { status: 404, .. }) => return Ok(None),
            Err(e) => return Err(e.for_call("GET /api/auth/key/{keyId}")),
        };
        Ok(body
            .get("subject")
            .and_then(|s| serde_json::from_value(s.clone()).ok()))
    }

    /// `GET /api/agent/{id}`, `None` when there is none.
    pub async fn agent(&self, id: &str) -> Result<Option<Agent>, PlatformError> {
        match self
            .json(Method::GET, &format!("/api/agent/{}", segment(id)), None)
            .await
        {
            Ok(a) => Ok(Some(a)),
            Err(PlatformError::Status { status: 404, .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Whether the platform still accepts `token` for the agent named
    /// `agent`: the agent's own `GET /api/agent/{agent}/tasks`, as venona
    /// polls, sent with that token instead of this client's key. Only for an
    /// agent that was deleted: a live agent's poll would take its tasks.
    /// The token is never shown, nor the answer's body.
    pub async fn probe_agent_token(&self, agent: &str, token: &Secret) -> TokenProbe {
        let as_agent = Platform {
            http: self.http.clone(),
            base: self.base.clone(),
            token: token.clone(),
            source: self.source.clone(),
            retry_base: self.retry_base,
            deadline: self.deadline,
        };
        let path = format!("/api/agent/{}/tasks", segment(agent));
        match as_agent.send(Method::GET, &path, None).await {
            Ok(_) => TokenProbe::Accepted,
            Err(PlatformError::Unauthorized { .. }) => TokenProbe::Refused(401),
            Err(PlatformError::Forbidden { .. }) => TokenProbe::Refused(403),
            Err(PlatformError::Status { status, .. }) => {
                TokenProbe::Unclear(format!("the platform answered HTTP {status}"))
            }
            Err(e) => TokenProbe::Unclear(crate::text::masked(&e.to_string())),
        }
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
            .send_accepting(
                Method::POST,
                "/api/custom_clusters/signServerCerts",
                Some(&body),
                false,
            )
            .await?;
        certs::unzip_signed(&bytes).map_err(|message| PlatformError::Decode {
            call: "POST /api/custom_clusters/signServerCerts".into(),
            message,
        })
    }
}

/// True when the platform said "not found": a 404, or any error status
/// whose message says so (the old CLI tests the message, not the status).
pub fn is_not_found(err: &PlatformError) -> bool {
    match err {
        PlatformError::Status { status: 404, .. } => true,
        PlatformError::Status { message, .. } => message.to_ascii_lowercase().contains("not found"),
        _ => false,
    }
}

/// The URL with any `user:password@` removed, for messages.
fn shown_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut u) => {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.to_string().trim_end_matches('/').to_string()
        }
        Err(_) => "(unparsable)".into(),
    }
}

/// Refuses URLs that would leak the key; see [`Platform::new`].
pub fn check_url(url: &str, allow_http: bool) -> Result<(), PlatformError> {
    let parsed = reqwest::Url::parse(url).map_err(|e| PlatformError::BadUrl {
        url: shown_url(url),
        message: e.to_string(),
    })?;
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(PlatformError::UrlCredentials {
            url: shown_url(url),
        });
    }
    match parsed.scheme() {
        "https" => Ok(()),
        "http" => {
            let loopback = match parsed.host() {
                Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
                Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
                Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
                None => false,
            };
            if loopback || allow_http {
                Ok(())
            } else {
                Err(PlatformError::PlainHttp {
                    url: shown_url(url),
                })
            }
        }
        other => Err(PlatformError::BadUrl {
            url: shown_url(url),
            message: format!("the scheme is {other}, not https"),
        }),
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
mod tests;
