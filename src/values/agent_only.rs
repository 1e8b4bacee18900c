//! `AgentOnly`: an install of the agent alone, with no runtime in its own
//! namespace (its runtimes are attached later, in other namespaces or
//! clusters). A key that only a runtime of the agent's namespace would use
//! is refused with it, naming the key, rather than silently ignored.

use serde_json::Value;

use super::Problem;

/// Top-level keys (or sections) that set up a runtime in the agent's
/// namespace, which an agent-only install does not have.
pub const RUNTIME_ONLY_KEYS: &[&str] = &[
    "RuntimeEnvironmentName",
    "SetDefaultRuntime",
    "ExecDemoPipeline",
    "DockerDaemonAccess",
    "StorageClass",
    "Storage",
    "Runtime",
];

/// Every leaf under `tree` with its dotted path.
fn leaves<'a>(tree: &'a Value, prefix: &str, out: &mut Vec<(String, &'a Value)>) {
    match tree {
        Value::Object(map) if !map.is_empty() => {
            for (k, v) in map {
                leaves(v, &format!("{prefix}.{k}"), out);
            }
        }
        Value::Null => {}
        other => out.push((prefix.to_string(), other)),
    }
}

/// The runtime-only keys set next to `AgentOnly: true`, one problem each.
pub fn problems(tree: &Value) -> Vec<Problem> {
    let mut out = Vec::new();
    for key in RUNTIME_ONLY_KEYS {
        let Some(value) = tree.get(*key) else {
            continue;
        };
        let mut found = Vec::new();
        match value {
            Value::Object(map) if !map.is_empty() => {
                for (k, v) in map {
                    leaves(v, &format!("{key}.{k}"), &mut found);
                }
            }
            Value::Null => {}
            other => found.push((key.to_string(), other)),
        }
        for (path, v) in found {
            out.push(Problem::new(
                &path,
                Some(v),
                "sets up a runtime in the agent's namespace, and AgentOnly (--agent-only) installs the agent without one",
                "remove it; give a runtime its own settings when you attach it (the Runtimes entry's keys, or `cf-runner runtime attach --set-value`), or drop AgentOnly to install the agent with its runtime",
            ));
        }
    }
    out
}

/// `AgentOnly` as a merged values tree has it (absent: false).
fn of(tree: &Value) -> bool {
    tree.get("AgentOnly")
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// An upgrade cannot turn an installation into an agent alone, or back:
/// the runtime of the agent's namespace (its objects, its runtime
/// environment, its builds) would come or go with a values key.
pub fn changed_problem(installed_in: &str, stored: &Value, merged: &Value) -> Option<Problem> {
    let (was, is) = (of(stored), of(merged));
    (was != is).then(|| {
        Problem::new(
            "AgentOnly",
            Some(&Value::Bool(is)),
            format!(
                "differs from the installation in namespace {installed_in} ({}): upgrade changes an installation in place, and this would {} the runtime of the agent's namespace",
                if was { "an agent alone" } else { "an agent with its runtime" },
                if was { "add" } else { "remove" }
            ),
            format!(
                "leave AgentOnly as installed; to change it, run `cf-runner delete --kube-namespace {installed_in}` then `cf-runner init` with the new setting"
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_runtime_key_is_named_and_agent_keys_pass() {
        let tree = json!({"AgentOnly": true, "Namespace": "a", "NodeSelector": {"k": "v"},
            "Storage": {"Backend": "ebs", "AvailabilityZone": "eu-1a"},
            "Runtime": {"NodeSelector": {"z": "1"}}, "StorageClass": "fast"});
        let keys: Vec<String> = problems(&tree).into_iter().map(|p| p.key).collect();
        assert_eq!(
            keys,
            [
                "StorageClass",
                "Storage.Backend",
                "Storage.AvailabilityZone",
                "Runtime.NodeSelector.z"
            ]
        );
        assert!(problems(&json!({"AgentOnly": true, "Runtimes": [{"Namespace": "b"}]})).is_empty());
    }
}
