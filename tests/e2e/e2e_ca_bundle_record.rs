//! A CaBundle that only the installation's record holds is a claim: anyone
//! who may edit that Secret could add a CA of theirs. `upgrade` renders it
//! for the components as recorded, but the user's API token does not travel
//! under it: calls to the platform trust a bundle only when this run gives
//! it (`--ca-bundle`, a values file), and the user is told so.
//!
//! The platform sits behind a TLS front signed by a throwaway CA
//! (`support::tls_front`), as behind a TLS-inspecting proxy.

use std::net::SocketAddr;

use crate::attached_runtimes::{args, run};
use crate::support;
use support::cli::{self, text};
use support::controlplane;
use support::fake_platform::FakePlatform;
use support::tls_front::{pki, tls_front};

const CONTEXT: &str = "admin@cf-runner-test";
const TOKEN: &str = "api-token-for-ca-bundle-0123456789abcdef";
const NOT_TRUSTED: &str = "the installation's CaBundle is not trusted for this run's calls";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn upgrade_trusts_the_bundle_it_is_given_not_the_one_the_record_holds() {
    controlplane::ensure_crypto_provider();
    let cp = controlplane::shared();
    let fake = FakePlatform::start(TOKEN);
    let backend: SocketAddr = fake.url().trim_start_matches("http://").parse().unwrap();
    let pki = pki();
    let url = format!("https://{}", tls_front(&pki, backend));
    let ns = cp.create_namespace("ca-record").await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let bundle = home.path().join("proxy-ca.pem");
    std::fs::write(&bundle, &pki.ca_pem).unwrap();
    let kubeconfig = cp.admin_kubeconfig().to_path_buf();

    // Installed through the front with the bundle: it is in the record now.
    let (k, h, n, u, b) = (
        kubeconfig.clone(),
        home.path().to_path_buf(),
        ns.clone(),
        url.clone(),
        bundle.clone(),
    );
    let out = tokio::task::spawn_blocking(move || {
        cli::init(&k, &h, "local", &n, CONTEXT)
            .args([
                "--skip-cluster-test",
                "--timeout=90s",
                "--token",
                TOKEN,
                "--url",
                &u,
            ])
            .arg("--ca-bundle")
            .arg(&b)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(out.status.success(), "init: {}", text(&out));

    let upgrade = args(&[
        "upgrade",
        "--yes",
        "--kube-namespace",
        &ns,
        "--kube-context-name",
        CONTEXT,
        "--token",
        TOKEN,
        "--url",
        &url,
    ]);
    let calls_before = fake.calls().len();
    // Without the flag: the record's bundle is not trusted for the token's
    // calls; the platform's certificate is refused, nothing passes the
    // front, and the upgrade (which changes no spec) goes on and says so.
    let out = run(&kubeconfig, home.path(), upgrade.clone()).await;
    let said = text(&out);
    assert!(out.status.success(), "upgrade: {said}");
    assert!(said.contains(NOT_TRUSTED), "{said}");
    assert!(said.contains("--ca-bundle"), "{said}");
    assert!(said.to_lowercase().contains("certificate"), "{said}");
    assert_eq!(fake.calls().len(), calls_before, "{:?}", fake.calls());

    // Given again on this run: trusted, the platform is reached.
    let mut with_flag = upgrade.clone();
    with_flag.extend(args(&["--ca-bundle", bundle.to_str().unwrap()]));
    let out = run(&kubeconfig, home.path(), with_flag).await;
    let said = text(&out);
    assert!(out.status.success(), "upgrade --ca-bundle: {said}");
    assert!(!said.contains(NOT_TRUSTED), "{said}");
    assert!(
        fake.calls()[calls_before..]
            .iter()
            .any(|c| c == "GET /api/user"),
        "{:?}",
        fake.calls()
    );
}
