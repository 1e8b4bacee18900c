//! The real Codefresh Runner agent (venona 2.0.10, built from
//! `../shared/reference/venona-2.0.10` by `tests/venona/build.sh`), run as a
//! process on exactly what cf-runner installed, as the test oracle of the
//! install: if the agent cannot poll the platform or create a build's pods
//! with what the runner Deployment gives it, the install is wrong.
//!
//! [`Agent::start`] plays the kubelet for one pod of the runner Deployment:
//! - the container's `env`/`envFrom`, with `secretKeyRef`/`configMapKeyRef`
//!   read from the cluster and `fieldRef` from the Deployment's own pod;
//! - every Secret, ConfigMap, projected and emptyDir volume the container
//!   mounts, written into a temp folder in the kubelet's layout (each key a
//!   symlink into `..data`, itself a symlink to a timestamped folder); an env
//!   value that names a mount path (`VENONA_CONFIG_DIR=/etc/...`) is
//!   rewritten to the folder that holds that mount, the only rewrite;
//! - the pod's service-account identity: a token from the TokenRequest API
//!   for the Deployment's `serviceAccountName`, bound to its (kwok) pod, the
//!   control plane's CA and namespace, at
//!   `/var/run/secrets/kubernetes.io/serviceaccount/` **for the agent
//!   process only**: it runs under `unshare --mount` in a private mount
//!   namespace, where a tmpfs hides the host's `/run` and a read-only bind
//!   mount puts the temp folder at that path. Nothing is written on the
//!   host's own `/run`. `KUBERNETES_SERVICE_HOST`/`PORT` name the API server.
//!   `automountServiceAccountToken: false` (pod, or else service account)
//!   leaves that folder empty, as in the pod.
//!
//! Two things differ from a pod, both because the agent shares the host's
//! network: `PORT` (the agent's health/metrics server, 8080 in a pod) is a
//! free port, and the agent reaches the API server at 127.0.0.1 rather than
//! a Service IP. `CODEFRESH_HOST` is the Deployment's own value: install
//! with the fake platform's `--url` so that it points there.
//!
//! The agent is killed (its whole process group) when the [`Agent`] is
//! dropped, and cannot outlive the test process (parent-death signal).
//! Its log: [`Agent::log`]. Requires root (the mount namespace).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::OnceLock;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::authentication::v1::{BoundObjectReference, TokenRequest, TokenRequestSpec};
use k8s_openapi::api::core::v1::{ConfigMap, Container, Pod, Secret, ServiceAccount, Volume};
use kube::api::{Api, ListParams, PostParams};
use kube::Client;
use serde_json::Value;

use super::controlplane::{self, poll_until, ControlPlane};

/// Names a prebuilt `venona` binary (the file itself); skips `build.sh`.
pub const BIN_ENV: &str = "CF_RUNNER_VENONA_BIN";
/// Where a pod finds its service account's token, CA and namespace.
pub const SERVICE_ACCOUNT_DIR: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

const POD_TIMEOUT: Duration = Duration::from_secs(90);
const READY_TIMEOUT: Duration = Duration::from_secs(60);

/// The `venona` binary: `$CF_RUNNER_VENONA_BIN`, or the one
/// `tests/venona/build.sh` builds (or reuses from its cache). Panics with
/// the reason when neither works: there is no skip.
pub fn venona() -> PathBuf {
    static BIN: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BIN.get_or_init(find_venona)
        .clone()
        .unwrap_or_else(|e| panic!("the real agent (venona) is needed and is not available: {e}"))
}

fn find_venona() -> Result<PathBuf, String> {
    let bin = match std::env::var_os(BIN_ENV) {
        Some(bin) if !bin.is_empty() => PathBuf::from(bin),
        _ => super::tool::build("venona", BIN_ENV, "a few minutes")?,
    };
    if !bin.is_file() {
        return Err(format!(
            "{} does not exist (build it with `bash tests/venona/build.sh`)",
            bin.display()
        ));
    }
    Ok(bin)
}

/// The real agent, running as a process on what a runner Deployment gives
/// its pod; see the module docs. Killed when dropped.
pub struct Agent {
    child: Option<Child>,
    dir: tempfile::TempDir,
    log: PathBuf,
    port: u16,
    namespace: String,
    service_account: String,
    pod: String,
    env: BTreeMap<String, String>,
    mounts: BTreeMap<String, PathBuf>,
}

impl Agent {
    /// Starts the agent on the Deployment `deployment` of `namespace` in
    /// `cp` (its first container, or the one named `runner`), once the
    /// Deployment has a pod (kwok runs it), and waits until the agent's
    /// health endpoint answers. Fails with the agent's log if it exits.
    pub async fn start(cp: &ControlPlane, namespace: &str, deployment: &str) -> Result<Agent> {
        controlplane::ensure_crypto_provider();
        let client = cp.client();
        let deploy: Deployment = Api::namespaced(client.clone(), namespace)
            .get(deployment)
            .await
            .with_context(|| format!("reading Deployment {namespace}/{deployment}"))?;
        let spec = deploy.spec.clone().unwrap_or_default();
        let pod_spec = spec.template.spec.clone().unwrap_or_default();
        let container = pod_spec
            .containers
            .iter()
            .find(|c| c.name == "runner")
            .or_else(|| pod_spec.containers.first())
            .cloned()
            .ok_or_else(|| anyhow!("Deployment {namespace}/{deployment} has no container"))?;
        let service_account = pod_spec
            .service_account_name
            .clone()
            .unwrap_or_else(|| "default".to_string());
        let pod = deployment_pod(&client, namespace, &deploy).await?;
        let pod_name = pod.metadata.name.clone().unwrap_or_default();

        let dir = tempfile::Builder::new()
            .prefix("cf-runner-agent-")
            .tempdir()
            .context("creating the agent's temp dir")?;
        if dir.path().starts_with("/run") || dir.path().starts_with("/var/run") {
            bail!(
                "the agent's temp dir {} is under /run, which the agent's mount namespace hides; set TMPDIR elsewhere",
                dir.path().display()
            );
        }

        // The service account's identity, as the kubelet projects it,
        // unless the pod (or else its service account) turns that off: then
        // the folder stays empty, as the path would be in the pod.
        let sa_dir = dir.path().join("serviceaccount");
        fs::create_dir(&sa_dir)?;
        let automount = match pod_spec.automount_service_account_token {
            Some(on) => on,
            None => Api::<ServiceAccount>::namespaced(client.clone(), namespace)
                .get_opt(&service_account)
                .await?
                .and_then(|sa| sa.automount_service_account_token)
                .unwrap_or(true),
        };
        if automount {
            let token = pod_token(&client, namespace, &service_account, &pod).await?;
            write_private(&sa_dir.join("token"), token.as_bytes())?;
            fs::copy(cp.ca_file(), sa_dir.join("ca.crt")).context("copying the CA")?;
            fs::write(sa_dir.join("namespace"), namespace)?;
        }

        let mounts = materialise_volumes(
            &client,
            namespace,
            &container,
            pod_spec.volumes.as_deref().unwrap_or_default(),
            &dir.path().join("volumes"),
        )
        .await?;
        let env = container_env(&client, namespace, &container, &pod, &mounts).await?;

        let port = free_port()?;
        let api = url::Url::parse(cp.server()).context("parsing the API server's URL")?;
        let log = dir.path().join("agent.log");
        let mut cmd = Command::new("unshare");
        cmd.args(["--mount", "--propagation", "private", "--", "/bin/sh", "-c"])
            .arg(SANDBOX_SCRIPT)
            .arg("cf-runner-agent")
            .arg(&sa_dir)
            .arg(venona())
            .arg("start")
            .args(container.args.clone().unwrap_or_default())
            .env_clear()
            // For the sandbox script's mount and mkdir; the agent ignores it.
            .env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
            .envs(&env)
            .env("PORT", port.to_string())
            .env(
                "KUBERNETES_SERVICE_HOST",
                api.host_str().unwrap_or("127.0.0.1"),
            )
            .env(
                "KUBERNETES_SERVICE_PORT",
                api.port_or_known_default().unwrap_or(443).to_string(),
            )
            .current_dir(dir.path());
        let child = controlplane::spawn_process(cmd, &log).context("starting the agent")?;
        let mut agent = Agent {
            child: Some(child),
            dir,
            log,
            port,
            namespace: namespace.to_string(),
            service_account,
            pod: pod_name,
            env,
            mounts,
        };
        agent.wait_healthy().await?;
        Ok(agent)
    }

    async fn wait_healthy(&mut self) -> Result<()> {
        let url = format!("http://127.0.0.1:{}/health", self.port);
        let http = reqwest_client();
        let result = poll_until("the agent's /health to answer 200", READY_TIMEOUT, || {
            let exited = self.exited();
            let http = http.clone();
            let url = url.clone();
            async move {
                if let Some(status) = exited {
                    return Err(controlplane::Fatal(format!("the agent exited ({status})")).into());
                }
                Ok(http
                    .get(&url)
                    .send()
                    .await
                    .is_ok_and(|r| r.status().is_success()))
            }
        })
        .await;
        result.map_err(|e| anyhow!("{e:#}\n--- agent log:\n{}", self.log()))
    }

    /// The agent's exit status, if it has exited.
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child
            .as_mut()
            .and_then(|c| c.try_wait().ok().flatten())
    }

    /// Everything the agent wrote to stdout and stderr so far.
    pub fn log(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Waits until the agent's log contains `needle`; on timeout, the error
    /// holds the log.
    pub async fn wait_for_log(&mut self, needle: &str, timeout: Duration) -> Result<()> {
        let log = self.log.clone();
        poll_until(&format!("the agent to log {needle:?}"), timeout, || {
            let text = fs::read_to_string(&log).unwrap_or_default();
            async move { Ok(text.contains(needle)) }
        })
        .await
        .map_err(|e| anyhow!("{e:#}\n--- agent log:\n{}", self.log()))
    }

    /// The user the API server sees the agent as:
    /// `system:serviceaccount:<namespace>:<serviceAccountName>`.
    pub fn username(&self) -> String {
        format!(
            "system:serviceaccount:{}:{}",
            self.namespace, self.service_account
        )
    }

    /// The pod of the Deployment whose identity the agent has.
    pub fn pod(&self) -> &str {
        &self.pod
    }

    /// The agent's environment as resolved from the Deployment (secret
    /// values included: never print it whole), before the harness's `PORT`
    /// and `KUBERNETES_SERVICE_*`.
    pub fn env(&self, name: &str) -> Option<&str> {
        self.env.get(name).map(String::as_str)
    }

    /// The folder that holds the container's mount at `mount_path`.
    pub fn mount(&self, mount_path: &str) -> Option<&Path> {
        self.mounts.get(mount_path).map(PathBuf::as_path)
    }

    /// The harness's temp folder (service account files, volumes, log).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Kills the agent (its process group). Idempotent; `Drop` calls it.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            if child.try_wait().ok().flatten().is_none() {
                // SAFETY: plain syscall; the child leads its own process
                // group and has not been reaped, so the id still names it.
                unsafe { libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL) };
            }
            let _ = child.wait();
        }
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Runs in the agent's private mount namespace: `$0` is a label, `$1` the
/// folder with token/ca.crt/namespace, then the agent's command. A tmpfs
/// over the real `/run` (`/var/run` is usually a link to it) makes room for
/// the service-account path without touching the host's; the folder is
/// bind-mounted there read-only.
const SANDBOX_SCRIPT: &str = r#"set -eu
sa="$1"; shift
run="$(readlink -f /var/run)"
mount -t tmpfs -o mode=0755 cf-runner-agent "$run"
mkdir -p "$run/secrets/kubernetes.io/serviceaccount"
mount --bind "$sa" "$run/secrets/kubernetes.io/serviceaccount"
mount -o remount,bind,ro "$run/secrets/kubernetes.io/serviceaccount"
exec "$@"
"#;

fn reqwest_client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(2))
        .build()
        .expect("an HTTP client")
}

fn free_port() -> Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

fn write_private(path: &Path, data: &[u8]) -> Result<()> {
    fs::write(path, data).with_context(|| format!("writing {}", path.display()))?;
    fs::set_permissions(path, fs::Permissions::from_mode(0o600))?;
    Ok(())
}

/// A running pod of `deploy` (kwok runs them), waited for.
async fn deployment_pod(client: &Client, namespace: &str, deploy: &Deployment) -> Result<Pod> {
    let labels = deploy
        .spec
        .as_ref()
        .and_then(|s| s.selector.match_labels.clone())
        .unwrap_or_default();
    let selector = labels
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",");
    let pods: Api<Pod> = Api::namespaced(client.clone(), namespace);
    let found = std::sync::Mutex::new(None);
    poll_until(
        &format!("a Running pod of the Deployment ({selector}) in {namespace}"),
        POD_TIMEOUT,
        || async {
            let list = pods.list(&ListParams::default().labels(&selector)).await?;
            let running = list.items.into_iter().find(|p| {
                p.metadata.deletion_timestamp.is_none()
                    && p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running")
            });
            let ok = running.is_some();
            *found.lock().unwrap() = running;
            Ok(ok)
        },
    )
    .await?;
    Ok(found.into_inner().unwrap().expect("found above"))
}

/// A token for `service_account`, bound to `pod`, as the kubelet gets one.
async fn pod_token(
    client: &Client,
    namespace: &str,
    service_account: &str,
    pod: &Pod,
) -> Result<String> {
    let request = TokenRequest {
        spec: Some(TokenRequestSpec {
            audiences: None,
            expiration_seconds: Some(3600),
            bound_object_ref: Some(BoundObjectReference {
                api_version: Some("v1".into()),
                kind: Some("Pod".into()),
                name: pod.metadata.name.clone(),
                uid: pod.metadata.uid.clone(),
            }),
        }),
        ..Default::default()
    };
    let answer = Api::<ServiceAccount>::namespaced(client.clone(), namespace)
        .create_token_request(service_account, &PostParams::default(), &request)
        .await
        .with_context(|| {
            format!("TokenRequest for ServiceAccount {namespace}/{service_account}")
        })?;
    answer
        .status
        .and_then(|s| s.token)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| anyhow!("the TokenRequest answer holds no token"))
}

/// The files of one Secret, ConfigMap or projected volume: path → bytes.
type Files = BTreeMap<String, Vec<u8>>;

/// Writes each mounted volume of `container` under `root/<volume>` in the
/// kubelet's layout, and returns mount path → local path.
async fn materialise_volumes(
    client: &Client,
    namespace: &str,
    container: &Container,
    volumes: &[Volume],
    root: &Path,
) -> Result<BTreeMap<String, PathBuf>> {
    let mut mounts = BTreeMap::new();
    for mount in container.volume_mounts.clone().unwrap_or_default() {
        let Some(volume) = volumes.iter().find(|v| v.name == mount.name) else {
            bail!("volumeMount {} names no volume of the pod", mount.name);
        };
        let dir = root.join(&volume.name);
        if !dir.exists() {
            let files = volume_files(client, namespace, volume).await?;
            match files {
                Some(files) => write_atomic_layout(&dir, &files)?,
                // emptyDir and the like: an empty folder.
                None => fs::create_dir_all(&dir)?,
            }
        }
        let local = match mount.sub_path.as_deref() {
            Some(sub) if !sub.is_empty() => dir.join(sub),
            _ => dir,
        };
        mounts.insert(mount.mount_path.clone(), local);
    }
    Ok(mounts)
}

async fn volume_files(client: &Client, namespace: &str, volume: &Volume) -> Result<Option<Files>> {
    if let Some(s) = &volume.secret {
        let name = s.secret_name.clone().unwrap_or_default();
        let items = s.items.clone().unwrap_or_default();
        let data = secret_data(client, namespace, &name, s.optional.unwrap_or(false)).await?;
        return Ok(Some(pick(
            data,
            items.iter().map(|i| (i.key.clone(), i.path.clone())),
        )));
    }
    if let Some(c) = &volume.config_map {
        let items = c.items.clone().unwrap_or_default();
        let data = config_map_data(client, namespace, &c.name, c.optional.unwrap_or(false)).await?;
        return Ok(Some(pick(
            data,
            items.iter().map(|i| (i.key.clone(), i.path.clone())),
        )));
    }
    if let Some(p) = &volume.projected {
        let mut files = Files::new();
        for source in p.sources.clone().unwrap_or_default() {
            if let Some(s) = source.secret {
                let data =
                    secret_data(client, namespace, &s.name, s.optional.unwrap_or(false)).await?;
                let items = s.items.unwrap_or_default();
                files.extend(pick(data, items.into_iter().map(|i| (i.key, i.path))));
            } else if let Some(c) = source.config_map {
                let data = config_map_data(client, namespace, &c.name, c.optional.unwrap_or(false))
                    .await?;
                let items = c.items.unwrap_or_default();
                files.extend(pick(data, items.into_iter().map(|i| (i.key, i.path))));
            } else {
                bail!(
                    "projected volume {}: only secret and configMap sources are materialised",
                    volume.name
                );
            }
        }
        return Ok(Some(files));
    }
    if volume.empty_dir.is_some() {
        return Ok(None);
    }
    bail!(
        "volume {} is neither a Secret, a ConfigMap, projected nor emptyDir: the harness cannot give it to the agent",
        volume.name
    )
}

/// `data` as files: every key, or only `items` (key → path) when given.
fn pick(data: Files, items: impl Iterator<Item = (String, String)>) -> Files {
    let items: Vec<(String, String)> = items.collect();
    if items.is_empty() {
        return data;
    }
    items
        .into_iter()
        .filter_map(|(key, path)| data.get(&key).map(|v| (path, v.clone())))
        .collect()
}

async fn secret_data(
    client: &Client,
    namespace: &str,
    name: &str,
    optional: bool,
) -> Result<Files> {
    let secret = Api::<Secret>::namespaced(client.clone(), namespace)
        .get_opt(name)
        .await
        .with_context(|| format!("reading Secret {namespace}/{name}"))?;
    match secret {
        Some(s) => {
            let mut files: Files = s
                .data
                .unwrap_or_default()
                .into_iter()
                .map(|(k, v)| (k, v.0))
                .collect();
            for (k, v) in s.string_data.unwrap_or_default() {
                files.insert(k, v.into_bytes());
            }
            Ok(files)
        }
        None if optional => Ok(Files::new()),
        None => bail!("Secret {namespace}/{name}, which the Deployment uses, does not exist"),
    }
}

async fn config_map_data(
    client: &Client,
    namespace: &str,
    name: &str,
    optional: bool,
) -> Result<Files> {
    let cm = Api::<ConfigMap>::namespaced(client.clone(), namespace)
        .get_opt(name)
        .await
        .with_context(|| format!("reading ConfigMap {namespace}/{name}"))?;
    match cm {
        Some(cm) => {
            let mut files: Files = cm
                .data
                .unwrap_or_default()
                .into_iter()
                .map(|(k, v)| (k, v.into_bytes()))
                .collect();
            for (k, v) in cm.binary_data.unwrap_or_default() {
                files.insert(k, v.0);
            }
            Ok(files)
        }
        None if optional => Ok(Files::new()),
        None => bail!("ConfigMap {namespace}/{name}, which the Deployment uses, does not exist"),
    }
}

/// The kubelet's atomic-writer layout: the files in `..<stamp>/`, a
/// `..data` link to it, and each top-level name a link into `..data`.
fn write_atomic_layout(dir: &Path, files: &Files) -> Result<()> {
    let stamp = "..2026_01_01_00_00_00.000000001";
    let real = dir.join(stamp);
    fs::create_dir_all(&real)?;
    let mut top = std::collections::BTreeSet::new();
    for (path, data) in files {
        let file = real.join(path);
        if let Some(parent) = file.parent() {
            fs::create_dir_all(parent)?;
        }
        write_private(&file, data)?;
        top.insert(path.split('/').next().unwrap_or(path).to_string());
    }
    symlink(stamp, dir.join("..data"))?;
    for name in top {
        symlink(Path::new("..data").join(&name), dir.join(&name))?;
    }
    Ok(())
}

/// The container's environment as the kubelet resolves it: `envFrom`, then
/// `env` (later wins), with references resolved; values naming a mount
/// path rewritten to the local folder that holds that mount.
async fn container_env(
    client: &Client,
    namespace: &str,
    container: &Container,
    pod: &Pod,
    mounts: &BTreeMap<String, PathBuf>,
) -> Result<BTreeMap<String, String>> {
    let mut env = BTreeMap::new();
    let text = |v: Vec<u8>| String::from_utf8_lossy(&v).into_owned();
    for from in container.env_from.clone().unwrap_or_default() {
        let prefix = from.prefix.unwrap_or_default();
        let data = if let Some(s) = from.secret_ref {
            secret_data(client, namespace, &s.name, s.optional.unwrap_or(false)).await?
        } else if let Some(c) = from.config_map_ref {
            config_map_data(client, namespace, &c.name, c.optional.unwrap_or(false)).await?
        } else {
            Files::new()
        };
        for (k, v) in data {
            env.insert(format!("{prefix}{k}"), text(v));
        }
    }
    let pod_json = serde_json::to_value(pod)?;
    for var in container.env.clone().unwrap_or_default() {
        let value = match (&var.value, &var.value_from) {
            (_, Some(from)) => {
                if let Some(s) = &from.secret_key_ref {
                    let data = secret_data(client, namespace, &s.name, s.optional.unwrap_or(false))
                        .await?;
                    match data.get(&s.key) {
                        Some(v) => text(v.clone()),
                        None if s.optional.unwrap_or(false) => continue,
                        None => bail!(
                            "env {}: Secret {namespace}/{} has no key {}",
                            var.name,
                            s.name,
                            s.key
                        ),
                    }
                } else if let Some(c) = &from.config_map_key_ref {
                    let data =
                        config_map_data(client, namespace, &c.name, c.optional.unwrap_or(false))
                            .await?;
                    match data.get(&c.key) {
                        Some(v) => text(v.clone()),
                        None if c.optional.unwrap_or(false) => continue,
                        None => bail!(
                            "env {}: ConfigMap {namespace}/{} has no key {}",
                            var.name,
                            c.name,
                            c.key
                        ),
                    }
                } else if let Some(f) = &from.field_ref {
                    field_value(&pod_json, &f.field_path).ok_or_else(|| {
                        anyhow!(
                            "env {}: fieldRef {} is not supported",
                            var.name,
                            f.field_path
                        )
                    })?
                } else {
                    bail!(
                        "env {}: resourceFieldRef and the like are not supported",
                        var.name
                    )
                }
            }
            (Some(v), None) => v.clone(),
            (None, None) => String::new(),
        };
        env.insert(var.name.clone(), value);
    }
    for value in env.values_mut() {
        if let Some(local) = local_path(value, mounts) {
            *value = local;
        }
    }
    Ok(env)
}

/// A pod field by its downward-API path (`metadata.name`, `spec.nodeName`, ...).
fn field_value(pod: &Value, path: &str) -> Option<String> {
    if let Some(key) = path
        .strip_prefix("metadata.labels['")
        .or_else(|| path.strip_prefix("metadata.annotations['"))
    {
        let key = key.strip_suffix("']")?;
        let field = if path.starts_with("metadata.labels") {
            "labels"
        } else {
            "annotations"
        };
        return Some(
            pod["metadata"][field][key]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        );
    }
    let mut at = pod;
    for part in path.split('.') {
        at = at.get(part)?;
    }
    Some(at.as_str().map_or_else(|| at.to_string(), str::to_string))
}

/// `value` with a leading mount path replaced by its local folder.
fn local_path(value: &str, mounts: &BTreeMap<String, PathBuf>) -> Option<String> {
    mounts.iter().find_map(|(mount, local)| {
        let mount = mount.trim_end_matches('/');
        let rest = value.strip_prefix(mount)?;
        (rest.is_empty() || rest.starts_with('/')).then(|| format!("{}{rest}", local.display()))
    })
}

/// The audit events of requests made by `user` (stage ResponseComplete),
/// oldest first.
pub fn requests_by(cp: &ControlPlane, user: &str) -> Vec<Value> {
    cp.audit_events()
        .expect("reading the audit log")
        .into_iter()
        .filter(|e| e["user"]["username"] == user && e["stage"] == "ResponseComplete")
        .collect()
}

/// One line per audit event: `verb uri -> code`.
pub fn describe(events: &[Value]) -> String {
    events
        .iter()
        .map(|e| {
            format!(
                "{} {} -> {}",
                e["verb"].as_str().unwrap_or_default(),
                e["requestURI"].as_str().unwrap_or_default(),
                e["responseStatus"]["code"]
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}
