//! The JSON Schema (draft 2020-12) of a values file, for editors and CI
//! linters. It is built from [`schema::KEYS`], the table the validator walks,
//! so a key added there shows up here with the same shape; what the table
//! does not hold (a description per key, the accepted words of a few keys)
//! lives beside it below, and tests keep both in step with the validator.
//! Pure: `cf-runner schema` prints what [`values_schema`] returns.

use serde_json::{json, Map, Value};

use super::schema::{self, Kind};

/// What each key means, in the words of the guide. Every key of
/// [`schema::KEYS`] has one (a test checks).
pub const DESCRIPTIONS: &[(&str, &str)] = &[
    ("CodefreshHost", "Codefresh platform URL, e.g. https://g.codefresh.io (the default)."),
    ("Token", "Codefresh API key. Better left out of files: pass --token or set CF_API_KEY."),
    ("insecure", "Skip TLS verification towards the platform (self-signed on-prem only)."),
    ("Insecure", "Skip TLS verification towards the platform (self-signed on-prem only)."),
    ("CaBundle", "PEM certificates (a TLS-inspecting proxy's or private CA) that cf-runner, every component and every build trust besides the public roots; give the file with --ca-bundle."),
    ("AgentToken", "Agent token issued earlier by the platform, to re-install an existing agent."),
    ("AgentId", "Name of the agent on the platform (default: <context>_<namespace>)."),
    ("RuntimeEnvironmentName", "Name of the runtime environment (default: <context>/<namespace>)."),
    ("SetDefaultRuntime", "Make the new runtime environment the account's default."),
    ("ExecDemoPipeline", "Create and run the demo pipeline after the install."),
    ("SkipClusterTest", "Skip the preflight checks."),
    ("SkipClusterIntegration", "Do not create the cluster integration on the platform."),
    ("AgentOnly", "Install the agent alone, with no runtime in its namespace; attach its runtimes with `cf-runner runtime attach` or Runtimes."),
    ("DockerDaemonAccess", "Let pipeline steps reach the docker daemon (default true)."),
    ("ConfigPath", "Path to the kubeconfig (default: $KUBECONFIG or ~/.kube/config)."),
    ("Context", "Kubernetes context to install into."),
    ("Namespace", "Namespace of the runner (default codefresh); a DNS-1123 label."),
    ("KubernetesHost", "API server URL the platform should record for the cluster."),
    ("ClusterId", "Cluster name the monitor reports to the platform."),
    ("OpenShift", "auto (default), true or false: on OpenShift, bind the runner and volume provisioner to the privileged SCC and fix no user ids; auto asks the cluster for security.openshift.io."),
    ("EnvVars", "Environment variables for every component and build (proxies go here)."),
    ("DockerRegistry", "Registry host (and path) that serves every image: a mirror of quay.io."),
    ("ImagePullSecrets", "Names of your docker-registry Secrets in the runner's namespace, for a mirror that needs credentials: every component's pods and every build pull with them."),
    ("Arch", "CPU architecture of the nodes that run the runner and builds."),
    ("NodeSelector", "Node selector of the runner and volume provisioner: a map or `k=v,k2=v2`."),
    ("Tolerations", "Tolerations of the runner and volume provisioner."),
    ("AdditionalEnvVars", "Environment variables of the runner only."),
    ("Image.Name", "Runner image name, to replace the pinned one."),
    ("Image.Tag", "Runner image tag (never latest); needs Image.Name."),
    ("Runner.resources", "Resource limits and requests of the runner."),
    ("Runner.PodAnnotations", "Annotations of the runner's pods."),
    ("Runner.Affinity", "Kubernetes affinity of the runner's pods (nodeAffinity, podAffinity, podAntiAffinity)."),
    ("Runner.PriorityClassName", "PriorityClass of the runner's pods, e.g. one that keeps them from being preempted."),
    ("Runner.ServiceAccount.Annotations", "Annotations of the runner's ServiceAccount (e.g. a cloud identity)."),
    ("Runner.SecurityContext", "Kubernetes pod securityContext of the runner's pods (Kubernetes field names), in place of cf-runner's default; {} for none."),
    ("Runner.ContainerSecurityContext", "Kubernetes securityContext of the runner's container (Kubernetes field names), in place of cf-runner's default; {} for none."),
    ("StorageClass", "An existing StorageClass for dind volumes (skips the volume provisioner unless named dind-local-volumes-runner…)."),
    ("Storage.Backend", "Where dind volumes live."),
    ("Storage.CreateStorageClass", "Create the StorageClass of the volume provisioner (default true)."),
    ("Storage.StorageClassName", "Name of the StorageClass for dind volumes."),
    ("Storage.Annotations", "Annotations of the StorageClass."),
    ("Storage.LocalVolumeParentDir", "Node directory that holds local dind volumes (local backend)."),
    ("Storage.AvailabilityZone", "Zone of the disks (ebs, ebs-csi and gcedisk backends; required there)."),
    ("Storage.VolumeType", "Disk type: gp2, gp3, io1, io2 for ebs; pd-ssd, pd-standard, pd-balanced for gcedisk."),
    ("Storage.FsType", "File system of the dind volumes."),
    ("Storage.Encrypted", "Encrypt EBS volumes (ebs backends)."),
    ("Storage.KmsKeyId", "KMS key of encrypted EBS volumes; needs Storage.Encrypted."),
    ("Storage.Iops", "Provisioned IOPS (gp3 3000–16000, io1 100–64000, io2 100–256000)."),
    ("Storage.Throughput", "Throughput in MiB/s of gp3 volumes (125–1000)."),
    ("Storage.AwsPodIdentity", "The volume provisioner takes its AWS rights from an EKS Pod Identity association of its ServiceAccount (you create it; `cf-runner info` prints the command). No keys, no IRSA role."),
    ("Storage.AwsAccessKeyId", "AWS access key of the volume provisioner (with AwsSecretAccessKey; leave both out for IRSA)."),
    ("Storage.AwsSecretAccessKey", "AWS secret key of the volume provisioner (with AwsAccessKeyId)."),
    ("Storage.GoogleServiceAccount", "Google service-account key JSON of the volume provisioner (gcedisk); use --set-file."),
    ("Storage.AwsAccessKeyIdSecretKeyRef.Name", "A Secret of yours holding the provisioner's AWS access key (instead of AwsAccessKeyId); cf-runner never writes or deletes it."),
    ("Storage.AwsAccessKeyIdSecretKeyRef.Key", "The key in that Secret."),
    ("Storage.AwsSecretAccessKeySecretKeyRef.Name", "A Secret of yours holding the provisioner's AWS secret key (instead of AwsSecretAccessKey); cf-runner never writes or deletes it."),
    ("Storage.AwsSecretAccessKeySecretKeyRef.Key", "The key in that Secret."),
    ("Storage.GoogleServiceAccountSecretKeyRef.Name", "A Secret of yours holding the provisioner's Google service-account key JSON (instead of GoogleServiceAccount); cf-runner never writes or deletes it."),
    ("Storage.GoogleServiceAccountSecretKeyRef.Key", "The key in that Secret (its file name in the provisioner)."),
    ("Storage.SkuName", "Azure disk SKU (azuredisk backend)."),
    ("Storage.CachingMode", "Azure disk caching mode (azuredisk backend)."),
    ("Storage.AzureLocation", "Azure location of the disks (azuredisk backend)."),
    ("Storage.AzureResourceGroup", "Azure resource group of the disks (azuredisk backend)."),
    ("Storage.VolumeProvisioner.Image", "Volume provisioner image, to replace the pinned one."),
    ("Storage.VolumeProvisioner.NodeSelector", "Node selector of the volume provisioner (default: NodeSelector)."),
    ("Storage.VolumeProvisioner.Tolerations", "Tolerations of the volume provisioner (default: Tolerations)."),
    ("Storage.VolumeProvisioner.resources", "Resource limits and requests of the volume provisioner."),
    ("Storage.VolumeProvisioner.PodAnnotations", "Annotations of the volume provisioner (and its volume cleaner)'s pods."),
    ("Storage.VolumeProvisioner.Affinity", "Kubernetes affinity of the volume provisioner (and its volume cleaner)'s pods (nodeAffinity, podAffinity, podAntiAffinity)."),
    ("Storage.VolumeProvisioner.PriorityClassName", "PriorityClass of the volume provisioner (and its volume cleaner)'s pods, e.g. one that keeps them from being preempted."),
    ("Storage.VolumeProvisioner.Replicas", "Number of volume provisioner pods (1–5, default 1); one leads, the others wait."),
    ("Storage.VolumeProvisioner.SecurityContext", "Kubernetes pod securityContext of the volume provisioner (and its volume cleaner)'s pods (Kubernetes field names), in place of cf-runner's default; {} for none."),
    ("Storage.VolumeProvisioner.ContainerSecurityContext", "Kubernetes securityContext of the volume provisioner (and its volume cleaner)'s container (Kubernetes field names), in place of cf-runner's default; {} for none."),
    ("Storage.VolumeProvisioner.ServiceAccount.Annotations", "Annotations of the volume provisioner's ServiceAccount (IRSA, workload identity)."),
    ("Storage.VolumeProvisioner.MountAzureJson", "Mount the node's /etc/kubernetes/azure.json into the provisioner (azuredisk)."),
    ("Storage.VolumeProvisioner.CreateDindVolDirResouces", "Accepted for venonactl files; has no effect."),
    ("Storage.LocalVolumeMonitor.Image", "Local volume monitor image, to replace the pinned one."),
    ("Storage.LocalVolumeMonitor.resources", "Resource limits and requests of the local volume monitor."),
    ("Storage.LocalVolumeMonitor.KbUsageThreshold", "Disk usage, in percent, above which the local volume monitor deletes the oldest unused volumes (default 80)."),
    ("Storage.LocalVolumeMonitor.InodeUsageThreshold", "Inode usage, in percent, above which the local volume monitor deletes volumes (default 80)."),
    ("Storage.LocalVolumeMonitor.PodAnnotations", "Annotations of the local volume monitor's pods."),
    ("Storage.LocalVolumeMonitor.SecurityContext", "Kubernetes pod securityContext of the local volume monitor's pods (Kubernetes field names), in place of cf-runner's default; {} for none."),
    ("Storage.LocalVolumeMonitor.ContainerSecurityContext", "Kubernetes securityContext of the local volume monitor's container (Kubernetes field names), in place of cf-runner's default; {} for none."),
    ("Storage.VolumeCleaner.Image", "Volume cleaner image, to replace the pinned one."),
    ("Storage.VolumeCleaner.RetentionDays", "Days a cloud dind volume may stay unused before the cleaner deletes it (default 4)."),
    ("Storage.VolumeCleaner.Schedule", "When the cloud volume cleaner runs, as a cron schedule (default */10 * * * *)."),
    ("Storage.VolumeCleaner.Suspend", "Pause the cloud volume cleaner's CronJob."),
    ("Runtime.NodeSelector", "Node selector of build (engine and dind) pods: a map or `k=v,k2=v2`."),
    ("Runtime.tolerations", "Tolerations of build (engine and dind) pods."),
    ("Runtime.ServiceAccount.Annotations", "Annotations of the engine's ServiceAccount."),
    ("Runtime.AdditionalEnvVars", "Environment variables of build pods only."),
    ("Runtime.resources", "Resource limits and requests of the dind pod."),
    ("Runtime.PodAnnotations", "Annotations of every build's engine and dind pod, e.g. karpenter.sh/do-not-disrupt: \"true\"."),
    ("Runtime.PodLabels", "Extra labels of every build's engine and dind pod."),
    ("Runtime.Affinity", "Kubernetes affinity of every build's engine and dind pod (nodeAffinity, podAffinity, podAntiAffinity)."),
    ("Runtime.SchedulerName", "Scheduler of every build's engine and dind pod (default: the cluster's default scheduler)."),
    ("Runtime.userVolumeMounts", "Extra volume mounts of the dind container, by name (Kubernetes volumeMount specs)."),
    ("Runtime.userVolumes", "Extra volumes of the dind pod, by name (Kubernetes volume specs)."),
    ("Runtime.VolumeSize", "Size of each dind volume, at least 1Gi (default 16Gi)."),
    ("Runtime.Mtu", "MTU of the docker daemon's network (576–9001)."),
    ("Runtime.RegistryMirrors", "Registry mirror URLs of the docker daemon."),
    ("Runtime.InsecureRegistries", "Registries (host[:port] or CIDR) the docker daemon reaches without TLS."),
    ("Runtime.Bip", "Address and prefix of dind's docker bridge (`bip` of daemon.json), e.g. 172.30.0.1/16, when the default overlaps your network."),
    ("Runtime.VolumeRetention", "How long the cleaner keeps each dind volume unused, as the codefresh.io/volume-retention annotation of its claim, e.g. 7d."),
    ("Runtime.ReuseVolumeSelector", "Which builds may reuse a dind volume: build labels, starting with codefresh-app,io.codefresh.accountName (add pipeline_id for a volume per pipeline)."),
    ("Runtime.WorkflowLimits", "The engine's workflow limits by name (e.g. MAXIMUM_ALLOWED_WORKFLOW_AGE_BEFORE_TERMINATION: 86400), over the chart's defaults."),
    ("Runtime.ReuseVolumeSortOrder", "The build label reusable dind volumes are sorted by (default pipeline_id)."),
    ("Runtime.Dind.Image", "Dind image of every build, pinned with a tag (and digest), to replace the pinned one."),
    ("Runtime.Dind.TerminationGracePeriodSeconds", "Seconds a build's dind pod gets to stop (default 30)."),
    ("Runtime.Engine.Image", "Engine image of every build, pinned with a tag (and digest), to replace the pinned one."),
    ("Runtime.Engine.resources", "Resource limits and requests of every build's engine pod, over the chart's default."),
    ("Runtime.Engine.TerminationGracePeriodSeconds", "Seconds a build's engine pod gets to stop (default 180)."),
    ("Runtime.Engine.RuntimeImages", "Step images the engine starts, by name (e.g. GIT_CLONE_IMAGE), to replace the pinned ones."),
    ("Runtime.Engine.UserEnvVars", "Env entries ({name, value} or {name, valueFrom}) every build's engine passes to pipelines; credentials only by valueFrom."),
    ("Runtime.Ballast.Dind.Enabled", "Keep room for dind pods warm with lowest-priority placeholder pods that builds preempt (warm capacity)."),
    ("Runtime.Ballast.Dind.Replicas", "How many dind placeholder pods (1–100, default 1)."),
    ("Runtime.Ballast.Dind.resources", "Resources each dind placeholder holds (default: the dind pod's)."),
    ("Runtime.Ballast.Dind.PodAnnotations", "Annotations of the dind placeholder pods."),
    ("Runtime.Ballast.Engine.Enabled", "Keep room for engine pods warm with lowest-priority placeholder pods that builds preempt."),
    ("Runtime.Ballast.Engine.Replicas", "How many engine placeholder pods (1–100, default 1)."),
    ("Runtime.Ballast.Engine.resources", "Resources each engine placeholder holds (default: the engine pod's)."),
    ("Runtime.Ballast.Engine.PodAnnotations", "Annotations of the engine placeholder pods."),
    ("Runtime.Dind.SecurityContext", "Kubernetes pod securityContext of the builds' dind's pods (Kubernetes field names), in place of cf-runner's default; {} for none."),
    ("Runtime.Dind.ContainerSecurityContext", "Kubernetes securityContext of the builds' dind's container (Kubernetes field names), in place of cf-runner's default; {} for none."),
    ("Runtime.Dind.Rootless", "Run the builds' docker daemon as a user (rootless dind image, user 1000), as the chart's values-rootless.yaml does."),
    ("Runtime.EngineAppName", "Accepted for venonactl files; has no effect."),
    ("ExtraResources", "Objects of yours installed, upgraded and removed with the runner, in its namespace: ConfigMap, ServiceAccount, Service, Role, RoleBinding, Deployment, DaemonSet, CronJob or Ingress (no Secret, nothing cluster-wide)."),
    ("Runtimes", "More runtimes the same agent serves, each in its own namespace (and maybe cluster), attached after the agent is installed (docs/guide/runtimes.md)."),
    ("Monitor.Enabled", "Install the cluster monitor."),
    ("Monitor.Image.Name", "Monitor image name, to replace the pinned one."),
    ("Monitor.Image.Tag", "Monitor image tag (never latest); needs Monitor.Image.Name."),
    ("Monitor.resources", "Resource limits and requests of the monitor."),
    ("Monitor.PodAnnotations", "Annotations of the monitor's pods."),
    ("Monitor.Affinity", "Kubernetes affinity of the monitor's pods (nodeAffinity, podAffinity, podAntiAffinity)."),
    ("Monitor.PriorityClassName", "PriorityClass of the monitor's pods, e.g. one that keeps them from being preempted."),
    ("Monitor.SecurityContext", "Kubernetes pod securityContext of the monitor's pods (Kubernetes field names), in place of cf-runner's default; {} for none."),
    ("Monitor.ContainerSecurityContext", "Kubernetes securityContext of the monitor's container (Kubernetes field names), in place of cf-runner's default; {} for none."),
    ("Monitor.AdditionalEnvVars", "Environment variables of the monitor only."),
    ("Monitor.ServiceAccount.Annotations", "Annotations of the monitor's ServiceAccount."),
    ("Monitor.UseNamespaceWithRole", "Limit the monitor to the runner's namespace (default true)."),
    ("Monitor.Helm3", "Turn on the monitor's Helm-release view (HELM3) and the Secret read it needs (default false)."),
    ("Monitor.RbacEnabled", "Accepted for venonactl files; has no effect."),
    ("AppProxy.Enabled", "Install the app-proxy (on by default when AppProxy.Ingress.Host is set)."),
    ("AppProxy.Image.Name", "App-proxy image name, to replace the pinned one."),
    ("AppProxy.Image.Tag", "App-proxy image tag (never latest); needs AppProxy.Image.Name."),
    ("AppProxy.resources", "Resource limits and requests of the app-proxy."),
    ("AppProxy.PodAnnotations", "Annotations of the app-proxy's pods."),
    ("AppProxy.Affinity", "Kubernetes affinity of the app-proxy's pods (nodeAffinity, podAffinity, podAntiAffinity)."),
    ("AppProxy.PriorityClassName", "PriorityClass of the app-proxy's pods, e.g. one that keeps them from being preempted."),
    ("AppProxy.Replicas", "Number of app-proxy pods (1–5, default 1)."),
    ("AppProxy.SecurityContext", "Kubernetes pod securityContext of the app-proxy's pods (Kubernetes field names), in place of cf-runner's default; {} for none."),
    ("AppProxy.ContainerSecurityContext", "Kubernetes securityContext of the app-proxy's container (Kubernetes field names), in place of cf-runner's default; {} for none."),
    ("AppProxy.AdditionalEnvVars", "Environment variables of the app-proxy only."),
    ("AppProxy.ServiceAccount.Annotations", "Annotations of the app-proxy's ServiceAccount."),
    ("AppProxy.Ingress.Host", "Host name of the app-proxy Ingress (no scheme, port or path)."),
    ("AppProxy.Ingress.IngressClass", "IngressClass of the app-proxy Ingress."),
    ("AppProxy.Ingress.TLSSecret", "kubernetes.io/tls Secret of the app-proxy Ingress."),
    ("AppProxy.Ingress.PathPrefix", "URL path of the app-proxy under the host (default /)."),
    ("AppProxy.Ingress.Annotations", "Annotations of the app-proxy Ingress."),
    ("Metrics.ServiceMonitors", "Install the prometheus-operator ServiceMonitors: dind, the app-proxy and the event exporter (where installed). Needs the monitoring.coreos.com CRDs."),
    ("Metrics.PodMonitors", "Install the prometheus-operator PodMonitors: the engine, the runner and the volume provisioner (where installed). Needs the monitoring.coreos.com CRDs."),
    ("Metrics.Dind", "ServiceMonitor of every build's dind (ports 9100, 9323); default Metrics.ServiceMonitors."),
    ("Metrics.AppProxy", "ServiceMonitor of the app-proxy (ports 9100, 9464); default Metrics.ServiceMonitors."),
    ("Metrics.EventExporter", "ServiceMonitor of the event exporter (port 9102); default Metrics.ServiceMonitors."),
    ("Metrics.Engine", "PodMonitor of every build's engine (ports 9100, 9464); default Metrics.PodMonitors."),
    ("Metrics.Runner", "PodMonitor of the runner (port 8080); default Metrics.PodMonitors."),
    ("Metrics.VolumeProvisioner", "PodMonitor of the volume provisioner (port 8080); default Metrics.PodMonitors."),
    ("Metrics.Labels", "Labels of every monitor, for your Prometheus's serviceMonitorSelector and podMonitorSelector, e.g. release: prometheus."),
    ("EventExporter.Enabled", "Install the Kubernetes event exporter (events as Prometheus metrics on port 9102)."),
    ("EventExporter.Image", "Event exporter image, to replace the pinned one."),
    ("EventExporter.resources", "Resource limits and requests of the event exporter."),
    ("EventExporter.NodeSelector", "Node selector of the event exporter, over the global one and kubernetes.io/arch: amd64 (its image's)."),
    ("EventExporter.tolerations", "Tolerations of the event exporter, added to the global ones."),
    ("EventExporter.PodAnnotations", "Annotations of the event exporter's pod."),
    ("EventExporter.Affinity", "Kubernetes affinity of the event exporter's pod."),
    ("EventExporter.AdditionalEnvVars", "Environment variables of the event exporter."),
    ("EventExporter.ServiceAccount.Annotations", "Annotations of the event exporter's ServiceAccount."),
    ("AppProxy.Ingress.Enabled", "Render the app-proxy Ingress (default true); off, expose the app-proxy Service yourself or through AppProxy.HttpRoute."),
    ("AppProxy.HttpRoute.Enabled", "Render a Gateway API HTTPRoute to the app-proxy (on by default when AppProxy.HttpRoute.ParentRefs is set); the cluster must serve gateway.networking.k8s.io/v1."),
    ("AppProxy.HttpRoute.ParentRefs", "The Gateways (or their listeners) the HTTPRoute attaches to: name, and namespace, sectionName, port when needed."),
    ("AppProxy.HttpRoute.Hostnames", "Host names the HTTPRoute serves; the first exact one is the app-proxy's address unless AppProxy.Ingress.Host is given."),
    ("AppProxy.HttpRoute.PathPrefix", "URL path of the app-proxy under the host; the same as AppProxy.Ingress.PathPrefix (give one)."),
    ("AppProxy.HttpRoute.Annotations", "Annotations of the HTTPRoute."),
    ("AppProxy.HttpRoute.Labels", "Extra labels of the HTTPRoute."),
    ("InCluster", "Accepted for venonactl files; has no effect."),
    ("RuntimeInCluster", "Accepted for venonactl files; has no effect."),
    ("RuntimeServiceAccount", "Accepted for venonactl files; has no effect."),
    ("GitProviderURL", "Accepted for venonactl files; has no effect."),
    ("Logging", "Accepted for venonactl files; has no effect."),
    ("NewRelicLicense", "Accepted for venonactl files; has no effect."),
];

/// The words a few keys accept. The validator checks the same lists; a test
/// feeds each word (and one outside) through it, so the two cannot drift.
pub const ENUMS: &[(&str, &[&str])] = &[
    ("Arch", &["amd64", "arm64", "aarch64"]),
    (
        "Storage.Backend",
        &["local", "ebs", "ebs-csi", "gcedisk", "azuredisk"],
    ),
    ("Storage.FsType", &["ext4", "xfs"]),
    (
        "Storage.VolumeType",
        &[
            "gp2",
            "gp3",
            "io1",
            "io2",
            "pd-ssd",
            "pd-standard",
            "pd-balanced",
        ],
    ),
    (
        "Storage.SkuName",
        &[
            "Premium_LRS",
            "StandardSSD_LRS",
            "Standard_LRS",
            "UltraSSD_LRS",
            "Premium_ZRS",
            "StandardSSD_ZRS",
        ],
    ),
    ("Storage.CachingMode", &["None", "ReadOnly", "ReadWrite"]),
];

/// Volume types by backend: the schema narrows `Storage.VolumeType` to the
/// backend's own list.
const VOLUME_TYPES: &[(&[&str], &[&str])] = &[
    (&["ebs", "ebs-csi"], &["gp2", "gp3", "io1", "io2"]),
    (&["gcedisk"], &["pd-ssd", "pd-standard", "pd-balanced"]),
];

/// The description of a key, if the table has one.
pub fn description(path: &str) -> Option<&'static str> {
    DESCRIPTIONS
        .iter()
        .find(|(k, _)| *k == path)
        .map(|(_, d)| *d)
}

/// The words `path` accepts, if it is one of the keys with a fixed list.
pub fn enum_of(path: &str) -> Option<&'static [&'static str]> {
    ENUMS.iter().find(|(k, _)| *k == path).map(|(_, e)| *e)
}

/// The whole schema of a values file.
pub fn values_schema() -> Value {
    let mut root = section_schema("");
    let root_map = root.as_object_mut().expect("a section is an object");
    // The top level is never null: an empty file is `{}`.
    root_map.insert("type".into(), json!("object"));
    let mut out = Map::new();
    out.insert(
        "$schema".into(),
        json!("https://json-schema.org/draft/2020-12/schema"),
    );
    out.insert("title".into(), json!("cf-runner values file"));
    out.insert(
        "description".into(),
        json!(
            "Values for `cf-runner init --values`: the venonactl keys, accepted unchanged, \
             and the few cf-runner adds. Generated by `cf-runner schema` from the key table \
             the validator uses."
        ),
    );
    out.append(root_map);
    Value::Object(out)
}

/// The keys directly under `section` (`""` for the top level), in table
/// order, each with whether it is a leaf.
fn children(section: &str) -> Vec<(&'static str, String)> {
    let mut out: Vec<(&'static str, String)> = Vec::new();
    for (key, _) in schema::KEYS {
        let rest = if section.is_empty() {
            Some(*key)
        } else {
            key.strip_prefix(section).and_then(|r| r.strip_prefix('.'))
        };
        let Some(rest) = rest else { continue };
        let name = rest.split('.').next().unwrap_or(rest);
        let path = if section.is_empty() {
            name.to_string()
        } else {
            format!("{section}.{name}")
        };
        if !out.iter().any(|(_, p)| *p == path) {
            out.push((name, path));
        }
    }
    out
}

fn section_schema(section: &str) -> Value {
    let mut properties = Map::new();
    for (name, path) in children(section) {
        let node = match schema::kind_of(&path) {
            Some(kind) => leaf_schema(&path, kind),
            None => section_schema(&path),
        };
        properties.insert(name.to_string(), node);
    }
    let mut node = json!({
        "type": ["object", "null"],
        "properties": properties,
        "additionalProperties": false,
    });
    if section == "Storage" {
        node["allOf"] = volume_type_by_backend();
    }
    node
}

fn volume_type_by_backend() -> Value {
    VOLUME_TYPES
        .iter()
        .map(|(backends, types)| {
            json!({
                "if": {
                    "properties": {"Backend": {"enum": backends}},
                    "required": ["Backend"],
                },
                "then": {
                    "properties": {"VolumeType": {"enum": types_or_unset(types)}},
                },
            })
        })
        .collect()
}

/// An enum that also takes the ways of leaving a key unset (null, "").
fn types_or_unset(words: &[&str]) -> Vec<Value> {
    let mut out: Vec<Value> = words.iter().map(|w| json!(w)).collect();
    out.push(json!(""));
    out.push(Value::Null);
    out
}

fn scalar_or_null() -> Value {
    json!({"type": ["string", "number", "boolean", "null"]})
}

/// A Kubernetes quantity as the validator reads it (`500m`, `2Gi`, `1e3`).
const QUANTITY_PATTERN: &str =
    r"^([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+|Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E)?$";

/// `k=v,k2=v2`: every non-blank piece between commas has an `=`.
const NODE_SELECTOR_PATTERN: &str = r"^(\s*|[^,]*=[^,]*)(,(\s*|[^,]*=[^,]*))*$";

fn leaf_schema(path: &str, kind: Kind) -> Value {
    let mut node = match kind {
        Kind::Text => match enum_of(path) {
            Some(words) => json!({"enum": types_or_unset(words)}),
            None => scalar_or_null(),
        },
        Kind::Bool => json!({
            "anyOf": [
                {"type": ["boolean", "null"]},
                {"enum": ["true", "false", ""]},
            ],
        }),
        Kind::Int => json!({
            "anyOf": [
                {
                    "type": ["integer", "null"],
                    "minimum": i64::MIN,
                    "maximum": i64::MAX,
                },
                {"type": "string", "pattern": r"^[+-]?[0-9]{1,18}$"},
            ],
        }),
        Kind::TextMap => json!({
            "type": ["object", "null"],
            "additionalProperties": scalar_or_null(),
        }),
        Kind::NodeSelector => json!({
            "anyOf": [
                {"type": ["object", "null"], "additionalProperties": scalar_or_null()},
                {"type": "string", "pattern": NODE_SELECTOR_PATTERN},
            ],
        }),
        Kind::Tolerations => json!({
            "type": ["array", "null"],
            "items": toleration_schema(),
        }),
        Kind::Resources => json!({
            "type": ["object", "null"],
            "properties": {
                "limits": resource_list_schema(),
                "requests": resource_list_schema(),
            },
            "additionalProperties": false,
        }),
        Kind::TextList => json!({"type": ["array", "string", "null"]}),
        Kind::Opaque if path == "Runtimes" => runtimes_schema(),
        Kind::Opaque if path == "Runtime.Engine.UserEnvVars" => {
            super::engine_tuning::user_env_vars_schema()
        }
        Kind::Opaque if path == "Runtime.Engine.RuntimeImages" => json!({
            "type": ["object", "null"],
            "propertyNames": {"enum": super::engine_tuning::RUNTIME_IMAGE_NAMES},
            "additionalProperties": {"type": "string"},
        }),
        Kind::Opaque if path == "AppProxy.HttpRoute.ParentRefs" => {
            super::gateway::parent_refs_schema()
        }
        Kind::Opaque if path == super::extra_resources::KEY => json!({
            "type": ["array", "null"],
            "items": {"type": "object", "required": ["apiVersion", "kind", "metadata"]},
        }),
        Kind::Opaque if path == "Runtime.WorkflowLimits" => json!({
            "type": ["object", "null"],
            "propertyNames": {"enum": super::hygiene::WORKFLOW_LIMIT_NAMES},
            "additionalProperties": {"type": ["integer", "string"]},
        }),
        // A pod's affinity: its three kinds, each a map the API server checks.
        Kind::Opaque if path.ends_with(".Affinity") => json!({
            "type": ["object", "null"],
            "properties": {
                "nodeAffinity": {"type": "object"},
                "podAffinity": {"type": "object"},
                "podAntiAffinity": {"type": "object"},
            },
            "additionalProperties": false,
        }),
        Kind::Opaque if path.ends_with("SecurityContext") => {
            super::security::json_schema(!path.ends_with(".ContainerSecurityContext"))
        }
        Kind::Opaque => json!({"type": ["object", "null"]}),
        Kind::Ignored => json!({"deprecated": true}),
    };
    if let Some(text) = description(path) {
        node["description"] = json!(text);
    }
    if schema::SECRET_KEYS.contains(&path) {
        node["writeOnly"] = json!(true);
    }
    node
}

/// `Runtimes`: a list of runtime entries (`values::runtimes::ENTRY_KEYS`),
/// whose settings take the shapes of `init`'s keys.
fn runtimes_schema() -> Value {
    let text = scalar_or_null();
    json!({
        "type": ["array", "null"],
        "items": {
            "type": "object",
            "required": ["Namespace"],
            "properties": {
                "Namespace": {"type": "string", "description": "Namespace of the runtime (builds run there); it must exist."},
                "Context": {"type": "string", "description": "Kubeconfig context of the runtime's cluster (default: the agent's)."},
                "Name": {"type": "string", "description": "Runtime environment name on the platform (default: <context>/<namespace>); registered when missing."},
                "KubeHost": {"type": "string", "description": "API server URL the agent reaches the runtime's cluster at."},
                "ConfigPath": {"type": "string", "description": "Kubeconfig holding Context (default: the agent's)."},
                "NodeSelector": leaf_schema("Runtime.NodeSelector", Kind::NodeSelector),
                "Tolerations": leaf_schema("Runtime.tolerations", Kind::Tolerations),
                "StorageClass": text,
                "Storage": section_schema("Storage"),
            },
            "additionalProperties": false,
        },
    })
}

fn resource_list_schema() -> Value {
    json!({
        "type": ["object", "null"],
        "propertyNames": {"pattern": "^(cpu|memory|ephemeral-storage|.+/.+)$"},
        "additionalProperties": {
            "anyOf": [
                {"type": "string", "pattern": QUANTITY_PATTERN},
                {"type": "number", "minimum": 0},
                {"type": "null"},
            ],
        },
    })
}

fn toleration_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "key": scalar_or_null(),
            "operator": {"enum": ["Equal", "Exists", "", null]},
            "value": scalar_or_null(),
            "effect": {"enum": ["NoSchedule", "PreferNoSchedule", "NoExecute", "", null]},
            // Whole seconds, as a number or its text (`"60"`): cf-runner
            // writes the number either way, as the API server wants.
            "tolerationSeconds": {
                "anyOf": [
                    {"type": ["integer", "null"]},
                    {"type": "string", "pattern": r"^\s*[+-]?[0-9]{1,18}\s*$"},
                ],
            },
        },
        "additionalProperties": false,
        // A key is needed unless the operator is Exists; Exists takes no value.
        "if": {
            "properties": {"operator": {"const": "Exists"}},
            "required": ["operator"],
        },
        "then": {
            "properties": {"value": {"enum": ["", null]}},
        },
        "else": {
            "properties": {"key": {"not": {"enum": ["", null]}}},
            "required": ["key"],
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_of_the_table_has_a_description_and_no_description_is_stale() {
        for (key, _) in schema::KEYS {
            assert!(description(key).is_some(), "{key} has no description");
        }
        for (key, _) in DESCRIPTIONS {
            assert!(schema::kind_of(key).is_some(), "{key} is not in KEYS");
        }
        for (key, _) in ENUMS {
            assert_eq!(schema::kind_of(key), Some(Kind::Text), "{key}");
        }
    }

    /// Walks the schema's properties down to the leaves: exactly the table's keys.
    #[test]
    fn the_schema_has_exactly_the_keys_of_the_table() {
        fn leaves(node: &Value, prefix: &str, out: &mut Vec<String>) {
            let Some(props) = node.get("properties").and_then(Value::as_object) else {
                return;
            };
            for (name, child) in props {
                let path = if prefix.is_empty() {
                    name.clone()
                } else {
                    format!("{prefix}.{name}")
                };
                if child.get("description").is_some() {
                    out.push(path);
                } else {
                    leaves(child, &path, out);
                }
            }
        }
        let mut found = Vec::new();
        leaves(&values_schema(), "", &mut found);
        found.sort();
        let mut expected: Vec<String> = schema::KEYS.iter().map(|(k, _)| k.to_string()).collect();
        expected.sort();
        assert_eq!(found, expected);
    }
}
