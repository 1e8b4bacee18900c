//! `cf-runner images`: the list, the mirror, and `--check` against a fake
//! registry on loopback. The fake speaks the OCI distribution API as the
//! big registries do: an anonymous HEAD of a manifest gets 401 with a Bearer
//! challenge, the token service wants the docker-config credentials, and a
//! HEAD with the token answers 200 or 404.

use crate::support;

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::{Arc, Mutex};

use base64::Engine;
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use serde_json::Value;
use support::cli;

const USER: &str = "robot";
const PASSWORD: &str = "REGISTRYPASSWORD0123";
const TOKEN: &str = "pull-token-42";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn cf_runner(args: &[&str], home: &Path) -> Output {
    cli::cf_runner(home).args(args).output().unwrap()
}

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("images -o json prints JSON")
}

fn images_of(report: &Value) -> Vec<String> {
    report["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["image"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_component_and_runtime_image_is_listed_pinned_by_digest() {
    let home = tempfile::tempdir().unwrap();
    let example = root().join("values-examples/app-proxy-monitor.yaml");
    let report = json_of(&cf_runner(
        &["images", "-f", example.to_str().unwrap(), "-o", "json"],
        home.path(),
    ));
    let images = report["images"].as_array().unwrap();
    let users: Vec<String> = images
        .iter()
        .flat_map(|i| i["usedBy"].as_array().unwrap().iter())
        .map(|u| u.as_str().unwrap().to_string())
        .collect();
    for needed in [
        "Deployment/runner",
        "Deployment/dind-volume-provisioner",
        "Deployment/monitor",
        "Deployment/app-proxy",
        "runtime: runtimeScheduler.image",
        "runtime: dockerDaemonScheduler.dindImage",
    ] {
        assert!(
            users.iter().any(|u| u == needed),
            "{needed} not in {users:?}"
        );
    }
    for image in images {
        assert_eq!(image["pinned"], true, "{image}");
        assert!(
            image["image"].as_str().unwrap().contains("@sha256:"),
            "{image}"
        );
    }
    // The images the manifests hold are exactly the ones listed for objects.
    let out = cf_runner(
        &[
            "init",
            "--yes",
            "--dry-run",
            "--output-dir",
            "-",
            "-f",
            example.to_str().unwrap(),
        ],
        home.path(),
    );
    assert!(out.status.success());
    let stream = String::from_utf8(out.stdout).unwrap();
    let in_manifests: BTreeSet<String> = stream
        .lines()
        .filter_map(|l| l.trim().strip_prefix("image: "))
        .map(|s| s.trim_matches('"').trim_matches('\'').to_string())
        .collect();
    let listed: BTreeSet<String> = images
        .iter()
        .filter(|i| {
            i["usedBy"]
                .as_array()
                .unwrap()
                .iter()
                .any(|u| !u.as_str().unwrap().starts_with("runtime:"))
        })
        .map(|i| i["image"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(listed, in_manifests);
}

/// `CR_6177_FIXER` (alpine) is started by builds from the runtime spec, and
/// was missing from the list: an air-gapped mirror filled from it lacked
/// it. The list is read from the rendered install, so every digest-pinned
/// reference of the runtime spec the dry-run writes is in it, with and
/// without a mirror.
#[test]
fn every_image_of_the_runtime_spec_is_listed_cr_6177_fixer_included() {
    let home = tempfile::tempdir().unwrap();
    let example = root().join("values-examples/local.yaml");
    let example = example.to_str().unwrap();
    let mut cases = 0;
    for mirror in [None, Some("mirror.example.com/cf")] {
        let mut args = vec!["images", "-f", example, "-o", "json"];
        let mut dry = vec![
            "init",
            "--yes",
            "--dry-run",
            "--output-dir",
            "out",
            "-f",
            example,
        ];
        if let Some(m) = mirror {
            args.extend(["--docker-registry", m]);
            dry.extend(["--docker-registry", m]);
        }
        let listed = images_of(&json_of(&cf_runner(&args, home.path())));
        let fixer = listed
            .iter()
            .find(|i| i.contains("/alpine:latest@sha256:"))
            .unwrap_or_else(|| panic!("no alpine (CR_6177_FIXER) in {listed:?}"));
        if let Some(m) = mirror {
            assert!(fixer.starts_with(m), "{fixer}");
        }
        let out = cf_runner(&dry, home.path());
        assert!(out.status.success(), "{}", cli::text(&out));
        let spec =
            std::fs::read_to_string(home.path().join("out/runtime-environment.txt")).unwrap();
        let spec: Value = serde_yaml_ng::from_str(&spec).unwrap();
        let env = spec["runtimeScheduler"]["envVars"].as_object().unwrap();
        let mut pinned = 0;
        for (name, value) in env {
            let value = value.as_str().unwrap_or_default();
            if value.contains('/') && value.contains("@sha256:") && !value.contains(',') {
                assert!(
                    listed.iter().any(|i| i == value),
                    "{name}={value} is not listed"
                );
                pinned += 1;
            }
        }
        assert!(pinned >= 14, "{pinned}");
        std::fs::remove_dir_all(home.path().join("out")).unwrap();
        cases += 1;
    }
    assert_eq!(cases, 2);
}

#[test]
fn with_a_mirror_every_image_is_under_it() {
    let home = tempfile::tempdir().unwrap();
    let report = json_of(&cf_runner(
        &[
            "images",
            "--docker-registry",
            "mirror.example.com/cf",
            "-o",
            "json",
        ],
        home.path(),
    ));
    assert_eq!(report["registry"], "mirror.example.com/cf");
    let images = images_of(&report);
    assert!(images.len() >= 5, "{images:?}");
    for image in images {
        assert!(image.starts_with("mirror.example.com/cf/"), "{image}");
    }
}

#[test]
fn the_text_list_counts_the_images() {
    let home = tempfile::tempdir().unwrap();
    let out = cf_runner(&["images"], home.path());
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("IMAGE"), "{text}");
    let rows = text.lines().filter(|l| l.contains("@sha256:")).count();
    assert!(
        text.contains(&format!("{rows} images, {rows} pinned by digest")),
        "{text}"
    );
}

/// A distribution API on loopback holding `held` (repository, reference).
struct FakeRegistry {
    addr: SocketAddr,
    held: Arc<Mutex<BTreeSet<(String, String)>>>,
    /// `METHOD path authorization-kind` of every request.
    seen: Arc<Mutex<Vec<String>>>,
}

impl FakeRegistry {
    fn start() -> FakeRegistry {
        let held = Arc::new(Mutex::new(BTreeSet::new()));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let (h, s) = (held.clone(), seen.clone());
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                let addr = listener.local_addr().unwrap();
                tx.send(addr).unwrap();
                loop {
                    let Ok((stream, _)) = listener.accept().await else {
                        return;
                    };
                    let (h, s) = (h.clone(), s.clone());
                    tokio::spawn(async move {
                        let service = hyper::service::service_fn(move |req| {
                            let (h, s) = (h.clone(), s.clone());
                            async move { Ok::<_, std::convert::Infallible>(answer(req, addr, &h, &s)) }
                        });
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                            .await;
                    });
                }
            });
        });
        FakeRegistry {
            addr: rx.recv().unwrap(),
            held,
            seen,
        }
    }

    fn host(&self) -> String {
        self.addr.to_string()
    }

    /// Puts an image (as listed) into the registry.
    fn hold(&self, image: &str) {
        let rest = image
            .strip_prefix(&format!("{}/", self.host()))
            .expect("the image is under the fake");
        let (name, digest) = rest.split_once('@').unwrap();
        let (repo, tag) = name.rsplit_once(':').unwrap();
        let mut held = self.held.lock().unwrap();
        held.insert((repo.to_string(), digest.to_string()));
        held.insert((repo.to_string(), tag.to_string()));
    }
}

fn answer(
    req: Request<Incoming>,
    addr: SocketAddr,
    held: &Mutex<BTreeSet<(String, String)>>,
    seen: &Mutex<Vec<String>>,
) -> Response<Full<Bytes>> {
    let auth = req
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let path = req.uri().path().to_string();
    let kind = auth.split(' ').next().unwrap_or("").to_string();
    seen.lock()
        .unwrap()
        .push(format!("{} {path} {kind}", req.method()));
    let status = |code: StatusCode| Response::builder().status(code);
    if path == "/token" {
        let want = format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!("{USER}:{PASSWORD}"))
        );
        if auth != want {
            return status(StatusCode::UNAUTHORIZED)
                .body(Full::new(Bytes::from_static(b"{}")))
                .unwrap();
        }
        return status(StatusCode::OK)
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(format!("{{\"token\":\"{TOKEN}\"}}"))))
            .unwrap();
    }
    let Some(rest) = path.strip_prefix("/v2/") else {
        return status(StatusCode::NOT_FOUND).body(Full::default()).unwrap();
    };
    let Some((repo, reference)) = rest.split_once("/manifests/") else {
        return status(StatusCode::NOT_FOUND).body(Full::default()).unwrap();
    };
    let accepts_index = req
        .headers()
        .get("accept")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("application/vnd.oci.image.index.v1+json"));
    if auth != format!("Bearer {TOKEN}") {
        return status(StatusCode::UNAUTHORIZED)
            .header(
                "www-authenticate",
                format!(
                    "Bearer realm=\"http://{addr}/token\",service=\"fake\",scope=\"repository:{repo}:pull\""
                ),
            )
            .body(Full::default())
            .unwrap();
    }
    let found = accepts_index
        && held
            .lock()
            .unwrap()
            .contains(&(repo.to_string(), reference.to_string()));
    status(if found {
        StatusCode::OK
    } else {
        StatusCode::NOT_FOUND
    })
    .body(Full::default())
    .unwrap()
}

fn docker_config(dir: &Path, host: &str) -> PathBuf {
    let path = dir.join("docker-config.json");
    let auth = base64::engine::general_purpose::STANDARD.encode(format!("{USER}:{PASSWORD}"));
    std::fs::write(
        &path,
        format!("{{\"auths\": {{\"{host}\": {{\"auth\": \"{auth}\"}}}}}}"),
    )
    .unwrap();
    path
}

#[test]
fn check_lists_what_the_mirror_lacks_and_exits_1() {
    let registry = FakeRegistry::start();
    let home = tempfile::tempdir().unwrap();
    let host = registry.host();
    let listed = images_of(&json_of(&cf_runner(
        &["images", "--docker-registry", &host, "-o", "json"],
        home.path(),
    )));
    // Everything but the dind image is mirrored.
    let dind = listed
        .iter()
        .find(|i| i.contains("/codefresh/dind:"))
        .expect("the dind image is listed")
        .clone();
    for image in listed.iter().filter(|i| **i != dind) {
        registry.hold(image);
    }
    let config = docker_config(home.path(), &host);
    let out = cf_runner(
        &[
            "images",
            "--docker-registry",
            &host,
            "--check",
            "--docker-config",
            config.to_str().unwrap(),
            "-o",
            "json",
        ],
        home.path(),
    );
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("1 of"), "{stderr}");
    assert!(stderr.contains(&dind), "{stderr}");
    assert!(!stderr.contains(PASSWORD) && !stdout.contains(PASSWORD));
    let report: Value = serde_json::from_str(&stdout).unwrap();
    for image in report["images"].as_array().unwrap() {
        let want = if image["image"] == dind.as_str() {
            "missing"
        } else {
            "present"
        };
        assert_eq!(image["status"], want, "{image}");
    }
    // Each image was asked for by digest, after the token dance.
    let seen = registry.seen.lock().unwrap().clone();
    assert!(
        seen.iter().any(|s| s.starts_with("GET /token Basic")),
        "{seen:?}"
    );
    for image in &listed {
        let digest = image.split_once('@').unwrap().1;
        assert!(
            seen.iter()
                .any(|s| s.starts_with("HEAD /v2/") && s.contains(digest) && s.ends_with("Bearer")),
            "{image} was not asked for: {seen:?}"
        );
    }

    // Once mirrored, the check passes.
    registry.hold(&dind);
    let out = cf_runner(
        &[
            "images",
            "--docker-registry",
            &host,
            "--check",
            "--docker-config",
            config.to_str().unwrap(),
        ],
        home.path(),
    );
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("REGISTRY SAYS"), "{text}");
    assert!(text.contains(&format!(
        "all {} images are in their registries",
        listed.len()
    )));
}

#[test]
fn check_without_credentials_says_the_registry_wants_a_login() {
    let registry = FakeRegistry::start();
    let home = tempfile::tempdir().unwrap();
    let host = registry.host();
    let out = cf_runner(
        &[
            "images",
            "--docker-registry",
            &host,
            "--check",
            "-o",
            "json",
        ],
        home.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    for image in report["images"].as_array().unwrap() {
        assert_eq!(image["status"], "denied", "{image}");
        assert!(
            image["detail"].as_str().unwrap().contains("docker login"),
            "{image}"
        );
    }
}

#[test]
fn check_with_an_unreadable_docker_config_is_bad_input() {
    let home = tempfile::tempdir().unwrap();
    let bad = home.path().join("config.json");
    std::fs::write(&bad, "{not json").unwrap();
    let out = cf_runner(
        &[
            "images",
            "--check",
            "--docker-config",
            bad.to_str().unwrap(),
        ],
        home.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--docker-config") && stderr.contains("not JSON"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}
