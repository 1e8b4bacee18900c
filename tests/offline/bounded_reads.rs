//! Files cf-runner reads on its own, not named as values: its export record
//! (which a cloned repository can carry), a docker `config.json`
//! (`--docker-config`, `$DOCKER_CONFIG`), `~/.cfconfig`. Each used to be read
//! whole, whatever it was: a FIFO blocked the run for good, a link to
//! `/dev/zero` filled the memory. Now each goes through the one bounded
//! reader (`src/input_file.rs`), which checks the kind first. Every run here
//! has a deadline and is killed past it, so a regression fails instead of
//! hanging the test run. (The wizard's key file is covered in
//! `src/wizard/tests.rs`.)

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use support::cli;

/// The two hostile kinds of file, made at `path`.
#[derive(Clone, Copy, Debug)]
enum Hostile {
    Fifo,
    LinkToDevZero,
}

impl Hostile {
    fn make(self, path: &Path) {
        match self {
            Hostile::Fifo => {
                let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
                // SAFETY: mkfifo on a NUL-terminated path this test owns.
                assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
            }
            Hostile::LinkToDevZero => std::os::unix::fs::symlink("/dev/zero", path).unwrap(),
        }
    }

    /// What the refusal says about the file.
    fn described(self) -> &'static str {
        match self {
            Hostile::Fifo => "named pipe (FIFO)",
            Hostile::LinkToDevZero => "character device",
        }
    }
}

const BOTH: [Hostile; 2] = [Hostile::Fifo, Hostile::LinkToDevZero];

/// Runs `cmd`, killing it after `limit`; fails the test if it had to.
fn run_within(mut cmd: Command, limit: Duration) -> Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "still running after {limit:?} (blocked on a file?): {}",
                cli::text(&out)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

const LIMIT: Duration = Duration::from_secs(30);

fn local_example() -> PathBuf {
    cli::example("local")
}

/// The export record is a FIFO or a link to `/dev/zero`: the dry-run
/// refuses the folder at once, naming the record.
#[test]
fn an_export_record_that_is_a_fifo_or_dev_zero_is_refused_at_once() {
    for hostile in BOTH {
        let work = tempfile::tempdir().unwrap();
        let out_dir = work.path().join("manifests");
        std::fs::create_dir(&out_dir).unwrap();
        hostile.make(&out_dir.join(".cf-runner-export"));
        let mut cmd = cli::cf_runner(work.path());
        cmd.args(["init", "--dry-run", "--yes", "--values"])
            .arg(local_example())
            .arg("--output-dir")
            .arg(&out_dir);
        let out = run_within(cmd, LIMIT);
        let shown = cli::text(&out);
        assert_ne!(out.status.code(), Some(0), "{hostile:?}: {shown}");
        assert!(shown.contains(".cf-runner-export"), "{hostile:?}: {shown}");
        // Nothing was written beside it.
        let left: Vec<_> = std::fs::read_dir(&out_dir).unwrap().collect();
        assert_eq!(left.len(), 1, "{hostile:?}: {shown}");
    }
}

/// `images --check --docker-config` on a FIFO or `/dev/zero`, and the same
/// file found through `$DOCKER_CONFIG`: bad input (exit 2) naming the flag
/// or the file, before any registry is asked.
#[test]
fn a_docker_config_that_is_a_fifo_or_dev_zero_is_refused_at_once() {
    for hostile in BOTH {
        let work = tempfile::tempdir().unwrap();
        let config = work.path().join("config.json");
        hostile.make(&config);
        let mut cmd = cli::cf_runner(work.path());
        cmd.args(["images", "--check", "-f"])
            .arg(local_example())
            .arg("--docker-config")
            .arg(&config);
        let out = run_within(cmd, LIMIT);
        let shown = cli::text(&out);
        assert_eq!(out.status.code(), Some(2), "{hostile:?}: {shown}");
        assert!(shown.contains("--docker-config"), "{hostile:?}: {shown}");
        assert!(shown.contains(hostile.described()), "{hostile:?}: {shown}");

        let mut cmd = cli::cf_runner(work.path());
        cmd.args(["images", "--check", "-f"])
            .arg(local_example())
            .env("DOCKER_CONFIG", work.path());
        let out = run_within(cmd, LIMIT);
        let shown = cli::text(&out);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{hostile:?} $DOCKER_CONFIG: {shown}"
        );
        assert!(shown.contains(hostile.described()), "{hostile:?}: {shown}");
    }
}

/// `~/.cfconfig` is a FIFO or `/dev/zero`: a command that needs the token
/// says the file is not one, at once.
#[test]
fn a_cfconfig_that_is_a_fifo_or_dev_zero_is_refused_at_once() {
    for hostile in BOTH {
        let home = tempfile::tempdir().unwrap();
        hostile.make(&home.path().join(".cfconfig"));
        let mut cmd = cli::cf_runner(home.path());
        cmd.args(["test-pipeline", "--runtime-name", "ctx/ns"]);
        let out = run_within(cmd, LIMIT);
        let shown = cli::text(&out);
        assert_ne!(out.status.code(), Some(0), "{hostile:?}: {shown}");
        assert!(shown.contains(".cfconfig"), "{hostile:?}: {shown}");
        assert!(shown.contains(hostile.described()), "{hostile:?}: {shown}");
    }
}
