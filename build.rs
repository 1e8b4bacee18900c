//! Test honesty, decided at build time so that a skipped test is reported
//! by `cargo test` as ignored, never as passed:
//!
//! - `CF_RUNNER_SKIP_E2E=1` compiles the end-to-end tests as `#[ignore]`d
//!   (cfg `skip_e2e`).
//!
//! Under CI (any non-empty `CI`) `CF_RUNNER_SKIP_E2E` is refused.
//!
//! What the tests need to know about the machine (which shells the
//! completion tests can drive) is not looked up here but in the tests' own
//! helper crate, `tests/host-tools`: this script must not depend on `PATH`,
//! or installing any package rebuilds the release binary (issue 47).
//!
//! Speed: a release build on Linux may be linked position-dependent
//! (`-no-pie`) when asked at build time, see [`link_release_binary`]; the
//! static (musl) release binary, the one shipped, is linked with its hot
//! functions together, see [`link_static_release`].

use std::path::PathBuf;

/// True when `CI` is set to anything but the empty string: `CI=1`,
/// `CI=yes` and `CI=true` are all CI.
fn under_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty())
}

/// True when this is a release build for Linux: Cargo sets `PROFILE` to
/// `release` for every profile that inherits it (`dist`, `bench-fast`).
fn release_for_linux() -> bool {
    std::env::var("PROFILE").is_ok_and(|p| p == "release")
        && std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux")
}

/// The build-time variable that links a Linux release binary
/// position-dependent.
const NO_PIE_VAR: &str = "CF_RUNNER_LINK_NO_PIE";

/// Links a release binary on Linux as a position-dependent executable, only
/// when [`NO_PIE_VAR`] is `1` at build time. A position-independent binary
/// carries about 37,000 relocations that the dynamic loader applies at every
/// start, writing into (and so copying) some 160 pages: a third of
/// `cf-runner --version` and an eighth of a dry-run to stdout (see the
/// README's benchmarks). The default stays position-independent anyway: the
/// binary handles tokens and parses what servers send (aws-lc's C included),
/// and with `-no-pie` its own code would load at a fixed address, which
/// hardened hosts' scanners flag. Debug builds and tests never change.
fn link_release_binary() {
    println!("cargo::rerun-if-env-changed={NO_PIE_VAR}");
    let asked = std::env::var(NO_PIE_VAR).is_ok_and(|v| v == "1");
    if asked && release_for_linux() {
        println!("cargo::rustc-link-arg-bins=-no-pie");
    }
}

/// Functions in the order of `release/symbol-order.txt`, written by
/// `release/symbol_order.sh`.
const SYMBOL_ORDER: &str = "release/symbol-order.txt";

/// Links the static release binary (target environment musl, profile
/// `dist` or `release`; built by `release/build.sh`) with lld, the linker rustc ships,
/// placing the functions a run of `--version`, a dry-run and an export
/// executes (listed in [`SYMBOL_ORDER`]) next to each other. Spread over the
/// 20 MiB of code as the compiler leaves them, a dry-run's functions lay in
/// about 110 stretches of 64 KiB, each a page fault; packed, in about 60
/// (issue 26).
/// Only the layout changes: a name the list holds that the binary no longer
/// has is passed over. Without rustc's lld the binary is linked as usual and
/// the build says so. Only for x86_64, whose runs the list was made from;
/// the aarch64 build is linked by zig (`release/cross.sh`), which takes
/// neither rustc's lld nor its flags.
fn link_static_release() {
    println!("cargo::rerun-if-changed={SYMBOL_ORDER}");
    let musl = std::env::var("CARGO_CFG_TARGET_ENV").is_ok_and(|env| env == "musl");
    let x86_64 = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|arch| arch == "x86_64");
    if !(musl && x86_64 && release_for_linux()) {
        return;
    }
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let host = std::env::var("HOST").unwrap_or_default();
    let sysroot = std::process::Command::new(rustc)
        .args(["--print", "sysroot"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()));
    let gcc_ld = sysroot.map(|root| root.join("lib/rustlib").join(host).join("bin/gcc-ld"));
    let order =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).join(SYMBOL_ORDER);
    match gcc_ld.filter(|dir| dir.join("ld.lld").is_file()) {
        Some(dir) if order.is_file() => {
            println!("cargo::rustc-link-arg-bins=-B{}", dir.display());
            println!("cargo::rustc-link-arg-bins=-fuse-ld=lld");
            println!("cargo::rustc-link-arg-bins=-Wl,--symbol-ordering-file={}", order.display());
            println!("cargo::rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
        }
        _ => println!(
            "cargo::warning=rustc's lld or {SYMBOL_ORDER} is missing: the static binary is linked without its function order (slower start, same behaviour)"
        ),
    }
}

fn main() {
    link_release_binary();
    link_static_release();
    println!("cargo::rustc-check-cfg=cfg(skip_e2e)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=CF_RUNNER_SKIP_E2E");
    println!("cargo::rerun-if-env-changed=CI");
    let ci = under_ci();
    let skip = std::env::var("CF_RUNNER_SKIP_E2E").is_ok_and(|v| !v.is_empty() && v != "0");
    if skip && ci {
        panic!(
            "CF_RUNNER_SKIP_E2E is set under CI (CI is set): CI must run the end-to-end tests; unset it"
        );
    }
    if skip {
        println!("cargo::rustc-cfg=skip_e2e");
    }
}
