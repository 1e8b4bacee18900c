//! How the engine's and dind's settings (`values::EngineTuning`) reach
//! the runtime spec and the chart's values: an image override as the
//! chart's `{registry, repository, tag, digest}` map, the version a build
//! reports (`tag@digest`, as the chart derives it), the engine's resources
//! over the chart's default, and the step images the chart reads from
//! `runtime.engine.runtimeImages`.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::images::{self, Pinned};
use crate::values::{ImageOverride, Resources, Values};

use crate::values::engine_tuning::{
    ENGINE_DEFAULT_LIMITS as ENGINE_LIMITS, ENGINE_DEFAULT_REQUESTS as ENGINE_REQUESTS,
};

/// The chart reads `GC_BUILDER_IMAGE` of its legacy `runtimeImages` form
/// under this misspelt name (chart 10.5.2, runtime-env-spec-tmpl.yaml), so
/// the Helm values give both spellings.
const CHART_GC_BUILDER_SPELLING: &str = "GC_BUILER_IMAGE";

/// A reference split as the chart's image map holds it.
struct Parts {
    registry: String,
    repository: String,
    tag: String,
    digest: String,
}

fn parts(reference: &str) -> Parts {
    let (name, digest) = reference.split_once('@').unwrap_or((reference, ""));
    let (path, tag) = match name.rsplit_once(':') {
        Some((path, tag)) if !tag.contains('/') => (path, tag),
        _ => (name, ""),
    };
    let (registry, repository) = match path.split_once('/') {
        Some((first, rest))
            if first.contains('.') || first.contains(':') || first == "localhost" =>
        {
            (first, rest)
        }
        _ => ("", path),
    };
    Parts {
        registry: registry.into(),
        repository: repository.into(),
        tag: tag.into(),
        digest: digest.into(),
    }
}

/// The image a build pod runs: the override or the pinned one, under the
/// mirror as the rest of the render does it.
pub(super) fn image(values: &Values, pinned: Pinned, over: Option<&ImageOverride>) -> String {
    images::reference(pinned, over, values.docker_registry.as_deref())
}

/// `tag@digest` (or the tag alone) of the image a build pod runs: what the
/// chart puts in `CF_SERVICE_VERSION` and the telemetry attributes.
pub(super) fn version(pinned: Pinned, over: Option<&ImageOverride>) -> String {
    match over {
        None => format!("{}@{}", pinned.tag, pinned.digest),
        Some(ImageOverride(reference)) => {
            let p = parts(reference);
            if p.digest.is_empty() {
                p.tag
            } else {
                format!("{}@{}", p.tag, p.digest)
            }
        }
    }
}

/// The chart's image map for an override, every field given: Helm merges
/// maps, so a field left out would keep the chart's pinned value (its
/// digest above all). `None` keeps the chart's image.
pub(super) fn chart_image(over: Option<&ImageOverride>) -> Option<Value> {
    let p = parts(&over?.0);
    Some(json!({
        "registry": p.registry,
        "repository": p.repository,
        "tag": p.tag,
        "digest": p.digest,
    }))
}

/// The engine's resources: the chart's default with the user's limits and
/// requests laid over them, as Helm's merge of the two maps gives.
pub(super) fn engine_resources(user: &Resources) -> Value {
    let layer = |defaults: [(&str, &str); 2], user: &BTreeMap<String, String>| {
        let mut out: BTreeMap<String, String> = defaults
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        out.extend(user.clone());
        out
    };
    json!({
        "requests": layer(ENGINE_REQUESTS, &user.requests),
        "limits": layer(ENGINE_LIMITS, &user.limits),
    })
}

/// The engine's resources when the values give none.
pub(crate) fn default_engine_resources() -> Value {
    engine_resources(&Resources::default())
}

/// `runtime.engine.runtimeImages` of the chart: each overridden step
/// image as the full reference the runtime spec carries (the chart's
/// legacy form, which it passes on as written).
pub(super) fn chart_runtime_images(values: &Values) -> Map<String, Value> {
    let mut out = Map::new();
    for (name, pinned) in images::STEP_IMAGES {
        let Some(over) = values.engine_tuning.runtime_images.get(*name) else {
            continue;
        };
        let reference = image(values, *pinned, Some(over));
        if *name == "GC_BUILDER_IMAGE" {
            out.insert(CHART_GC_BUILDER_SPELLING.into(), json!(reference));
        }
        out.insert(name.to_string(), json!(reference));
    }
    out
}

/// The chart puts the engine's and dind's images under
/// `global.imageRegistry` whatever registry they name, where cf-runner
/// keeps a registry the override names: said in the file's header.
pub(super) fn mirror_note(values: &Values) -> Option<String> {
    let mirror = values.docker_registry.as_deref()?;
    let tuned = &values.engine_tuning;
    let named: Vec<String> = [
        ("Runtime.Engine.Image", &tuned.engine_image),
        ("Runtime.Dind.Image", &tuned.dind_image),
    ]
    .iter()
    .filter_map(|(key, over)| {
        let p = parts(&over.as_ref()?.0);
        (!p.registry.is_empty()).then(|| format!("{key} ({})", p.registry))
    })
    .collect();
    (!named.is_empty()).then(|| {
        format!(
            "The chart pulls {} from {mirror} (global.imageRegistry), not from the registry named; \
             cf-runner pulls from the one named.",
            named.join(" and ")
        )
    })
}

/// Sets `value` at `path` of the chart's values, making the maps between.
fn set(root: &mut Map<String, Value>, path: &[&str], value: Value) {
    let (last, between) = path.split_last().expect("a path");
    let mut map = root;
    for step in between {
        let entry = map
            .entry(step.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
        map = entry.as_object_mut().expect("the chart's values nest maps");
    }
    map.insert(last.to_string(), value);
}

/// The engine's, dind's and the components' settings of this module, into
/// the chart's values (`root`); an unset one is left to the chart.
pub(super) fn chart_values_into(values: &Values, root: &mut Map<String, Value>) {
    let tuned = &values.engine_tuning;
    if let Some(image) = chart_image(tuned.engine_image.as_ref()) {
        set(root, &["runtime", "engine", "image"], image);
    }
    if let Some(image) = chart_image(tuned.dind_image.as_ref()) {
        set(root, &["runtime", "dind", "image"], image);
    }
    if !tuned.engine_resources.is_empty() {
        // Helm merges maps: the user's fields over the chart's default.
        let resources = serde_json::to_value(&tuned.engine_resources).expect("serializable");
        set(root, &["runtime", "engine", "resources"], resources);
    }
    if let Some(seconds) = tuned.engine_grace_seconds {
        set(
            root,
            &["runtime", "engine", "terminationGracePeriodSeconds"],
            json!(seconds),
        );
    }
    if let Some(seconds) = tuned.dind_grace_seconds {
        set(
            root,
            &["runtime", "dind", "terminationGracePeriodSeconds"],
            json!(seconds),
        );
    }
    let step_images = chart_runtime_images(values);
    if !step_images.is_empty() {
        set(
            root,
            &["runtime", "engine", "runtimeImages"],
            Value::Object(step_images),
        );
    }
    if !tuned.user_env_vars.is_empty() {
        set(
            root,
            &["runtime", "engine", "userEnvVars"],
            json!(tuned.user_env_vars),
        );
    }
    if let Some(order) = &tuned.reuse_volume_sort_order {
        let path = ["runtime", "dind", "pvcs", "dind", "reuseVolumeSortOrder"];
        set(root, &path, json!(order));
    }
    components_into(values, root);
}

fn components_into(values: &Values, root: &mut Map<String, Value>) {
    let tuned = &values.component_tuning;
    if !tuned.runner_sa_annotations.is_empty() {
        let path = ["runner", "serviceAccount", "annotations"];
        set(root, &path, json!(tuned.runner_sa_annotations));
    }
    if values.storage.provisioned {
        if let Some(n) = tuned.provisioner_replicas {
            set(root, &["volumeProvisioner", "replicasCount"], json!(n));
        }
        if !tuned.lv_monitor_pod_annotations.is_empty() {
            let path = ["volumeProvisioner", "dind-lv-monitor", "podAnnotations"];
            set(root, &path, json!(tuned.lv_monitor_pod_annotations));
        }
        let cleanup = ["volumeProvisioner", "dind-volume-cleanup"];
        if let Some(schedule) = &tuned.cleaner_schedule {
            set(root, &[cleanup[0], cleanup[1], "schedule"], json!(schedule));
        }
        if tuned.cleaner_suspend {
            set(root, &[cleanup[0], cleanup[1], "suspend"], json!(true));
        }
    }
    if let (true, Some(n)) = (values.app_proxy.enabled, tuned.app_proxy_replicas) {
        set(root, &["appProxy", "replicasCount"], json!(n));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::engine_tuning::{ENGINE_ENV_NAMES, RUNTIME_IMAGE_NAMES};

    #[test]
    fn a_reference_splits_as_the_chart_holds_it() {
        let p = parts("mirror.example.com:5000/codefresh/engine:3.3.14@sha256:ab");
        assert_eq!(
            (&*p.registry, &*p.repository, &*p.tag, &*p.digest),
            (
                "mirror.example.com:5000",
                "codefresh/engine",
                "3.3.14",
                "sha256:ab"
            )
        );
        let p = parts("codefresh/engine:3.3.14");
        assert_eq!(
            (&*p.registry, &*p.repository, &*p.tag),
            ("", "codefresh/engine", "3.3.14")
        );
    }

    #[test]
    fn an_image_from_another_registry_than_the_mirror_is_noted() {
        let load = |text: &str| {
            crate::values::load(&crate::values::Input {
                files: vec![crate::values::ValuesFile {
                    origin: "t.yaml".into(),
                    text: text.into(),
                }],
                ..Default::default()
            })
            .expect("valid")
            .values
        };
        let v = load("DockerRegistry: mirror.local\nRuntime:\n  Engine:\n    Image: ghcr.io/acme/engine:3.3.14\n");
        let note = mirror_note(&v).expect("a note");
        assert!(note.contains("Runtime.Engine.Image (ghcr.io)"), "{note}");
        let v = load(
            "DockerRegistry: mirror.local\nRuntime:\n  Engine:\n    Image: acme/engine:3.3.14\n",
        );
        assert_eq!(mirror_note(&v), None);
    }

    /// The values' list of step images is the render's, name for name.
    #[test]
    fn the_step_image_names_are_the_renders() {
        let render: Vec<&str> = images::STEP_IMAGES.iter().map(|(n, _)| *n).collect();
        assert_eq!(render, RUNTIME_IMAGE_NAMES);
    }

    /// Every variable the engine's spec sets by default is one a user's
    /// `UserEnvVars` entry may not repeat.
    #[test]
    fn every_engine_variable_is_reserved() {
        let values = crate::values::load(&crate::values::Input {
            files: vec![crate::values::ValuesFile {
                origin: "t.yaml".into(),
                text: "Namespace: ns\nInsecure: true\n".into(),
            }],
            ..Default::default()
        })
        .expect("valid")
        .values;
        let spec = super::super::runtime_spec::runtime_environment_spec(
            &values,
            &super::super::Identity::default(),
        );
        for name in spec["runtimeScheduler"]["envVars"]
            .as_object()
            .unwrap()
            .keys()
        {
            assert!(
                ENGINE_ENV_NAMES.contains(&name.as_str())
                    || RUNTIME_IMAGE_NAMES.contains(&name.as_str()),
                "{name} is set on the engine but a UserEnvVars entry may repeat it"
            );
        }
    }
}
