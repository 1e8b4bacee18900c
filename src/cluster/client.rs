//! The HTTP client under the kube-rs `Client`: the same stack kube-rs
//! builds (TLS from the kubeconfig, connect/write timeouts, retries of 5xx,
//! the kubeconfig's auth and impersonation headers, the server's base URI),
//! except that TLS offers HTTP/2 as well as HTTP/1.1 (ALPN `h2`,
//! `http/1.1`).
//!
//! Why: kube-rs offers HTTP/1.1 only, so every request sent while the others
//! are in flight opens a TCP connection and a TLS handshake of its own. An
//! install sends 10–30 requests side by side at each step; over HTTP/2 they
//! share one connection. kube-apiserver speaks HTTP/2; a server or a
//! TLS-terminating load balancer that does not answers `http/1.1` and gets
//! exactly what it got before.
//!
//! Through a proxy (`proxy-url`, `HTTPS_PROXY`: HTTP `CONNECT` or SOCKS5,
//! see `proxy.rs`) the stack is the same inside the tunnel: kube-rs's own
//! would fall back to HTTP/1.1, one connection per request in flight, 10×
//! slower through a proxy.

mod proxy;

use hyper_timeout::TimeoutConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use kube::client::{Body, ConfigExt};
use kube::Client;
use tower::{BoxError, ServiceBuilder};

pub use proxy::Unusable as UnusableProxy;

/// Checks the proxy `config` names (`proxy-url`, else `HTTPS_PROXY`), so
/// that one cf-runner cannot use is said before any request.
pub fn check_proxy(config: &kube::Config) -> Result<(), UnusableProxy> {
    match &config.proxy_url {
        Some(url) => proxy::Proxy::parse(url).map(|_| ()),
        None => Ok(()),
    }
}

/// Builds the client for `config`, direct or through its proxy. Building
/// runs the kubeconfig's exec plugin, as kube-rs does.
pub fn build(config: kube::Config) -> Result<Client, kube::Error> {
    match &config.proxy_url {
        Some(url) => {
            let proxy = proxy::Proxy::parse(url).map_err(|e| kube::Error::Service(Box::new(e)))?;
            build_over(config, proxy::Connector(proxy))
        }
        None => {
            let mut http = HttpConnector::new();
            http.enforce_http(false);
            // Without it, a request whose TLS records go out as two segments
            // waits for the server's delayed ACK (40 ms on Linux) before its
            // second one: such stalls showed in the audit log between
            // requests sent together.
            http.set_nodelay(true);
            build_over(config, http)
        }
    }
}

/// The stack above a connector that gives TCP streams (direct, or tunnels).
fn build_over<C>(config: kube::Config, tcp: C) -> Result<Client, kube::Error>
where
    C: tower::Service<http::Uri> + Clone + Send + Sync + 'static,
    C::Response: hyper_util::client::legacy::connect::Connection
        + hyper::rt::Read
        + hyper::rt::Write
        + Send
        + Unpin
        + 'static,
    C::Future: Send + Unpin + 'static,
    C::Error: Into<BoxError>,
{
    let tls = config.rustls_client_config()?;
    let builder = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls)
        .https_or_http();
    let builder = match &config.tls_server_name {
        Some(name) => {
            let name = rustls::pki_types::ServerName::try_from(name.clone()).map_err(|e| {
                kube::Error::RustlsTls(kube::client::RustlsTlsError::InvalidServerName(e))
            })?;
            builder.with_server_name_resolver(hyper_rustls::FixedServerNameResolver::new(name))
        }
        None => builder,
    };
    let https = builder.enable_all_versions().wrap_connector(tcp);
    let mut connector = TimeoutConnector::new(https);
    connector.set_connect_timeout(config.connect_timeout);
    connector.set_read_timeout(config.read_timeout);
    connector.set_write_timeout(config.write_timeout);
    connector.set_reset_reader_on_write(config.reset_reader_on_write);
    let hyper: hyper_util::client::legacy::Client<_, Body> =
        hyper_util::client::legacy::Client::builder(TokioExecutor::new()).build(connector);
    let service = ServiceBuilder::new()
        .layer(config.base_uri_layer())
        .option_layer(config.default_retry.then(|| {
            tower::retry::RetryLayer::new(kube::client::retry::RetryPolicy::server_retry())
        }))
        .option_layer(config.auth_layer()?)
        .layer(config.extra_headers_layer()?)
        .map_err(BoxError::from)
        .service(hyper);
    Ok(Client::new(service, config.default_namespace.clone()))
}
