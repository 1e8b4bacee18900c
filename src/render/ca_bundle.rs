//! Where `CaBundle` lands: one ConfigMap in the runtime namespace (the
//! certificates are public, so a ConfigMap and not a Secret: anyone may
//! read them, and `kubectl describe` may show them), mounted as one file
//! into every component that makes TLS calls out of the cluster, and into
//! the dind pod of every build through the runtime spec.
//!
//! The file goes to [`MOUNT_PATH`], inside `/etc/ssl/certs/`, so that it is
//! added to the trust and replaces nothing:
//!
//! - Go programs (the runner, venona; the volume provisioner; dockerd in
//!   the dind pod) read every file of `/etc/ssl/certs` besides the
//!   distribution's bundle, unless `SSL_CERT_DIR` says otherwise. Setting
//!   `SSL_CERT_FILE` instead would replace the public roots.
//! - Node.js programs (the monitor, the app-proxy) keep their own roots and
//!   add the file that `NODE_EXTRA_CA_CERTS` names, read once at start.
//!
//! Each pod carries the bundle's digest as an annotation: a file mounted
//! with `subPath` is never refreshed in a running pod, so a changed bundle
//! must roll the pods, and a changed pod template does.
//!
//! The engine pod of a build is not given the bundle: the runtime spec
//! offers the engine no volume (neither the chart nor Codefresh's spec
//! reference has one), and a file is the only way to hand Node.js a CA.

use serde_json::{json, Map, Value};

use super::{common_labels, finish, Component, Manifest, RenderError};
use crate::values::{CaBundle, Values};

/// The ConfigMap that holds the bundle.
pub const CONFIG_MAP: &str = "cf-runner-ca-bundle";
/// The bundle's key in the ConfigMap.
pub const FILE: &str = "ca-bundle.pem";
/// Where every pod that trusts the bundle finds it.
pub const MOUNT_PATH: &str = "/etc/ssl/certs/cf-runner-ca-bundle.pem";
/// The pod volume's name.
pub const VOLUME: &str = "cf-runner-ca-bundle";
/// The pod annotation with the bundle's SHA-256 (rolls the pods on change).
pub const DIGEST_ANNOTATION: &str = "cf-runner.codefresh.io/ca-bundle-sha256";

/// The language a component's image runs, which says how it learns of a CA.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stack {
    /// Reads `/etc/ssl/certs`: the mounted file is enough.
    Go,
    /// Needs `NODE_EXTRA_CA_CERTS` pointing at the file.
    Node,
}

/// The Deployments that call out of the cluster, by name, with their stack:
/// the runner (venona, Go) and the volume provisioner (Go) call the
/// platform and the cloud's API; the monitor and the app-proxy (Node.js)
/// call the platform and Git providers.
pub const TRUSTING_DEPLOYMENTS: &[(&str, Stack)] = &[
    ("runner", Stack::Go),
    ("dind-volume-provisioner", Stack::Go),
    ("monitor", Stack::Node),
    ("app-proxy", Stack::Node),
];

/// Adds the ConfigMap and mounts it into every trusting Deployment.
pub(super) fn apply(manifests: &mut Vec<Manifest>, values: &Values) -> Result<(), RenderError> {
    let Some(bundle) = &values.ca_bundle else {
        return Ok(());
    };
    for m in manifests.iter_mut().filter(|m| m.kind == "Deployment") {
        if let Some((_, stack)) = TRUSTING_DEPLOYMENTS.iter().find(|(n, _)| *n == m.name) {
            mount_into(&mut m.object, bundle, *stack);
        }
    }
    let labels = common_labels(&values.namespace, Component::Runner);
    manifests.push(finish(
        config_map(bundle),
        Component::Runner,
        &labels,
        "ca-bundle",
        values,
    )?);
    Ok(())
}

/// The ConfigMap, as the chart's `extraResources` takes it too.
pub fn config_map(bundle: &CaBundle) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": CONFIG_MAP},
        "data": {FILE: bundle.pem},
    })
}

/// The pod volume that holds the bundle.
pub fn volume() -> Value {
    json!({"name": VOLUME, "configMap": {"name": CONFIG_MAP}})
}

/// The container's mount of the bundle's one file.
pub fn volume_mount() -> Value {
    json!({"name": VOLUME, "mountPath": MOUNT_PATH, "subPath": FILE, "readOnly": true})
}

/// The env a component of `stack` needs besides the mount.
pub fn env_of(stack: Stack) -> Option<(&'static str, &'static str)> {
    match stack {
        Stack::Go => None,
        Stack::Node => Some(("NODE_EXTRA_CA_CERTS", MOUNT_PATH)),
    }
}

fn push(list: &mut Value, item: Value) {
    if !list.is_array() {
        *list = json!([]);
    }
    if let Some(items) = list.as_array_mut() {
        items.push(item);
    }
}

/// Mounts the bundle into the first container of a Deployment's pod.
fn mount_into(deployment: &mut Value, bundle: &CaBundle, stack: Stack) {
    let template = &mut deployment["spec"]["template"];
    let annotations = &mut template["metadata"]["annotations"];
    if !annotations.is_object() {
        *annotations = Value::Object(Map::new());
    }
    annotations[DIGEST_ANNOTATION] = json!(bundle.sha256);
    let pod = &mut template["spec"];
    push(&mut pod["volumes"], volume());
    let container = &mut pod["containers"][0];
    push(&mut container["volumeMounts"], volume_mount());
    if let Some((name, value)) = env_of(stack) {
        push(&mut container["env"], json!({"name": name, "value": value}));
    }
}

/// The dind pod of every build: the bundle in `/etc/ssl/certs`, where
/// dockerd (Go) reads it for registries behind the proxy. Named like the
/// daemon's own files, in the spec's maps of mounts and volumes.
pub(super) fn into_dind_spec(dind: &mut Map<String, Value>, values: &Values) {
    if values.ca_bundle.is_none() {
        return;
    }
    for (field, item) in [("volumeMounts", volume_mount()), ("volumes", volume())] {
        if let Some(map) = dind.get_mut(field).and_then(Value::as_object_mut) {
            map.insert(VOLUME.into(), item);
        }
    }
}

/// The chart's section of each trusting Deployment, by cf-runner's name.
const CHART_SECTIONS: &[(&str, &str)] = &[
    ("runner", "runner"),
    ("dind-volume-provisioner", "volumeProvisioner"),
    ("monitor", "monitor"),
    ("app-proxy", "appProxy"),
];

/// The bundle in the chart's values: the ConfigMap as one of its
/// `extraResources`, each component's `extraVolumes`, `extraVolumeMounts`,
/// env and pod annotation, and the dind pod's `volumes`/`volumeMounts`, so
/// a chart install renders what cf-runner does.
pub(super) fn into_helm(root: &mut Map<String, Value>, values: &Values) {
    let Some(bundle) = &values.ca_bundle else {
        return;
    };
    push(
        root.entry("extraResources").or_insert(json!([])),
        config_map(bundle),
    );
    for (name, section) in CHART_SECTIONS {
        let stack = TRUSTING_DEPLOYMENTS
            .iter()
            .find(|(n, _)| n == name)
            .map_or(Stack::Go, |(_, s)| *s);
        let c = root.entry(*section).or_insert(json!({}));
        push(&mut c["extraVolumes"], volume());
        push(&mut c["extraVolumeMounts"], volume_mount());
        c["podAnnotations"][DIGEST_ANNOTATION] = json!(bundle.sha256);
        if let Some((var, value)) = env_of(stack) {
            c["env"][var] = json!(value);
        }
    }
    let dind = &mut root.entry("runtime").or_insert(json!({}))["dind"];
    dind["volumes"][VOLUME] = volume();
    dind["volumeMounts"][VOLUME] = volume_mount();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::{render, Identity};
    use crate::values::{load, Input};

    fn rendered(extra: Vec<(String, Value)>) -> crate::render::Rendered {
        let mut overrides = vec![
            ("Namespace".to_string(), json!("ns")),
            ("Monitor.Enabled".to_string(), json!(true)),
            ("AppProxy.Enabled".to_string(), json!(true)),
            ("AppProxy.Ingress.Host".to_string(), json!("ap.example.com")),
        ];
        overrides.extend(extra);
        let input = Input {
            overrides,
            ..Default::default()
        };
        let loaded = load(&input).expect("valid values");
        render(&loaded.values, &Identity::default(), &loaded.redacted_tree).expect("renders")
    }

    #[test]
    fn the_bundle_reaches_every_component_and_the_builds_dind() {
        let pem = crate::values::ca_bundle::tests::throwaway_ca_pem();
        let r = rendered(vec![("CaBundle".into(), json!(pem))]);
        let cm = r
            .manifests
            .iter()
            .find(|m| m.kind == "ConfigMap" && m.name == CONFIG_MAP)
            .expect("the ConfigMap");
        assert_eq!(cm.object["data"][FILE].as_str().unwrap().trim(), pem.trim());
        for (name, stack) in TRUSTING_DEPLOYMENTS {
            let d = r
                .manifests
                .iter()
                .find(|m| m.kind == "Deployment" && m.name == *name)
                .unwrap_or_else(|| panic!("Deployment {name}"));
            let pod = &d.object["spec"]["template"]["spec"];
            let c = &pod["containers"][0];
            assert!(
                pod["volumes"].as_array().unwrap().contains(&volume()),
                "{name}"
            );
            assert!(
                c["volumeMounts"]
                    .as_array()
                    .unwrap()
                    .contains(&volume_mount()),
                "{name}"
            );
            let extra = c["env"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["name"] == "NODE_EXTRA_CA_CERTS");
            assert_eq!(extra, *stack == Stack::Node, "{name}");
        }
        let dind = &r.runtime_environment["dockerDaemonScheduler"];
        assert_eq!(dind["volumeMounts"][VOLUME]["mountPath"], MOUNT_PATH);
        assert_eq!(dind["volumes"][VOLUME]["configMap"]["name"], CONFIG_MAP);
    }

    #[test]
    fn without_a_bundle_nothing_changes() {
        let r = rendered(Vec::new());
        assert!(!r.manifests.iter().any(|m| m.name == CONFIG_MAP));
        assert!(r.runtime_environment["dockerDaemonScheduler"]["volumes"]
            .get(VOLUME)
            .is_none());
    }
}
