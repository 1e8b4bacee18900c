//! cf-runner as a kubectl plugin: installed on `PATH` as `kubectl-cf_runner`
//! (krew's link, or a copy), `kubectl cf-runner …` must answer exactly as
//! `cf-runner …` does, its help and usage naming the command the user typed.
//! Run through a real kubectl, the test control plane's (built from its Go
//! module, see `tests/controlplane/build.sh`).

use crate::support;

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// `program` with `args` in `dir` and nothing from the machine's user:
/// `dir` is HOME and the first folder on `PATH`, no kubeconfig, no colour.
fn run(program: &Path, args: &[&str], dir: &Path) -> Output {
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", path)
        .env("HOME", dir)
        .env("KUBECONFIG", dir.join("no-kubeconfig"))
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// What a run shows: exit code, stdout, stderr.
fn shown(o: &Output) -> (Option<i32>, String, String) {
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn kubectl_cf_runner_answers_as_cf_runner_does() {
    let dir = tempfile::tempdir().unwrap();
    let plugin = dir.path().join("kubectl-cf_runner");
    std::os::unix::fs::symlink(support::cli::binary(), &plugin).unwrap();
    let kubectl = support::controlplane::bin_dir()
        .expect("the control plane binaries (kubectl)")
        .join("kubectl");
    let direct = |args: &[&str]| shown(&run(&support::cli::binary(), args, dir.path()));
    let via_kubectl = |args: &[&str]| {
        let mut all = vec!["cf-runner"];
        all.extend_from_slice(args);
        shown(&run(&kubectl, &all, dir.path()))
    };

    // The same output, byte for byte, where no command name is shown.
    for args in [&["--version"][..], &["schema"], &["completions", "bash"]] {
        assert_eq!(via_kubectl(args), direct(args), "{args:?}");
    }
    // Help and usage name `kubectl cf-runner`, everything else the same.
    for args in [
        &["--help"][..],
        &["init", "--help"],
        &["init", "--no-such-flag"],
        &["fleet"],
    ] {
        let (code, out, err) = via_kubectl(args);
        let (want_code, want_out, want_err) = direct(args);
        assert_eq!(code, want_code, "{args:?}: {err}");
        let renamed = |text: String| text.replace("Usage: cf-runner", "Usage: kubectl cf-runner");
        assert_eq!(out, renamed(want_out), "{args:?}");
        assert_eq!(err, renamed(want_err), "{args:?}");
    }
    let (code, _, err) = via_kubectl(&["init", "--no-such-flag"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("Usage: kubectl cf-runner init"), "{err}");
}
