//! `cf-runner support-bundle` against the real test control plane and the
//! fake platform: secrets seeded everywhere a bundle reads (a Secret, env
//! values, container args, annotations, an event's message, a proxy URL,
//! the API key, the agent token and the dind key) are none of them in the
//! unpacked bundle; a broken install (a runner pod whose image cannot be
//! pulled, a claim that cannot bind) shows why from the bundle alone; a
//! file cf-runner did not write is never written over; a user who may not
//! read cluster-wide (an API server that refuses part of the reads) gets
//! what could be read, and the rest named (bad flags:
//! tests/offline/support_bundle_flags.rs).
//!
//! Pod logs: kwok runs no containers and serves no logs on this control
//! plane, so no log can be seeded; the bundle names each log it could not
//! read, which this test checks instead.

use crate::support;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};

use base64::Engine;
use k8s_openapi::api::core::v1::{Event, PersistentVolumeClaim, Pod, Secret};
use k8s_openapi::api::rbac::v1::{Role, RoleBinding};
use kube::api::{Api, ListParams, PostParams};
use serde_json::json;
use support::cli::{self, isolated, text};
use support::controlplane::{self, poll_until};
use support::fake_platform::FakePlatform;
use support::namespace::unique;

const USER_TOKEN: &str = "user-api-key.bundle-0123456789abcdef";
const CONTEXT: &str = "admin@cf-runner-test";

/// Every file of a `.tar.gz`, by name, with its text.
fn unpack(path: &Path) -> BTreeMap<String, String> {
    let file = std::fs::File::open(path).unwrap();
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    archive
        .entries()
        .unwrap()
        .map(|e| {
            let mut e = e.unwrap();
            let name = e.path().unwrap().display().to_string();
            let mut text = String::new();
            e.read_to_string(&mut text).unwrap();
            (name, text)
        })
        .collect()
}

fn from_json<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> T {
    serde_json::from_value(v).unwrap()
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_bundle_of_a_broken_install_shows_why_and_holds_no_seeded_secret() {
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let ns = unique("cfbundle");
    let home = tempfile::tempdir().unwrap();

    // Secrets seeded through cf-runner itself: a proxy password, an env value.
    let proxy_pass = "seed-proxy-pass-5521";
    let env_pass = "seed-env-pass-7731";
    let https_proxy = format!("http://proxyuser:{proxy_pass}@proxy.example:3128");
    let env_var = format!("SEED_DB_PASSWORD={env_pass}");
    // The runner's image cannot be pulled: the install is broken.
    let out = cli::init(cp.admin_kubeconfig(), home.path(), "local", &ns, CONTEXT)
        .env("CF_RUNNER_RETRY_BASE_MS", "20")
        .args(["--url", &fake.url(), "--token", USER_TOKEN])
        .args(["--skip-cluster-integration", "--no-wait"])
        .args(["--https-proxy", &https_proxy, "--env-vars", &env_var])
        .args(["--docker-registry", "registry.does-not-exist.test"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));

    // Secrets seeded beside it: a user's Secret (also in the annotation
    // `kubectl apply` leaves), a pod's env, args and annotations, an
    // event's message; and a claim that cannot bind.
    let client = cp.client();
    let seeded_secret = "seed-secret-value-4410";
    let pod_env = "seed-pod-env-9920";
    let pod_arg = "seed-arg-token-3318";
    let pod_url = "seed-url-pass-6602";
    let annotation = "seed-annotation-8874";
    let event_pass = "seed-event-pass-1209";
    let secrets: Api<Secret> = Api::namespaced(client.clone(), &ns);
    let last_applied =
        json!({"apiVersion": "v1", "kind": "Secret", "stringData": {"password": seeded_secret}});
    secrets
        .create(
            &PostParams::default(),
            &from_json(json!({
                "metadata": {"name": "user-db", "annotations": {
                    "kubectl.kubernetes.io/last-applied-configuration": last_applied.to_string()}},
                "stringData": {"password": seeded_secret},
            })),
        )
        .await
        .unwrap();
    let pods: Api<Pod> = Api::namespaced(client.clone(), &ns);
    pods.create(
        &PostParams::default(),
        &from_json(json!({
            "metadata": {"name": "user-app", "annotations": {"example.com/api-token": annotation}},
            "spec": {"containers": [{
                "name": "app",
                "image": "registry.does-not-exist.test/app:1",
                "args": [format!("--token={pod_arg}")],
                "env": [
                    {"name": "DB_PASSWORD", "value": pod_env},
                    {"name": "API_URL", "value": format!("https://bob:{pod_url}@api.example")},
                ],
            }]},
        })),
    )
    .await
    .unwrap();
    // A pod that runs (kwok reports it Running), whose log is asked for.
    pods.create(
        &PostParams::default(),
        &from_json(json!({
            "metadata": {"name": "user-job"},
            "spec": {"containers": [{"name": "job", "image": "registry.example/job:1",
                "env": [{"name": "SERVICE_TOKEN", "value": pod_env}]}]},
        })),
    )
    .await
    .unwrap();
    let events: Api<Event> = Api::namespaced(client.clone(), &ns);
    events
        .create(
            &PostParams::default(),
            &from_json(json!({
                "metadata": {"name": "user-app.seed"},
                "involvedObject": {"kind": "Pod", "name": "user-app", "namespace": ns},
                "reason": "Seeded", "type": "Warning",
                "message": format!("login failed with password={event_pass}"),
            })),
        )
        .await
        .unwrap();
    let claims: Api<PersistentVolumeClaim> = Api::namespaced(client.clone(), &ns);
    claims
        .create(
            &PostParams::default(),
            &from_json(json!({
                "metadata": {"name": "dind-unbound"},
                "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "no-such-class",
                    "resources": {"requests": {"storage": "1Gi"}}},
            })),
        )
        .await
        .unwrap();

    // What a user would see with kubectl, before the bundle is taken.
    poll_until(
        "the runner pod fails its image pull",
        Duration::from_secs(60),
        || {
            let pods = pods.clone();
            async move {
                let list = pods
                    .list(&ListParams::default().labels("app=runner"))
                    .await?;
                Ok(list.items.iter().any(|p| {
                    serde_json::to_string(&p.status)
                        .unwrap_or_default()
                        .contains("ErrImagePull")
                }))
            }
        },
    )
    .await
    .unwrap();
    poll_until(
        "the claim's provisioning fails",
        Duration::from_secs(60),
        || {
            let events = events.clone();
            async move {
                let list = events.list(&ListParams::default()).await?;
                Ok(list
                    .items
                    .iter()
                    .any(|e| e.reason.as_deref() == Some("ProvisioningFailed")))
            }
        },
    )
    .await
    .unwrap();

    poll_until("the user's job runs", Duration::from_secs(60), || {
        let pods = pods.clone();
        async move {
            let p = pods.get("user-job").await?;
            Ok(p.status.and_then(|s| s.phase).as_deref() == Some("Running"))
        }
    })
    .await
    .unwrap();
    let agent_token = support::adopt::secret_text(cp, &ns, "runner", "codefresh.token");
    let dind_key = support::adopt::secret_text(cp, &ns, "codefresh-certs-server", "server-key.pem");

    let started = Instant::now();
    let out = isolated(cp.admin_kubeconfig(), home.path())
        .args([
            "support-bundle",
            "--kube-namespace",
            &ns,
            "--kube-context-name",
            CONTEXT,
        ])
        .args([
            "--url",
            &fake.url(),
            "--token",
            USER_TOKEN,
            "-o",
            "bundle.tar.gz",
        ])
        .output()
        .unwrap();
    let took = started.elapsed();
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    let path = home.path().join("bundle.tar.gz");
    let size = std::fs::metadata(&path).unwrap().len();
    eprintln!("bundle: {size} bytes in {:.2}s", took.as_secs_f64());
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let files = unpack(&path);

    // No seeded secret, in any form, in any file; nor in what it printed.
    let b64 = base64::engine::general_purpose::STANDARD;
    let seeded = [
        ("proxy password", proxy_pass.to_string()),
        ("env value", env_pass.to_string()),
        ("Secret value", seeded_secret.to_string()),
        ("pod env value", pod_env.to_string()),
        ("container arg", pod_arg.to_string()),
        ("password in a URL", pod_url.to_string()),
        ("annotation", annotation.to_string()),
        ("event message", event_pass.to_string()),
        ("API key", USER_TOKEN.to_string()),
        ("agent token", agent_token.clone()),
        ("dind server key", dind_key.trim().to_string()),
    ];
    let mut found = Vec::new();
    for (what, value) in &seeded {
        for form in [value.clone(), b64.encode(value)] {
            for (name, body) in &files {
                if body.contains(&form) {
                    found.push(format!("{what} in {name}"));
                }
            }
            if said.contains(&form) {
                found.push(format!("{what} in the output"));
            }
        }
    }
    eprintln!(
        "seeded secrets: {}, found in the bundle: {}",
        seeded.len(),
        found.len()
    );
    assert!(found.is_empty(), "{found:#?}");

    // What is in it, without a second tool.
    let names: Vec<&str> = files.keys().map(String::as_str).collect();
    for want in [
        "README.txt",
        "index.json",
        "info.json",
        "check.json",
        "record.yaml",
        "events.yaml",
        "nodes.yaml",
        "storage.yaml",
        "secrets.yaml",
        "versions.json",
        "runtime/from-record.json",
        "runtime/platform.json",
        "pods/user-app.yaml",
    ] {
        assert!(files.contains_key(want), "{want} missing from {names:?}");
    }
    let runner_pod = files
        .iter()
        .find(|(n, _)| n.starts_with("pods/runner-") && n.ends_with(".yaml"))
        .unwrap_or_else(|| panic!("no runner pod in {names:?}"))
        .1;
    assert!(
        runner_pod.contains("waiting: ErrImagePull")
            && runner_pod.contains("registry.does-not-exist.test/")
            && runner_pod.contains("not found"),
        "{runner_pod}"
    );
    let storage = &files["storage.yaml"];
    assert!(
        storage.contains("name: dind-unbound") && storage.contains("phase: Pending"),
        "{storage}"
    );
    assert!(
        storage.contains("ProvisioningFailed") && storage.contains("\"no-such-class\" not found"),
        "{storage}"
    );
    let nodes = &files["nodes.yaml"];
    assert!(
        nodes.contains(&format!("zone: {}", controlplane::NODE_ZONE)),
        "{nodes}"
    );
    assert!(
        nodes.contains("allocatable:") && nodes.contains("taints:"),
        "{nodes}"
    );
    // A Secret by name, key and size.
    let secrets_yaml = &files["secrets.yaml"];
    assert!(
        secrets_yaml.contains("name: user-db")
            && secrets_yaml.contains(&format!("password: {}", seeded_secret.len())),
        "{secrets_yaml}"
    );
    let versions = &files["versions.json"];
    assert!(
        versions.contains(env!("CARGO_PKG_VERSION")) && versions.contains("10.5.2"),
        "{versions}"
    );
    let info: serde_json::Value = serde_json::from_str(&files["info.json"]).unwrap();
    assert_eq!(info["installations"][0]["namespace"], ns.as_str());
    let platform: serde_json::Value =
        serde_json::from_str(&files["runtime/platform.json"]).unwrap();
    assert_eq!(
        platform["metadata"]["name"],
        format!("{CONTEXT}/{ns}"),
        "{platform}"
    );
    // The index names what was left out and what could not be read.
    let readme = &files["README.txt"];
    assert!(
        readme.contains("Secret values: never read into the bundle"),
        "{readme}"
    );
    assert!(
        readme.contains("never started (ErrImagePull): no log"),
        "{readme}"
    );
    // kwok serves no logs: the log of the running pod is named as not collected.
    assert!(
        readme.contains(
            "Could not be collected:\n  - pods/user-job/job.log: reading the log of container job"
        ),
        "{readme}"
    );
    // Redaction keeps what names things: tolerations' keys, Secret names.
    assert!(
        runner_pod.contains("secretName: runner") || runner_pod.contains("name: runner"),
        "{runner_pod}"
    );

    // Written over: its own bundle, yes (here under a size cap that leaves
    // files out, each named); a user's file, no (exit 2, names the flag
    // that overrides, the file untouched).
    let again = |out: &str| {
        isolated(cp.admin_kubeconfig(), home.path())
            .args([
                "support-bundle",
                "--kube-namespace",
                &ns,
                "--kube-context-name",
                CONTEXT,
            ])
            .args(["--max-log-bytes", "4Ki", "--max-size", "128Ki", "-o", out])
            .output()
            .unwrap()
    };
    let out = again("bundle.tar.gz");
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.contains("were left out to stay under --max-size 131072"),
        "{said}"
    );
    assert!(std::fs::metadata(&path).unwrap().len() <= 128 * 1024);
    let capped = unpack(&path);
    assert!(
        capped["README.txt"].contains("bytes would take the bundle past --max-size 131072"),
        "{}",
        capped["README.txt"]
    );
    std::fs::write(home.path().join("notes.tar.gz"), "my notes").unwrap();
    let out = again("notes.tar.gz");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("--output") && text(&out).contains("--overwrite"),
        "{}",
        text(&out)
    );
    assert_eq!(
        std::fs::read_to_string(home.path().join("notes.tar.gz")).unwrap(),
        "my notes"
    );

    // A partly broken API server, as a user who may read the namespace but
    // nothing cluster-wide sees it: what answered is in, what did not is
    // named with the API server's reason.
    let roles: Api<Role> = Api::namespaced(client.clone(), &ns);
    roles
        .create(
            &PostParams::default(),
            &from_json(json!({
                "metadata": {"name": "bundle-reader"},
                "rules": [{"apiGroups": [""], "verbs": ["get", "list"],
                    "resources": ["pods", "pods/log", "events", "secrets", "persistentvolumeclaims"]}],
            })),
        )
        .await
        .unwrap();
    let bindings: Api<RoleBinding> = Api::namespaced(client.clone(), &ns);
    bindings
        .create(
            &PostParams::default(),
            &from_json(json!({
                "metadata": {"name": "bundle-reader"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "bundle-reader"},
                "subjects": [{"kind": "User", "name": controlplane::LIMITED_USER}],
            })),
        )
        .await
        .unwrap();
    let out = isolated(cp.limited_kubeconfig(), home.path())
        .args(["support-bundle", "--kube-namespace", &ns])
        .output()
        .unwrap();
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("could not be collected"), "{said}");
    // The default name: the namespace and the time, in the current folder.
    let written: Vec<_> = std::fs::read_dir(home.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with(&format!("cf-runner-support-{ns}-")) && n.ends_with(".tar.gz"))
        .collect();
    assert_eq!(written.len(), 1, "{written:?}");
    let files = unpack(&home.path().join(&written[0]));
    let readme = &files["README.txt"];
    for failed in [
        "  - nodes.yaml: listing Nodes",
        "  - info.json: ",
        "the PersistentVolumes of storage.yaml: listing PersistentVolumes",
    ] {
        assert!(readme.contains(failed), "{failed} not in:\n{readme}");
    }
    assert!(
        files.contains_key("events.yaml") && files.contains_key("secrets.yaml"),
        "{readme}"
    );
    assert!(
        files.keys().any(|n| n.starts_with("pods/runner-")),
        "{readme}"
    );
    let all: String = files.values().cloned().collect();
    for (what, value) in &seeded {
        assert!(
            !all.contains(value.as_str()),
            "{what} in the limited bundle"
        );
    }
}
