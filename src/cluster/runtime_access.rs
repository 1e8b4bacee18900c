//! Whether the agent's credentials for one runtime still work, checked as
//! the agent would use them: the runtime file's own token, against that
//! file's API server and CA. No kubeconfig is involved, so a runtime in a
//! cluster the user has no context for is checked all the same.
//!
//! The check asks the API server who the token is (a SelfSubjectReview)
//! and whether it may create pods in the runtime's namespace (a
//! SelfSubjectAccessReview): what the agent does for every build. Both
//! are open to any signed-in user and change nothing.

use std::time::Duration;

use k8s_openapi::api::authentication::v1::SelfSubjectReview;
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use kube::api::{Api, PostParams};
use kube::Client;

use crate::values::Secret;

/// How long one check may take: `info` checks every runtime in turn.
const CHECK_TIMEOUT: Duration = Duration::from_secs(15);

/// What the API server said of a runtime's token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// The token may create pods in the namespace.
    Works {
        /// The user the token is (`system:serviceaccount:<ns>:<name>`), when
        /// the API server says it.
        user: Option<String>,
        namespace: String,
    },
    /// The token is valid but may not create pods there.
    Forbidden {
        user: Option<String>,
        namespace: String,
    },
    /// The API server refused the token itself (401): deleted, rotated, or
    /// of another cluster.
    Refused,
    /// The token is valid but the runtime's namespace is unknown (neither
    /// the platform nor the token's user names it).
    NamespaceUnknown { user: Option<String> },
    /// The check could not be made (no answer, TLS, a bad CA).
    NotChecked(String),
}

/// The namespace of a ServiceAccount user name
/// (`system:serviceaccount:<namespace>:<name>`).
pub fn service_account_namespace(user: &str) -> Option<String> {
    let rest = user.strip_prefix("system:serviceaccount:")?;
    let (ns, _) = rest.split_once(':')?;
    (!ns.is_empty()).then(|| ns.to_string())
}

fn client_for(host: &str, ca_pem: &str, token: &Secret) -> Result<Client, String> {
    let url: http::Uri = host
        .parse()
        .map_err(|e| format!("the host {host} is not a URL: {e}"))?;
    let mut config = kube::Config::new(url);
    let ders: Vec<Vec<u8>> = x509_parser::pem::Pem::iter_from_buffer(ca_pem.as_bytes())
        .filter_map(Result::ok)
        .map(|p| p.contents)
        .collect();
    if ders.is_empty() {
        return Err("the runtime file's crt holds no PEM certificate".into());
    }
    config.root_cert = Some(ders);
    config.auth_info.token = Some(token.expose().to_string().into());
    config.connect_timeout = Some(Duration::from_secs(10));
    config.read_timeout = Some(CHECK_TIMEOUT);
    Client::try_from(config).map_err(|e| format!("no client for {host}: {e}"))
}

fn status_code(e: &kube::Error) -> Option<u16> {
    match e {
        kube::Error::Api(s) => Some(s.code),
        _ => None,
    }
}

async fn within<T>(
    call: impl std::future::Future<Output = Result<T, kube::Error>>,
) -> Result<T, Result<kube::Error, ()>> {
    match tokio::time::timeout(CHECK_TIMEOUT, call).await {
        Ok(Ok(t)) => Ok(t),
        Ok(Err(e)) => Err(Ok(e)),
        Err(_) => Err(Err(())),
    }
}

fn not_checked(host: &str, e: Result<kube::Error, ()>) -> Access {
    match e {
        Ok(e) => Access::NotChecked(format!(
            "{host} did not answer the check: {}",
            crate::text::chain_text(&e)
        )),
        Err(()) => Access::NotChecked(format!(
            "{host} did not answer within {}s",
            CHECK_TIMEOUT.as_secs()
        )),
    }
}

/// Checks `token` against `host` (trusting only `ca_pem`): may it create
/// pods in `namespace` (or, when `None`, in the namespace of the
/// ServiceAccount the token is)? The token never leaves this call.
pub async fn check(host: &str, ca_pem: &str, token: &Secret, namespace: Option<&str>) -> Access {
    let client = match client_for(host, ca_pem, token) {
        Ok(c) => c,
        Err(why) => return Access::NotChecked(why),
    };
    // Who the token is. A cluster older than 1.28 has no SelfSubjectReview
    // (404): the access review alone still tells a refused token.
    let reviews: Api<SelfSubjectReview> = Api::all(client.clone());
    let user =
        match within(reviews.create(&PostParams::default(), &SelfSubjectReview::default())).await {
            Ok(r) => r.status.and_then(|s| s.user_info).and_then(|u| u.username),
            Err(Ok(e)) if status_code(&e) == Some(401) => return Access::Refused,
            Err(Ok(e)) if status_code(&e) == Some(404) => None,
            Err(e) => return not_checked(host, e),
        };
    let namespace = namespace
        .map(str::to_string)
        .or_else(|| user.as_deref().and_then(service_account_namespace));
    let Some(namespace) = namespace else {
        return Access::NamespaceUnknown { user };
    };
    let api: Api<SelfSubjectAccessReview> = Api::all(client);
    let review = SelfSubjectAccessReview {
        spec: SelfSubjectAccessReviewSpec {
            resource_attributes: Some(ResourceAttributes {
                verb: Some("create".into()),
                group: Some(String::new()),
                resource: Some("pods".into()),
                namespace: Some(namespace.clone()),
                ..Default::default()
            }),
            ..Default::default()
        },
        ..Default::default()
    };
    match within(api.create(&PostParams::default(), &review)).await {
        Ok(r) if r.status.as_ref().is_some_and(|s| s.allowed) => Access::Works { user, namespace },
        Ok(_) => Access::Forbidden { user, namespace },
        Err(Ok(e)) if status_code(&e) == Some(401) => Access::Refused,
        Err(e) => not_checked(host, e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_service_account_user_names_its_namespace() {
        assert_eq!(
            service_account_namespace("system:serviceaccount:builds:cf-runner-agent").as_deref(),
            Some("builds")
        );
        assert_eq!(service_account_namespace("admin"), None);
        assert_eq!(service_account_namespace("system:serviceaccount::x"), None);
    }

    #[test]
    fn a_crt_without_a_certificate_is_not_checked_and_says_why() {
        let access = futures::executor::block_on(check(
            "https://127.0.0.1:1",
            "not a certificate",
            &Secret::new("t"),
            Some("ns"),
        ));
        assert_eq!(
            access,
            Access::NotChecked("the runtime file's crt holds no PEM certificate".into())
        );
    }
}
