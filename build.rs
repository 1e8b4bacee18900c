//! Test honesty: `CF_RUNNER_SKIP_E2E=1` compiles the end-to-end tests as
//! `#[ignore]`d (cfg `skip_e2e`), so a run that skipped them reports them as
//! ignored, never as passed. Under `CI=true` it is refused: CI must run them.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(skip_e2e)");
    println!("cargo::rerun-if-env-changed=CF_RUNNER_SKIP_E2E");
    println!("cargo::rerun-if-env-changed=CI");
    let skip = std::env::var("CF_RUNNER_SKIP_E2E").is_ok_and(|v| !v.is_empty() && v != "0");
    let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    if skip && ci {
        panic!(
            "CF_RUNNER_SKIP_E2E is set under CI=true: CI must run the end-to-end tests; unset it"
        );
    }
    if skip {
        println!("cargo::rustc-cfg=skip_e2e");
    }
}
