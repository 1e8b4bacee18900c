//! The install's speed work keeps what Kubernetes needs (issue 26):
//! - the cluster client talks HTTP/2 to kube-apiserver (one connection for
//!   the requests sent side by side, not one TLS handshake each);
//! - objects are applied as soon as what they need is in place, not stage
//!   by stage, yet a ServiceAccount token Secret reaches the API server only
//!   after its ServiceAccount was stored, and a workload only after every
//!   RBAC, config and secret object of the install (read from the audit
//!   log's timestamps). This admin may `bind` any role, so its bindings go
//!   with their roles; a user who may not is tested in `e2e_check`
//!   (`a_user_without_bind_passes_and_installs_roles_before_bindings`),
//!   whose install fails when a binding goes before its role.

use crate::support;

use std::collections::BTreeMap;

use serde_json::Value;
use support::cli::{example, run as cf_runner, text};
use support::controlplane;
use support::namespace::unique;

const ADMIN: &str = "admin@cf-runner-test";
const AGENT_TOKEN: &str = "agent-token-for-e2e-apply-order-0123456789";

/// Seconds since midnight UTC of an audit timestamp
/// (`2026-01-02T03:04:05.123456Z`); the runs here do not span midnight.
fn at(stamp: &Value) -> f64 {
    let stamp = stamp.as_str().unwrap_or_default();
    let time = stamp.split('T').nth(1).unwrap_or_default();
    let mut parts = time.trim_end_matches('Z').split(':');
    let mut next = || parts.next().unwrap_or("0").parse::<f64>().unwrap_or(0.0);
    next() * 3600.0 + next() * 60.0 + next()
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn the_client_speaks_http2_and_workloads_wait_for_rbac_config_and_secrets() {
    let cp = controlplane::shared();

    // HTTP/2, negotiated by ALPN with the test control plane.
    let cluster = cf_runner::cluster::connect(&cf_runner::cluster::ConnectOptions {
        kubeconfig: Some(cp.admin_kubeconfig().to_path_buf()),
        context: Some(ADMIN.into()),
    })
    .await
    .unwrap();
    let request = http::Request::get("/version")
        .body(kube::client::Body::from(Vec::new()))
        .unwrap();
    let response = cluster.client.send(request).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.version(), http::Version::HTTP_2);

    // A fresh install, every write timed by the API server.
    let ns = unique("cforder");
    let mark = cp.audit_events().unwrap().len();
    let ex = example("local");
    let out = cf_runner(
        cp.admin_kubeconfig(),
        &[
            "init",
            "--yes",
            "--values",
            ex.to_str().unwrap(),
            "--kube-namespace",
            &ns,
            "--kube-context-name",
            ADMIN,
            "--agent-token",
            AGENT_TOKEN,
            "--no-wait",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let events: Vec<Value> = cp.audit_events().unwrap().into_iter().skip(mark).collect();
    the_agent_config_is_read_with_the_apply_s_reads(&events, &ns);
    // (resource, name) -> (received, stored) of the install's apply.
    let mut writes: BTreeMap<(String, String), (f64, f64)> = BTreeMap::new();
    for e in cp.audit_events().unwrap().into_iter().skip(mark) {
        let ours = e["userAgent"]
            .as_str()
            .unwrap_or_default()
            .starts_with("cf-runner");
        let uri = e["requestURI"].as_str().unwrap_or_default();
        let in_install = e["objectRef"]["namespace"] == ns.as_str()
            || e["objectRef"]["name"]
                .as_str()
                .is_some_and(|n| n.ends_with(&ns));
        if !ours
            || e["stage"] != "ResponseComplete"
            || e["verb"] != "patch"
            || uri.contains("dryRun")
            || !in_install
        {
            continue;
        }
        let key = (
            e["objectRef"]["resource"].as_str().unwrap().to_string(),
            e["objectRef"]["name"].as_str().unwrap().to_string(),
        );
        let times = (at(&e["requestReceivedTimestamp"]), at(&e["stageTimestamp"]));
        writes.entry(key).or_insert(times);
    }
    let of = |resource: &str| -> Vec<(&String, (f64, f64))> {
        writes
            .iter()
            .filter(|((r, _), _)| r == resource)
            .map(|((_, n), t)| (n, *t))
            .collect()
    };
    let stored = |resource: &str, name: &str| {
        writes
            .get(&(resource.to_string(), name.to_string()))
            .unwrap_or_else(|| panic!("no apply of {resource}/{name}: {writes:#?}"))
            .1
    };
    assert!(
        !of("rolebindings").is_empty() && !of("clusterrolebindings").is_empty(),
        "{writes:#?}"
    );
    // The install's ServiceAccount token Secret, after its ServiceAccount.
    let token = &(
        "secrets".to_string(),
        "codefresh-cluster-reader-token".to_string(),
    );
    let token_received = writes
        .get(token)
        .unwrap_or_else(|| panic!("no apply of the token Secret: {writes:#?}"))
        .0;
    assert!(
        token_received >= stored("serviceaccounts", "codefresh-cluster-reader"),
        "the token Secret reached the API server before its ServiceAccount was stored"
    );
    // Every workload after the last RBAC, config and secret object (but
    // the token Secret, which no pod of the install mounts).
    let earlier_done = writes
        .iter()
        .filter(|((r, n), _)| {
            !matches!(
                r.as_str(),
                "deployments" | "daemonsets" | "cronjobs" | "ingresses" | "leases"
            ) && (r.as_str(), n.as_str()) != ("secrets", "codefresh-cluster-reader-token")
        })
        .map(|(_, (_, stored))| *stored)
        .fold(0.0, f64::max);
    let workloads = [of("deployments"), of("daemonsets")].concat();
    assert!(workloads.len() >= 3, "{writes:#?}");
    for (name, (received, _)) in workloads {
        assert!(
            received >= earlier_done,
            "workload {name} reached the API server before the RBAC, config and secrets were stored"
        );
    }
}

/// The agent's config Secret (read to keep an agent that serves attached
/// runtimes as `attach` left it) is read side by side with the apply's own
/// reads, not in a round trip of its own before them: some other read of
/// the apply reached the API server before that read was answered.
fn the_agent_config_is_read_with_the_apply_s_reads(events: &[Value], ns: &str) {
    let ours = |e: &&Value| {
        e["userAgent"]
            .as_str()
            .unwrap_or_default()
            .starts_with("cf-runner")
            && e["stage"] == "ResponseComplete"
    };
    let lease_taken = events
        .iter()
        .filter(ours)
        .find(|e| e["verb"] == "create" && e["objectRef"]["resource"] == "leases")
        .map(|e| at(&e["stageTimestamp"]))
        .expect("the lock's Lease create");
    let config = events
        .iter()
        .filter(ours)
        .find(|e| {
            e["verb"] == "get"
                && e["objectRef"]["resource"] == "secrets"
                && e["objectRef"]["name"] == "runnerconf"
                && e["objectRef"]["namespace"] == ns
        })
        .expect("the agent config Secret's read");
    let config_answered = at(&config["stageTimestamp"]);
    let others: Vec<(String, f64)> = events
        .iter()
        .filter(ours)
        .filter(|e| matches!(e["verb"].as_str(), Some("get" | "list" | "create")))
        .filter(|e| e["objectRef"]["resource"] != "leases" && *e != config)
        .map(|e| {
            (
                e["requestURI"].as_str().unwrap_or_default().to_string(),
                at(&e["requestReceivedTimestamp"]),
            )
        })
        .filter(|(_, received)| *received > lease_taken)
        .collect();
    assert!(
        others
            .iter()
            .any(|(_, received)| *received < config_answered),
        "the agent config Secret was read in a round trip of its own (answered at {config_answered}), before the apply's reads: {others:#?}"
    );
}

/// What the apply must learn before its first write (read side by side with
/// its own reads) stops it when it cannot be learned: nothing is written.
/// When learned, what it changed is what is written.
#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn what_the_apply_learns_first_gates_every_write() {
    use cf_runner::cluster::apply::{apply_all_after, Options};
    use cf_runner::render::{Component, Manifest};
    use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
    use kube::api::Api;

    let cp = controlplane::shared();
    let client = cp.client();
    let ns = unique("cfgate");
    let labels = serde_json::json!({
        "app.kubernetes.io/managed-by": "cf-runner",
        "app.kubernetes.io/instance": ns,
    });
    let manifest = |kind: &str, namespace: Option<&str>, stage: u8, data: &str| Manifest {
        api_version: "v1".into(),
        kind: kind.into(),
        name: if kind == "Namespace" {
            ns.clone()
        } else {
            "gated".into()
        },
        namespace: namespace.map(str::to_string),
        component: Component::Runner,
        stage,
        object: if kind == "Namespace" {
            serde_json::json!({"apiVersion": "v1", "kind": kind,
                "metadata": {"name": ns, "labels": labels}})
        } else {
            serde_json::json!({"apiVersion": "v1", "kind": kind,
                "metadata": {"name": "gated", "namespace": namespace, "labels": labels},
                "data": {"from": data}})
        },
    };
    let manifests = vec![
        manifest("Namespace", None, 0, ""),
        manifest("ConfigMap", Some(&ns), 1, "render"),
    ];
    let failed = apply_all_after(
        &client,
        &manifests,
        &ns,
        Options::default(),
        &|_| {},
        async { Err::<Vec<Manifest>, _>("cannot tell") },
    )
    .await;
    assert_eq!(failed.err(), Some("cannot tell"));
    let namespaces: Api<Namespace> = Api::all(client.clone());
    assert!(
        namespaces.get_opt(&ns).await.unwrap().is_none(),
        "written although what comes first failed"
    );

    let changed = vec![manifest("ConfigMap", Some(&ns), 1, "learned")];
    let report = apply_all_after(
        &client,
        &manifests,
        &ns,
        Options::default(),
        &|_| {},
        async { Ok::<_, ()>(changed) },
    )
    .await
    .unwrap();
    assert!(report.ok(), "{report:?}");
    let maps: Api<ConfigMap> = Api::namespaced(client.clone(), &ns);
    let live = maps.get("gated").await.unwrap();
    assert_eq!(live.data.unwrap()["from"], "learned");
}
