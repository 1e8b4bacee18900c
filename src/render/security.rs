//! Security contexts, rootless dind and OpenShift in the three outputs:
//! the templates' context (pods cf-runner runs), the runtime spec (the
//! builds' dind pods, which the platform starts) and the chart's values.
//! The settings and their defaults are `values::security`'s; this module
//! only puts them where each output wants them, so the three cannot say
//! different things.

use serde_json::{json, Map, Value};

use super::images::{self, Pinned};
use crate::values::security::{Pods, VolumeOwner, ROOTLESS_DOCKER_DIR};
use crate::values::{Backend, Values};

/// The chart's names for what these pods' keys are under, and the ids its
/// own default pod context sets (which the Helm values must null out when
/// cf-runner's context has none of them).
const CHART_RUNNER_IDS: &[&str] = &["runAsUser", "runAsGroup", "fsGroup"];
const CHART_LV_MONITOR_IDS: &[&str] = &["runAsUser", "fsGroup"];

/// The name of the init container that hands a volume to its user.
const VOLUME_PERMISSIONS: &str = "volume-permissions";

fn openshift(values: &Values) -> bool {
    values.openshift.is_on()
}

/// The init container of the chart's `volumePermissions`: `chown`s
/// `path` (volume `volume`) to the pod's user before the pod starts.
fn permissions_container(values: &Values, owner: &VolumeOwner, path: &str, volume: &str) -> Value {
    json!({
        "name": VOLUME_PERMISSIONS,
        "image": images::reference(images::VOLUME_PERMISSIONS, None, values.docker_registry.as_deref()),
        "imagePullPolicy": "Always",
        "command": ["/bin/sh"],
        "args": ["-ec", format!("chown -R {} {path}\n", owner.owner)],
        "volumeMounts": [{"mountPath": path, "name": volume}],
        "securityContext": owner.security_context,
        "resources": {},
    })
}

/// The templates' `security`: each group's contexts, the lv-monitor's init
/// container and the provisioner's extra env.
pub(super) fn template_context(values: &Values) -> Value {
    let mut out = match values.security.rendered(openshift(values)) {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    let lv_init = match (
        &values.storage.backend,
        values
            .security
            .volume_owner(Pods::LvMonitor, openshift(values)),
    ) {
        (Backend::Local { volume_parent_dir }, Some(owner)) => {
            permissions_container(values, &owner, volume_parent_dir, "dind-volume-dir")
        }
        _ => Value::Null,
    };
    out.insert("lv_monitor_init".into(), lv_init);
    let mut env = Vec::new();
    if values.security.rootless {
        // The provisioner makes rootless volume folders for user 1000.
        env.push(json!({"name": "IS_ROOTLESS", "value": "true"}));
    }
    if openshift(values) {
        // The provisioner's helper pods run privileged, as the SCC allows.
        env.push(json!({"name": "PRIVILEGED_CONTAINER", "value": "true"}));
    }
    out.insert("provisioner_env".into(), json!(env));
    Value::Object(out)
}

/// The builds' dind image: the rootless build when asked for.
pub(super) fn dind_image(values: &Values) -> Pinned {
    if values.security.rootless {
        images::DIND_ROOTLESS
    } else {
        images::DIND
    }
}

/// The lv-monitor's image: the rootless build when dind is rootless.
pub(super) fn lv_monitor_image(values: &Values) -> Pinned {
    if values.security.rootless {
        images::LV_MONITOR_ROOTLESS
    } else {
        images::LV_MONITOR
    }
}

/// The runtime spec's dind part (`dockerDaemonScheduler`): the rootless
/// image and its docker folder, both security contexts and the
/// volume-permissions init container, where the chart's template puts them.
pub(super) fn dind_spec_into(dind: &mut Map<String, Value>, values: &Values) {
    if values.security.rootless {
        let mounts = dind.entry("userVolumeMounts").or_insert_with(|| json!({}));
        if let Some(mounts) = mounts.as_object_mut() {
            mounts.insert(
                "dind".into(),
                json!({"name": "dind", "mountPath": ROOTLESS_DOCKER_DIR}),
            );
        }
    }
    let contexts = values.security.contexts(Pods::Dind, openshift(values));
    if !contexts.pod.is_empty() {
        dind.insert("podSecurityContext".into(), Value::Object(contexts.pod));
    }
    if !contexts.container.is_empty() {
        dind.insert(
            "containerSecurityContext".into(),
            Value::Object(contexts.container),
        );
    }
    if let Some(owner) = values.security.volume_owner(Pods::Dind, openshift(values)) {
        dind.insert(
            "initContainers".into(),
            json!([permissions_container(
                values,
                &owner,
                ROOTLESS_DOCKER_DIR,
                "dind"
            )]),
        );
    }
}

/// A pod context as the chart's values take it: the chart's own ids that
/// cf-runner's context lacks are nulled (Helm then drops them), and where
/// the chart renders the context only when `enabled`, that says whether.
fn chart_pod_context(context: &Map<String, Value>, chart_ids: &[&str], gated: bool) -> Value {
    let mut out = context.clone();
    for id in chart_ids {
        out.entry(*id).or_insert(Value::Null);
    }
    if gated {
        out.insert("enabled".into(), json!(!context.is_empty()));
    }
    Value::Object(out)
}

/// Merges `patch` into `into`, maps key by key.
pub(super) fn merge(into: &mut Value, patch: Value) {
    match (into, patch) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                merge(a.entry(k).or_insert(Value::Null), v);
            }
        }
        (slot, v) => *slot = v,
    }
}

/// The chart's values for everything of this module that differs from the
/// chart's defaults.
pub(super) fn helm_patch(values: &Values) -> Value {
    let os = openshift(values);
    let sec = &values.security;
    let mut patch = json!({});
    let gated_pods = [
        (Pods::Runner, "/runner", CHART_RUNNER_IDS),
        (Pods::Provisioner, "/volumeProvisioner", CHART_RUNNER_IDS),
        (
            Pods::Provisioner,
            "/volumeProvisioner/dind-volume-cleanup",
            CHART_RUNNER_IDS,
        ),
        (
            Pods::LvMonitor,
            "/volumeProvisioner/dind-lv-monitor",
            CHART_LV_MONITOR_IDS,
        ),
    ];
    for (pods, at, ids) in gated_pods {
        if sec.changed(pods, os).0 {
            let pod = chart_pod_context(&sec.contexts(pods, os).pod, ids, true);
            merge(&mut patch, nest(at, json!({"podSecurityContext": pod})));
        }
    }
    for (pods, at) in [(Pods::Monitor, "/monitor"), (Pods::AppProxy, "/appProxy")] {
        if sec.changed(pods, os).0 {
            let pod = chart_pod_context(&sec.contexts(pods, os).pod, &[], false);
            merge(&mut patch, nest(at, json!({"podSecurityContext": pod})));
        }
    }
    let lv = "/volumeProvisioner/dind-lv-monitor";
    if sec.changed(Pods::LvMonitor, os).1 {
        let mut container = sec.contexts(Pods::LvMonitor, os).container;
        let on = !container.is_empty();
        container.insert("enabled".into(), json!(on));
        merge(
            &mut patch,
            nest(lv, json!({"containerSecurityContext": container})),
        );
    }
    // The chart's defaults are empty: only a context that says something.
    let dind = sec.contexts(Pods::Dind, os);
    for (key, context) in [
        ("podSecurityContext", dind.pod),
        ("containerSecurityContext", dind.container),
    ] {
        if !context.is_empty() {
            merge(&mut patch, nest("/runtime/dind", json!({ key: context })));
        }
    }
    rootless_patch(values, &mut patch);
    patch
}

/// `values-rootless.yaml`'s images, folder, provisioner env and
/// volume-permissions init containers; OpenShift's provisioner env.
fn rootless_patch(values: &Values, patch: &mut Value) {
    let os = openshift(values);
    let sec = &values.security;
    if os {
        merge(
            patch,
            json!({"volumeProvisioner": {"env": {"PRIVILEGED_CONTAINER": "true"}}}),
        );
    }
    if !sec.rootless {
        return;
    }
    let image = |p: Pinned| json!({"tag": p.tag, "digest": p.digest});
    merge(
        patch,
        json!({
            "volumeProvisioner": {
                "env": {"IS_ROOTLESS": "true"},
                "dind-lv-monitor": {"image": image(images::LV_MONITOR_ROOTLESS)},
            },
            "runtime": {"dind": {
                "image": image(images::DIND_ROOTLESS),
                "userVolumeMounts": {"dind": {"name": "dind", "mountPath": ROOTLESS_DOCKER_DIR}},
            }},
        }),
    );
    for (pods, at) in [
        (Pods::LvMonitor, "/volumeProvisioner/dind-lv-monitor"),
        (Pods::Dind, "/runtime/dind"),
    ] {
        let permissions = match sec.volume_owner(pods, os) {
            // The chart's "auto" leaves the user to the SCC.
            Some(_) if os => {
                json!({"enabled": true, "securityContext": {"privileged": true, "runAsUser": "auto"}})
            }
            Some(owner) => json!({"enabled": true, "securityContext": owner.security_context}),
            None => json!({"enabled": false}),
        };
        merge(patch, nest(at, json!({"volumePermissions": permissions})));
    }
}

/// `value` under the `/`-separated path `at`.
fn nest(at: &str, value: Value) -> Value {
    at.rsplit('/')
        .filter(|k| !k.is_empty())
        .fold(value, |inner, key| json!({ key: inner }))
}

/// What the chart has no key for: container contexts of its components.
pub(super) fn helm_notes(values: &Values) -> Vec<String> {
    let left_out: Vec<String> = [
        Pods::Runner,
        Pods::Provisioner,
        Pods::Monitor,
        Pods::AppProxy,
    ]
    .iter()
    .filter(|pods| values.security.given(**pods).container.is_some())
    .map(|pods| format!("{}.ContainerSecurityContext", pods.section()))
    .collect();
    if left_out.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "Left out, the chart {} has no key for it: {}.",
        images::CHART_VERSION,
        left_out.join(", ")
    )]
}

/// The images a mirror must hold, with rootless dind's in place of the
/// rootful ones, and the volume-permissions image.
pub(super) fn mirrored_images(values: &Values, list: &mut Vec<Pinned>) {
    if !values.security.rootless {
        return;
    }
    for pinned in list.iter_mut() {
        if pinned.repository == images::DIND.repository {
            *pinned = images::DIND_ROOTLESS;
        } else if pinned.repository == images::LV_MONITOR.repository {
            *pinned = images::LV_MONITOR_ROOTLESS;
        }
    }
    list.push(images::VOLUME_PERMISSIONS);
}
