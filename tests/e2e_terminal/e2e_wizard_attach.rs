//! The real binary in a pseudo-terminal against the test control plane and
//! the fake platform: `init`'s wizard, in a cluster where cf-runner already
//! installed an agent, offers "attach to the agent already installed in
//! namespace X"; picking it asks only the runtime's namespace, then runs the
//! attach path (the agent's runtimes file, the platform's agent and the
//! runtime environment, registered for that namespace). Nothing of an
//! install happens: no second agent.

#![cfg(unix)]

use crate::support;

use std::process::Stdio;

use k8s_openapi::api::core::v1::Secret;
use kube::api::Api;
use rexpect::process::WaitStatus;
use rexpect::reader::Options;
use rexpect::session::spawn_with_options;
use serde_json::json;
use support::cli::{self, text};
use support::controlplane;
use support::fake_platform::FakePlatform;

const CONTEXT: &str = "admin@cf-runner-test";
const API_TOKEN: &str = "api-token-for-wizard-attach-0123456789";
const DOWN: &str = "\x1b[B";
const ENTER: &str = "\r";

/// rexpect hands over each byte as a char: UTF-8 text is matched in that form.
fn as_read(text: &str) -> String {
    text.bytes().map(char::from).collect()
}

/// Waits until `what` is on the screen, keeping what was shown in `seen`.
fn expect(t: &mut rexpect::session::PtySession, seen: &mut String, what: &str) {
    match t.exp_string(&as_read(what)) {
        Ok(before) => {
            seen.push_str(&before);
            seen.push_str(what);
        }
        Err(e) => panic!("waited for {what:?}: {e}\n--- the terminal showed:\n{seen}"),
    }
}

#[test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
fn the_wizard_offers_the_agent_it_finds_and_attaches_a_runtime_to_it() {
    controlplane::ensure_crypto_provider();
    let cp = controlplane::shared();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let fake = FakePlatform::start(API_TOKEN);
    let url = fake.url();
    let agent_ns = rt.block_on(cp.create_namespace("wiz-agent")).unwrap();
    let builds = rt.block_on(cp.create_namespace("wiz-builds")).unwrap();
    let home = tempfile::tempdir().unwrap();
    let kubeconfig = cp.admin_kubeconfig().to_path_buf();

    // The agent, installed as always.
    let out = cli::init(&kubeconfig, home.path(), "local", &agent_ns, CONTEXT)
        .args(["--skip-cluster-test", "--timeout=90s"])
        .args(["--token", API_TOKEN, "--url", &url])
        .output()
        .unwrap();
    assert!(out.status.success(), "init: {}", text(&out));
    let agents_before = fake.agents().len();

    // The wizard of a second `init` in the same cluster.
    let mut cmd = cli::isolated(&kubeconfig, home.path());
    cmd.args([
        "init",
        "--timeout=90s",
        "--allow-builds-to-read-tokens",
        "--token",
        API_TOKEN,
        "--url",
        &url,
    ])
    .env("TERM", "xterm")
    .stdin(Stdio::inherit());
    let options = Options::new()
        .timeout_ms(Some(120_000))
        .strip_ansi_escape_codes(true);
    let mut t = spawn_with_options(cmd, options).expect("spawn in a pty");
    let mut seen = String::new();
    let offer = format!("Attach to the agent already installed in namespace {agent_ns}");
    expect(&mut t, &mut seen, "? Runner");
    expect(&mut t, &mut seen, "Install a new runner");
    expect(&mut t, &mut seen, &offer);
    t.send(&format!("{DOWN}{ENTER}")).unwrap();
    t.flush().unwrap();
    expect(&mut t, &mut seen, "? Runtime namespace");
    // The agent's own namespace is refused on the spot, then the builds'.
    t.send(&format!("{agent_ns}{ENTER}")).unwrap();
    t.flush().unwrap();
    expect(&mut t, &mut seen, "holds a cf-runner install of its own");
    t.send(&format!("{builds}{ENTER}")).unwrap();
    t.flush().unwrap();
    expect(&mut t, &mut seen, "Summary");
    expect(&mut t, &mut seen, "? Go ahead?");
    t.send(ENTER).unwrap();
    t.flush().unwrap();
    expect(&mut t, &mut seen, "serves");
    let rest = t.exp_eof().unwrap_or_default();
    seen.push_str(&rest);
    let code = match t.process().wait().unwrap() {
        WaitStatus::Exited(_, code) => code,
        other => panic!("ended with {other:?}\n{seen}"),
    };
    assert_eq!(code, 0, "{seen}");

    // The attach path ran: the agent serves the new runtime, registered for
    // that namespace, from its runtimes file; no second agent.
    let name = format!("{CONTEXT}/{builds}");
    let re = fake
        .runtimes()
        .get(&name)
        .cloned()
        .unwrap_or_else(|| panic!("{name} registered\n{seen}"));
    assert_eq!(
        re["runtimeScheduler"]["cluster"]["namespace"],
        json!(builds)
    );
    assert_eq!(fake.agents().len(), agents_before);
    let agent = fake
        .agents()
        .into_iter()
        .find(|a| a["name"] == json!(format!("{CONTEXT}_{agent_ns}")))
        .unwrap();
    assert!(
        agent["runtimes"].as_array().unwrap().contains(&json!(name)),
        "{agent}"
    );
    let conf = rt
        .block_on(async {
            Api::<Secret>::namespaced(cp.client(), &agent_ns)
                .get("runnerconf")
                .await
        })
        .unwrap();
    assert_eq!(conf.data.unwrap_or_default().len(), 2);
}
