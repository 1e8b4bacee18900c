//! The Prometheus monitors against the prometheus-operator's own CRDs
//! (`tests/prometheus-operator/build.sh`, from its Go module), installed
//! into the control plane: the ServiceMonitors and PodMonitors cf-runner
//! renders from `values-examples/metrics.yaml` pass a strict server-side
//! dry-run, the same objects with one field misspelt do not, a real `init`
//! installs them (and the event exporter), `diff` and `upgrade` see one
//! kind turned off and prune it, `delete` removes the rest, and `adopt` of
//! a chart install with them on carries them. On a control plane without
//! the CRDs, `check` and `init` refuse the key before anything is written.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

use kube::api::{Api, DynamicObject, ListParams};
use kube::core::{ApiResource, GroupVersionKind};
use support::cli::{self, example, text};
use support::controlplane::{self, ControlPlane};
use support::namespace::unique;

const CONTEXT: &str = "admin@cf-runner-test";
const AGENT_TOKEN: &str = "metrics-agent-token-0123456789abcdef";

/// The folder with the ServiceMonitor and PodMonitor CRDs:
/// `$CF_RUNNER_PROMETHEUS_CRDS`, else what the build script prints.
pub fn prometheus_crds() -> PathBuf {
    match std::env::var_os("CF_RUNNER_PROMETHEUS_CRDS").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => support::tool::build(
            "prometheus-operator",
            "CF_RUNNER_PROMETHEUS_CRDS",
            "a download",
        )
        .unwrap_or_else(|e| panic!("{e}")),
    }
}

/// Installs the two CRDs into the shared control plane once, and waits
/// until both are served. Other tests that apply every example call it too.
pub fn install_prometheus_crds(cp: &ControlPlane) {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        for name in ["servicemonitors", "podmonitors"] {
            let file = prometheus_crds().join(format!("monitoring.coreos.com_{name}.yaml"));
            let out = cp
                .kubectl()
                .args(["apply", "--server-side", "-f"])
                .arg(&file)
                .output()
                .unwrap();
            assert!(out.status.success(), "{}", text(&out));
        }
        for name in ["servicemonitors", "podmonitors"] {
            cp.wait_established(&format!("{name}.monitoring.coreos.com"));
        }
    });
}

/// The monitors `init --dry-run` writes for the metrics example in `ns`,
/// as one YAML stream.
fn rendered_monitors(cp: &ControlPlane, ns: &str, home: &Path) -> String {
    let out_dir = home.join("out");
    let out = cli::run(
        cp.admin_kubeconfig(),
        &[
            "init",
            "--dry-run",
            "--yes",
            "--values",
            example("metrics").to_str().unwrap(),
            "--kube-namespace",
            ns,
            "--output-dir",
            out_dir.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let mut stream = String::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.contains("-servicemonitor-") || name.contains("-podmonitor-")
        })
        .collect();
    files.sort();
    assert_eq!(files.len(), 6, "{files:?}");
    for file in files {
        stream.push_str(&std::fs::read_to_string(file).unwrap());
        stream.push_str("\n---\n");
    }
    stream
}

fn monitor_api(cp: &ControlPlane, ns: &str, kind: &str) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk("monitoring.coreos.com", "v1", kind);
    let plural = format!("{}s", kind.to_ascii_lowercase());
    Api::namespaced_with(
        cp.client(),
        ns,
        &ApiResource::from_gvk_with_plural(&gvk, &plural),
    )
}

async fn names(api: &Api<DynamicObject>) -> Vec<String> {
    let mut names: Vec<String> = api
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|o| o.metadata.name)
        .collect();
    names.sort();
    names
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn the_monitors_pass_the_real_crds_and_a_misspelt_field_does_not() {
    let cp = controlplane::shared();
    install_prometheus_crds(cp);
    let ns = cp.create_namespace("metrics").await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let monitors = rendered_monitors(cp, &ns, home.path());
    let ok = cp.strict_dry_run(&monitors);
    assert!(
        ok.status.success(),
        "the prometheus-operator's CRDs refuse cf-runner's monitors: {}",
        text(&ok)
    );
    // One field misspelt, in a PodMonitor's endpoint: the schema refuses it.
    assert!(monitors.contains("podMetricsEndpoints"), "{monitors}");
    let bad = cp.strict_dry_run(&monitors.replacen("targetPort: 8080", "targetPrt: 8080", 1));
    assert!(
        !bad.status.success(),
        "the dry-run did not catch a misspelt field: {}",
        text(&bad)
    );
    assert!(text(&bad).contains("targetPrt"), "{}", text(&bad));
}

/// `cf-runner delete --yes` of the install in `ns`.
fn delete(cp: &ControlPlane, ns: &str) -> Output {
    cli::run(
        cp.admin_kubeconfig(),
        &[
            "delete",
            "--yes",
            "--kube-namespace",
            ns,
            "--kube-context-name",
            CONTEXT,
            "--timeout",
            "90s",
        ],
    )
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn init_installs_upgrade_prunes_and_delete_removes_the_monitors() {
    let cp = controlplane::shared();
    install_prometheus_crds(cp);
    let ns = unique("cfr-metrics");
    let home = tempfile::tempdir().unwrap();
    let out = cli::init(cp.admin_kubeconfig(), home.path(), "metrics", &ns, CONTEXT)
        .args(["--agent-token", AGENT_TOKEN, "--timeout", "90s"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let said = text(&out);
    assert!(said.contains("ServiceMonitor/dind"), "{said}");
    assert!(said.contains("Deployment/event-exporter"), "{said}");

    let services = monitor_api(cp, &ns, "ServiceMonitor");
    let pods = monitor_api(cp, &ns, "PodMonitor");
    assert_eq!(
        names(&services).await,
        ["app-proxy", "dind", "event-exporter"]
    );
    assert_eq!(
        names(&pods).await,
        ["engine", "runner", "volume-provisioner"]
    );
    // The label a kube-prometheus-stack release selects monitors by.
    let dind = services.get("dind").await.unwrap();
    assert_eq!(
        dind.metadata
            .labels
            .unwrap_or_default()
            .get("release")
            .map(String::as_str),
        Some("prometheus")
    );

    // Turned off: `diff` shows the PodMonitors going, `upgrade` prunes them
    // and keeps the ServiceMonitors.
    let off = ["--set-value", "Metrics.PodMonitors=false"];
    let common = [
        "--kube-namespace",
        ns.as_str(),
        "--kube-context-name",
        CONTEXT,
    ];
    let diff = cli::run(
        cp.admin_kubeconfig(),
        &[&["diff"][..], &common, &off].concat(),
    );
    assert_eq!(diff.status.code(), Some(1), "{}", text(&diff));
    assert!(text(&diff).contains("PodMonitor/runner"), "{}", text(&diff));
    let upgrade = cli::run(
        cp.admin_kubeconfig(),
        &[&["upgrade", "--yes", "--no-wait"][..], &common, &off].concat(),
    );
    assert!(upgrade.status.success(), "{}", text(&upgrade));
    assert_eq!(
        names(&pods).await,
        Vec::<String>::new(),
        "{}",
        text(&upgrade)
    );
    assert_eq!(names(&services).await.len(), 3);

    let deleted = delete(cp, &ns);
    assert!(deleted.status.success(), "{}", text(&deleted));
    // The namespace goes too; until it has, no monitor may be left in it.
    for api in [&services, &pods] {
        let left = names(api).await;
        assert!(left.is_empty(), "delete left {left:?}: {}", text(&deleted));
    }
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn without_the_crds_check_and_init_refuse_the_key_and_write_nothing() {
    // A control plane of its own: the shared one gets the CRDs from the
    // tests above.
    let cp = tokio::task::spawn_blocking(|| ControlPlane::start().expect("a control plane"))
        .await
        .unwrap();
    let ns = unique("cfr-nocrd");
    for command in ["check", "init"] {
        let home = tempfile::tempdir().unwrap();
        let mut cmd = cli::isolated(cp.admin_kubeconfig(), home.path());
        cmd.args([command, "--values"])
            .arg(example("metrics"))
            .args(["--kube-namespace", &ns, "--kube-context-name", CONTEXT]);
        if command == "init" {
            cmd.args(["--yes", "--agent-token", AGENT_TOKEN]);
        }
        let out = cmd.output().unwrap();
        let said = text(&out);
        assert_eq!(out.status.code(), Some(2), "{command}: {said}");
        for needle in [
            "Metrics.ServiceMonitors",
            "Metrics.PodMonitors",
            "asks for ServiceMonitor objects",
            "does not serve monitoring.coreos.com/v1",
            "prometheus-operator",
        ] {
            assert!(
                said.contains(needle),
                "{command} does not say {needle}: {said}"
            );
        }
    }
    let namespaces: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(cp.client());
    assert!(
        namespaces.get_opt(&ns).await.unwrap().is_none(),
        "the refused init wrote its namespace"
    );
    cp.shutdown();
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn adopt_of_a_chart_install_with_metrics_carries_them() {
    let cp = controlplane::shared();
    install_prometheus_crds(cp);
    let ns = cp.create_namespace("adoptmetrics").await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let chart_values = "\
serviceMonitor:
  main:
    enabled: true
    labels: {release: prometheus}
podMonitor:
  main:
    enabled: true
    labels: {release: prometheus}
  runner:
    enabled: true
    labels: {release: prometheus}
event-exporter:
  enabled: true
";
    support::adopt::install_chart_with(cp, &ns, home.path(), chart_values);
    let file = home.path().join("adopted.yaml");
    let out = support::adopt::adopt(
        cp,
        home.path(),
        &[
            "--dry-run",
            "--kube-namespace",
            &ns,
            "--values-file",
            file.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let saved = std::fs::read_to_string(&file).unwrap();
    let values: serde_json::Value = serde_yaml_ng::from_str(&saved).unwrap();
    assert_eq!(
        values["Metrics"],
        serde_json::json!({"Dind": true, "Engine": true, "Runner": true, "EventExporter": true,
                           "Labels": {"release": "prometheus"}}),
        "{saved}"
    );
    assert_eq!(
        values["EventExporter"]["Enabled"],
        serde_json::json!(true),
        "{saved}"
    );
}
