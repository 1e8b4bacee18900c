//! A real Kubernetes control plane for the end-to-end tests.
//!
//! [`ControlPlane::start`] runs etcd, kube-apiserver, kube-controller-manager,
//! kube-scheduler and kwok as plain processes on 127.0.0.1, in a fresh temp
//! dir with its own certificates, ports, static tokens and audit log. kwok
//! simulates the nodes in [`FAKE_NODES`], so Deployments really roll out
//! (pods are scheduled and reported Ready) without a container runtime.
//!
//! Sharing: [`shared`] starts one control plane per test binary (the first
//! test that asks for it pays the start-up, ~5 s warm) and every test of that
//! binary reuses it; give each test its own namespace with
//! [`ControlPlane::create_namespace`]. Tests that break the control plane on
//! purpose (stopping the API server, …) should [`ControlPlane::start`] a
//! private one instead, which is torn down when dropped.
//!
//! Teardown: dropping a [`ControlPlane`] (also while a test panics) kills the
//! process group of every component and deletes the temp dir. The shared one
//! lives in a `static`, which Rust never drops: it is torn down by an `atexit`
//! hook when the test binary exits. Every component is also started with
//! `PR_SET_PDEATHSIG=SIGKILL` from a thread that lives as long as the test
//! process, so a test run that is killed or aborted leaves no process behind.
//!
//! Binaries: taken from the directory in `CF_RUNNER_CP_BIN`, or else built (or
//! reused from the cache) by `tests/controlplane/build.sh`. If they are missing
//! and cannot be built the tests fail. `CF_RUNNER_SKIP_E2E=1` (refused under
//! CI: any non-empty `CI`) builds them as ignored tests instead (see [`skip_e2e`]). `CF_RUNNER_CP_KEEP=1` keeps the temp dir (logs, audit log,
//! kubeconfigs) for a post-mortem; its path is printed at start-up.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs::{self, File};
use std::future::Future;
use std::io::{self, Read, Write};
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{mpsc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use k8s_openapi::api::core::v1::{Namespace, Node, ServiceAccount};
use kube::api::{Api, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};

/// Set to `1` to skip the end-to-end tests (they fail otherwise when the
/// control plane cannot be had).
pub const SKIP_ENV: &str = "CF_RUNNER_SKIP_E2E";
/// A directory holding prebuilt binaries; skips `build.sh`.
pub const BIN_ENV: &str = "CF_RUNNER_CP_BIN";
/// Set to `1` to keep the control plane's temp dir after teardown.
pub const KEEP_ENV: &str = "CF_RUNNER_CP_KEEP";

/// Binaries the control plane needs (kubectl is for tests and benchmarks).
pub const BINARIES: [&str; 6] = [
    "etcd",
    "kube-apiserver",
    "kube-controller-manager",
    "kube-scheduler",
    "kwok",
    "kubectl",
];

/// Static-token user in `system:masters`.
pub const ADMIN_USER: &str = "admin";
/// User of the client certificate [`ControlPlane::admin_client_cert`]
/// (in `system:masters`).
pub const ADMIN_CERT_USER: &str = "admin-cert";
/// Static-token user with no RBAC bindings at all, for negative tests.
pub const LIMITED_USER: &str = "limited";
/// Nodes simulated by kwok: 4 CPU, 16Gi, 250 pods each (the e2e binary leaves many installs running), amd64/linux.
pub const FAKE_NODES: [&str; 2] = ["kwok-node-0", "kwok-node-1"];
/// `topology.kubernetes.io/zone` of every fake node.
pub const NODE_ZONE: &str = "us-east-1a";
/// `topology.kubernetes.io/region` of every fake node.
pub const NODE_REGION: &str = "us-east-1";
/// Service CIDR given to the API server.
pub const SERVICE_CIDR: &str = "10.96.0.0/16";

const DIR_PREFIX: &str = "cf-runner-cp-";
/// Holds the pid of the test process that owns a control plane's temp dir.
const OWNER_FILE: &str = "owner.pid";
const READY_TIMEOUT: Duration = Duration::from_secs(120);
const BOOTSTRAP_TIMEOUT: Duration = Duration::from_secs(60);
const NAMESPACE_TIMEOUT: Duration = Duration::from_secs(30);

/// The control plane shared by all tests of this test binary, started on
/// first use. Panics with the reason (and the components' log tails) if it
/// cannot be started; every later caller gets the same panic.
pub fn shared() -> &'static ControlPlane {
    static SHARED: OnceLock<Result<ControlPlane, String>> = OnceLock::new();
    extern "C" fn shutdown_shared() {
        if let Some(Ok(cp)) = SHARED.get() {
            // A panic must not unwind out of an `extern "C" fn` (it would abort).
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| cp.shutdown()));
        }
    }
    let result = SHARED.get_or_init(|| {
        let started = ControlPlane::start().map_err(|e| format!("{e:#}"));
        if started.is_ok() {
            // SAFETY: registers a plain `extern "C" fn` that cannot unwind.
            unsafe { libc::atexit(shutdown_shared) };
        }
        started
    });
    match result {
        Ok(cp) => cp,
        Err(e) => panic!(
            "the test Kubernetes control plane could not be started:\n{e}\n\
             (set {SKIP_ENV}=1 to build the end-to-end tests as ignored ones)"
        ),
    }
}

/// The directory with all [`BINARIES`]: `$CF_RUNNER_CP_BIN`, or else the last
/// line printed by `tests/controlplane/build.sh` (which builds them if the
/// cache lacks them). Resolved once per test binary.
pub fn bin_dir() -> Result<PathBuf> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    DIR.get_or_init(|| find_binaries().map_err(|e| format!("{e:#}")))
        .clone()
        .map_err(|e| anyhow!(e))
}

fn find_binaries() -> Result<PathBuf> {
    let dir = match std::env::var_os(BIN_ENV) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => build_binaries()?,
    };
    let missing: Vec<&str> = BINARIES
        .iter()
        .copied()
        .filter(|name| !is_executable(&dir.join(name)))
        .collect();
    if !missing.is_empty() {
        bail!(
            "control-plane binaries missing from {}: {} \
             (build them with `bash tests/controlplane/build.sh`)",
            dir.display(),
            missing.join(", ")
        );
    }
    Ok(dir)
}

fn is_executable(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

fn build_binaries() -> Result<PathBuf> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/controlplane/build.sh");
    eprintln!(
        "{BIN_ENV} is not set: running `bash {}` (a cold build takes ~7 minutes)",
        script.display()
    );
    let output = Command::new("bash")
        .arg(&script)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("could not run `bash {}`", script.display()))?;
    if !output.status.success() {
        bail!(
            "`bash {}` failed ({}); its output is above. Install Go >= 1.26 or set {BIN_ENV} \
             to a directory with prebuilt binaries",
            script.display(),
            output.status
        );
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .ok_or_else(|| anyhow!("`bash {}` printed no bin directory", script.display()))?;
    Ok(PathBuf::from(last))
}

/// A running control plane; see the module docs.
pub struct ControlPlane {
    tmp: Mutex<Option<tempfile::TempDir>>,
    root: PathBuf,
    bins: PathBuf,
    server: String,
    apiserver_args: Vec<OsString>,
    admin_kubeconfig: PathBuf,
    limited_kubeconfig: PathBuf,
    audit_log: PathBuf,
    admin_config: Config,
    limited_config: Config,
    procs: Mutex<BTreeMap<&'static str, Proc>>,
    namespaces: AtomicU32,
    started_in: Duration,
}

impl ControlPlane {
    /// Starts a private control plane (binaries from [`bin_dir`]) and waits
    /// until it is ready: API server `/readyz` is ok, every fake node is
    /// Ready and the `default` ServiceAccount exists. Blocking; may be called
    /// from inside a tokio runtime.
    pub fn start() -> Result<ControlPlane> {
        let bins = bin_dir()?;
        let mut attempt = 1;
        loop {
            match Self::start_with(&bins) {
                // A free port we picked may have been taken in the meantime.
                Err(e) if attempt < 3 && format!("{e:#}").contains("address already in use") => {
                    eprintln!("control plane: port clash, retrying: {e:#}");
                    attempt += 1;
                }
                result => return result,
            }
        }
    }

    /// Like [`ControlPlane::start`], with the binaries in `bins`.
    pub fn start_with(bins: &Path) -> Result<ControlPlane> {
        let t0 = Instant::now();
        ensure_crypto_provider();
        remove_stale_dirs();
        let tmp = tempfile::Builder::new()
            .prefix(DIR_PREFIX)
            .tempdir()
            .context("creating the control plane's temp dir")?;
        let root = tmp.path().to_path_buf();
        fs::write(root.join(OWNER_FILE), std::process::id().to_string())?;
        fs::create_dir(root.join("logs"))?;
        write_pki(&root)?;

        let admin_token = random_hex(16)?;
        let limited_token = random_hex(16)?;
        fs::write(
            root.join("tokens.csv"),
            format!(
                "{admin_token},{ADMIN_USER},uid-{ADMIN_USER},\"system:masters\"\n\
                 {limited_token},{LIMITED_USER},uid-{LIMITED_USER}\n"
            ),
        )?;
        fs::write(root.join("audit-policy.yaml"), AUDIT_POLICY)?;
        fs::write(root.join("kwok.yaml"), KWOK_CONFIG)?;

        let [etcd_port, peer_port, api_port] = free_ports()?;
        let server = format!("https://127.0.0.1:{api_port}");
        let admin_kubeconfig = root.join("admin.kubeconfig");
        let limited_kubeconfig = root.join("limited.kubeconfig");
        let ca = root.join("ca.crt");
        write_kubeconfig(&admin_kubeconfig, &server, &ca, ADMIN_USER, &admin_token)?;
        write_kubeconfig(
            &limited_kubeconfig,
            &server,
            &ca,
            LIMITED_USER,
            &limited_token,
        )?;
        let (admin_config, limited_config) = block_on(async {
            Ok::<_, anyhow::Error>((
                load_config(&admin_kubeconfig).await?,
                load_config(&limited_kubeconfig).await?,
            ))
        })?;

        let audit_log = root.join("audit.log");
        let etcd_url = format!("http://127.0.0.1:{etcd_port}");
        let p = |name: &str| root.join(name).into_os_string();
        let flag = |name: &str, value: OsString| {
            let mut arg = OsString::from(format!("--{name}="));
            arg.push(value);
            arg
        };
        let apiserver_args = vec![
            flag("etcd-servers", etcd_url.clone().into()),
            flag("bind-address", "127.0.0.1".into()),
            flag("advertise-address", "127.0.0.1".into()),
            flag("endpoint-reconciler-type", "none".into()),
            flag("secure-port", api_port.to_string().into()),
            flag("cert-dir", p("apiserver-certs")),
            flag("tls-cert-file", p("apiserver.crt")),
            flag("tls-private-key-file", p("apiserver.key")),
            flag("client-ca-file", p("ca.crt")),
            flag("token-auth-file", p("tokens.csv")),
            flag("authorization-mode", "Node,RBAC".into()),
            flag(
                "service-account-issuer",
                "https://kubernetes.default.svc.cluster.local".into(),
            ),
            flag("service-account-key-file", p("sa.pub")),
            flag("service-account-signing-key-file", p("sa.key")),
            flag("service-cluster-ip-range", SERVICE_CIDR.into()),
            flag("audit-policy-file", p("audit-policy.yaml")),
            flag("audit-log-path", audit_log.clone().into_os_string()),
            flag("audit-log-format", "json".into()),
            flag("audit-log-mode", "blocking".into()),
            flag("allow-privileged", "true".into()),
            // On by default in every supported release; named so the
            // admission tests (tests/e2e_admission.rs) never run against a
            // server that lets every pod in. Pod Security enforces the
            // namespaces' `pod-security.kubernetes.io/*` labels.
            flag(
                "enable-admission-plugins",
                "PodSecurity,ResourceQuota,LimitRanger,ValidatingAdmissionWebhook,MutatingAdmissionWebhook".into(),
            ),
            flag("profiling", "false".into()),
        ];

        let mut cp = ControlPlane {
            tmp: Mutex::new(Some(tmp)),
            root,
            bins: bins.to_path_buf(),
            server,
            apiserver_args,
            admin_kubeconfig,
            limited_kubeconfig,
            audit_log,
            admin_config,
            limited_config,
            procs: Mutex::new(BTreeMap::new()),
            namespaces: AtomicU32::new(0),
            started_in: Duration::ZERO,
        };
        // From here on, dropping `cp` on an error tears down what was started.
        let peer_url = format!("http://127.0.0.1:{peer_port}");
        cp.boot(&etcd_url, &peer_url)
            .map_err(|e| anyhow!("{e:#}\n{}", cp.diagnostics()))?;
        cp.started_in = t0.elapsed();
        eprintln!(
            "control plane ready in {:.1}s at {} (dir {})",
            cp.started_in.as_secs_f64(),
            cp.server,
            cp.root.display()
        );
        Ok(cp)
    }

    fn boot(&self, etcd_url: &str, peer_url: &str) -> Result<()> {
        let root = &self.root;
        let mut etcd = self.command("etcd");
        etcd.arg("--name=default")
            .arg(format!("--data-dir={}", root.join("etcd").display()))
            .arg(format!("--listen-client-urls={etcd_url}"))
            .arg(format!("--advertise-client-urls={etcd_url}"))
            .arg(format!("--listen-peer-urls={peer_url}"))
            .arg(format!("--initial-advertise-peer-urls={peer_url}"))
            .arg(format!("--initial-cluster=default={peer_url}"))
            .arg("--unsafe-no-fsync=true")
            .arg("--log-level=warn");
        self.spawn("etcd", etcd)?;
        self.spawn_apiserver()?;
        block_on(self.wait_apiserver_ready(READY_TIMEOUT))?;

        let kubeconfig = format!("--kubeconfig={}", self.admin_kubeconfig.display());
        let mut kcm = self.command("kube-controller-manager");
        kcm.arg(&kubeconfig)
            .arg("--leader-elect=false")
            .arg("--secure-port=0")
            .arg("--cluster-name=cf-runner-test")
            .arg(format!(
                "--service-account-private-key-file={}",
                root.join("sa.key").display()
            ))
            .arg(format!("--root-ca-file={}", root.join("ca.crt").display()))
            .arg("--use-service-account-credentials=false");
        self.spawn("kube-controller-manager", kcm)?;

        let mut scheduler = self.command("kube-scheduler");
        scheduler
            .arg(&kubeconfig)
            .arg("--leader-elect=false")
            .arg("--secure-port=0");
        self.spawn("kube-scheduler", scheduler)?;

        let mut kwok = self.command("kwok");
        kwok.arg(&kubeconfig)
            .arg(format!("--config={}", root.join("kwok.yaml").display()))
            .arg("--manage-all-nodes=false")
            .arg("--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake")
            .arg("--node-ip=10.0.0.1")
            .arg("--cidr=10.244.0.0/16")
            .arg("--node-lease-duration-seconds=40");
        self.spawn("kwok", kwok)?;

        block_on(self.bootstrap(BOOTSTRAP_TIMEOUT))
    }

    /// `https://127.0.0.1:<port>` of the API server.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The control plane's temp dir (certs, kubeconfigs, `logs/<component>.log`).
    pub fn dir(&self) -> &Path {
        &self.root
    }

    /// Directory of the binaries in use.
    pub fn bin(&self, name: &str) -> PathBuf {
        self.bins.join(name)
    }

    /// Log file of a component (one of [`BINARIES`] but kubectl).
    pub fn log_path(&self, component: &str) -> PathBuf {
        self.root.join("logs").join(format!("{component}.log"))
    }

    /// Kubeconfig of the `admin` user (`system:masters`).
    pub fn admin_kubeconfig(&self) -> &Path {
        &self.admin_kubeconfig
    }

    /// Kubeconfig of the `limited` user (no RBAC bindings).
    pub fn limited_kubeconfig(&self) -> &Path {
        &self.limited_kubeconfig
    }

    /// PEM files of a client certificate and key of [`ADMIN_CERT_USER`]
    /// (`system:masters`), signed by the CA the API server trusts.
    pub fn admin_client_cert(&self) -> (PathBuf, PathBuf) {
        (
            self.root.join("admin-client.crt"),
            self.root.join("admin-client.key"),
        )
    }

    /// The static token of [`ADMIN_USER`] (`system:masters`).
    pub fn admin_token(&self) -> String {
        let tokens = fs::read_to_string(self.root.join("tokens.csv")).unwrap_or_default();
        tokens
            .lines()
            .find(|l| l.split(',').nth(1) == Some(ADMIN_USER))
            .and_then(|l| l.split(',').next())
            .unwrap_or_default()
            .to_string()
    }

    /// PEM file of the CA that signed the API server's certificate.
    pub fn ca_file(&self) -> PathBuf {
        self.root.join("ca.crt")
    }

    /// JSON-lines audit log: one `audit.k8s.io/v1` Event at Metadata level
    /// per request (stage ResponseComplete, plus ResponseStarted for watches).
    pub fn audit_log(&self) -> &Path {
        &self.audit_log
    }

    /// The audit log's events parsed, oldest first.
    pub fn audit_events(&self) -> Result<Vec<serde_json::Value>> {
        let text = fs::read_to_string(&self.audit_log)
            .with_context(|| format!("reading {}", self.audit_log.display()))?;
        // The API server may be halfway through writing the last line.
        let complete = match text.rfind('\n') {
            Some(end) => &text[..end],
            None => "",
        };
        complete
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).context("parsing an audit event"))
            .collect()
    }

    /// How long [`ControlPlane::start`] took, until everything was ready.
    pub fn started_in(&self) -> Duration {
        self.started_in
    }

    /// kube config of the admin user; build more clients from it.
    pub fn admin_config(&self) -> &Config {
        &self.admin_config
    }

    /// kube config of the limited user.
    pub fn limited_config(&self) -> &Config {
        &self.limited_config
    }

    /// A new admin client. Must be called inside a tokio runtime; the client
    /// belongs to that runtime, so make one per test rather than sharing it.
    pub fn client(&self) -> Client {
        Client::try_from(self.admin_config.clone()).expect("building the admin kube client")
    }

    /// A new client of the limited user (same runtime caveat as `client`).
    pub fn limited_client(&self) -> Client {
        Client::try_from(self.limited_config.clone()).expect("building the limited kube client")
    }

    /// `kubectl --kubeconfig <admin kubeconfig>`, ready for more args.
    pub fn kubectl(&self) -> Command {
        let mut cmd = Command::new(self.bin("kubectl"));
        cmd.arg("--kubeconfig").arg(&self.admin_kubeconfig);
        cmd
    }

    /// Runs kubectl (as [`Self::kubectl`]) with `args`, `input` on its
    /// stdin: what it printed and how it exited.
    pub fn kubectl_with_input(&self, args: &[&str], input: &str) -> std::process::Output {
        use std::io::Write;
        let mut child = self
            .kubectl()
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    }

    /// A server-side dry run of the objects in `yaml` with strict field
    /// validation: the API server's own answer, CRD schemas included, to
    /// "would you take these?", writing nothing.
    pub fn strict_dry_run(&self, yaml: &str) -> std::process::Output {
        let args = [
            "apply",
            "--server-side",
            "--dry-run=server",
            "--validate=strict",
            "-f",
            "-",
        ];
        self.kubectl_with_input(&args, yaml)
    }

    /// Applies the objects in `yaml` server-side, taking over fields other
    /// managers set (a second apply of the same is a no-op).
    pub fn apply_yaml(&self, yaml: &str) -> std::process::Output {
        self.kubectl_with_input(
            &["apply", "--server-side", "--force-conflicts", "-f", "-"],
            yaml,
        )
    }

    /// Waits until the CRD `name` (`plural.group`) is served: `kubectl
    /// wait` fails at once while the CRD has no conditions yet, so it is
    /// retried for a minute.
    pub fn wait_established(&self, name: &str) {
        for _ in 0..60 {
            let out = self
                .kubectl()
                .args(["wait", "--for=condition=Established", "--timeout=30s"])
                .arg(format!("crd/{name}"))
                .output()
                .unwrap();
            if out.status.success() {
                return;
            }
            std::thread::sleep(Duration::from_secs(1));
        }
        panic!("CRD {name} never became Established");
    }

    /// Creates a namespace named `<prefix>-<n>` (unique within this control
    /// plane) and waits until its `default` ServiceAccount exists, so pods
    /// can be created in it right away. Returns its name.
    pub async fn create_namespace(&self, prefix: &str) -> Result<String> {
        let n = self.namespaces.fetch_add(1, Ordering::Relaxed);
        let mut base: String = prefix
            .chars()
            .map(|c| c.to_ascii_lowercase())
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .take(50)
            .collect();
        base = base.trim_matches('-').to_string();
        if base.is_empty() {
            base.push_str("test");
        }
        let name = format!("{base}-{n}");
        let client = self.client();
        let ns: Namespace = serde_json::from_value(serde_json::json!({
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": { "name": name, "labels": { "cf-runner-test": "true" } },
        }))?;
        Api::<Namespace>::all(client.clone())
            .create(&PostParams::default(), &ns)
            .await
            .with_context(|| format!("creating namespace {name}"))?;
        let sas: Api<ServiceAccount> = Api::namespaced(client, &name);
        poll_until(
            &format!("the default ServiceAccount of namespace {name}"),
            NAMESPACE_TIMEOUT,
            || async { Ok(sas.get_opt("default").await?.is_some()) },
        )
        .await?;
        Ok(name)
    }

    /// Kills the API server (SIGKILL to its process group); etcd and the
    /// controllers keep running. Use on a private control plane only.
    pub fn stop_apiserver(&self) {
        if let Some(mut proc) = self.lock_procs().remove("kube-apiserver") {
            proc.kill();
        }
    }

    /// Freezes the API server (SIGSTOP to its process group): connections
    /// are still accepted, by the kernel, and nothing answers. Use on a
    /// private control plane only; [`ControlPlane::thaw_apiserver`] undoes it.
    pub fn freeze_apiserver(&self) {
        if let Some(proc) = self.lock_procs().get_mut("kube-apiserver") {
            proc.signal(libc::SIGSTOP);
        }
    }

    /// Lets a frozen API server run again (SIGCONT).
    pub fn thaw_apiserver(&self) {
        if let Some(proc) = self.lock_procs().get_mut("kube-apiserver") {
            proc.signal(libc::SIGCONT);
        }
    }

    /// Starts the API server again (same port, flags and data) and waits
    /// for `/readyz`.
    pub fn start_apiserver(&self) -> Result<()> {
        if self.lock_procs().contains_key("kube-apiserver") {
            bail!("kube-apiserver is already running");
        }
        self.spawn_apiserver()?;
        block_on(self.wait_apiserver_ready(READY_TIMEOUT))
            .map_err(|e| anyhow!("{e:#}\n{}", self.diagnostics()))
    }

    /// [`ControlPlane::stop_apiserver`] then [`ControlPlane::start_apiserver`].
    pub fn restart_apiserver(&self) -> Result<()> {
        self.stop_apiserver();
        self.start_apiserver()
    }

    /// Whether the API server process is running (it may not be ready).
    pub fn apiserver_running(&self) -> bool {
        self.lock_procs()
            .get_mut("kube-apiserver")
            .is_some_and(|p| p.exited().is_none())
    }

    /// Kills every component and removes the temp dir (unless
    /// `CF_RUNNER_CP_KEEP=1`). Idempotent; `Drop` calls it.
    pub fn shutdown(&self) {
        let mut procs = self.lock_procs();
        // Clients first, storage last.
        for name in [
            "kwok",
            "kube-scheduler",
            "kube-controller-manager",
            "kube-apiserver",
            "etcd",
        ] {
            if let Some(mut proc) = procs.remove(name) {
                proc.kill();
            }
        }
        drop(procs);
        let tmp = self
            .tmp
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        if let Some(tmp) = tmp {
            if std::env::var(KEEP_ENV).is_ok_and(|v| v == "1") {
                let _ = fs::remove_file(tmp.path().join(OWNER_FILE));
                let kept = tmp.keep();
                let _ = writeln!(io::stderr(), "{KEEP_ENV}=1: kept {}", kept.display());
            }
            // Otherwise dropping `tmp` deletes the dir.
        }
    }

    fn lock_procs(&self) -> MutexGuard<'_, BTreeMap<&'static str, Proc>> {
        self.procs
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn command(&self, binary: &str) -> Command {
        let mut cmd = Command::new(self.bin(binary));
        // A clean environment: no user kubeconfig, no ~/.kwok, no GODEBUG.
        cmd.env_clear()
            .env("HOME", &self.root)
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .current_dir(&self.root);
        cmd
    }

    fn spawn_apiserver(&self) -> Result<()> {
        let mut cmd = self.command("kube-apiserver");
        cmd.args(&self.apiserver_args);
        self.spawn("kube-apiserver", cmd)
    }

    fn spawn(&self, name: &'static str, cmd: Command) -> Result<()> {
        let log = self.log_path(name);
        let child = spawn_process(cmd, &log).with_context(|| format!("starting {name}"))?;
        self.lock_procs().insert(name, Proc { child, log });
        Ok(())
    }

    /// Errors if a component that should be running has exited.
    fn check_alive(&self) -> Result<()> {
        for (name, proc) in self.lock_procs().iter_mut() {
            if let Some(status) = proc.exited() {
                return Err(Fatal(format!("{name} exited ({status})")).into());
            }
        }
        Ok(())
    }

    async fn wait_apiserver_ready(&self, timeout: Duration) -> Result<()> {
        let mut config = self.admin_config.clone();
        config.default_retry = false;
        config.connect_timeout = Some(Duration::from_secs(1));
        config.read_timeout = Some(Duration::from_secs(5));
        let client = Client::try_from(config)?;
        let deadline = Instant::now() + timeout;
        loop {
            self.check_alive()?;
            let request = http::Request::get("/readyz").body(Vec::new())?;
            let last_error = match client.request_text(request).await {
                Ok(_) => return Ok(()),
                Err(e) => e,
            };
            if Instant::now() >= deadline {
                bail!("kube-apiserver not ready after {timeout:?}: {last_error}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Registers the fake nodes and waits until kwok reports them Ready and
    /// the controller-manager has created the `default` ServiceAccount.
    async fn bootstrap(&self, timeout: Duration) -> Result<()> {
        let client = Client::try_from(self.admin_config.clone())?;
        let nodes: Api<Node> = Api::all(client.clone());
        for name in FAKE_NODES {
            nodes
                .create(&PostParams::default(), &fake_node(name)?)
                .await
                .with_context(|| format!("creating fake node {name}"))?;
        }
        // Ready, and rid of the taint a node is created with until the
        // controller-manager sees it Ready: the preflight honours taints.
        poll_until(
            "the fake nodes to be Ready and untainted",
            timeout,
            || async {
                self.check_alive()?;
                let mut ready = 0;
                for name in FAKE_NODES {
                    let node = nodes.get(name).await?;
                    let not_ready_taint = node
                        .spec
                        .and_then(|s| s.taints)
                        .unwrap_or_default()
                        .iter()
                        .any(|t| t.key.starts_with("node.kubernetes.io/"));
                    let conditions = node.status.and_then(|s| s.conditions).unwrap_or_default();
                    if !not_ready_taint
                        && conditions
                            .iter()
                            .any(|c| c.type_ == "Ready" && c.status == "True")
                    {
                        ready += 1;
                    }
                }
                Ok(ready == FAKE_NODES.len())
            },
        )
        .await?;
        let sas: Api<ServiceAccount> = Api::namespaced(client, "default");
        poll_until("the default ServiceAccount", timeout, || async {
            self.check_alive()?;
            Ok(sas.get_opt("default").await?.is_some())
        })
        .await
    }

    /// The last lines of every component's log, for error messages.
    fn diagnostics(&self) -> String {
        let mut out = format!("control plane dir: {}\n", self.root.display());
        for name in &BINARIES[..5] {
            let log = self.log_path(name);
            if let Ok(text) = fs::read_to_string(&log) {
                let lines: Vec<&str> = text.lines().collect();
                let tail = &lines[lines.len().saturating_sub(25)..];
                out.push_str(&format!(
                    "--- last {} lines of {}:\n{}\n",
                    tail.len(),
                    log.display(),
                    tail.join("\n")
                ));
            }
        }
        out
    }
}

impl Drop for ControlPlane {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// An error that makes [`poll_until`] give up at once instead of retrying:
/// `return Err(Fatal("why".into()).into())`.
#[derive(Debug)]
pub struct Fatal(pub String);

impl std::fmt::Display for Fatal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Fatal {}

/// Polls `check` every 200 ms until it returns `Ok(true)`. Errors from it are
/// taken as transient (retried, the last one reported on timeout), except a
/// [`Fatal`] one, which is returned at once.
pub async fn poll_until<F, Fut>(what: &str, timeout: Duration, mut check: F) -> Result<()>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<bool>>,
{
    let deadline = Instant::now() + timeout;
    let mut last_error = None;
    loop {
        match check().await {
            Ok(true) => return Ok(()),
            Ok(false) => {}
            Err(e) if e.is::<Fatal>() => return Err(e),
            Err(e) => last_error = Some(e),
        }
        if Instant::now() >= deadline {
            return Err(match last_error {
                Some(e) => e.context(format!("timed out after {timeout:?} waiting for {what}")),
                None => anyhow!("timed out after {timeout:?} waiting for {what}"),
            });
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

struct Proc {
    child: Child,
    log: PathBuf,
}

impl Proc {
    fn exited(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    fn signal(&mut self, signal: libc::c_int) {
        if self.exited().is_none() {
            let pgid = self.child.id() as libc::pid_t;
            // SAFETY: plain syscall; the child leads its own process group and
            // has not been reaped, so the id still names it.
            unsafe { libc::kill(-pgid, signal) };
        }
    }

    fn kill(&mut self) {
        if self.exited().is_none() {
            let pgid = self.child.id() as libc::pid_t;
            // SAFETY: plain syscall; the child leads its own process group and
            // has not been reaped, so the id still names it.
            unsafe { libc::kill(-pgid, libc::SIGKILL) };
        }
        let _ = self.child.wait();
    }
}

/// Spawns `cmd` in its own process group, logging to `log`, from the
/// keeper thread, with a parent-death signal so it cannot outlive us.
pub fn spawn_process(mut cmd: Command, log: &Path) -> Result<Child> {
    let out = File::create(log).with_context(|| format!("creating {}", log.display()))?;
    let err = out.try_clone()?;
    cmd.stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .process_group(0);
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: only async-signal-safe calls (prctl, getppid) run in the child.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            ) != 0
            {
                return Err(io::Error::last_os_error());
            }
            // The parent may have died before prctl took effect.
            if libc::getppid() != parent {
                return Err(io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
    // PR_SET_PDEATHSIG fires when the *thread* that forked the child exits,
    // so fork from a thread that lives as long as the process, not from the
    // (short-lived) test thread.
    let (tx, rx) = mpsc::channel();
    keeper()
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .send(Box::new(move || {
            let _ = tx.send(cmd.spawn());
        }))
        .map_err(|_| anyhow!("the control plane's keeper thread is gone"))?;
    Ok(rx.recv()??)
}

type Job = Box<dyn FnOnce() + Send>;

fn keeper() -> &'static Mutex<mpsc::Sender<Job>> {
    static KEEPER: OnceLock<Mutex<mpsc::Sender<Job>>> = OnceLock::new();
    KEEPER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("controlplane-keeper".into())
            .spawn(move || {
                for job in rx {
                    job();
                }
            })
            .expect("spawning the control plane's keeper thread");
        Mutex::new(tx)
    })
}

/// Runs `fut` to completion on a fresh current-thread runtime in a scoped
/// thread, so it works whether or not the caller is inside a runtime.
fn block_on<F>(fut: F) -> F::Output
where
    F: Future + Send,
    F::Output: Send,
{
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("building a tokio runtime")
                    .block_on(fut)
            })
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// What a test's own kwok node has: its labels (besides the arch and os
/// ones every node has) and taints, and room for `cpu`, `memory` and `pods`
/// (allocatable and capacity alike).
pub struct NodeShape<'a> {
    pub labels: &'a [(&'a str, &'a str)],
    pub taints: serde_json::Value,
    pub cpu: &'a str,
    pub memory: &'a str,
    pub pods: &'a str,
}

/// A node a test added to the shared control plane; removed when dropped.
pub struct TestNode(String);

impl Drop for TestNode {
    fn drop(&mut self) {
        let _ = shared()
            .kubectl()
            .args(["delete", "node", &self.0, "--wait=false"])
            .output();
    }
}

/// Adds the kwok node `name` to the shared control plane and waits until
/// kwok reports it Ready: until then it carries the
/// `node.kubernetes.io/not-ready` taint, which the preflight rightly counts.
pub fn add_node(name: &str, shape: NodeShape<'_>) -> TestNode {
    let cp = shared();
    let mut labels =
        serde_json::json!({"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"});
    for (key, value) in shape.labels {
        labels[*key] = serde_json::Value::String(value.to_string());
    }
    let room = serde_json::json!({"cpu": shape.cpu, "memory": shape.memory, "pods": shape.pods});
    let node = serde_json::json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "annotations": {"kwok.x-k8s.io/node": "fake"},
            "labels": labels,
        },
        "spec": {"taints": shape.taints},
        "status": {"allocatable": room, "capacity": room},
    });
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("node.json");
    fs::write(&file, node.to_string()).unwrap();
    let out = cp
        .kubectl()
        .args(["create", "-f"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "adding node {name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let guard = TestNode(name.to_string());
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let out = cp
            .kubectl()
            .args(["get", "node", name, "-o", "jsonpath={.spec.taints}"])
            .output()
            .unwrap();
        if !String::from_utf8_lossy(&out.stdout).contains("not-ready") {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "node {name} still not ready after 60s"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    guard
}

/// kube's rustls needs a process-wide crypto provider, and the crate's
/// features enable both ring and aws-lc-rs, so rustls cannot pick one itself.
/// Installs ring unless something already installed a provider.
pub fn ensure_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Losing a race with another installer is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

async fn load_config(kubeconfig: &Path) -> Result<Config> {
    let kubeconfig_file = Kubeconfig::read_from(kubeconfig)
        .with_context(|| format!("reading {}", kubeconfig.display()))?;
    Ok(Config::from_custom_kubeconfig(kubeconfig_file, &KubeConfigOptions::default()).await?)
}

/// Deletes the temp dirs of control planes whose test process died without
/// cleaning up (killed, or aborted); their components died with it.
fn remove_stale_dirs() {
    let Ok(entries) = fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with(DIR_PREFIX) {
            continue;
        }
        let path = entry.path();
        let Ok(owner) = fs::read_to_string(path.join(OWNER_FILE)) else {
            continue;
        };
        let Ok(pid) = owner.trim().parse::<libc::pid_t>() else {
            continue;
        };
        // SAFETY: signal 0 only asks whether the process exists.
        let gone = unsafe { libc::kill(pid, 0) } != 0
            && io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        if gone {
            let _ = fs::remove_dir_all(&path);
        }
    }
}

/// Three distinct free TCP ports on 127.0.0.1.
fn free_ports() -> Result<[u16; 3]> {
    let listeners = [
        TcpListener::bind("127.0.0.1:0")?,
        TcpListener::bind("127.0.0.1:0")?,
        TcpListener::bind("127.0.0.1:0")?,
    ];
    let mut ports = [0; 3];
    for (port, listener) in ports.iter_mut().zip(&listeners) {
        *port = listener.local_addr()?.port();
    }
    Ok(ports)
}

fn random_hex(bytes: usize) -> Result<String> {
    let mut buf = vec![0; bytes];
    File::open("/dev/urandom")?.read_exact(&mut buf)?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

/// Writes `ca.crt`, `apiserver.crt`/`apiserver.key` (signed by the CA, for
/// 127.0.0.1, localhost and the in-cluster names) and the service-account
/// signing key `sa.key` (ECDSA P-256, PKCS#8) with its public half `sa.pub`.
fn write_pki(dir: &Path) -> Result<()> {
    let ca_key = KeyPair::generate()?;
    let mut ca = CertificateParams::new(Vec::<String>::new())?;
    ca.distinguished_name
        .push(DnType::CommonName, "cf-runner test CA");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let ca_cert = ca.self_signed(&ca_key)?;
    let issuer = Issuer::from_params(&ca, &ca_key);

    let server_key = KeyPair::generate()?;
    let mut server = CertificateParams::new(
        [
            "127.0.0.1",
            "::1",
            "10.96.0.1",
            "localhost",
            "kubernetes",
            "kubernetes.default",
            "kubernetes.default.svc",
            "kubernetes.default.svc.cluster.local",
        ]
        .map(String::from)
        .to_vec(),
    )?;
    server
        .distinguished_name
        .push(DnType::CommonName, "kube-apiserver");
    server.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    server.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let server_cert = server.signed_by(&server_key, &issuer)?;

    // A client certificate in system:masters, for kubeconfigs that name a
    // certificate and key rather than a token.
    let client_key = KeyPair::generate()?;
    let mut client = CertificateParams::new(Vec::<String>::new())?;
    client
        .distinguished_name
        .push(DnType::CommonName, ADMIN_CERT_USER);
    client
        .distinguished_name
        .push(DnType::OrganizationName, "system:masters");
    client.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    client.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
    let client_cert = client.signed_by(&client_key, &issuer)?;

    let sa_key = KeyPair::generate()?;
    let write_private = |name: &str, pem: String| -> Result<()> {
        let path = dir.join(name);
        fs::write(&path, pem)?;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600))?;
        Ok(())
    };
    fs::write(dir.join("ca.crt"), ca_cert.pem())?;
    fs::write(dir.join("apiserver.crt"), server_cert.pem())?;
    write_private("apiserver.key", server_key.serialize_pem())?;
    write_private("sa.key", sa_key.serialize_pem())?;
    fs::write(dir.join("admin-client.crt"), client_cert.pem())?;
    write_private("admin-client.key", client_key.serialize_pem())?;
    fs::write(dir.join("sa.pub"), sa_key.public_key_pem())?;
    Ok(())
}

fn write_kubeconfig(path: &Path, server: &str, ca: &Path, user: &str, token: &str) -> Result<()> {
    let text = format!(
        "apiVersion: v1
kind: Config
clusters:
- name: cf-runner-test
  cluster:
    server: {server}
    certificate-authority: {ca}
users:
- name: {user}
  user:
    token: {token}
contexts:
- name: {user}@cf-runner-test
  context:
    cluster: cf-runner-test
    user: {user}
    namespace: default
current-context: {user}@cf-runner-test
",
        ca = ca.display()
    );
    fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    fs::set_permissions(path, fs::Permissions::from_mode(0o600))?;
    Ok(())
}

fn fake_node(name: &str) -> Result<Node> {
    let resources = serde_json::json!({
        "cpu": "4",
        "memory": "16Gi",
        "pods": "250",
        "ephemeral-storage": "100Gi",
    });
    Ok(serde_json::from_value(serde_json::json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "annotations": { "kwok.x-k8s.io/node": "fake" },
            "labels": {
                "type": "kwok",
                "kubernetes.io/arch": "amd64",
                "kubernetes.io/os": "linux",
                "kubernetes.io/hostname": name,
                "node.kubernetes.io/instance-type": "kwok.4x16",
                "topology.kubernetes.io/region": NODE_REGION,
                "topology.kubernetes.io/zone": NODE_ZONE,
            },
        },
        "status": { "allocatable": resources, "capacity": resources },
    }))?)
}

/// Every request, at Metadata level; RequestReceived is left out so each
/// request is one line (two for long-running ones such as watches).
const AUDIT_POLICY: &str = "\
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages:
- RequestReceived
rules:
- level: Metadata
";

/// kwok's configuration (a file given with --config skips kwok's defaults,
/// so the parallelism options must be set), plus the stages that make a node
/// Ready, run a bound pod, complete a Job's pod (exit 0) once it runs, and
/// finish deleting a pod.
const KWOK_CONFIG: &str = include_str!("kwok-stages.yaml");
