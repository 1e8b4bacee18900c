//! `cf-runner init` against the fake Codefresh platform and the real test
//! control plane: the calls in order with their bodies, the dind certificate
//! signed by the platform's CA, a failed install that re-runs without
//! creating anything twice, token errors that name the source and never the
//! token, retries, and Helm values filled from the platform.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, Secret};
use kube::api::Api;
use support::cli::{self, isolated};
use support::controlplane::{self, ControlPlane};
use support::fake_platform::{FakePlatform, NameFilter, ACCOUNT_ID};
use support::namespace::unique;

const USER_TOKEN: &str = "user-api-key.0123456789abcdef";
const CONTEXT: &str = "admin@cf-runner-test";

struct Run {
    output: Output,
    home: tempfile::TempDir,
}

impl Run {
    fn text(&self) -> String {
        format!(
            "{}{}",
            String::from_utf8_lossy(&self.output.stdout),
            String::from_utf8_lossy(&self.output.stderr)
        )
    }
    fn code(&self) -> Option<i32> {
        self.output.status.code()
    }
}

fn command(cp: &ControlPlane, home: &Path, args: &[&str]) -> Command {
    let mut cmd = isolated(cp.admin_kubeconfig(), home);
    cmd.args(args).env("CF_RUNNER_RETRY_BASE_MS", "20");
    cmd
}

/// `init` of the local example into `ns`, with the retries made quick.
fn init_command(cp: &ControlPlane, home: &Path, ns: &str) -> Command {
    let mut cmd = cli::init(cp.admin_kubeconfig(), home, "local", ns, CONTEXT);
    cmd.env("CF_RUNNER_RETRY_BASE_MS", "20");
    cmd
}

fn init(cp: &ControlPlane, fake: &FakePlatform, ns: &str, extra: &[&str]) -> Run {
    let home = tempfile::tempdir().unwrap();
    let output = init_command(cp, home.path(), ns)
        .args(["--url", &fake.url(), "--timeout", "90s"])
        .args(extra)
        .output()
        .unwrap();
    Run { output, home }
}

/// An init that registers with the user's token, without the cluster
/// integration and without waiting; it must succeed.
fn registered_init(cp: &ControlPlane, fake: &FakePlatform, ns: &str) -> Run {
    let run = init(
        cp,
        fake,
        ns,
        &[
            "--token",
            USER_TOKEN,
            "--skip-cluster-integration",
            "--no-wait",
        ],
    );
    assert_eq!(run.code(), Some(0), "{}", run.text());
    run
}

/// Every file under `dir`, with its text.
fn files_under(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(files_under(&p));
            } else {
                out.push((p.clone(), std::fs::read_to_string(&p).unwrap_or_default()));
            }
        }
    }
    out
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn init_registers_everything_in_order_and_the_certificate_chains_to_the_platform_ca() {
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let ns = unique("cfplat");
    let run = init(
        cp,
        &fake,
        &ns,
        &[
            "--token",
            USER_TOKEN,
            "--set-default-runtime",
            "--exec-demo-pipeline",
        ],
    );
    let out = run.text();
    assert_eq!(run.code(), Some(0), "{out}");

    let runtime = format!("{CONTEXT}/{ns}");
    let agent = format!("{CONTEXT}_{ns}");
    let calls = fake.calls();
    let order = [
        "GET /api/user",
        "POST /api/agents",
        "POST /api/custom_clusters/signServerCerts",
        "POST /api/custom_clusters/register",
        "PUT /api/agent/",
        "PUT /api/runtime-environments/",
        "PUT /api/runtime-environments/default/",
        "POST /api/clusters/local/cluster",
        "POST /api/pipelines/run/",
    ];
    let mut at = 0;
    for want in order {
        let found = calls[at..].iter().position(|c| c.starts_with(want));
        assert!(
            found.is_some(),
            "{want} missing or out of order in {calls:#?}"
        );
        at += found.unwrap() + 1;
    }
    assert_eq!(calls[0], "GET /api/user", "the token is checked first");
    assert!(
        fake.requests().iter().all(|r| r.authorized),
        "a request lacked the token"
    );

    // Bodies.
    let requests = fake.requests();
    let body = |call: &str| {
        requests
            .iter()
            .find(|r| format!("{} {}", r.method, r.path).starts_with(call))
            .unwrap()
            .body
            .clone()
    };
    assert_eq!(body("POST /api/agents")["name"], agent.as_str());
    let register = body("POST /api/custom_clusters/register");
    assert_eq!(register["runtimeEnvironmentName"], runtime.as_str());
    assert_eq!(register["clusterName"], CONTEXT);
    assert_eq!(register["namespace"], ns.as_str());
    assert_eq!(register["serviceAccount"], "codefresh-engine");
    assert_eq!(
        register["storageClassName"],
        format!("dind-local-volumes-runner-{ns}").as_str()
    );
    assert_eq!(register["agent"], true);
    let sign = body("POST /api/custom_clusters/signServerCerts");
    assert!(sign["csr"]
        .as_str()
        .unwrap()
        .starts_with("-----BEGIN CERTIFICATE REQUEST-----"));
    assert!(sign["reqSubjectAltName"]
        .as_str()
        .unwrap()
        .contains(&format!("DNS:*.dind.{ns}.svc")));
    assert!(
        !sign.to_string().contains("PRIVATE KEY"),
        "the dind key left the machine"
    );
    assert_eq!(body("PUT /api/agent/")["runtimes"][0], runtime.as_str());

    // Platform state.
    assert_eq!(fake.agents().len(), 1);
    assert_eq!(fake.agents()[0]["runtimes"][0], runtime.as_str());
    let spec = fake.runtimes()[&runtime].clone();
    assert_eq!(spec["accountId"], ACCOUNT_ID);
    assert_eq!(
        spec["dockerDaemonScheduler"]["cluster"]["namespace"],
        ns.as_str()
    );
    assert_eq!(
        spec["runtimeScheduler"]["cluster"]["clusterProvider"]["accountId"],
        ACCOUNT_ID
    );
    assert_eq!(fake.default_runtime().as_deref(), Some(runtime.as_str()));
    assert_eq!(fake.clusters()[0]["selector"], CONTEXT);
    assert_eq!(
        fake.builds(),
        vec![("Runner/CF_Runner_Demo".to_string(), runtime.clone())]
    );
    assert!(out.contains("/build/build-"), "{out}");

    // The cluster: the agent's token in its Secret, names in the runner's env,
    // and a dind certificate issued by the fake CA for the right names.
    let secrets: Api<Secret> = Api::namespaced(cp.client(), &ns);
    let token = secrets.get("runner").await.unwrap().data.unwrap()["codefresh.token"]
        .0
        .clone();
    let token = String::from_utf8(token).unwrap();
    assert!(token.starts_with("agent-token-"), "{token}");
    let certs = secrets
        .get("codefresh-certs-server")
        .await
        .unwrap()
        .data
        .unwrap();
    let ca_pem = String::from_utf8(certs["ca.pem"].0.clone()).unwrap();
    assert_eq!(ca_pem.trim(), fake.ca_pem().trim());
    let cert_pem = String::from_utf8(certs["server-cert.pem"].0.clone()).unwrap();
    let key_pem = String::from_utf8(certs["server-key.pem"].0.clone()).unwrap();
    assert!(key_pem.contains("PRIVATE KEY"));
    let (_, ca_der) = x509_parser::pem::parse_x509_pem(ca_pem.as_bytes()).unwrap();
    let ca = ca_der.parse_x509().unwrap();
    let (_, cert_der) = x509_parser::pem::parse_x509_pem(cert_pem.as_bytes()).unwrap();
    let cert = cert_der.parse_x509().unwrap();
    cert.verify_signature(Some(ca.public_key()))
        .expect("the dind cert is signed by the platform CA");
    let sans: Vec<String> = cert
        .subject_alternative_name()
        .unwrap()
        .unwrap()
        .value
        .general_names
        .iter()
        .map(|n| n.to_string())
        .collect();
    for want in [
        "DNSName(dind)".to_string(),
        format!("DNSName(*.dind.{ns}.svc)"),
        format!("DNSName(*.dind.{ns})"),
    ] {
        assert!(sans.contains(&want), "{want} not in {sans:?}");
    }
    assert!(
        sans.contains(&"IPAddress(7f:00:00:01)".to_string()),
        "127.0.0.1 missing: {sans:?}"
    );
    let deployments: Api<Deployment> = Api::namespaced(cp.client(), &ns);
    let runner = deployments.get("runner").await.unwrap();
    let env = runner.spec.unwrap().template.spec.unwrap().containers[0]
        .env
        .clone()
        .unwrap();
    let value = |n: &str| {
        env.iter()
            .find(|e| e.name == n)
            .and_then(|e| e.value.clone())
    };
    assert_eq!(value("AGENT_ID").as_deref(), Some(agent.as_str()));
    assert_eq!(
        value("CODEFRESH_IN_CLUSTER_RUNTIME").as_deref(),
        Some(runtime.as_str())
    );

    // Tokens: never printed, never in a file outside the cluster.
    assert!(
        !out.contains(USER_TOKEN) && !out.contains(&token),
        "a token was printed"
    );
    for (path, text) in files_under(run.home.path()) {
        assert!(
            !text.contains(USER_TOKEN) && !text.contains(&token),
            "token in {}",
            path.display()
        );
    }
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_failed_init_reruns_without_a_second_agent_or_runtime() {
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let ns = unique("cfresume");
    // Attaching the runtime fails every time (past the retries).
    fake.fail("PUT /api/agent/", 503, 4);
    let first = init(
        cp,
        &fake,
        &ns,
        &["--token", USER_TOKEN, "--skip-cluster-integration"],
    );
    assert_eq!(first.code(), Some(1), "{}", first.text());
    assert!(
        first.text().contains("attaching the runtime environment"),
        "{}",
        first.text()
    );
    assert!(first.text().contains("503"), "{}", first.text());
    // What the failed run left on the platform, and how to go on.
    let agent = format!("{CONTEXT}_{ns}");
    let runtime = format!("{CONTEXT}/{ns}");
    let said = first.text();
    assert!(
        said.contains(&format!("agent {agent} (created by this run)"))
            && said.contains(&format!(
                "runtime environment {runtime} (registered by this run)"
            )),
        "{said}"
    );
    assert!(
        said.contains("Re-running the same `cf-runner init` continues")
            && said.contains(&format!("cf-runner delete --kube-namespace {ns}")),
        "{said}"
    );
    let attach_attempts = fake
        .calls()
        .iter()
        .filter(|c| c.starts_with("PUT /api/agent/"))
        .count();
    assert_eq!(attach_attempts, 4, "idempotent PUTs are retried");

    fake.clear_requests();
    let second = init(
        cp,
        &fake,
        &ns,
        &["--token", USER_TOKEN, "--skip-cluster-integration"],
    );
    assert_eq!(second.code(), Some(0), "{}", second.text());
    let calls = fake.calls();
    assert!(
        !calls.iter().any(|c| c == "POST /api/agents"),
        "a second agent was created: {calls:?}"
    );
    assert!(
        !calls
            .iter()
            .any(|c| c == "POST /api/custom_clusters/register"),
        "{calls:?}"
    );
    assert!(
        !calls
            .iter()
            .any(|c| c == "POST /api/custom_clusters/signServerCerts"),
        "{calls:?}"
    );
    assert_eq!(fake.agents().len(), 1);
    assert_eq!(fake.runtimes().len(), 1);
    assert!(second.text().contains("reused"), "{}", second.text());
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_rejected_token_names_its_source_and_nothing_is_installed() {
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let ns = unique("cfbadtok");
    let wrong = "wrong-key-that-must-not-be-printed";

    let run = init(cp, &fake, &ns, &["--token", wrong]);
    assert_eq!(run.code(), Some(1), "{}", run.text());
    let out = run.text();
    assert!(out.contains("--token") && out.contains("401"), "{out}");
    assert!(!out.contains(wrong), "the token was printed: {out}");

    // From CF_API_KEY, and from the current context of a cfconfig file.
    let home = tempfile::tempdir().unwrap();
    let url = fake.url();
    let out = init_command(cp, home.path(), &ns)
        .args(["--url", &url])
        .env("CF_API_KEY", wrong)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        text.contains("CF_API_KEY") && !text.contains(wrong),
        "{text}"
    );

    let cfconfig = home.path().join("cfconfig");
    std::fs::write(
        &cfconfig,
        format!("contexts:\n  work:\n    type: APIKey\n    name: work\n    url: {url}\n    token: {wrong}\ncurrent-context: work\n"),
    )
    .unwrap();
    let out = init_command(cp, home.path(), &ns)
        .env("CFCONFIG", &cfconfig)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        text.contains("context \"work\"") && !text.contains(wrong),
        "{text}"
    );
    // The cfconfig's URL was used: the fake saw the request.
    assert!(fake.requests().iter().filter(|r| !r.authorized).count() >= 3);

    // Nothing reached the cluster.
    let nss: Api<Namespace> = Api::all(cp.client());
    assert!(
        nss.get_opt(&ns).await.unwrap().is_none(),
        "the cluster was touched"
    );
    assert!(fake.agents().is_empty());

    // No token at all: bad input, naming the flag.
    let out = init_command(cp, home.path(), &ns).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--token"));
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn server_errors_are_retried_and_slow_answers_time_out() {
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let home = tempfile::tempdir().unwrap();
    let out_file = home.path().join("values-for-helm.yaml");
    let url = fake.url();
    let args = [
        "--url",
        &url,
        "--token",
        USER_TOKEN,
        "--generate-helm-values-file",
        out_file.to_str().unwrap(),
    ];
    fake.fail("GET /api/user", 502, 2);
    let out = init_command(cp, home.path(), "helmns")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        fake.calls()
            .iter()
            .filter(|c| *c == "GET /api/user")
            .count(),
        3
    );
    // Helm values from the platform: account id and names, nothing created.
    let values: serde_json::Value =
        serde_yaml_ng::from_str(&std::fs::read_to_string(&out_file).unwrap()).unwrap();
    assert_eq!(values["global"]["accountId"], ACCOUNT_ID);
    assert_eq!(
        values["global"]["agentName"],
        format!("{CONTEXT}_helmns").as_str()
    );
    assert_eq!(
        values["global"]["runtimeName"],
        format!("{CONTEXT}/helmns").as_str()
    );
    assert!(fake.agents().is_empty() && fake.runtimes().is_empty());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&out_file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "it holds the API token");
    }

    fake.slow("GET /api/user", Duration::from_secs(3), 10);
    let started = std::time::Instant::now();
    let out = init_command(cp, home.path(), "helmns")
        .args(args)
        .env("CF_RUNNER_REQUEST_TIMEOUT", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("GET /api/user did not answer"), "{text}");
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn info_shows_the_platform_status_and_test_pipeline_runs_the_demo() {
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let ns = unique("cfinfo");
    registered_init(cp, &fake, &ns);
    let url = fake.url();
    let home = tempfile::tempdir().unwrap();
    let common = [
        "--kube-namespace",
        ns.as_str(),
        "--kube-context-name",
        CONTEXT,
        "--url",
        &url,
    ];

    let mut args = vec!["info", "-o", "json", "--token", USER_TOKEN];
    args.extend_from_slice(&common);
    let out = command(cp, home.path(), &args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let platform = info["installations"][0]["platform"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        platform.contains(&format!("agent {CONTEXT}_{ns}: never reported")),
        "{platform}"
    );
    assert!(platform.contains("runtime environment"), "{platform}");

    // Without a token, info still works and says why the platform is not shown.
    let mut args = vec!["info", "-o", "json"];
    args.extend_from_slice(&common);
    let out = command(cp, home.path(), &args).output().unwrap();
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(info["installations"][0]["platform"]
        .as_str()
        .unwrap()
        .contains("no Codefresh API token"));

    let mut args = vec!["test-pipeline", "--token", USER_TOKEN];
    args.extend_from_slice(&common);
    let out = command(cp, home.path(), &args).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    let runtime = format!("{CONTEXT}/{ns}");
    assert_eq!(
        fake.builds(),
        vec![("Runner/CF_Runner_Demo".to_string(), runtime.clone())]
    );
    assert!(text.contains(&format!("{url}/build/build-")), "{text}");
    assert!(!text.contains(USER_TOKEN));

    // Again, on a platform that checks revisions on replace: the demo
    // pipeline is replaced and runs a second time.
    fake.set_revision_check(true);
    let out = command(cp, home.path(), &args).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert_eq!(fake.builds().len(), 2, "{text}");
    assert_eq!(
        fake.pipelines()["Runner/CF_Runner_Demo"]["metadata"]["revision"],
        2
    );
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_taken_agent_or_runtime_name_gets_a_suffix() {
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let ns = unique("cfclash");
    // Someone else's agent and runtime already use the default names.
    let http = reqwest::Client::new();
    let agent = format!("{CONTEXT}_{ns}");
    let created = http
        .post(format!("{}/api/agents", fake.url()))
        .header("Authorization", USER_TOKEN)
        .json(&serde_json::json!({ "name": agent }))
        .send()
        .await
        .unwrap();
    assert!(created.status().is_success());
    let registered = http
        .post(format!("{}/api/custom_clusters/register", fake.url()))
        .header("Authorization", USER_TOKEN)
        .json(&serde_json::json!({
            "runtimeEnvironmentName": format!("{CONTEXT}/{ns}"),
            "clusterName": "another-cluster", "namespace": "elsewhere", "agent": true
        }))
        .send()
        .await
        .unwrap();
    assert!(registered.status().is_success());

    let run = registered_init(cp, &fake, &ns);
    let names: Vec<String> = fake
        .agents()
        .iter()
        .map(|a| a["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, vec![agent.clone(), format!("{agent}_1")]);
    assert!(
        fake.runtimes().contains_key(&format!("{CONTEXT}/{ns}_1")),
        "{:?}",
        fake.runtimes().keys()
    );
    let text = run.text();
    assert!(text.contains(&format!("agent {agent}_1 created")), "{text}");
}

/// Creates an agent through the fake's HTTP API, as another user would;
/// gives its token.
async fn someone_creates_agent(fake: &FakePlatform, name: &str) -> String {
    let answer: serde_json::Value = reqwest::Client::new()
        .post(format!("{}/api/agents", fake.url()))
        .header("Authorization", fake.token())
        .json(&serde_json::json!({ "name": name }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    answer["token"].as_str().unwrap().to_string()
}

fn cf_runner(cp: &ControlPlane, home: &Path, args: &[&str]) -> Run {
    let output = command(cp, home, args).output().unwrap();
    Run {
        output,
        home: tempfile::tempdir().unwrap(),
    }
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_half_made_registration_is_removed_by_delete() {
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let ns = unique("cfhalf");
    // The spec cannot be sent: the agent and runtime exist, the runner is applied.
    fake.fail("PUT /api/runtime-environments/", 503, 4);
    let first = init(
        cp,
        &fake,
        &ns,
        &[
            "--token",
            USER_TOKEN,
            "--skip-cluster-integration",
            "--no-wait",
        ],
    );
    assert_eq!(first.code(), Some(1), "{}", first.text());
    assert!(
        first.text().contains("cf-runner delete"),
        "{}",
        first.text()
    );
    assert_eq!(fake.agents().len(), 1);
    assert_eq!(fake.runtimes().len(), 1);

    let url = fake.url();
    let home = tempfile::tempdir().unwrap();
    let delete = |token: &str| {
        cf_runner(
            cp,
            home.path(),
            &[
                "delete",
                "--yes",
                "--kube-namespace",
                ns.as_str(),
                "--kube-context-name",
                CONTEXT,
                "--token",
                token,
                "--url",
                url.as_str(),
                "--timeout",
                "90s",
            ],
        )
    };
    // A key without the Cluster scope could not finish the clean-up: it is
    // refused before anything is deleted, here or there.
    let scoped = "scoped-key.0123456789";
    fake.add_scoped_key(scoped, &["Agent", "Agents", "Runner-Installation"]);
    let run = delete(scoped);
    assert_eq!(run.code(), Some(1), "{}", run.text());
    assert!(
        run.text().contains("lacks the scope(s) Cluster"),
        "{}",
        run.text()
    );
    assert_eq!(fake.agents().len(), 1);
    let secrets: Api<Secret> = Api::namespaced(cp.client(), &ns);
    assert!(secrets.get_opt("runner").await.unwrap().is_some());

    let run = delete(USER_TOKEN);
    assert_eq!(run.code(), Some(0), "{}", run.text());
    assert!(fake.agents().is_empty(), "{:?}", fake.agents());
    assert!(fake.runtimes().is_empty(), "{:?}", fake.runtimes());
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_loose_name_filter_never_makes_init_or_delete_take_another_agent() {
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let ns = unique("cfloose");
    // Someone else's agents, near our name; the server ignores ?name=.
    someone_creates_agent(&fake, &format!("{CONTEXT}_{ns}-prod")).await;
    someone_creates_agent(&fake, "unrelated").await;
    fake.set_name_filter(NameFilter::Ignored);
    let run = registered_init(cp, &fake, &ns);
    let ours = format!("{CONTEXT}_{ns}");
    assert!(
        run.text().contains(&format!("agent {ours} created")),
        "{}",
        run.text()
    );
    assert_eq!(fake.agents().len(), 3);

    fake.set_name_filter(NameFilter::Loose);
    let url = fake.url();
    let home = tempfile::tempdir().unwrap();
    let run = cf_runner(
        cp,
        home.path(),
        &[
            "delete",
            "--yes",
            "--kube-namespace",
            ns.as_str(),
            "--kube-context-name",
            CONTEXT,
            "--token",
            USER_TOKEN,
            "--url",
            url.as_str(),
            "--timeout",
            "90s",
        ],
    );
    assert_eq!(run.code(), Some(0), "{}", run.text());
    let left: Vec<String> = fake
        .agents()
        .iter()
        .map(|a| a["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        left,
        vec![format!("{CONTEXT}_{ns}-prod"), "unrelated".into()]
    );
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn the_token_and_every_scope_are_checked_before_the_cluster_is_touched() {
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let ns = unique("cfscope");
    let scoped = "scoped-key.0123456789";
    fake.add_scoped_key(scoped, &["Agent", "Agents", "Runner-Installation"]);
    // The cluster integration needs the Cluster scope, which the key lacks.
    let run = init(cp, &fake, &ns, &["--token", scoped, "--no-wait"]);
    let said = run.text();
    assert_eq!(run.code(), Some(1), "{said}");
    assert!(said.contains("lacks the scope(s) Cluster"), "{said}");
    assert!(
        said.contains("Agent, Agents, Runner-Installation and Cluster"),
        "{said}"
    );
    assert!(!said.contains(scoped), "{said}");
    let nss: Api<Namespace> = Api::all(cp.client());
    assert!(
        nss.get_opt(&ns).await.unwrap().is_none(),
        "the cluster was touched"
    );
    assert!(
        fake.requests().iter().all(|r| r.method == "GET"),
        "{:?}",
        fake.calls()
    );

    // The same key, refused by /api/user, is checked as the old CLI does and
    // installs when the run needs no more than it has; the account id then
    // comes from the registered runtime.
    fake.refuse_user_for_scoped_keys(true);
    fake.execution_context_without_account(true);
    let run = init(
        cp,
        &fake,
        &ns,
        &["--token", scoped, "--skip-cluster-integration", "--no-wait"],
    );
    assert_eq!(run.code(), Some(0), "{}", run.text());
    assert!(run.text().contains("execution-contexts"), "{}", run.text());
    let runtime = format!("{CONTEXT}/{ns}");
    assert_eq!(fake.runtimes()[&runtime]["accountId"], ACCOUNT_ID);
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn an_agent_token_must_belong_to_the_named_agent_and_offline_names_are_unverified() {
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let ns = unique("cfagtok");
    let token = someone_creates_agent(&fake, "the-real-agent").await;
    let run = init(
        cp,
        &fake,
        &ns,
        &[
            "--token",
            USER_TOKEN,
            "--agent-token",
            &token,
            "--name",
            "another-agent",
            "--no-wait",
        ],
    );
    let said = run.text();
    assert_eq!(run.code(), Some(2), "{said}");
    assert!(
        said.contains("AgentId") && said.contains("the-real-agent"),
        "{said}"
    );
    assert!(!said.contains(&token), "{said}");
    let nss: Api<Namespace> = Api::all(cp.client());
    assert!(
        nss.get_opt(&ns).await.unwrap().is_none(),
        "the cluster was touched"
    );

    // Offline (no API key): the names are not verified, and info says so.
    let run = init(
        cp,
        &fake,
        &ns,
        &["--agent-token", &token, "--skip-cluster-test", "--no-wait"],
    );
    assert_eq!(run.code(), Some(0), "{}", run.text());
    assert!(run.text().contains("NOT verified"), "{}", run.text());
    let home = tempfile::tempdir().unwrap();
    let url = fake.url();
    let run = cf_runner(
        cp,
        home.path(),
        &[
            "info",
            "-o",
            "json",
            "--kube-namespace",
            ns.as_str(),
            "--kube-context-name",
            CONTEXT,
            "--token",
            USER_TOKEN,
            "--url",
            url.as_str(),
        ],
    );
    assert_eq!(run.code(), Some(0), "{}", run.text());
    let info: serde_json::Value = serde_json::from_slice(&run.output.stdout).unwrap();
    let inst = &info["installations"][0];
    assert_eq!(inst["registered"], false, "{inst}");
    assert!(
        inst["platform"]
            .as_str()
            .unwrap()
            .contains("not registered"),
        "{inst}"
    );
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn upgrade_sends_the_changed_runtime_spec_and_info_compares_it() {
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let ns = unique("cfupspec");
    registered_init(cp, &fake, &ns);
    let runtime = format!("{CONTEXT}/{ns}");
    let url = fake.url();
    let home = tempfile::tempdir().unwrap();
    let info = |token: bool| {
        let mut args = vec![
            "info",
            "-o",
            "json",
            "--kube-namespace",
            ns.as_str(),
            "--kube-context-name",
            CONTEXT,
            "--url",
            url.as_str(),
        ];
        if token {
            args.extend_from_slice(&["--token", USER_TOKEN]);
        }
        let run = cf_runner(cp, home.path(), &args);
        assert_eq!(run.code(), Some(0), "{}", run.text());
        let v: serde_json::Value = serde_json::from_slice(&run.output.stdout).unwrap();
        v["installations"][0]["platform"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(info(true).contains("spec matches"), "{}", info(true));

    // The agent's status as the platform reports it.
    fake.report_agent_status(
        &format!("{CONTEXT}_{ns}"),
        "healthy",
        "2020-01-01T00:00:00Z",
    );
    assert!(info(true).contains("healthy, last seen"), "{}", info(true));

    let upgrade = |extra: &[&str]| {
        let mut args = vec![
            "upgrade",
            "--yes",
            "--kube-namespace",
            ns.as_str(),
            "--kube-context-name",
            CONTEXT,
            "--no-wait",
        ];
        args.extend_from_slice(extra);
        cf_runner(cp, home.path(), &args)
    };
    // A runtime change without a token is refused before anything is applied.
    let change = ["--set-value", "Runtime.NodeSelector=disk=ssd"];
    let run = upgrade(&change);
    assert_eq!(run.code(), Some(2), "{}", run.text());
    assert!(
        run.text().contains("Token") && run.text().contains("--token"),
        "{}",
        run.text()
    );
    assert!(
        fake.runtimes()[&runtime]["dockerDaemonScheduler"]["cluster"]["nodeSelector"]
            .get("disk")
            .is_none()
    );

    // With a token, the platform gets the new spec.
    let mut with_token = change.to_vec();
    with_token.extend_from_slice(&["--token", USER_TOKEN, "--url", &url]);
    let run = upgrade(&with_token);
    assert_eq!(run.code(), Some(0), "{}", run.text());
    let spec = fake.runtimes()[&runtime].clone();
    assert_eq!(
        spec["dockerDaemonScheduler"]["cluster"]["nodeSelector"]["disk"], "ssd",
        "{spec}"
    );
    assert_eq!(spec["accountId"], ACCOUNT_ID);
    assert!(info(true).contains("spec matches"), "{}", info(true));

    // A change made on the platform's side shows in info.
    let mut drifted = spec.clone();
    drifted["dockerDaemonScheduler"]["pvcs"][0]["volumeSize"] = "1Gi".into();
    reqwest::Client::new()
        .put(format!(
            "{}/api/runtime-environments/{}",
            fake.url(),
            runtime.replace('/', "%2F")
        ))
        .header("Authorization", USER_TOKEN)
        .json(&drifted)
        .send()
        .await
        .unwrap();
    let said = info(true);
    assert!(
        said.contains("spec DIFFERS") && said.contains("volumeSize"),
        "{said}"
    );

    // An upgrade with a token sends the spec back over the drift, and the
    // next one, with nothing to change, sends nothing.
    let with_token = ["--token", USER_TOKEN, "--url", &url];
    let puts = |fake: &FakePlatform| {
        fake.calls()
            .iter()
            .filter(|c| c.starts_with("PUT /api/runtime-environments/"))
            .count()
    };
    let before = puts(&fake);
    let run = upgrade(&with_token);
    assert_eq!(run.code(), Some(0), "{}", run.text());
    assert!(
        run.text().contains("sent to the Codefresh platform"),
        "{}",
        run.text()
    );
    assert_eq!(puts(&fake), before + 1, "{}", run.text());
    assert!(info(true).contains("spec matches"), "{}", info(true));
    let run = upgrade(&with_token);
    assert_eq!(run.code(), Some(0), "{}", run.text());
    assert!(
        run.text().contains("holds it already, not re-sent"),
        "{}",
        run.text()
    );
    assert_eq!(puts(&fake), before + 1, "{}", run.text());
}

/// A platform host written into the cluster (the record Secret, which
/// anyone who may edit Secrets in the namespace can change) used to get the
/// admin's key on the admin's next `info` or `upgrade`. The key from
/// `CF_API_KEY`/`CF_URL` goes only to its own platform: `info` says why the
/// platform is not shown, `upgrade` is refused (exit 2) naming both hosts,
/// and the planted listener hears nothing. `--url` on the command line is
/// the user's word.
#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_platform_host_planted_in_the_cluster_never_gets_the_token() {
    let cp = controlplane::shared();
    let fake = FakePlatform::start(USER_TOKEN);
    let planted = FakePlatform::start(USER_TOKEN);
    let ns = unique("cfplant");
    registered_init(cp, &fake, &ns);
    let (own, evil) = (fake.url(), planted.url());

    let secrets: Api<Secret> = Api::namespaced(cp.client(), &ns);
    let mut record = secrets.get("cf-runner-values").await.unwrap();
    let data = record.data.as_mut().unwrap();
    let values = String::from_utf8(data["values.yaml"].0.clone()).unwrap();
    assert!(values.contains(&own), "{values}");
    data.insert(
        "values.yaml".into(),
        k8s_openapi::ByteString(values.replace(&own, &evil).into_bytes()),
    );
    record.metadata.managed_fields = None;
    secrets
        .replace("cf-runner-values", &Default::default(), &record)
        .await
        .unwrap();

    let home = tempfile::tempdir().unwrap();
    let with_key = |args: &[&str]| {
        let mut all = args.to_vec();
        all.insert(1, "--kube-context-name");
        all.insert(2, CONTEXT);
        all.extend_from_slice(&["--kube-namespace", ns.as_str()]);
        let mut cmd = command(cp, home.path(), &all);
        cmd.env("CF_API_KEY", USER_TOKEN).env("CF_URL", &own);
        let output = cmd.output().unwrap();
        Run {
            output,
            home: tempfile::tempdir().unwrap(),
        }
    };
    let mut cases = 0;
    let info = with_key(&["info", "-o", "json"]);
    assert_eq!(info.code(), Some(0), "{}", info.text());
    let shown: serde_json::Value = serde_json::from_slice(&info.output.stdout).unwrap();
    let platform = shown["installations"][0]["platform"].as_str().unwrap();
    assert!(
        platform.starts_with("not shown") && platform.contains(&evil) && platform.contains(&own),
        "{platform}"
    );
    cases += 1;
    let upgrade = with_key(&[
        "upgrade",
        "--yes",
        "--no-wait",
        "--set-value",
        "Runtime.NodeSelector=disk=ssd",
    ]);
    assert_eq!(upgrade.code(), Some(2), "{}", upgrade.text());
    assert!(
        upgrade.text().contains(&evil) && upgrade.text().contains(&own),
        "{}",
        upgrade.text()
    );
    cases += 1;
    let diff = with_key(&["diff", "-o", "json"]);
    assert!(diff.text().contains(&evil), "{}", diff.text());
    cases += 1;
    let delete = with_key(&["delete", "--yes", "--timeout", "60s"]);
    assert_eq!(delete.code(), Some(2), "{}", delete.text());
    let deployments: Api<Deployment> = Api::namespaced(cp.client(), &ns);
    assert!(
        deployments.get_opt("runner").await.unwrap().is_some(),
        "delete went ahead"
    );
    assert!(delete.text().contains(&evil), "{}", delete.text());
    cases += 1;
    assert_eq!(
        planted.requests().len(),
        0,
        "the planted host heard: {:?}",
        planted.calls()
    );

    // Named on the command line, a host is the user's word.
    let info = with_key(&["info", "-o", "json", "--url", &evil]);
    assert_eq!(info.code(), Some(0), "{}", info.text());
    assert!(!planted.requests().is_empty());
    cases += 1;
    assert_eq!(cases, 5);
}
