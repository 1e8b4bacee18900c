//! The question logic, driven by scripted replies: every backend's path,
//! re-asks on bad answers, defaults and suggestions, and questions skipped
//! because a flag or values file already answered them. The helpers and the
//! storage paths are here; the rest of the flow is in `tests/flow.rs`.

use serde_json::{json, Value};

use super::scripted::{Reply, Scripted};
use super::*;
use crate::values::{self, tree, Input, ValuesFile};

use Reply::{Enter, No, Yes};

fn text(s: &str) -> Reply {
    Reply::Text(s.to_string())
}

fn pick(s: &str) -> Reply {
    Reply::Pick(s.to_string())
}

fn setup(given: Value) -> Setup {
    Setup {
        given,
        contexts: KubeContexts {
            path: Some("/home/me/.kube/config".into()),
            names: vec!["kind-dev".into(), "eks-prod".into()],
            current: Some("kind-dev".into()),
        },
        env_proxies: EnvProxies::default(),
        mode: Mode::DryRun {
            output: "codefresh_manifests".into(),
        },
        ask_token: false,
    }
}

fn cluster_with(facts: Facts) -> impl FnMut(&str) -> Facts {
    move |_: &str| facts.clone()
}

fn aws_facts() -> Facts {
    Facts {
        unreachable: None,
        namespaces: Some(vec![
            NamespaceFact {
                name: "default".into(),
                ours: false,
            },
            NamespaceFact {
                name: "codefresh".into(),
                ours: true,
            },
        ]),
        storage_classes: vec![StorageClassFact {
            name: "gp3".into(),
            provisioner: "ebs.csi.aws.com".into(),
            is_default: true,
        }],
        zones: vec!["us-east-1a".into(), "us-east-1b".into()],
        ingress_classes: Some(vec![
            IngressClassFact {
                name: "alb".into(),
                is_default: false,
            },
            IngressClassFact {
                name: "nginx".into(),
                is_default: true,
            },
        ]),
        agents: Vec::new(),
    }
}

/// Enter at every question after the storage ones, then don't save, go.
fn rest_with_defaults() -> Vec<(&'static str, Reply)> {
    vec![
        ("proxy", Enter),
        ("mirror", Enter),
        ("Monitor.Enabled", Enter),
        ("AppProxy.Enabled", Enter),
        ("SetDefaultRuntime", Enter),
        ("ExecDemoPipeline", Enter),
        ("Runtime.NodeSelector", Enter),
        ("Runtime.tolerations", Enter),
        ("save", No),
        ("next", Enter),
    ]
}

fn script(parts: &[&[(&'static str, Reply)]]) -> Scripted {
    let all: Vec<(&str, Reply)> = parts.iter().flat_map(|p| p.iter().cloned()).collect();
    Scripted::new(&all)
}

fn run_script(p: &mut Scripted, setup: &Setup, facts: Facts) -> Plan {
    let plan = run(p, &mut cluster_with(facts), setup).expect("the wizard finishes");
    assert!(p.left().is_empty(), "replies not used: {:?}", p.left());
    plan
}

fn answer<'a>(plan: &'a Plan, key: &str) -> Option<&'a Value> {
    plan.answers.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// The merged tree `init` would validate: the given values, then the answers.
fn merged(setup: &Setup, plan: &Plan) -> Value {
    let input = Input {
        files: vec![ValuesFile {
            origin: "given".into(),
            text: setup.given.to_string(),
        }],
        overrides: plan.answers.clone(),
        ..Default::default()
    };
    let mut problems = Vec::new();
    let tree = values::merge_layers(&input, &mut problems);
    assert!(problems.is_empty(), "{problems:?}");
    tree
}

fn loads(setup: &Setup, plan: &Plan) -> values::Values {
    let input = Input {
        files: vec![ValuesFile {
            origin: "given".into(),
            text: setup.given.to_string(),
        }],
        overrides: plan.answers.clone(),
        ..Default::default()
    };
    match values::load(&input) {
        Ok(l) => l.values,
        Err(p) => panic!("the answers do not validate: {p}"),
    }
}

#[test]
fn enter_everywhere_gives_the_local_backend_and_a_free_namespace() {
    let s = setup(json!({}));
    let mut p = script(&[
        &[
            ("Context", Enter),
            ("Namespace", Enter),
            ("Storage.Backend", Enter),
            ("Storage.LocalVolumeParentDir", Enter),
        ],
        &rest_with_defaults(),
    ]);
    let mut facts = aws_facts();
    facts.storage_classes.clear();
    let plan = run_script(&mut p, &s, facts);
    assert!(plan.proceed);
    assert_eq!(plan.save_to, None);
    assert_eq!(p.default_of("Context"), Some("kind-dev"));
    assert_eq!(p.default_of("Namespace"), Some("codefresh-1"));
    assert_eq!(p.default_of("Storage.Backend"), Some("local"));
    assert_eq!(answer(&plan, "Context"), Some(&json!("kind-dev")));
    assert_eq!(answer(&plan, "Namespace"), Some(&json!("codefresh-1")));
    assert_eq!(answer(&plan, "Storage.Backend"), Some(&json!("local")));
    assert_eq!(
        answer(&plan, "Storage.LocalVolumeParentDir"),
        Some(&json!(values::DEFAULT_LOCAL_VOLUME_PARENT_DIR))
    );
    assert_eq!(answer(&plan, "EnvVars"), Some(&json!({})));
    assert_eq!(answer(&plan, "Monitor.Enabled"), Some(&json!(false)));
    assert_eq!(answer(&plan, "ExecDemoPipeline"), Some(&json!(true)));
    assert_eq!(answer(&plan, "Runtime.NodeSelector"), Some(&json!({})));
    assert_eq!(answer(&plan, "Runtime.tolerations"), Some(&json!([])));
    let v = loads(&s, &plan);
    assert_eq!(v.namespace, "codefresh-1");
    assert!(v.exec_demo_pipeline);
    let topics: Vec<&str> = p.summary.iter().map(|r| r.topic.as_str()).collect();
    for topic in [
        "Context",
        "Namespace",
        "Storage",
        "Proxy",
        "Cluster monitor",
    ] {
        assert!(topics.contains(&topic), "{topic} missing from {topics:?}");
    }
    // Every question explained itself (the scripted prompter checks), and
    // the intro and the discovery result were shown.
    assert!(p.notes.iter().any(|n| n.contains("Ctrl-C quits")));
    assert!(p.notes.iter().any(|n| n.contains("Found in kind-dev")));
}

#[test]
fn ebs_with_zone_from_the_nodes_gp3_encryption_and_irsa() {
    let s = setup(json!({}));
    let mut p = script(&[
        &[
            ("Context", pick("eks-prod")),
            ("Namespace", text("ci")),
            ("Storage.Backend", Enter),
            ("Storage.AvailabilityZone", pick("us-east-1b")),
            ("Storage.VolumeType", pick("gp3")),
            ("Storage.Iops", text("2000")),
            ("Storage.Iops", text("lots")),
            ("Storage.Iops", text("4000")),
            ("Storage.Throughput", Enter),
            ("Storage.Encrypted", Yes),
            ("Storage.KmsKeyId", text("my-key")),
            (
                "Storage.KmsKeyId",
                text("arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"),
            ),
            ("storage.credentials", Enter),
            ("storage.role-arn", text("codefresh-volumes")),
            (
                "storage.role-arn",
                text("arn:aws:iam::123456789012:role/codefresh-volumes"),
            ),
        ],
        &rest_with_defaults(),
    ]);
    let plan = run_script(&mut p, &s, aws_facts());
    assert_eq!(
        p.default_of("Storage.Backend"),
        Some("ebs-csi"),
        "suggested from the gp3 class"
    );
    assert_eq!(
        p.default_of("Runtime.NodeSelector"),
        Some("topology.kubernetes.io/zone=us-east-1b"),
        "builds follow the disk's zone when nodes span zones"
    );
    let rejected: Vec<&str> = p.rejected.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(
        rejected,
        [
            "Storage.Iops",
            "Storage.Iops",
            "Storage.KmsKeyId",
            "storage.role-arn"
        ]
    );
    assert!(
        p.rejected[0].1.contains("3000–16000"),
        "{}",
        p.rejected[0].1
    );
    assert!(p.rejected[1].1.contains("whole number"));
    assert_eq!(answer(&plan, "Storage.Iops"), Some(&json!(4000)));
    assert_eq!(answer(&plan, "Storage.Throughput"), None);
    let tree = merged(&s, &plan);
    assert_eq!(
        tree::lookup(&tree, "Runtime.NodeSelector"),
        Some(&json!({"topology.kubernetes.io/zone": "us-east-1b"}))
    );
    assert_eq!(
        tree["Storage"]["VolumeProvisioner"]["ServiceAccount"]["Annotations"]
            ["eks.amazonaws.com/role-arn"],
        json!("arn:aws:iam::123456789012:role/codefresh-volumes")
    );
    let v = loads(&s, &plan);
    match &v.storage.backend {
        values::Backend::Ebs {
            csi,
            availability_zone,
            volume_type,
            encrypted,
            kms_key_id,
            iops,
            ..
        } => {
            assert!(*csi);
            assert_eq!(availability_zone, "us-east-1b");
            assert_eq!(volume_type, "gp3");
            assert!(*encrypted);
            assert!(kms_key_id.is_some());
            assert_eq!(*iops, Some(4000));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn ebs_with_access_keys_makes_a_secret_values_file() {
    let s = setup(json!({}));
    let mut p = script(&[
        &[
            ("Context", Enter),
            ("Namespace", Enter),
            ("Storage.Backend", pick("ebs")),
            ("Storage.AvailabilityZone", pick("us-east-1a")),
            ("Storage.VolumeType", Enter),
            ("Storage.Encrypted", Enter),
            ("storage.credentials", pick("Access keys")),
            ("Storage.AwsAccessKeyId", text("akia-lowercase")),
            ("Storage.AwsAccessKeyId", text("AKIAIOSFODNN7EXAMPLE")),
            ("Storage.AwsSecretAccessKey", Enter),
            (
                "Storage.AwsSecretAccessKey",
                text("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            ),
        ],
        &rest_with_defaults(),
    ]);
    let plan = run_script(&mut p, &s, aws_facts());
    assert_eq!(answer(&plan, "Storage.VolumeType"), Some(&json!("gp2")));
    assert_eq!(
        answer(&plan, "Storage.Iops"),
        None,
        "gp2 has no IOPS question"
    );
    let v = loads(&s, &plan);
    assert!(v.storage.credentials.any());
    let saved = values_file(&merged(&s, &plan));
    assert!(saved.holds_secret);
    assert!(saved.text.contains("mode 0600"));
}

#[test]
fn gcedisk_with_a_key_file_typed_zone_and_rejected_paths() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("key.json");
    std::fs::write(&key, r#"{"type": "service_account", "project_id": "p"}"#).unwrap();
    let not_a_key = dir.path().join("other.json");
    std::fs::write(&not_a_key, r#"{"hello": 1}"#).unwrap();
    let s = setup(json!({"Context": "gke"}));
    let mut p = script(&[
        &[
            ("Namespace", Enter),
            ("Storage.Backend", pick("gcedisk")),
            ("Storage.AvailabilityZone", Enter),
            ("Storage.AvailabilityZone", text("Not A Zone")),
            ("Storage.AvailabilityZone", text("us-central1-c")),
            ("Storage.VolumeType", pick("pd-balanced")),
            ("storage.credentials", pick("A service-account key file")),
            (
                "storage.key-file",
                text(&dir.path().join("missing.json").display().to_string()),
            ),
            ("storage.key-file", text(&not_a_key.display().to_string())),
            ("storage.key-file", text(&key.display().to_string())),
        ],
        &rest_with_defaults(),
    ]);
    // Unreachable cluster: no zones, no namespaces; defaults are suggested.
    let facts = Facts {
        unreachable: Some("Connection refused".into()),
        ..Default::default()
    };
    let plan = run_script(&mut p, &s, facts);
    assert!(p.notes.iter().any(|n| n.contains("Could not reach gke")));
    assert_eq!(p.default_of("Namespace"), Some("codefresh"));
    assert_eq!(p.rejected.len(), 4, "{:?}", p.rejected);
    assert!(p.rejected[0].1.contains("a zone is needed"));
    assert!(p.rejected[2].1.contains("could not be read"));
    assert!(
        p.rejected[3].1.contains("service-account key"),
        "{}",
        p.rejected[3].1
    );
    assert_eq!(
        answer(&plan, "Context"),
        None,
        "given, so not answered again"
    );
    assert_eq!(
        answer(&plan, "Runtime.NodeSelector"),
        Some(&json!({})),
        "no zone suggestion when the zones are unknown"
    );
    let v = loads(&s, &plan);
    assert!(v.storage.credentials.google_service_account.is_some());
    assert!(values_file(&merged(&s, &plan)).holds_secret);
}

/// The key file's path used to be read whole, whatever it named: a FIFO
/// blocked the wizard for good, `/dev/zero` filled the memory. Both are
/// refused at once and asked again; the wizard runs on a thread with a
/// deadline, so a regression fails instead of hanging.
#[cfg(unix)]
#[test]
fn a_key_file_that_is_a_fifo_or_dev_zero_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("key.fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a NUL-terminated path this test owns.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let zero = dir.path().join("key.json");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let key = dir.path().join("real.json");
    std::fs::write(&key, r#"{"type": "service_account", "project_id": "p"}"#).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let (fifo_s, zero_s, key_s) = (
        fifo.display().to_string(),
        zero.display().to_string(),
        key.display().to_string(),
    );
    std::thread::spawn(move || {
        let s = setup(json!({"Context": "gke"}));
        let mut p = script(&[
            &[
                ("Namespace", Enter),
                ("Storage.Backend", pick("gcedisk")),
                ("Storage.AvailabilityZone", text("us-central1-c")),
                ("Storage.VolumeType", pick("pd-balanced")),
                ("storage.credentials", pick("A service-account key file")),
                ("storage.key-file", text(&fifo_s)),
                ("storage.key-file", text(&zero_s)),
                ("storage.key-file", text(&key_s)),
            ],
            &rest_with_defaults(),
        ]);
        let facts = Facts {
            unreachable: Some("Connection refused".into()),
            ..Default::default()
        };
        let plan = run_script(&mut p, &s, facts);
        let _ = tx.send((p.rejected.clone(), loads(&s, &plan)));
    });
    let (rejected, v) = rx
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("the wizard finishes within 20 s");
    let on_key: Vec<&String> = rejected
        .iter()
        .filter(|(id, _)| id == "storage.key-file")
        .map(|(_, why)| why)
        .collect();
    assert_eq!(on_key.len(), 2, "{rejected:?}");
    assert!(
        on_key[0].contains("named pipe (FIFO), not a file"),
        "{}",
        on_key[0]
    );
    assert!(
        on_key[1].contains("character device, not a file"),
        "{}",
        on_key[1]
    );
    assert!(v.storage.credentials.google_service_account.is_some());
}

#[test]
fn gcedisk_with_workload_identity() {
    let s = setup(json!({}));
    let mut facts = aws_facts();
    facts.zones = vec!["europe-west1-b".into()];
    let mut p = script(&[
        &[
            ("Context", Enter),
            ("Namespace", Enter),
            ("Storage.Backend", pick("gcedisk")),
            ("Storage.AvailabilityZone", pick("another zone")),
            ("Storage.AvailabilityZone.other", text("europe-west1-c")),
            ("Storage.VolumeType", Enter),
            ("storage.credentials", Enter),
            ("storage.google-service-account", text("volumes")),
            (
                "storage.google-service-account",
                text("volumes@my-project.iam.gserviceaccount.com"),
            ),
        ],
        &rest_with_defaults(),
    ]);
    let plan = run_script(&mut p, &s, facts);
    assert_eq!(
        answer(&plan, "Storage.AvailabilityZone"),
        Some(&json!("europe-west1-c"))
    );
    assert_eq!(answer(&plan, "Storage.VolumeType"), Some(&json!("pd-ssd")));
    let v = loads(&s, &plan);
    assert_eq!(
        v.storage
            .provisioner_sa_annotations
            .get("iam.gke.io/gcp-service-account")
            .map(String::as_str),
        Some("volumes@my-project.iam.gserviceaccount.com")
    );
    assert!(!values_file(&merged(&s, &plan)).holds_secret);
}

#[test]
fn azuredisk_asks_sku_caching_and_credentials() {
    let s = setup(json!({}));
    let mut p = script(&[
        &[
            ("Context", Enter),
            ("Namespace", Enter),
            ("Storage.Backend", pick("azuredisk")),
            ("Storage.SkuName", pick("StandardSSD_LRS")),
            ("Storage.CachingMode", Enter),
            ("Storage.VolumeProvisioner.MountAzureJson", Enter),
        ],
        &rest_with_defaults(),
    ]);
    let plan = run_script(&mut p, &s, Facts::default());
    assert!(!p.asked.iter().any(|q| q == "Storage.AvailabilityZone"));
    let v = loads(&s, &plan);
    assert!(v.storage.mount_azure_json);
    assert!(matches!(
        &v.storage.backend,
        values::Backend::Azuredisk { sku_name, caching_mode, .. }
            if sku_name == "StandardSSD_LRS" && caching_mode == "None"
    ));
}

#[test]
fn an_existing_storage_class_skips_the_backend_options() {
    let s = setup(json!({}));
    let mut p = script(&[
        &[
            ("Context", Enter),
            ("Namespace", Enter),
            ("Storage.Backend", pick("StorageClass gp3")),
        ],
        &rest_with_defaults(),
    ]);
    let plan = run_script(&mut p, &s, aws_facts());
    assert_eq!(answer(&plan, "StorageClass"), Some(&json!("gp3")));
    assert_eq!(answer(&plan, "Storage.Backend"), None);
    let v = loads(&s, &plan);
    assert!(!v.storage.provisioned);
    assert_eq!(v.storage.class_name, "gp3");
}

mod flow;

/// Pod Identity is the fourth AWS choice: no role asked, no annotation
/// set, and the values say so (the association is the user's, after
/// install).
#[test]
fn ebs_with_eks_pod_identity_sets_the_key_and_no_irsa_role() {
    let s = setup(json!({}));
    let mut p = script(&[
        &[
            ("Context", pick("eks-prod")),
            ("Namespace", text("ci")),
            ("Storage.Backend", Enter),
            ("Storage.AvailabilityZone", pick("us-east-1b")),
            ("Storage.VolumeType", pick("gp3")),
            ("Storage.Iops", Enter),
            ("Storage.Throughput", Enter),
            ("Storage.Encrypted", No),
            ("storage.credentials", pick("EKS Pod Identity")),
        ],
        &rest_with_defaults(),
    ]);
    let plan = run_script(&mut p, &s, aws_facts());
    assert_eq!(answer(&plan, "Storage.AwsPodIdentity"), Some(&json!(true)));
    let tree = merged(&s, &plan);
    assert!(tree::lookup(
        &tree,
        "Storage.VolumeProvisioner.ServiceAccount.Annotations"
    )
    .is_none());
    assert!(loads(&s, &plan).aws_pod_identity);
}
