//! The app-proxy behind a Gateway (`values-examples/gateway.yaml`) against
//! a real API server and the Gateway API's real CRDs (from its Go module,
//! `tests/gateway-api/build.sh`): refused while the cluster does not serve
//! `gateway.networking.k8s.io/v1`; once it does, the HTTPRoute cf-runner
//! renders passes a strict server-side dry run, a misspelt field does not,
//! `init` installs the route, `upgrade` prunes it when it is turned off,
//! and `delete` removes it.
//!
//! A control plane of its own: the first step needs a cluster without the
//! Gateway API, and the shared one gets it (`e2e_examples_apply`).

use crate::support;

use std::process::Output;

use cf_runner::render::{self, Identity, Manifest};
use cf_runner::values::{self, Input, ValuesFile};
use kube::api::{Patch, PatchParams, ValidationDirective};
use serde_json::Value;
use support::cli::{self, example, text};
use support::controlplane::ControlPlane;

const CONTEXT: &str = "admin@cf-runner-test";
const AGENT_TOKEN: &str = "agent-token-for-e2e-gateway-0123456789";

fn init(cp: &ControlPlane, ns: &str) -> Output {
    let home = tempfile::tempdir().unwrap();
    cli::init(cp.admin_kubeconfig(), home.path(), "gateway", ns, CONTEXT)
        .args(["--agent-token", AGENT_TOKEN, "--no-wait"])
        .output()
        .unwrap()
}

/// The HTTPRoute of the gateway example, rendered for namespace `ns`.
fn rendered_route(ns: &str) -> Manifest {
    let path = example("gateway");
    let input = Input {
        files: vec![ValuesFile {
            origin: path.display().to_string(),
            text: std::fs::read_to_string(&path).unwrap(),
        }],
        overrides: vec![("Namespace".into(), Value::String(ns.into()))],
        ..Default::default()
    };
    let loaded = values::load(&input).unwrap_or_else(|p| panic!("{p}"));
    let identity = Identity {
        context: Some(CONTEXT.into()),
        ..Default::default()
    };
    render::render(&loaded.values, &identity, &loaded.redacted_tree)
        .unwrap()
        .manifests
        .into_iter()
        .find(|m| m.kind == "HTTPRoute")
        .expect("the gateway example renders an HTTPRoute")
}

async fn dry_run(cp: &ControlPlane, route: &Manifest, object: &Value) -> Result<(), kube::Error> {
    let api = cf_runner::cluster::api_for(
        &cp.client(),
        &route.api_version,
        &route.kind,
        route.namespace.as_deref(),
    );
    let params = PatchParams::apply("cf-runner")
        .dry_run()
        .validation(ValidationDirective::Strict);
    api.patch(&route.name, &params, &Patch::Apply(object))
        .await
        .map(|_| ())
}

async fn route_exists(cp: &ControlPlane, ns: &str) -> bool {
    let api = cf_runner::cluster::api_for(
        &cp.client(),
        "gateway.networking.k8s.io/v1",
        "HTTPRoute",
        Some(ns),
    );
    api.get_opt("app-proxy").await.unwrap().is_some()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn an_http_route_needs_the_gateway_api_and_meets_its_real_schema() {
    let cp = tokio::task::spawn_blocking(ControlPlane::start)
        .await
        .unwrap()
        .expect("a private control plane starts");
    let ns = cp.create_namespace("gateway").await.unwrap();

    // Without the Gateway API: bad input, naming the key, nothing applied.
    let refused = init(&cp, &ns);
    let said = text(&refused);
    assert_eq!(refused.status.code(), Some(2), "{said}");
    assert!(
        said.contains("AppProxy.HttpRoute.Enabled")
            && said.contains("gateway.networking.k8s.io/v1"),
        "{said}"
    );
    let runner = cf_runner::cluster::api_for(&cp.client(), "apps/v1", "Deployment", Some(&ns));
    assert!(
        runner.get_opt("runner").await.unwrap().is_none(),
        "a refused init applied the runner"
    );

    support::gateway::install(&cp);

    // The route as rendered meets the schema; a misspelt field does not.
    let route = rendered_route(&ns);
    dry_run(&cp, &route, &route.object)
        .await
        .unwrap_or_else(|e| panic!("the API server refuses the HTTPRoute cf-runner renders: {e}"));
    let mut misspelt = route.object.clone();
    let hostnames = misspelt["spec"]
        .as_object_mut()
        .unwrap()
        .remove("hostnames")
        .unwrap();
    misspelt["spec"]["hostname"] = hostnames;
    let err = dry_run(&cp, &route, &misspelt)
        .await
        .expect_err("a misspelt field must be refused");
    assert!(err.to_string().contains("hostname"), "{err}");

    // Installed with the runner, removed with it.
    let installed = init(&cp, &ns);
    assert!(installed.status.success(), "{}", text(&installed));
    assert!(
        route_exists(&cp, &ns).await,
        "init did not apply the HTTPRoute"
    );

    // Back to an Ingress: upgrade says the change and prunes the route.
    let upgrade = |extra: &[&str]| {
        let mut args = vec![
            "upgrade",
            "--yes",
            "--kube-namespace",
            &ns,
            "--kube-context-name",
            CONTEXT,
            "--no-wait",
        ];
        args.extend_from_slice(extra);
        cli::run(cp.admin_kubeconfig(), &args)
    };
    let moved = upgrade(&[
        "--set-value",
        "AppProxy.HttpRoute.Enabled=false",
        "--set-value",
        "AppProxy.Ingress.Enabled=true",
        "--set-value",
        "AppProxy.Ingress.Host=app-proxy.example.com",
    ]);
    let said = text(&moved);
    assert!(moved.status.success(), "{said}");
    assert!(
        said.contains("AppProxy.HttpRoute.Enabled: true → false"),
        "{said}"
    );
    assert!(
        !route_exists(&cp, &ns).await,
        "upgrade left the HTTPRoute: {said}"
    );
    let ingress =
        cf_runner::cluster::api_for(&cp.client(), "networking.k8s.io/v1", "Ingress", Some(&ns));
    assert!(
        ingress.get_opt("app-proxy").await.unwrap().is_some(),
        "{said}"
    );
    // And to the route again, for delete to remove.
    let back = upgrade(&["--set-value", "AppProxy.HttpRoute.Enabled=true"]);
    assert!(back.status.success(), "{}", text(&back));
    assert!(route_exists(&cp, &ns).await, "{}", text(&back));

    let deleted = cli::run(
        cp.admin_kubeconfig(),
        &[
            "delete",
            "--yes",
            "--kube-namespace",
            &ns,
            "--kube-context-name",
            CONTEXT,
            "--timeout",
            "90s",
        ],
    );
    assert!(deleted.status.success(), "{}", text(&deleted));
    assert!(!route_exists(&cp, &ns).await, "delete left the HTTPRoute");
    cp.shutdown();
}
