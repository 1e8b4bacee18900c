//! The lock's namespace, against the real API server. `init` takes its
//! lock with what its preflight saw of the namespace: one seen missing is
//! made in one request, one seen existing is not read again (the Lease is
//! created at once). What `cluster::lock::create_namespace` relies on: a
//! server-side apply that carries an impossible `metadata.resourceVersion`
//! creates a namespace that does not exist and is refused (409) on one
//! that does, before anything is stored. So a namespace someone made a
//! moment ago (between the preflight's look and the lock) is never
//! written; of two runs at once one makes it; and a namespace admin who may
//! read but not patch their namespace still takes the lock in it.

use crate::support;

use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::api::rbac::v1::{PolicyRule, Role, RoleBinding, RoleRef, Subject};
use kube::api::{Api, PostParams};
use serde_json::Value;
use support::cli;
use support::controlplane::{self, LIMITED_USER};
use support::namespace::unique;

use cf_runner::cluster::lock::create_namespace;
use cf_runner::render::Manifest;
use support::objects::namespace_manifest;

/// The Namespace manifest as the install renders it (the labels that
/// matter to the ownership rule).
fn manifest(name: &str) -> Manifest {
    namespace_manifest(name, &[("app.kubernetes.io/instance", name)])
}

/// The requests the API server answered about namespace `name` itself
/// (not what is in it): (verb, status code), oldest first.
fn requests_about(name: &str) -> Vec<(String, i64)> {
    requests_about_since(name, 0)
}

/// [`requests_about`], from the `since`th audit event on; dry-runs left
/// out.
fn requests_about_since(name: &str, since: usize) -> Vec<(String, i64)> {
    let path = format!("/api/v1/namespaces/{name}");
    controlplane::shared()
        .audit_events()
        .unwrap()
        .into_iter()
        .skip(since)
        .filter(|e| e["stage"] == "ResponseComplete")
        .filter(|e| !crate::support::audit::is_dry_run(e))
        .filter(|e| {
            let uri = e["requestURI"].as_str().unwrap_or_default();
            uri == path || uri.starts_with(&format!("{path}?"))
        })
        .filter(|e| {
            !e["user"]["username"]
                .as_str()
                .unwrap_or_default()
                .starts_with("system:")
        })
        .map(|e| {
            (
                e["verb"].as_str().unwrap_or_default().to_string(),
                e["responseStatus"]["code"].as_i64().unwrap_or_default(),
            )
        })
        .collect()
}

fn managers(ns: &Namespace) -> Vec<(String, String)> {
    support::objects::managers(&ns.metadata)
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn the_locks_namespace_is_made_in_one_request_and_one_made_meanwhile_is_never_written() {
    let cp = controlplane::shared();
    let client = cp.client();
    let namespaces: Api<Namespace> = Api::all(client.clone());

    // Missing: made by one create-only apply, no GET first, and it is
    // cf-runner's by the ownership rule (an `Apply` entry from creation).
    let fresh = unique("cfnsone");
    assert!(create_namespace(&client, &manifest(&fresh)).await.unwrap());
    assert_eq!(
        requests_about(&fresh),
        vec![("patch".to_string(), 201)],
        "the lock's namespace should take one request"
    );
    let made = namespaces.get(&fresh).await.unwrap();
    assert_eq!(
        managers(&made),
        vec![("cf-runner".to_string(), "Apply".to_string())]
    );
    let made = serde_json::to_value(&made).unwrap();
    assert!(cf_runner::cluster::namespace_is_ours(&made), "{made}");
    assert_ne!(
        made.pointer("/metadata/resourceVersion")
            .and_then(Value::as_str),
        Some(cf_runner::cluster::lock::NEVER_A_VERSION)
    );

    // Made by kubectl a moment before the lock (after the preflight looked):
    // refused before anything is stored, so it keeps its version, labels
    // and managers.
    let theirs = unique("cfnskubectl");
    let made = cp
        .kubectl()
        .args(["create", "namespace", &theirs])
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let before = namespaces.get(&theirs).await.unwrap();
    assert!(!create_namespace(&client, &manifest(&theirs)).await.unwrap());
    let after = namespaces.get(&theirs).await.unwrap();
    assert_eq!(
        after.metadata.resource_version, before.metadata.resource_version,
        "a namespace kubectl made was written"
    );
    assert_eq!(after.metadata.labels, before.metadata.labels);
    assert_eq!(managers(&after), managers(&before));
    let writes: Vec<(String, i64)> = requests_about(&theirs)
        .into_iter()
        .filter(|(verb, _)| verb != "get" && verb != "create")
        .collect();
    assert_eq!(writes, vec![("patch".to_string(), 409)]);

    // Two runs at once on a missing namespace: one makes it, the other
    // finds it made; only cf-runner's apply wrote it.
    let both = unique("cfnsboth");
    let wanted = manifest(&both);
    let (a, b) = tokio::join!(
        create_namespace(&client, &wanted),
        create_namespace(&client, &wanted),
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    assert!(a != b, "made by both or by neither: {a} {b}");
    let made = namespaces.get(&both).await.unwrap();
    assert_eq!(
        managers(&made),
        vec![("cf-runner".to_string(), "Apply".to_string())]
    );
}

/// A namespace admin: the namespace exists, made by a cluster admin, and
/// the user may read it (a Role in it) but not patch namespaces. The
/// create-only apply is refused (403) and a GET finds the namespace, as
/// the GET alone did before. Without even that right, the error is the
/// GET's, as before.
#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn a_namespace_admin_takes_the_lock_in_a_namespace_they_may_only_read() {
    let cp = controlplane::shared();
    let admin = cp.client();
    let ns = cp.create_namespace("cfnsadmin").await.unwrap();
    let role = Role {
        metadata: kube::core::ObjectMeta {
            name: Some("read-own-namespace".into()),
            namespace: Some(ns.clone()),
            ..Default::default()
        },
        rules: Some(vec![PolicyRule {
            api_groups: Some(vec![String::new()]),
            resources: Some(vec!["namespaces".into()]),
            verbs: vec!["get".into()],
            ..Default::default()
        }]),
    };
    Api::<Role>::namespaced(admin.clone(), &ns)
        .create(&PostParams::default(), &role)
        .await
        .unwrap();
    let binding = RoleBinding {
        metadata: kube::core::ObjectMeta {
            name: Some("read-own-namespace".into()),
            namespace: Some(ns.clone()),
            ..Default::default()
        },
        role_ref: RoleRef {
            api_group: Some("rbac.authorization.k8s.io".into()),
            kind: "Role".into(),
            name: "read-own-namespace".into(),
        },
        subjects: Some(vec![Subject {
            kind: "User".into(),
            name: LIMITED_USER.into(),
            api_group: Some("rbac.authorization.k8s.io".into()),
            ..Default::default()
        }]),
    };
    Api::<RoleBinding>::namespaced(admin.clone(), &ns)
        .create(&PostParams::default(), &binding)
        .await
        .unwrap();
    let namespaces: Api<Namespace> = Api::all(admin.clone());
    let before = namespaces.get(&ns).await.unwrap();

    let limited = cp.limited_client();
    // RBAC bindings take effect within moments.
    let mut found = create_namespace(&limited, &manifest(&ns)).await;
    for _ in 0..50 {
        if found.is_ok() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        found = create_namespace(&limited, &manifest(&ns)).await;
    }
    assert!(!found.unwrap(), "the namespace exists");
    let after = namespaces.get(&ns).await.unwrap();
    assert_eq!(
        after.metadata.resource_version,
        before.metadata.resource_version
    );

    // No right at all on a missing namespace: refused on the GET.
    let missing = unique("cfnsnoright");
    let err = create_namespace(&limited, &manifest(&missing))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some(403), "{err}");
    assert!(err.to_string().contains("reading"), "{err}");
    assert!(namespaces.get_opt(&missing).await.unwrap().is_none());
}

/// `init` into a new namespace, then again: its preflight reads the
/// namespace, and the lock takes that answer instead of reading it again
/// (it read it a second time before). The first run writes the namespace
/// once, for the lock; the re-run sends it no write at all.
#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn init_reads_its_namespace_once_before_the_lock() {
    let cp = controlplane::shared();
    let ns = unique("cfnsinit");
    let example = cli::example("local");
    let args = [
        "init",
        "--yes",
        "--values",
        example.to_str().unwrap(),
        "--kube-context-name",
        "admin@cf-runner-test",
        "--kube-namespace",
        &ns,
        "--agent-token",
        "agent-token-for-the-test",
        "--no-wait",
    ];
    let get = |verb: &str, code: i64| (verb.to_string(), code);
    for run in ["first", "re-run"] {
        let mark = cp.audit_events().unwrap().len();
        let out = cli::run(cp.admin_kubeconfig(), &args);
        assert!(out.status.success(), "{run}: {}", cli::text(&out));
        let sent = requests_about_since(&ns, mark);
        let expected = match run {
            // The preflight's GET, the lock's create-only apply (of the
            // namespace as the apply would write it, its applied-hash
            // included) and the apply's GET: the apply writes it no more;
            // then the ledger of what the apply created (`ownership`).
            "first" => vec![
                get("get", 404),
                get("patch", 201),
                get("get", 200),
                get("patch", 200),
            ],
            // The preflight's GET and the apply's: nothing written.
            _ => vec![get("get", 200), get("get", 200)],
        };
        assert_eq!(sent, expected, "{run}");
    }
    let made = Api::<Namespace>::all(cp.client()).get(&ns).await.unwrap();
    let made = serde_json::to_value(&made).unwrap();
    assert!(cf_runner::cluster::namespace_is_ours(&made), "{made}");
}
