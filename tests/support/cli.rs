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

/// The binary with `kubeconfig`, run in `home` (also its HOME).
pub fn isolated(kubeconfig: &Path, home: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cf-runner"));
    cmd.current_dir(home)
        .env("KUBECONFIG", kubeconfig)
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());
    for var in [
        "CF_API_KEY",
        "CF_URL",
        "CFCONFIG",
        "HTTPS_PROXY",
        "https_proxy",
        "HTTP_PROXY",
        "http_proxy",
        "NO_PROXY",
        "no_proxy",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

/// Runs the binary with `args` in a fresh, empty home.
pub fn run(kubeconfig: &Path, args: &[&str]) -> Output {
    let home = tempfile::tempdir().unwrap();
    isolated(kubeconfig, home.path())
        .args(args)
        .output()
        .unwrap()
}
