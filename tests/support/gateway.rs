//! The Gateway API's standard CRDs (`tests/gateway-api/build.sh`, or
//! `$CF_RUNNER_GATEWAY_CRDS`) installed into a control plane, so that the
//! HTTPRoute cf-runner renders meets the real schema. No Gateway controller
//! runs: the API server validates and stores the routes, nothing routes.
#![allow(dead_code)]

use std::path::PathBuf;
use std::time::Duration;

use super::controlplane::ControlPlane;

/// The CRD of the one kind cf-runner renders from the Gateway API.
pub const HTTP_ROUTE_CRD: &str = "httproutes.gateway.networking.k8s.io";

/// The folder of the CRD files.
pub fn crds() -> PathBuf {
    match std::env::var_os("CF_RUNNER_GATEWAY_CRDS").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => super::tool::build("gateway-api", "CF_RUNNER_GATEWAY_CRDS", "a download")
            .unwrap_or_else(|e| panic!("{e}")),
    }
}

/// Every CustomResourceDefinition of the folder, as one YAML stream (the
/// folder also holds a ValidatingAdmissionPolicy, which is left out: it
/// only guards upgrades of the CRDs themselves).
pub fn crd_stream() -> String {
    let mut files: Vec<PathBuf> = std::fs::read_dir(crds())
        .expect("the Gateway API CRD folder")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    let mut stream = String::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for doc in text.split("\n---") {
            if doc.contains("kind: CustomResourceDefinition") {
                stream.push_str(doc.trim_start_matches('\n'));
                stream.push_str("\n---\n");
            }
        }
    }
    assert!(
        stream.contains(HTTP_ROUTE_CRD),
        "no HTTPRoute CRD in {}",
        crds().display()
    );
    stream
}

/// Installs the CRDs (server-side, so a second install is a no-op) and
/// waits until HTTPRoutes are served.
pub fn install(cp: &ControlPlane) {
    let out = cp.apply_yaml(&crd_stream());
    assert!(
        out.status.success(),
        "installing the Gateway API CRDs: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for _ in 0..60 {
        let done = cp
            .kubectl()
            .args([
                "wait",
                "--for=condition=Established",
                "--timeout=30s",
                &format!("crd/{HTTP_ROUTE_CRD}"),
            ])
            .output()
            .unwrap();
        if done.status.success() {
            return;
        }
        std::thread::sleep(Duration::from_secs(1));
    }
    panic!("CRD {HTTP_ROUTE_CRD} never became Established");
}
