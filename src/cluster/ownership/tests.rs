//! Unit tests of ownership by marks: creation times (as read through
//! `text::parse_rfc3339`), managers, labels,
//! adopt's mark, and what goes with a namespace.

use super::contents::{is_install_lock, is_kubernetes_own};
use super::*;
use serde_json::json;

fn entry(manager: &str, operation: &str, time: &str) -> Value {
    json!({"manager": manager, "operation": operation, "time": time, "apiVersion": "v1"})
}

fn object(labels: Value, entries: Vec<Value>) -> Value {
    json!({"metadata": {
        "name": "runner", "uid": "u-1",
        "creationTimestamp": "2026-01-02T03:04:05Z",
        "labels": labels,
        "managedFields": entries,
    }})
}

fn ours_labels() -> Value {
    json!({LABEL_MANAGED_BY: "cf-runner", LABEL_INSTANCE: "ci"})
}

#[test]
fn times_are_read_as_the_api_server_writes_them() {
    assert_eq!(crate::text::parse_rfc3339("1970-01-01T00:00:00Z"), Some(0));
    assert_eq!(
        crate::text::parse_rfc3339("2026-01-02T03:04:05Z"),
        Some(1_767_323_045)
    );
    assert_eq!(
        crate::text::parse_rfc3339("2026-01-02T05:04:05.5+02:00"),
        Some(1_767_323_045)
    );
    assert_eq!(crate::text::parse_rfc3339("yesterday"), None);
}

#[test]
fn an_object_cf_runner_created_is_ours_whoever_wrote_it_later() {
    let o = object(
        ours_labels(),
        vec![
            entry("cf-runner", "Apply", "2026-03-01T00:00:00Z"),
            // The deployment controller, in the second of creation.
            entry("kube-controller-manager", "Update", "2026-01-02T03:04:06Z"),
            // A user's rollout restart, days later.
            entry("kubectl-rollout", "Update", "2026-02-01T00:00:00Z"),
            json!({"manager": "kube-controller-manager", "operation": "Update",
                       "subresource": "status", "time": "2026-01-02T03:04:05Z"}),
            entry("cf-runner-restart", "Update", "2026-01-02T03:04:05Z"),
        ],
    );
    assert_eq!(ownership(&o, "ci", &Ledger::Absent), Ownership::Ours);
}

#[test]
fn a_write_in_the_second_cf_runner_created_the_object_does_not_make_it_foreign() {
    let o = object(
        ours_labels(),
        vec![
            entry("cf-runner", "Apply", "2026-01-02T03:04:05Z"),
            entry("someone-else", "Apply", "2026-01-02T03:04:05Z"),
        ],
    );
    assert_eq!(ownership(&o, "ci", &Ledger::Absent), Ownership::Ours);
    // A write a second after the creation is not the creation.
    let o = object(
        ours_labels(),
        vec![
            entry("cf-runner", "Apply", "2026-02-01T00:00:00Z"),
            entry("someone-else", "Update", "2026-01-02T03:04:06Z"),
        ],
    );
    assert_eq!(ownership(&o, "ci", &Ledger::Absent), Ownership::Ours);
}

#[test]
fn an_object_someone_else_created_is_not_ours_even_with_our_labels() {
    let o = object(
        ours_labels(),
        vec![
            entry("kubectl-create", "Update", "2026-01-02T03:04:05Z"),
            entry("cf-runner", "Apply", "2026-01-02T03:09:00Z"),
        ],
    );
    let Ownership::Foreign(f) = ownership(&o, "ci", &Ledger::Absent) else {
        panic!("ours")
    };
    assert!(f.why.contains("kubectl-create did"), "{}", f.why);
    assert_eq!(f.managers, vec!["kubectl-create".to_string()]);
    // Relabelled by hand, never applied by cf-runner.
    let o = object(
        ours_labels(),
        vec![entry("kubectl-label", "Update", "2026-01-05T00:00:00Z")],
    );
    assert!(matches!(
        ownership(&o, "ci", &Ledger::Absent),
        Ownership::Foreign(_)
    ));
}

#[test]
fn labels_of_another_installation_or_none_are_foreign() {
    let applied = vec![entry("cf-runner", "Apply", "2026-01-02T03:04:05Z")];
    let o = object(
        json!({LABEL_MANAGED_BY: "cf-runner", LABEL_INSTANCE: "other"}),
        applied.clone(),
    );
    let Ownership::Foreign(f) = ownership(&o, "ci", &Ledger::Absent) else {
        panic!("ours")
    };
    assert!(f.why.contains("namespace other"), "{}", f.why);
    let o = object(
        json!({LABEL_MANAGED_BY: "Helm", "helm.sh/chart": "x-1"}),
        vec![entry("helm", "Update", "2026-01-02T03:04:05Z")],
    );
    let Ownership::Foreign(f) = ownership(&o, "ci", &Ledger::Absent) else {
        panic!("ours")
    };
    assert_eq!(
        f.marks,
        vec![
            format!("{LABEL_MANAGED_BY}=Helm"),
            "helm.sh/chart=x-1".into()
        ]
    );
    assert!(f.describe().contains("helm"), "{}", f.describe());
}

#[test]
fn adopts_mark_counts_only_with_the_objects_own_uid() {
    let mut o = object(
        json!({}),
        vec![entry("helm", "Update", "2026-01-02T03:04:05Z")],
    );
    o["metadata"]["annotations"] = json!({ADOPTED_UID_ANNOTATION: "u-1"});
    assert_eq!(ownership(&o, "ci", &Ledger::Absent), Ownership::Ours);
    o["metadata"]["annotations"] = json!({ADOPTED_UID_ANNOTATION: "u-other"});
    assert!(matches!(
        ownership(&o, "ci", &Ledger::Absent),
        Ownership::Foreign(_)
    ));
}

#[test]
fn force_adopted_objects_of_earlier_versions_are_told_apart() {
    let mut o = object(
        ours_labels(),
        vec![
            entry("the-user", "Update", "2026-01-02T03:04:05Z"),
            entry("cf-runner", "Apply", "2026-01-03T00:00:00Z"),
        ],
    );
    o["metadata"]["annotations"] = json!({crate::cluster::marks::ADOPTED_ANNOTATION: "true"});
    assert_eq!(
        ownership(&o, "ci", &Ledger::Absent),
        Ownership::ForceAdopted
    );
}

/// `delete --delete-namespace` kept every namespace "for
/// Lease/cf-runner-lock": the lock of the deleting run itself.
#[test]
fn the_installs_lock_goes_with_the_namespace_and_nothing_else_does() {
    let lease = |name: &str, managed_by: &str| {
        json!({"metadata": {"name": name,
                "labels": {crate::render::LABEL_MANAGED_BY: managed_by}}})
    };
    let group = "coordination.k8s.io";
    assert!(is_install_lock(
        group,
        "Lease",
        &lease(super::super::marks::LEASE_NAME, "cf-runner")
    ));
    assert!(!is_install_lock(
        group,
        "Lease",
        &lease(super::super::marks::LEASE_NAME, "team")
    ));
    assert!(!is_install_lock(
        group,
        "Lease",
        &lease("team-leader", "cf-runner")
    ));
    assert!(!is_install_lock(
        "",
        "ConfigMap",
        &lease(super::super::marks::LEASE_NAME, "cf-runner")
    ));
}

#[test]
fn kubernetes_own_objects_are_not_contents() {
    let named = |n: &str| json!({"metadata": {"name": n}});
    assert!(is_kubernetes_own(
        "",
        "ConfigMap",
        &named("kube-root-ca.crt")
    ));
    assert!(is_kubernetes_own("", "ServiceAccount", &named("default")));
    assert!(is_kubernetes_own("events.k8s.io", "Event", &named("x.1")));
    assert!(!is_kubernetes_own("", "ServiceAccount", &named("team")));
    let c = Contents {
        others: (0..12).map(|i| format!("Secret/s{i:02}")).collect(),
        unlisted: vec![],
    };
    assert_eq!(
        c.first(10),
        "Secret/s00, Secret/s01, Secret/s02, Secret/s03, Secret/s04, Secret/s05, Secret/s06, \
             Secret/s07, Secret/s08, Secret/s09 and 2 more"
    );
}
