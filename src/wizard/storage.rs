//! Questions about where builds keep their docker cache: the storage
//! backend (suggested from the cluster's StorageClasses) and its settings,
//! local directory, zone, EBS volume type, IOPS, encryption, disk SKU.

use serde_json::Value;

use super::session::{yes_no, Session};
use super::{Choice, Facts, PromptError, Question, StorageClassFact, ZONE_LABEL};
use crate::values::{self, cloud};

const BACKENDS: &[(&str, &str)] = &[
    (
        "local",
        "directories on the build nodes; fastest, the cache stays on its node",
    ),
    (
        "ebs",
        "AWS EBS volumes, created by cf-runner's volume provisioner",
    ),
    ("ebs-csi", "AWS EBS volumes, through the EBS CSI driver"),
    ("gcedisk", "Google Compute Engine persistent disks"),
    ("azuredisk", "Azure managed disks"),
];

impl Session<'_> {
    /// Returns the zone the disks live in, for the build node selector.
    pub(super) fn ask_storage(&mut self) -> Result<Option<String>, PromptError> {
        self.section("Storage for build volumes");
        if let Some(class) = self.given_text("StorageClass") {
            self.row("Storage", format!("StorageClass {class}"), true);
            return Ok(None);
        }
        let backend = match self.given_text("Storage.Backend") {
            Some(b) => {
                self.row("Storage", b.clone(), true);
                b
            }
            None => match self.ask_backend()? {
                Some(b) => b,
                // An existing StorageClass: nothing more to ask.
                None => return Ok(None),
            },
        };
        match backend.as_str() {
            "local" => {
                self.ask_local_dir()?;
                Ok(None)
            }
            "ebs" | "ebs-csi" => {
                let zone = self.ask_zone("us-east-1a")?;
                self.ask_ebs_volume()?;
                self.ask_aws_credentials()?;
                Ok(zone)
            }
            "gcedisk" => {
                let zone = self.ask_zone("us-central1-a")?;
                self.ask_gce_disk()?;
                Ok(zone)
            }
            "azuredisk" => {
                self.ask_azure_disk()?;
                Ok(None)
            }
            // Not a backend: validation names it once the questions are done.
            _ => Ok(None),
        }
    }

    /// The backend, or one of the cluster's StorageClasses (then `None`:
    /// it is set, and no provisioner is installed).
    fn ask_backend(&mut self) -> Result<Option<String>, PromptError> {
        let facts = self.facts();
        let existing: Vec<&StorageClassFact> = facts
            .storage_classes
            .iter()
            .filter(|c| !c.name.starts_with("dind-local-volumes-runner"))
            .collect();
        let mut choices: Vec<Choice> = BACKENDS.iter().map(|(n, h)| Choice::new(*n, *h)).collect();
        for class in &existing {
            choices.push(Choice::new(
                format!("StorageClass {}", class.name),
                format!(
                    "existing, by {}{}; no provisioner is installed",
                    class.provisioner,
                    if class.is_default {
                        ", the default"
                    } else {
                        ""
                    }
                ),
            ));
        }
        let suggested = suggested_backend(&facts);
        let default = BACKENDS
            .iter()
            .position(|(n, _)| *n == suggested)
            .unwrap_or(0);
        let help = if suggested == "local" {
            "Where builds keep their docker cache between runs.".to_string()
        } else {
            format!(
                "Where builds keep their docker cache between runs; {suggested} is suggested from the cluster's StorageClasses."
            )
        };
        let q = Question::new("Storage.Backend", "Storage backend", help);
        let i = self.select(q, &choices, default)?;
        if i >= BACKENDS.len() {
            let class = existing[i - BACKENDS.len()].name.clone();
            self.set("StorageClass", Value::String(class.clone()));
            self.row("Storage", format!("StorageClass {class}"), false);
            return Ok(None);
        }
        let b = BACKENDS[i].0.to_string();
        self.set("Storage.Backend", Value::String(b.clone()));
        self.row("Storage", b.clone(), false);
        Ok(Some(b))
    }

    /// A Google persistent disk's type, then the credentials to make it.
    fn ask_gce_disk(&mut self) -> Result<(), PromptError> {
        self.pick(
            "Storage.VolumeType",
            "Disk type",
            Question::new(
                "Storage.VolumeType",
                "Disk type",
                "pd-ssd is fastest; pd-balanced is cheaper with good speed.",
            ),
            &[
                ("pd-ssd", "SSD"),
                ("pd-balanced", "SSD, cheaper per GB"),
                ("pd-standard", "HDD"),
            ],
            "pd-ssd",
        )?;
        self.ask_google_credentials()
    }

    /// An Azure managed disk's SKU and caching, and where the provisioner
    /// gets its Azure rights.
    fn ask_azure_disk(&mut self) -> Result<(), PromptError> {
        self.pick(
            "Storage.SkuName",
            "Disk SKU",
            Question::new(
                "Storage.SkuName",
                "Disk SKU",
                "The kind of managed disk; Premium_LRS is fast SSD in one zone.",
            ),
            &[
                ("Premium_LRS", "premium SSD"),
                ("StandardSSD_LRS", "standard SSD"),
                ("Standard_LRS", "HDD"),
                ("Premium_ZRS", "premium SSD, zone-redundant"),
                ("StandardSSD_ZRS", "standard SSD, zone-redundant"),
                ("UltraSSD_LRS", "ultra disk"),
            ],
            "Premium_LRS",
        )?;
        self.pick(
            "Storage.CachingMode",
            "Host caching",
            Question::new(
                "Storage.CachingMode",
                "Host caching",
                "Disk caching on the node; None suits build volumes.",
            ),
            &[("None", ""), ("ReadOnly", ""), ("ReadWrite", "")],
            "None",
        )?;
        self.flag(
            "Storage.VolumeProvisioner.MountAzureJson",
            "Azure credentials",
            "Use the nodes' /etc/kubernetes/azure.json for Azure credentials?",
            "The provisioner needs Azure rights to create disks; on AKS the nodes' azure.json has them.",
            true,
        )?;
        Ok(())
    }

    fn ask_local_dir(&mut self) -> Result<(), PromptError> {
        let key = "Storage.LocalVolumeParentDir";
        if let Some(dir) = self.given_text(key) {
            self.row("Volume directory", dir, true);
            return Ok(());
        }
        let checker = self.checker();
        let validate = |s: &str| checker.check(key, Value::String(s.to_string()));
        let dir = self.input(
            Question::new(
                key,
                "Volume directory on the nodes",
                "Each build's volume is a directory under it; put it on a large, fast disk.",
            ),
            values::DEFAULT_LOCAL_VOLUME_PARENT_DIR,
            &validate,
        )?;
        self.set(key, Value::String(dir.clone()));
        self.row("Volume directory", dir, false);
        Ok(())
    }

    fn ask_zone(&mut self, example: &str) -> Result<Option<String>, PromptError> {
        let key = "Storage.AvailabilityZone";
        if let Some(z) = self.given_text(key) {
            self.row("Zone", z.clone(), true);
            return Ok(Some(z));
        }
        let help = "A disk lives in one zone, so builds run on nodes in that zone.";
        let facts = self.facts();
        let zone = if facts.zones.is_empty() {
            let checker = self.checker();
            let validate = |s: &str| {
                if s.is_empty() {
                    return Err(format!("a zone is needed, e.g. {example}"));
                }
                checker.check(key, Value::String(s.to_string()))
            };
            self.input(Question::new(key, "Availability zone", help), "", &validate)?
        } else {
            let mut choices: Vec<Choice> = facts
                .zones
                .iter()
                .map(|z| Choice::new(z.clone(), "has nodes"))
                .collect();
            choices.push(Choice::new("another zone", "type its name"));
            let i = self.select(
                Question::new(
                    key,
                    "Availability zone",
                    format!("{help} Zones come from the nodes' {ZONE_LABEL} label."),
                ),
                &choices,
                0,
            )?;
            if i < facts.zones.len() {
                facts.zones[i].clone()
            } else {
                let checker = self.checker();
                let validate = |s: &str| {
                    if s.is_empty() {
                        return Err(format!("a zone is needed, e.g. {example}"));
                    }
                    checker.check(key, Value::String(s.to_string()))
                };
                self.input(
                    Question::new("Storage.AvailabilityZone.other", "Zone name", help),
                    "",
                    &validate,
                )?
            }
        };
        self.set(key, Value::String(zone.clone()));
        self.row("Zone", zone.clone(), false);
        Ok(Some(zone))
    }

    fn ask_ebs_volume(&mut self) -> Result<(), PromptError> {
        let type_given = self.given_text("Storage.VolumeType").is_some();
        let volume_type = self.pick(
            "Storage.VolumeType",
            "Volume type",
            Question::new(
                "Storage.VolumeType",
                "Volume type",
                "gp3 is the current general-purpose SSD; io1/io2 give guaranteed IOPS.",
            ),
            &[
                ("gp2", "general-purpose SSD, IOPS grow with size"),
                ("gp3", "general-purpose SSD, IOPS and throughput set apart"),
                ("io1", "provisioned-IOPS SSD"),
                ("io2", "provisioned-IOPS SSD, more durable"),
            ],
            "gp2",
        )?;
        // IOPS and throughput refine a type chosen here; a file that names
        // the type has decided them too.
        if !type_given && volume_type != "gp2" {
            let (lo, hi, baseline) = match volume_type.as_str() {
                "gp3" => (3000, 16000, "3000"),
                "io1" => (100, 64000, "none"),
                _ => (100, 256000, "none"),
            };
            if let Some(iops) = self.ask_number(
                "Storage.Iops",
                "Provisioned IOPS",
                &format!("{lo}–{hi} for {volume_type}; empty keeps the baseline ({baseline})."),
            )? {
                self.row("IOPS", iops.to_string(), false);
            }
            if volume_type == "gp3" {
                if let Some(tp) = self.ask_number(
                    "Storage.Throughput",
                    "Throughput (MiB/s)",
                    "125–1000; empty keeps the baseline (125).",
                )? {
                    self.row("Throughput", format!("{tp} MiB/s"), false);
                }
            }
        }
        if let Some(b) = self.given_bool("Storage.Encrypted") {
            self.row("Encrypted", yes_no(b), true);
            return Ok(());
        }
        let encrypted = self.flag(
            "Storage.Encrypted",
            "Encrypted",
            "Encrypt the volumes?",
            "EBS encryption at rest, with the AWS-managed key unless you name a KMS key next.",
            false,
        )?;
        if encrypted {
            let checker = self.checker();
            let validate = |s: &str| {
                if s.is_empty() {
                    return Ok(());
                }
                cloud::kms_key(s).map_err(|m| m.for_answer(s))?;
                checker.check("Storage.KmsKeyId", Value::String(s.to_string()))
            };
            let key = self.input(
                Question::new(
                    "Storage.KmsKeyId",
                    "KMS key",
                    "Empty uses the AWS-managed aws/ebs key; the provisioner's role must be allowed to use a key of your own.",
                ),
                "",
                &validate,
            )?;
            if !key.is_empty() {
                self.set("Storage.KmsKeyId", Value::String(key.clone()));
                self.row("KMS key", key, false);
            }
        }
        Ok(())
    }

    fn ask_number(
        &mut self,
        key: &str,
        prompt: &str,
        help: &str,
    ) -> Result<Option<i64>, PromptError> {
        let checker = self.checker();
        let validate = |s: &str| {
            if s.is_empty() {
                return Ok(());
            }
            match s.parse::<i64>() {
                Ok(n) => checker.check(key, Value::from(n)),
                Err(_) => Err(format!("{s:?} is not a whole number")),
            }
        };
        let text = self.input(Question::new(key, prompt, help), "", &validate)?;
        if text.is_empty() {
            return Ok(None);
        }
        let n: i64 = text.parse().expect("validated");
        self.set(key, Value::from(n));
        Ok(Some(n))
    }
}

/// The backend the cluster's StorageClasses point at (its default class
/// first), or `local`.
fn suggested_backend(facts: &Facts) -> &'static str {
    let mut classes: Vec<&StorageClassFact> = facts.storage_classes.iter().collect();
    classes.sort_by_key(|c| !c.is_default);
    classes
        .iter()
        .find_map(|c| match c.provisioner.as_str() {
            "ebs.csi.aws.com" => Some("ebs-csi"),
            "kubernetes.io/aws-ebs" => Some("ebs"),
            "pd.csi.storage.gke.io" | "kubernetes.io/gce-pd" => Some("gcedisk"),
            "disk.csi.azure.com" | "kubernetes.io/azure-disk" => Some("azuredisk"),
            _ => None,
        })
        .unwrap_or("local")
}
