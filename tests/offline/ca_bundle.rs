//! `--ca-bundle`: a user behind a TLS-inspecting proxy gives its CA once,
//! and cf-runner's own calls to the platform trust it, as the installed
//! components and builds do.
//!
//! The proxy is played by a TLS front in this file: it presents a
//! certificate signed by a throwaway CA and passes each request on to the
//! fake platform, as an inspecting proxy re-signs and forwards. Without the
//! bundle cf-runner must refuse the front's certificate; with it, the run
//! goes through and the Helm values carry the bundle to the chart.

use crate::support;

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair, SanType};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use support::cli;
use support::fake_platform::FakePlatform;

const TOKEN: &str = "5f0c0ffee0c0ffee0c0ffee0.0123456789abcdef0123456789abcdef";

/// A throwaway CA and a server certificate for 127.0.0.1 it signed.
struct Pki {
    ca_pem: String,
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
}

fn pki() -> Pki {
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
fn tls_front(pki: &Pki, backend: SocketAddr) -> SocketAddr {
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

fn helm_values_via(dir: &Path, url: &str, bundle: Option<&Path>) -> std::process::Output {
    let kubeconfig = dir.join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        "apiVersion: v1\nkind: Config\ncurrent-context: ci\nclusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:1'}\n\
         contexts:\n- name: ci\n  context: {cluster: c, user: u}\nusers:\n- name: u\n  user: {token: t}\n",
    )
    .unwrap();
    let mut cmd = cli::isolated(&kubeconfig, dir);
    cmd.args(["init", "--yes", "--url", url, "--token", TOKEN]);
    cmd.args([
        "--kube-namespace",
        "codefresh",
        "--generate-helm-values-file",
        "values.yaml",
        "--overwrite",
    ]);
    if let Some(path) = bundle {
        cmd.arg("--ca-bundle").arg(path);
    }
    cmd.output().unwrap()
}

#[test]
fn the_platform_behind_an_inspecting_proxy_is_trusted_with_the_bundle_only() {
    let fake = FakePlatform::start(TOKEN);
    let backend: SocketAddr = fake.url().trim_start_matches("http://").parse().unwrap();
    let pki = pki();
    let front = tls_front(&pki, backend);
    let url = format!("https://{front}");
    let dir = tempfile::tempdir().unwrap();

    let refused = helm_values_via(dir.path(), &url, None);
    let text = cli::text(&refused);
    assert!(!refused.status.success(), "{text}");
    assert!(text.to_lowercase().contains("certificate"), "{text}");
    assert!(
        fake.calls().is_empty(),
        "nothing passed the front: {:?}",
        fake.calls()
    );

    let bundle = dir.path().join("proxy-ca.pem");
    std::fs::write(&bundle, &pki.ca_pem).unwrap();
    let trusted = helm_values_via(dir.path(), &url, Some(&bundle));
    assert!(trusted.status.success(), "{}", cli::text(&trusted));
    assert!(
        fake.calls().iter().any(|c| c == "GET /api/user"),
        "{:?}",
        fake.calls()
    );
    let values: serde_json::Value =
        serde_yaml_ng::from_str(&std::fs::read_to_string(dir.path().join("values.yaml")).unwrap())
            .unwrap();
    let extra = &values["extraResources"][0];
    assert_eq!(extra["kind"], "ConfigMap");
    assert_eq!(
        extra["data"]["ca-bundle.pem"].as_str().unwrap().trim(),
        pki.ca_pem.trim()
    );
}

#[test]
fn a_missing_or_non_pem_bundle_exits_2_naming_the_flag_and_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nowhere.pem");
    let key = dir.path().join("key.pem");
    std::fs::write(&key, KeyPair::generate().unwrap().serialize_pem()).unwrap();
    for (path, why) in [(&missing, "does not exist"), (&key, "private key")] {
        let out = cli::cf_runner(dir.path())
            .args([
                "init",
                "--dry-run",
                "--output-dir",
                "-",
                "--yes",
                "--kube-namespace",
                "codefresh",
            ])
            .arg("--ca-bundle")
            .arg(path)
            .output()
            .unwrap();
        let text = cli::text(&out);
        assert_eq!(out.status.code(), Some(2), "{text}");
        assert!(text.contains("--ca-bundle"), "{text}");
        assert!(
            text.contains(path.file_name().unwrap().to_str().unwrap()),
            "{text}"
        );
        assert!(text.contains(why), "{text}");
        assert!(
            !text.contains("PRIVATE KEY-----\n"),
            "the key is never shown: {text}"
        );
    }
}
