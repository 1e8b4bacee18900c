//! The build path, tried the way a build starts: a claim from the dind
//! StorageClass, and a short-lived pod scheduled exactly as the dind pod
//! would be (node selector, tolerations, the engine's ServiceAccount, the
//! dind image through the configured registry) that mounts it. Each stage
//! is timed; a failure says where and why. The two objects carry
//! cf-runner's labels and a probe label, and are removed afterwards, also
//! when the probe fails or times out; a re-run removes leftovers first.

use std::time::{Duration, Instant};

use kube::api::{DeleteParams, ListParams, PostParams};
use kube::Client;
use serde::Serialize;
use serde_json::{json, Value};

use super::preflight::{dind_pod, explain_refusal, EVERY_BUILD};
use super::{api_for, request, KubeError};
use crate::render::{common_labels, Component};

/// The label that marks probe objects.
pub const PROBE_LABEL: &str = "cf-runner.codefresh.io/probe";
/// The name of the probe's claim and pod.
pub const PROBE_NAME: &str = "cf-runner-probe";

/// Where and how the dind pod runs, read from the runtime spec.
#[derive(Debug, Clone)]
pub struct ProbeSpec {
    pub namespace: String,
    pub storage_class: String,
    pub service_account: String,
    pub image: String,
    pub node_selector: Value,
    pub tolerations: Value,
    /// The build pods' environment (proxies among it).
    pub env: Value,
    /// The platform to reach from inside the cluster, if any.
    pub platform_url: Option<String>,
    /// A build's dind pod as the preflight dry-runs it (privileged, the
    /// dind image, its resources and placement), mounting only the claim.
    pub dind_pod: Value,
}

impl ProbeSpec {
    /// Reads the dind scheduling from a rendered runtime spec.
    pub fn from_runtime_spec(spec: &Value, namespace: &str) -> Option<ProbeSpec> {
        let dind = spec.get("dockerDaemonScheduler")?;
        let storage_class = find_key(dind.get("pvcs")?, "storageClassName")?;
        Some(ProbeSpec {
            namespace: namespace.to_string(),
            storage_class,
            service_account: dind
                .pointer("/cluster/serviceAccount")
                .and_then(Value::as_str)
                .unwrap_or("codefresh-engine")
                .to_string(),
            image: dind.get("dindImage")?.as_str()?.to_string(),
            node_selector: dind
                .pointer("/cluster/nodeSelector")
                .cloned()
                .unwrap_or(json!({})),
            tolerations: dind.get("tolerations").cloned().unwrap_or(json!([])),
            env: dind.get("envVars").cloned().unwrap_or(json!({})),
            platform_url: None,
            dind_pod: dind_pod(spec, PROBE_NAME, PROBE_NAME, false)?,
        })
    }
}

fn find_key(node: &Value, key: &str) -> Option<String> {
    match node {
        Value::Object(m) => m
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| m.values().find_map(|v| find_key(v, key))),
        Value::Array(a) => a.iter().find_map(|v| find_key(v, key)),
        _ => None,
    }
}

/// One stage of the probe.
#[derive(Debug, Clone, Serialize)]
pub struct Stage {
    pub name: &'static str,
    pub passed: bool,
    /// Time since the probe started, in milliseconds, when it passed or failed.
    pub after_ms: u128,
    pub detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

/// The stages, in the order a build meets them.
pub const STAGES: [&str; 4] = ["volume bound", "scheduled", "image pulled", "started"];
/// The stage that fails when admission refuses the claim or the pod.
pub const ADMITTED_STAGE: &str = "admitted";
/// The stage after them, when a platform URL is given.
pub const PLATFORM_STAGE: &str = "platform reached";

fn labels(namespace: &str) -> Value {
    let mut labels = common_labels(namespace, Component::Runtime);
    labels.insert(PROBE_LABEL.into(), "true".into());
    json!(labels)
}

/// Removes probe objects in the namespace (leftovers or this run's).
pub async fn clean_up(client: &Client, namespace: &str) -> Result<(), KubeError> {
    let lp = ListParams::default().labels(&format!("{PROBE_LABEL}=true"));
    let dp = DeleteParams {
        grace_period_seconds: Some(0),
        ..DeleteParams::default()
    };
    for (api_version, kind) in [
        ("batch/v1", "Job"),
        ("v1", "Pod"),
        ("v1", "PersistentVolumeClaim"),
    ] {
        let api = api_for(client, api_version, kind, Some(namespace));
        let dp = DeleteParams {
            propagation_policy: Some(kube::api::PropagationPolicy::Background),
            ..dp.clone()
        };
        let list = request("listing", kind, api.list(&lp)).await?;
        for item in list.items {
            let Some(name) = item.metadata.name else {
                continue;
            };
            match request(
                "deleting",
                &format!("{kind}/{name}"),
                api.delete(&name, &dp),
            )
            .await
            {
                Ok(_) => {}
                Err(e) if e.code() == Some(404) => {}
                Err(e) => return Err(e),
            }
        }
    }
    Ok(())
}

/// Runs the probe; `on_stage` sees each stage as it ends. Stops at the
/// first failure or at `timeout`, then cleans up.
pub async fn run(
    client: &Client,
    spec: &ProbeSpec,
    timeout: Duration,
    on_stage: &(dyn Fn(&Stage) + Sync),
) -> Result<Vec<Stage>, KubeError> {
    clean_up(client, &spec.namespace).await?;
    let result = stages(client, spec, timeout, on_stage).await;
    let cleaned = clean_up(client, &spec.namespace).await;
    let stages = result?;
    cleaned?;
    Ok(stages)
}

async fn stages(
    client: &Client,
    spec: &ProbeSpec,
    timeout: Duration,
    on_stage: &(dyn Fn(&Stage) + Sync),
) -> Result<Vec<Stage>, KubeError> {
    let mut progress = Progress {
        started: Instant::now(),
        on_stage,
        done: Vec::new(),
    };
    let pvcs = api_for(client, "v1", "PersistentVolumeClaim", Some(&spec.namespace));
    let pods = api_for(client, "v1", "Pod", Some(&spec.namespace));
    if !create_objects(&pvcs, &pods, spec, &mut progress).await? {
        return Ok(progress.done);
    }
    loop {
        let claim = request(
            "reading",
            "PersistentVolumeClaim/cf-runner-probe",
            pvcs.get(PROBE_NAME),
        )
        .await?;
        let claim = serde_json::to_value(&claim).unwrap_or(Value::Null);
        let pod = request("reading", "Pod/cf-runner-probe", pods.get(PROBE_NAME)).await?;
        let pod = serde_json::to_value(&pod).unwrap_or(Value::Null);

        progress.volume(spec, &claim);
        if progress.scheduling(&pod) || progress.container(spec, &pod) {
            return Ok(progress.done);
        }
        if progress.done.len() == STAGES.len() {
            if let Some(url) = &spec.platform_url {
                let started = progress.started;
                reach_platform(
                    client,
                    spec,
                    url,
                    started,
                    timeout,
                    &mut progress.done,
                    on_stage,
                )
                .await?;
            }
            return Ok(progress.done);
        }
        if progress.started.elapsed() >= timeout {
            progress.time_out(spec, timeout, &claim, &pod);
            return Ok(progress.done);
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// Creates the probe's claim, then its pod. `false` when admission refused
/// one of them: that is a failed stage (in `progress`), where a build
/// would stop too, not a broken command.
async fn create_objects(
    pvcs: &kube::Api<kube::api::DynamicObject>,
    pods: &kube::Api<kube::api::DynamicObject>,
    spec: &ProbeSpec,
    progress: &mut Progress<'_>,
) -> Result<bool, KubeError> {
    let claim: kube::api::DynamicObject = serde_json::from_value(json!({
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": PROBE_NAME, "labels": labels(&spec.namespace)},
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "storageClassName": spec.storage_class,
            "resources": {"requests": {"storage": "1Gi"}},
        },
    }))
    .expect("a claim");
    if let Err(e) = request(
        "creating",
        "PersistentVolumeClaim/cf-runner-probe",
        pvcs.create(&PostParams::default(), &claim),
    )
    .await
    {
        return match progress.refused(spec, "dind volume claim", &e, None) {
            true => Ok(false),
            false => Err(e),
        };
    }
    let mut pod = spec.dind_pod.clone();
    pod["metadata"]["labels"] = labels(&spec.namespace);
    pod["spec"]["restartPolicy"] = json!("Never");
    pod["spec"]["terminationGracePeriodSeconds"] = json!(0);
    pod["spec"]["containers"][0]["command"] = json!(["sh", "-c", "sleep 60"]);
    let sent = pod.clone();
    let pod: kube::api::DynamicObject = serde_json::from_value(pod).expect("a pod");
    if let Err(e) = request(
        "creating",
        "Pod/cf-runner-probe",
        pods.create(&PostParams::default(), &pod),
    )
    .await
    {
        return match progress.refused(spec, "dind-like pod", &e, Some(&sent)) {
            true => Ok(false),
            false => Err(e),
        };
    }
    Ok(true)
}

/// The stages ended so far, each shown as it ends.
struct Progress<'a> {
    started: Instant,
    on_stage: &'a (dyn Fn(&Stage) + Sync),
    done: Vec<Stage>,
}

impl Progress<'_> {
    fn end(&mut self, name: &'static str, passed: bool, detail: String, fix: Option<String>) {
        let stage = Stage {
            name,
            passed,
            after_ms: self.started.elapsed().as_millis(),
            detail,
            fix,
        };
        (self.on_stage)(&stage);
        self.done.push(stage);
    }

    /// A stage passed, unless it already had.
    fn pass(&mut self, name: &'static str, detail: String) {
        if self.done.iter().any(|s| s.name == name) {
            return;
        }
        self.end(name, true, detail, None);
    }

    fn fail(&mut self, name: &'static str, detail: String, fix: &str) {
        self.end(name, false, detail, Some(fix.to_string()));
    }

    /// Admission refusing the claim or the pod, with the preflight's fix;
    /// `false` when `err` is not admission's.
    fn refused(
        &mut self,
        spec: &ProbeSpec,
        what: &str,
        err: &KubeError,
        pod: Option<&Value>,
    ) -> bool {
        let Some(fix) = explain_refusal(err, EVERY_BUILD, &spec.namespace, pod) else {
            return false;
        };
        self.end(
            ADMITTED_STAGE,
            false,
            format!("admission refused the {what}: {err}"),
            Some(fix),
        );
        true
    }

    /// "volume bound", once the claim is.
    fn volume(&mut self, spec: &ProbeSpec, claim: &Value) {
        if claim.pointer("/status/phase").and_then(Value::as_str) == Some("Bound") {
            let volume = claim
                .pointer("/spec/volumeName")
                .and_then(Value::as_str)
                .unwrap_or("?");
            self.pass(
                "volume bound",
                format!(
                    "PersistentVolume {volume} from StorageClass {}",
                    spec.storage_class
                ),
            );
        }
    }

    /// "scheduled", once the pod has a node; `true` when the scheduler
    /// says it never will (and not only that it waits for the volume).
    fn scheduling(&mut self, pod: &Value) -> bool {
        if let Some(node) = pod.pointer("/spec/nodeName").and_then(Value::as_str) {
            self.pass("scheduled", format!("on node {node}"));
            return false;
        }
        let Some(cond) = condition(pod, "PodScheduled") else {
            return false;
        };
        let message = cond.get("message").and_then(Value::as_str).unwrap_or("");
        let waits_for_volume =
            message.contains("PersistentVolumeClaim") || message.contains("volume");
        if cond.get("reason").and_then(Value::as_str) == Some("Unschedulable") && !waits_for_volume
        {
            self.fail(
                "scheduled",
                format!("Unschedulable: {message}"),
                "check Runtime.NodeSelector, Runtime.tolerations and Arch against the nodes' labels and taints",
            );
            return true;
        }
        false
    }

    /// "image pulled" and "started", once the container runs; `true` when
    /// the image cannot be pulled.
    fn container(&mut self, spec: &ProbeSpec, pod: &Value) -> bool {
        let Some(status) = pod.pointer("/status/containerStatuses/0") else {
            return false;
        };
        if let Some(waiting) = status.pointer("/state/waiting") {
            let reason = waiting.get("reason").and_then(Value::as_str).unwrap_or("");
            if ["ErrImagePull", "ImagePullBackOff", "InvalidImageName"].contains(&reason) {
                let message = waiting.get("message").and_then(Value::as_str).unwrap_or("");
                self.fail(
                    "image pulled",
                    format!("{reason} for {}: {message}", spec.image),
                    "check that the registry holds the image (`cf-runner images --check`) and that the nodes may pull from it",
                );
                return true;
            }
        }
        if status.pointer("/state/running").is_some()
            || status.pointer("/state/terminated").is_some()
        {
            self.pass("image pulled", spec.image.clone());
            self.pass("started", "the container started".into());
        }
        false
    }

    /// The first stage not reached within `timeout` fails, saying what it
    /// waited for.
    fn time_out(&mut self, spec: &ProbeSpec, timeout: Duration, claim: &Value, pod: &Value) {
        let waiting = STAGES
            .iter()
            .find(|s| !self.done.iter().any(|d| d.name == **s))
            .copied()
            .unwrap_or("started");
        let (detail, fix) = match waiting {
            "volume bound" => (
                format!(
                    "the claim from StorageClass {} was not bound within {}s (phase {})",
                    spec.storage_class,
                    timeout.as_secs(),
                    claim.pointer("/status/phase").and_then(Value::as_str).unwrap_or("?")
                ),
                "check that the volume provisioner runs (`cf-runner info`) and its logs; for a StorageClass of your own, that its provisioner works",
            ),
            "scheduled" => (
                format!(
                    "not scheduled within {}s: {}",
                    timeout.as_secs(),
                    condition(pod, "PodScheduled")
                        .and_then(|c| c.get("message"))
                        .and_then(Value::as_str)
                        .unwrap_or("no message from the scheduler")
                ),
                "check the nodes' capacity, labels and taints",
            ),
            _ => (
                format!("the dind image was not running within {}s", timeout.as_secs()),
                "a large image on a slow link can take minutes: raise --probe-timeout, or mirror it closer",
            ),
        };
        self.fail(waiting, detail, fix);
    }
}

/// A Job with the dind image (its busybox `wget`) that asks the platform
/// URL, with the build pods' environment (so through their proxy).
async fn reach_platform(
    client: &Client,
    spec: &ProbeSpec,
    url: &str,
    started: Instant,
    timeout: Duration,
    done: &mut Vec<Stage>,
    on_stage: &(dyn Fn(&Stage) + Sync),
) -> Result<(), KubeError> {
    let jobs = api_for(client, "batch/v1", "Job", Some(&spec.namespace));
    let job: kube::api::DynamicObject =
        serde_json::from_value(platform_job(spec, url, timeout)).expect("a job");
    request(
        "creating",
        "Job/cf-runner-probe-platform",
        jobs.create(&PostParams::default(), &job),
    )
    .await?;
    let name = format!("{PROBE_NAME}-platform");
    loop {
        let live = request("reading", "Job/cf-runner-probe-platform", jobs.get(&name)).await?;
        let live = serde_json::to_value(&live).unwrap_or(Value::Null);
        let finished = |kind: &str| {
            live.pointer("/status/conditions")
                .and_then(Value::as_array)
                .and_then(|cs| {
                    cs.iter().find(|c| {
                        c.get("type").and_then(Value::as_str) == Some(kind)
                            && c.get("status").and_then(Value::as_str) == Some("True")
                    })
                })
                .cloned()
        };
        let stage = |passed: bool, detail: String, fix: Option<&str>| Stage {
            name: PLATFORM_STAGE,
            passed,
            after_ms: started.elapsed().as_millis(),
            detail,
            fix: fix.map(str::to_string),
        };
        let result = if finished("Complete").is_some() {
            Some(stage(
                true,
                format!("{url} answered from inside the cluster"),
                None,
            ))
        } else if let Some(c) = finished("Failed") {
            Some(stage(
                false,
                format!(
                    "{url} could not be reached from inside the cluster ({})",
                    c.get("message").and_then(Value::as_str).unwrap_or("the request failed")
                ),
                Some("check the proxy settings (--https-proxy, --no-proxy) and the cluster's egress to the platform"),
            ))
        } else if started.elapsed() >= timeout {
            Some(stage(
                false,
                format!("no answer from {url} within {}s", timeout.as_secs()),
                Some("check the proxy settings (--https-proxy, --no-proxy) and the cluster's egress to the platform"),
            ))
        } else {
            None
        };
        if let Some(stage) = result {
            on_stage(&stage);
            done.push(stage);
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// The Job that asks `url` from a build node, with the build environment.
fn platform_job(spec: &ProbeSpec, url: &str, timeout: Duration) -> Value {
    let env: Vec<Value> = spec
        .env
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| json!({"name": k, "value": v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string())}))
                .collect()
        })
        .unwrap_or_default();
    json!({
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": format!("{PROBE_NAME}-platform"), "labels": labels(&spec.namespace)},
        "spec": {
            "backoffLimit": 0,
            "activeDeadlineSeconds": timeout.as_secs().max(10),
            "template": {
                "metadata": {"labels": labels(&spec.namespace)},
                "spec": {
                    "serviceAccountName": spec.service_account,
                    "nodeSelector": spec.node_selector,
                    "tolerations": spec.tolerations,
                    "restartPolicy": "Never",
                    "containers": [{
                        "name": "reach",
                        "image": spec.image,
                        "command": ["wget", "-q", "-T", "15", "-O", "/dev/null", url],
                        "env": env,
                    }],
                },
            },
        },
    })
}

/// The condition of type `kind` of a pod (`PodScheduled`, `DisruptionTarget`).
pub fn condition<'a>(pod: &'a Value, kind: &str) -> Option<&'a Value> {
    pod.pointer("/status/conditions")?
        .as_array()?
        .iter()
        .find(|c| c.get("type").and_then(Value::as_str) == Some(kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_is_scheduled_from_the_runtime_spec() {
        let spec = json!({"dockerDaemonScheduler": {
            "dindImage": "quay.io/codefresh/dind:3@sha256:aa",
            "cluster": {"serviceAccount": "codefresh-engine", "nodeSelector": {"pool": "builds"}},
            "tolerations": [{"key": "builds", "operator": "Exists"}],
            "pvcs": {"dind": {"storageClassName": "dind-local", "volumeSize": "16Gi"}},
        }});
        let p = ProbeSpec::from_runtime_spec(&spec, "cf").unwrap();
        assert_eq!(p.storage_class, "dind-local");
        assert_eq!(p.node_selector, json!({"pool": "builds"}));
        assert_eq!(p.image, "quay.io/codefresh/dind:3@sha256:aa");
        // The chart's list form of pvcs works too.
        let list = json!({"dockerDaemonScheduler": {"dindImage": "x/y:1",
            "pvcs": [{"name": "dind", "storageClassName": "sc"}]}});
        assert_eq!(
            ProbeSpec::from_runtime_spec(&list, "cf")
                .unwrap()
                .storage_class,
            "sc"
        );
    }

    #[test]
    fn the_platform_is_asked_through_the_build_pods_proxy() {
        let spec = json!({"dockerDaemonScheduler": {
            "dindImage": "mirror.local/codefresh/dind:3@sha256:aa",
            "cluster": {"nodeSelector": {"pool": "builds"}},
            "envVars": {"HTTPS_PROXY": "http://proxy.corp:3128", "NO_PROXY": "10.0.0.0/8"},
            "pvcs": {"dind": {"storageClassName": "sc"}},
        }});
        let p = ProbeSpec::from_runtime_spec(&spec, "cf").unwrap();
        let job = platform_job(&p, "https://g.codefresh.io", Duration::from_secs(60));
        let pod = &job["spec"]["template"]["spec"];
        assert_eq!(
            pod["containers"][0]["image"],
            "mirror.local/codefresh/dind:3@sha256:aa"
        );
        assert_eq!(pod["nodeSelector"], json!({"pool": "builds"}));
        assert!(pod["containers"][0]["env"]
            .as_array()
            .unwrap()
            .contains(&json!({"name": "HTTPS_PROXY", "value": "http://proxy.corp:3128"})));
        let command = pod["containers"][0]["command"].as_array().unwrap();
        assert_eq!(command.last().unwrap(), "https://g.codefresh.io");
        assert_eq!(job["metadata"]["labels"][PROBE_LABEL], "true");
    }
}
