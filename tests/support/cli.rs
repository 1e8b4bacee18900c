//! Running the real `cf-runner` binary in tests, isolated from the machine's
//! user: its own HOME (no `~/.cfconfig`, no `~/.kube/config`), no platform
//! token or proxy variables, no colour, no stdin.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A file of `values-examples/`, by name without `.yaml`.
pub fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("values-examples")
        .join(format!("{name}.yaml"))
}

/// stdout and stderr together, for assertions and failure messages.
pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// An empty home shared by a test binary's commands.
pub fn shared_home() -> &'static Path {
    static HOME: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    HOME.get_or_init(|| tempfile::tempdir().unwrap()).path()
}

/// What the machine's user has set that would reach the binary in a test:
/// platform token and address, its config file, proxies, docker's config.
/// Every runner removes all of them, so no test depends on who runs it.
const USER_ENV: &[&str] = &[
    "CF_API_KEY",
    "CF_URL",
    "CFCONFIG",
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "NO_PROXY",
    "no_proxy",
    "DOCKER_CONFIG",
    // Where `fleet register` keeps its registration key, and the age key
    // it re-encrypts with: a test never reads or writes the user's own.
    "XDG_CONFIG_HOME",
    "CF_RUNNER_FLEET_KEY_FILE",
    "SOPS_AGE_KEY_FILE",
];

/// The cf-runner binary the tests run: the one cargo built with them, or
/// the build `CF_RUNNER_TEST_BINARY` names (CI runs some suites a second
/// time on the static release binary, see `.ci/run`; the benchmarks time the
/// shipped build this way). A path that is not a binary fails every test
/// that runs it.
pub fn binary() -> PathBuf {
    match std::env::var_os("CF_RUNNER_TEST_BINARY") {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => PathBuf::from(env!("CARGO_BIN_EXE_cf-runner")),
    }
}

/// The binary, run in `dir`, which is also its HOME (no `~/.cfconfig`, no
/// `~/.kube/config`): `KUBECONFIG` names a file that does not exist, none of
/// [`USER_ENV`] is passed on, no colour, no stdin. A test sets what it needs
/// on top (`KUBECONFIG`, `CF_API_KEY`, another HOME or folder).
pub fn cf_runner(dir: &Path) -> Command {
    let mut cmd = Command::new(binary());
    cmd.current_dir(dir)
        .env("HOME", dir)
        .env("KUBECONFIG", dir.join("no-kubeconfig"))
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());
    for var in USER_ENV {
        cmd.env_remove(var);
    }
    cmd
}

/// The binary with `kubeconfig`, run in `home` (also its HOME).
pub fn isolated(kubeconfig: &Path, home: &Path) -> Command {
    let mut cmd = cf_runner(home);
    cmd.env("KUBECONFIG", kubeconfig);
    cmd
}

/// Runs the binary with `args`, `kubeconfig` and `home` on a blocking
/// thread, off an async test's runtime, with the platform client's retries
/// made quick.
pub async fn run_blocking(kubeconfig: &Path, home: &Path, args: Vec<String>) -> Output {
    let (k, h) = (kubeconfig.to_path_buf(), home.to_path_buf());
    tokio::task::spawn_blocking(move || {
        isolated(&k, &h)
            .args(&args)
            .env("CF_RUNNER_RETRY_BASE_MS", "20")
            .output()
            .unwrap()
    })
    .await
    .unwrap()
}

/// Runs the binary with `args` in a fresh, empty home.
pub fn run(kubeconfig: &Path, args: &[&str]) -> Output {
    let home = tempfile::tempdir().unwrap();
    isolated(kubeconfig, home.path())
        .args(args)
        .output()
        .unwrap()
}

/// `cf-runner init --yes` of the values example `example_name` into the
/// namespace `ns` of `context`, with `kubeconfig`, in `home`: the command
/// every end-to-end install starts from. A test adds how it gets its token,
/// whether it waits, and its own flags.
pub fn init(
    kubeconfig: &Path,
    home: &Path,
    example_name: &str,
    ns: &str,
    context: &str,
) -> Command {
    let mut cmd = isolated(kubeconfig, home);
    cmd.args(["init", "--yes", "--values"])
        .arg(example(example_name))
        .args(["--kube-namespace", ns, "--kube-context-name", context]);
    cmd
}

/// `cf-runner check -o json` of the `local` values example for namespace
/// `ns` of `context`, with `kubeconfig`: the run and its report.
pub fn check_json(kubeconfig: &Path, ns: &str, context: &str) -> (Output, serde_json::Value) {
    let values = example("local");
    let out = run(
        kubeconfig,
        &[
            "check",
            "--values",
            values.to_str().unwrap(),
            "--kube-namespace",
            ns,
            "--kube-context-name",
            context,
            "-o",
            "json",
        ],
    );
    let report =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    (out, report)
}
