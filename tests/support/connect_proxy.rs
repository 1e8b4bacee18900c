//! An HTTP CONNECT proxy on loopback, as a corporate proxy or a bastion's
//! tunnel would stand between a user and the API server: it agrees to
//! `CONNECT host:port`, copies bytes both ways, and writes down one line per
//! tunnel, so a test can see that a client went through it and how many
//! connections it opened. It runs on a thread and runtime of its own, so
//! synchronous benchmarks and async tests start it alike.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the proxy writes down: one line per tunnel opened.
pub type ProxyLog = Arc<Mutex<Vec<String>>>;

/// The largest request head read before the tunnel starts.
const MAX_HEAD: usize = 8192;

/// Starts the proxy; returns its `http://127.0.0.1:port` URL and its log.
/// It serves until the process ends.
pub fn start() -> (String, ProxyLog) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    listener.set_nonblocking(true).unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let log = ProxyLog::default();
    let tunnels = log.clone();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(
            async move { serve(TcpListener::from_std(listener).unwrap(), tunnels).await },
        );
    });
    (url, log)
}

async fn serve(listener: TcpListener, log: ProxyLog) {
    while let Ok((client, _)) = listener.accept().await {
        tokio::spawn(tunnel(client, log.clone()));
    }
}

/// Reads the `CONNECT` request head, agrees, and pipes the connection.
async fn tunnel(mut client: TcpStream, log: ProxyLog) {
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") && head.len() < MAX_HEAD {
        match client.read_u8().await {
            Ok(b) => head.push(b),
            Err(_) => return,
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let Some(target) = head
        .strip_prefix("CONNECT ")
        .and_then(|l| l.split_whitespace().next())
        .map(str::to_string)
    else {
        let _ = client.write_all(b"HTTP/1.1 405 Only CONNECT\r\n\r\n").await;
        return;
    };
    let Ok(mut upstream) = TcpStream::connect(&target).await else {
        let _ = client.write_all(b"HTTP/1.1 502 Unreachable\r\n\r\n").await;
        return;
    };
    // As a proxy worth the name does: no delayed-ACK stall on small frames.
    let _ = client.set_nodelay(true);
    let _ = upstream.set_nodelay(true);
    let ok = b"HTTP/1.1 200 Connection established\r\n\r\n";
    if client.write_all(ok).await.is_err() {
        return;
    }
    log.lock().unwrap().push(format!("CONNECT {target}"));
    let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
}
