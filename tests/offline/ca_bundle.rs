//! `--ca-bundle`: a user behind a TLS-inspecting proxy gives its CA once,
//! and cf-runner's own calls to the platform trust it, as the installed
//! components and builds do.
//!
//! The proxy is played by a TLS front (`support::tls_front`): it presents a
//! certificate signed by a throwaway CA and passes each request on to the
//! fake platform, as an inspecting proxy re-signs and forwards. Without the
//! bundle cf-runner must refuse the front's certificate; with it, the run
//! goes through and the Helm values carry the bundle to the chart.

use crate::support;

use std::net::SocketAddr;
use std::path::Path;

use support::cli;
use support::fake_platform::FakePlatform;
use support::tls_front::{pki, tls_front};

use rcgen::KeyPair;

const TOKEN: &str = "5f0c0ffee0c0ffee0c0ffee0.0123456789abcdef0123456789abcdef";

fn helm_values_via(dir: &Path, url: &str, bundle: Option<&Path>) -> std::process::Output {
    let kubeconfig = dir.join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        "apiVersion: v1\nkind: Config\ncurrent-context: ci\nclusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:1'}\n\
         contexts:\n- name: ci\n  context: {cluster: c, user: u}\nusers:\n- name: u\n  user: {token: t}\n",
    )
    .unwrap();
    let mut cmd = cli::isolated(&kubeconfig, dir);
    cmd.args(["init", "--yes", "--url", url, "--token", TOKEN]);
    cmd.args([
        "--kube-namespace",
        "codefresh",
        "--generate-helm-values-file",
        "values.yaml",
        "--overwrite",
    ]);
    if let Some(path) = bundle {
        cmd.arg("--ca-bundle").arg(path);
    }
    cmd.output().unwrap()
}

#[test]
fn the_platform_behind_an_inspecting_proxy_is_trusted_with_the_bundle_only() {
    let fake = FakePlatform::start(TOKEN);
    let backend: SocketAddr = fake.url().trim_start_matches("http://").parse().unwrap();
    let pki = pki();
    let front = tls_front(&pki, backend);
    let url = format!("https://{front}");
    let dir = tempfile::tempdir().unwrap();

    let refused = helm_values_via(dir.path(), &url, None);
    let text = cli::text(&refused);
    assert!(!refused.status.success(), "{text}");
    assert!(text.to_lowercase().contains("certificate"), "{text}");
    assert!(
        fake.calls().is_empty(),
        "nothing passed the front: {:?}",
        fake.calls()
    );

    let bundle = dir.path().join("proxy-ca.pem");
    std::fs::write(&bundle, &pki.ca_pem).unwrap();
    let trusted = helm_values_via(dir.path(), &url, Some(&bundle));
    assert!(trusted.status.success(), "{}", cli::text(&trusted));
    assert!(
        fake.calls().iter().any(|c| c == "GET /api/user"),
        "{:?}",
        fake.calls()
    );
    let values: serde_json::Value =
        serde_yaml_ng::from_str(&std::fs::read_to_string(dir.path().join("values.yaml")).unwrap())
            .unwrap();
    let extra = &values["extraResources"][0];
    assert_eq!(extra["kind"], "ConfigMap");
    assert_eq!(
        extra["data"]["ca-bundle.pem"].as_str().unwrap().trim(),
        pki.ca_pem.trim()
    );
}

#[test]
fn a_missing_or_non_pem_bundle_exits_2_naming_the_flag_and_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nowhere.pem");
    let key = dir.path().join("key.pem");
    std::fs::write(&key, KeyPair::generate().unwrap().serialize_pem()).unwrap();
    for (path, why) in [(&missing, "does not exist"), (&key, "private key")] {
        let out = cli::cf_runner(dir.path())
            .args([
                "init",
                "--dry-run",
                "--output-dir",
                "-",
                "--yes",
                "--kube-namespace",
                "codefresh",
            ])
            .arg("--ca-bundle")
            .arg(path)
            .output()
            .unwrap();
        let text = cli::text(&out);
        assert_eq!(out.status.code(), Some(2), "{text}");
        assert!(text.contains("--ca-bundle"), "{text}");
        assert!(
            text.contains(path.file_name().unwrap().to_str().unwrap()),
            "{text}"
        );
        assert!(text.contains(why), "{text}");
        assert!(
            !text.contains("PRIVATE KEY-----\n"),
            "the key is never shown: {text}"
        );
    }
}
