//! Renders the reference `cf-runtime` chart (`../shared/reference/charts/`)
//! with `helm template`, for the tests that hold cf-runner against it.
//!
//! helm comes from the directory in `CF_RUNNER_HELM_BIN`, or else is built
//! (or reused from the cache) by `tests/helm/build.sh`, the same way the
//! control-plane binaries are found. A test that needs helm or the chart and
//! cannot get them fails with the reason: there is no skip.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use serde_json::Value;

/// Names the directory that holds a prebuilt `helm`.
pub const BIN_ENV: &str = "CF_RUNNER_HELM_BIN";
/// The chart version cf-runner follows.
pub const CHART_VERSION: &str = "10.5.2";

/// The reference chart, unchanged, beside the repository.
pub fn chart_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/reference/charts")
        .join(format!("cf-runtime-{CHART_VERSION}"));
    assert!(
        dir.join("Chart.yaml").is_file(),
        "the reference chart is missing at {}: the chart-parity tests need it \
         (see ../shared/reference/charts/README.md)",
        dir.display()
    );
    dir
}

/// The `helm` binary: `$CF_RUNNER_HELM_BIN/helm`, or the one
/// `tests/helm/build.sh` builds. Panics with the reason when neither works.
pub fn helm() -> PathBuf {
    static BIN: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BIN.get_or_init(find_helm).clone().unwrap_or_else(|e| {
        panic!("helm is needed to render the reference chart and is not available: {e}")
    })
}

fn find_helm() -> Result<PathBuf, String> {
    let dir = match std::env::var_os(BIN_ENV) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => super::tool::build("helm", BIN_ENV, "~15 minutes")?,
    };
    let bin = dir.join("helm");
    if !bin.is_file() {
        return Err(format!(
            "{} does not exist (build it with `bash tests/helm/build.sh`)",
            bin.display()
        ));
    }
    Ok(bin)
}

/// `helm template` of the reference chart with `values` files, in
/// `namespace`: every rendered object (hooks included), as JSON.
pub fn template(namespace: &str, values: &[&Path]) -> Result<Vec<Value>, String> {
    let home = tempfile::tempdir().expect("a temp dir");
    let mut cmd = Command::new(helm());
    cmd.arg("template")
        .arg("cf-runtime")
        .arg(chart_dir())
        .arg("--namespace")
        .arg(namespace);
    for file in values {
        cmd.arg("--values").arg(file);
    }
    // Keep helm away from the user's own config and caches.
    let output = cmd
        .env("HELM_CONFIG_HOME", home.path().join("config"))
        .env("HELM_CACHE_HOME", home.path().join("cache"))
        .env("HELM_DATA_HOME", home.path().join("data"))
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("could not run helm: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "helm template failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let mut objects = Vec::new();
    for doc in serde_yaml_ng::Deserializer::from_str(&text) {
        let value: Value = serde::Deserialize::deserialize(doc)
            .map_err(|e| format!("helm printed invalid YAML: {e}"))?;
        if !value.is_null() {
            objects.push(value);
        }
    }
    Ok(objects)
}
