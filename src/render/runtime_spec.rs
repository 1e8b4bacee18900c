//! The runtime-environment spec: what the Codefresh platform uses to start the
//! engine and dind pods of every build. `init` registers it, `upgrade` sends
//! it again, the dry-run writes it as `runtime-environment.txt`; all three
//! get it from [`runtime_environment_spec`], and nothing else builds one.
//!
//! The shape and the defaults follow the `cf-runtime` chart of
//! [`images::CHART_VERSION`] (its `<runtime>-runtime-config` ConfigMap), so a
//! build started by a cf-runner install runs exactly like one started by a
//! chart install. `docs/chart-parity.md` lists the few deliberate
//! differences; `tests/offline/chart_parity.rs` holds the two side by side.
//!
//! Built directly as JSON (no template): it is the largest document cf-runner
//! renders, and a typed builder keeps every value a value (no quoting rules).

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::{images, placeholder, selector_with_arch, tuning, Identity};
use crate::values::{Placement, Resources, Values};

/// The parent runtime every runner inherits from (controlled by Codefresh).
pub const RUNTIME_EXTENDS: &str = "system/default/hybrid/k8s_low_limits";
/// The engine's start command, which the engine image of the chart expects.
pub const ENGINE_COMMAND: [&str; 2] = ["node", "dist/server/index.js"];
/// Grace period of engine pods, in seconds.
pub const ENGINE_GRACE_PERIOD_SECONDS: i64 = 180;
/// Grace period of dind pods, in seconds.
pub const DIND_GRACE_PERIOD_SECONDS: i64 = 30;

/// The engine's default env: telemetry off the wire (OTLP to localhost only),
/// and the engine's operation settings, as the chart sets them.
const ENGINE_ENV: &[(&str, &str)] = &[
    ("CF_TELEMETRY_LOGS_LEVEL", "debug"),
    ("CF_TELEMETRY_OTEL_ENABLE", "true"),
    ("CF_TELEMETRY_OTEL_ALLOW_HTTP_INSTRUMENTATION", "false"),
    ("CF_TELEMETRY_PROMETHEUS_ENABLE", "false"),
    ("CF_TELEMETRY_PROMETHEUS_ENABLE_PROCESS_METRICS", "false"),
    ("CF_TELEMETRY_PROMETHEUS_HOST", "0.0.0.0"),
    ("CF_TELEMETRY_PROMETHEUS_PORT", "9100"),
    ("CF_TELEMETRY_PYROSCOPE_ENABLE", "false"),
    ("PYROSCOPE_SERVER_ADDRESS", ""),
    ("LOGGER_LEVEL", "debug"),
    ("LOG_OUTGOING_HTTP_REQUESTS", "false"),
    ("METRICS_SCRAPE_TIMEOUT_MS", "0"),
    ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4317"),
    ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
    ("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip"),
    ("OTEL_LOGS_EXPORTER", "none"),
    ("OTEL_TRACES_EXPORTER", "none"),
    ("OTEL_TRACES_SAMPLER", "parentbased_always_on"),
    ("OTEL_METRICS_EXPORTER", "otlp"),
    ("OTEL_METRIC_EXPORT_INTERVAL", "10000"),
    ("OTEL_METRIC_EXPORT_TIMEOUT", "5000"),
    ("OTEL_EXPORTER_PROMETHEUS_HOST", "0.0.0.0"),
    ("OTEL_EXPORTER_PROMETHEUS_PORT", "9464"),
    ("OTEL_SEMCONV_STABILITY_OPT_IN", "http"),
    ("CONTAINER_LOGGER_EXEC_CHECK_INTERVAL_MS", "1000"),
    ("DOCKER_REQUEST_TIMEOUT_MS", "30000"),
    ("FORCE_COMPOSE_SERIAL_PULL", "false"),
    ("TRUSTED_QEMU_IMAGES", "tonistiigi/binfmt"),
    ("NEW_RELIC_ENABLED", "false"),
];

/// The dind pod's default env: its in-docker cleaner of old images and
/// volumes, so a reused dind volume does not fill up.
const DIND_ENV: &[(&str, &str)] = &[
    ("CLEAN_DOCKER", "true"),
    ("CLEAN_PERIOD_SECONDS", "21600"),
    ("CLEAN_PERIOD_BUILDS", "5"),
    ("IMAGE_RETAIN_PERIOD", "14400"),
    ("VOLUMES_RETAIN_PERIOD", "14400"),
    ("DISK_USAGE_THRESHOLD", "0.8"),
    ("INODES_USAGE_THRESHOLD", "0.8"),
];

/// How long a build may take in each phase (seconds unless named otherwise).
const WORKFLOW_LIMITS: &[(&str, i64)] = &[
    ("MAXIMUM_ALLOWED_TIME_BEFORE_PRE_STEPS_SUCCESS", 600),
    ("MAXIMUM_ALLOWED_WORKFLOW_AGE_BEFORE_TERMINATION", 86400),
    ("MAXIMUM_ELECTED_STATE_AGE_ALLOWED", 900),
    ("MAXIMUM_POST_STEPS_GRACE_PERIOD_MINUTES", 30),
    ("MAXIMUM_RETRY_ATTEMPTS_ALLOWED", 20),
    ("MAXIMUM_TERMINATING_STATE_AGE_ALLOWED", 900),
    ("MAXIMUM_TERMINATING_STATE_AGE_ALLOWED_WITHOUT_UPDATE", 300),
    ("TIME_ENGINE_INACTIVE_UNTIL_TERMINATION", 300),
    ("TIME_ENGINE_INACTIVE_UNTIL_UNHEALTHY", 60),
    ("TIME_INACTIVE_UNTIL_TERMINATION", 2700),
];

/// The chart's reuse policy: any pipeline of the account may reuse a volume.
pub(crate) const DEFAULT_REUSE_VOLUME_SELECTOR: &str = "codefresh-app,io.codefresh.accountName";

/// The chart's order of reusable volumes: by the build's pipeline.
pub(crate) const DEFAULT_REUSE_VOLUME_SORT_ORDER: &str = "pipeline_id";

/// The claim annotation the volume cleaner reads a volume's retention from.
pub(crate) const VOLUME_RETENTION_ANNOTATION: &str = "codefresh.io/volume-retention";

/// The dind pod's resources: the chart's default limits (400m, 800Mi) with the
/// user's limits and requests laid over them; no requests unless given.
pub fn dind_resources(user: &Resources) -> Value {
    let mut limits: BTreeMap<String, String> = BTreeMap::from([
        ("cpu".to_string(), "400m".to_string()),
        ("memory".to_string(), "800Mi".to_string()),
    ]);
    limits.extend(user.limits.clone());
    let requests = if user.requests.is_empty() {
        Value::Null
    } else {
        json!(user.requests)
    };
    json!({"limits": limits, "requests": requests})
}

/// The OpenTelemetry resource attributes of one runtime service.
fn otel_attributes(service: &str, version: &str, runtime_name: &str) -> String {
    format!(
        "service.name={service},service.version={version},service.namespace=cf-classic-runtime,\
         cf.classic.runtime.name={runtime_name},cf.classic.runtime.version={}",
        images::CHART_VERSION
    )
}

/// Inserts `value` under `key` unless it is null or empty.
pub(super) fn insert_nonempty(map: &mut Map<String, Value>, key: &str, value: Value) {
    let empty = match &value {
        Value::Object(m) => m.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Null => true,
        _ => false,
    };
    if !empty {
        map.insert(key.to_string(), value);
    }
}

/// The runtime-environment spec for these values and this identity: the one
/// function install, upgrade and the dry-run use.
pub fn runtime_environment_spec(values: &Values, identity: &Identity) -> Value {
    let runtime_name = identity.runtime_name(values);
    let cluster = cluster_placement(values, identity);
    let mut spec = Map::new();
    spec.insert(
        "metadata".into(),
        json!({"name": runtime_name, "agent": true}),
    );
    spec.insert(
        "runtimeScheduler".into(),
        Value::Object(engine_scheduler(values, &runtime_name, cluster.clone())),
    );
    spec.insert(
        "dockerDaemonScheduler".into(),
        Value::Object(dind_scheduler(values, &runtime_name, cluster)),
    );
    spec.insert("extends".into(), json!([RUNTIME_EXTENDS]));
    spec.insert("description".into(), json!("Installed by cf-runner"));
    if let Some(account) = &identity.account_id {
        spec.insert("accountId".into(), json!(account));
    }
    if values.app_proxy.enabled {
        if let Some(host) = &values.app_proxy.host {
            // Where the platform reaches the app-proxy (its Ingress).
            let external_ip = format!("https://{host}{}", values.app_proxy.path_prefix);
            spec.insert("appProxy".into(), json!({ "externalIP": external_ip }));
        }
    }
    Value::Object(spec)
}

/// Where the engine and dind pods of a build run: the namespace, their
/// ServiceAccount, the account and context the platform knows the cluster
/// by, and the build nodes' selector.
fn cluster_placement(values: &Values, identity: &Identity) -> Value {
    let account_id = identity
        .account_id
        .clone()
        .unwrap_or_else(|| placeholder("account id"));
    let node_selector = selector_with_arch(&values.runtime.scheduling, values.arch);
    let mut c = Map::new();
    c.insert("namespace".into(), json!(values.namespace));
    c.insert("serviceAccount".into(), json!("codefresh-engine"));
    c.insert(
        "clusterProvider".into(),
        json!({"accountId": account_id, "selector": identity.context_or_placeholder()}),
    );
    insert_nonempty(&mut c, "nodeSelector", json!(node_selector));
    Value::Object(c)
}

/// Engine env: the chart's defaults, then the user's (proxies, additional
/// env vars), then what cf-runner derives, which nobody may override.
fn engine_env(values: &Values, runtime_name: &str) -> Map<String, Value> {
    let registry = values.docker_registry.as_deref();
    let mut env: Map<String, Value> = ENGINE_ENV
        .iter()
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect();
    for (k, v) in &values.runtime.env {
        env.insert(k.clone(), json!(v));
    }
    if values.insecure {
        // Builds talk to the same platform the runner does: with --insecure
        // (a self-signed on-prem platform) they must accept its certificate too.
        env.insert("NODE_TLS_REJECT_UNAUTHORIZED".into(), json!("0"));
    }
    let tuned = &values.engine_tuning;
    for (name, pinned) in images::STEP_IMAGES {
        let over = tuned.runtime_images.get(*name);
        env.insert(
            name.to_string(),
            json!(images::reference(*pinned, over, registry)),
        );
    }
    let engine_version = tuning::version(images::ENGINE, tuned.engine_image.as_ref());
    env.insert("RUNTIME_CHART_VERSION".into(), json!(images::CHART_VERSION));
    env.insert("CF_SERVICE_NAME".into(), json!("cf-classic-engine"));
    env.insert("CF_SERVICE_VERSION".into(), json!(engine_version));
    env.insert(
        "OTEL_RESOURCE_ATTRIBUTES".into(),
        json!(otel_attributes(
            "cf-classic-engine",
            &engine_version,
            runtime_name
        )),
    );
    env
}

/// Dind env: the chart's cleaner defaults, the user's env, then the
/// telemetry attributes cf-runner derives.
fn dind_env(values: &Values, runtime_name: &str) -> Map<String, Value> {
    let mut env: Map<String, Value> = DIND_ENV
        .iter()
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect();
    for (k, v) in &values.runtime.env {
        env.insert(k.clone(), json!(v));
    }
    env.insert(
        "OTEL_RESOURCE_ATTRIBUTES".into(),
        json!(otel_attributes(
            "cf-classic-dind",
            &tuning::version(
                super::security::dind_image(values),
                values.engine_tuning.dind_image.as_ref(),
            ),
            runtime_name
        )),
    );
    env
}

/// How the platform starts a build's engine pod (`runtimeScheduler`).
fn engine_scheduler(values: &Values, runtime_name: &str, cluster: Value) -> Map<String, Value> {
    let tuned = &values.engine_tuning;
    let mut engine = Map::new();
    engine.insert("type".into(), json!("KubernetesPod"));
    let image = tuning::image(values, images::ENGINE, tuned.engine_image.as_ref());
    engine.insert("image".into(), json!(image));
    engine.insert("imagePullPolicy".into(), json!("IfNotPresent"));
    engine.insert("command".into(), json!(ENGINE_COMMAND));
    engine.insert(
        "envVars".into(),
        Value::Object(engine_env(values, runtime_name)),
    );
    engine.insert(
        "workflowLimits".into(),
        Value::Object(
            WORKFLOW_LIMITS
                .iter()
                .map(|(k, v)| (k.to_string(), json!(v)))
                .chain(
                    values
                        .hygiene
                        .workflow_limits
                        .iter()
                        .map(|(k, v)| (k.clone(), json!(v))),
                )
                .collect(),
        ),
    );
    engine.insert("cluster".into(), cluster);
    insert_nonempty(
        &mut engine,
        "tolerations",
        json!(values.runtime.scheduling.tolerations),
    );
    insert_placement(&mut engine, &values.runtime.placement);
    engine.insert(
        "resources".into(),
        tuning::engine_resources(&tuned.engine_resources),
    );
    engine.insert(
        "terminationGracePeriodSeconds".into(),
        json!(tuned
            .engine_grace_seconds
            .unwrap_or(ENGINE_GRACE_PERIOD_SECONDS)),
    );
    insert_nonempty(&mut engine, "userEnvVars", json!(tuned.user_env_vars));
    engine
}

/// `Runtime.PodAnnotations`, `PodLabels`, `Affinity` and `SchedulerName`,
/// where the chart's runtime spec puts them for an engine or dind pod (the
/// platform copies them onto each build's pod).
fn insert_placement(scheduler: &mut Map<String, Value>, placement: &Placement) {
    insert_nonempty(scheduler, "affinity", json!(placement.affinity));
    insert_nonempty(scheduler, "annotations", json!(placement.annotations));
    insert_nonempty(scheduler, "labels", json!(placement.labels));
    insert_nonempty(scheduler, "schedulerName", json!(placement.scheduler_name));
}

/// The dind volume claim a build reuses, matched by pipeline.
fn dind_claim(values: &Values) -> Value {
    let mut pvc = Map::new();
    pvc.insert("name".into(), json!("dind"));
    pvc.insert(
        "reuseVolumeSelector".into(),
        json!(values
            .hygiene
            .reuse_volume_selector
            .as_deref()
            .unwrap_or(DEFAULT_REUSE_VOLUME_SELECTOR)),
    );
    let sort_order = values.engine_tuning.reuse_volume_sort_order.as_deref();
    pvc.insert(
        "reuseVolumeSortOrder".into(),
        json!(sort_order.unwrap_or(DEFAULT_REUSE_VOLUME_SORT_ORDER)),
    );
    pvc.insert("storageClassName".into(), json!(values.storage.class_name));
    pvc.insert("volumeSize".into(), json!(values.runtime.volume_size));
    if let Some(retention) = &values.hygiene.volume_retention {
        pvc.insert(
            "annotations".into(),
            json!({ VOLUME_RETENTION_ANNOTATION: retention }),
        );
    }
    Value::Object(pvc)
}

/// How the platform starts a build's dind pod (`dockerDaemonScheduler`).
fn dind_scheduler(values: &Values, runtime_name: &str, cluster: Value) -> Map<String, Value> {
    let tuned = &values.engine_tuning;
    let mut dind = Map::new();
    dind.insert("type".into(), json!("DindKubernetesPod"));
    let image = tuning::image(
        values,
        super::security::dind_image(values),
        tuned.dind_image.as_ref(),
    );
    dind.insert("dindImage".into(), json!(image));
    dind.insert("imagePullPolicy".into(), json!("IfNotPresent"));
    dind.insert(
        "userAccess".into(),
        json!(values.runtime.docker_daemon_access),
    );
    dind.insert(
        "envVars".into(),
        Value::Object(dind_env(values, runtime_name)),
    );
    dind.insert("cluster".into(), cluster);
    insert_nonempty(
        &mut dind,
        "tolerations",
        json!(values.runtime.scheduling.tolerations),
    );
    insert_placement(&mut dind, &values.runtime.placement);
    dind.insert("pvcs".into(), json!([dind_claim(values)]));
    dind.insert(
        "defaultDindResources".into(),
        dind_resources(&values.runtime.dind_resources),
    );
    dind.insert(
        "terminationGracePeriodSeconds".into(),
        json!(tuned
            .dind_grace_seconds
            .unwrap_or(DIND_GRACE_PERIOD_SECONDS)),
    );
    if let Some(mounts) = &values.runtime.user_volume_mounts {
        dind.insert("userVolumeMounts".into(), mounts.clone());
    }
    if let Some(volumes) = &values.runtime.user_volumes {
        dind.insert("userVolumes".into(), volumes.clone());
    }
    insert_dind_daemon_files(&mut dind);
    super::security::dind_spec_into(&mut dind, values);
    super::ca_bundle::into_dind_spec(&mut dind, values);
    dind
}

/// The dind daemon's TLS (Secret codefresh-certs-server) and daemon.json
/// (ConfigMap codefresh-dind-config), both installed by cf-runner.
fn insert_dind_daemon_files(dind: &mut Map<String, Value>) {
    dind.insert("clientCertPath".into(), json!("/etc/ssl/cf/"));
    dind.insert(
        "volumeMounts".into(),
        json!({
            "codefresh-certs-server": {
                "name": "codefresh-certs-server",
                "mountPath": "/etc/ssl/cf",
                "readOnly": true,
            },
            "dind-config": {
                "name": "dind-config",
                "mountPath": "/etc/docker/daemon.json",
                "subPath": "daemon.json",
                "readOnly": true,
            },
        }),
    );
    dind.insert(
        "volumes".into(),
        json!({
            "codefresh-certs-server": {
                "name": "codefresh-certs-server",
                "secret": {"secretName": "codefresh-certs-server"},
            },
            "dind-config": {
                "name": "dind-config",
                "configMap": {"name": "codefresh-dind-config"},
            },
        }),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::{load, Input, ValuesFile};

    fn values(text: &str) -> Values {
        let input = Input {
            files: vec![ValuesFile {
                origin: "test.yaml".into(),
                text: text.into(),
            }],
            ..Default::default()
        };
        load(&input).expect("valid values").values
    }

    fn spec(text: &str) -> Value {
        let identity = Identity {
            context: Some("ctx".into()),
            account_id: Some("acc-1".into()),
            ..Default::default()
        };
        runtime_environment_spec(&values(text), &identity)
    }

    #[test]
    fn insecure_reaches_the_builds_engine() {
        let plain = spec("Namespace: ns\n");
        assert!(plain["runtimeScheduler"]["envVars"]
            .get("NODE_TLS_REJECT_UNAUTHORIZED")
            .is_none());
        let insecure = spec("Namespace: ns\nInsecure: true\n");
        assert_eq!(
            insecure["runtimeScheduler"]["envVars"]["NODE_TLS_REJECT_UNAUTHORIZED"],
            "0"
        );
    }

    #[test]
    fn the_mirror_reaches_every_step_image() {
        let s = spec("Namespace: ns\nDockerRegistry: mirror.local/cf\n");
        let env = &s["runtimeScheduler"]["envVars"];
        for (name, pinned) in images::STEP_IMAGES {
            let image = env[*name].as_str().unwrap();
            assert!(image.starts_with("mirror.local/cf/"), "{name}: {image}");
            assert!(image.ends_with(pinned.digest), "{name}: {image}");
        }
        assert!(s["dockerDaemonScheduler"]["dindImage"]
            .as_str()
            .unwrap()
            .starts_with("mirror.local/cf/codefresh/dind:"));
    }

    #[test]
    fn the_spec_carries_what_starts_a_build() {
        let s = spec("Namespace: ns\nRuntime:\n  resources:\n    limits: {memory: 2Gi}\n");
        assert_eq!(s["runtimeScheduler"]["type"], "KubernetesPod");
        assert_eq!(s["runtimeScheduler"]["command"], json!(ENGINE_COMMAND));
        assert_eq!(s["dockerDaemonScheduler"]["type"], "DindKubernetesPod");
        assert_eq!(s["dockerDaemonScheduler"]["clientCertPath"], "/etc/ssl/cf/");
        // The user's limit over the chart's default; the other default stays.
        assert_eq!(
            s["dockerDaemonScheduler"]["defaultDindResources"],
            json!({"limits": {"cpu": "400m", "memory": "2Gi"}, "requests": null})
        );
        assert_eq!(
            s["dockerDaemonScheduler"]["envVars"]["CLEAN_DOCKER"],
            "true"
        );
        assert_eq!(s["dockerDaemonScheduler"]["pvcs"][0]["name"], "dind");
        assert_eq!(s["accountId"], "acc-1");
        assert!(s.get("appProxy").is_none());
    }

    #[test]
    fn the_app_proxy_address_reaches_the_platform() {
        let s = spec(
            "Namespace: ns\nAppProxy:\n  Enabled: true\n  Ingress:\n    Host: ap.example.com\n    PathPrefix: /ap\n",
        );
        assert_eq!(s["appProxy"]["externalIP"], "https://ap.example.com/ap");
    }
}
