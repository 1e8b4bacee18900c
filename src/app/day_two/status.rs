//! What is installed and whether it is healthy, as `info` shows it (and
//! `adopt` at its end): the view model of an installation, read from the
//! cluster (labels and the record Secret, through `cluster::inventory`) and,
//! when a token is at hand, the platform.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::app::identity::register;
use crate::app::installation::{identity, read_installation, record, Installation};
use crate::app::session::options::PlatformOptions;
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster::inventory::{self, LiveObject};
use crate::cluster::{wait, Cluster, KubeError};
use crate::output::info::{
    ComponentInfo, InstallationInfo, ObjectInfo, Report, StorageInfo, VolumeInfo,
};
use crate::render::{self, RECORD_SECRET};
use crate::values;

const PLATFORM_NO_TOKEN: &str =
    "not shown: no Codefresh API token (--token, CF_API_KEY or the current context of ~/.cfconfig)";

/// The agent's and runtime's state on the platform, when a token is at hand.
async fn platform_status(platform: &PlatformOptions, inst: &Installation, context: &str) -> String {
    let Some(record) = &inst.record else {
        return "no record of an agent or runtime environment".into();
    };
    if record.registered == Some(false) {
        return "not registered: an offline install (--agent-token only); the agent and runtime environment \
                names were never verified on the platform"
            .into();
    }
    let host = inst.values.as_ref().map(|v| v.codefresh_host.clone());
    let auth = match register::resolve(
        platform,
        host.as_deref().map(|url| crate::platform::auth::NamedUrl {
            url,
            origin: register::RECORDED_HOST,
        }),
    ) {
        Ok(Some(a)) => a,
        Ok(None) => return PLATFORM_NO_TOKEN.into(),
        Err(e) => return format!("not shown: {e}"),
    };
    match crate::app::identity::register::platform_for(&auth, register::transport(platform)) {
        Ok(p) => {
            // What cf-runner would send now, to compare with the platform's spec.
            let expected = |account_id: Option<String>| {
                let values = inst.values.as_ref()?;
                let mut identity = identity::recorded(record, Some(values), context);
                identity.account_id = account_id;
                crate::render::render(values, &identity, &Value::Object(Map::new()))
                    .ok()
                    .map(|r| r.runtime_environment)
            };
            register::status(
                &p,
                record.agent_name.as_deref(),
                record.runtime_name.as_deref(),
                Some(&expected),
            )
            .await
        }
        Err(e) => format!("not shown: {e}"),
    }
}

/// Readiness of a workload, in words; `None` for objects that have none.
/// Ready means what `init` and `upgrade` wait for ([`wait::rollout`]).
fn readiness(o: &LiveObject) -> Option<(bool, String)> {
    if o.is_deleting() {
        return Some((false, "being deleted".into()));
    }
    let r = wait::rollout(&o.kind, &o.object)?;
    Some((r.ready, format!("{}/{} ready", r.ready_pods, r.want)))
}

/// A short status for objects that are not workloads.
fn status_of(o: &LiveObject) -> Option<String> {
    if o.is_deleting() {
        return Some("being deleted".into());
    }
    match o.kind.as_str() {
        "CronJob" => {
            let schedule = o.text("/spec/schedule").unwrap_or("?");
            let last = o.text("/status/lastScheduleTime").unwrap_or("never");
            let suspended = o
                .object
                .pointer("/spec/suspend")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            Some(format!(
                "schedule {schedule:?}, last run {last}{}",
                if suspended { ", suspended" } else { "" }
            ))
        }
        "Ingress" => {
            let hosts: Vec<&str> = o
                .object
                .pointer("/spec/rules")
                .and_then(Value::as_array)
                .map(|rules| rules.iter().filter_map(|r| r["host"].as_str()).collect())
                .unwrap_or_default();
            Some(format!("hosts: {}", hosts.join(", ")))
        }
        // Whether the Gateway took the route is what a user asks first.
        "HTTPRoute" => {
            let hosts = o
                .object
                .pointer("/spec/hostnames")
                .and_then(Value::as_array)
                .map(|h| {
                    h.iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default();
            let accepted = o
                .object
                .pointer("/status/parents/0/conditions")
                .and_then(Value::as_array)
                .and_then(|c| c.iter().find(|c| c["type"] == "Accepted"))
                .map_or("not yet answered by a Gateway", |c| {
                    if c["status"] == "True" {
                        "accepted by its Gateway"
                    } else {
                        "refused by its Gateway"
                    }
                });
            Some(format!("hosts: {hosts}; {accepted}"))
        }
        _ => None,
    }
}

/// The images of a workload's containers (init containers too).
fn images(o: &LiveObject) -> Vec<String> {
    let pod = match o.kind.as_str() {
        "Deployment" | "DaemonSet" => o.object.pointer("/spec/template/spec"),
        "CronJob" => o.object.pointer("/spec/jobTemplate/spec/template/spec"),
        _ => None,
    };
    let Some(pod) = pod else { return Vec::new() };
    let mut out: Vec<String> = ["initContainers", "containers"]
        .iter()
        .filter_map(|k| pod.get(*k).and_then(Value::as_array))
        .flatten()
        .filter_map(|c| c["image"].as_str().map(str::to_string))
        .collect();
    out.dedup();
    out
}

/// A proxy URL without the credentials it may carry.
fn without_password(url: &str) -> String {
    crate::text::masked_value(url)
}

fn selector_text(selector: &BTreeMap<String, String>) -> String {
    selector
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The values a reader wants first, in words.
fn summary(values: &values::Values) -> Map<String, Value> {
    let mut out = Map::new();
    let mut put = |k: &str, v: String| {
        out.insert(k.to_string(), Value::String(v));
    };
    let storage = &values.storage;
    if values.agent_only {
        put(
            "agent",
            "alone (AgentOnly): no runtime in its namespace; it serves the runtimes attached to it"
                .into(),
        );
    } else {
        put(
            "storage",
            if storage.provisioned {
                format!(
                    "{} volumes through StorageClass {}",
                    storage.backend.name(),
                    storage.class_name
                )
            } else {
                format!("the existing StorageClass {}", storage.class_name)
            },
        );
        put("volume size", values.runtime.volume_size.clone());
    }
    put(
        "monitor",
        if values.monitor.enabled {
            "installed"
        } else {
            "not installed"
        }
        .into(),
    );
    put(
        "app-proxy",
        match (&values.app_proxy.enabled, &values.app_proxy.host) {
            (true, Some(host)) => format!("installed, host {host}"),
            (true, None) => "installed".into(),
            (false, _) => "not installed".into(),
        },
    );
    put("codefresh host", values.codefresh_host.clone());
    if let Some(r) = &values.docker_registry {
        put("docker registry", r.clone());
    }
    if !values.runner.scheduling.node_selector.is_empty() {
        put(
            "node selector",
            selector_text(&values.runner.scheduling.node_selector),
        );
    }
    if !values.runtime.scheduling.node_selector.is_empty() {
        put(
            "build node selector",
            selector_text(&values.runtime.scheduling.node_selector),
        );
    }
    if values.aws_pod_identity {
        let sa = values::pod_identity::SERVICE_ACCOUNT;
        let command = values::pod_identity::association_command(&values.namespace, sa);
        put(
            "provisioner credentials",
            format!("EKS Pod Identity of ServiceAccount {sa}: {command}"),
        );
    }
    if let Some(bundle) = &values.ca_bundle {
        let map = crate::render::ca_bundle::CONFIG_MAP;
        put(
            "ca bundle",
            format!("{} certificate(s) in ConfigMap {map}", bundle.certificates),
        );
    }
    for key in ["HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY"] {
        if let Some(v) = values.env_vars.get(key) {
            put(
                &key.to_ascii_lowercase().replace('_', " "),
                without_password(v),
            );
        }
    }
    out
}

fn storage_info(
    inst: &Installation,
    class: Option<&LiveObject>,
    ours: bool,
    name: String,
) -> StorageInfo {
    let parameters: BTreeMap<String, String> = class
        .and_then(|c| c.object.get("parameters"))
        .and_then(Value::as_object)
        .map(|p| {
            p.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default();
    let backend = parameters.get("volumeBackend").cloned().or_else(|| {
        inst.values
            .as_ref()
            .filter(|v| v.storage.provisioned)
            .map(|v| v.storage.backend.name().to_string())
    });
    StorageInfo {
        class_name: name,
        installed_by_cf_runner: ours,
        exists: class.is_some(),
        provisioner: class
            .and_then(|c| c.text("/provisioner"))
            .map(str::to_string),
        backend,
        parameters,
    }
}

/// The installed objects grouped by component, in the order an install
/// makes them, and whether every one that has a readiness is ready.
fn components(inst: &Installation) -> (Vec<ComponentInfo>, bool) {
    let mut by_component: BTreeMap<String, Vec<ObjectInfo>> = BTreeMap::new();
    let mut healthy = true;
    for o in &inst.objects {
        let ready = readiness(o);
        if let Some((false, _)) = ready {
            healthy = false;
        }
        by_component
            .entry(o.component().unwrap_or("(unlabelled)").to_string())
            .or_default()
            .push(ObjectInfo {
                kind: o.kind.clone(),
                name: o.name.clone(),
                namespace: o.namespace.clone(),
                ready: ready.as_ref().map(|(r, _)| *r),
                status: ready.map(|(_, s)| s).or_else(|| status_of(o)),
                images: images(o),
            });
    }
    let order = [
        render::Component::Namespace,
        render::Component::Runner,
        render::Component::Runtime,
        render::Component::VolumeProvisioner,
        render::Component::Monitor,
        render::Component::AppProxy,
        render::Component::Metrics,
        render::Component::EventExporter,
        render::Component::ClusterIntegration,
        render::Component::Record,
        render::Component::Extra,
    ];
    let rank = |name: &str| {
        order
            .iter()
            .position(|c| c.as_str() == name)
            .unwrap_or(order.len())
    };
    let mut components: Vec<ComponentInfo> = by_component
        .into_iter()
        .map(|(name, objects)| ComponentInfo { name, objects })
        .collect();
    components.sort_by_key(|c| rank(&c.name));
    (components, healthy)
}

async fn describe(cluster: &Cluster, inst: &Installation) -> Result<InstallationInfo, KubeError> {
    let mut notes = Vec::new();
    let record = inst.record.clone().unwrap_or_default();
    if inst.record.is_none()
        && crate::app::installation::attached::is_attached_runtime(&inst.objects)
    {
        notes.push(
            "a runtime attached to an agent in another namespace (ServiceAccount cf-runner-agent here is that \
             agent's access), not an installation of its own; `cf-runner info --kube-namespace <the agent's \
             namespace>` shows it with the agent, and `cf-runner runtime delete` removes it"
                .into(),
        );
    } else if inst.record.is_none() {
        notes.push(format!(
            "no installation record (Secret {RECORD_SECRET}): an init or a delete stopped half-way; \
             re-run it to finish"
        ));
    } else if inst.values.is_none() {
        notes.push(
            "the recorded values do not validate with this version of cf-runner; `upgrade` will say why"
                .into(),
        );
    }
    let recorded = record::shown_values(&record);

    let (components, healthy) = components(inst);

    let own_class = inst.objects.iter().find(|o| o.kind == "StorageClass");
    let storage = match (own_class, &inst.values) {
        // An agent installed alone has no dind volumes of its own.
        (None, Some(v)) if v.agent_only => None,
        (Some(class), _) => Some(storage_info(inst, Some(class), true, class.name.clone())),
        (None, Some(v)) => {
            let name = v.storage.class_name.clone();
            let live = inventory::get(
                &cluster.client,
                "storage.k8s.io/v1",
                "StorageClass",
                None,
                &name,
            )
            .await?;
            if v.storage.provisioned && live.is_none() {
                notes.push(format!(
                    "the StorageClass {name} that cf-runner installs is missing"
                ));
            }
            Some(storage_info(inst, live.as_ref(), false, name))
        }
        (None, None) => None,
    };
    let volumes = inst
        .volumes
        .iter()
        .map(|v| VolumeInfo {
            kind: v.kind.clone(),
            name: v.name.clone(),
            namespace: v.namespace.clone(),
            status: v.text("/status/phase").map(str::to_string),
            capacity: v
                .text("/spec/capacity/storage")
                .or_else(|| v.text("/status/capacity/storage"))
                .or_else(|| v.text("/spec/resources/requests/storage"))
                .map(str::to_string),
            storage_class: v.text("/spec/storageClassName").map(str::to_string),
        })
        .collect();
    Ok(InstallationInfo {
        namespace: inst.namespace.clone(),
        installed_by: record.cf_runner_version,
        record_format: record.record_format,
        agent_name: record.agent_name,
        runtime_name: record.runtime_name,
        registered: record.registered,
        healthy,
        summary: inst.values.as_ref().map(summary).unwrap_or_default(),
        values: recorded,
        components,
        storage,
        volumes,
        runtimes: Vec::new(),
        platform: PLATFORM_NO_TOKEN.into(),
        notes,
    })
}

/// What `info` shows of the installations in `namespaces` (those holding
/// nothing are left out), with their state on the platform when a token is
/// at hand. Names a run that holds an install's lock on the way.
pub(crate) async fn report(
    cluster: &Cluster,
    namespaces: &[String],
    platform: &PlatformOptions,
) -> Result<Report, Outcome> {
    let mut installations = Vec::new();
    let deploy_step = crate::cluster::preflight::server_deploy_step_note(&cluster.client).await;
    for ns in namespaces {
        crate::app::session::lock::note_holder(cluster, ns).await;
        let reading = format!("reading the installation in namespace {ns} failed");
        let inst = read_installation(cluster, ns).await.doing(&reading)?;
        if inst.is_empty() {
            continue;
        }
        let mut info = describe(cluster, &inst).await.doing(&reading)?;
        info.platform = platform_status(platform, &inst, &cluster.context).await;
        info.runtimes =
            crate::app::runtimes::view::view(cluster, &inst, platform, &mut info.notes).await;
        crate::app::identity::certificate::annotate(cluster, &mut info).await;
        crate::app::identity::agent_token::pending::annotate(cluster, &mut info).await;
        info.notes.extend(crate::app::installation::skew::notes(
            info.installed_by.as_deref(),
            &inst.objects,
        ));
        info.notes.extend(deploy_step.clone());
        installations.push(info);
    }
    Ok(Report {
        context: cluster.context.clone(),
        server: cluster.server.clone(),
        installations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn live(kind: &str, object: Value) -> LiveObject {
        LiveObject {
            api_version: "apps/v1".into(),
            kind: kind.into(),
            name: "x".into(),
            namespace: Some("ci".into()),
            object,
        }
    }

    #[test]
    fn a_deployment_is_ready_when_every_replica_is_available_and_updated() {
        let d = live(
            "Deployment",
            json!({"spec": {"replicas": 1}, "status": {"readyReplicas": 1, "availableReplicas": 1, "updatedReplicas": 1,
                "conditions": [{"type": "Available", "status": "True"}]}}),
        );
        assert_eq!(readiness(&d), Some((true, "1/1 ready".into())));
        let d = live("Deployment", json!({"spec": {"replicas": 1}, "status": {}}));
        assert_eq!(readiness(&d), Some((false, "0/1 ready".into())));
    }

    #[test]
    fn a_daemonset_is_ready_when_rolled_out_on_every_node() {
        let d = live(
            "DaemonSet",
            json!({"status": {"desiredNumberScheduled": 2, "numberReady": 1, "updatedNumberScheduled": 2}}),
        );
        assert_eq!(readiness(&d), Some((false, "1/2 ready".into())));
    }

    /// `info` once called a rollout healthy that `init` still waited on: it
    /// ignored the observed generation and the Available condition.
    #[test]
    fn info_and_wait_agree_on_readiness() {
        let done = json!({"metadata": {"generation": 2}, "spec": {"replicas": 1},
            "status": {"observedGeneration": 2, "readyReplicas": 1, "availableReplicas": 1, "updatedReplicas": 1,
                "conditions": [{"type": "Available", "status": "True"}]}});
        let mut stale = done.clone();
        stale["status"]["observedGeneration"] = json!(1);
        let mut unavailable = done.clone();
        unavailable["status"]["conditions"] = json!([{"type": "Available", "status": "False"}]);
        let ds_done = json!({"metadata": {"generation": 1}, "status": {"observedGeneration": 1,
            "desiredNumberScheduled": 2, "numberReady": 2, "numberAvailable": 2, "updatedNumberScheduled": 2}});
        let mut ds_unavailable = ds_done.clone();
        ds_unavailable["status"]["numberAvailable"] = json!(1);
        for (kind, object, ready) in [
            ("Deployment", &done, true),
            ("Deployment", &stale, false),
            ("Deployment", &unavailable, false),
            ("DaemonSet", &ds_done, true),
            ("DaemonSet", &ds_unavailable, false),
        ] {
            let info = readiness(&live(kind, object.clone())).map(|(r, _)| r);
            let waited = wait::rollout(kind, object).map(|r| r.ready);
            assert_eq!(info, Some(ready), "info on {kind} {object}");
            assert_eq!(waited, Some(ready), "wait on {kind} {object}");
        }
    }

    #[test]
    fn images_include_init_containers_and_cronjob_pods() {
        let c = live(
            "CronJob",
            json!({"spec": {"jobTemplate": {"spec": {"template": {"spec": {
                "initContainers": [{"image": "a:1"}], "containers": [{"image": "b:2"}]}}}}}}),
        );
        assert_eq!(images(&c), vec!["a:1", "b:2"]);
    }

    #[test]
    fn a_proxy_password_is_not_shown() {
        assert_eq!(
            without_password("http://user:s3cret@proxy:3128"),
            "http://user:<redacted>@proxy:3128"
        );
        assert_eq!(without_password("http://proxy:3128"), "http://proxy:3128");
    }
}
