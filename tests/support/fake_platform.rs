//! A fake Codefresh platform for the tests: an HTTP server on loopback with
//! the real API's paths, methods, status codes and payload shapes (PRODUCT.md
//! §5). It checks the `Authorization` header, signs CSRs with its own CA,
//! keeps state (agents, runtime environments, clusters, pipelines), records
//! every request, and can be told to fail (status codes, slow answers).
//! cf-runner talks to it exactly as to the real one: only `--url` differs.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use rcgen::{CertificateParams, CertificateSigningRequestParams, IsCa, Issuer, KeyPair, SanType};
use serde_json::{json, Value};

/// The account id the fake answers with.
pub const ACCOUNT_ID: &str = "5f048d85eb107d52b16c53ea";

/// One recorded request.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    /// Path and query, as sent.
    pub path: String,
    pub body: Value,
    /// True when the Authorization header held the valid token.
    pub authorized: bool,
    /// The status the fake answered with.
    pub status: u16,
}

/// A failure to inject: the next `times` requests whose `METHOD path` starts
/// with `prefix` get `status` (or are delayed by `delay` first).
#[derive(Debug, Clone)]
struct Fault {
    prefix: String,
    status: Option<u16>,
    delay: Option<Duration>,
    times: usize,
}

#[derive(Default)]
struct State {
    agents: Vec<Value>,
    runtimes: BTreeMap<String, Value>,
    default_runtime: Option<String>,
    clusters: Vec<Value>,
    projects: Vec<String>,
    pipelines: BTreeMap<String, Value>,
    builds: Vec<(String, String)>,
    requests: Vec<Recorded>,
    faults: Vec<Fault>,
    next_id: usize,
}

/// The running fake.
pub struct FakePlatform {
    addr: SocketAddr,
    token: String,
    state: Arc<Mutex<State>>,
    ca_pem: String,
}

struct Ca {
    issuer: Issuer<'static, KeyPair>,
    pem: String,
}

fn make_ca() -> Ca {
    let key = KeyPair::generate().unwrap();
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "fake Codefresh CA");
    let cert = params.self_signed(&key).unwrap();
    Ca {
        pem: cert.pem(),
        issuer: Issuer::new(params, key),
    }
}

impl FakePlatform {
    /// Starts the fake on a free loopback port, accepting `token`.
    pub fn start(token: &str) -> FakePlatform {
        let state = Arc::new(Mutex::new(State::default()));
        let ca = Arc::new(make_ca());
        let ca_pem = ca.pem.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        let token_owned = token.to_string();
        let shared = state.clone();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                tx.send(listener.local_addr().unwrap()).unwrap();
                loop {
                    let Ok((stream, _)) = listener.accept().await else {
                        return;
                    };
                    let io = hyper_util::rt::TokioIo::new(stream);
                    let state = shared.clone();
                    let token = token_owned.clone();
                    let ca = ca.clone();
                    tokio::spawn(async move {
                        let service = hyper::service::service_fn(move |req| {
                            handle(req, state.clone(), token.clone(), ca.clone())
                        });
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(io, service)
                            .await;
                    });
                }
            });
        });
        let addr = rx.recv().unwrap();
        FakePlatform {
            addr,
            token: token.to_string(),
            state,
            ca_pem,
        }
    }

    /// The base URL to pass as `--url`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The fake's CA certificate (PEM), which signs dind server certificates.
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.state.lock().unwrap().requests.clone()
    }

    /// `METHOD path` of every request so far (query strings dropped).
    pub fn calls(&self) -> Vec<String> {
        self.requests()
            .iter()
            .map(|r| format!("{} {}", r.method, r.path.split('?').next().unwrap()))
            .collect()
    }

    /// Forgets the recorded requests (state is kept).
    pub fn clear_requests(&self) {
        self.state.lock().unwrap().requests.clear();
    }

    /// The next `times` requests matching `prefix` (`"POST /api/agents"`) get `status`.
    pub fn fail(&self, prefix: &str, status: u16, times: usize) {
        self.state.lock().unwrap().faults.push(Fault {
            prefix: prefix.into(),
            status: Some(status),
            delay: None,
            times,
        });
    }

    /// The next `times` requests matching `prefix` are answered after `delay`.
    pub fn slow(&self, prefix: &str, delay: Duration, times: usize) {
        self.state.lock().unwrap().faults.push(Fault {
            prefix: prefix.into(),
            status: None,
            delay: Some(delay),
            times,
        });
    }

    /// The agents the fake holds.
    pub fn agents(&self) -> Vec<Value> {
        self.state.lock().unwrap().agents.clone()
    }

    /// The runtime environments the fake holds, by name.
    pub fn runtimes(&self) -> BTreeMap<String, Value> {
        self.state.lock().unwrap().runtimes.clone()
    }

    /// The account's default runtime, if set.
    pub fn default_runtime(&self) -> Option<String> {
        self.state.lock().unwrap().default_runtime.clone()
    }

    /// The cluster integrations the fake holds.
    pub fn clusters(&self) -> Vec<Value> {
        self.state.lock().unwrap().clusters.clone()
    }

    /// Builds started: (pipeline, runtime).
    pub fn builds(&self) -> Vec<(String, String)> {
        self.state.lock().unwrap().builds.clone()
    }

    /// The token the fake accepts.
    pub fn token(&self) -> &str {
        &self.token
    }
}

fn respond(status: u16, body: Value) -> Response<Full<Bytes>> {
    Response::builder()
        .status(StatusCode::from_u16(status).unwrap())
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap()
}

fn decode(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&segment[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap()
}

async fn handle(
    req: Request<Incoming>,
    state: Arc<Mutex<State>>,
    token: String,
    ca: Arc<Ca>,
) -> Result<Response<Full<Bytes>>, std::convert::Infallible> {
    let method = req.method().to_string();
    let path = req
        .uri()
        .path_and_query()
        .map(|p| p.to_string())
        .unwrap_or_default();
    let authorized = req
        .headers()
        .get("authorization")
        .and_then(|h| h.to_str().ok())
        == Some(token.as_str());
    let body_bytes = req
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let body: Value = serde_json::from_slice(&body_bytes).unwrap_or(Value::Null);
    let call = format!("{method} {}", path.split('?').next().unwrap());

    // Injected faults first.
    let fault = {
        let mut s = state.lock().unwrap();
        let found = s
            .faults
            .iter_mut()
            .find(|f| f.times > 0 && call.starts_with(&f.prefix));
        found.map(|f| {
            f.times -= 1;
            f.clone()
        })
    };
    if let Some(f) = &fault {
        if let Some(d) = f.delay {
            tokio::time::sleep(d).await;
        }
    }
    let (status, answer) = match (&fault, authorized) {
        (
            Some(Fault {
                status: Some(code), ..
            }),
            _,
        ) => (
            *code,
            json!({"message": format!("injected failure {code}")}),
        ),
        (_, false) => (401, json!({"message": "Unauthorized: invalid token"})),
        _ => route(&method, &path, &body, &state, &ca),
    };
    let mut s = state.lock().unwrap();
    s.requests.push(Recorded {
        method,
        path,
        body,
        authorized,
        status,
    });
    drop(s);
    if let Some(Value::String(b64_zip)) = answer.get("__zip__") {
        use base64::Engine;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(b64_zip)
            .unwrap();
        return Ok(Response::builder()
            .status(200)
            .header("content-type", "application/zip")
            .body(Full::new(Bytes::from(bytes)))
            .unwrap());
    }
    Ok(respond(status, answer))
}

fn sign(csr_pem: &str, sans: &str, ca: &Ca) -> Result<Vec<u8>, String> {
    let mut csr = CertificateSigningRequestParams::from_pem(csr_pem).map_err(|e| e.to_string())?;
    // Like the real platform, the names come from reqSubjectAltName.
    csr.params.subject_alt_names = sans
        .split(',')
        .filter_map(|s| {
            if let Some(ip) = s.strip_prefix("IP:") {
                ip.parse().ok().map(SanType::IpAddress)
            } else {
                s.strip_prefix("DNS:")
                    .and_then(|d| d.to_string().try_into().ok())
                    .map(SanType::DnsName)
            }
        })
        .collect();
    let cert = csr.signed_by(&ca.issuer).map_err(|e| e.to_string())?;
    let mut buffer = std::io::Cursor::new(Vec::new());
    {
        let mut zip = zip::ZipWriter::new(&mut buffer);
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        use std::io::Write;
        zip.start_file("cf-ca.pem", options).unwrap();
        zip.write_all(ca.pem.as_bytes()).unwrap();
        zip.start_file("cf-server-cert.pem", options).unwrap();
        zip.write_all(cert.pem().as_bytes()).unwrap();
        zip.finish().unwrap();
    }
    Ok(buffer.into_inner())
}

fn route(
    method: &str,
    path: &str,
    body: &Value,
    state: &Arc<Mutex<State>>,
    ca: &Ca,
) -> (u16, Value) {
    let (path_only, query) = path.split_once('?').unwrap_or((path, ""));
    let parts: Vec<String> = path_only
        .trim_start_matches('/')
        .split('/')
        .map(decode)
        .collect();
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    let mut s = state.lock().unwrap();
    fn new_id(s: &mut State, prefix: &str) -> String {
        s.next_id += 1;
        format!("{prefix}{:04}", s.next_id)
    }
    match (method, parts.as_slice()) {
        ("GET", ["api", "user"]) => (
            200,
            json!({
                "_id": "user-1", "userName": "tester", "email": "tester@example.com",
                "activeAccountName": "acme",
                "account": [{"_id": "other-account", "name": "other"}, {"_id": ACCOUNT_ID, "name": "acme"}]
            }),
        ),
        ("GET", ["api", "agents"]) => {
            let name = query.strip_prefix("name=").map(decode);
            let list: Vec<Value> = s
                .agents
                .iter()
                .filter(|a| name.as_deref().is_none_or(|n| a["name"] == n))
                .map(|a| {
                    let mut a = a.clone();
                    a.as_object_mut().unwrap().remove("token");
                    a
                })
                .collect();
            (200, Value::Array(list))
        }
        ("POST", ["api", "agents"]) => {
            let Some(name) = body["name"].as_str().map(str::to_string) else {
                return (400, json!({"message": "name is required"}));
            };
            if s.agents.iter().any(|a| a["name"] == name.as_str()) {
                return (
                    409,
                    json!({"message": format!("agent {name} already exists")}),
                );
            }
            let id = new_id(&mut s, "agent-");
            let token = format!("agent-token-{id}-secret");
            let agent = json!({"id": id, "name": name, "runtimes": [], "token": token,
                               "status": {"message": "never reported", "reportedDate": null}});
            s.agents.push(agent.clone());
            (201, agent)
        }
        ("PUT", ["api", "agent", id]) => match s.agents.iter_mut().find(|a| a["id"] == *id) {
            Some(a) => {
                a["runtimes"] = body["runtimes"].clone();
                let mut out = a.clone();
                out.as_object_mut().unwrap().remove("token");
                (200, out)
            }
            None => (404, json!({"message": "agent not found"})),
        },
        ("DELETE", ["api", "agent", id]) => {
            let before = s.agents.len();
            s.agents.retain(|a| a["id"] != *id);
            if s.agents.len() < before {
                (200, json!({}))
            } else {
                (404, json!({"message": "agent not found"}))
            }
        }
        ("POST", ["api", "custom_clusters", "signServerCerts"]) => {
            let (Some(csr), Some(sans)) =
                (body["csr"].as_str(), body["reqSubjectAltName"].as_str())
            else {
                return (
                    400,
                    json!({"message": "csr and reqSubjectAltName are required"}),
                );
            };
            match sign(csr, sans, ca) {
                Ok(zip) => {
                    use base64::Engine;
                    (
                        200,
                        json!({"__zip__": base64::engine::general_purpose::STANDARD.encode(zip)}),
                    )
                }
                Err(e) => (400, json!({"message": format!("bad CSR: {e}")})),
            }
        }
        ("POST", ["api", "custom_clusters", "register"]) => {
            let name = body["runtimeEnvironmentName"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            if name.is_empty()
                || body["namespace"].as_str().is_none()
                || body["clusterName"].as_str().is_none()
            {
                return (
                    400,
                    json!({"message": "runtimeEnvironmentName, clusterName and namespace are required"}),
                );
            }
            if s.runtimes.contains_key(&name) {
                return (
                    409,
                    json!({"message": format!("runtime environment {name} already exists")}),
                );
            }
            let re = json!({
                "metadata": {"name": name, "agent": body["agent"]},
                "accountId": ACCOUNT_ID,
                "runtimeScheduler": {"cluster": {"clusterProvider": {"accountId": ACCOUNT_ID, "selector": body["clusterName"]},
                                                  "namespace": body["namespace"], "serviceAccount": body["serviceAccount"]}},
                "dockerDaemonScheduler": {"cluster": {"clusterProvider": {"accountId": ACCOUNT_ID, "selector": body["clusterName"]},
                                                       "namespace": body["namespace"], "nodeSelector": body["nodeSelector"]},
                                          "userAccess": body["dockerDaemonScheduler"]["userAccess"],
                                          "pvcs": {"dind": {"storageClassName": body["storageClassName"]}}},
                "status": {"message": "registered", "updated_at": null},
            });
            s.runtimes.insert(name, re.clone());
            (200, re)
        }
        ("GET", ["api", "runtime-environments"]) => {
            (200, Value::Array(s.runtimes.values().cloned().collect()))
        }
        ("GET", ["api", "runtime-environments", name]) => match s.runtimes.get(*name) {
            Some(re) => (200, re.clone()),
            None => (
                404,
                json!({"message": format!("runtime environment {name} not found")}),
            ),
        },
        ("PUT", ["api", "runtime-environments", "default", name]) => {
            if s.runtimes.contains_key(*name) {
                s.default_runtime = Some(name.to_string());
                (201, json!({}))
            } else {
                (404, json!({"message": "runtime environment not found"}))
            }
        }
        ("PUT", ["api", "runtime-environments", name]) => {
            if !s.runtimes.contains_key(*name) {
                return (404, json!({"message": "runtime environment not found"}));
            }
            if body["metadata"]["name"] != *name {
                return (400, json!({"message": "metadata.name must match the path"}));
            }
            s.runtimes.insert(name.to_string(), body.clone());
            (200, body.clone())
        }
        ("DELETE", ["api", "runtime-environments", name]) => {
            if s.runtimes.remove(*name).is_some() {
                if s.default_runtime.as_deref() == Some(*name) {
                    s.default_runtime = None;
                }
                (200, json!({}))
            } else {
                (404, json!({"message": "runtime environment not found"}))
            }
        }
        ("GET", ["api", "clusters"]) => (200, Value::Array(s.clusters.clone())),
        ("POST", ["api", "clusters", "local", "cluster"]) => {
            for field in ["selector", "host", "serviceAccountToken", "clientCa"] {
                if body[field].as_str().is_none_or(str::is_empty) {
                    return (400, json!({"message": format!("{field} is required")}));
                }
            }
            if s.clusters.iter().any(|c| c["selector"] == body["selector"]) {
                return (
                    409,
                    json!({"message": "a cluster with this selector exists"}),
                );
            }
            let id = new_id(&mut s, "cluster-");
            let c = json!({"_id": id, "selector": body["selector"], "provider": "local",
                           "behindFirewall": body["behindFirewall"], "host": body["host"]});
            s.clusters.push(c.clone());
            (201, c)
        }
        ("DELETE", ["api", "clusters", _provider, "cluster", id]) => {
            let before = s.clusters.len();
            s.clusters.retain(|c| c["_id"] != *id);
            if s.clusters.len() < before {
                (200, json!({}))
            } else {
                (404, json!({"message": "cluster not found"}))
            }
        }
        ("GET", ["api", "projects", "name", name]) => {
            if s.projects.iter().any(|p| p == name) {
                (200, json!({"projectName": name}))
            } else {
                (404, json!({"message": "project not found"}))
            }
        }
        ("POST", ["api", "projects"]) => {
            let name = body["projectName"].as_str().unwrap_or_default().to_string();
            s.projects.push(name.clone());
            (201, json!({"projectName": name}))
        }
        ("GET", ["api", "pipelines", name]) => match s.pipelines.get(*name) {
            Some(p) => (200, p.clone()),
            None => (404, json!({"message": "pipeline not found"})),
        },
        ("POST", ["api", "pipelines"]) => {
            let name = body["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            s.pipelines.insert(name, body.clone());
            (201, body.clone())
        }
        ("PUT", ["api", "pipelines", name]) => {
            s.pipelines.insert(name.to_string(), body.clone());
            (200, body.clone())
        }
        ("POST", ["api", "pipelines", "run", name]) => {
            if !s.pipelines.contains_key(*name) {
                return (404, json!({"message": "pipeline not found"}));
            }
            let runtime = body["userMachineConfig"]["runtimeName"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            s.builds.push((name.to_string(), runtime));
            let id = new_id(&mut s, "build-");
            (200, Value::String(id))
        }
        _ => (
            404,
            json!({"message": format!("no route {method} {path_only}")}),
        ),
    }
}
