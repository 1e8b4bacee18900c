//! `cf-runner renew agent-token` on the real test control plane and the
//! fake platform: a new agent replaces the old one (its runtimes, attached
//! ones included, move over), the runner Secret holds the new token, the
//! Deployment's AGENT_ID names the new agent, the record follows, the agent
//! never has zero ready replicas, the platform sees exactly the audited
//! calls, and the old token is checked: revoked (the fake's default) or
//! still working (its switch), which is warned about with the step that
//! revokes it. The real agent (venona 2.0.10) then polls the new agent's
//! tasks with the new token. Runs stopped half-way (before the new token
//! reached the cluster, and after) are finished by the next run, under the
//! same name.

use crate::attached_runtimes::args;
use crate::support;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Output;
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Secret;
use kube::api::Api;
use kube::Client;
use support::cli::{self, isolated, text};
use support::controlplane::{self, poll_until, ControlPlane, ADMIN_USER};
use support::fake_platform::FakePlatform;
use support::namespace::unique;
use support::venona::Agent;

const CONTEXT: &str = "admin@cf-runner-test";
const API_TOKEN: &str = "api-token-for-rotate-0123456789abcdef";

use support::rollout::ReadyWatch;

/// Runs the binary off the test's runtime thread.
async fn run(cp: &ControlPlane, home: &Path, args: Vec<String>) -> Output {
    let (k, h) = (cp.admin_kubeconfig().to_path_buf(), home.to_path_buf());
    tokio::task::spawn_blocking(move || {
        isolated(&k, &h)
            .args(&args)
            .env("CF_RUNNER_RETRY_BASE_MS", "20")
            .output()
            .unwrap()
    })
    .await
    .unwrap()
}

fn rotate_args(ns: &str, fake: &FakePlatform) -> Vec<String> {
    args(&[
        "renew",
        "agent-token",
        "--kube-namespace",
        ns,
        "--token",
        API_TOKEN,
        "--url",
        &fake.url(),
        "--timeout",
        "90s",
    ])
}

async fn secret(client: &Client, ns: &str, name: &str) -> (BTreeMap<String, String>, Secret) {
    let s = Api::<Secret>::namespaced(client.clone(), ns)
        .get(name)
        .await
        .unwrap();
    let data = s
        .data
        .clone()
        .unwrap_or_default()
        .into_iter()
        .map(|(k, v)| (k, String::from_utf8(v.0).unwrap()))
        .collect();
    (data, s)
}

async fn agent_token(client: &Client, ns: &str) -> String {
    secret(client, ns, "runner").await.0["codefresh.token"].clone()
}

async fn env_of(client: &Client, ns: &str) -> BTreeMap<String, String> {
    let d = Api::<Deployment>::namespaced(client.clone(), ns)
        .get("runner")
        .await
        .unwrap();
    d.spec.unwrap().template.spec.unwrap().containers[0]
        .env
        .clone()
        .unwrap_or_default()
        .into_iter()
        .map(|e| (e.name, e.value.unwrap_or_default()))
        .collect()
}

/// The rotation pending on the record, if any.
async fn pending(client: &Client, ns: &str) -> Option<String> {
    let (_, s) = secret(client, ns, "cf-runner-values").await;
    s.metadata
        .annotations
        .and_then(|mut a| a.remove("cf-runner.codefresh.io/agent-rotation"))
}

fn runtimes_of(fake: &FakePlatform, agent: &str) -> Vec<String> {
    let mut list: Vec<String> = fake
        .agents()
        .iter()
        .find(|a| a["name"] == agent)
        .unwrap_or_else(|| panic!("no agent {agent}: {:#?}", fake.agents()))["runtimes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    list.sort();
    list
}

/// Writes cf-runner made in namespace `ns` since audit event `since`.
fn writes_since(cp: &ControlPlane, since: usize, ns: &str) -> Vec<String> {
    cp.audit_events()
        .unwrap()
        .into_iter()
        .skip(since)
        .filter(|e| e["user"]["username"] == ADMIN_USER && e["stage"] == "ResponseComplete")
        .filter(|e| {
            e["userAgent"]
                .as_str()
                .unwrap_or_default()
                .to_ascii_lowercase()
                .starts_with("cf-runner")
        })
        .filter(|e| {
            matches!(
                e["verb"].as_str(),
                Some("create" | "update" | "patch" | "delete" | "deletecollection")
            )
        })
        .filter(|e| !crate::support::audit::is_dry_run(e))
        .filter(|e| e["objectRef"]["namespace"] == ns)
        .map(|e| {
            format!(
                "{} {}/{}",
                e["verb"].as_str().unwrap_or_default(),
                e["objectRef"]["resource"].as_str().unwrap_or_default(),
                e["objectRef"]["name"].as_str().unwrap_or_default()
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn renew_agent_token_replaces_the_agent_keeps_its_runtimes_and_checks_the_old_token() {
    controlplane::ensure_crypto_provider();
    let cp = controlplane::shared();
    let client = cp.client();
    let fake = FakePlatform::start(API_TOKEN);
    let home = tempfile::tempdir().unwrap();
    let ns = unique("rotate");
    let builds = cp.create_namespace("rotate-builds").await.unwrap();

    // An agent serving its own runtime and an attached one.
    let (k, h, n, u) = (
        cp.admin_kubeconfig().to_path_buf(),
        home.path().to_path_buf(),
        ns.clone(),
        fake.url(),
    );
    let out = tokio::task::spawn_blocking(move || {
        cli::init(&k, &h, "local", &n, CONTEXT)
            .env("CF_RUNNER_RETRY_BASE_MS", "20")
            .args(["--skip-cluster-integration", "--timeout=90s"])
            .args(["--token", API_TOKEN, "--url", &u])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(0), "init: {}", text(&out));
    let own = format!("{CONTEXT}/{ns}");
    let near = format!("{CONTEXT}/{builds}");
    fake.add_runtime(&near, CONTEXT, &builds);
    let mut attach = args(&[
        "runtime",
        "attach",
        "--allow-builds-to-read-tokens",
        "--agent-namespace",
        &ns,
    ]);
    attach.extend(args(&[
        "--agent-context",
        CONTEXT,
        "--kube-namespace",
        &builds,
    ]));
    attach.extend(args(&["--token", API_TOKEN, "--url", &fake.url()]));
    let out = run(cp, home.path(), attach).await;
    assert_eq!(out.status.code(), Some(0), "attach: {}", text(&out));
    let first = format!("{CONTEXT}_{ns}");
    let mut both = vec![own.clone(), near.clone()];
    both.sort();
    assert_eq!(runtimes_of(&fake, &first), both);
    let old_id = fake.agent_id(&first).unwrap();
    let old_token = agent_token(&client, &ns).await;
    assert!(fake.token_is_of(&old_token, &first));

    // 1. A rotation, where deleting the agent revokes its token.
    fake.clear_requests();
    let mark = cp.audit_events().unwrap().len();
    let watch = ReadyWatch::start(client.clone(), &ns);
    let out = run(cp, home.path(), rotate_args(&ns, &fake)).await;
    let fewest = watch.fewest().await;
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    let second = format!("{first}-r2");
    let new_id = fake.agent_id(&second).expect("the new agent exists");
    let new_token = agent_token(&client, &ns).await;
    assert_ne!(new_token, old_token);
    assert!(
        fake.token_is_of(&new_token, &second),
        "the runner Secret holds the new agent's token"
    );
    for token in [&old_token, &new_token] {
        assert!(
            !said.contains(token.as_str()),
            "a token was printed:\n{said}"
        );
    }
    assert!(said.contains("old token revoked"), "{said}");
    assert!(
        said.contains("ready replica(s) throughout"),
        "the run says the fewest ready replicas:\n{said}"
    );
    assert!(fewest >= 1, "the agent had {fewest} ready replicas");
    let env = env_of(&client, &ns).await;
    assert_eq!(env["AGENT_ID"], second);
    // Still serving the attached runtime from its files (config-dir mode).
    assert!(env.contains_key("VENONA_CONFIG_DIR"), "{env:?}");
    let (record, _) = secret(&client, &ns, "cf-runner-values").await;
    assert_eq!(record["agent-name"], second);
    assert_eq!(pending(&client, &ns).await, None);
    assert!(fake.agent_id(&first).is_none(), "the old agent is gone");
    assert_eq!(runtimes_of(&fake, &second), both);
    assert_eq!(
        fake.calls(),
        [
            "GET /api/agents".to_string(),
            "GET /api/agents".to_string(),
            "GET /api/agents".to_string(),
            "POST /api/agents".to_string(),
            format!("PUT /api/agent/{new_id}"),
            format!("PUT /api/agent/{old_id}"),
            format!("DELETE /api/agent/{old_id}"),
            format!("GET /api/agent/{}/tasks", urlencode(&first)),
        ],
        "{said}"
    );
    let probe = fake.requests().last().unwrap().clone();
    assert_eq!(probe.status, 401, "the old token was refused");
    let writes = writes_since(cp, mark, &ns);
    eprintln!(
        "{said}\nwrites of a rotation ({}): {writes:#?}\nfewest ready agent replicas: {fewest}",
        writes.len()
    );

    // The real agent (venona 2.0.10), on what the rotation left: it polls
    // the new agent's tasks with the new token; the old token is refused.
    let mut agent = Agent::start(cp, &ns, "runner").await.unwrap();
    assert_eq!(agent.env("AGENT_ID"), Some(second.as_str()));
    fake.clear_requests();
    poll_until(
        "the real agent to poll the new agent's tasks",
        Duration::from_secs(60),
        || {
            let polled = fake.requests().iter().any(|r| {
                r.method == "GET"
                    && r.path
                        .replace("%40", "@")
                        .contains(&format!("/api/agent/{second}/tasks"))
                    && r.authorized
                    && r.agent.as_deref() == Some(new_id.as_str())
            });
            async move { Ok(polled) }
        },
    )
    .await
    .unwrap_or_else(|e| {
        panic!(
            "{e:#}\n--- agent log:\n{}\n--- requests: {:#?}",
            agent.log(),
            fake.requests()
        )
    });
    assert!(
        fake.requests()
            .iter()
            .filter(|r| r.path.contains("/tasks"))
            .all(|r| r.status == 200),
        "{:#?}",
        fake.requests()
    );
    agent.stop();
    assert!(
        !fake.token_is_of(&old_token, &first),
        "the old token is gone"
    );

    // 2. A platform that leaves a deleted agent's token working: warned,
    // with the step that revokes it.
    fake.deleted_agents_keep_tokens(true);
    let out = run(cp, home.path(), rotate_args(&ns, &fake)).await;
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    let third = format!("{first}-r3");
    assert_eq!(env_of(&client, &ns).await["AGENT_ID"], third);
    assert!(said.contains("the old token still works"), "{said}");
    assert!(said.contains("User Settings"), "{said}");
    assert!(!said.contains(&new_token), "{said}");
    fake.deleted_agents_keep_tokens(false);

    // 3. Stopped before the new token reached the cluster (the new agent's
    // runtimes refused): the next run replaces that agent, same name.
    let before = agent_token(&client, &ns).await;
    fake.fail("PUT /api/agent/", 500, 4);
    let out = run(cp, home.path(), rotate_args(&ns, &fake)).await;
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("finishes the rotation"), "{said}");
    let fourth = format!("{first}-r4");
    assert!(pending(&client, &ns).await.unwrap().contains(&fourth));
    assert_eq!(agent_token(&client, &ns).await, before, "nothing applied");
    assert_eq!(env_of(&client, &ns).await["AGENT_ID"], third);
    let orphan = fake
        .agent_id(&fourth)
        .expect("the stopped run made the agent");
    let info = run(cp, home.path(), args(&["info", "--kube-namespace", &ns])).await;
    assert!(
        text(&info).contains(&format!(
            "stopped half-way; run `cf-runner renew agent-token --kube-namespace {ns}`"
        )),
        "{}",
        text(&info)
    );
    fake.clear_requests();
    let out = run(cp, home.path(), rotate_args(&ns, &fake)).await;
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("finishing that rotation"), "{said}");
    assert!(
        said.contains(&format!("agent {fourth} replaced agent {third}")),
        "{said}"
    );
    let replaced = fake.agent_id(&fourth).unwrap();
    assert_ne!(replaced, orphan, "the agent without a token was replaced");
    assert!(fake
        .calls()
        .contains(&format!("DELETE /api/agent/{orphan}")));
    assert_eq!(env_of(&client, &ns).await["AGENT_ID"], fourth);
    assert!(fake.token_is_of(&agent_token(&client, &ns).await, &fourth));
    assert_eq!(pending(&client, &ns).await, None);
    assert!(fake.agent_id(&third).is_none());
    assert_eq!(runtimes_of(&fake, &fourth), both);

    // 4. Stopped after the cluster switched (the old agent's delete
    // refused): the next run deletes it, creating nothing.
    fake.fail("DELETE /api/agent/", 500, 4);
    let out = run(cp, home.path(), rotate_args(&ns, &fake)).await;
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    let fifth = format!("{first}-r5");
    assert_eq!(env_of(&client, &ns).await["AGENT_ID"], fifth);
    assert!(
        fake.agent_id(&fourth).is_some(),
        "the old agent is still there"
    );
    fake.clear_requests();
    let out = run(cp, home.path(), rotate_args(&ns, &fake)).await;
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    let calls = fake.calls();
    assert!(
        !calls.contains(&"POST /api/agents".to_string()),
        "{calls:?}"
    );
    assert!(fake.agent_id(&fourth).is_none(), "the old agent is gone");
    assert_eq!(runtimes_of(&fake, &fifth), both);
    assert_eq!(pending(&client, &ns).await, None);
    assert!(
        said.contains("could not check that the old token is revoked"),
        "{said}"
    );
    assert_eq!(fake.agents().len(), 1, "{:#?}", fake.agents());
}

/// `segment` of the platform client: a path segment, percent-encoded.
fn urlencode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
