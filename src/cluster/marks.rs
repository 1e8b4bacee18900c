//! The marks cf-runner leaves on what it writes, and reads back: the
//! annotations of an applied or adopted object, its field managers, the
//! lock's Lease and what taking it needs, the labels of the installers
//! before it, and the namespaces this process made. A leaf: `apply`,
//! `lock`, `ownership` and the preflight all read these, and none of them
//! needs another for it.

use std::sync::Mutex;

use serde_json::{Map, Value};

/// Annotation holding the hash of the object as cf-runner last applied it.
pub const APPLIED_HASH_ANNOTATION: &str = "cf-runner.codefresh.io/applied-hash";

/// A stable 64-bit FNV-1a hash of the object's JSON (maps keep their order).
pub fn applied_hash(object: &Value) -> String {
    let text = serde_json::to_string(object).expect("a JSON tree serializes");
    let mut hash: u64 = 0xcbf29ce484222325;
    for byte in text.as_bytes() {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x100000001b3);
    }
    format!("{hash:016x}")
}

/// The object as it is sent: with the hash annotation added.
pub fn with_hash(object: &Value) -> Value {
    let hash = applied_hash(object);
    let mut out = object.clone();
    let metadata = out
        .as_object_mut()
        .and_then(|o| o.get_mut("metadata"))
        .and_then(Value::as_object_mut)
        .expect("rendered objects have metadata");
    let annotations = metadata
        .entry("annotations")
        .or_insert_with(|| Value::Object(Map::new()));
    if !annotations.is_object() {
        *annotations = Value::Object(Map::new());
    }
    annotations
        .as_object_mut()
        .expect("just made a map")
        .insert(APPLIED_HASH_ANNOTATION.into(), Value::String(hash));
    out
}

/// Marks an object that existed before cf-runner and was taken over with
/// `--force-conflicts` by a version before the ownership rule (which no
/// longer lets anything take a foreign object over): it is the user's, so
/// `delete` leaves it in place unless told otherwise.
pub const ADOPTED_ANNOTATION: &str = "cf-runner.codefresh.io/adopted";

/// Annotation on a pod template that rolls its pods when it changes.
pub const RESTARTED_AT_ANNOTATION: &str = "cf-runner.codefresh.io/restarted-at";
/// Field manager of restarts, apart from [`FIELD_MANAGER`](super::FIELD_MANAGER)'s applied fields,
/// so a later apply neither owns nor removes the annotation.
pub const RESTART_FIELD_MANAGER: &str = "cf-runner-restart";

/// The Lease's name in the installation's namespace.
pub const LEASE_NAME: &str = "cf-runner-lock";

/// What taking, renewing and releasing the lock asks of RBAC in the
/// install's namespace: (verb, API group, resource).
pub const PERMISSIONS: [(&str, &str, &str); 4] = [
    ("get", "coordination.k8s.io", "leases"),
    ("create", "coordination.k8s.io", "leases"),
    ("update", "coordination.k8s.io", "leases"),
    ("delete", "coordination.k8s.io", "leases"),
];

/// The uids of the namespaces this process made for its lock
/// (`lock::create_namespace`): uids, not names, as one run may reach several
/// clusters, each with its own namespace of that name.
static MADE: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// True when this process made the namespace of this `uid` for its lock:
/// the apply that follows finds it as it would have written it, writes
/// nothing, and reports it as created (not as unchanged, which would say it
/// was there before the run).
pub fn made_by_this_process(uid: &str) -> bool {
    MADE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
        .any(|made| made == uid)
}

/// The `app` label values the older installers (venonactl, `codefresh runner
/// init`) put on their objects.
pub const OLD_INSTALLER_APPS: [&str; 5] = [
    "runner",
    "venona",
    "dind-volume-provisioner",
    "dind-lv-monitor",
    "app-proxy",
];

/// Notes that this process made the namespace of this `uid` for its lock
/// (see [`made_by_this_process`]).
pub fn remember_made(uid: String) {
    MADE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .push(uid);
}
