//! `cf-runner adopt` carries every credential of the old install, and
//! lists every object of it, against a real control plane. The old
//! installs are laid out the way venonactl's templates
//! (`venonactl/pkg/templates/kubernetes/*.vp.yaml`) and the cf-runtime
//! chart's volume-provisioner templates make them, one per backend with
//! keys: EBS with AWS keys, GCE disk with a service-account key, Azure with
//! the node's azure.json, EBS with an IAM role (IRSA) only; and the chart
//! given AWS keys, or pointed at a Secret of the user's.
//!
//! Each checks what a user would notice: cf-runner's provisioner reads the
//! same key (its environment resolves to the same bytes), the plan names
//! every object of the old install, the saved values file holds no key,
//! and after `delete` no Secret holds the key (except the user's own,
//! which cf-runner never deletes).

use crate::support;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use base64::Engine;
use serde_json::{json, Value};
use support::adopt::*;
use support::cli::{isolated, text};
use support::controlplane::{self, ControlPlane};
use support::fake_platform::FakePlatform;

const AWS_ID: &str = "AKIAADOPTE2E0000KEY1";
const AWS_SECRET: &str = "adopt-e2e/aws+secret/0123456789abcdefghijklmnop";
const ROLE: &str = "arn:aws:iam::123456789012:role/codefresh-volumes";

fn google_key() -> String {
    json!({
        "type": "service_account",
        "project_id": "adopt-e2e",
        "private_key_id": "0123456789abcdef",
        "private_key": "-----BEGIN PRIVATE KEY-----\nADOPT-E2E-GOOGLE-KEY\n-----END PRIVATE KEY-----\n",
        "client_email": "volumes@adopt-e2e.iam.gserviceaccount.com",
    })
    .to_string()
}

/// The backends with keys, as venonactl lays them out.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Backend {
    EbsKeys,
    GceKey,
    AzureJson,
    EbsIrsa,
}

/// What `codefresh runner init` registered: the agent, its runtime
/// environment and the attachment. Gives the runtime's name.
fn register_like_venonactl(fake: &FakePlatform, ns: &str) -> String {
    let agent = platform_call(
        fake,
        "POST",
        "/api/agents",
        &json!({"name": "venona-agent"}),
    );
    let runtime = format!("venona-cluster/{ns}");
    platform_call(
        fake,
        "POST",
        "/api/custom_clusters/register",
        &json!({"clusterName": "venona-cluster", "namespace": ns, "runtimeEnvironmentName": runtime,
                "storageClassName": format!("dind-local-volumes-runner-{ns}"), "agent": true}),
    );
    platform_call(
        fake,
        "PUT",
        &format!("/api/agent/{}", agent["id"].as_str().unwrap()),
        &json!({"runtimes": [runtime]}),
    );
    runtime
}

/// A venonactl 2.0 install with the volume provisioner of `backend`, as
/// its templates render it (the names, labels, env and mounts of
/// `*.vp.yaml`), plus what venonactl and Kubernetes made at run time:
/// runnerconf with the attached runtime, the `runner-token-*` Secret
/// attach creates, and a Job of the cleanup CronJob.
fn install_venonactl(cp: &ControlPlane, ns: &str, backend: Backend, runtime: &str) {
    let provisioner = format!("codefresh.io/dind-volume-provisioner-runner-{ns}");
    let conf = format!(
        "crt: CA\ntoken: runner-sa-token-adopt-e2e\nhost: https://kubernetes.default\nname: {runtime}\ntype: runtime\n"
    );
    let conf_key = format!("{}.runtime.yaml", runtime.replace(['/', '@', ':'], "."));
    let mut objects = vec![
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": "runner", "labels": {"app": "runner", "version": "2.0.7"}},
               "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "runner"}},
                        "template": {"metadata": {"labels": {"app": "runner"}},
                                     "spec": {"containers": [{"name": "runner", "image": "quay.io/codefresh/venona:2.0.7",
                                              "env": [{"name": "AGENT_ID", "value": "venona-agent"},
                                                      {"name": "CODEFRESH_HOST", "value": "https://g.codefresh.io"},
                                                      {"name": "AGENT_MODE", "value": "InCluster"},
                                                      {"name": "VENONA_CONFIG_DIR", "value": "/etc/secrets"}]}]}}}}),
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "runner"},
               "stringData": {"codefresh.token": AGENT_TOKEN}}),
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "runnerconf"},
               "stringData": {conf_key: conf}}),
        json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "runner"}}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "runner"},
               "rules": [{"apiGroups": [""], "resources": ["pods", "persistentvolumeclaims"],
                          "verbs": ["get", "create", "delete"]}]}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "runner"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "runner"},
               "subjects": [{"kind": "ServiceAccount", "name": "runner", "namespace": ns}]}),
        json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "codefresh-engine",
               "labels": {"app": "app-proxy", "version": "2.0.7"}}}),
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "codefresh-dind-config"},
               "data": {"daemon.json": "{}"}}),
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "dind", "labels": {"app": "dind"}},
               "spec": {"clusterIP": "None", "selector": {"app": "dind"},
                        "ports": [{"name": "dind-port", "port": 1300}]}}),
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "codefresh-certs-server", "labels": {"app": "venona"}},
               "stringData": {"ca.pem": "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n",
                              "server-cert.pem": "-----BEGIN CERTIFICATE-----\nSERVER\n-----END CERTIFICATE-----\n",
                              "server-key.pem": "-----BEGIN PRIVATE KEY-----\nVENONA-KEY\n-----END PRIVATE KEY-----\n"}}),
        // attach's service-account token (Kubernetes fills it in).
        json!({"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/service-account-token",
               "metadata": {"name": "runner-token-x7k2p",
                            "annotations": {"kubernetes.io/service-account.name": "runner"}}}),
        // *.vp.yaml
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
               "metadata": {"name": format!("volume-provisioner-runner-{ns}"), "labels": {"app": "dind-volume-provisioner"}},
               "rules": [{"apiGroups": [""], "resources": ["persistentvolumes"], "verbs": ["get"]}]}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
               "metadata": {"name": format!("volume-provisioner-runner-{ns}"), "labels": {"app": "dind-volume-provisioner-runner"}},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                           "name": format!("volume-provisioner-runner-{ns}")},
               "subjects": [{"kind": "ServiceAccount", "name": "volume-provisioner-runner", "namespace": ns}]}),
    ];
    let annotations = match backend {
        Backend::EbsIrsa => json!({"eks.amazonaws.com/role-arn": ROLE}),
        _ => json!({}),
    };
    objects.push(json!({"apiVersion": "v1", "kind": "ServiceAccount",
        "metadata": {"name": "volume-provisioner-runner", "labels": {"app": "dind-volume-provisioner"},
                     "annotations": annotations}}));
    // secret.dind-volume-provisioner.vp.yaml: rendered always, with the keys given.
    let keys = match backend {
        Backend::EbsKeys => {
            json!({"aws_access_key_id": AWS_ID, "aws_secret_access_key": AWS_SECRET})
        }
        Backend::GceKey => json!({"google-service-account.json": google_key()}),
        Backend::AzureJson | Backend::EbsIrsa => json!({}),
    };
    objects.push(json!({"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
        "metadata": {"name": "dind-volume-provisioner-runner", "labels": {"app": "dind-volume-provisioner"}},
        "stringData": keys}));
    let mut env = vec![json!({"name": "PROVISIONER_NAME", "value": provisioner})];
    let (mut mounts, mut volumes) = (vec![], vec![]);
    match backend {
        Backend::EbsKeys => {
            for (var, key) in [
                ("AWS_ACCESS_KEY_ID", "aws_access_key_id"),
                ("AWS_SECRET_ACCESS_KEY", "aws_secret_access_key"),
            ] {
                env.push(json!({"name": var, "valueFrom": {"secretKeyRef":
                    {"name": "dind-volume-provisioner-runner", "key": key}}}));
            }
        }
        Backend::GceKey => {
            env.push(json!({"name": "GOOGLE_APPLICATION_CREDENTIALS",
                            "value": "/etc/dind-volume-provisioner/credentials/google-service-account.json"}));
            mounts.push(json!({"name": "credentials", "readOnly": true,
                               "mountPath": "/etc/dind-volume-provisioner/credentials"}));
            volumes.push(json!({"name": "credentials", "secret": {"secretName": "dind-volume-provisioner-runner"}}));
        }
        Backend::AzureJson => {
            env.push(
                json!({"name": "AZURE_CREDENTIAL_FILE", "value": "/etc/kubernetes/azure.json"}),
            );
            mounts.push(json!({"name": "azure-json", "readOnly": true, "mountPath": "/etc/kubernetes/azure.json"}));
            volumes.push(json!({"name": "azure-json", "hostPath": {"path": "/etc/kubernetes/azure.json", "type": "File"}}));
        }
        Backend::EbsIrsa => {}
    }
    objects.push(json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "dind-volume-provisioner-runner", "labels": {"app": "dind-volume-provisioner"}},
        "spec": {"replicas": 0, "strategy": {"type": "Recreate"},
                 "selector": {"matchLabels": {"app": "dind-volume-provisioner"}},
                 "template": {"metadata": {"labels": {"app": "dind-volume-provisioner"}},
                              "spec": {"serviceAccount": "volume-provisioner-runner",
                                       "containers": [{"name": "dind-volume-provisioner",
                                                       "image": "codefresh/dind-volume-provisioner:1.34.3",
                                                       "command": ["/usr/local/bin/dind-volume-provisioner", "-v=4", "--resync-period=50s"],
                                                       "env": env, "volumeMounts": mounts}],
                                       "volumes": volumes}}}}));
    let parameters = match backend {
        Backend::EbsKeys | Backend::EbsIrsa => json!({"volumeBackend": "ebs", "VolumeType": "gp2",
            "AvailabilityZone": "us-east-1a", "fsType": "ext4", "encrypted": "false"}),
        Backend::GceKey => {
            json!({"volumeBackend": "gcedisk", "type": "pd-ssd", "zone": "us-central1-a", "fsType": "ext4"})
        }
        Backend::AzureJson => {
            json!({"volumeBackend": "azuredisk", "kind": "managed", "skuName": "Premium_LRS",
            "fsType": "ext4", "cachingMode": "None"})
        }
    };
    objects.push(json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
        "metadata": {"name": format!("dind-local-volumes-runner-{ns}"), "labels": {"app": "dind-volume-provisioner"}},
        "provisioner": provisioner, "parameters": parameters}));
    // cron-job.dind-volume-cleanup.vp.yaml (served as batch/v1 today).
    objects.push(json!({"apiVersion": "batch/v1", "kind": "CronJob",
        "metadata": {"name": "dind-volume-cleanup-runner", "labels": {"app": "dind-volume-cleanup"}},
        "spec": {"schedule": "0,10,20,30,40,50 * * * *", "concurrencyPolicy": "Forbid", "suspend": true,
                 "jobTemplate": {"spec": {"template": {"spec": {
                     "serviceAccountName": "volume-provisioner-runner", "restartPolicy": "Never",
                     "containers": [{"name": "dind-volume-cleanup", "image": "codefresh/dind-volume-cleanup:1.2.0",
                                     "env": [{"name": "PROVISIONED_BY", "value": provisioner}]}]}}}}}}));
    apply(cp, ns, &objects);
    // A run of the cleanup, owned by its CronJob as the controller's are.
    let job = cp
        .kubectl()
        .args([
            "-n",
            ns,
            "create",
            "job",
            "dind-volume-cleanup-runner-29000000",
        ])
        .arg("--from=cronjob/dind-volume-cleanup-runner")
        .output()
        .unwrap();
    assert!(job.status.success(), "{}", text(&job));
}

/// Every object in `ns` (and cluster-wide, named after it) of the kinds
/// either tool makes, as `Kind/name`: what the plan must account for.
fn objects_of(cp: &ControlPlane, ns: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (scope, kinds) in [
        (
            Some(ns),
            "deployments,daemonsets,cronjobs,jobs,secrets,configmaps,serviceaccounts,services,roles,rolebindings,ingresses",
        ),
        (None, "storageclasses,clusterroles,clusterrolebindings"),
    ] {
        let mut cmd = cp.kubectl();
        if let Some(ns) = scope {
            cmd.args(["-n", ns]);
        }
        let got = cmd.args(["get", kinds, "-o", "json"]).output().unwrap();
        assert!(got.status.success(), "{}", text(&got));
        let list: Value = serde_json::from_slice(&got.stdout).unwrap();
        for item in list["items"].as_array().unwrap() {
            let name = item["metadata"]["name"].as_str().unwrap();
            let of_ns = scope.is_some()
                || name.ends_with(&format!("-{ns}"))
                || item["provisioner"]
                    .as_str()
                    .is_some_and(|p| p.ends_with(&format!("-{ns}")));
            let kubernetes_own = name == "default" && item["kind"] == "ServiceAccount"
                || name == "kube-root-ca.crt";
            if of_ns && !kubernetes_own {
                out.push(format!("{}/{name}", item["kind"].as_str().unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// The plan's lines, every section together.
fn plan_lines(shown: &str) -> Vec<String> {
    [
        "taken over",
        "replaced",
        "same name, different pod selector",
        "removed",
        "left alone",
    ]
    .iter()
    .flat_map(|h| section(shown, h))
    .map(str::to_string)
    .collect()
}

/// Old objects no line of the plan names.
fn unlisted(objects: &[String], shown: &str) -> Vec<String> {
    let lines = plan_lines(shown);
    objects
        .iter()
        .filter(|o| {
            !lines
                .iter()
                .any(|l| l == *o || l.starts_with(&format!("{o} ")))
        })
        .cloned()
        .collect()
}

/// What a variable of a container resolves to.
#[derive(Debug, PartialEq, Eq)]
enum Resolved {
    /// Bytes from a Secret (an env `secretKeyRef`, or a file of a mounted Secret).
    Bytes(Vec<u8>),
    /// A file of the node (a hostPath mount).
    HostFile(String),
    Missing(String),
}

fn secret_data(cp: &ControlPlane, ns: &str, name: &str) -> Option<BTreeMap<String, Vec<u8>>> {
    let out = cp
        .kubectl()
        .args(["-n", ns, "get", "secret", name, "-o", "json"])
        .output()
        .unwrap();
    if !out.status.success() {
        return None;
    }
    let secret: Value = serde_json::from_slice(&out.stdout).unwrap();
    let b64 = base64::engine::general_purpose::STANDARD;
    Some(
        secret["data"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), b64.decode(v.as_str().unwrap()).unwrap()))
            .collect(),
    )
}

/// `var` of the first container of Deployment `name`, resolved the way
/// the kubelet would: a literal, a Secret's key, or (for a path) the file
/// of the volume mounted there.
fn resolve(cp: &ControlPlane, ns: &str, deployment: &str, var: &str) -> Resolved {
    let out = cp
        .kubectl()
        .args(["-n", ns, "get", "deployment", deployment, "-o", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let d: Value = serde_json::from_slice(&out.stdout).unwrap();
    let spec = &d["spec"]["template"]["spec"];
    let container = &spec["containers"][0];
    let Some(env) = container["env"]
        .as_array()
        .and_then(|e| e.iter().find(|e| e["name"] == var))
    else {
        return Resolved::Missing(format!("no {var} in Deployment/{deployment}"));
    };
    let from = &env["valueFrom"]["secretKeyRef"];
    if from.is_object() {
        let data = secret_data(cp, ns, from["name"].as_str().unwrap()).unwrap_or_default();
        return match data.get(from["key"].as_str().unwrap()) {
            Some(b) => Resolved::Bytes(b.clone()),
            None => Resolved::Missing(format!("{from}")),
        };
    }
    let path = env["value"].as_str().unwrap_or_default();
    for m in container["volumeMounts"].as_array().into_iter().flatten() {
        let mp = m["mountPath"].as_str().unwrap();
        let inside = if path == mp {
            ""
        } else if let Some(rest) = path.strip_prefix(&format!("{mp}/")) {
            rest
        } else {
            continue;
        };
        let volume = spec["volumes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == m["name"])
            .unwrap();
        if let Some(secret) = volume["secret"]["secretName"].as_str() {
            let data = secret_data(cp, ns, secret).unwrap_or_default();
            return match data.get(inside) {
                Some(b) => Resolved::Bytes(b.clone()),
                None => Resolved::Missing(format!("{secret} has no {inside}")),
            };
        }
        if let Some(host) = volume["hostPath"]["path"].as_str() {
            return Resolved::HostFile(format!("{host}{inside}"));
        }
    }
    Resolved::Missing(format!("{var}={path} is not mounted"))
}

/// Secrets in `ns` with `needle` in one of their values.
fn secrets_holding(cp: &ControlPlane, ns: &str, needle: &str) -> Vec<String> {
    let out = cp
        .kubectl()
        .args(["-n", ns, "get", "secrets", "-o", "json"])
        .output()
        .unwrap();
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let b64 = base64::engine::general_purpose::STANDARD;
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| {
            s["data"].as_object().into_iter().flatten().any(|(_, v)| {
                let bytes = b64
                    .decode(v.as_str().unwrap_or_default())
                    .unwrap_or_default();
                String::from_utf8_lossy(&bytes).contains(needle)
            })
        })
        .map(|s| s["metadata"]["name"].as_str().unwrap().to_string())
        .collect()
}

fn delete(cp: &ControlPlane, home: &Path, ns: &str, fake: &FakePlatform) {
    let url = fake.url();
    let gone = isolated(cp.admin_kubeconfig(), home)
        .args([
            "delete",
            "--yes",
            "--kube-namespace",
            ns,
            "--token",
            fake.token(),
        ])
        .args(["--url", &url, "--timeout", "90s"])
        .output()
        .unwrap();
    assert_eq!(gone.status.code(), Some(0), "{}", text(&gone));
}

fn move_args(ns: &str, fake: &FakePlatform) -> Vec<String> {
    [
        "--yes",
        "--kube-namespace",
        ns,
        "--token",
        fake.token(),
        "--url",
        &fake.url(),
        "--timeout",
        "90s",
    ]
    .iter()
    .map(|a| a.to_string())
    .collect()
}

async fn wait_for_runner(cp: &ControlPlane, ns: &str, deployment: &str) {
    let ns = ns.to_string();
    let deployment = deployment.to_string();
    controlplane::poll_until(
        "the old runner to be ready",
        Duration::from_secs(90),
        || {
            let out = cp
                .kubectl()
                .args(["-n", &ns, "get", "deployment", &deployment])
                .args(["-o", "jsonpath={.status.readyReplicas}"])
                .output()
                .unwrap();
            let ready = String::from_utf8_lossy(&out.stdout).trim() == "1";
            async move { Ok(ready) }
        },
    )
    .await
    .unwrap();
}

/// A venonactl install of `backend` is moved: the plan names every object
/// and each credential, the saved file holds no key, cf-runner's
/// provisioner reads the same key, and `delete` leaves no Secret with it.
async fn venonactl_move(prefix: &str, backend: Backend) {
    let cp = controlplane::shared();
    let ns = cp.create_namespace(prefix).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let fake = FakePlatform::start(USER_TOKEN);
    let runtime = register_like_venonactl(&fake, &ns);
    install_venonactl(cp, &ns, backend, &runtime);
    wait_for_runner(cp, &ns, "runner").await;
    let before = objects_of(cp, &ns);

    // The plan: every old object under one heading, every credential named.
    let file = home.path().join("adopted.yaml");
    let out = adopt(
        cp,
        home.path(),
        &[
            "--dry-run",
            "--kube-namespace",
            &ns,
            "--values-file",
            file.to_str().unwrap(),
        ],
    );
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(0), "{shown}");
    assert_eq!(unlisted(&before, &shown), Vec::<String>::new(), "{shown}");
    let removed = section(&shown, "removed");
    for gone in [
        "CronJob/dind-volume-cleanup-runner",
        "Secret/runner-token-x7k2p",
        "Secret/runnerconf",
    ] {
        assert!(
            removed.contains(&gone)
                || section(&shown, "replaced")
                    .iter()
                    .any(|l| l.starts_with(gone)),
            "{gone} is neither removed nor replaced\n{shown}"
        );
    }
    let credentials = section(&shown, "credentials");
    let saved = std::fs::read_to_string(&file).unwrap();
    let values: Value = serde_yaml_ng::from_str(&saved).unwrap();
    // The runtime environment's name, from runnerconf's name: entry.
    assert_eq!(values["RuntimeEnvironmentName"], json!(runtime), "{saved}");
    for secret in [AWS_ID, AWS_SECRET, "ADOPT-E2E-GOOGLE-KEY", AGENT_TOKEN] {
        assert!(
            !saved.contains(secret) && !shown.contains(secret),
            "{shown}\n{saved}"
        );
    }
    match backend {
        Backend::EbsKeys => {
            assert!(
                credentials.iter().any(|l| l.contains(
                    "Secret/dind-volume-provisioner-runner key aws_secret_access_key -> cf-runner's Secret/dind-volume-provisioner key aws_secret_access_key"
                )),
                "{shown}"
            );
            assert!(saved.contains("Storage.AwsAccessKeyId"), "{saved}");
        }
        Backend::GceKey => assert!(
            credentials
                .iter()
                .any(|l| l.contains("key google-service-account.json -> cf-runner's Secret")),
            "{shown}"
        ),
        Backend::AzureJson => {
            assert!(
                credentials
                    .iter()
                    .any(|l| l.contains("the node's /etc/kubernetes/azure.json")),
                "{shown}"
            );
            assert_eq!(
                values["Storage"]["VolumeProvisioner"]["MountAzureJson"],
                json!(true),
                "{saved}"
            );
        }
        Backend::EbsIrsa => {
            assert!(credentials.iter().any(|l| l.contains(ROLE)), "{shown}");
            assert_eq!(
                values["Storage"]["VolumeProvisioner"]["ServiceAccount"]["Annotations"]
                    ["eks.amazonaws.com/role-arn"],
                json!(ROLE),
                "{saved}"
            );
        }
    }

    // The move.
    let args = move_args(&ns, &fake);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let moved = adopt(cp, home.path(), &args);
    let shown = text(&moved);
    assert_eq!(moved.status.code(), Some(0), "{shown}");
    for secret in [AWS_ID, AWS_SECRET, "ADOPT-E2E-GOOGLE-KEY", AGENT_TOKEN] {
        assert!(!shown.contains(secret), "{shown}");
    }
    // cf-runner's provisioner reads the same key.
    let new = "dind-volume-provisioner";
    match backend {
        Backend::EbsKeys => {
            assert_eq!(
                resolve(cp, &ns, new, "AWS_ACCESS_KEY_ID"),
                Resolved::Bytes(AWS_ID.into())
            );
            assert_eq!(
                resolve(cp, &ns, new, "AWS_SECRET_ACCESS_KEY"),
                Resolved::Bytes(AWS_SECRET.into())
            );
        }
        Backend::GceKey => assert_eq!(
            resolve(cp, &ns, new, "GOOGLE_APPLICATION_CREDENTIALS"),
            Resolved::Bytes(google_key().into_bytes())
        ),
        Backend::AzureJson => assert_eq!(
            resolve(cp, &ns, new, "AZURE_CREDENTIAL_FILE"),
            Resolved::HostFile("/etc/kubernetes/azure.json".into())
        ),
        Backend::EbsIrsa => {
            let sa = cp
                .kubectl()
                .args([
                    "-n",
                    &ns,
                    "get",
                    "serviceaccount",
                    "volume-provisioner",
                    "-o",
                ])
                .arg("jsonpath={.metadata.annotations.eks\\.amazonaws\\.com/role-arn}")
                .output()
                .unwrap();
            assert_eq!(String::from_utf8_lossy(&sa.stdout), ROLE);
            assert!(matches!(
                resolve(cp, &ns, new, "AWS_ACCESS_KEY_ID"),
                Resolved::Missing(_)
            ));
        }
    }
    // Nothing of the old install that only venonactl names is left
    // (cf-runner takes the class, `runner` and the shared names over).
    let after = objects_of(cp, &ns);
    let left: Vec<&String> = before
        .iter()
        .filter(|o| o.contains("-runner") && !o.starts_with("StorageClass/"))
        .filter(|o| after.contains(o))
        .collect();
    assert_eq!(left, Vec::<&String>::new(), "{shown}");
    assert_eq!(
        secret_text(cp, &ns, "runner", "codefresh.token"),
        AGENT_TOKEN
    );

    delete(cp, home.path(), &ns, &fake);
    for key in [
        AWS_ID,
        AWS_SECRET,
        "ADOPT-E2E-GOOGLE-KEY",
        "runner-sa-token",
    ] {
        assert_eq!(secrets_holding(cp, &ns, key), Vec::<String>::new(), "{key}");
    }
    let secrets = cp
        .kubectl()
        .args(["-n", &ns, "get", "secrets", "-o", "name"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&secrets.stdout).trim(), "");
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn adopt_carries_the_aws_keys_of_a_venonactl_ebs_install_and_lists_its_cronjob_and_tokens() {
    venonactl_move("adoptcredebs", Backend::EbsKeys).await;
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn adopt_carries_the_google_key_of_a_venonactl_gcedisk_install() {
    venonactl_move("adoptcredgce", Backend::GceKey).await;
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn adopt_carries_the_azure_json_mount_of_a_venonactl_azuredisk_install() {
    venonactl_move("adoptcredaz", Backend::AzureJson).await;
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn adopt_carries_the_iam_role_of_a_venonactl_ebs_install_with_irsa() {
    venonactl_move("adoptcredirsa", Backend::EbsIrsa).await;
}

/// The chart installed with `extra` values: moved, cf-runner's provisioner
/// reads the same AWS keys. Gives the namespace, home and platform.
async fn chart_move(ns: &str, extra: &str) -> (tempfile::TempDir, FakePlatform) {
    let cp = controlplane::shared();
    let ns = ns.to_string();
    let home = tempfile::tempdir().unwrap();
    let fake = FakePlatform::start(USER_TOKEN);
    register_like_the_chart(&fake, &ns);
    install_chart_with(cp, &ns, home.path(), extra);
    wait_for_runner(cp, &ns, "cf-runtime-runner").await;
    let before = objects_of(cp, &ns);

    let file = home.path().join("adopted.yaml");
    let out = adopt(
        cp,
        home.path(),
        &[
            "--dry-run",
            "--kube-namespace",
            &ns,
            "--values-file",
            file.to_str().unwrap(),
        ],
    );
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(0), "{shown}");
    assert_eq!(unlisted(&before, &shown), Vec::<String>::new(), "{shown}");
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(
        !saved.contains(AWS_SECRET) && !shown.contains(AWS_SECRET),
        "{saved}"
    );
    assert!(
        section(&shown, "replaced")
            .contains(&"CronJob/cf-runtime-volume-cleanup -> CronJob/dind-volume-cleanup"),
        "{shown}"
    );

    let args = move_args(&ns, &fake);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let moved = adopt(cp, home.path(), &args);
    let shown = text(&moved);
    assert_eq!(moved.status.code(), Some(0), "{shown}");
    assert!(!shown.contains(AWS_SECRET), "{shown}");
    let new = "dind-volume-provisioner";
    assert_eq!(
        resolve(cp, &ns, new, "AWS_ACCESS_KEY_ID"),
        Resolved::Bytes(AWS_ID.into())
    );
    assert_eq!(
        resolve(cp, &ns, new, "AWS_SECRET_ACCESS_KEY"),
        Resolved::Bytes(AWS_SECRET.into())
    );
    (home, fake)
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn adopt_carries_the_aws_keys_the_chart_was_given_and_keeps_a_users_secret() {
    let cp = controlplane::shared();
    // storage.ebs.accessKeyId / secretAccessKey: the chart's own Secret.
    let ns = cp.create_namespace("adoptcredchart").await.unwrap();
    let (home, fake) = chart_move(
        &ns,
        &format!(
            "storage:\n  backend: ebs\n  ebs:\n    availabilityZone: us-east-1a\n    \
             accessKeyId: {AWS_ID}\n    secretAccessKey: {AWS_SECRET}\n"
        ),
    )
    .await;
    delete(cp, home.path(), &ns, &fake);
    assert_eq!(secrets_holding(cp, &ns, AWS_SECRET), Vec::<String>::new());

    // …SecretKeyRef: a Secret of the user's, read where it is and never deleted.
    let users = "my-aws-keys";
    let ns = cp.create_namespace("adoptcredref").await.unwrap();
    apply(
        cp,
        &ns,
        &[
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": users},
                 "stringData": {"id": AWS_ID, "secret": AWS_SECRET}}),
        ],
    );
    let (home, fake) = chart_move(
        &ns,
        &format!(
            "storage:\n  backend: ebs\n  ebs:\n    availabilityZone: us-east-1a\n    \
             accessKeyIdSecretKeyRef:\n      name: {users}\n      key: id\n    \
             secretAccessKeySecretKeyRef:\n      name: {users}\n      key: secret\n"
        ),
    )
    .await;
    let provisioner = cp
        .kubectl()
        .args([
            "-n",
            &ns,
            "get",
            "deployment",
            "dind-volume-provisioner",
            "-o",
            "json",
        ])
        .output()
        .unwrap();
    let provisioner: Value = serde_json::from_slice(&provisioner.stdout).unwrap();
    assert_eq!(
        provisioner["spec"]["template"]["spec"]["containers"][0]["env"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == "AWS_SECRET_ACCESS_KEY")
            .unwrap()["valueFrom"]["secretKeyRef"],
        json!({"name": users, "key": "secret"})
    );
    delete(cp, home.path(), &ns, &fake);
    // The user's Secret stays, the only one holding the key.
    assert_eq!(
        secrets_holding(cp, &ns, AWS_SECRET),
        vec![users.to_string()]
    );
}

/// venonactl's provisioner Secret as adopt cannot recognise it: without
/// venonactl's labels. With `stale_keys` the install no longer reads it
/// (IRSA, as after a switch from keys; a local-volumes install is the
/// same case) but it still holds AWS keys.
fn unlabel_provisioner_secret(cp: &ControlPlane, ns: &str, stale_keys: bool) {
    let secret = "dind-volume-provisioner-runner";
    let out = cp
        .kubectl()
        .args(["-n", ns, "label", "secret", secret, "app-"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    if stale_keys {
        let keys = json!({"stringData": {"aws_access_key_id": AWS_ID, "aws_secret_access_key": AWS_SECRET}});
        let out = cp
            .kubectl()
            .args(["-n", ns, "patch", "secret", secret, "--type=merge", "-p"])
            .arg(keys.to_string())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
    }
}

/// A venonactl install whose provisioner Secret holds AWS keys but lacks
/// venonactl's labels, moved and deleted: the plan lists the Secret (never
/// as "yours") with the command that removes it, neither adopt nor delete
/// deletes it, `delete` names it as left with that command, and the
/// command, run as printed, leaves no Secret holding the keys.
async fn credential_left_named(prefix: &str, backend: Backend) {
    let cp = controlplane::shared();
    let ns = cp.create_namespace(prefix).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let fake = FakePlatform::start(USER_TOKEN);
    let runtime = register_like_venonactl(&fake, &ns);
    install_venonactl(cp, &ns, backend, &runtime);
    unlabel_provisioner_secret(cp, &ns, backend == Backend::EbsIrsa);
    wait_for_runner(cp, &ns, "runner").await;
    let before = objects_of(cp, &ns);
    let secret = "dind-volume-provisioner-runner";

    let out = adopt(cp, home.path(), &["--dry-run", "--kube-namespace", &ns]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(0), "{shown}");
    assert_eq!(unlisted(&before, &shown), Vec::<String>::new(), "{shown}");
    let command = format!("kubectl -n {ns} delete secret {secret}");
    let left_alone = section(&shown, "left alone");
    let line = left_alone
        .iter()
        .find(|l| l.starts_with(&format!("Secret/{secret} (")))
        .unwrap_or_else(|| panic!("Secret/{secret} is not left alone:\n{shown}"));
    assert!(
        line.contains(&command) && !line.contains("yours"),
        "{shown}"
    );
    assert!(
        !shown
            .lines()
            .any(|l| l.contains(secret) && l.contains("yours")),
        "{shown}"
    );
    assert!(!shown.contains(AWS_SECRET), "{shown}");

    let args = move_args(&ns, &fake);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let moved = adopt(cp, home.path(), &args);
    assert_eq!(moved.status.code(), Some(0), "{}", text(&moved));
    if backend == Backend::EbsKeys {
        assert_eq!(
            resolve(cp, &ns, "dind-volume-provisioner", "AWS_SECRET_ACCESS_KEY"),
            Resolved::Bytes(AWS_SECRET.into())
        );
    }
    assert_eq!(
        secrets_holding(cp, &ns, AWS_SECRET),
        vec![secret.to_string()]
    );

    let gone = isolated(cp.admin_kubeconfig(), home.path())
        .args([
            "delete",
            "--yes",
            "--kube-namespace",
            &ns,
            "--token",
            fake.token(),
        ])
        .args(["--url", &fake.url(), "--timeout", "90s"])
        .output()
        .unwrap();
    let said = text(&gone);
    assert_eq!(gone.status.code(), Some(0), "{said}");
    assert!(!said.contains("verified: nothing is left"), "{said}");
    let named = said
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("Secret/{secret}: ")))
        .unwrap_or_else(|| panic!("delete does not name Secret/{secret}:\n{said}"));
    assert!(
        named.contains("aws_access_key_id, aws_secret_access_key") && !named.contains(AWS_SECRET),
        "{named}"
    );
    // cf-runner deleted nothing it did not write; the command it printed
    // removes the key.
    assert_eq!(
        secrets_holding(cp, &ns, AWS_SECRET),
        vec![secret.to_string()]
    );
    let printed = named
        .split_once("kubectl ")
        .map(|(_, rest)| rest.trim())
        .unwrap_or_else(|| panic!("no command in {named}"));
    let run = cp
        .kubectl()
        .args(printed.split_whitespace())
        .output()
        .unwrap();
    assert!(run.status.success(), "{printed}: {}", text(&run));
    assert_eq!(secrets_holding(cp, &ns, AWS_SECRET), Vec::<String>::new());
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn an_unlabelled_venonactl_provisioner_secret_with_keys_is_named_by_the_plan_and_by_delete() {
    credential_left_named("adoptleftebs", Backend::EbsKeys).await;
}

#[tokio::test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
async fn an_unread_venonactl_provisioner_secret_with_stale_keys_is_named_by_the_plan_and_by_delete()
{
    credential_left_named("adoptleftirsa", Backend::EbsIrsa).await;
}
