//! Messages against a real API server: rejected credentials (401) and a
//! server certificate the kubeconfig's CA did not sign. Both used to point
//! the wrong way: a raw Rust struct for the 401, a VPN hint for the CA.

use crate::support;

use support::cli::{run as cf_runner, text};
use support::controlplane;

/// A kubeconfig for the shared control plane's server with `cluster` (the
/// cluster entry's extra fields) and a token.
fn kubeconfig(dir: &std::path::Path, cluster_extra: &str, token: &str) -> std::path::PathBuf {
    let cp = controlplane::shared();
    let path = dir.join("config");
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: c\n\
             clusters:\n- name: c\n  cluster:\n    server: \"{}\"\n    {cluster_extra}\n\
             users:\n- name: u\n  user: {{token: {token}}}\n\
             contexts:\n- name: c\n  context: {{cluster: c, user: u}}\n",
            cp.server()
        ),
    )
    .unwrap();
    path
}

#[test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
fn rejected_credentials_are_named_not_dumped() {
    let cp = controlplane::shared();
    let dir = tempfile::tempdir().unwrap();
    let config = kubeconfig(
        dir.path(),
        &format!("certificate-authority: \"{}\"", cp.ca_file().display()),
        "not-a-token-this-server-knows",
    );
    for args in [
        &["check"][..],
        &["info"],
        &[
            "init",
            "--yes",
            "--agent-token",
            "offline-agent-token-0123456789",
            "--no-wait",
        ],
    ] {
        let out = cf_runner(&config, args);
        let shown = text(&out);
        assert_ne!(out.status.code(), Some(0), "{args:?}\n{shown}");
        assert!(!shown.contains("Status {"), "{args:?}\n{shown}");
        assert!(!shown.contains("ApiError"), "{args:?}\n{shown}");
        assert!(!shown.contains("admission policy"), "{args:?}\n{shown}");
        assert!(
            shown.contains("Unauthorized") || shown.contains("credentials"),
            "{args:?}\n{shown}"
        );
    }
}

#[test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
fn a_certificate_from_another_ca_gets_a_ca_hint() {
    use base64::Engine as _;
    let other = rcgen::generate_simple_self_signed(vec!["not-this-cluster".into()]).unwrap();
    let ca = base64::engine::general_purpose::STANDARD.encode(other.cert.pem());
    let dir = tempfile::tempdir().unwrap();
    let config = kubeconfig(
        dir.path(),
        &format!("certificate-authority-data: \"{ca}\""),
        "whatever",
    );
    let out = cf_runner(&config, &["info"]);
    let shown = text(&out);
    assert_ne!(out.status.code(), Some(0), "{shown}");
    assert!(shown.contains("UnknownIssuer"), "{shown}");
    assert!(
        shown.contains("not signed by the CA your kubeconfig trusts"),
        "{shown}"
    );
    assert!(!shown.contains("VPN"), "{shown}");
}
