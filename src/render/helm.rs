//! `--generate-helm-values-file`: the same validated values, expressed as a
//! values file for the `cf-runtime` Helm chart (10.x). Pure: returns the
//! text; the caller writes it (0600 when it holds a token).
//!
//! The second writer of the render: what it shares with the manifests (the
//! node selector, the dind daemon config, the lv-monitor's tolerations, the
//! provisioner's name, the pinned images) comes from the render's module,
//! so the two cannot drift. One function per top-level key of the chart's
//! values, in the order the file shows them.

use serde_json::{json, Map, Value};

use super::images::{self, Pinned};
use super::runtime_spec;
use super::{
    daemon_config, lv_monitor_tolerations, provisioner_name, selector_with_arch, Identity,
};
use crate::values::{
    Arch, Backend, Placement, ProvisionerCredentials, Resources, Scheduling, Values,
};

/// The chart version whose values layout this follows.
pub const CHART_VERSION: &str = images::CHART_VERSION;

/// Stands in for the kube context when none is known. A plain word, so the
/// chart can put it anywhere (names, YAML) and the file stays valid.
pub const CONTEXT_PLACEHOLDER: &str = "SET-ME-kube-context";

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

/// `nodeSelector` and `tolerations` of one group of pods, into `map`.
fn scheduling_into(map: &mut Map<String, Value>, scheduling: &Scheduling, arch: Arch) {
    insert_nonempty(map, "nodeSelector", selector(scheduling, arch));
    insert_nonempty(map, "tolerations", json!(scheduling.tolerations));
}

/// A component's `podAnnotations` and `affinity` (the chart has no other
/// placement key for its components).
fn component_placement_into(map: &mut Map<String, Value>, placement: &Placement) {
    insert_nonempty(map, "podAnnotations", json!(placement.annotations));
    insert_nonempty(map, "affinity", json!(placement.affinity));
}

/// The builds' placement, under `runtime.engine` or `runtime.dind`.
fn build_placement_into(map: &mut Map<String, Value>, placement: &Placement) {
    component_placement_into(map, placement);
    insert_nonempty(map, "podLabels", json!(placement.labels));
    insert_nonempty(map, "schedulerName", json!(placement.scheduler_name));
}

/// The images a `--docker-registry` mirror must hold for the chart: the chart
/// puts every image under `global.imageRegistry`, docker.io ones included.
fn mirrored_images(values: &Values) -> Vec<Pinned> {
    let mut list = vec![images::RUNNER, images::CHART_CLI, images::CHART_KUBECTL];
    if values.storage.provisioned {
        list.push(images::VOLUME_PROVISIONER);
        match values.storage.backend {
            Backend::Local { .. } => list.push(images::LV_MONITOR),
            _ => list.push(images::VOLUME_CLEANUP),
        }
    }
    if values.monitor.enabled {
        list.push(images::MONITOR);
    }
    if values.app_proxy.enabled {
        list.push(images::APP_PROXY);
    }
    if values.metrics.event_exporter.enabled {
        list.push(super::metrics::EVENT_EXPORTER);
    }
    list.push(images::ENGINE);
    list.push(images::DIND);
    if values.ballast.any() {
        list.push(super::ballast::PAUSE);
    }
    list.extend(images::STEP_IMAGES.iter().map(|(_, p)| *p));
    super::security::mirrored_images(values, &mut list);
    list
}

/// Builds `generated_values.yaml` for the chart.
pub fn generate(values: &Values, identity: &Identity) -> HelmValues {
    let mut notes: Vec<String> = Vec::new();
    let mut root = Map::new();
    root.insert("global".into(), Value::Object(global(values, identity)));
    root.insert("runner".into(), Value::Object(runner(values)));
    root.insert(
        "volumeProvisioner".into(),
        Value::Object(volume_provisioner(values)),
    );
    root.insert("storage".into(), Value::Object(storage(values, &mut notes)));
    root.insert("runtime".into(), Value::Object(runtime(values)));
    root.insert("appProxy".into(), Value::Object(app_proxy(values)));
    root.insert("monitor".into(), Value::Object(monitor(values)));
    for (key, value) in super::metrics::helm_values(values) {
        root.insert(key.into(), value);
    }
    super::tuning::chart_values_into(values, &mut root);
    if let Some(ballast) = super::ballast::helm(values) {
        root.insert("ballast".into(), ballast);
    }
    super::ca_bundle::into_helm(&mut root, values);
    super::extra_resources::into_helm(&mut root, values);
    let mut root = Value::Object(root);
    super::security::merge(&mut root, super::security::helm_patch(values));
    notes.extend(super::security::helm_notes(values));

    let holds_secret = values.token.is_some()
        || values.storage.credentials.any()
        || !values.url_credentials.is_empty();
    notes.extend(storage_and_mirror_notes(values));
    notes.extend(super::metrics::helm_notes(values));
    notes.extend(super::tuning::mirror_note(values));
    notes.extend(crate::values::pod_identity::helm_note(values));
    let mut text = header(values, identity, &notes);
    text.push_str(&serde_yaml_ng::to_string(&root).expect("serializable"));
    HelmValues { text, holds_secret }
}

/// The env of pods that call the platform (the chart's hooks and its
/// runtime-update CronJob): the proxies, and TLS checks off with `--insecure`.
fn platform_env(values: &Values) -> std::collections::BTreeMap<String, String> {
    let mut env = values.env_vars.clone();
    if values.insecure {
        env.insert("NODE_TLS_REJECT_UNAUTHORIZED".into(), "0".into());
    }
    env
}

/// `global`: the platform, the account, and the names of the agent and runtime.
fn global(values: &Values, identity: &Identity) -> Map<String, Value> {
    let mut global = Map::new();
    global.insert("codefreshHost".into(), json!(values.codefresh_host));
    if let Some(token) = &values.token {
        global.insert("codefreshToken".into(), json!(token.expose()));
    }
    insert_nonempty(&mut global, "accountId", json!(identity.account_id));
    match &identity.context {
        Some(context) => {
            global.insert("context".into(), json!(context));
            global.insert("agentName".into(), json!(identity.agent_name(values)));
            global.insert("runtimeName".into(), json!(identity.runtime_name(values)));
        }
        None => {
            // The chart names the agent and runtime after the context unless
            // told otherwise: name them only when the user did.
            global.insert("context".into(), json!(CONTEXT_PLACEHOLDER));
            insert_nonempty(&mut global, "agentName", json!(identity.agent_name));
            insert_nonempty(&mut global, "runtimeName", json!(identity.runtime_name));
        }
    }
    if let Some(reg) = &values.docker_registry {
        global.insert("imageRegistry".into(), json!(reg));
    }
    global
}

/// `storage`: the backend and its settings. What the chart cannot say
/// goes to `notes`, for the file's header.
fn storage(values: &Values, notes: &mut Vec<String>) -> Map<String, Value> {
    let mut storage = Map::new();
    storage.insert("backend".into(), json!(values.storage.backend.name()));
    if values.storage.provisioned {
        storage.insert("fullnameOverride".into(), json!(values.storage.class_name));
    }
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
            aws_credentials_into(&mut ebs, &values.storage.credentials);
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
            google_credentials_into(&mut gce, &values.storage.credentials);
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
            insert_nonempty(&mut az, "resourceGroup", json!(resource_group));
            storage.insert("azuredisk".into(), Value::Object(az));
            storage.insert(
                "mountAzureJson".into(),
                json!(values.storage.mount_azure_json),
            );
            if let Some(location) = location {
                notes.push(format!(
                    "Storage.AzureLocation ({location}) is left out: the chart's StorageClass has no \
                     location parameter (its storage.azuredisk.availabilityZone is a zone, not a \
                     region). Disks are created in the nodes' region."
                ));
            }
        }
    }
    storage
}

/// The provisioner's AWS keys, or the references to the Secret that
/// holds them, into the chart's `storage.ebs`.
fn aws_credentials_into(ebs: &mut Map<String, Value>, creds: &ProvisionerCredentials) {
    if let (Some(id), Some(secret)) = (&creds.aws_access_key_id, &creds.aws_secret_access_key) {
        ebs.insert("accessKeyId".into(), json!(id.expose()));
        ebs.insert("secretAccessKey".into(), json!(secret.expose()));
    }
    if let Some(r) = &creds.aws_access_key_id_ref {
        ebs.insert(
            "accessKeyIdSecretKeyRef".into(),
            json!({"name": r.name, "key": r.key}),
        );
    }
    if let Some(r) = &creds.aws_secret_access_key_ref {
        ebs.insert(
            "secretAccessKeySecretKeyRef".into(),
            json!({"name": r.name, "key": r.key}),
        );
    }
}

/// The provisioner's Google key, or the reference to the Secret that
/// holds it, into the chart's `storage.gcedisk`.
fn google_credentials_into(gce: &mut Map<String, Value>, creds: &ProvisionerCredentials) {
    if let Some(sa) = &creds.google_service_account {
        gce.insert("serviceAccountJson".into(), json!(sa.expose()));
    }
    if let Some(r) = &creds.google_service_account_ref {
        gce.insert(
            "serviceAccountJsonSecretKeyRef".into(),
            json!({"name": r.name, "key": r.key}),
        );
    }
}

/// `volumeProvisioner`: the provisioner, the lv-monitor and the cleanup job.
fn volume_provisioner(values: &Values) -> Map<String, Value> {
    let mut volume_provisioner = Map::new();
    volume_provisioner.insert("enabled".into(), json!(values.storage.provisioned));
    scheduling_into(
        &mut volume_provisioner,
        &values.storage.provisioner_scheduling,
        values.arch,
    );
    insert_nonempty(
        &mut volume_provisioner,
        "resources",
        resources(&values.storage.provisioner_resources),
    );
    insert_nonempty(&mut volume_provisioner, "env", json!(values.env_vars));
    component_placement_into(
        &mut volume_provisioner,
        &values.storage.provisioner_placement,
    );
    if !values.storage.provisioner_sa_annotations.is_empty() {
        volume_provisioner.insert(
            "serviceAccount".into(),
            json!({"annotations": values.storage.provisioner_sa_annotations}),
        );
    }
    let build_selector = selector(&values.runtime.scheduling, values.arch);
    let mut lv = Map::new();
    insert_nonempty(&mut lv, "nodeSelector", build_selector.clone());
    // A list replaces the chart's default (which tolerates codefresh/dind),
    // so the whole list is given: that taint, the builds' and the runner's.
    lv.insert("tolerations".into(), json!(lv_monitor_tolerations(values)));
    insert_nonempty(
        &mut lv,
        "resources",
        resources(&values.storage.lv_monitor_resources),
    );
    let hygiene = &values.hygiene;
    let mut lv_env = Map::new();
    if let Some(t) = hygiene.kb_usage_threshold {
        lv_env.insert("KB_USAGE_THRESHOLD".into(), json!(t.to_string()));
    }
    if let Some(t) = hygiene.inode_usage_threshold {
        lv_env.insert("INODE_USAGE_THRESHOLD".into(), json!(t.to_string()));
    }
    insert_nonempty(&mut lv, "env", Value::Object(lv_env));
    volume_provisioner.insert("dind-lv-monitor".into(), Value::Object(lv));
    let mut cleanup = Map::new();
    scheduling_into(
        &mut cleanup,
        &values.storage.provisioner_scheduling,
        values.arch,
    );
    component_placement_into(&mut cleanup, &values.storage.provisioner_placement);
    if let Some(days) = hygiene.retention_days {
        cleanup.insert("env".into(), json!({"RETENTION_DAYS": days.to_string()}));
    }
    if !cleanup.is_empty() {
        volume_provisioner.insert("dind-volume-cleanup".into(), Value::Object(cleanup));
    }
    volume_provisioner
}

/// `runner`: the agent's pod.
fn runner(values: &Values) -> Map<String, Value> {
    let mut runner = Map::new();
    scheduling_into(&mut runner, &values.runner.scheduling, values.arch);
    insert_nonempty(
        &mut runner,
        "resources",
        resources(&values.runner.resources),
    );
    let mut runner_env = values.runner.env.clone();
    if values.insecure {
        runner_env.insert("NODE_TLS_REJECT_UNAUTHORIZED".into(), "0".into());
    }
    insert_nonempty(&mut runner, "env", json!(runner_env));
    component_placement_into(&mut runner, &values.runner.placement);
    runner
}

/// `runtime`: the builds' pods (dind, engine), the chart's hooks and its
/// runtime-update CronJob, and the dind daemon config.
fn runtime(values: &Values) -> Map<String, Value> {
    let build_selector = selector(&values.runtime.scheduling, values.arch);
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
    let hygiene = &values.hygiene;
    insert_nonempty(
        &mut pvc,
        "reuseVolumeSelector",
        json!(hygiene.reuse_volume_selector),
    );
    if let Some(retention) = &hygiene.volume_retention {
        pvc.insert(
            "annotations".into(),
            json!({ runtime_spec::VOLUME_RETENTION_ANNOTATION: retention }),
        );
    }
    dind.insert("pvcs".into(), json!({ "dind": pvc }));
    build_placement_into(&mut dind, &values.runtime.placement);
    let mut engine = Map::new();
    insert_nonempty(&mut engine, "nodeSelector", build_selector);
    insert_nonempty(
        &mut engine,
        "tolerations",
        json!(values.runtime.scheduling.tolerations),
    );
    let mut engine_env = values.runtime.env.clone();
    if values.insecure {
        engine_env.insert("NODE_TLS_REJECT_UNAUTHORIZED".into(), "0".into());
    }
    insert_nonempty(&mut engine, "env", json!(engine_env));
    build_placement_into(&mut engine, &values.runtime.placement);
    // Helm merges maps: the user's limits are enough, the chart keeps the rest.
    insert_nonempty(
        &mut engine,
        "workflowLimits",
        json!(hygiene.workflow_limits),
    );

    let mut hook = Map::new();
    scheduling_into(&mut hook, &values.runner.scheduling, values.arch);
    let mut hook_env = platform_env(values);
    // The chart's own default for its hooks, which a given map would not drop
    // (Helm merges maps), kept explicit for readers of this file.
    hook_env.insert("HOME".into(), "/tmp".into());
    hook.insert("env".into(), json!(hook_env));
    let mut cronjob = Map::new();
    scheduling_into(&mut cronjob, &values.runner.scheduling, values.arch);
    insert_nonempty(&mut cronjob, "env", json!(platform_env(values)));
    let mut gencerts = Map::new();
    scheduling_into(&mut gencerts, &values.runner.scheduling, values.arch);
    insert_nonempty(&mut gencerts, "env", json!(platform_env(values)));

    let mut runtime = Map::new();
    runtime.insert("dind".into(), Value::Object(dind));
    runtime.insert("engine".into(), Value::Object(engine));
    if !values.runtime.sa_annotations.is_empty() {
        runtime.insert(
            "serviceAccount".into(),
            json!({"annotations": values.runtime.sa_annotations}),
        );
    }
    runtime.insert("patch".into(), json!({"hook": hook, "cronjob": cronjob}));
    runtime.insert("gencerts".into(), Value::Object(gencerts));
    runtime.insert("dindDaemon".into(), daemon_config(values));
    runtime
}

/// `appProxy`: off, or the ingress and pod of the app-proxy.
fn app_proxy(values: &Values) -> Map<String, Value> {
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
        super::gateway::helm_into(&mut app_proxy, &mut ingress, values);
        app_proxy.insert("ingress".into(), Value::Object(ingress));
        insert_nonempty(&mut app_proxy, "env", json!(values.app_proxy.env));
        insert_nonempty(
            &mut app_proxy,
            "resources",
            resources(&values.app_proxy.resources),
        );
        scheduling_into(&mut app_proxy, &values.runner.scheduling, values.arch);
        component_placement_into(&mut app_proxy, &values.app_proxy.placement);
        if !values.app_proxy.sa_annotations.is_empty() {
            app_proxy.insert(
                "serviceAccount".into(),
                json!({"annotations": values.app_proxy.sa_annotations}),
            );
        }
    }
    app_proxy
}

/// `monitor`: off, or the monitor's pod and the reach of its RBAC.
fn monitor(values: &Values) -> Map<String, Value> {
    let mut monitor = Map::new();
    monitor.insert("enabled".into(), json!(values.monitor.enabled));
    if values.monitor.enabled {
        monitor.insert(
            "rbac".into(),
            json!({"namespaced": values.monitor.namespaced}),
        );
        let mut env = values.monitor.env.clone();
        env.insert("HELM3".into(), values.monitor.helm_releases.to_string());
        if let Some(cluster_id) = &values.monitor.cluster_id {
            env.insert("CLUSTER_ID".into(), cluster_id.clone());
        }
        insert_nonempty(&mut monitor, "env", json!(env));
        insert_nonempty(
            &mut monitor,
            "resources",
            resources(&values.monitor.resources),
        );
        scheduling_into(&mut monitor, &values.runner.scheduling, values.arch);
        component_placement_into(&mut monitor, &values.monitor.placement);
        if !values.monitor.sa_annotations.is_empty() {
            monitor.insert(
                "serviceAccount".into(),
                json!({"annotations": values.monitor.sa_annotations}),
            );
        }
    }
    monitor
}

/// The notes after the storage's: a StorageClass the chart will not make,
/// and what a registry mirror must hold.
fn storage_and_mirror_notes(values: &Values) -> Vec<String> {
    let mut notes = Vec::new();
    if !values.storage.provisioned {
        notes.push(format!(
            "Builds use the existing StorageClass {} (provisioner {} is not installed).",
            values.storage.class_name,
            provisioner_name(&values.namespace)
        ));
    }
    if !values.image_pull_secrets.is_empty() {
        notes.extend(pull_secrets_note(&values.image_pull_secrets));
    }
    notes.extend(priority_class_note(values));
    if let Some(reg) = &values.docker_registry {
        notes.push(format!(
            "global.imageRegistry puts every image of the chart under {reg}, docker.io ones \
             included. The mirror must hold:"
        ));
        for p in mirrored_images(values) {
            notes.push(format!("  {reg}/{}:{}@{}", p.repository, p.tag, p.digest));
        }
    }
    notes
}

/// Why `global.imagePullSecrets` is not in the file, and what to do
/// instead. Chart 10.5.2 indents the list it renders from that key one level
/// too deep in every Deployment, so `helm install` refuses the whole release
/// (`did not find expected key`): giving it would make the file unusable.
/// Patching the chart's ServiceAccounts afterwards is no way out either: its
/// install hooks pull from the mirror before anyone could patch them.
fn pull_secrets_note(names: &[String]) -> Vec<String> {
    vec![
        format!(
            "ImagePullSecrets ({}) are not set as global.imagePullSecrets: chart {CHART_VERSION} \
             renders that key at the wrong indentation and helm refuses every Deployment.",
            names.join(", ")
        ),
        "With the chart, give the nodes the mirror's credentials instead (the kubelet's image \
         credential provider, or the container runtime's registry config)."
            .to_string(),
    ]
}

/// The chart has no priority class for its components: the ones the values
/// give are named as left out, so the file does not pass for the install.
fn priority_class_note(values: &Values) -> Option<String> {
    let given: Vec<String> = [
        ("Runner", &values.runner.placement),
        ("Monitor", &values.monitor.placement),
        ("AppProxy", &values.app_proxy.placement),
        (
            "Storage.VolumeProvisioner",
            &values.storage.provisioner_placement,
        ),
    ]
    .iter()
    .filter_map(|(key, p)| {
        p.priority_class_name
            .as_ref()
            .map(|name| format!("{key}.PriorityClassName ({name})"))
    })
    .collect();
    (!given.is_empty()).then(|| {
        format!(
            "Left out, the chart {CHART_VERSION} has no key for it: {}.",
            given.join(", ")
        )
    })
}

/// The comment lines above the values: how to install, what to fill in,
/// and the notes.
fn header(values: &Values, identity: &Identity, notes: &[String]) -> String {
    let mut text = format!(
        "# Values for the cf-runtime Helm chart {CHART_VERSION}, generated by cf-runner.\n\
         # Install: helm install cf-runtime oci://quay.io/codefresh/cf-runtime --version {CHART_VERSION} \
         -f <this file> --create-namespace --namespace {ns}\n",
        ns = values.namespace
    );
    let mut to_fill: Vec<String> = Vec::new();
    if values.token.is_none() {
        to_fill.push(
            "global.codefreshToken: your Codefresh API key (or global.codefreshTokenSecretKeyRef)"
                .into(),
        );
    }
    if identity.account_id.is_none() {
        to_fill.push("global.accountId: your Codefresh account id".into());
    }
    if identity.context.is_none() {
        to_fill.push(format!(
            "global.context: the kube context name, in place of {CONTEXT_PLACEHOLDER} \
             (it also names the agent and the runtime environment)"
        ));
    }
    if !to_fill.is_empty() {
        text.push_str("# Fill in before installing:\n");
        for item in &to_fill {
            text.push_str(&format!("#   - {item}\n"));
        }
    }
    for note in notes {
        text.push_str(&format!("# {note}\n"));
    }
    text
}
