//! The kubeconfig's exec auth plugin (`aws eks get-token`,
//! `gke-gcloud-auth-plugin`, `kubelogin` …), checked and run by cf-runner
//! before a client is built, so that what it needs is said as kubectl says
//! it. kube-rs runs the plugin itself while it builds the client, with no
//! deadline, and its errors name neither the command nor the context
//! ("No such file or directory (os error 2)"). Here the command is found
//! (on `PATH`, or at its path) and checked to be executable, a plugin that
//! must have a terminal gets one or is refused, and one run is bounded by a
//! deadline and its output checked to be an `ExecCredential`: all before
//! any request leaves.

use std::ffi::OsString;
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kube::config::{AuthInfo, ExecConfig, ExecInteractiveMode};
use serde_json::Value;

/// How long a plugin that cannot ask anyone anything may take to give a
/// credential (`aws eks get-token` takes about a second).
pub const DEADLINE: Duration = Duration::from_secs(60);

/// How long a plugin that has the terminal may take: a person may be
/// signing in (a device code, a browser).
pub const INTERACTIVE_DEADLINE: Duration = Duration::from_secs(300);

/// How long a plugin may work before the run says what it waits for.
pub const QUIET_AFTER: Duration = Duration::from_secs(5);

/// The most of a plugin's output that is read (an ExecCredential with a
/// client certificate is a few KiB).
const MAX_OUTPUT: u64 = 1024 * 1024;

/// The most of a plugin's output a message quotes.
const QUOTED_CHARS: usize = 200;

/// An exec plugin's deadline: [`DEADLINE`] or [`INTERACTIVE_DEADLINE`], or
/// `CF_RUNNER_AUTH_PLUGIN_TIMEOUT` seconds (for tests).
pub fn deadline(interactive: bool) -> Duration {
    crate::env::var("CF_RUNNER_AUTH_PLUGIN_TIMEOUT")
        .and_then(|s| s.parse::<u64>().ok())
        .map(Duration::from_secs)
        .unwrap_or(if interactive {
            INTERACTIVE_DEADLINE
        } else {
            DEADLINE
        })
}

/// The exec plugin a context's user authenticates with, and who needs it.
#[derive(Debug, Clone)]
pub struct Plugin {
    exec: ExecConfig,
    /// The command, as the kubeconfig writes it.
    command: String,
    /// The context being connected to.
    context: String,
    /// The kubeconfig user of that context.
    user: String,
}

/// Why the exec plugin gave no credential.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// A bare name that no directory of `PATH` holds.
    NotOnPath,
    /// A path where there is no file.
    NoSuchFile,
    /// A path to something that is not a file (a directory).
    NotAFile(String),
    /// A file without an executable bit.
    NotExecutable { path: String, mode: u32 },
    /// `interactiveMode: Always`, and stdin is not a terminal.
    NeedsTerminal,
    /// No answer within the deadline; stopped, unless kube-rs ran it.
    TimedOut { seconds: u64, stopped: bool },
    /// It could not be started for another reason.
    NotStarted(String),
    /// It ended in failure; what it wrote on stderr, when it was captured.
    Failed {
        status: String,
        stderr: Option<String>,
    },
    /// It ended well but printed no usable ExecCredential.
    BadOutput { why: String, printed: String },
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::NotOnPath => write!(f, "is not installed: no directory of PATH has it"),
            Problem::NoSuchFile => write!(f, "is not installed: there is no such file"),
            Problem::NotAFile(what) => write!(f, "is not a program: it is {what}"),
            Problem::NotExecutable { path, mode } => {
                write!(f, "is not executable: {path} has mode {mode:o}")
            }
            Problem::NeedsTerminal => write!(
                f,
                "needs a terminal (interactiveMode: Always), and stdin is not one"
            ),
            Problem::TimedOut {
                seconds,
                stopped: true,
            } => write!(f, "gave no credential within {seconds}s and was stopped"),
            Problem::TimedOut {
                seconds,
                stopped: false,
            } => write!(
                f,
                "gave no credential within {seconds}s when run again to build the client"
            ),
            Problem::NotStarted(why) => write!(f, "could not be started: {why}"),
            Problem::Failed { status, stderr } => match stderr {
                Some(text) if !text.is_empty() => write!(f, "failed ({status}): {text}"),
                Some(_) => write!(f, "failed ({status}) and said nothing on stderr"),
                None => write!(f, "failed ({status}); its own message is above"),
            },
            Problem::BadOutput { why, printed } if printed.is_empty() => {
                write!(f, "printed no valid ExecCredential: {why}")
            }
            Problem::BadOutput { why, printed } => write!(
                f,
                "printed no valid ExecCredential: {why}; it printed: {printed}"
            ),
        }
    }
}

/// An exec plugin that gave no credential: the command as the kubeconfig
/// writes it, the context and user that need it, and why.
#[derive(Debug, thiserror::Error)]
#[error("the auth plugin `{command}` of user {user} (context {context}) {problem}")]
pub struct AuthPluginError {
    pub command: String,
    pub context: String,
    pub user: String,
    /// The kubeconfig's `installHint`, when it has one.
    pub install_hint: Option<String>,
    pub problem: Problem,
}

impl AuthPluginError {
    /// What to do: the kubeconfig's `installHint` or a word on the
    /// well-known plugins when it is missing, else the next step for the
    /// problem.
    pub fn hint(&self) -> String {
        let command = &self.command;
        match &self.problem {
            Problem::NotOnPath | Problem::NoSuchFile | Problem::NotAFile(_) => {
                match (&self.install_hint, well_known_hint(command)) {
                    (Some(h), _) if !h.trim().is_empty() => h.trim().to_string(),
                    (_, Some(h)) => h.to_string(),
                    _ => format!(
                        "install `{command}`, or correct the `command` of user {} in the kubeconfig",
                        self.user
                    ),
                }
            }
            Problem::NotExecutable { path, .. } => {
                format!("make it executable (chmod +x {path}), or reinstall it")
            }
            Problem::NeedsTerminal => "run cf-runner in a terminal to sign in; where there is \
                 none (CI), give the context a user whose plugin signs in without one"
                .into(),
            Problem::TimedOut { .. } => format!(
                "run `{command}` with the kubeconfig's args yourself to see what it waits for \
                 (a login prompt, the network)"
            ),
            Problem::NotStarted(_) => {
                format!("check that `{command}` is a program that runs on this machine")
            }
            Problem::Failed { .. } => {
                "do what the plugin's message says (often: sign in again), then re-run".into()
            }
            Problem::BadOutput { .. } => format!(
                "`{command}` must print an ExecCredential (client.authentication.k8s.io) with \
                 status.token, or status.clientCertificateData and clientKeyData: check its args \
                 and version in the kubeconfig"
            ),
        }
    }
}

/// How to get the plugins most kubeconfigs name, by the command's file name.
fn well_known_hint(command: &str) -> Option<&'static str> {
    let name = Path::new(command).file_name()?.to_str()?;
    match name.strip_suffix(".exe").unwrap_or(name) {
        "aws" => Some(
            "`aws` is the AWS CLI (EKS): install version 2, then sign in \
             (aws configure, or aws sso login)",
        ),
        "gke-gcloud-auth-plugin" => Some(
            "gke-gcloud-auth-plugin comes with the Google Cloud CLI (GKE): \
             gcloud components install gke-gcloud-auth-plugin",
        ),
        "kubelogin" => Some(
            "kubelogin is Azure's plugin (AKS): install it with az aks install-cli, \
             or from the Azure/kubelogin releases",
        ),
        _ => None,
    }
}

impl Plugin {
    /// The exec plugin `auth` authenticates with, when kube-rs would run
    /// one: the other credentials of a user (a token, a token file, a user
    /// name and password, an auth provider) take precedence over `exec`.
    pub fn of(auth: &AuthInfo, context: &str, user: Option<&str>) -> Option<Plugin> {
        let exec = auth.exec.as_ref()?;
        if auth.auth_provider.is_some()
            || auth.token.is_some()
            || auth.token_file.is_some()
            || (auth.username.is_some() && auth.password.is_some())
        {
            return None;
        }
        Some(Plugin {
            command: crate::text::one_line(exec.command.as_deref().unwrap_or("")),
            exec: exec.clone(),
            context: context.to_string(),
            user: crate::text::one_line(user.unwrap_or("(none)")),
        })
    }

    /// True when the plugin gets the terminal (stdin and stderr), as
    /// client-go decides: `Always`, or `IfAvailable` (the default) when
    /// stdin is a terminal.
    pub fn interactive(&self) -> bool {
        match self.exec.interactive_mode {
            Some(ExecInteractiveMode::Never) => false,
            Some(ExecInteractiveMode::Always) => true,
            _ => std::io::stdin().is_terminal(),
        }
    }

    /// The context being connected to.
    pub fn context(&self) -> &str {
        &self.context
    }

    /// This plugin's deadline (see [`deadline`]).
    pub fn deadline(&self) -> Duration {
        deadline(self.interactive())
    }

    /// The error for `problem`.
    pub fn error(&self, problem: Problem) -> Box<AuthPluginError> {
        Box::new(AuthPluginError {
            command: self.command.clone(),
            context: self.context.clone(),
            user: self.user.clone(),
            install_hint: self.exec.install_hint.clone(),
            problem,
        })
    }

    /// What the run says when the plugin is slow to answer.
    pub fn waiting_line(&self) -> String {
        format!(
            "waiting for the auth plugin `{}` of user {} (context {}) to give a credential \
             (it is stopped after {}s)",
            self.command,
            self.user,
            self.context,
            self.deadline().as_secs()
        )
    }

    /// Checks, without running it, that the plugin can run here: the
    /// command is found and executable, and a terminal is there when it
    /// must have one. Gives the program that would run.
    pub fn check(&self) -> Result<PathBuf, Box<AuthPluginError>> {
        let program = self.find().map_err(|p| self.error(p))?;
        if self.exec.interactive_mode == Some(ExecInteractiveMode::Always)
            && !std::io::stdin().is_terminal()
        {
            return Err(self.error(Problem::NeedsTerminal));
        }
        Ok(program)
    }

    /// The `PATH` the plugin is looked up on: the plugin's own `env` may
    /// set it (the process does then too, as `Command` does).
    fn search_path(&self) -> Option<OsString> {
        let own = self.exec.env.iter().flatten().find_map(|e| {
            (e.get("name").map(String::as_str) == Some("PATH"))
                .then(|| e.get("value").map(OsString::from))
                .flatten()
        });
        own.or_else(|| crate::env::var_os("PATH"))
    }

    /// The program the command names: a path (kube-rs made one relative to
    /// the kubeconfig absolute), or the first executable file of that name
    /// on `PATH`.
    fn find(&self) -> Result<PathBuf, Problem> {
        let command = self.exec.command.as_deref().unwrap_or("");
        if command.is_empty() {
            return Err(Problem::NotStarted(
                "the kubeconfig gives no command".into(),
            ));
        }
        if command.contains('/') || command.contains(std::path::MAIN_SEPARATOR) {
            let path = PathBuf::from(command);
            return runnable(&path).map(|()| path);
        }
        let mut not_executable = None;
        for dir in std::env::split_paths(&self.search_path().unwrap_or_default()) {
            if dir.as_os_str().is_empty() {
                continue;
            }
            let candidate = dir.join(command);
            match runnable(&candidate) {
                Ok(()) => return Ok(candidate),
                Err(p @ Problem::NotExecutable { .. }) => {
                    not_executable.get_or_insert(p);
                }
                Err(_) => {}
            }
        }
        Err(not_executable.unwrap_or(Problem::NotOnPath))
    }

    /// Runs the plugin once, as kube-rs will (its args, env and
    /// `KUBERNETES_EXEC_INFO`), within its deadline, and checks that it
    /// prints an ExecCredential with a credential in it. `waiting` hears,
    /// once, of a plugin that is slow to answer. The plugin is stopped if
    /// this future is dropped.
    pub async fn run(
        &self,
        program: &Path,
        waiting: &(dyn Fn(&str) + Send + Sync),
    ) -> Result<(), Box<AuthPluginError>> {
        let interactive = self.interactive();
        let deadline = self.deadline();
        let mut cmd = Command::new(program);
        cmd.args(self.exec.args.iter().flatten());
        for pair in self.exec.env.iter().flatten() {
            if let (Some(name), Some(value)) = (pair.get("name"), pair.get("value")) {
                cmd.env(name, value);
            }
        }
        cmd.env("KUBERNETES_EXEC_INFO", self.exec_info(interactive));
        cmd.stdout(Stdio::piped());
        if interactive {
            cmd.stdin(Stdio::inherit()).stderr(Stdio::inherit());
        } else {
            cmd.stdin(Stdio::null()).stderr(Stdio::piped());
            // Its own process group, so a deadline stops what it started too.
            #[cfg(unix)]
            std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        }
        let child = cmd.spawn().map_err(|e| {
            self.error(match e.kind() {
                std::io::ErrorKind::NotFound => Problem::NoSuchFile,
                std::io::ErrorKind::PermissionDenied => Problem::NotExecutable {
                    path: program.display().to_string(),
                    mode: mode_of(program).unwrap_or(0),
                },
                _ => Problem::NotStarted(e.to_string()),
            })
        })?;
        let mut running = Running {
            child,
            own_group: !interactive,
            ended: false,
        };
        let stdout = drain(running.child.stdout.take());
        let stderr = drain(running.child.stderr.take());

        let started = Instant::now();
        let mut said = false;
        let status = loop {
            match running.child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) => {}
                Err(e) => return Err(self.error(Problem::NotStarted(e.to_string()))),
            }
            if started.elapsed() >= deadline {
                running.stop();
                return Err(self.error(Problem::TimedOut {
                    seconds: deadline.as_secs(),
                    stopped: true,
                }));
            }
            if !said && started.elapsed() >= QUIET_AFTER {
                said = true;
                waiting(&self.waiting_line());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        running.ended = true;
        // What it printed: the pipes close as it ends, unless something it
        // started still holds them; that gets a moment, not a wait.
        let grace = Instant::now() + Duration::from_secs(1);
        while !(stdout.done() && stderr.done()) && Instant::now() < grace {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let stderr = (!interactive).then(|| stderr.bytes());
        self.judge(status, &stdout.bytes(), stderr)
            .map_err(|p| self.error(p))
    }

    /// `KUBERNETES_EXEC_INFO`, as kube-rs gives it to the plugin.
    fn exec_info(&self, interactive: bool) -> String {
        let mut spec = serde_json::json!({ "interactive": interactive });
        if self.exec.provide_cluster_info {
            if let Some(cluster) = &self.exec.cluster {
                spec["cluster"] = serde_json::to_value(cluster).unwrap_or(Value::Null);
            }
        }
        serde_json::json!({
            "apiVersion": self.exec.api_version,
            "kind": "ExecCredential",
            "spec": spec,
        })
        .to_string()
    }

    /// Whether an ended plugin gave a credential.
    fn judge(
        &self,
        status: ExitStatus,
        stdout: &[u8],
        stderr: Option<Vec<u8>>,
    ) -> Result<(), Problem> {
        if !status.success() {
            return Err(Problem::Failed {
                status: status.to_string(),
                stderr: stderr.map(|e| quoted(&e)),
            });
        }
        let bad = |why: &str| Problem::BadOutput {
            why: why.to_string(),
            printed: quoted(stdout),
        };
        let text = String::from_utf8_lossy(stdout);
        if text.trim().is_empty() {
            return Err(bad("it printed nothing"));
        }
        // client-go reads it as YAML, of which JSON is a part.
        let credential: Value = match serde_yaml_ng::from_str(&text) {
            Ok(v @ Value::Object(_)) => v,
            _ => return Err(bad("that is not a JSON (or YAML) object")),
        };
        if let Some(kind) = credential.get("kind") {
            if kind != "ExecCredential" {
                return Err(bad(&format!(
                    "its kind is {}, not ExecCredential",
                    crate::text::one_line(&kind.to_string())
                )));
            }
        }
        let Some(status) = credential.get("status").filter(|s| s.is_object()) else {
            return Err(bad("it has no status"));
        };
        let has = |field: &str| {
            status
                .get(field)
                .and_then(Value::as_str)
                .is_some_and(|s| !s.is_empty())
        };
        if has("token") || (has("clientCertificateData") && has("clientKeyData")) {
            Ok(())
        } else {
            Err(bad(
                "its status has no token, and no clientCertificateData with clientKeyData",
            ))
        }
    }
}

/// What a kubeconfig makes cf-runner do on this machine, besides reading
/// the kubeconfig itself, when it connects with one of its contexts: the
/// commands it runs and the local files it sends away. Harmless in the
/// user's own kubeconfig; a kubeconfig that a shared file names (a values
/// file's `ConfigPath`) is someone else's word, and these are what it
/// could do with the user's machine and files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LocalAction {
    /// Runs `command` (with its arguments, one line) to get a credential:
    /// an exec plugin, or the `gcp` auth provider's `cmd-path`.
    Runs {
        command: String,
        how: &'static str,
        user: String,
    },
    /// Reads `path` and sends it to the API server as a bearer token.
    SendsFile { path: String, user: String },
}

impl std::fmt::Display for LocalAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LocalAction::Runs { command, how, user } => {
                write!(f, "runs `{command}` ({how} of user {user})")
            }
            LocalAction::SendsFile { path, user } => write!(
                f,
                "sends the file {path} to its API server as a token (tokenFile of user {user})"
            ),
        }
    }
}

/// What connecting with `context` of `config` (its current context when
/// `None`) would do on this machine ([`LocalAction`]). Read generously: a
/// credential that kube-rs would prefer to the command does not hide it,
/// since whoever wrote the file can drop that credential. An unknown
/// context gives nothing (the connection fails before anything runs).
pub fn local_actions(config: &kube::config::Kubeconfig, context: Option<&str>) -> Vec<LocalAction> {
    let Some(context) = context.or(config.current_context.as_deref()) else {
        return Vec::new();
    };
    let Some(user) = config
        .contexts
        .iter()
        .find(|c| c.name == context)
        .and_then(|c| c.context.as_ref())
        .and_then(|c| c.user.clone())
    else {
        return Vec::new();
    };
    let Some(auth) = config
        .auth_infos
        .iter()
        .find(|a| a.name == user)
        .and_then(|a| a.auth_info.as_ref())
    else {
        return Vec::new();
    };
    let user = crate::text::one_line(&user);
    let mut out = Vec::new();
    if let Some(exec) = &auth.exec {
        let mut line = exec.command.clone().unwrap_or_default();
        for arg in exec.args.iter().flatten() {
            line.push(' ');
            line.push_str(arg);
        }
        out.push(LocalAction::Runs {
            command: crate::text::one_line(&line),
            how: "its exec auth plugin",
            user: user.clone(),
        });
    }
    if let Some(provider) = auth.auth_provider.as_ref().filter(|p| p.name == "gcp") {
        if let Some(cmd) = provider.config.get("cmd-path") {
            let args = provider.config.get("cmd-args").cloned().unwrap_or_default();
            out.push(LocalAction::Runs {
                command: crate::text::one_line(format!("{cmd} {args}").trim()),
                how: "the cmd-path of its gcp auth provider",
                user: user.clone(),
            });
        }
    }
    if let Some(file) = &auth.token_file {
        out.push(LocalAction::SendsFile {
            path: crate::text::one_line(file),
            user,
        });
    }
    out
}

/// Some of what a plugin printed, fit for a message: credentials masked
/// (the one mechanism, `values::secrets`), one line, cut.
fn quoted(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let shown = crate::text::one_line(&crate::text::masked_printout(text.trim()));
    if shown.chars().count() > QUOTED_CHARS {
        format!(
            "{}… (cut at {QUOTED_CHARS} characters)",
            shown.chars().take(QUOTED_CHARS).collect::<String>()
        )
    } else {
        shown
    }
}

/// Whether `path` is a file this process could run.
fn runnable(path: &Path) -> Result<(), Problem> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Problem::NoSuchFile),
        Err(e) => return Err(Problem::NotStarted(e.to_string())),
    };
    if meta.is_dir() {
        return Err(Problem::NotAFile("a directory".into()));
    }
    if !meta.is_file() {
        return Err(Problem::NotAFile("not a regular file".into()));
    }
    match mode_of(path) {
        Some(mode) if mode & 0o111 == 0 => Err(Problem::NotExecutable {
            path: crate::text::one_line(&path.display().to_string()),
            mode: mode & 0o7777,
        }),
        _ => Ok(()),
    }
}

/// A file's permission bits; `None` where there are none (not Unix).
fn mode_of(path: &Path) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).ok().map(|m| m.permissions().mode())
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// A plugin process, stopped when dropped before it ended.
struct Running {
    child: Child,
    /// Started in its own process group (stop the whole group). Windows
    /// has no process groups to stop: only the plugin itself is stopped.
    #[cfg_attr(not(unix), allow(dead_code))]
    own_group: bool,
    ended: bool,
}

impl Running {
    fn stop(&mut self) {
        if self.ended {
            return;
        }
        #[cfg(unix)]
        if self.own_group {
            if let Ok(pid) = i32::try_from(self.child.id()) {
                // SAFETY: killpg only sends a signal; the group is the
                // plugin's own, made for it at spawn.
                unsafe {
                    libc::killpg(pid, libc::SIGKILL);
                }
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.ended = true;
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A pipe read to its end (at most [`MAX_OUTPUT`]) on a thread of its own.
struct Drained(Arc<Mutex<(Vec<u8>, bool)>>);

impl Drained {
    fn done(&self) -> bool {
        self.0.lock().map(|g| g.1).unwrap_or(true)
    }

    fn bytes(&self) -> Vec<u8> {
        self.0.lock().map(|g| g.0.clone()).unwrap_or_default()
    }
}

fn drain(pipe: Option<impl Read + Send + 'static>) -> Drained {
    let shared = Arc::new(Mutex::new((Vec::new(), pipe.is_none())));
    if let Some(pipe) = pipe {
        let filled = shared.clone();
        std::thread::spawn(move || {
            let mut pipe = pipe.take(MAX_OUTPUT);
            let mut chunk = [0u8; 8192];
            loop {
                match pipe.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if let Ok(mut g) = filled.lock() {
                            g.0.extend_from_slice(&chunk[..n]);
                        }
                    }
                }
            }
            if let Ok(mut g) = filled.lock() {
                g.1 = true;
            }
        });
    }
    Drained(shared)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plugin(command: &str) -> Plugin {
        Plugin {
            exec: ExecConfig {
                command: Some(command.into()),
                ..Default::default()
            },
            command: command.into(),
            context: "eks-ci".into(),
            user: "ci".into(),
        }
    }

    #[cfg(unix)]
    fn ok() -> ExitStatus {
        std::os::unix::process::ExitStatusExt::from_raw(0)
    }

    /// What a context's user would run or send, generously: 4 cases.
    #[test]
    fn a_kubeconfig_says_what_it_would_run_or_send() {
        let config = |user: &str| {
            kube::config::Kubeconfig::from_yaml(&format!(
                "apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n{user}\n\
                 contexts:\n- name: x\n  context: {{cluster: c, user: u}}\ncurrent-context: x\n"
            ))
            .unwrap()
        };
        let exec = config(
            "    token: t\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      \
             command: aws\n      args: [eks, get-token]",
        );
        assert_eq!(
            local_actions(&exec, None)
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
            ["runs `aws eks get-token` (its exec auth plugin of user u)"]
        );
        let gcp = config("    auth-provider:\n      name: gcp\n      config: {cmd-path: /bin/sh, cmd-args: -c id}");
        assert!(local_actions(&gcp, Some("x"))[0]
            .to_string()
            .contains("`/bin/sh -c id`"));
        let file = config("    tokenFile: /home/me/.cfconfig");
        assert!(
            matches!(&local_actions(&file, None)[0], LocalAction::SendsFile { path, .. } if path == "/home/me/.cfconfig")
        );
        assert!(local_actions(&exec, Some("other")).is_empty());
    }

    #[test]
    fn a_missing_plugin_is_named_with_who_needs_it_and_how_to_get_it() {
        let err = crate::env::with_vars(&[("PATH", Some("/nonexistent-dir"))], || {
            plugin("aws").check().unwrap_err()
        });
        assert_eq!(
            err.to_string(),
            "the auth plugin `aws` of user ci (context eks-ci) is not installed: \
             no directory of PATH has it"
        );
        assert!(err.hint().contains("AWS CLI"), "{}", err.hint());
        let mut own = plugin("/nonexistent-dir/my-plugin");
        own.exec.install_hint = Some("brew install my-plugin\n".into());
        let err = own.check().unwrap_err();
        assert_eq!(err.problem, Problem::NoSuchFile);
        assert_eq!(err.hint(), "brew install my-plugin");
    }

    #[cfg(unix)]
    #[test]
    fn output_without_a_credential_is_quoted_masked_and_cut() {
        let p = plugin("x");
        assert_eq!(
            p.judge(
                ok(),
                br#"{"kind":"ExecCredential","status":{"token":"t0k3n"}}"#,
                None
            ),
            Ok(())
        );
        assert_eq!(p.judge(ok(), b"status:\n  token: t0k3n\n", None), Ok(()));
        let Err(Problem::BadOutput { why, printed }) =
            p.judge(ok(), br#"{"kind":"ExecCredential","token":"t0k3n"}"#, None)
        else {
            panic!("accepted")
        };
        assert_eq!(why, "it has no status");
        assert_eq!(printed, r#"{"kind":"ExecCredential","token":"<redacted>"}"#);
        let long = format!("Usage: x [options]\n{}", "-".repeat(500));
        let Err(Problem::BadOutput { printed, .. }) = p.judge(ok(), long.as_bytes(), None) else {
            panic!("accepted")
        };
        assert!(printed.starts_with("Usage: x [options]\\n--"), "{printed}");
        assert!(printed.ends_with("… (cut at 200 characters)"), "{printed}");
    }
}
