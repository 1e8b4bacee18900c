//! Every `values-examples/*` file renders into objects that a real
//! kube-apiserver accepts: server-side apply with `fieldValidation=Strict`
//! (server dry-run), so an unknown or misplaced field fails here, not in a
//! user's cluster.

mod support;

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
        other => format!("{}s", other.to_ascii_lowercase()),
    };
    ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(group, version, kind), &plural)
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn every_example_is_accepted_by_a_real_apiserver_with_strict_validation() {
    let cp = controlplane::shared();
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
