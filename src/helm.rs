//! `--generate-helm-values-file`: the same validated values, expressed as a
//! values file for the `cf-runtime` Helm chart (10.x). Pure: returns the
//! text; the caller writes it (0600 when it holds a token).

use serde_json::{json, Map, Value};

use crate::render::{daemon_config, provisioner_name, selector_with_arch, Identity};
use crate::values::{Arch, Backend, Resources, Scheduling, Values};

/// The chart version whose values layout this follows.
pub const CHART_VERSION: &str = "10.5.2";

/// The generated file: its text and whether it holds a secret.
#[derive(Debug, Clone)]
pub struct HelmValues {
    pub text: String,
    pub holds_secret: bool,
}

fn selector(scheduling: &Scheduling, arch: Arch) -> Value {
    json!(selector_with_arch(scheduling, arch))
}

fn resources(r: &Resources) -> Value {
    serde_json::to_value(r).expect("serializable")
}

fn insert_nonempty(map: &mut Map<String, Value>, key: &str, value: Value) {
    let empty = match &value {
        Value::Object(m) => m.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        _ => false,
    };
    if !empty {
        map.insert(key.to_string(), value);
    }
}

/// Builds `generated_values.yaml` for the chart.
pub fn generate(values: &Values, identity: &Identity) -> HelmValues {
    let mut global = Map::new();
    global.insert("codefreshHost".into(), json!(values.codefresh_host));
    if let Some(token) = &values.token {
        global.insert("codefreshToken".into(), json!(token.expose()));
    }
    insert_nonempty(&mut global, "accountId", json!(identity.account_id));
    global.insert("context".into(), json!(identity.context_or_placeholder()));
    global.insert("agentName".into(), json!(identity.agent_name(values)));
    global.insert("runtimeName".into(), json!(identity.runtime_name(values)));
    if let Some(reg) = &values.docker_registry {
        global.insert("imageRegistry".into(), json!(reg));
    }

    let mut storage = Map::new();
    storage.insert("backend".into(), json!(values.storage.backend.name()));
    match &values.storage.backend {
        Backend::Local { volume_parent_dir } => {
            storage.insert(
                "local".into(),
                json!({"volumeParentDir": volume_parent_dir}),
            );
        }
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
            storage.insert("fsType".into(), json!(fs_type));
            let mut ebs = Map::new();
            ebs.insert("volumeType".into(), json!(volume_type));
            ebs.insert("availabilityZone".into(), json!(availability_zone));
            ebs.insert("encrypted".into(), json!(encrypted.to_string()));
            insert_nonempty(&mut ebs, "kmsKeyId", json!(kms_key_id));
            if let Some(i) = iops {
                ebs.insert("iops".into(), json!(i.to_string()));
            }
            if let Some(t) = throughput {
                ebs.insert("throughput".into(), json!(t.to_string()));
            }
            let creds = &values.storage.credentials;
            if let (Some(id), Some(secret)) =
                (&creds.aws_access_key_id, &creds.aws_secret_access_key)
            {
                ebs.insert("accessKeyId".into(), json!(id.expose()));
                ebs.insert("secretAccessKey".into(), json!(secret.expose()));
            }
            storage.insert("ebs".into(), Value::Object(ebs));
        }
        Backend::Gcedisk {
            availability_zone,
            volume_type,
            fs_type,
        } => {
            storage.insert("fsType".into(), json!(fs_type));
            let mut gce = Map::new();
            gce.insert("volumeType".into(), json!(volume_type));
            gce.insert("availabilityZone".into(), json!(availability_zone));
            if let Some(sa) = &values.storage.credentials.google_service_account {
                gce.insert("serviceAccountJson".into(), json!(sa.expose()));
            }
            storage.insert("gcedisk".into(), Value::Object(gce));
        }
        Backend::Azuredisk {
            sku_name,
            caching_mode,
            fs_type,
            location,
            resource_group,
        } => {
            storage.insert("fsType".into(), json!(fs_type));
            let mut az = Map::new();
            az.insert("skuName".into(), json!(sku_name));
            az.insert("cachingMode".into(), json!(caching_mode));
            insert_nonempty(&mut az, "availabilityZone", json!(location));
            insert_nonempty(&mut az, "resourceGroup", json!(resource_group));
            storage.insert("azuredisk".into(), Value::Object(az));
            storage.insert(
                "mountAzureJson".into(),
                json!(values.storage.mount_azure_json),
            );
        }
    }

    let mut volume_provisioner = Map::new();
    volume_provisioner.insert("enabled".into(), json!(values.storage.provisioned));
    insert_nonempty(
        &mut volume_provisioner,
        "nodeSelector",
        selector(&values.storage.provisioner_scheduling, values.arch),
    );
    insert_nonempty(
        &mut volume_provisioner,
        "tolerations",
        json!(values.storage.provisioner_scheduling.tolerations),
    );
    insert_nonempty(
        &mut volume_provisioner,
        "resources",
        resources(&values.storage.provisioner_resources),
    );
    insert_nonempty(&mut volume_provisioner, "env", json!(values.env_vars));
    if !values.storage.provisioner_sa_annotations.is_empty() {
        volume_provisioner.insert(
            "serviceAccount".into(),
            json!({"annotations": values.storage.provisioner_sa_annotations}),
        );
    }
    let build_selector = selector(&values.runtime.scheduling, values.arch);
    let mut lv = Map::new();
    insert_nonempty(&mut lv, "nodeSelector", build_selector.clone());
    insert_nonempty(
        &mut lv,
        "resources",
        resources(&values.storage.lv_monitor_resources),
    );
    if !lv.is_empty() {
        volume_provisioner.insert("dind-lv-monitor".into(), Value::Object(lv));
    }

    let mut runner = Map::new();
    insert_nonempty(
        &mut runner,
        "nodeSelector",
        selector(&values.runner.scheduling, values.arch),
    );
    insert_nonempty(
        &mut runner,
        "tolerations",
        json!(values.runner.scheduling.tolerations),
    );
    insert_nonempty(
        &mut runner,
        "resources",
        resources(&values.runner.resources),
    );
    insert_nonempty(&mut runner, "env", json!(values.runner.env));

    let mut dind = Map::new();
    insert_nonempty(&mut dind, "nodeSelector", build_selector.clone());
    insert_nonempty(
        &mut dind,
        "tolerations",
        json!(values.runtime.scheduling.tolerations),
    );
    insert_nonempty(
        &mut dind,
        "resources",
        resources(&values.runtime.dind_resources),
    );
    insert_nonempty(&mut dind, "env", json!(values.runtime.env));
    insert_nonempty(&mut dind, "userVolumes", json!(values.runtime.user_volumes));
    insert_nonempty(
        &mut dind,
        "userVolumeMounts",
        json!(values.runtime.user_volume_mounts),
    );
    dind.insert(
        "userAccess".into(),
        json!(values.runtime.docker_daemon_access),
    );
    // The chart names its own StorageClass; name one only when it is the user's.
    let mut pvc = Map::new();
    pvc.insert("volumeSize".into(), json!(values.runtime.volume_size));
    if !values.storage.provisioned {
        pvc.insert("storageClassName".into(), json!(values.storage.class_name));
    }
    dind.insert("pvcs".into(), json!({ "dind": pvc }));
    let mut engine = Map::new();
    insert_nonempty(&mut engine, "nodeSelector", build_selector);
    insert_nonempty(
        &mut engine,
        "tolerations",
        json!(values.runtime.scheduling.tolerations),
    );
    let user_env: Vec<Value> = values
        .runtime
        .env
        .iter()
        .map(|(k, v)| json!({"name": k, "value": v}))
        .collect();
    insert_nonempty(&mut engine, "userEnvVars", json!(user_env));

    let mut runtime = Map::new();
    runtime.insert("dind".into(), Value::Object(dind));
    runtime.insert("engine".into(), Value::Object(engine));
    if !values.runtime.sa_annotations.is_empty() {
        runtime.insert(
            "serviceAccount".into(),
            json!({"annotations": values.runtime.sa_annotations}),
        );
    }
    let daemon = daemon_config(values);
    runtime.insert("dindDaemon".into(), daemon);

    let mut app_proxy = Map::new();
    app_proxy.insert("enabled".into(), json!(values.app_proxy.enabled));
    if values.app_proxy.enabled {
        let mut ingress = Map::new();
        insert_nonempty(&mut ingress, "host", json!(values.app_proxy.host));
        insert_nonempty(&mut ingress, "class", json!(values.app_proxy.ingress_class));
        insert_nonempty(
            &mut ingress,
            "tlsSecret",
            json!(values.app_proxy.tls_secret),
        );
        if values.app_proxy.path_prefix != "/" {
            ingress.insert("pathPrefix".into(), json!(values.app_proxy.path_prefix));
        }
        insert_nonempty(
            &mut ingress,
            "annotations",
            json!(values.app_proxy.annotations),
        );
        app_proxy.insert("ingress".into(), Value::Object(ingress));
        insert_nonempty(&mut app_proxy, "env", json!(values.app_proxy.env));
        insert_nonempty(
            &mut app_proxy,
            "resources",
            resources(&values.app_proxy.resources),
        );
    }
    let mut monitor = Map::new();
    monitor.insert("enabled".into(), json!(values.monitor.enabled));
    if values.monitor.enabled {
        monitor.insert(
            "rbac".into(),
            json!({"namespaced": values.monitor.namespaced}),
        );
        insert_nonempty(&mut monitor, "env", json!(values.monitor.env));
        insert_nonempty(
            &mut monitor,
            "resources",
            resources(&values.monitor.resources),
        );
    }

    let mut root = Map::new();
    root.insert("global".into(), Value::Object(global));
    root.insert("runner".into(), Value::Object(runner));
    root.insert(
        "volumeProvisioner".into(),
        Value::Object(volume_provisioner),
    );
    root.insert("storage".into(), Value::Object(storage));
    root.insert("runtime".into(), Value::Object(runtime));
    root.insert("appProxy".into(), Value::Object(app_proxy));
    root.insert("monitor".into(), Value::Object(monitor));

    let holds_secret = values.token.is_some()
        || values.storage.credentials.any()
        || !values.url_credentials.is_empty();
    let mut text = format!(
        "# Values for the cf-runtime Helm chart {CHART_VERSION}, generated by cf-runner.\n\
         # Install: helm install cf-runtime oci://quay.io/codefresh/cf-runtime -f <this file> --create-namespace --namespace {ns}\n",
        ns = values.namespace
    );
    if values.token.is_none() {
        text.push_str("# Set global.codefreshToken (or global.codefreshTokenSecretKeyRef) before installing.\n");
    }
    if identity.account_id.is_none() {
        text.push_str("# Set global.accountId to your Codefresh account id before installing.\n");
    }
    if !values.storage.provisioned {
        text.push_str(&format!(
            "# Builds use the existing StorageClass {} (provisioner {} is not installed).\n",
            values.storage.class_name,
            provisioner_name(&values.namespace)
        ));
    }
    text.push_str(&serde_yaml_ng::to_string(&Value::Object(root)).expect("serializable"));
    HelmValues { text, holds_secret }
}
