//! A binary of its own: it sets `CF_RUNNER_RETRY_BASE_MS` for the whole
//! process (the platform client it drives in-process reads it), which every
//! cf-runner another test of the same binary spawned would inherit, its
//! retries then 100 times faster than a user's.
//!
//! The platform client against the fake platform, with the fake switched to
//! each behaviour the audit of the real clients says the real API may show
//! (`../shared/reference/platform-contract-audit.md`). No cluster needed:
//! these drive `cf_runner::platform` directly, call by call.

mod support;

use cf_runner::platform::{
    self, certs, Auth, Need, Platform, PlatformError, RegisterRuntime, TokenSource, Transport,
};
use cf_runner::values::Secret;
use serde_json::{json, Value};
use support::fake_platform::{Body2xx, FakePlatform, NameFilter, ACCOUNT_ID};

const USER_TOKEN: &str = "user-api-key.0123456789abcdef";

fn client_for(url: &str, token: &str) -> Result<Platform, PlatformError> {
    let auth = Auth {
        token: Secret::new(token),
        source: TokenSource::Flag,
        url: url.to_string(),
    };
    Platform::new(&auth, Transport::default())
}

fn client(fake: &FakePlatform) -> Platform {
    std::env::set_var("CF_RUNNER_RETRY_BASE_MS", "5");
    client_for(&fake.url(), fake.token()).unwrap()
}

/// Creates an agent through the fake's HTTP API, as another user would.
async fn someone_creates_agent(fake: &FakePlatform, name: &str) -> Value {
    let answer = reqwest::Client::new()
        .post(format!("{}/api/agents", fake.url()))
        .header("Authorization", fake.token())
        .json(&json!({ "name": name }))
        .send()
        .await
        .unwrap();
    assert!(answer.status().is_success());
    answer.json().await.unwrap()
}

fn register_request(name: &str) -> RegisterRuntime {
    RegisterRuntime {
        cluster_name: "ctx".into(),
        namespace: "ns".into(),
        storage_class_name: "dind-local-volumes-runner-ns".into(),
        service_account: "codefresh-engine".into(),
        runtime_environment_name: name.into(),
        agent: true,
        docker_daemon_scheduler: json!({"userAccess": true}),
        node_selector: json!({}),
    }
}

#[tokio::test]
async fn agent_records_with_both_id_and_underscore_id_are_read() {
    let fake = FakePlatform::start(USER_TOKEN);
    fake.set_both_ids(true);
    let platform = client(&fake);
    let created = platform.create_agent("ctx_ns").await.unwrap();
    assert!(created.token.is_some(), "the create answer holds the token");
    let found = platform.agents_named("ctx_ns").await.unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].id, created.id);
    assert!(fake.agents()[0].get("id").is_some());
    let raw = reqwest::Client::new()
        .get(format!("{}/api/agents", fake.url()))
        .header("Authorization", fake.token())
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    assert!(raw[0].get("_id").is_some() && raw[0].get("id").is_some());
}

#[tokio::test]
async fn a_2xx_that_is_not_json_is_success_for_register_and_the_cluster_integration() {
    for body in [Body2xx::Json, Body2xx::Text, Body2xx::Empty] {
        let fake = FakePlatform::start(USER_TOKEN);
        fake.set_body_2xx(body);
        let platform = client(&fake);
        platform
            .register_runtime(&register_request("ctx/ns"))
            .await
            .unwrap_or_else(|e| panic!("{body:?}: {e}"));
        assert!(fake.runtimes().contains_key("ctx/ns"));
        platform
            .create_cluster_integration("ctx", "https://k8s.example:6443", "dG9r", "Y2E=")
            .await
            .unwrap_or_else(|e| panic!("{body:?}: {e}"));
        assert_eq!(fake.clusters().len(), 1);
    }
}

#[tokio::test]
async fn the_certificate_call_does_not_ask_for_json() {
    let fake = FakePlatform::start(USER_TOKEN);
    let platform = client(&fake);
    let generated = certs::generate("ns").unwrap();
    let (ca, cert) = platform
        .sign_server_certs(&generated.csr_pem, &certs::subject_alt_names("ns"))
        .await
        .unwrap();
    assert!(ca.contains("BEGIN CERTIFICATE") && cert.contains("BEGIN CERTIFICATE"));
    let sign = fake
        .requests()
        .into_iter()
        .find(|r| r.path == "/api/custom_clusters/signServerCerts")
        .unwrap();
    assert_ne!(sign.accept.as_deref(), Some("application/json"));
    // Every other call still asks for JSON.
    platform.agents_named("x").await.unwrap();
    let list = fake.requests().into_iter().last().unwrap();
    assert_eq!(list.accept.as_deref(), Some("application/json"));
}

#[tokio::test]
async fn a_loose_or_ignored_name_filter_never_yields_another_agent() {
    for filter in [NameFilter::Exact, NameFilter::Loose, NameFilter::Ignored] {
        let fake = FakePlatform::start(USER_TOKEN);
        someone_creates_agent(&fake, "ctx_ns_1").await;
        someone_creates_agent(&fake, "prod_ctx_ns").await;
        fake.set_name_filter(filter);
        let platform = client(&fake);
        assert!(
            platform.agents_named("ctx_ns").await.unwrap().is_empty(),
            "{filter:?}: a near match was taken for ctx_ns"
        );
        someone_creates_agent(&fake, "ctx_ns").await;
        let found = platform.agents_named("ctx_ns").await.unwrap();
        assert_eq!(found.len(), 1, "{filter:?}");
        assert_eq!(found[0].name, "ctx_ns");
    }
}

#[test]
fn plain_http_and_credentials_in_the_url_are_refused() {
    let err = client_for("http://codefresh.example.com", USER_TOKEN)
        .err()
        .unwrap();
    assert!(matches!(err, PlatformError::PlainHttp { .. }), "{err}");
    assert!(err.is_bad_input());
    assert!(err.hint().unwrap().contains("--allow-http"));
    let auth = Auth {
        token: Secret::new(USER_TOKEN),
        source: TokenSource::Flag,
        url: "http://codefresh.example.com".into(),
    };
    let allowed = Transport {
        allow_http: true,
        ..Transport::default()
    };
    assert!(Platform::new(&auth, allowed).is_ok());
    // This machine is not the network.
    assert!(client_for("http://127.0.0.1:8080", USER_TOKEN).is_ok());
    assert!(client_for("http://localhost:8080", USER_TOKEN).is_ok());

    let err = client_for("https://me:hunter2@codefresh.example.com", USER_TOKEN)
        .err()
        .unwrap();
    assert!(matches!(err, PlatformError::UrlCredentials { .. }), "{err}");
    assert!(!err.to_string().contains("hunter2"), "{err}");
    assert!(err.to_string().contains("codefresh.example.com"), "{err}");
    let err = client_for("ftp://codefresh.example.com", USER_TOKEN)
        .err()
        .unwrap();
    assert!(matches!(err, PlatformError::BadUrl { .. }), "{err}");
}

#[tokio::test]
async fn a_scoped_key_lacking_a_scope_is_named_with_the_full_list() {
    let fake = FakePlatform::start(USER_TOKEN);
    let scoped = "scoped-key.abcdef0123";
    fake.add_scoped_key(
        scoped,
        &["Agent", "Agents", "Runner-Installation", "Project"],
    );
    let platform = client_for(&fake.url(), scoped).unwrap();
    let needs = [
        Need::Agents,
        Need::RuntimeEnvironments,
        Need::Clusters,
        Need::Projects,
        Need::Pipelines,
    ];
    let err = platform.require_scopes(&needs).await.err().unwrap();
    let text = err.to_string();
    assert!(text.contains("Cluster and Pipeline"), "{text}");
    assert!(text.contains("GET /api/clusters"), "{text}");
    let hint = err.hint().unwrap();
    assert!(
        hint.contains("Agent, Agents, Runner-Installation, Cluster, Project and Pipeline"),
        "{hint}"
    );
    assert!(!text.contains(scoped) && !hint.contains(scoped));
    // Nothing was written while checking.
    assert!(
        fake.requests().iter().all(|r| r.method == "GET"),
        "{:?}",
        fake.calls()
    );
    // With the options that need fewer scopes, the same key passes.
    platform
        .require_scopes(&[Need::Agents, Need::RuntimeEnvironments])
        .await
        .unwrap();
}

#[tokio::test]
async fn a_key_refused_by_api_user_is_checked_through_the_execution_context() {
    let fake = FakePlatform::start(USER_TOKEN);
    let scoped = "scoped-key.abcdef0123";
    fake.add_scoped_key(scoped, &["Agent", "Agents", "Runner-Installation"]);
    fake.refuse_user_for_scoped_keys(true);
    let platform = client_for(&fake.url(), scoped).unwrap();
    let who = platform.whoami().await.unwrap();
    assert_eq!(who.via, "GET /api/execution-contexts/current");
    assert_eq!(who.account_id.as_deref(), Some(ACCOUNT_ID));
    assert!(who.user.is_none());

    // A full key goes through /api/user, and a wrong one is still refused.
    let who = client(&fake).whoami().await.unwrap();
    assert_eq!(who.via, "GET /api/user");
    assert_eq!(who.account_id.as_deref(), Some(ACCOUNT_ID));
    let wrong = client_for(&fake.url(), "wrong-key.000").unwrap();
    let err = wrong.whoami().await.err().unwrap();
    assert!(matches!(err, PlatformError::Unauthorized { .. }), "{err}");
}

#[tokio::test]
async fn the_demo_pipeline_is_replaced_on_a_rerun_despite_revision_checks() {
    let fake = FakePlatform::start(USER_TOKEN);
    fake.set_revision_check(true);
    let platform = client(&fake);
    for runtime in ["ctx/ns", "ctx/ns", "ctx/other"] {
        let name = platform.ensure_demo_pipeline(runtime).await.unwrap();
        assert_eq!(name, "Runner/CF_Runner_Demo");
    }
    let stored = &fake.pipelines()["Runner/CF_Runner_Demo"];
    assert_eq!(stored["spec"]["runtimeEnvironment"]["name"], "ctx/other");
    assert_eq!(stored["metadata"]["revision"], 3, "{stored}");
    let put = fake
        .requests()
        .into_iter()
        .rfind(|r| r.method == "PUT")
        .unwrap();
    assert!(
        put.path.contains("disableRevisionCheck=true"),
        "{}",
        put.path
    );
    // The fetched kind, version and metadata travel with the new spec.
    assert_eq!(put.body["kind"], "pipeline");
    assert_eq!(put.body["version"], "1.0");
    assert!(put.body["metadata"]["id"].is_string());
}

#[tokio::test]
async fn not_found_answered_with_another_status_still_creates_the_demo_pipeline() {
    for status in [404, 400, 500] {
        let fake = FakePlatform::start(USER_TOKEN);
        fake.set_not_found_status(status);
        let platform = client(&fake);
        platform
            .ensure_demo_pipeline("ctx/ns")
            .await
            .unwrap_or_else(|e| panic!("{status}: {e}"));
        assert!(fake.pipelines().contains_key("Runner/CF_Runner_Demo"));
        assert!(fake.calls().contains(&"POST /api/projects".to_string()));
    }
    // Another error is not taken for "not found".
    let fake = FakePlatform::start(USER_TOKEN);
    fake.fail("GET /api/projects", 400, 1);
    let err = client(&fake)
        .ensure_demo_pipeline("ctx/ns")
        .await
        .err()
        .unwrap();
    assert!(!platform::is_not_found(&err), "{err}");
}

#[tokio::test]
async fn an_agent_token_names_its_agent_through_the_key_subject() {
    let fake = FakePlatform::start(USER_TOKEN);
    let platform = client(&fake);
    let created = platform.create_agent("ctx_ns").await.unwrap();
    let token = Secret::new(created.token.clone().unwrap());
    let subject = platform.key_subject(&token).await.unwrap().unwrap();
    assert_eq!(subject.kind, "agent");
    let agent = platform.agent(&subject.reference).await.unwrap().unwrap();
    assert_eq!(agent.name, "ctx_ns");
    // The user's own key is no agent's; an unknown one is unknown.
    let own = platform
        .key_subject(&Secret::new(USER_TOKEN))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(own.kind, "user");
    assert!(platform
        .key_subject(&Secret::new("nobody.123"))
        .await
        .unwrap()
        .is_none());
    // An error never shows the key id, which is part of the token.
    fake.fail("GET /api/auth/key/", 400, 1);
    let err = platform.key_subject(&token).await.err().unwrap();
    let key_id = token.expose().split('.').next().unwrap();
    assert!(!err.to_string().contains(key_id), "{err}");
}

#[test]
fn init_refuses_a_url_that_would_leak_the_key_before_anything_else() {
    let home = tempfile::tempdir().unwrap();
    let kubeconfig = home.path().join("no-kubeconfig");
    let ex = support::cli::example("local");
    let run = |url: &str, extra: &[&str]| {
        let mut cmd = support::cli::isolated(&kubeconfig, home.path());
        cmd.args([
            "init",
            "--yes",
            "--values",
            ex.to_str().unwrap(),
            "--kube-context-name",
            "nowhere",
            "--token",
            USER_TOKEN,
            "--url",
            url,
        ])
        .args(extra)
        .env("CF_RUNNER_RETRY_BASE_MS", "5");
        cmd.output().unwrap()
    };
    let out = run("http://codefresh.example.com", &[]);
    let said = support::cli::text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains("--url") && said.contains("--allow-http"),
        "{said}"
    );
    assert!(!said.contains(USER_TOKEN), "{said}");

    let out = run("https://me:hunter2@codefresh.example.com", &[]);
    let said = support::cli::text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("user:password@"), "{said}");
    assert!(!said.contains("hunter2"), "{said}");

    // --allow-http lets it through to the next step (the platform, which is not there).
    let out = run("http://codefresh.invalid", &["--allow-http"]);
    let said = support::cli::text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("GET /api/user"), "{said}");
}
