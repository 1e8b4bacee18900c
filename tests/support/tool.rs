//! Test tools built from Go modules by a `tests/<tool>/build.sh` script
//! (helm, the venona agent): the script caches outside the repository and
//! prints what it built on its last line.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Runs `tests/<tool>/build.sh` because `env_var` is not set, and returns
/// the path on its last line. `cold` says how long a cold build takes.
pub fn build(tool: &str, env_var: &str, cold: &str) -> Result<PathBuf, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/{tool}/build.sh"));
    eprintln!(
        "{env_var} is not set: running `bash {}` (a cold build takes {cold})",
        script.display()
    );
    let output = Command::new("bash")
        .arg(&script)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("could not run `bash {}`: {e}", script.display()))?;
    if !output.status.success() {
        return Err(format!(
            "`bash {}` failed ({}); its output is above. Install Go >= 1.26 or set {env_var}",
            script.display(),
            output.status
        ));
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| format!("`bash {}` printed no path", script.display()))
}
