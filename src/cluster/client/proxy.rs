//! The way to the API server through a proxy, as kubectl goes: a kubeconfig's
//! `proxy-url` or `HTTPS_PROXY` naming an HTTP proxy (a `CONNECT` tunnel) or
//! a SOCKS5 one (what `ssh -D` gives). The tunnel is a plain TCP stream, so
//! the TLS and HTTP/2 of [`super::build`] run inside it unchanged: requests
//! sent side by side share one tunnel, as they share one connection direct.
//!
//! A proxy cf-runner cannot use (an `https://` one, SOCKS4, a typo) is
//! refused by [`Proxy::parse`] before any request, with the setting named.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use base64::Engine;
use http::Uri;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tower::BoxError;

/// The largest answer to `CONNECT` read before the tunnel starts; a proxy's
/// status line and headers are far smaller.
const MAX_CONNECT_ANSWER: usize = 16 * 1024;

/// How the proxy is asked for a tunnel.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// `http://`: an HTTP `CONNECT host:port`.
    HttpConnect,
    /// `socks5://` or `socks5h://`: the server's name is sent to the proxy,
    /// which resolves it (as kubectl does for both).
    Socks5,
}

/// A proxy named in the kubeconfig or the environment, checked.
#[derive(Clone, Debug)]
pub struct Proxy {
    kind: Kind,
    host: String,
    port: u16,
    credentials: Option<(String, String)>,
}

/// Why a proxy setting cannot be used; the message names it.
#[derive(Debug, thiserror::Error)]
#[error("proxy {shown}: {why}")]
pub struct Unusable {
    /// The proxy as given, without a password.
    pub shown: String,
    /// What is wrong with it, and what would do.
    pub why: String,
}

impl Proxy {
    /// Checks a proxy address. A bare `host:port` is an HTTP proxy, as for
    /// kubectl and curl.
    pub fn parse(uri: &Uri) -> Result<Proxy, Unusable> {
        let shown = crate::text::masked(&uri.to_string());
        let unusable = |why: &str| Unusable {
            shown: shown.clone(),
            why: why.to_string(),
        };
        let kind = match uri.scheme_str().map(str::to_ascii_lowercase).as_deref() {
            None | Some("http") => Kind::HttpConnect,
            Some("socks5") | Some("socks5h") => Kind::Socks5,
            Some("https") => {
                return Err(unusable(
                    "a proxy reached over TLS (https://) is not supported; \
                     use its http:// or socks5:// address",
                ))
            }
            Some(_) => {
                return Err(unusable(
                    "only http:// (CONNECT) and socks5:// proxies are supported",
                ))
            }
        };
        let authority = uri.authority().ok_or_else(|| unusable("names no host"))?;
        let credentials = authority.as_str().rsplit_once('@').map(|(info, _)| {
            let (user, password) = info.split_once(':').unwrap_or((info, ""));
            (percent_decoded(user), percent_decoded(password))
        });
        let host = authority
            .host()
            .trim_start_matches('[')
            .trim_end_matches(']');
        if host.is_empty() {
            return Err(unusable("names no host"));
        }
        let port = authority.port_u16().unwrap_or(match kind {
            Kind::HttpConnect => 80,
            Kind::Socks5 => 1080,
        });
        Ok(Proxy {
            kind,
            host: host.to_string(),
            port,
            credentials,
        })
    }

    /// Opens a tunnel to `host:port` through the proxy.
    async fn tunnel(&self, host: &str, port: u16) -> Result<TcpStream, BoxError> {
        let mut stream = TcpStream::connect((self.host.as_str(), self.port))
            .await
            .map_err(|e| {
                format!(
                    "could not connect to the proxy {}:{}: {e}",
                    self.host, self.port
                )
            })?;
        // As for a direct connection: no delayed-ACK stall between segments.
        stream.set_nodelay(true)?;
        match self.kind {
            Kind::HttpConnect => self.http_connect(&mut stream, host, port).await?,
            Kind::Socks5 => self.socks5(&mut stream, host, port).await?,
        }
        Ok(stream)
    }

    async fn http_connect(&self, s: &mut TcpStream, host: &str, port: u16) -> Result<(), BoxError> {
        let target = if host.contains(':') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        };
        let mut ask = format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n");
        if let Some((user, password)) = &self.credentials {
            let basic =
                base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
            ask.push_str(&format!("Proxy-Authorization: Basic {basic}\r\n"));
        }
        ask.push_str("\r\n");
        s.write_all(ask.as_bytes()).await?;
        // Read byte by byte up to the blank line: what follows is the
        // server's TLS, which must stay in the stream.
        let mut answer = Vec::with_capacity(256);
        while !answer.ends_with(b"\r\n\r\n") {
            if answer.len() >= MAX_CONNECT_ANSWER {
                return Err("the proxy's answer to CONNECT has no end".into());
            }
            let byte = s.read_u8().await.map_err(|e| {
                format!("the proxy closed the connection before answering CONNECT {target}: {e}")
            })?;
            answer.push(byte);
        }
        let status_line = String::from_utf8_lossy(&answer);
        let status_line = status_line.lines().next().unwrap_or_default();
        match status_line.split_whitespace().nth(1) {
            Some(code) if code.starts_with('2') => Ok(()),
            _ => Err(format!("the proxy refused CONNECT {target}: {status_line}").into()),
        }
    }

    async fn socks5(&self, s: &mut TcpStream, host: &str, port: u16) -> Result<(), BoxError> {
        // Greeting: offer no authentication, or username/password (RFC 1929).
        let method = if self.credentials.is_some() { 2 } else { 0 };
        s.write_all(&[5, 1, method]).await?;
        let mut chosen = [0u8; 2];
        s.read_exact(&mut chosen).await?;
        if chosen != [5, method] {
            return Err(format!(
                "the SOCKS5 proxy accepts none of the offered methods ({chosen:?})"
            )
            .into());
        }
        if let Some((user, password)) = &self.credentials {
            let (user, password) = (user.as_bytes(), password.as_bytes());
            if user.len() > 255 || password.len() > 255 {
                return Err("the SOCKS5 user name or password is longer than 255 bytes".into());
            }
            let mut auth = vec![1, user.len() as u8];
            auth.extend_from_slice(user);
            auth.push(password.len() as u8);
            auth.extend_from_slice(password);
            s.write_all(&auth).await?;
            let mut status = [0u8; 2];
            s.read_exact(&mut status).await?;
            if status[1] != 0 {
                return Err("the SOCKS5 proxy rejected the user name and password".into());
            }
        }
        let mut ask = vec![5, 1, 0];
        match host.parse::<std::net::IpAddr>() {
            Ok(std::net::IpAddr::V4(ip)) => {
                ask.push(1);
                ask.extend_from_slice(&ip.octets());
            }
            Ok(std::net::IpAddr::V6(ip)) => {
                ask.push(4);
                ask.extend_from_slice(&ip.octets());
            }
            Err(_) => {
                if host.len() > 255 {
                    return Err("the server's host name is too long for SOCKS5".into());
                }
                ask.push(3);
                ask.push(host.len() as u8);
                ask.extend_from_slice(host.as_bytes());
            }
        }
        ask.extend_from_slice(&port.to_be_bytes());
        s.write_all(&ask).await?;
        let mut head = [0u8; 4];
        s.read_exact(&mut head).await?;
        if head[1] != 0 {
            return Err(format!(
                "the SOCKS5 proxy refused the connection to {host}:{port} (reply {})",
                head[1]
            )
            .into());
        }
        // The bound address that follows is of no use here; skip it.
        let rest = match head[3] {
            1 => 4 + 2,
            4 => 16 + 2,
            3 => usize::from(s.read_u8().await?) + 2,
            other => {
                return Err(format!("the SOCKS5 proxy sent an unknown address type {other}").into())
            }
        };
        let mut skipped = vec![0u8; rest];
        s.read_exact(&mut skipped).await?;
        Ok(())
    }
}

fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A connector (a `tower::Service<Uri>`, as hyper's) whose streams are
/// tunnels through [`Proxy`].
#[derive(Clone, Debug)]
pub struct Connector(pub Proxy);

impl tower::Service<Uri> for Connector {
    type Response = TokioIo<TcpStream>;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, dst: Uri) -> Self::Future {
        let proxy = self.0.clone();
        Box::pin(async move {
            let host = dst
                .host()
                .ok_or("the server address has no host")?
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_string();
            let port = dst.port_u16().unwrap_or(match dst.scheme_str() {
                Some("http") => 80,
                _ => 443,
            });
            Ok(TokioIo::new(proxy.tunnel(&host, port).await?))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Proxy, Unusable> {
        Proxy::parse(&text.parse::<Uri>().unwrap())
    }

    #[test]
    fn http_and_socks5_proxies_are_understood() {
        let p = parse("http://user:p%40ss@proxy.corp:3128").unwrap();
        assert_eq!(
            (p.kind, p.host.as_str(), p.port),
            (Kind::HttpConnect, "proxy.corp", 3128)
        );
        assert_eq!(p.credentials, Some(("user".into(), "p@ss".into())));
        let p = parse("socks5://127.0.0.1:1080").unwrap();
        assert_eq!((p.kind, p.port, p.credentials), (Kind::Socks5, 1080, None));
        assert_eq!(parse("socks5h://[::1]").unwrap().host, "::1");
        assert_eq!(parse("proxy.corp:8080").unwrap().kind, Kind::HttpConnect);
    }

    #[test]
    fn proxies_that_cannot_be_used_are_named() {
        let e = parse("https://user:secret@proxy.corp:443").unwrap_err();
        assert!(e.to_string().contains("https://"), "{e}");
        assert!(!e.to_string().contains("secret"), "{e}");
        let e = parse("socks4://proxy.corp:1080").unwrap_err();
        assert!(e.to_string().contains("socks4://proxy.corp:1080"), "{e}");
    }
}
