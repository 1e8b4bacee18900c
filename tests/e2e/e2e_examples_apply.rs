//! Every `values-examples/*` file renders into objects that a real
//! kube-apiserver accepts: server-side apply with `fieldValidation=Strict`
//! (server dry-run), so an unknown or misplaced field fails here, not in a
//! user's cluster.

use crate::support;

use std::path::PathBuf;

use cf_runner::render::{self, Identity};
use cf_runner::values::{self, Input, ValuesFile};
use kube::api::{Api, DynamicObject, Patch, PatchParams, ValidationDirective};
use kube::core::{ApiResource, GroupVersionKind};
use serde_json::Value;
use support::controlplane;

fn examples() -> Vec<PathBuf> {
    let mut list: Vec<PathBuf> =
        std::fs::read_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("values-examples"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
            .collect();
    list.sort();
    list
}

fn resource_for(api_version: &str, kind: &str) -> ApiResource {
    let (group, version) = match api_version.split_once('/') {
        Some((g, v)) => (g, v),
        None => ("", api_version),
    };
    let plural = match kind {
        "Ingress" => "ingresses".to_string(),
        "StorageClass" => "storageclasses".to_string(),
        "PriorityClass" => "priorityclasses".to_string(),
        other => format!("{}s", other.to_ascii_lowercase()),
    };
    ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(group, version, kind), &plural)
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn every_example_is_accepted_by_a_real_apiserver_with_strict_validation() {
    let cp = controlplane::shared();
    // The metrics example's monitors are prometheus-operator kinds.
    crate::e2e_metrics::install_prometheus_crds(cp);
    // The gateway example's HTTPRoute needs the Gateway API's CRDs.
    support::gateway::install(cp);
    let client = cp.client();
    let params = PatchParams::apply("cf-runner")
        .dry_run()
        .validation(ValidationDirective::Strict);
    let mut failures = Vec::new();
    let mut applied = 0;
    for example in examples() {
        let name = example.file_stem().unwrap().to_string_lossy().into_owned();
        let ns = cp.create_namespace("example").await.unwrap();
        let input = Input {
            files: vec![ValuesFile {
                origin: example.display().to_string(),
                text: std::fs::read_to_string(&example).unwrap(),
            }],
            overrides: vec![("Namespace".into(), Value::String(ns.clone()))],
            ..Default::default()
        };
        let loaded = values::load(&input).unwrap_or_else(|p| panic!("{name}: {p}"));
        let identity = Identity {
            context: loaded.values.context.clone(),
            ..Default::default()
        };
        let rendered = render::render(&loaded.values, &identity, &loaded.redacted_tree).unwrap();
        for m in &rendered.manifests {
            let ar = resource_for(&m.api_version, &m.kind);
            let api: Api<DynamicObject> = match &m.namespace {
                Some(ns) => Api::namespaced_with(client.clone(), ns, &ar),
                None => Api::all_with(client.clone(), &ar),
            };
            match api.patch(&m.name, &params, &Patch::Apply(&m.object)).await {
                Ok(_) => applied += 1,
                Err(e) => failures.push(format!("{name}: {}: {e}", m.display_name())),
            }
        }
    }
    assert!(failures.is_empty(), "rejected:\n{}", failures.join("\n"));

    // The same request path rejects a misplaced field, so the check has teeth.
    let ns = cp.create_namespace("strict").await.unwrap();
    let ar = resource_for("v1", "ConfigMap");
    let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), &ns, &ar);
    let bad = serde_json::json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "typo"}, "dta": {"a": "b"}
    });
    let err = api
        .patch("typo", &params, &Patch::Apply(&bad))
        .await
        .expect_err("an unknown field must be rejected");
    assert!(err.to_string().contains("dta"), "{err}");
    assert!(applied > 200, "only {applied} objects were applied");
}

/// A user who reviews the export and applies it by hand: `kubectl apply
/// --server-side -f <folder>` used to exit 1, because the runtime
/// environment's spec (not a Kubernetes object) sat in the folder as
/// `runtime-environment.yaml`. And `--output-dir -` left the spec out
/// without a word.
#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn the_export_folder_and_stream_apply_with_kubectl_as_they_are() {
    let cp = controlplane::shared();
    let ns = cp.create_namespace("export").await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("codefresh_manifests");
    let export = |dir: &str| {
        support::cli::isolated(cp.admin_kubeconfig(), home.path())
            .args([
                "init",
                "--dry-run",
                "--yes",
                "--values",
                support::cli::example("local").to_str().unwrap(),
                "--kube-namespace",
                &ns,
                "--agent-token",
                "export-agent-token-0123456789",
                "--output-dir",
                dir,
            ])
            .output()
            .unwrap()
    };
    let made = export(out.to_str().unwrap());
    assert!(made.status.success(), "{}", support::cli::text(&made));
    let spec = std::fs::read_to_string(out.join("runtime-environment.txt")).unwrap();
    assert!(
        spec.starts_with("# The runtime environment's spec"),
        "{spec}"
    );
    assert!(spec.contains("runtimeScheduler"), "{spec}");

    // As docs/guide/dry-run-and-helm.md says to apply it.
    let applied = cp
        .kubectl()
        .args([
            "apply",
            "--server-side",
            "--field-manager",
            "cf-runner",
            "--dry-run=server",
            "-f",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(
        applied.status.code(),
        Some(0),
        "kubectl apply -f {}:\n{}",
        out.display(),
        support::cli::text(&applied)
    );
    let said = String::from_utf8_lossy(&applied.stdout);
    assert!(
        said.contains("deployment.apps/runner serverside-applied (server dry run)"),
        "{said}"
    );

    // On stdout, the spec follows the objects as comment lines, which
    // kubectl skips: the stream applies as it is.
    let streamed = export("-");
    assert!(
        streamed.status.success(),
        "{}",
        support::cli::text(&streamed)
    );
    let stream = String::from_utf8_lossy(&streamed.stdout).into_owned();
    assert!(
        stream.contains("# ---- runtime-environment.txt (not a Kubernetes object) ----"),
        "{stream}"
    );
    assert!(stream.contains("# runtimeScheduler:"), "{stream}");
    let mut kubectl = cp
        .kubectl()
        .args(["apply", "--server-side", "--dry-run=server", "-f", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    kubectl
        .stdin
        .take()
        .unwrap()
        .write_all(stream.as_bytes())
        .unwrap();
    let applied = kubectl.wait_with_output().unwrap();
    assert_eq!(
        applied.status.code(),
        Some(0),
        "kubectl apply -f -:\n{}",
        support::cli::text(&applied)
    );
}
