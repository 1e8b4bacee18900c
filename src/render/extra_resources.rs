//! `ExtraResources` as manifests: each object the values checked (see
//! `values::extra_resources`) gets cf-runner's labels under the component
//! `extra`, so the inventory finds it again: `upgrade` prunes it when it
//! leaves the values, `delete` removes it, `diff` shows it, all under the
//! ownership rules of cf-runner's own objects (removed only while it is as
//! cf-runner applied it).

use serde_json::{Map, Value};

use super::{common_labels, finish, Component, Manifest, RenderError};
use crate::values::Values;

/// Adds the user's objects to the manifests.
pub(super) fn apply(manifests: &mut Vec<Manifest>, values: &Values) -> Result<(), RenderError> {
    if values.extra_resources.is_empty() {
        return Ok(());
    }
    let labels = common_labels(&values.namespace, Component::Extra);
    for object in &values.extra_resources {
        manifests.push(finish(
            object.clone(),
            Component::Extra,
            &labels,
            "ExtraResources",
            values,
        )?);
    }
    Ok(())
}

/// The chart's `extraResources`: the same objects (the chart renders them
/// as given, in the release's namespace).
pub(super) fn into_helm(root: &mut Map<String, Value>, values: &Values) {
    if values.extra_resources.is_empty() {
        return;
    }
    let list = root
        .entry("extraResources")
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Some(items) = list.as_array_mut() {
        items.extend(values.extra_resources.iter().cloned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::{render, Identity};
    use crate::values::extra_resources::RESERVED_NAMES;
    use crate::values::{load, Input};
    use serde_json::json;

    fn rendered(overrides: Vec<(&str, Value)>) -> crate::render::Rendered {
        let input = Input {
            overrides: overrides
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            ..Default::default()
        };
        let loaded = load(&input).expect("valid values");
        render(&loaded.values, &Identity::default(), &loaded.redacted_tree).expect("renders")
    }

    #[test]
    fn an_extra_object_is_labelled_as_cf_runners_in_the_runners_namespace() {
        let r = rendered(vec![
            ("Namespace", json!("ns")),
            (
                "ExtraResources",
                json!([{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ci-settings"}, "data": {"k": "v"}}]),
            ),
        ]);
        let m = r
            .manifests
            .iter()
            .find(|m| m.name == "ci-settings")
            .expect("rendered");
        assert_eq!(m.component, Component::Extra);
        assert_eq!(m.namespace.as_deref(), Some("ns"));
        let labels = &m.object["metadata"]["labels"];
        assert_eq!(labels[crate::render::LABEL_MANAGED_BY], "cf-runner");
        assert_eq!(labels[crate::render::LABEL_COMPONENT], "extra");
    }

    /// The reserved names are every namespaced name cf-runner renders, so
    /// no extra object can take the place of one of cf-runner's.
    #[test]
    fn every_namespaced_object_cf_runner_renders_has_a_reserved_name() {
        let pem = crate::values::ca_bundle::tests::throwaway_ca_pem();
        let cloud = vec![
            ("Storage.Backend", json!("ebs")),
            ("Storage.AvailabilityZone", json!("us-east-1a")),
            ("Storage.AwsAccessKeyId", json!("AKIAAAAAAAAAAAAAAAAA")),
            (
                "Storage.AwsSecretAccessKey",
                json!("not-a-secret-key-at-all"),
            ),
        ];
        for storage in [vec![], cloud] {
            let mut values = vec![
                ("Namespace", json!("ns")),
                ("Monitor.Enabled", json!(true)),
                ("AppProxy.Enabled", json!(true)),
                ("AppProxy.Ingress.Host", json!("ap.example.com")),
                ("CaBundle", json!(pem)),
                ("Metrics.ServiceMonitors", json!(true)),
                ("Metrics.PodMonitors", json!(true)),
                ("EventExporter.Enabled", json!(true)),
                ("Runtime.Ballast.Dind.Enabled", json!(true)),
                ("Runtime.Ballast.Engine.Enabled", json!(true)),
                ("OpenShift", json!(true)),
                ("AppProxy.HttpRoute.ParentRefs", json!([{"name": "gw"}])),
                ("AppProxy.HttpRoute.Hostnames", json!(["ap.example.com"])),
            ];
            values.extend(storage);
            let r = rendered(values);
            for m in r.manifests.iter().filter(|m| m.namespace.is_some()) {
                assert!(
                    RESERVED_NAMES.contains(&m.name.as_str()),
                    "{} is not in values::extra_resources::RESERVED_NAMES",
                    m.display_name()
                );
            }
        }
    }
}
