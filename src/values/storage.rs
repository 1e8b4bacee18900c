//! `Storage.*`: the StorageClass the builds' volumes come from, the backend
//! that provisions them (one function per backend), the provisioner's
//! credentials and its pods. Called once by `values::resolve`; the reads
//! and the problems come in the order they always did, so messages do not
//! move.

use serde_json::Value;

use super::model::reader::Reader;
use super::secret_key_ref;
use super::{
    cloud, is_dns_label, is_dns_subdomain, Backend, Problem, ProvisionerCredentials, Scheduling,
    Secret, Storage, DEFAULT_LOCAL_VOLUME_PARENT_DIR,
};

/// The backends `Storage.Backend` may name.
const BACKENDS: &[&str] = &["local", "ebs", "ebs-csi", "gcedisk", "azuredisk"];

/// `Storage.*` → [`Storage`]; problems go to the reader.
pub(super) fn resolve(r: &mut Reader, namespace: &str, global: &Scheduling) -> Storage {
    let (class_name, provisioned) = storage_class(r, namespace);
    let backend_name = r.text("Storage.Backend").unwrap_or_else(|| "local".into());
    let zone_value = r.text("Storage.AvailabilityZone");
    let fs_type = r.one_of("Storage.FsType", "ext4", &["ext4", "xfs"]);
    let backend = match backend_name.as_str() {
        "local" => local(r),
        "ebs" | "ebs-csi" => ebs(r, &backend_name, &zone_value, fs_type),
        "gcedisk" => gcedisk(r, &backend_name, &zone_value, fs_type),
        "azuredisk" => azuredisk(r, fs_type),
        other => unknown(r, other),
    };
    foreign_keys(r, &backend_name);
    let credentials = credentials(r);
    let provisioner_scheduling = provisioner_scheduling(r, global);

    Storage {
        class_name,
        provisioned,
        backend,
        annotations: r.annotation_map("Storage.Annotations"),
        credentials,
        provisioner_scheduling,
        provisioner_resources: r.resources("Storage.VolumeProvisioner.resources"),
        provisioner_sa_annotations: r
            .service_account_annotations("Storage.VolumeProvisioner.ServiceAccount.Annotations"),
        provisioner_placement: super::placement::resolve(r, "Storage.VolumeProvisioner"),
        mount_azure_json: r.boolean("Storage.VolumeProvisioner.MountAzureJson", false),
        provisioner_image: r.image("Storage.VolumeProvisioner.Image"),
        lv_monitor_image: r.image("Storage.LocalVolumeMonitor.Image"),
        lv_monitor_resources: r.resources("Storage.LocalVolumeMonitor.resources"),
        cleaner_image: r.image("Storage.VolumeCleaner.Image"),
    }
}

/// The StorageClass's name, and whether cf-runner makes it (with its own
/// provisioner) or the user's class is used as it is.
fn storage_class(r: &mut Reader, namespace: &str) -> (String, bool) {
    let default_class = format!("dind-local-volumes-runner-{namespace}");
    let custom_class = r.text("StorageClass");
    let named_class = r.text("Storage.StorageClassName");
    if let Some(name) = custom_class.as_ref().or(named_class.as_ref()) {
        if !is_dns_subdomain(name) {
            let key = if custom_class.is_some() {
                "StorageClass"
            } else {
                "Storage.StorageClassName"
            };
            r.problems.push(Problem::new(
                key,
                Some(&Value::String(name.clone())),
                "is not a valid StorageClass name",
                "use lowercase letters, digits, `-` and `.`",
            ));
        }
    }
    // A class of our own naming scheme still gets our provisioner (as venonactl did).
    let provisioned = match &custom_class {
        None => r.boolean("Storage.CreateStorageClass", true),
        Some(name) => name.starts_with("dind-local-volumes-runner"),
    };
    let class_name = custom_class.or(named_class).unwrap_or(default_class);
    (class_name, provisioned)
}

/// `Storage.AvailabilityZone`, which a disk backend needs: a disk lives in one zone.
fn zone(r: &mut Reader, zone: &Option<String>, backend_name: &str, example: &str) -> String {
    match zone {
        Some(z) => {
            if !is_dns_label(z) {
                r.problems.push(Problem::new(
                    "Storage.AvailabilityZone",
                    Some(&Value::String(z.clone())),
                    "is not a zone name",
                    format!("use the zone of the nodes, e.g. {example}"),
                ));
            }
            z.clone()
        }
        None => {
            r.problems.push(Problem::new(
                "Storage.AvailabilityZone",
                None,
                format!("is required for the {backend_name} backend (a disk lives in one zone)"),
                format!(
                    "set it to the zone of your build nodes, e.g. --set-value Storage.AvailabilityZone={example}"
                ),
            ));
            String::new()
        }
    }
}

/// `local`: volumes in a folder of the node, cleaned by the lv-monitor.
fn local(r: &mut Reader) -> Backend {
    let dir = r
        .text("Storage.LocalVolumeParentDir")
        .unwrap_or_else(|| DEFAULT_LOCAL_VOLUME_PARENT_DIR.into());
    if !dir.starts_with('/') || dir == "/" || dir.contains("..") {
        r.problems.push(Problem::new(
            "Storage.LocalVolumeParentDir",
            Some(&Value::String(dir.clone())),
            "is not an absolute directory below /",
            "use an absolute path such as /var/lib/codefresh/dind-volumes",
        ));
    } else if let Some(system) = system_dir(&dir) {
        r.problems.push(Problem::new(
            "Storage.LocalVolumeParentDir",
            Some(&Value::String(dir.clone())),
            format!(
                "is {system}, a system folder of the node: the volume monitor mounts it read-write and deletes in it"
            ),
            "use a folder of its own, such as /var/lib/codefresh/dind-volumes",
        ));
    }
    Backend::Local {
        volume_parent_dir: dir,
    }
}

/// `ebs` and `ebs-csi`: AWS EBS volumes; IOPS and throughput checked
/// against what the volume type allows.
fn ebs(
    r: &mut Reader,
    backend_name: &str,
    zone_value: &Option<String>,
    fs_type: String,
) -> Backend {
    let availability_zone = zone(r, zone_value, backend_name, "us-east-1a");
    let volume_type = r.one_of("Storage.VolumeType", "gp2", &["gp2", "gp3", "io1", "io2"]);
    let iops = r.int("Storage.Iops");
    let throughput = r.int("Storage.Throughput");
    check_ebs_performance(r, &volume_type, iops, throughput);
    let encrypted = r.boolean("Storage.Encrypted", false);
    let kms_key_id = r.text("Storage.KmsKeyId");
    if let Some(key) = &kms_key_id {
        if let Err(misfit) = cloud::kms_key(key) {
            r.problems.push(Problem::new(
                "Storage.KmsKeyId",
                Some(&Value::String(key.clone())),
                misfit.why,
                misfit.fix,
            ));
        }
    }
    if kms_key_id.is_some() && !encrypted {
        r.problems.push(Problem::new(
            "Storage.KmsKeyId",
            None,
            "is set, but Storage.Encrypted is not true, so the key would be ignored",
            "set Storage.Encrypted=true, or remove Storage.KmsKeyId",
        ));
    }
    Backend::Ebs {
        csi: backend_name == "ebs-csi",
        availability_zone,
        volume_type,
        fs_type,
        encrypted,
        kms_key_id,
        iops,
        throughput,
    }
}

/// IOPS and throughput only where the volume type takes them, and within
/// the range it allows.
fn check_ebs_performance(
    r: &mut Reader,
    volume_type: &str,
    iops: Option<i64>,
    throughput: Option<i64>,
) {
    if let Some(iops) = iops {
        let range = match volume_type {
            "gp3" => Some((3000, 16000)),
            "io1" => Some((100, 64000)),
            "io2" => Some((100, 256000)),
            _ => None,
        };
        match range {
            None => r.problems.push(Problem::new(
                "Storage.Iops",
                Some(&Value::from(iops)),
                format!("is set, but VolumeType {volume_type} has no provisioned IOPS"),
                "set Storage.VolumeType=gp3 (or io1/io2), or remove Storage.Iops",
            )),
            Some((lo, hi)) if iops < lo || iops > hi => r.problems.push(Problem::new(
                "Storage.Iops",
                Some(&Value::from(iops)),
                format!("is outside the range {lo}–{hi} that {volume_type} allows"),
                format!("pick a value from {lo} to {hi}"),
            )),
            _ => {}
        }
    }
    if let Some(tp) = throughput {
        if volume_type != "gp3" {
            r.problems.push(Problem::new(
                "Storage.Throughput",
                Some(&Value::from(tp)),
                format!(
                    "is set, but only gp3 volumes take a throughput (VolumeType is {volume_type})"
                ),
                "set Storage.VolumeType=gp3, or remove Storage.Throughput",
            ));
        } else if !(125..=1000).contains(&tp) {
            r.problems.push(Problem::new(
                "Storage.Throughput",
                Some(&Value::from(tp)),
                "is outside the range 125–1000 MiB/s that gp3 allows",
                "pick a value from 125 to 1000",
            ));
        }
    }
}

/// `gcedisk`: Google persistent disks.
fn gcedisk(
    r: &mut Reader,
    backend_name: &str,
    zone_value: &Option<String>,
    fs_type: String,
) -> Backend {
    Backend::Gcedisk {
        availability_zone: zone(r, zone_value, backend_name, "us-central1-a"),
        volume_type: r.one_of(
            "Storage.VolumeType",
            "pd-ssd",
            &["pd-ssd", "pd-standard", "pd-balanced"],
        ),
        fs_type,
    }
}

/// `azuredisk`: Azure managed disks.
fn azuredisk(r: &mut Reader, fs_type: String) -> Backend {
    Backend::Azuredisk {
        sku_name: r.one_of(
            "Storage.SkuName",
            "Premium_LRS",
            &[
                "Premium_LRS",
                "StandardSSD_LRS",
                "Standard_LRS",
                "UltraSSD_LRS",
                "Premium_ZRS",
                "StandardSSD_ZRS",
            ],
        ),
        caching_mode: r.one_of(
            "Storage.CachingMode",
            "None",
            &["None", "ReadOnly", "ReadWrite"],
        ),
        fs_type,
        location: r.text("Storage.AzureLocation"),
        resource_group: r.text("Storage.AzureResourceGroup"),
    }
}

/// A backend cf-runner does not know: a problem, and `local` in its place
/// so the rest still reads.
fn unknown(r: &mut Reader, other: &str) -> Backend {
    let fix = match other {
        "azuredisk-csi" => {
            "use azuredisk (cf-runner provisions Azure disks through one backend)".to_string()
        }
        _ => "use one of: local, ebs, ebs-csi, gcedisk, azuredisk".to_string(),
    };
    r.problems.push(Problem::new(
        "Storage.Backend",
        Some(&Value::String(other.to_string())),
        "is not a storage backend",
        fix,
    ));
    Backend::Local {
        volume_parent_dir: DEFAULT_LOCAL_VOLUME_PARENT_DIR.into(),
    }
}

/// Parameters that only make sense for another backend are mistakes.
fn foreign_keys(r: &mut Reader, backend_name: &str) {
    let foreign: &[(&str, &[&str])] = &[
        ("Storage.AvailabilityZone", &["ebs", "ebs-csi", "gcedisk"]),
        ("Storage.VolumeType", &["ebs", "ebs-csi", "gcedisk"]),
        ("Storage.Iops", &["ebs", "ebs-csi"]),
        ("Storage.Throughput", &["ebs", "ebs-csi"]),
        ("Storage.Encrypted", &["ebs", "ebs-csi"]),
        ("Storage.KmsKeyId", &["ebs", "ebs-csi"]),
        ("Storage.AwsAccessKeyId", &["ebs", "ebs-csi"]),
        ("Storage.AwsSecretAccessKey", &["ebs", "ebs-csi"]),
        ("Storage.GoogleServiceAccount", &["gcedisk"]),
        (
            "Storage.AwsAccessKeyIdSecretKeyRef.Name",
            &["ebs", "ebs-csi"],
        ),
        (
            "Storage.AwsSecretAccessKeySecretKeyRef.Name",
            &["ebs", "ebs-csi"],
        ),
        (
            "Storage.GoogleServiceAccountSecretKeyRef.Name",
            &["gcedisk"],
        ),
        ("Storage.SkuName", &["azuredisk"]),
        ("Storage.CachingMode", &["azuredisk"]),
        ("Storage.AzureLocation", &["azuredisk"]),
        ("Storage.AzureResourceGroup", &["azuredisk"]),
        ("Storage.VolumeProvisioner.MountAzureJson", &["azuredisk"]),
        ("Storage.LocalVolumeParentDir", &["local"]),
    ];
    let is_known_backend = BACKENDS.contains(&backend_name);
    for (key, backends) in foreign {
        let set = match *key {
            "Storage.Encrypted" | "Storage.VolumeProvisioner.MountAzureJson" => {
                r.boolean(key, false)
            }
            _ => r.text(key).is_some(),
        };
        if is_known_backend && set && !backends.contains(&backend_name) {
            r.problems.push(Problem::new(
                key,
                None,
                format!(
                    "belongs to the {} backend, but Storage.Backend is {backend_name}",
                    backends.join("/")
                ),
                format!("remove {key}, or set Storage.Backend to {}", backends[0]),
            ));
        }
    }
}

/// The provisioner's cloud credentials: AWS keys (in pairs, as values or
/// SecretKeyRefs) and a Google service-account key (JSON of that kind).
fn credentials(r: &mut Reader) -> ProvisionerCredentials {
    let aws_id = r.text("Storage.AwsAccessKeyId");
    let aws_secret = r.text("Storage.AwsSecretAccessKey");
    let aws_id_ref = secret_key_ref(r, "Storage.AwsAccessKeyId");
    let aws_secret_ref = secret_key_ref(r, "Storage.AwsSecretAccessKey");
    let google_ref = secret_key_ref(r, "Storage.GoogleServiceAccount");
    if aws_id.is_some() != aws_secret.is_some() && aws_id_ref.is_none() && aws_secret_ref.is_none()
    {
        let missing = if aws_id.is_some() {
            "Storage.AwsSecretAccessKey"
        } else {
            "Storage.AwsAccessKeyId"
        };
        r.problems.push(Problem::new(
            missing,
            None,
            "is missing: AWS keys come in pairs",
            "set both Storage.AwsAccessKeyId and Storage.AwsSecretAccessKey, or neither (IRSA)",
        ));
    }
    if (aws_id_ref.is_some() || aws_secret_ref.is_some())
        && (aws_id.is_some() || aws_id_ref.is_some())
            != (aws_secret.is_some() || aws_secret_ref.is_some())
    {
        let missing = if aws_id.is_some() || aws_id_ref.is_some() {
            "Storage.AwsSecretAccessKey"
        } else {
            "Storage.AwsAccessKeyId"
        };
        r.problems.push(Problem::new(
            missing,
            None,
            "is missing (as a value or a SecretKeyRef): AWS keys come in pairs",
            format!("set {missing} or {missing}SecretKeyRef too, or neither key (IRSA)"),
        ));
    }
    let google = r.text("Storage.GoogleServiceAccount");
    if let Some(json) = &google {
        match serde_json::from_str::<Value>(json) {
            Ok(Value::Object(m)) if m.get("type").and_then(Value::as_str) == Some("service_account") => {}
            Ok(_) => r.problems.push(Problem::new(
                "Storage.GoogleServiceAccount",
                None,
                "is JSON, but not a service-account key (no \"type\": \"service_account\")",
                "use the key file downloaded for the service account: --set-file Storage.GoogleServiceAccount=key.json",
            )),
            Err(e) => r.problems.push(Problem::new(
                "Storage.GoogleServiceAccount",
                None,
                format!("is not valid JSON ({e})"),
                "use the key file downloaded for the service account: --set-file Storage.GoogleServiceAccount=key.json",
            )),
        }
    }
    ProvisionerCredentials {
        aws_access_key_id: aws_id.map(Secret::new),
        aws_secret_access_key: aws_secret.map(Secret::new),
        google_service_account: google.map(Secret::new),
        aws_access_key_id_ref: aws_id_ref,
        aws_secret_access_key_ref: aws_secret_ref,
        google_service_account_ref: google_ref,
    }
}

/// The provisioner's pods: the global scheduling unless it has its own.
fn provisioner_scheduling(r: &mut Reader, global: &Scheduling) -> Scheduling {
    let mut provisioner_scheduling = global.clone();
    let own_selector = r.node_selector("Storage.VolumeProvisioner.NodeSelector");
    if !own_selector.is_empty() {
        provisioner_scheduling.node_selector = own_selector;
    }
    let own_tolerations = r.tolerations("Storage.VolumeProvisioner.Tolerations");
    if !own_tolerations.is_empty() {
        provisioner_scheduling.tolerations = own_tolerations;
    }
    provisioner_scheduling
}

/// Node folders that hold the system, the kubelet or the container runtime:
/// the folder itself and everything below it.
const SYSTEM_TREES: &[&str] = &[
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/lib",
    "/lib32",
    "/lib64",
    "/proc",
    "/root",
    "/run",
    "/sbin",
    "/sys",
    "/usr",
    "/var/lib/containerd",
    "/var/lib/docker",
    "/var/lib/kubelet",
    "/var/lib/etcd",
    "/var/log",
    "/var/run",
];

/// Folders that are fine to live below, but never to be cleaned as a whole.
const SYSTEM_PARENTS: &[&str] = &["/home", "/mnt", "/opt", "/srv", "/tmp", "/var", "/var/lib"];

/// Names the system folder `dir` is, or lies in, if it does.
fn system_dir(dir: &str) -> Option<String> {
    let parts: Vec<&str> = dir
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    let normal = format!("/{}", parts.join("/"));
    if normal == "/" {
        return Some("/".into());
    }
    if SYSTEM_PARENTS.contains(&normal.as_str()) {
        return Some(normal);
    }
    SYSTEM_TREES
        .iter()
        .find(|tree| normal == **tree || normal.starts_with(&format!("{tree}/")))
        .map(|tree| {
            if normal == *tree {
                normal.clone()
            } else {
                format!("inside {tree}")
            }
        })
}
