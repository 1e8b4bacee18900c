//! What an upgrade cannot change in place (the namespace, the volume
//! backend and its class), as problems that say how to make the change
//! instead: decided on the merged trees before validation, and again on the
//! loaded values.

use serde_json::Value;

use crate::values::{self, Problem, Values};

fn describe_storage(v: &Values) -> String {
    if v.storage.provisioned {
        format!(
            "{} volumes through StorageClass {}",
            v.storage.backend.name(),
            v.storage.class_name
        )
    } else {
        format!("the existing StorageClass {}", v.storage.class_name)
    }
}

fn namespace_problem(installed_in: &str, wanted: &str) -> Problem {
    Problem::new(
        "Namespace",
        Some(&Value::String(wanted.to_string())),
        format!(
            "differs from the installation's namespace {installed_in}: upgrade changes an installation in place, it cannot move it"
        ),
        format!(
            "to move it, run `cf-runner delete --kube-namespace {installed_in}` then `cf-runner init --kube-namespace {wanted}`; \
             to upgrade in place, pass --kube-namespace {installed_in}"
        ),
    )
}

fn storage_problem(installed_in: &str, key: &str, what: &str) -> Problem {
    Problem::new(
        key,
        None,
        format!(
            "would change the storage of the dind volumes in place ({what}): a StorageClass's parameters cannot change, \
             and the existing volumes belong to the old one"
        ),
        format!(
            "to change the storage, run `cf-runner delete --kube-namespace {installed_in} --purge-volumes`, \
             then `cf-runner init` with the new storage values"
        ),
    )
}

/// The same refusals as [`in_place_problems`], decided on the merged trees
/// before validation: a new backend usually leaves the old backend's keys
/// behind, and "remove this key" would be the wrong advice.
pub fn in_place_problems_raw(installed_in: &str, stored: &Value, merged: &Value) -> Vec<Problem> {
    let text = |tree: &Value, key: &str| {
        values::tree::lookup(tree, key).and_then(|v| match v {
            Value::String(s) => Some(s.trim().to_string()),
            Value::Null => None,
            other => Some(other.to_string()),
        })
    };
    let namespace =
        text(merged, "Namespace").unwrap_or_else(|| values::DEFAULT_NAMESPACE.to_string());
    if namespace != installed_in {
        return vec![namespace_problem(installed_in, &namespace)];
    }
    let backend = |tree: &Value| {
        text(tree, "Storage.Backend")
            .unwrap_or_else(|| "local".into())
            .to_ascii_lowercase()
    };
    let class = |tree: &Value| {
        text(tree, "StorageClass").or_else(|| text(tree, "Storage.StorageClassName"))
    };
    if let Some(p) = values::agent_only::changed_problem(installed_in, stored, merged) {
        return vec![p];
    }
    let mut out = Vec::new();
    if backend(stored) != backend(merged) {
        out.push(storage_problem(
            installed_in,
            "Storage.Backend",
            &format!("{} to {}", backend(stored), backend(merged)),
        ));
    } else if class(stored) != class(merged) {
        let shown = |c: Option<String>| c.unwrap_or_else(|| "the one cf-runner installs".into());
        out.push(storage_problem(
            installed_in,
            "StorageClass",
            &format!(
                "StorageClass {} to {}",
                shown(class(stored)),
                shown(class(merged))
            ),
        ));
    }
    out
}

/// What an upgrade cannot change in place, as problems saying how instead.
pub fn in_place_problems(installed_in: &str, old: Option<&Values>, new: &Values) -> Vec<Problem> {
    if new.namespace != installed_in {
        // A new namespace renames the default StorageClass too: one problem is enough.
        return vec![namespace_problem(installed_in, &new.namespace)];
    }
    let Some(old) = old else {
        return Vec::new();
    };
    let (o, n) = (&old.storage, &new.storage);
    let changed = o.provisioned != n.provisioned
        || o.class_name != n.class_name
        || (n.provisioned && o.backend != n.backend);
    if !changed {
        return Vec::new();
    }
    let key = if o.backend.name() != n.backend.name() {
        "Storage.Backend"
    } else if o.class_name != n.class_name || o.provisioned != n.provisioned {
        "StorageClass"
    } else {
        "Storage"
    };
    let what = if describe_storage(old) == describe_storage(new) {
        format!("the parameters of {}", describe_storage(old))
    } else {
        format!("{} to {}", describe_storage(old), describe_storage(new))
    };
    vec![storage_problem(installed_in, key, &what)]
}
