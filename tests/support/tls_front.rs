//! A TLS-inspecting proxy as the tests play it: a throwaway CA, and a TLS
//! front on loopback presenting a certificate that CA signed, which passes
//! each request on to a plain-HTTP backend (the fake platform), as an
//! inspecting proxy re-signs and forwards. Without the CA a client must
//! refuse the front; with it, the call goes through.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair, SanType};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// A throwaway CA and a server certificate for 127.0.0.1 it signed.
pub struct Pki {
    /// The CA's certificate, PEM: what a user gives as `--ca-bundle`.
    pub ca_pem: String,
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
}

pub fn pki() -> Pki {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(rcgen::DnType::CommonName, "inspecting proxy test CA");
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca, ca_key);
    let leaf_key = KeyPair::generate().unwrap();
    let mut leaf = CertificateParams::new(Vec::<String>::new()).unwrap();
    leaf.subject_alt_names = vec![SanType::IpAddress(IpAddr::V4(Ipv4Addr::LOCALHOST))];
    let leaf_cert = leaf.signed_by(&leaf_key, &issuer).unwrap();
    Pki {
        ca_pem: ca_cert.pem(),
        chain: vec![leaf_cert.der().clone()],
        key: PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der())),
    }
}

/// Reads one HTTP/1.1 request (head and `Content-Length` body).
fn read_request(tls: &mut impl Read) -> Option<Vec<u8>> {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        if tls.read(&mut byte).ok()? == 0 {
            return None;
        }
        buf.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&buf).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map_or(0, |n| n.trim().parse().unwrap_or(0));
    let mut body = vec![0u8; length];
    tls.read_exact(&mut body).ok()?;
    // One request per connection: the front closes after each answer.
    let end = buf.len() - 2;
    buf.splice(end..end, b"Connection: close\r\n".iter().copied());
    buf.extend(body);
    Some(buf)
}

/// Serves TLS on a free port and forwards every request to `backend`.
pub fn tls_front(pki: &Pki, backend: SocketAddr) -> SocketAddr {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(pki.chain.clone(), pki.key.clone_key())
        .unwrap();
    let config = Arc::new(config);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let config = config.clone();
            std::thread::spawn(move || {
                let conn = rustls::ServerConnection::new(config).unwrap();
                let mut tls = rustls::StreamOwned::new(conn, stream);
                let Some(request) = read_request(&mut tls) else {
                    return; // the client refused our certificate
                };
                let mut upstream = TcpStream::connect(backend).unwrap();
                upstream.write_all(&request).unwrap();
                let mut answer = Vec::new();
                let _ = upstream.read_to_end(&mut answer);
                let _ = tls.write_all(&answer);
                tls.conn.send_close_notify();
                let _ = tls.flush();
            });
        }
    });
    addr
}
