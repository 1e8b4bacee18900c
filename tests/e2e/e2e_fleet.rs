//! A fleet reconciled by the real engine: Flux's source-controller and
//! kustomize-controller (built from their Go modules, run as processes)
//! against the test control plane, reading the tree `cf-runner fleet
//! export` wrote from a Git server on loopback (`git http-backend` behind a
//! small CGI server). Three clusters, as namespaces of one control plane
//! (each reached through its own kubeconfig Secret, as remote clusters
//! are), registered on the fake platform.
//!
//! One test, the scenarios in order: every cluster reconciles to what
//! `init` renders for its values (field by field); the SOPS Secrets are
//! decrypted by kustomize-controller and no token is in the Git history;
//! a change to one cluster reaches that cluster only; a cluster removed
//! from the fleet file is pruned; the platform saw each registration once
//! and nothing on a re-run. The Argo CD flavour is checked by a
//! server-side dry-run against Argo CD's CRDs when they are given.

use crate::support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use kube::api::{Api, DynamicObject, ListParams};
use serde_json::Value;
use support::cli::{cf_runner, text};
use support::controlplane::{self, poll_until, ControlPlane};
use support::fake_platform::FakePlatform;

const USER_TOKEN: &str = "fleet-user-token-0123456789abcdef";

/// A tool's path: `$env_var`, else what `tests/<tool>/build.sh` prints
/// last (it builds or fetches it when missing).
fn tool(tool: &str, env_var: &str, cold: &str) -> PathBuf {
    match std::env::var_os(env_var).filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => support::tool::build(tool, env_var, cold).unwrap_or_else(|e| panic!("{e}")),
    }
}

/// Applies `yaml` server-side on `cp`, or fails the test with kubectl's
/// words.
fn kubectl_apply(cp: &ControlPlane, yaml: &str) {
    let out = cp.apply_yaml(yaml);
    assert!(out.status.success(), "kubectl apply: {}", text(&out));
}

/// The folder with Flux's binaries and CRDs.
fn flux_bin() -> PathBuf {
    tool("flux", "CF_RUNNER_FLUX_BIN", "about 5 minutes")
}

/// Argo CD's CRDs.
fn argocd_crds() -> PathBuf {
    tool("argocd", "CF_RUNNER_ARGOCD_CRDS", "a download")
}

/// The ExternalSecret CRD (external-secrets.io).
fn external_secrets_crds() -> PathBuf {
    tool("external-secrets", "CF_RUNNER_ESO_CRDS", "a download")
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A child process killed (with its group) when dropped.
struct Proc(Child, &'static str, PathBuf);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Proc {
    /// Resident memory, in MiB, from /proc.
    fn rss_mib(&self) -> u64 {
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", self.0.id())).unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .unwrap_or(0)
            / 1024
    }
    fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.2).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        format!(
            "--- {} log ---\n{}",
            self.1,
            lines[lines.len().saturating_sub(30)..].join("\n")
        )
    }
}

/// Peak resident memory (VmHWM), in MiB, of every process started for
/// `cp` (etcd, kube-apiserver, controller-manager, scheduler, kwok: those
/// whose command line names its folder), by process name.
fn plane_rss_mib(cp: &ControlPlane) -> BTreeMap<String, u64> {
    let dir = cp.dir().display().to_string();
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if !String::from_utf8_lossy(&cmdline).contains(&dir) {
            continue;
        }
        let status = std::fs::read_to_string(entry.path().join("status")).unwrap_or_default();
        let field = |k: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(k))
                .map(|v| v.trim().trim_end_matches("kB").trim().to_string())
        };
        let (Some(name), Some(kb)) = (field("Name:"), field("VmHWM:")) else {
            continue;
        };
        *out.entry(name).or_insert(0) += kb.parse::<u64>().unwrap_or(0) / 1024;
    }
    out
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "fleet")
        .env("GIT_AUTHOR_EMAIL", "fleet@example.com")
        .env("GIT_COMMITTER_NAME", "fleet")
        .env("GIT_COMMITTER_EMAIL", "fleet@example.com")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Serves the bare repositories under `root` over smart HTTP with
/// `git http-backend` as a CGI program. Returns the port.
fn git_server(root: PathBuf) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let root = root.clone();
            std::thread::spawn(move || serve_cgi(stream, &root));
        }
    });
    port
}

fn serve_cgi(mut stream: std::net::TcpStream, root: &Path) {
    use std::io::{BufRead, BufReader, Read, Write};
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = line.split_whitespace();
        let (method, target) = (
            parts.next().unwrap_or("").to_string(),
            parts.next().unwrap_or("").to_string(),
        );
        let mut headers = BTreeMap::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
            }
        }
        let mut body = Vec::new();
        if let Some(n) = headers
            .get("content-length")
            .and_then(|n| n.parse::<usize>().ok())
        {
            body.resize(n, 0);
            if reader.read_exact(&mut body).is_err() {
                return;
            }
        } else if headers
            .get("transfer-encoding")
            .is_some_and(|t| t.contains("chunked"))
        {
            loop {
                let mut size = String::new();
                reader.read_line(&mut size).unwrap();
                let n = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                    .unwrap_or(0);
                let mut chunk = vec![0; n + 2];
                reader.read_exact(&mut chunk).unwrap();
                if n == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..n]);
            }
        }
        let (path, query) = target.split_once('?').unwrap_or((&target, ""));
        let mut cmd = Command::new("git");
        cmd.arg("http-backend")
            .env("GIT_PROJECT_ROOT", root)
            .env("GIT_HTTP_EXPORT_ALL", "1")
            .env("REQUEST_METHOD", &method)
            .env("PATH_INFO", path)
            .env("QUERY_STRING", query)
            .env("CONTENT_LENGTH", body.len().to_string())
            .env("REMOTE_ADDR", "127.0.0.1")
            .env("GATEWAY_INTERFACE", "CGI/1.1")
            .env("SERVER_PROTOCOL", "HTTP/1.1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(v) = headers.get("content-type") {
            cmd.env("CONTENT_TYPE", v);
        }
        if let Some(v) = headers.get("content-encoding") {
            cmd.env("HTTP_CONTENT_ENCODING", v);
        }
        if let Some(v) = headers.get("git-protocol") {
            cmd.env("GIT_PROTOCOL", v);
        }
        let mut child = cmd.spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&body);
        });
        let out = child.wait_with_output().unwrap();
        let _ = writer.join();
        let raw = out.stdout;
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .map(|i| (i, 4))
            .or_else(|| raw.windows(2).position(|w| w == b"\n\n").map(|i| (i, 2)))
            .unwrap_or((0, 0));
        let head = String::from_utf8_lossy(&raw[..split.0]).into_owned();
        let content = &raw[split.0 + split.1..];
        let mut status = "200 OK".to_string();
        let mut response = String::new();
        for h in head.lines() {
            if let Some(s) = h.strip_prefix("Status:") {
                status = s.trim().to_string();
            } else if !h.trim().is_empty() {
                response.push_str(h.trim());
                response.push_str("\r\n");
            }
        }
        let head = format!(
            "HTTP/1.1 {status}\r\n{response}Content-Length: {}\r\n\r\n",
            content.len()
        );
        if stream.write_all(head.as_bytes()).is_err() || stream.write_all(content).is_err() {
            return;
        }
    }
}
/// The fleet file of the test: its runners talk to `host`, the platform
/// the tokens are minted on (another host is refused).
fn fleet_file(recipient: &str, host: &str, clusters: &[(&str, &str)]) -> String {
    let mut s = format!(
        "defaults:\n  CodefreshHost: {host}\n  Namespace: fleet-a\n  Storage:\n    Backend: local\n  SkipClusterIntegration: true\n\
         gitops:\n  path: fleet\n  interval: 1m\n  timeout: 3m\n  repoURL: https://git.example.com/runners.git\n\
         sops:\n  ageRecipients: [{recipient}]\nclusters:\n"
    );
    for (name, extra) in clusters {
        s.push_str(&format!(
            "  - name: {name}\n    kubeConfigSecret: kubeconfig-{name}\n{extra}"
        ));
    }
    s
}

/// The runner's namespace in each cluster of the test's fleet.
fn namespace_of(cluster: &str) -> &'static str {
    match cluster {
        "alpha" => "fleet-a",
        "bravo" => "fleet-b",
        _ => "fleet-c",
    }
}

/// `cp`'s admin kubeconfig as a remote cluster's is handed over: its CA
/// inline (no local file), its context named `context`.
fn inline_kubeconfig(cp: &ControlPlane, context: &str) -> String {
    let ca_line = format!("certificate-authority: {}", cp.ca_file().display());
    let ca_data =
        base64::engine::general_purpose::STANDARD.encode(std::fs::read(cp.ca_file()).unwrap());
    let kubeconfig = std::fs::read_to_string(cp.admin_kubeconfig())
        .unwrap()
        .replace(&ca_line, &format!("certificate-authority-data: {ca_data}"))
        .replace("admin@cf-runner-test", context);
    assert!(
        kubeconfig.contains("certificate-authority-data") && kubeconfig.contains(context),
        "{kubeconfig}"
    );
    kubeconfig
}

fn cli(home: &Path, args: &[&str]) -> std::process::Output {
    cf_runner(home).args(args).output().unwrap()
}

/// A Kustomization's Ready condition: (status, reason, message, revision).
async fn ready(cp: &ControlPlane, name: &str) -> Option<(String, String, String)> {
    let api = cf_runner::cluster::api_for(
        &cp.client(),
        "kustomize.toolkit.fluxcd.io/v1",
        "Kustomization",
        Some("flux-system"),
    );
    let ks = api.get_opt(name).await.ok()??;
    let conds = ks.data.pointer("/status/conditions")?.as_array()?.clone();
    let c = conds.iter().find(|c| c["type"] == "Ready")?;
    Some((
        c["status"].as_str()?.to_string(),
        c["message"].as_str().unwrap_or("").to_string(),
        ks.data
            .pointer("/status/lastAppliedRevision")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
    ))
}

async fn wait_ready(cp: &ControlPlane, name: &str, revision: &str, procs: &[&Proc]) -> Duration {
    let start = Instant::now();
    let result = poll_until(
        &format!("Kustomization {name} Ready at {revision}"),
        Duration::from_secs(300),
        || async {
            Ok(ready(cp, name)
                .await
                .is_some_and(|(s, _, rev)| s == "True" && rev.ends_with(revision)))
        },
    )
    .await;
    if let Err(e) = result {
        let state = ready(cp, name).await;
        let logs: Vec<String> = procs.iter().map(|p| p.log_tail()).collect();
        panic!("{e:#}\nlast state: {state:?}\n{}", logs.join("\n"));
    }
    start.elapsed()
}

/// Every leaf of `want` is in `live` with the same value (`stringData`
/// compared with the live `data`, decoded).
fn same_fields(want: &Value, live: &Value, path: &str, diffs: &mut Vec<String>) {
    match want {
        Value::Object(map) => {
            for (k, v) in map {
                if path.is_empty() && k == "stringData" {
                    for (sk, sv) in v.as_object().unwrap() {
                        let got = live["data"][sk].as_str().map(|b| {
                            String::from_utf8(
                                base64::engine::general_purpose::STANDARD.decode(b).unwrap(),
                            )
                            .unwrap()
                        });
                        if got.as_deref() != sv.as_str() {
                            diffs.push(format!("stringData.{sk}"));
                        }
                    }
                    continue;
                }
                same_fields(v, &live[k], &format!("{path}.{k}"), diffs);
            }
        }
        Value::Array(items) if items.is_empty() && live.is_null() => {}
        Value::Array(items) => {
            let Some(l) = live.as_array() else {
                diffs.push(format!("{path}: not a list in the cluster"));
                return;
            };
            if l.len() != items.len() {
                diffs.push(format!(
                    "{path}: {} items, {} in the cluster",
                    items.len(),
                    l.len()
                ));
                return;
            }
            for (i, v) in items.iter().enumerate() {
                same_fields(v, &l[i], &format!("{path}[{i}]"), diffs);
            }
        }
        Value::Number(n) if live.is_string() => {
            if live.as_str() != Some(&n.to_string()) {
                diffs.push(format!("{path}: {want} vs {live}"));
            }
        }
        _ => {
            if want != live {
                diffs.push(format!("{path}: {want} vs {live}"));
            }
        }
    }
}

/// What `init` would apply for a cluster of the fleet (with the registered
/// names and the decrypted secrets), compared field by field with the
/// cluster. Returns the agent token.
async fn compare_with_init(
    cp: &ControlPlane,
    tree: &Path,
    fleet: &cf_runner::fleet::Fleet,
    cluster: &str,
    ids: &[age::x25519::Identity],
) -> String {
    use cf_runner::fleet::{sops, tree as ftree};
    let c = fleet.clusters.iter().find(|c| c.name == cluster).unwrap();
    let rt = &c.runtimes[0];
    let ns = rt.namespace();
    let folder = tree.join(ftree::secrets_folder(cluster, ns));
    let reg = ftree::Registration::from_text(
        &std::fs::read_to_string(folder.join("registration.yaml")).unwrap(),
    )
    .unwrap();
    let open = |name: &str| {
        let text = std::fs::read_to_string(folder.join(format!("{name}.sops.yaml"))).unwrap();
        sops::decrypt(&cf_runner::render::yaml::parse(&text).unwrap(), ids).unwrap()
    };
    let (runner, dind) = (open("runner"), open("codefresh-certs-server"));
    let s = |v: &Value, k: &str| {
        Some(cf_runner::values::Secret::new(
            v["stringData"][k].as_str().unwrap(),
        ))
    };
    let id = cf_runner::render::Identity {
        agent_token: s(&runner, "codefresh.token"),
        dind_ca: s(&dind, "ca.pem"),
        dind_cert: s(&dind, "server-cert.pem"),
        dind_key: s(&dind, "server-key.pem"),
        ..ftree::identity(c, Some(&reg))
    };
    let rendered =
        cf_runner::render::render(&rt.loaded.values, &id, &rt.loaded.redacted_tree).unwrap();
    let client = cp.client();
    let mut diffs = Vec::new();
    for m in &rendered.manifests {
        let api: Api<DynamicObject> =
            cf_runner::cluster::api_for(&client, &m.api_version, &m.kind, m.namespace.as_deref());
        let Some(live) = api.get_opt(&m.name).await.unwrap() else {
            diffs.push(format!("{} missing", m.display_name()));
            continue;
        };
        let live = serde_json::to_value(&live).unwrap();
        let mut d = Vec::new();
        same_fields(&m.object, &live, "", &mut d);
        diffs.extend(d.into_iter().map(|x| format!("{}{x}", m.display_name())));
    }
    assert!(
        diffs.is_empty(),
        "cluster {cluster} differs from what init renders: {diffs:#?}"
    );
    runner["stringData"]["codefresh.token"]
        .as_str()
        .unwrap()
        .to_string()
}

async fn runner_env(cp: &ControlPlane, ns: &str) -> Option<String> {
    let api = cf_runner::cluster::api_for(&cp.client(), "apps/v1", "Deployment", Some(ns));
    let d = api.get_opt("runner").await.ok()??;
    Some(
        d.data
            .pointer("/spec/template/spec/containers/0/env")
            .map(Value::to_string)
            .unwrap_or_default(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_fleet_of_three_clusters_is_reconciled_by_flux() {
    let bins = flux_bin();
    let cp = controlplane::shared();
    // alpha is the cluster Flux runs in; bravo and charlie are control
    // planes of their own, reached through kubeconfig Secrets.
    let (cp2, cp3) = tokio::join!(
        tokio::task::spawn_blocking(ControlPlane::start),
        tokio::task::spawn_blocking(ControlPlane::start)
    );
    let (cp2, cp3) = (
        cp2.unwrap().expect("bravo's control plane starts"),
        cp3.unwrap().expect("charlie's control plane starts"),
    );
    let planes: [(&str, &ControlPlane); 3] = [("alpha", cp), ("bravo", &cp2), ("charlie", &cp3)];
    let plane = |cluster: &str| planes.iter().find(|(c, _)| *c == cluster).unwrap().1;
    let fake = FakePlatform::start(USER_TOKEN);
    let work = tempfile::tempdir().unwrap();
    let home = work.path().join("home");
    std::fs::create_dir_all(&home).unwrap();

    // The age key: its public half in the fleet file, its secret half in
    // the Secret kustomize-controller decrypts with.
    let key = age::x25519::Identity::generate();
    let key_text = {
        use age::secrecy::ExposeSecret;
        key.to_string().expose_secret().to_string()
    };
    let recipient = key.to_public().to_string();
    std::fs::write(work.path().join("age.key"), format!("{key_text}\n")).unwrap();

    // The repository: a bare one served over HTTP, and a working copy.
    let repos = work.path().join("repos");
    std::fs::create_dir_all(&repos).unwrap();
    git(&repos, &["init", "--bare", "-b", "main", "fleet.git"]);
    let repo = work.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-b", "main"]);
    let port = git_server(repos.clone());

    let clusters = [
        ("alpha", ""),
        ("bravo", "    values:\n      Namespace: fleet-b\n"),
        ("charlie", "    values:\n      Namespace: fleet-c\n"),
    ];
    let fleet_path = work.path().join("fleet.yaml");
    std::fs::write(&fleet_path, fleet_file(&recipient, &fake.url(), &clusters)).unwrap();
    let tree = repo.join("fleet");
    let (fleet_arg, tree_arg) = (fleet_path.to_str().unwrap(), tree.to_str().unwrap());
    let platform = ["--token", USER_TOKEN, "--url", &fake.url()];

    // Register, export, commit.
    let reg = cli(
        &home,
        &[
            &[
                "fleet",
                "register",
                "--fleet",
                fleet_arg,
                "--output-dir",
                tree_arg,
            ][..],
            &platform[..],
        ]
        .concat(),
    );
    assert!(reg.status.success(), "{}", text(&reg));
    let registered_calls = fake.calls();
    let started = Instant::now();
    let exp = cli(
        &home,
        &[
            "fleet",
            "export",
            "--fleet",
            fleet_arg,
            "--output-dir",
            tree_arg,
        ],
    );
    let export_time = started.elapsed();
    assert!(exp.status.success(), "{}", text(&exp));
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "fleet of three"]);
    git(
        &repo,
        &[
            "push",
            "-q",
            repos.join("fleet.git").to_str().unwrap(),
            "main",
        ],
    );
    let rev1 = git(&repo, &["rev-parse", "HEAD"]).trim().to_string();

    // A re-export is byte for byte the same; a re-registration asks nothing.
    let again = cli(
        &home,
        &[
            "fleet",
            "export",
            "--fleet",
            fleet_arg,
            "--output-dir",
            tree_arg,
        ],
    );
    assert!(again.status.success(), "{}", text(&again));
    fake.clear_requests();
    let reg2 = cli(
        &home,
        &[
            &[
                "fleet",
                "register",
                "--fleet",
                fleet_arg,
                "--output-dir",
                tree_arg,
            ][..],
            &platform[..],
        ]
        .concat(),
    );
    assert!(reg2.status.success(), "{}", text(&reg2));
    assert!(
        fake.calls().is_empty(),
        "a re-run contacted the platform: {:?}",
        fake.calls()
    );
    assert_eq!(
        git(&repo, &["status", "--porcelain"]),
        "",
        "a re-run changed the tree"
    );

    // Each registration once: three agents, three runtimes, three certificates.
    let count = |needle: &str| {
        registered_calls
            .iter()
            .filter(|c| c.contains(needle))
            .count()
    };
    assert_eq!(count("POST /api/agents"), 3, "{registered_calls:#?}");
    assert_eq!(
        count("POST /api/custom_clusters/register"),
        3,
        "{registered_calls:#?}"
    );
    assert_eq!(fake.agents().len(), 3);
    assert_eq!(fake.runtimes().len(), 3);

    // The Argo CD flavour, against Argo CD's CRDs (Argo CD itself does not
    // run here): every Application passes a strict server-side dry-run, and
    // a misspelt field does not.
    let mut argo = String::new();
    for name in ["application-crd", "applicationset-crd", "appproject-crd"] {
        argo.push_str(
            &std::fs::read_to_string(argocd_crds().join(format!("{name}.yaml"))).unwrap(),
        );
        argo.push_str("\n---\n");
    }
    kubectl_apply(cp, &argo);
    kubectl_apply(
        cp,
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: argocd}\n",
    );
    cp.wait_established("applications.argoproj.io");
    let mut apps = String::new();
    for (name, _) in &clusters {
        apps.push_str(&std::fs::read_to_string(tree.join(format!("argocd/{name}.yaml"))).unwrap());
        apps.push_str("---\n");
    }
    let ok = cp.strict_dry_run(&apps);
    assert!(
        ok.status.success(),
        "Argo CD refuses the exported Applications: {}",
        text(&ok)
    );
    let bad = cp.strict_dry_run(&apps.replacen("selfHeal: true", "selfHeel: true", 1));
    assert!(
        !bad.status.success(),
        "the dry-run did not catch a misspelt field: {}",
        text(&bad)
    );

    // The ExternalSecret flavour, against external-secrets.io's CRD (the
    // operator does not run here): a fleet whose registered Secrets come
    // from a store. Its own platform and tree, outside the repository.
    {
        let fake_es = FakePlatform::start(USER_TOKEN);
        let es_fleet = work.path().join("fleet-es.yaml");
        std::fs::write(
            &es_fleet,
            format!("defaults:\n  CodefreshHost: {}\n  Namespace: fleet-es\n  Storage:\n    Backend: local\n  SkipClusterIntegration: true\n\
             externalSecrets:\n  secretStoreRef: {{kind: ClusterSecretStore, name: vault-backend}}\n  keyPrefix: codefresh/runners\n\
             clusters:\n  - name: delta\n", fake_es.url()),
        )
        .unwrap();
        let es_tree = work.path().join("es-tree");
        let material = work.path().join("es-material");
        let (f, t) = (es_fleet.to_str().unwrap(), es_tree.to_str().unwrap());
        let es_platform = ["--token", USER_TOKEN, "--url", &fake_es.url()];
        let register = |extra: &[&str]| {
            cli(
                &home,
                &[
                    &["fleet", "register", "--fleet", f, "--output-dir", t][..],
                    &es_platform[..],
                    extra,
                ]
                .concat(),
            )
        };
        // No folder for the material, or one inside the tree: refused
        // before the platform is asked anything.
        let no_dir = register(&[]);
        assert_eq!(no_dir.status.code(), Some(2), "{}", text(&no_dir));
        assert!(
            text(&no_dir).contains("--store-material-dir"),
            "{}",
            text(&no_dir)
        );
        let inside = es_tree.join("material");
        let in_tree = register(&["--store-material-dir", inside.to_str().unwrap()]);
        assert_eq!(in_tree.status.code(), Some(2), "{}", text(&in_tree));
        assert!(
            fake_es.agents().is_empty(),
            "a refused run registered an agent"
        );
        let reg = register(&["--store-material-dir", material.to_str().unwrap()]);
        assert!(reg.status.success(), "{}", text(&reg));
        let exp = cli(&home, &["fleet", "export", "--fleet", f, "--output-dir", t]);
        assert!(exp.status.success(), "{}", text(&exp));
        fake_es.clear_requests();
        let again = register(&["--store-material-dir", material.to_str().unwrap()]);
        assert!(again.status.success(), "{}", text(&again));
        assert!(
            fake_es.calls().is_empty(),
            "a re-run contacted the platform: {:?}",
            fake_es.calls()
        );

        // The material: a Secret per registered Secret, 0600, naming its
        // store key; its token is nowhere in the tree.
        let runner = material.join("delta/fleet-es/runner.yaml");
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&runner).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let runner_text = std::fs::read_to_string(&runner).unwrap();
        assert!(
            runner_text.contains("codefresh/runners/delta/fleet-es/runner"),
            "{runner_text}"
        );
        let material_yaml: Value = serde_yaml_ng::from_str(&runner_text).unwrap();
        let token = material_yaml["stringData"]["codefresh.token"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(!token.is_empty());
        let grep = Command::new("grep")
            .args(["-rlF", &token, t])
            .output()
            .unwrap();
        assert!(
            grep.stdout.is_empty(),
            "the agent token is in the tree: {}",
            String::from_utf8_lossy(&grep.stdout)
        );
        let flux = std::fs::read_to_string(es_tree.join("flux/delta.yaml")).unwrap();
        assert!(!flux.contains("decryption"), "{flux}");

        // The whole overlay, as kustomize builds it, passes a strict
        // server-side dry-run with the ExternalSecret CRD installed; a
        // misspelt field of an ExternalSecret does not.
        let mut crd = String::new();
        for entry in std::fs::read_dir(external_secrets_crds())
            .unwrap()
            .flatten()
        {
            crd.push_str(&std::fs::read_to_string(entry.path()).unwrap());
            crd.push_str("\n---\n");
        }
        kubectl_apply(cp, &crd);
        kubectl_apply(
            cp,
            "apiVersion: v1\nkind: Namespace\nmetadata: {name: fleet-es}\n",
        );
        cp.wait_established("externalsecrets.external-secrets.io");
        let built = cp
            .kubectl()
            .args([
                "kustomize",
                es_tree.join("clusters/delta").to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert!(
            built.status.success(),
            "kubectl kustomize: {}",
            text(&built)
        );
        let overlay = String::from_utf8(built.stdout).unwrap();
        assert_eq!(
            overlay.matches("kind: ExternalSecret\n").count(),
            2,
            "the overlay does not make the two registered Secrets from the store:\n{overlay}"
        );
        let plain_secrets: Vec<String> = overlay
            .split("\n---\n")
            .filter_map(|doc| serde_yaml_ng::from_str::<Value>(doc).ok())
            .filter(|o| o["kind"] == "Secret")
            .filter_map(|o| o["metadata"]["name"].as_str().map(str::to_string))
            .filter(|n| n == "runner" || n == "codefresh-certs-server")
            .collect();
        assert!(
            plain_secrets.is_empty(),
            "registered Secrets in the overlay: {plain_secrets:?}"
        );
        let ok = cp.strict_dry_run(&overlay);
        assert!(
            ok.status.success(),
            "the ExternalSecret overlay does not pass a server-side dry-run: {}",
            text(&ok)
        );
        let bad = cp.strict_dry_run(&overlay.replacen("remoteRef:", "remoteRefs:", 1));
        assert!(
            !bad.status.success() && text(&bad).contains("remoteRefs"),
            "the dry-run did not catch a misspelt ExternalSecret field: {}",
            text(&bad)
        );
    }

    // Flux: CRDs, the age key, a kubeconfig per cluster, the source, and
    // the root Kustomization that applies the per-cluster ones.
    let mut crds = String::new();
    let mut crd_files: Vec<_> = std::fs::read_dir(bins.join("crds"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    crd_files.sort();
    for f in crd_files {
        crds.push_str(&std::fs::read_to_string(f).unwrap());
        crds.push_str("\n---\n");
    }
    kubectl_apply(cp, &crds);
    let mut setup =
        String::from("apiVersion: v1\nkind: Namespace\nmetadata: {name: flux-system}\n---\n");
    setup.push_str(&format!(
        "apiVersion: v1\nkind: Secret\nmetadata: {{name: sops-age, namespace: flux-system}}\nstringData:\n  age.agekey: {key_text}\n---\n"
    ));
    for (name, _) in &clusters {
        let kc = serde_json::to_string(&inline_kubeconfig(plane(name), name)).unwrap();
        setup.push_str(&format!(
            "apiVersion: v1\nkind: Secret\nmetadata: {{name: kubeconfig-{name}, namespace: flux-system}}\nstringData:\n  value: {kc}\n---\n"
        ));
    }
    kubectl_apply(cp, &setup);
    for crd in [
        "gitrepositories.source.toolkit.fluxcd.io",
        "kustomizations.kustomize.toolkit.fluxcd.io",
    ] {
        cp.wait_established(crd);
    }

    let logs = work.path().join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let start = |name: &'static str, args: Vec<String>| -> Proc {
        let log = logs.join(format!("{name}.log"));
        let file = std::fs::File::create(&log).unwrap();
        let child = Command::new(bins.join(name))
            .args(&args)
            .env("KUBECONFIG", cp.admin_kubeconfig())
            .env("RUNTIME_NAMESPACE", "flux-system")
            .stdout(file.try_clone().unwrap())
            .stderr(file)
            .spawn()
            .unwrap();
        Proc(child, name, log)
    };
    let storage = free_port();
    std::fs::create_dir_all(work.path().join("storage")).unwrap();
    let source = start(
        "source-controller",
        vec![
            format!("--storage-path={}", work.path().join("storage").display()),
            format!("--storage-addr=127.0.0.1:{storage}"),
            format!("--storage-adv-addr=127.0.0.1:{storage}"),
            format!("--metrics-addr=127.0.0.1:{}", free_port()),
            format!("--health-addr=127.0.0.1:{}", free_port()),
        ],
    );
    let kustomize = start(
        "kustomize-controller",
        vec![
            format!("--metrics-addr=127.0.0.1:{}", free_port()),
            format!("--health-addr=127.0.0.1:{}", free_port()),
        ],
    );
    kubectl_apply(
        cp,
        &format!(
            "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {{name: flux-system, namespace: flux-system}}\n\
             spec:\n  interval: 5s\n  url: http://127.0.0.1:{port}/fleet.git\n  ref: {{branch: main}}\n---\n\
             apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: cf-runner-fleet, namespace: flux-system}}\n\
             spec:\n  interval: 10s\n  path: ./fleet/flux\n  prune: true\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n"
        ),
    );

    // 1. Every cluster reconciles, to what init renders for its values.
    let fleet =
        cf_runner::fleet::parse(&std::fs::read_to_string(&fleet_path).unwrap(), "fleet.yaml")
            .unwrap();
    let ids = vec![key.clone()];
    let procs = [&source, &kustomize];
    let mut ready_after = Vec::new();
    let t0 = Instant::now();
    for (name, _) in &clusters {
        wait_ready(cp, &format!("cf-runner-{name}"), &rev1, &procs).await;
        ready_after.push((name.to_string(), t0.elapsed()));
    }
    let mut tokens = Vec::new();
    for (name, _) in &clusters {
        tokens.push(compare_with_init(plane(name), &tree, &fleet, name, &ids).await);
    }

    // info and diff read each engine-applied runner as one of cf-runner's:
    // same labels, same record; unchanged, it diffs clean. Run from a
    // kubeconfig whose context is named as the fleet's cluster (the name
    // the agent and the record carry).
    for (name, ns) in [
        ("alpha", "fleet-a"),
        ("bravo", "fleet-b"),
        ("charlie", "fleet-c"),
    ] {
        let kubeconfig = work.path().join(format!("kubeconfig-{name}"));
        std::fs::write(&kubeconfig, inline_kubeconfig(plane(name), name)).unwrap();
        let info = support::cli::isolated(&kubeconfig, &home)
            .args(["info", "--kube-namespace", ns, "-o", "json"])
            .output()
            .unwrap();
        assert!(info.status.success(), "info on {name}: {}", text(&info));
        let report: Value = serde_json::from_slice(&info.stdout).unwrap();
        let inst = &report["installations"][0];
        assert_eq!(
            (
                &inst["agentName"],
                &inst["runtimeName"],
                &inst["registered"],
                &inst["healthy"]
            ),
            (
                &Value::from(format!("{name}_{ns}")),
                &Value::from(format!("{name}/{ns}")),
                &Value::Bool(true),
                &Value::Bool(true)
            ),
            "info on {name} does not show the fleet's record, healthy: {inst:#}"
        );
        let diff_out = support::cli::isolated(&kubeconfig, &home)
            .args(["diff", "--kube-namespace", ns])
            .output()
            .unwrap();
        let said = text(&diff_out);
        assert_eq!(
            diff_out.status.code(),
            Some(0),
            "diff of {name}'s Flux-applied runner, unchanged, is not clean: {said}"
        );
        assert!(said.contains("0 to change"), "{said}");
    }

    // 2. No token in the Git history, in any form kubectl would show.
    let history = git(&repo, &["log", "-p", "--all"]);
    for t in &tokens {
        assert!(!t.is_empty());
        let b64 = base64::engine::general_purpose::STANDARD.encode(t);
        assert!(
            !history.contains(t.as_str()) && !history.contains(&b64),
            "an agent token is in the Git history in clear"
        );
    }
    assert!(
        !history.contains("BEGIN RSA PRIVATE KEY") && !history.contains("BEGIN PRIVATE KEY"),
        "a dind key is in Git in clear"
    );

    // 3. A change to one cluster reaches that cluster only.
    let before: Vec<Option<String>> =
        futures::future::join_all(planes.map(|(c, cp)| runner_env(cp, namespace_of(c)))).await;
    let changed = [("alpha", ""), ("bravo", "    values:\n      Namespace: fleet-b\n      EnvVars:\n        HTTP_PROXY: http://proxy.bravo:3128\n"), ("charlie", "    values:\n      Namespace: fleet-c\n")];
    std::fs::write(&fleet_path, fleet_file(&recipient, &fake.url(), &changed)).unwrap();
    fake.clear_requests();
    let reg3 = cli(
        &home,
        &[
            &[
                "fleet",
                "register",
                "--fleet",
                fleet_arg,
                "--output-dir",
                tree_arg,
            ][..],
            &platform[..],
        ]
        .concat(),
    );
    assert!(reg3.status.success(), "{}", text(&reg3));
    assert!(
        !fake.calls().iter().any(|c| c.contains("POST /api/agents")),
        "a changed setting made a new agent: {:?}",
        fake.calls()
    );
    let exp = cli(
        &home,
        &[
            "fleet",
            "export",
            "--fleet",
            fleet_arg,
            "--output-dir",
            tree_arg,
        ],
    );
    assert!(exp.status.success(), "{}", text(&exp));
    let diff = git(&repo, &["diff", "--name-only"]);
    assert!(!diff.trim().is_empty(), "the change did not reach the tree");
    assert!(
        diff.lines().all(
            |l| l.starts_with("fleet/clusters/bravo/") || l.starts_with("fleet/secrets/bravo/")
        ),
        "a change to bravo touched other clusters' files:\n{diff}"
    );
    eprintln!(
        "the change to bravo, as a reviewer sees it:\n{}",
        git(&repo, &["diff", "--stat"])
    );
    git(&repo, &["commit", "-qam", "bravo behind a proxy"]);
    git(
        &repo,
        &[
            "push",
            "-q",
            repos.join("fleet.git").to_str().unwrap(),
            "main",
        ],
    );
    let rev2 = git(&repo, &["rev-parse", "HEAD"]).trim().to_string();
    let t1 = Instant::now();
    wait_ready(cp, "cf-runner-bravo", &rev2, &procs).await;
    let change_time = t1.elapsed();
    let after: Vec<Option<String>> =
        futures::future::join_all(planes.map(|(c, cp)| runner_env(cp, namespace_of(c)))).await;
    assert_eq!(before[0], after[0], "alpha changed");
    assert_eq!(before[2], after[2], "charlie changed");
    assert!(
        after[1].as_deref().unwrap_or("").contains("proxy.bravo"),
        "bravo did not get the change: {:?}",
        after[1]
    );
    let fleet =
        cf_runner::fleet::parse(&std::fs::read_to_string(&fleet_path).unwrap(), "fleet.yaml")
            .unwrap();
    compare_with_init(&cp2, &tree, &fleet, "bravo", &ids).await;

    // 4. A cluster removed from the fleet file is pruned, then retired.
    std::fs::write(
        &fleet_path,
        fleet_file(&recipient, &fake.url(), &changed[..2]),
    )
    .unwrap();
    let exp = cli(
        &home,
        &[
            "fleet",
            "export",
            "--fleet",
            fleet_arg,
            "--output-dir",
            tree_arg,
        ],
    );
    assert!(exp.status.success(), "{}", text(&exp));
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "charlie leaves"]);
    git(
        &repo,
        &[
            "push",
            "-q",
            repos.join("fleet.git").to_str().unwrap(),
            "main",
        ],
    );
    let deployments = |cluster: &'static str| async move {
        let ns = namespace_of(cluster);
        let api = cf_runner::cluster::api_for(
            &plane(cluster).client(),
            "apps/v1",
            "Deployment",
            Some(ns),
        );
        api.list(&ListParams::default())
            .await
            .map(|l| l.items.len())
            .unwrap_or(0)
    };
    let t2 = Instant::now();
    poll_until(
        "charlie's runner pruned by Flux",
        Duration::from_secs(120),
        || async { Ok(deployments("charlie").await == 0) },
    )
    .await
    .unwrap_or_else(|e| panic!("{e:#}\n{}", kustomize.log_tail()));
    let prune_time = t2.elapsed();
    assert!(
        deployments("alpha").await > 0 && deployments("bravo").await > 0,
        "the other clusters lost their runners"
    );
    fake.clear_requests();
    let retire = cli(
        &home,
        &[
            &[
                "fleet",
                "retire",
                "--fleet",
                fleet_arg,
                "--output-dir",
                tree_arg,
            ][..],
            &platform[..],
        ]
        .concat(),
    );
    assert!(retire.status.success(), "{}", text(&retire));
    assert_eq!(
        fake.agents().len(),
        2,
        "charlie's agent is still on the platform"
    );
    assert_eq!(fake.runtimes().len(), 2);
    assert!(!tree.join("secrets/charlie").exists());

    for (name, p) in &planes {
        let rss = plane_rss_mib(p);
        eprintln!(
            "control plane of {name}: peak RSS {} MiB in all {rss:?}",
            rss.values().sum::<u64>()
        );
    }
    eprintln!(
        "fleet e2e: 3 clusters reconciled; ready after first commit: {ready_after:?}; export {export_time:?}; \
         change to bravo ready in {change_time:?}; charlie pruned in {prune_time:?}; \
         memory (peak RSS): source-controller {} MiB, kustomize-controller {} MiB",
        source.rss_mib(),
        kustomize.rss_mib()
    );
}
