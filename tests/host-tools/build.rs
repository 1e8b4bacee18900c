//! Finds the shells the completion tests drive (bash, zsh, fish) on `PATH`
//! and writes the ones missing to `$OUT_DIR/ignored_shells.txt`, for the
//! `needs_shell` attribute to mark their tests as ignored. Under CI (any
//! non-empty `CI`) nothing is written: a missing shell's test runs and
//! fails, so CI never reports a skipped test as passed.
//!
//! This lives here, not in cf-runner's `build.rs`, because looking at `PATH`
//! means rerunning whenever `PATH` or a folder on it changes; in the
//! product's build script that rebuilt the release binary (30 minutes with
//! fat LTO) each time a package was installed.

use std::path::PathBuf;

/// The shells the completion tests run.
const SHELLS: &[&str] = &["bash", "zsh", "fish"];

/// True when `CI` is set to anything but the empty string (the rule of
/// `tests/support/ci.rs`).
fn under_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty())
}

/// Where `name` is on `PATH`, if it is.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    let exe = format!("{name}{}", std::env::consts::EXE_SUFFIX);
    std::env::split_paths(&path)
        .map(|dir| dir.join(&exe))
        .find(|candidate| candidate.is_file())
}

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=PATH");
    println!("cargo::rerun-if-env-changed=CI");
    let ci = under_ci();
    let mut ignored = Vec::new();
    let mut missing = false;
    for shell in SHELLS {
        match on_path(shell) {
            // Looked at again when the shell is removed or replaced.
            Some(found) => println!("cargo::rerun-if-changed={}", found.display()),
            None => {
                missing = true;
                if !ci {
                    ignored.push(*shell);
                }
            }
        }
    }
    if missing {
        // Installing a shell adds a file to a folder on PATH: look again then.
        if let Some(path) = std::env::var_os("PATH") {
            for dir in std::env::split_paths(&path).filter(|d| d.is_dir()) {
                println!("cargo::rerun-if-changed={}", dir.display());
            }
        }
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("ignored_shells.txt"), ignored.join("\n"))
        .expect("OUT_DIR is writable");
}
