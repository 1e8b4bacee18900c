//! `cf-runner support-bundle` of an agent with a runtime attached, against
//! the real test control plane and the fake platform: every secret
//! cf-runner wrote or uses (the agent token, the API key, the dind key,
//! the attached runtime's token in `runnerconf` and in its namespace's
//! `cf-runner-agent-token`) is planted in the namespace's events in each
//! encoding a person would use (base64 of `user:` + the value at all three
//! alignments, standard and URL-safe, padded or not; hex; percent; JSON),
//! and none of those forms is in the unpacked bundle. Its README names how
//! many values it looked for, which, and in which encodings.
//!
//! (Secrets seeded in other places, and the bundle's other contents:
//! tests/e2e/e2e_support_bundle.rs.)

use crate::support;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use base64::Engine;
use k8s_openapi::api::core::v1::Event;
use kube::api::{Api, PostParams};
use serde_json::json;
use support::cli::{self, isolated, text};
use support::controlplane;
use support::fake_platform::FakePlatform;

const CONTEXT: &str = "admin@cf-runner-test";
const API_TOKEN: &str = "api-token-bundle-scan-0123456789abcdef";

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

/// The forms of `value` a person would write down, by name; written here
/// from the encodings' definitions, not from cf-runner's code. Base64 is
/// of `prefix + value` for prefixes of 0, 1 and 2 bytes modulo 3, so the
/// value sits at each alignment; only the characters that encode the value
/// alone are searched for (the first and last depend on the neighbours).
fn encodings(value: &str) -> Vec<(String, String, String)> {
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    let mut out = vec![("as it is".to_string(), value.to_string(), value.to_string())];
    for prefix in ["", "user:", "u:"] {
        let text = format!("{prefix}{value}");
        for (name, engine) in [
            ("standard", &STANDARD),
            ("standard unpadded", &STANDARD_NO_PAD),
            ("URL-safe", &URL_SAFE),
            ("URL-safe unpadded", &URL_SAFE_NO_PAD),
        ] {
            let planted = engine.encode(&text);
            // The characters of whole groups that hold value bytes only.
            let first = prefix.len().div_ceil(3) * 4;
            let whole = (text.len() / 3) * 4;
            let core = planted[first..whole.max(first)].to_string();
            out.push((format!("base64 {name} of {prefix:?}+value"), planted, core));
        }
    }
    let hex: String = value.bytes().map(|b| format!("{b:02x}")).collect();
    out.push(("hex".into(), hex.clone(), hex.clone()));
    out.push((
        "HEX".into(),
        hex.to_ascii_uppercase(),
        hex.to_ascii_uppercase(),
    ));
    let percent: String = url::form_urlencoded::byte_serialize(value.as_bytes()).collect();
    out.push(("percent".into(), percent.clone(), percent));
    let json = serde_json::to_string(value).unwrap();
    let json = json.trim_matches('"').to_string();
    out.push(("JSON".into(), json.clone(), json));
    out
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn every_secret_of_an_agent_with_an_attached_runtime_in_every_encoding_stays_out() {
    let cp = controlplane::shared();
    let fake = FakePlatform::start(API_TOKEN);
    let home = tempfile::tempdir().unwrap();
    let agent_ns = cp.create_namespace("bscan-agent").await.unwrap();
    let builds = cp.create_namespace("bscan-builds").await.unwrap();
    let kubeconfig = cp.admin_kubeconfig().to_path_buf();
    let url = fake.url();

    let out = cli::init(&kubeconfig, home.path(), "local", &agent_ns, CONTEXT)
        .args(["--skip-cluster-test", "--timeout=90s"])
        .args(["--token", API_TOKEN, "--url", &url])
        .output()
        .unwrap();
    assert!(out.status.success(), "init: {}", text(&out));
    let near = format!("{CONTEXT}/{builds}");
    fake.add_runtime(&near, CONTEXT, &builds);
    let out = isolated(&kubeconfig, home.path())
        .args([
            "runtime",
            "attach",
            "--allow-builds-to-read-tokens",
            "--agent-namespace",
            &agent_ns,
        ])
        .args(["--agent-context", CONTEXT, "--kube-namespace", &builds])
        .args(["--token", API_TOKEN, "--url", &url])
        .output()
        .unwrap();
    assert!(out.status.success(), "attach: {}", text(&out));

    let secret = |ns: &str, name: &str, key: &str| support::adopt::secret_text(cp, ns, name, key);
    let conf_key = format!("{}.runtime.yaml", near.replace(['/', '@', ':'], "."));
    let conf: serde_json::Value =
        serde_yaml_ng::from_str(&secret(&agent_ns, "runnerconf", &conf_key)).unwrap();
    let secrets = [
        (
            "agent token",
            secret(&agent_ns, "runner", "codefresh.token"),
        ),
        ("API key", API_TOKEN.to_string()),
        (
            "dind key",
            secret(&agent_ns, "codefresh-certs-server", "server-key.pem")
                .trim()
                .to_string(),
        ),
        (
            "attached runtime's token (runnerconf)",
            conf["token"].as_str().unwrap().to_string(),
        ),
        (
            "attached runtime's token (its namespace)",
            secret(&builds, "cf-runner-agent-token", "token"),
        ),
    ];

    // Each form planted where support reads: an event's message each.
    let events: Api<Event> = Api::namespaced(cp.client(), &agent_ns);
    let mut planted = 0;
    for (what, value) in &secrets {
        for (i, (how, form, _)) in encodings(value).into_iter().enumerate() {
            planted += 1;
            let event: Event = serde_json::from_value(json!({
                "metadata": {"name": format!("seed.{planted}")},
                "involvedObject": {"kind": "Pod", "name": "app", "namespace": agent_ns},
                "reason": "Seeded", "type": "Normal",
                "message": format!("{what} as {how} ({i}): Authorization: Basic {form} sent"),
            }))
            .unwrap();
            events.create(&PostParams::default(), &event).await.unwrap();
        }
    }

    let out = isolated(&kubeconfig, home.path())
        .args(["support-bundle", "--kube-namespace", &agent_ns])
        .args([
            "--kube-context-name",
            CONTEXT,
            "--token",
            API_TOKEN,
            "--url",
            &url,
        ])
        .args(["-o", "bundle.tar.gz"])
        .output()
        .unwrap();
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.contains("the last scan looked for ") && said.contains("encodings, and found none"),
        "{said}"
    );
    let files = unpack(&home.path().join("bundle.tar.gz"));
    assert!(
        files["events.yaml"].contains("Seeded") && files["events.yaml"].contains("<redacted>"),
        "{}",
        files["events.yaml"]
    );

    let mut found = Vec::new();
    let mut tried = 0;
    for (what, value) in &secrets {
        for (how, _, core) in encodings(value) {
            tried += 1;
            for (name, body) in &files {
                if body.contains(&core) {
                    found.push(format!("{what} as {how} in {name}"));
                }
            }
            if said.contains(&core) {
                found.push(format!("{what} as {how} in the output"));
            }
        }
    }
    eprintln!(
        "forms planted: {planted}, tried: {tried}, found in the bundle: {}",
        found.len()
    );
    assert!(found.is_empty(), "{found:#?}");

    // The README claims what was scanned, and no more.
    let readme = &files["README.txt"];
    for want in [
        "the agent token (Secret runner, key codefresh.token)",
        "the Codefresh API key in use",
        "the dind key (Secret codefresh-certs-server, key server-key.pem)",
        &format!("the token of attached runtime {near} (Secret runnerconf"),
        "at each of the three byte alignments",
        "hex, lower and upper case",
        "URL percent-encoding",
        "JSON string escaping",
    ] {
        assert!(readme.contains(want), "{want} not in:\n{readme}");
    }
    let count = readme
        .split("looked for the ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or_else(|| panic!("no count in:\n{readme}"));
    assert!(count >= 4, "{readme}");
}
