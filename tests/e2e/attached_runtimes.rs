//! What the tests of attached runtimes share (`e2e_attach`, `e2e_ca_bundle_record`,
//! `e2e_attach_values`, `e2e_runtime_credentials`, `e2e_venona_attach`): a
//! kubeconfig with a second control plane, a run of the binary off the
//! test's runtime thread, and the agent's runtime files as the cluster
//! holds them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use k8s_openapi::api::core::v1::Secret;
use kube::api::Api;
use kube::Client;
use serde_json::Value;

use crate::support::cli::isolated;
use crate::support::controlplane::ControlPlane;

/// The shared control plane's admin context.
pub const CONTEXT: &str = "admin@cf-runner-test";

/// The context of the second control plane in [`merged_kubeconfig`].
pub const SECOND: &str = "admin2@second-cp";

/// A kubeconfig holding the shared control plane (its admin context) and a
/// second one (context [`SECOND`]), written in `dir`.
pub fn merged_kubeconfig(first: &ControlPlane, second: &ControlPlane, dir: &Path) -> PathBuf {
    let read = |p: &Path| std::fs::read_to_string(p).unwrap();
    let other = read(second.admin_kubeconfig())
        .replace("cf-runner-test", "second-cp")
        .replace("- name: admin\n", "- name: admin2\n")
        .replace("user: admin\n", "user: admin2\n")
        .replace("admin@second-cp", SECOND);
    let mut a: Value = serde_yaml_ng::from_str(&read(first.admin_kubeconfig())).unwrap();
    let b: Value = serde_yaml_ng::from_str(&other).unwrap();
    for list in ["clusters", "users", "contexts"] {
        let extra = b[list].as_array().unwrap().clone();
        a[list].as_array_mut().unwrap().extend(extra);
    }
    let path = dir.join("kubeconfig");
    std::fs::write(&path, serde_yaml_ng::to_string(&a).unwrap()).unwrap();
    path
}

/// Runs the binary with `kubeconfig` and `home` only, off the test's
/// runtime thread (the test keeps serving its fake platform meanwhile).
pub async fn run(kubeconfig: &Path, home: &Path, args: Vec<String>) -> Output {
    let (k, h) = (kubeconfig.to_path_buf(), home.to_path_buf());
    tokio::task::spawn_blocking(move || isolated(&k, &h).args(&args).output().unwrap())
        .await
        .unwrap()
}

/// The agent's `cf-runner init` as these suites install it: the `local`
/// example in `ns` of the shared control plane's admin context, no cluster
/// test, the fake platform at `url` with `token`.
pub async fn init_agent(
    kubeconfig: &Path,
    home: &Path,
    ns: &str,
    url: &str,
    token: &str,
) -> Output {
    let (k, h, ns) = (kubeconfig.to_path_buf(), home.to_path_buf(), ns.to_string());
    let (url, token) = (url.to_string(), token.to_string());
    tokio::task::spawn_blocking(move || {
        crate::support::cli::init(&k, &h, "local", &ns, CONTEXT)
            .args(["--skip-cluster-test", "--timeout=90s"])
            .args(["--token", &token, "--url", &url])
            .output()
            .unwrap()
    })
    .await
    .unwrap()
}

/// A command line from string slices.
pub fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// The agent's runtime files (Secret `runnerconf` of `ns`), parsed.
pub async fn runtime_files(client: &Client, ns: &str) -> BTreeMap<String, Value> {
    let secrets: Api<Secret> = Api::namespaced(client.clone(), ns);
    let s = secrets.get("runnerconf").await.unwrap();
    s.data
        .unwrap()
        .into_iter()
        .map(|(k, v)| (k, serde_yaml_ng::from_slice(&v.0).unwrap()))
        .collect()
}
