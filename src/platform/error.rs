//! What a platform call can fail with, and how each failure is told: which
//! flag or token it concerns and what to do, never the token itself.

use super::NEEDED_SCOPES;

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
    #[error("{call} did not answer within {seconds}s (the platform at {url})")]
    Deadline {
        call: String,
        url: String,
        seconds: u64,
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
    #[error("--url {url} is plain http: the API key would cross the network unencrypted")]
    PlainHttp { url: String },
    #[error("--url {url} carries a user name or password: cf-runner sends the API key as the only credential")]
    UrlCredentials { url: String },
    #[error("--url {url} is not a URL cf-runner can use: {message}")]
    BadUrl { url: String, message: String },
    #[error(
        "{origin} names the platform {named}, but the token from {source_name} is for {own}: \
         cf-runner sends a token only to its own platform or to a --url given on the command line"
    )]
    HostMismatch {
        source_name: String,
        own: String,
        named: String,
        origin: String,
    },
    #[error("the token from {source_name} lacks the scope(s) {missing} ({calls} answered 403)")]
    MissingScopes {
        source_name: String,
        missing: String,
        calls: String,
        needed: String,
    },
}

impl PlatformError {
    /// True for a mistake in what the user gave (exit 2) rather than a
    /// failure on the way.
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            PlatformError::PlainHttp { .. }
                | PlatformError::UrlCredentials { .. }
                | PlatformError::BadUrl { .. }
                | PlatformError::HostMismatch { .. }
        )
    }

    /// The same error, naming the call `call` instead.
    pub(super) fn for_call(self, call: &str) -> PlatformError {
        let call = call.to_string();
        match self {
            PlatformError::Unauthorized { source_name, .. } => {
                PlatformError::Unauthorized { call, source_name }
            }
            PlatformError::Forbidden {
                source_name,
                message,
                ..
            } => PlatformError::Forbidden {
                call,
                source_name,
                message,
            },
            PlatformError::Status {
                status, message, ..
            } => PlatformError::Status {
                call,
                status,
                message,
            },
            PlatformError::Transport { source, .. } => PlatformError::Transport {
                call,
                source: source.without_url(),
            },
            PlatformError::Decode { message, .. } => PlatformError::Decode { call, message },
            PlatformError::Deadline { url, seconds, .. } => {
                PlatformError::Deadline { call, url, seconds }
            }
            other => other,
        }
    }

    /// The flag a bad-input error is about.
    pub fn flag(&self) -> &'static str {
        "--url"
    }

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
                "give the API key the scopes {NEEDED_SCOPES} (plus Cluster without --skip-cluster-integration, Project and Pipeline for the demo pipeline)"
            )),
            PlatformError::MissingScopes { needed, .. } => Some(format!(
                "create an API key (User Settings → API keys) with every scope this run needs: {needed}"
            )),
            PlatformError::PlainHttp { .. } => Some(
                "use the https:// URL of the platform, or pass --allow-http if this network is trusted".into(),
            ),
            PlatformError::UrlCredentials { .. } => Some(
                "remove the user:password@ part from --url (or CodefreshHost); the token goes in --token".into(),
            ),
            PlatformError::HostMismatch { named, .. } => Some(format!(
                "if {named} is your platform, say so on the command line: --url {named}, \
                 or make it the current context of ~/.cfconfig (or CF_URL with CF_API_KEY)"
            )),
            PlatformError::Transport { .. } => Some(
                "check the platform URL (--url) and your network or proxy (HTTPS_PROXY); use --insecure only for a self-signed on-prem platform".into(),
            ),
            PlatformError::Deadline { url, .. } => Some(format!(
                "something at {url} accepts connections but does not answer: check that --url is the \
                 platform's address, that this machine reaches it (HTTPS_PROXY/NO_PROXY, VPN, firewall), \
                 and that the platform is up; then re-run, it continues where it stopped"
            )),
            _ => None,
        }
    }
}
