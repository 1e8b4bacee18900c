//! Every way kubectl reaches a cluster, tried with cf-runner against the test
//! control plane: a SOCKS5 proxy (what `ssh -D` gives) and an HTTP CONNECT
//! proxy in the kubeconfig's `proxy-url`, each started here on loopback with
//! a log of its tunnels; a client certificate, key and CA named by paths
//! relative to the kubeconfig; a `tokenFile`; a server on `[::1]`; a
//! `tls-server-name` for an address the certificate does not name; and a
//! proxy cf-runner cannot use, refused before any request, by name.
//! (`HTTPS_PROXY` with and without `NO_PROXY`: `e2e_cluster_access`.)

use crate::support;

use std::path::Path;
use std::process::Output;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use support::cli::{self, shared_home, text};
use support::controlplane::{self, ControlPlane};
use support::namespace::unique;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const AGENT_TOKEN: &str = "agent-token-for-reach-tests-45";
/// What the proxies write down: one line per tunnel opened.
type ProxyLog = Arc<Mutex<Vec<String>>>;

/// One user, one cluster, one context named `reach`. `user` and `cluster`
/// are YAML mapping bodies (indented by the caller).
fn write_kubeconfig(dir: &Path, cluster: &str, user: &str) -> std::path::PathBuf {
    let path = dir.join("config");
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n{cluster}\
         users:\n- name: u\n  user:\n{user}\
         contexts:\n- name: reach\n  context: {{cluster: c, user: u}}\ncurrent-context: reach\n"
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// A kubeconfig of the admin token that goes through `proxy_url`.
fn proxied_kubeconfig(cp: &ControlPlane, dir: &Path, proxy_url: &str) -> std::path::PathBuf {
    write_kubeconfig(
        dir,
        &format!(
            "    server: {}\n    certificate-authority: {}\n    proxy-url: {proxy_url}\n",
            cp.server(),
            cp.ca_file().display()
        ),
        &format!("    token: {}\n", cp.admin_token()),
    )
}

/// `cf-runner init --no-wait` of the `local` example into a new namespace
/// through `kubeconfig`, with no proxy in the environment.
async fn install(kubeconfig: &Path, prefix: &str) -> (Output, String) {
    let ns = unique(prefix);
    let mut cmd = cli::init(kubeconfig, shared_home(), "local", &ns, "reach");
    cmd.args(["--agent-token", AGENT_TOKEN, "--no-wait"]);
    for var in ["HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy"] {
        cmd.env_remove(var);
    }
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    (out, ns)
}

/// Copies bytes both ways once the tunnel is agreed.
async fn pipe(mut client: TcpStream, target: String, log: ProxyLog, line: String) {
    let Ok(mut upstream) = TcpStream::connect(&target).await else {
        return;
    };
    log.lock().unwrap().push(line);
    let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
}

/// The target a SOCKS5 client asks for (no authentication offered back),
/// as `host:port`; `None` when it speaks something else.
async fn socks5_target(client: &mut TcpStream) -> Option<String> {
    let mut greeting = [0u8; 2];
    client.read_exact(&mut greeting).await.ok()?;
    let mut methods = vec![0u8; usize::from(greeting[1])];
    client.read_exact(&mut methods).await.ok()?;
    if greeting[0] != 5 || !methods.contains(&0) {
        return None;
    }
    client.write_all(&[5, 0]).await.ok()?;
    let mut ask = [0u8; 4];
    client.read_exact(&mut ask).await.ok()?;
    let host = match ask[3] {
        1 => {
            let mut ip = [0u8; 4];
            client.read_exact(&mut ip).await.ok()?;
            std::net::Ipv4Addr::from(ip).to_string()
        }
        4 => {
            let mut ip = [0u8; 16];
            client.read_exact(&mut ip).await.ok()?;
            format!("[{}]", std::net::Ipv6Addr::from(ip))
        }
        3 => {
            let mut name = vec![0u8; usize::from(client.read_u8().await.ok()?)];
            client.read_exact(&mut name).await.ok()?;
            String::from_utf8(name).ok()?
        }
        _ => return None,
    };
    let port = client.read_u16().await.ok()?;
    Some(format!("{host}:{port}"))
}

/// A SOCKS5 proxy on loopback, as `ssh -D` gives; logs `SOCKS5 host:port`
/// per tunnel.
async fn start_socks5_proxy() -> (String, ProxyLog) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("socks5://{}", listener.local_addr().unwrap());
    let log = ProxyLog::default();
    let tunnels = log.clone();
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let log = tunnels.clone();
            tokio::spawn(async move {
                let Some(target) = socks5_target(&mut client).await else {
                    return;
                };
                let granted = [5, 0, 0, 1, 127, 0, 0, 1, 0, 0];
                if client.write_all(&granted).await.is_ok() {
                    pipe(client, target.clone(), log, format!("SOCKS5 {target}")).await;
                }
            });
        }
    });
    (url, log)
}

/// The server's `host:port` as a proxy is asked for it.
fn server_authority(cp: &ControlPlane) -> String {
    cp.server().trim_start_matches("https://").to_string()
}

/// The install went through the proxy, and its requests shared few tunnels:
/// HTTP/2 inside one tunnel, not a tunnel per request in flight (kube-rs's
/// HTTP/1.1 client opened one for each of the 10–30 requests of a step).
fn assert_tunnelled(log: &ProxyLog, expected: &str, out: &Output) {
    let lines = log.lock().unwrap().clone();
    assert!(!lines.is_empty(), "the proxy saw no tunnel:\n{}", text(out));
    assert!(
        lines.iter().all(|l| l == expected),
        "tunnels other than {expected:?}: {lines:?}"
    );
    assert!(
        lines.len() <= 3,
        "{} tunnels for one install (HTTP/1.1, one per request?): {lines:?}",
        lines.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn socks5_proxy_url_carries_the_install() {
    let cp = controlplane::shared();
    let (proxy, log) = start_socks5_proxy().await;
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = proxied_kubeconfig(cp, dir.path(), &proxy);
    let (out, _) = install(&kubeconfig, "cfsocks").await;
    assert!(out.status.success(), "{}", text(&out));
    assert_tunnelled(&log, &format!("SOCKS5 {}", server_authority(cp)), &out);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn http_connect_proxy_url_carries_the_install_over_one_tunnel() {
    let cp = controlplane::shared();
    let (proxy, log) = support::connect_proxy::start();
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = proxied_kubeconfig(cp, dir.path(), &proxy);
    let (out, _) = install(&kubeconfig, "cfconnect").await;
    assert!(out.status.success(), "{}", text(&out));
    assert_tunnelled(&log, &format!("CONNECT {}", server_authority(cp)), &out);
}

/// A loopback port that counts the connections it is offered and answers
/// none: where a request would arrive, if one left.
async fn start_counter() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    tokio::spawn(async move {
        while let Ok((_client, _)) = listener.accept().await {
            seen.fetch_add(1, Ordering::SeqCst);
        }
    });
    (address, count)
}

/// `install` with `env` set (only these proxy variables).
async fn install_with(kubeconfig: &Path, env: &[(&str, &str)]) -> Output {
    let ns = unique("cfrefused");
    let mut cmd = cli::init(kubeconfig, shared_home(), "local", &ns, "reach");
    cmd.args(["--agent-token", AGENT_TOKEN, "--no-wait"]);
    for var in ["HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy"] {
        cmd.env_remove(var);
    }
    for (name, value) in env {
        cmd.env(name, value);
    }
    tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_proxy_that_cannot_be_used_is_refused_by_name() {
    let cp = controlplane::shared();
    // Something listens at the proxy and at the server, so a refusal cannot
    // be a connection error, and any request that left would be counted.
    let (listening, log) = support::connect_proxy::start();
    let (server, reached) = start_counter().await;
    let tls = listening.replace("http://", "https://");
    let socks4 = listening.replace("http://", "socks4://");
    let cases: [(&str, Option<&str>, &str, &str); 4] = [
        ("proxy-url", Some(&tls), &tls, "https://) is not supported"),
        (
            "proxy-url",
            Some(&socks4),
            &socks4,
            "only http:// (CONNECT) and socks5://",
        ),
        (
            "proxy-url",
            Some("http://proxy host:3128"),
            "http://proxy host:3128",
            "is not a URL",
        ),
        ("HTTPS_PROXY", None, &tls, "https://) is not supported"),
    ];
    for (setting, proxy_url, value, why) in cases {
        let dir = tempfile::tempdir().unwrap();
        let proxy_line = proxy_url
            .map(|url| format!("    proxy-url: {url}\n"))
            .unwrap_or_default();
        let kubeconfig = write_kubeconfig(
            dir.path(),
            &format!(
                "    server: https://{server}\n    certificate-authority: {}\n{proxy_line}",
                cp.ca_file().display()
            ),
            &format!("    token: {}\n", cp.admin_token()),
        );
        let env: &[(&str, &str)] = match proxy_url {
            None => &[("HTTPS_PROXY", value)],
            Some(_) => &[],
        };
        let out = install_with(&kubeconfig, env).await;
        let shown = text(&out);
        let named = match proxy_url {
            Some(_) => format!("proxy-url of cluster \"c\" in {}", kubeconfig.display()),
            None => setting.to_string(),
        };
        assert_eq!(out.status.code(), Some(2), "{value}: {shown}");
        assert!(
            shown.contains(&named)
                && shown.contains(value)
                && shown.contains(why)
                && shown.contains("fix: name an http:// or socks5:// proxy"),
            "{value}: {shown}"
        );
        assert!(
            log.lock().unwrap().is_empty(),
            "a tunnel was asked: {shown}"
        );
        assert_eq!(reached.load(Ordering::SeqCst), 0, "a request left: {shown}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn certificate_key_and_ca_relative_to_the_kubeconfig_work() {
    let cp = controlplane::shared();
    let dir = tempfile::tempdir().unwrap();
    let pki = dir.path().join("pki");
    std::fs::create_dir(&pki).unwrap();
    let (cert, key) = cp.admin_client_cert();
    std::fs::copy(cert, pki.join("me.crt")).unwrap();
    std::fs::copy(key, pki.join("me.key")).unwrap();
    std::fs::copy(cp.ca_file(), pki.join("ca.crt")).unwrap();
    let kubeconfig = write_kubeconfig(
        dir.path(),
        &format!(
            "    server: {}\n    certificate-authority: pki/ca.crt\n",
            cp.server()
        ),
        "    client-certificate: pki/me.crt\n    client-key: pki/me.key\n",
    );
    // Run from elsewhere: the paths are the kubeconfig's, not the shell's.
    let (out, _) = install(&kubeconfig, "cfrelative").await;
    assert!(out.status.success(), "{}", text(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_token_file_works() {
    let cp = controlplane::shared();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("token"), format!("{}\n", cp.admin_token())).unwrap();
    let kubeconfig = write_kubeconfig(
        dir.path(),
        &format!(
            "    server: {}\n    certificate-authority: {}\n",
            cp.server(),
            cp.ca_file().display()
        ),
        "    tokenFile: token\n",
    );
    let (out, _) = install(&kubeconfig, "cftokenfile").await;
    assert!(out.status.success(), "{}", text(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_server_on_ipv6_loopback_works() {
    let cp = controlplane::shared();
    // The API server listens on 127.0.0.1; [::1] forwards to it, so the
    // client dials, verifies (the certificate names ::1) and asks by IPv6.
    let listener = TcpListener::bind("[::1]:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let log = ProxyLog::default();
    let (target, forwarded) = (server_authority(cp), log.clone());
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let line = "forwarded".to_string();
            tokio::spawn(pipe(client, target.clone(), forwarded.clone(), line));
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = write_kubeconfig(
        dir.path(),
        &format!(
            "    server: https://[::1]:{port}\n    certificate-authority: {}\n",
            cp.ca_file().display()
        ),
        &format!("    token: {}\n", cp.admin_token()),
    );
    let (out, _) = install(&kubeconfig, "cfipv6").await;
    assert!(out.status.success(), "{}", text(&out));
    assert!(!log.lock().unwrap().is_empty(), "nothing came to [::1]");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn tls_server_name_verifies_an_address_the_certificate_does_not_name() {
    let cp = controlplane::shared();
    // 127.0.0.2 forwards to the API server; its certificate names 127.0.0.1
    // and kubernetes.default.svc, not 127.0.0.2 (as a bastion's address).
    let listener = TcpListener::bind("127.0.0.2:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let log = ProxyLog::default();
    let (target, forwarded) = (server_authority(cp), log.clone());
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let line = "forwarded".to_string();
            tokio::spawn(pipe(client, target.clone(), forwarded.clone(), line));
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let cluster = |name: &str| {
        format!(
            "    server: https://127.0.0.2:{port}\n    certificate-authority: {}\n{name}",
            cp.ca_file().display()
        )
    };
    let user = format!("    token: {}\n", cp.admin_token());
    let kubeconfig = write_kubeconfig(dir.path(), &cluster(""), &user);
    let (out, _) = install(&kubeconfig, "cfsniless").await;
    let shown = text(&out);
    assert!(!out.status.success(), "verified without the name: {shown}");
    assert!(
        shown.contains("set the cluster's tls-server-name"),
        "{shown}"
    );
    let named = cluster("    tls-server-name: kubernetes.default.svc\n");
    let kubeconfig = write_kubeconfig(dir.path(), &named, &user);
    let (out, _) = install(&kubeconfig, "cfsni").await;
    assert!(out.status.success(), "{}", text(&out));
    assert!(!log.lock().unwrap().is_empty(), "nothing came to 127.0.0.2");
}
