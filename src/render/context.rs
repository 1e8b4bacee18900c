//! The template context: what the templates see, built from the values and
//! the identity, and the pieces the Helm values file ([`super::helm`])
//! shares with it (the dind daemon config, the lv-monitor's tolerations,
//! the provisioner's name).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Value};

use super::pod_parts::{env_list, selector_with_arch};
use super::{
    images, placeholder, yaml, Identity, CREDENTIALS_SECRET, PROVISIONER_SECRET, RECORD_FORMAT,
    RECORD_SECRET,
};
use crate::values::{Backend, Secret, SecretKeyRef, Values};

fn secret_or_placeholder(secret: Option<&Secret>, what: &str) -> String {
    secret
        .map(|s| s.expose().to_string())
        .unwrap_or_else(|| placeholder(what))
}

/// The provisioner name the StorageClass points at.
pub fn provisioner_name(namespace: &str) -> String {
    format!("codefresh.io/dind-volume-provisioner-runner-{namespace}")
}

/// The docker daemon configuration of dind pods (`daemon.json`), also the
/// Helm chart's `runtime.dindDaemon`.
pub(super) fn daemon_config(values: &Values) -> Value {
    let mut daemon = json!({
        "hosts": ["unix:///var/run/docker.sock", "tcp://0.0.0.0:1300"],
        "tlsverify": true,
        "tls": true,
        "tlscacert": "/etc/ssl/cf-client/ca.pem",
        "tlscert": "/etc/ssl/cf/server-cert.pem",
        "tlskey": "/etc/ssl/cf/server-key.pem",
        "metrics-addr": "0.0.0.0:9323",
        "experimental": true,
    });
    let map = daemon.as_object_mut().expect("a map");
    // Always present, even empty: in the Helm values an absent key would let
    // the chart's example registry (192.168.99.100:5000) through.
    map.insert(
        "insecure-registries".into(),
        json!(values.runtime.insecure_registries),
    );
    if !values.runtime.registry_mirrors.is_empty() {
        map.insert(
            "registry-mirrors".into(),
            json!(values.runtime.registry_mirrors),
        );
    }
    if let Some(mtu) = values.runtime.mtu {
        map.insert("mtu".into(), json!(mtu));
    }
    if let Some(bip) = &values.hygiene.bip {
        map.insert("bip".into(), json!(bip));
    }
    daemon
}

fn storage_parameters(values: &Values) -> BTreeMap<String, String> {
    let mut p = BTreeMap::new();
    let mut put = |k: &str, v: &str| {
        p.insert(k.to_string(), v.to_string());
    };
    put("volumeBackend", values.storage.backend.name());
    match &values.storage.backend {
        Backend::Local { volume_parent_dir } => put("volumeParentDir", volume_parent_dir),
        Backend::Ebs {
            availability_zone,
            volume_type,
            fs_type,
            encrypted,
            kms_key_id,
            iops,
            throughput,
            ..
        } => {
            put("AvailabilityZone", availability_zone);
            put("VolumeType", volume_type);
            put("fsType", fs_type);
            put("encrypted", if *encrypted { "true" } else { "false" });
            if let Some(k) = kms_key_id {
                put("kmsKeyId", k);
            }
            if let Some(i) = iops {
                put("iops", &i.to_string());
            }
            if let Some(t) = throughput {
                put("throughput", &t.to_string());
            }
        }
        Backend::Gcedisk {
            availability_zone,
            volume_type,
            fs_type,
        } => {
            put("zone", availability_zone);
            put("type", volume_type);
            put("fsType", fs_type);
        }
        Backend::Azuredisk {
            sku_name,
            caching_mode,
            fs_type,
            location,
            resource_group,
        } => {
            put("kind", "managed");
            put("skuName", sku_name);
            put("cachingMode", caching_mode);
            put("fsType", fs_type);
            if let Some(l) = location {
                put("location", l);
            }
            if let Some(g) = resource_group {
                put("resourceGroup", g);
            }
        }
    }
    p
}

/// Toleration lists concatenated without duplicates, in order.
fn union_tolerations(lists: &[&[crate::values::Toleration]]) -> Vec<crate::values::Toleration> {
    let mut out: Vec<crate::values::Toleration> = Vec::new();
    for list in lists {
        for t in *list {
            if !out.contains(t) {
                out.push(t.clone());
            }
        }
    }
    out
}

/// Tolerations of the local-volume cleaner: it must run on every node a
/// build volume can be on, so it tolerates the `codefresh/dind` taint, the
/// builds' tolerations and the runner's.
pub(super) fn lv_monitor_tolerations(values: &Values) -> Vec<crate::values::Toleration> {
    let dind_toleration = crate::values::Toleration {
        key: Some("codefresh/dind".into()),
        operator: Some("Exists".into()),
        value: None,
        effect: Some("NoSchedule".into()),
        toleration_seconds: None,
    };
    union_tolerations(&[
        std::slice::from_ref(&dind_toleration),
        &values.runtime.scheduling.tolerations,
        &values.runner.scheduling.tolerations,
    ])
}

/// The app-proxy's telemetry settings, as the chart sets them: OpenTelemetry
/// and Prometheus off, OTLP only to localhost, and its service identity.
fn app_proxy_telemetry_env(
    values: &Values,
    identity: &Identity,
    credentials: &mut BTreeMap<String, String>,
) -> Vec<Value> {
    let version = match &values.app_proxy.image {
        None => format!("{}@{}", images::APP_PROXY.tag, images::APP_PROXY.digest),
        Some(crate::values::ImageOverride(reference)) => reference
            .rsplit_once(':')
            .map(|(_, tag)| tag.to_string())
            .unwrap_or_default(),
    };
    let mut env: BTreeMap<String, String> = [
        ("CF_TELEMETRY_LOGS_LEVEL", "debug"),
        ("CF_TELEMETRY_OTEL_ENABLE", "false"),
        ("CF_TELEMETRY_OTEL_ALLOW_HTTP_INSTRUMENTATION", "false"),
        ("CF_TELEMETRY_PROMETHEUS_ENABLE", "false"),
        ("CF_TELEMETRY_PROMETHEUS_ENABLE_PROCESS_METRICS", "false"),
        ("CF_TELEMETRY_PROMETHEUS_HOST", "0.0.0.0"),
        ("CF_TELEMETRY_PROMETHEUS_PORT", "9100"),
        ("CF_TELEMETRY_PYROSCOPE_ENABLE", "false"),
        ("PYROSCOPE_SERVER_ADDRESS", ""),
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
        (
            "CF_TELEMETRY_PYROSCOPE_TAGS",
            "pod=$(A_POD_NAME),namespace=$(A_NAMESPACE_NAME)",
        ),
        ("CF_SERVICE_NAME", "cf-classic-app-proxy"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    env.insert("CF_SERVICE_VERSION".into(), version.clone());
    env.insert(
        "OTEL_RESOURCE_ATTRIBUTES".into(),
        format!(
            "service.name=cf-classic-app-proxy,service.version={version},\
             service.namespace=cf-classic-runtime,cf.classic.runtime.name={},\
             cf.classic.runtime.version={}",
            identity.runtime_name(values),
            images::CHART_VERSION
        ),
    );
    // The user's own env wins over these defaults.
    env.retain(|k, _| !values.app_proxy.env.contains_key(k));
    env_list(&env, credentials)
}

/// One context value, serialized straight into the template engine's own
/// form (no JSON tree in between).
fn ser<T: Serialize + ?Sized>(value: &T) -> minijinja::Value {
    minijinja::Value::from(minijinja::value::Serde(value))
}

/// What the templates see. Built as the engine's values directly: a JSON
/// tree first, converted whole afterwards, cost about as much again.
pub(super) fn build_context(
    values: &Values,
    identity: &Identity,
    record: &Value,
) -> minijinja::Value {
    use minijinja::context;
    let registry = values.docker_registry.as_deref();
    let agent_name = identity.agent_name(values);
    // An agent alone has no runtime of its own: the record names none.
    let runtime_name = if values.agent_only {
        String::new()
    } else {
        identity.runtime_name(values)
    };
    let record_yaml = yaml::emit_like_serde_yaml(record);
    // Each env list moves its credentials into this map, which the
    // credentials Secret then holds: the order they are added in is kept.
    let mut credentials: BTreeMap<String, String> = values
        .url_credentials
        .iter()
        .map(|(k, v)| (k.clone(), v.expose().to_string()))
        .collect();
    let runner = runner_context(values, identity, &mut credentials);
    let runtime = runtime_context(values, identity);
    let storage = storage_context(values, &mut credentials);
    let monitor = monitor_context(values, &mut credentials);
    let app_proxy = app_proxy_context(values, identity, &mut credentials);
    let metrics = super::metrics::context(values, &mut credentials);
    context! {
        credentials_secret => ser(&CREDENTIALS_SECRET),
        credentials => ser(&credentials),
        namespace => ser(&values.namespace),
        codefresh_host => ser(&values.codefresh_host),
        agent_name => ser(&agent_name),
        runtime_name => ser(&runtime_name),
        cluster_id => ser(&values.monitor.cluster_id.clone().unwrap_or_else(|| identity.context_or_placeholder())),
        version => ser(&env!("CARGO_PKG_VERSION")),
        chart_version => ser(&images::CHART_VERSION),
        docker_registry => ser(&registry),
        image_pull_secrets => ser(&pull_secret_refs(values)),
        hygiene => ser(&values.hygiene),
        component_tuning => ser(&values.component_tuning),
        security => ser(&super::security::template_context(values)),
        openshift => ser(&values.openshift.is_on()),
        record_format => ser(&RECORD_FORMAT),
        record_secret => ser(&RECORD_SECRET),
        record_values => ser(&record_yaml),
        cluster_integration => ser(&!values.skip_cluster_integration),
        registered => ser(&if identity.registered { "true" } else { "false" }),
        runner => runner,
        runtime => runtime,
        storage => storage,
        monitor => monitor,
        app_proxy => app_proxy,
        metrics => metrics,
        ballast => super::ballast::context(values),
    }
}

/// `ImagePullSecrets` as a pod spec lists them (`[{name: …}]`).
fn pull_secret_refs(values: &Values) -> Vec<BTreeMap<&'static str, &str>> {
    values
        .image_pull_secrets
        .iter()
        .map(|name| BTreeMap::from([("name", name.as_str())]))
        .collect()
}

/// The runner's image, placement, resources, env and agent token.
fn runner_context(
    values: &Values,
    identity: &Identity,
    credentials: &mut BTreeMap<String, String>,
) -> minijinja::Value {
    let registry = values.docker_registry.as_deref();
    let mut runner_env = values.runner.env.clone();
    if values.insecure {
        runner_env.insert("NODE_TLS_REJECT_UNAUTHORIZED".into(), "0".into());
    }
    if let Some(reg) = registry {
        runner_env.insert("DOCKER_REGISTRY".into(), reg.to_string());
    }
    let runner_env = env_list(&runner_env, credentials);
    minijinja::context! {
        image => ser(&images::reference(images::RUNNER, values.runner.image.as_ref(), registry)),
        node_selector => ser(&selector_with_arch(&values.runner.scheduling, values.arch)),
        tolerations => ser(&values.runner.scheduling.tolerations),
        resources => ser(&values.runner.resources),
        env => ser(&runner_env),
        token => ser(&secret_or_placeholder(identity.agent_token.as_ref().or(values.agent_token.as_ref()), "agent token")),
        placement => ser(&values.runner.placement),
    }
}

/// The builds' runtime: the dind daemon, its certificates, placement,
/// volumes and images, and where the platform knows the cluster.
fn runtime_context(values: &Values, identity: &Identity) -> minijinja::Value {
    let registry = values.docker_registry.as_deref();
    minijinja::context! {
        sa_annotations => ser(&values.runtime.sa_annotations),
        daemon_json => ser(&serde_json::to_string_pretty(&daemon_config(values)).expect("serializable")),
        dind_ca => ser(&secret_or_placeholder(identity.dind_ca.as_ref(), "dind CA certificate")),
        dind_cert => ser(&secret_or_placeholder(identity.dind_cert.as_ref(), "dind server certificate")),
        dind_key => ser(&secret_or_placeholder(identity.dind_key.as_ref(), "dind server key, generated locally")),
        node_selector => ser(&selector_with_arch(&values.runtime.scheduling, values.arch)),
        tolerations => ser(&values.runtime.scheduling.tolerations),
        env => ser(&values.runtime.env),
        dind_resources => ser(&values.runtime.dind_resources),
        user_volumes => ser(&values.runtime.user_volumes),
        user_volume_mounts => ser(&values.runtime.user_volume_mounts),
        volume_size => ser(&values.runtime.volume_size),
        docker_daemon_access => ser(&values.runtime.docker_daemon_access),
        dind_image => ser(&images::reference(super::security::dind_image(values), None, registry)),
        engine_image => ser(&images::reference(images::ENGINE, None, registry)),
        context => ser(&identity.context_or_placeholder()),
        account_id => ser(&identity.account_id.clone().unwrap_or_else(|| placeholder("account id"))),
    }
}

/// The dind StorageClass, its provisioner and local-volume monitor, and
/// the cloud credentials the provisioner uses: given in the values (then
/// in its Secret) or as references to a Secret of the user's.
fn storage_context(
    values: &Values,
    credentials: &mut BTreeMap<String, String>,
) -> minijinja::Value {
    let registry = values.docker_registry.as_deref();
    let storage = &values.storage;
    let creds = &storage.credentials;
    // A key of the provisioner's Secret, unless the values name another.
    let key_ref = |given: &Option<SecretKeyRef>, key: &str| {
        given.clone().unwrap_or(SecretKeyRef {
            name: PROVISIONER_SECRET.into(),
            key: key.into(),
        })
    };
    let provisioner_env = env_list(&values.env_vars, credentials);
    minijinja::context! {
        provisioned => ser(&storage.provisioned),
        class_name => ser(&storage.class_name),
        backend => ser(&storage.backend.name()),
        local => ser(&matches!(storage.backend, Backend::Local { .. })),
        volume_parent_dir => ser(&match &storage.backend { Backend::Local { volume_parent_dir } => volume_parent_dir.clone(), _ => String::new() }),
        parameters => ser(&storage_parameters(values)),
        annotations => ser(&storage.annotations),
        provisioner_name => ser(&provisioner_name(&values.namespace)),
        provisioner_image => ser(&images::reference(images::VOLUME_PROVISIONER, storage.provisioner_image.as_ref(), registry)),
        lv_monitor_image => ser(&images::reference(super::security::lv_monitor_image(values), storage.lv_monitor_image.as_ref(), registry)),
        cleaner_image => ser(&images::reference(images::VOLUME_CLEANUP, storage.cleaner_image.as_ref(), registry)),
        provisioner_node_selector => ser(&selector_with_arch(&storage.provisioner_scheduling, values.arch)),
        provisioner_tolerations => ser(&storage.provisioner_scheduling.tolerations),
        provisioner_resources => ser(&storage.provisioner_resources),
        provisioner_env => ser(&provisioner_env),
        provisioner_sa_annotations => ser(&storage.provisioner_sa_annotations),
        provisioner_placement => ser(&storage.provisioner_placement),
        lv_monitor_node_selector => ser(&selector_with_arch(&values.runtime.scheduling, values.arch)),
        lv_monitor_tolerations => ser(&lv_monitor_tolerations(values)),
        lv_monitor_resources => ser(&storage.lv_monitor_resources),
        has_credentials => ser(&creds.any()),
        aws_keys => ser(&(creds.aws_access_key_id.is_some() || creds.aws_access_key_id_ref.is_some())),
        aws_access_key_id_ref => ser(&key_ref(&creds.aws_access_key_id_ref, "aws_access_key_id")),
        aws_secret_access_key_ref => ser(&key_ref(&creds.aws_secret_access_key_ref, "aws_secret_access_key")),
        google_credentials => ser(&(creds.google_service_account.is_some() || creds.google_service_account_ref.is_some())),
        google_service_account_ref => ser(&key_ref(&creds.google_service_account_ref, "google-service-account.json")),
        aws_access_key_id => ser(&creds.aws_access_key_id),
        aws_secret_access_key => ser(&creds.aws_secret_access_key),
        google_service_account => ser(&creds.google_service_account),
        mount_azure_json => ser(&storage.mount_azure_json),
    }
}

/// The cluster monitor: whether it runs, what it watches, its token.
fn monitor_context(
    values: &Values,
    credentials: &mut BTreeMap<String, String>,
) -> minijinja::Value {
    let registry = values.docker_registry.as_deref();
    let monitor_env = env_list(&values.monitor.env, credentials);
    minijinja::context! {
        enabled => ser(&values.monitor.enabled),
        image => ser(&images::reference(images::MONITOR, values.monitor.image.as_ref(), registry)),
        namespaced => ser(&values.monitor.namespaced),
        helm_releases => ser(&values.monitor.helm_releases),
        resources => ser(&values.monitor.resources),
        env => ser(&monitor_env),
        sa_annotations => ser(&values.monitor.sa_annotations),
        node_selector => ser(&selector_with_arch(&values.runner.scheduling, values.arch)),
        tolerations => ser(&values.runner.scheduling.tolerations),
        token => ser(&secret_or_placeholder(values.token.as_ref(), "Codefresh API token for the monitor")),
        placement => ser(&values.monitor.placement),
    }
}

/// The app-proxy: whether it runs, its env and telemetry, its Ingress.
fn app_proxy_context(
    values: &Values,
    identity: &Identity,
    credentials: &mut BTreeMap<String, String>,
) -> minijinja::Value {
    let registry = values.docker_registry.as_deref();
    let app_proxy_env = env_list(&values.app_proxy.env, credentials);
    let telemetry_env = app_proxy_telemetry_env(values, identity, credentials);
    minijinja::context! {
        enabled => ser(&values.app_proxy.enabled),
        image => ser(&images::reference(images::APP_PROXY, values.app_proxy.image.as_ref(), registry)),
        resources => ser(&values.app_proxy.resources),
        env => ser(&app_proxy_env),
        telemetry_env => ser(&telemetry_env),
        sa_annotations => ser(&values.app_proxy.sa_annotations),
        host => ser(&values.app_proxy.host),
        ingress_class => ser(&values.app_proxy.ingress_class),
        tls_secret => ser(&values.app_proxy.tls_secret),
        path_prefix => ser(&values.app_proxy.path_prefix),
        annotations => ser(&values.app_proxy.annotations),
        ingress => ser(&values.app_proxy.ingress),
        http_route => ser(&values.app_proxy.http_route),
        node_selector => ser(&selector_with_arch(&values.runner.scheduling, values.arch)),
        tolerations => ser(&values.runner.scheduling.tolerations),
        placement => ser(&values.app_proxy.placement),
    }
}
