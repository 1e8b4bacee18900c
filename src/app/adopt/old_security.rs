//! Security contexts and rootless dind of an old install, read from its
//! objects: a pod security context the user set on the chart's runner or
//! provisioner (one that is not the chart's default ids) becomes the
//! matching `SecurityContext` key, and a provisioner told `IS_ROOTLESS`
//! (the chart's values-rootless.yaml) becomes `Runtime.Dind.Rootless`, so
//! the move keeps the builds' docker daemon rootless. What the builds' own
//! contexts are stays in the runtime environment on the platform, which
//! the move does not read.

use serde_json::{json, Value};

use crate::app::adopt::objects::kind;

/// The pod security context the chart gives each of these pods by default
/// (10001 for the runner, 3000 for the provisioner): the same read back is
/// no setting of the user's, and cf-runner renders it anyway.
fn chart_default(id: i64) -> Value {
    json!({"runAsUser": id, "runAsGroup": id, "fsGroup": id})
}

/// The Deployment whose one container is named `container`.
fn deployment_with<'a>(mine: &[&'a Value], container: &str) -> Option<&'a Value> {
    mine.iter().copied().find(|o| {
        kind(o) == "Deployment"
            && o["spec"]["template"]["spec"]["containers"]
                .as_array()
                .is_some_and(|cs| cs.iter().any(|c| c["name"] == container))
    })
}

/// Sets `key` to the pod's security context when it says something and is
/// not the chart's default. A pod with none is left to cf-runner's default:
/// venonactl's runner has none, and it is no choice of the user's.
fn carry_pod_context(deployment: &Value, default_id: i64, key: (&str, &str), v: &mut Value) {
    let context = &deployment["spec"]["template"]["spec"]["securityContext"];
    let Some(map) = context.as_object().filter(|m| !m.is_empty()) else {
        return;
    };
    if *context != chart_default(default_id) {
        v[key.0][key.1] = Value::Object(map.clone());
    }
}

/// Adds to `v` the security settings `mine` (the old install's objects) show.
pub(crate) fn read_security(mine: &[&Value], v: &mut Value) {
    if let Some(runner) = deployment_with(mine, "runner") {
        carry_pod_context(runner, 10001, ("Runner", "SecurityContext"), v);
    }
    if let Some(provisioner) = deployment_with(mine, "dind-volume-provisioner") {
        let container = provisioner["spec"]["template"]["spec"]["containers"]
            .as_array()
            .and_then(|cs| cs.iter().find(|c| c["name"] == "dind-volume-provisioner"))
            .cloned()
            .unwrap_or(Value::Null);
        let rootless = container["env"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|e| e["name"] == "IS_ROOTLESS" && e["value"].as_str() == Some("true"));
        if rootless {
            v["Runtime"]["Dind"]["Rootless"] = json!(true);
        }
        let mut storage = v.get("Storage").cloned().unwrap_or_else(|| json!({}));
        carry_pod_context(
            provisioner,
            3000,
            ("VolumeProvisioner", "SecurityContext"),
            &mut storage,
        );
        if storage.get("VolumeProvisioner").is_some() {
            v["Storage"] = storage;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(container: &str, context: Value, env: Value) -> Value {
        json!({"kind": "Deployment", "metadata": {"name": format!("cf-runtime-{container}")},
               "spec": {"template": {"spec": {"securityContext": context,
                   "containers": [{"name": container, "env": env}]}}}})
    }

    #[test]
    fn a_rootless_chart_install_and_a_users_context_are_carried_the_default_is_not() {
        let runner = pod(
            "runner",
            json!({"runAsUser": 2000, "runAsNonRoot": true}),
            json!([]),
        );
        let provisioner = pod(
            "dind-volume-provisioner",
            chart_default(3000),
            json!([{"name": "IS_ROOTLESS", "value": "true"}]),
        );
        let mut v = json!({"Storage": {"Backend": "local"}});
        read_security(&[&runner, &provisioner], &mut v);
        assert_eq!(v["Runtime"]["Dind"]["Rootless"], json!(true));
        assert_eq!(v["Runner"]["SecurityContext"]["runAsUser"], 2000);
        assert!(v["Storage"].get("VolumeProvisioner").is_none(), "{v}");
        assert_eq!(v["Storage"]["Backend"], "local");

        let runner = pod("runner", chart_default(10001), json!([]));
        let venonactls = pod("runner", json!(null), json!([]));
        let mut v = json!({});
        read_security(&[&runner], &mut v);
        read_security(&[&venonactls], &mut v);
        assert!(v.get("Runner").is_none(), "{v}");
    }
}
