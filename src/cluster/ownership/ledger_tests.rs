//! Unit tests of the ledger: where one is kept, forged marks are not
//! cf-runner's, and recorded objects stay its own.

use super::*;
use serde_json::json;

/// A ConfigMap a user made, then dressed as cf-runner's with nothing
/// but `patch`: our labels and a forged `cf-runner` Apply entry stamped
/// at its creation, or the adopt mark with its own uid.
fn forged(adopt_mark: bool) -> Value {
    let mut o = json!({"metadata": {
        "name": "team-notes", "namespace": "ci", "uid": "u-team",
        "creationTimestamp": "2026-01-02T03:04:05Z",
        "labels": {LABEL_MANAGED_BY: "cf-runner", LABEL_INSTANCE: "ci"},
        "managedFields": [{"manager": "cf-runner", "operation": "Apply",
                           "time": "2026-01-02T03:04:05Z", "apiVersion": "v1"}],
    }});
    if adopt_mark {
        o["metadata"]["annotations"] = json!({ADOPTED_UID_ANNOTATION: "u-team"});
        o["metadata"]["managedFields"] = json!([]);
    }
    o
}

#[test]
fn forged_marks_are_not_ours_where_a_ledger_is_kept() {
    let ledger = Ledger::Kept(BTreeSet::from(["u-runner".to_string()]));
    for adopt_mark in [false, true] {
        let o = forged(adopt_mark);
        // The marks alone (no ledger) are fooled: that is the forgery.
        assert_eq!(ownership(&o, "ci", &Ledger::Absent), Ownership::Ours);
        let Ownership::Foreign(f) = ownership(&o, "ci", &ledger) else {
            panic!("a forged object is ours (adopt mark: {adopt_mark})")
        };
        assert!(
            f.why.contains("not in the ledger on Namespace/ci"),
            "{}",
            f.why
        );
        if !adopt_mark {
            assert!(
                f.describe().contains("field manager(s) cf-runner"),
                "{}",
                f.describe()
            );
        }
    }
    // A force-adopted object of an earlier version needs the ledger too.
    let mut o = forged(false);
    o["metadata"]["annotations"] = json!({crate::cluster::marks::ADOPTED_ANNOTATION: "true"});
    assert!(matches!(
        ownership(&o, "ci", &ledger),
        Ownership::Foreign(_)
    ));
}

#[test]
fn recorded_objects_stay_ours_and_the_ledger_never_makes_a_foreign_one_ours() {
    let ledger = Ledger::Kept(BTreeSet::from(["u-team".to_string()]));
    assert_eq!(ownership(&forged(false), "ci", &ledger), Ownership::Ours);
    assert_eq!(ownership(&forged(true), "ci", &ledger), Ownership::Ours);
    let mut o = forged(false);
    o["metadata"]["labels"] = json!({});
    assert!(matches!(
        ownership(&o, "ci", &ledger),
        Ownership::Foreign(_)
    ));
}

#[test]
fn the_ledger_is_read_from_the_namespaces_annotation() {
    let ns = |a: Value| json!({"metadata": {"name": "ci", "annotations": a}});
    assert_eq!(Ledger::of_namespace(&ns(json!({}))), Ledger::Absent);
    assert_eq!(
        Ledger::of_namespace(&ns(json!({LEDGER_ANNOTATION: ""}))),
        Ledger::Kept(BTreeSet::new())
    );
    assert_eq!(
        Ledger::of_namespace(&ns(json!({LEDGER_ANNOTATION: "b, a,,"}))).uids(),
        BTreeSet::from(["a".to_string(), "b".to_string()])
    );
}
