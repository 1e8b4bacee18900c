//! Properties every render must have, checked on every example in-process:
//! the labels delete relies on, pinned images, no token in an env literal,
//! least-privilege RBAC, and scheduling/proxy settings reaching the right pods.

use std::path::PathBuf;

use cf_runner::render::{self, Identity, Manifest, Rendered};
use cf_runner::values::{self, Input, ValuesFile};
use serde_json::Value;

fn load_example(name: &str) -> values::Loaded {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("values-examples")
        .join(format!("{name}.yaml"));
    let input = Input {
        files: vec![ValuesFile {
            origin: path.display().to_string(),
            text: std::fs::read_to_string(&path).unwrap(),
        }],
        ..Default::default()
    };
    values::load(&input).unwrap_or_else(|p| panic!("{name}: {p}"))
}

fn render_example(name: &str) -> Rendered {
    let loaded = load_example(name);
    let identity = Identity {
        context: loaded.values.context.clone(),
        ..Default::default()
    };
    render::render(&loaded.values, &identity, &loaded.redacted_tree).unwrap()
}

const EXAMPLES: &[&str] = &[
    "local",
    "ebs-gp3",
    "ebs-csi",
    "gcedisk-sa-json",
    "gcedisk-workload-identity",
    "gke-local-ssd",
    "azuredisk",
    "behind-a-proxy",
    "arm64",
    "app-proxy-monitor",
    "custom-storage-class",
];

fn pod_spec(m: &Manifest) -> Option<&Value> {
    match m.kind.as_str() {
        "Deployment" | "DaemonSet" => m.object.pointer("/spec/template/spec"),
        "CronJob" => m.object.pointer("/spec/jobTemplate/spec/template/spec"),
        _ => None,
    }
}

fn containers(m: &Manifest) -> Vec<&Value> {
    pod_spec(m)
        .into_iter()
        .flat_map(|s| {
            ["containers", "initContainers"]
                .into_iter()
                .filter_map(|k| s.get(k).and_then(Value::as_array))
                .flatten()
        })
        .collect()
}

fn find<'a>(r: &'a Rendered, kind: &str, name: &str) -> &'a Manifest {
    r.manifests
        .iter()
        .find(|m| m.kind == kind && m.name == name)
        .unwrap_or_else(|| panic!("{kind}/{name} not rendered"))
}

#[test]
fn every_object_carries_the_labels_delete_relies_on() {
    for ex in EXAMPLES {
        let r = render_example(ex);
        let namespace = load_example(ex).values.namespace;
        for m in &r.manifests {
            let labels = m.object.pointer("/metadata/labels").unwrap();
            assert_eq!(
                labels["app.kubernetes.io/managed-by"],
                "cf-runner",
                "{ex} {}",
                m.display_name()
            );
            assert_eq!(labels["app.kubernetes.io/part-of"], "codefresh-runner");
            assert_eq!(labels["app.kubernetes.io/instance"], namespace.as_str());
            assert!(labels.get("app.kubernetes.io/component").is_some());
            let cluster_scoped = [
                "Namespace",
                "StorageClass",
                "ClusterRole",
                "ClusterRoleBinding",
            ]
            .contains(&m.kind.as_str());
            assert_eq!(
                m.namespace.is_none(),
                cluster_scoped,
                "{ex} {}",
                m.display_name()
            );
        }
    }
}

#[test]
fn images_are_pinned_and_no_token_is_an_env_literal() {
    for ex in EXAMPLES {
        let r = render_example(ex);
        for m in &r.manifests {
            for c in containers(m) {
                let image = c["image"].as_str().unwrap();
                assert!(
                    image.contains("@sha256:"),
                    "{ex} {}: {image} has no digest",
                    m.display_name()
                );
                assert!(!image.contains(":latest"), "{image}");
                for env in c.get("env").and_then(Value::as_array).into_iter().flatten() {
                    let name = env["name"].as_str().unwrap();
                    if name.contains("TOKEN") || name.contains("SECRET") || name.contains("KEY") {
                        assert!(
                            env.get("value").is_none(),
                            "{ex} {}: {name} is a literal",
                            m.display_name()
                        );
                    }
                }
            }
        }
    }
}

/// Settings beyond the examples that change RBAC: the monitor's views
/// (namespaced or not, with or without Helm releases), the app-proxy, the
/// cluster integration, each storage backend by flag-like values.
const RBAC_SETTINGS: &[&str] = &[
    "",
    "Monitor:\n  Enabled: true\n",
    "Monitor:\n  Enabled: true\n  Helm3: true\n",
    "Monitor:\n  Enabled: true\n  UseNamespaceWithRole: false\n",
    "Monitor:\n  Enabled: true\n  UseNamespaceWithRole: false\n  Helm3: true\n",
    "AppProxy:\n  Enabled: true\n  Ingress:\n    Host: ap.example.com\n",
    "SkipClusterIntegration: true\n",
    "Storage:\n  Backend: ebs\n  AvailabilityZone: us-east-1a\n",
    "Storage:\n  Backend: gcedisk\n  AvailabilityZone: us-central1-a\n",
    "Storage:\n  Backend: local\nMonitor:\n  Enabled: true\n  UseNamespaceWithRole: false\n  Helm3: true\nAppProxy:\n  Enabled: true\n  Ingress:\n    Host: ap.example.com\n",
    "StorageClass: fast-ssd\n",
    "EventExporter:\n  Enabled: true\nMetrics:\n  ServiceMonitors: true\n  PodMonitors: true\n",
];

fn render_settings(extra: &str) -> (Rendered, values::Values) {
    let input = Input {
        files: vec![ValuesFile {
            origin: "test.yaml".into(),
            text: format!("Context: c\nNamespace: ns\n{extra}"),
        }],
        ..Default::default()
    };
    let loaded = values::load(&input).unwrap_or_else(|p| panic!("{extra}: {p}"));
    let identity = Identity {
        context: Some("c".into()),
        ..Default::default()
    };
    let r = render::render(&loaded.values, &identity, &loaded.redacted_tree).unwrap();
    (r, loaded.values)
}

/// Every render to check: the examples and [`RBAC_SETTINGS`], each with the
/// values it came from.
fn rbac_renders() -> Vec<(String, Rendered, values::Values)> {
    let mut out: Vec<(String, Rendered, values::Values)> = EXAMPLES
        .iter()
        .map(|ex| (ex.to_string(), render_example(ex), load_example(ex).values))
        .collect();
    for extra in RBAC_SETTINGS {
        let (r, v) = render_settings(extra);
        out.push((format!("settings {extra:?}"), r, v));
    }
    out
}

/// Resources whose `create` starts a pod (under any account of the
/// namespace): cluster-wide, that is every account of the cluster.
const STARTS_PODS: &[(&str, &str)] = &[
    ("", "pods"),
    ("", "replicationcontrollers"),
    ("apps", "deployments"),
    ("apps", "replicasets"),
    ("apps", "statefulsets"),
    ("apps", "daemonsets"),
    ("batch", "jobs"),
    ("batch", "cronjobs"),
];

#[test]
fn rbac_is_least_privilege() {
    let renders = rbac_renders();
    assert!(renders.len() >= 20, "{}", renders.len());
    for (case, r, v) in &renders {
        for m in &r.manifests {
            if m.kind.ends_with("Binding") {
                let role = m.object["roleRef"]["name"].as_str().unwrap();
                for broad in ["cluster-admin", "admin", "edit", "view"] {
                    assert_ne!(role, broad, "{case} {}", m.display_name());
                }
            }
            if m.kind == "ClusterRole" || m.kind == "Role" {
                for rule in m.object["rules"].as_array().unwrap() {
                    for field in ["verbs", "resources", "apiGroups"] {
                        assert!(
                            !rule[field].as_array().unwrap().iter().any(|v| v == "*"),
                            "{case} {} grants * in {field}",
                            m.display_name()
                        );
                    }
                }
            }
            if m.kind == "ClusterRole" {
                // Nothing may start a pod in every namespace.
                for rule in m.object["rules"].as_array().unwrap() {
                    let has = |field: &str, want: &str| {
                        rule[field].as_array().unwrap().iter().any(|x| x == want)
                    };
                    for (group, resource) in STARTS_PODS {
                        assert!(
                            !(has("apiGroups", group)
                                && has("resources", resource)
                                && has("verbs", "create")),
                            "{case} {} may create {resource} in every namespace",
                            m.display_name()
                        );
                    }
                    assert!(
                        !has("resources", "serviceaccounts/token"),
                        "{case} {} may mint tokens in every namespace",
                        m.display_name()
                    );
                }
            }
        }
        // Secrets are read cluster-wide only where the one setting that
        // asks for it is on (the monitor's Helm-release view without its
        // namespaced Role), and `check` warns of exactly those.
        let readers: Vec<String> = render::cluster_wide_secret_readers(r)
            .iter()
            .map(|m| m.display_name())
            .collect();
        let asked = v.monitor.enabled && v.monitor.helm_releases && !v.monitor.namespaced;
        let expected: Vec<String> = if asked {
            vec![format!("ClusterRole/monitor-reader-{}", v.namespace)]
        } else {
            Vec::new()
        };
        assert_eq!(readers, expected, "{case}");
        if r.manifests
            .iter()
            .any(|m| m.component == render::Component::VolumeProvisioner && m.kind == "ClusterRole")
        {
            // The provisioner's Secrets, pods and locks are this namespace's.
            let role = find(r, "Role", "volume-provisioner");
            let rules = role.object["rules"].to_string();
            for resource in ["secrets", "pods", "endpoints", "leases"] {
                assert!(rules.contains(resource), "{case}: {rules}");
            }
        }
        let runner = find(r, "Role", "runner");
        assert_eq!(
            runner.object["rules"][0]["verbs"],
            serde_json::json!(["get", "create", "delete", "patch"])
        );
    }
}

#[test]
fn storage_backends_render_their_own_cleaner_and_parameters() {
    let local = render_example("local");
    assert!(local.manifests.iter().any(|m| m.kind == "DaemonSet"));
    assert!(!local.manifests.iter().any(|m| m.kind == "CronJob"));
    for ex in ["ebs-gp3", "ebs-csi", "gcedisk-sa-json", "azuredisk"] {
        let r = render_example(ex);
        assert!(
            r.manifests
                .iter()
                .any(|m| m.kind == "CronJob" && m.api_version == "batch/v1"),
            "{ex}"
        );
        assert!(!r.manifests.iter().any(|m| m.kind == "DaemonSet"), "{ex}");
    }
    let ebs = find(
        &render_example("ebs-gp3"),
        "StorageClass",
        "dind-local-volumes-runner-codefresh",
    )
    .object
    .clone();
    assert_eq!(ebs["parameters"]["iops"], "5000");
    assert_eq!(ebs["parameters"]["VolumeType"], "gp3");
    assert_eq!(
        ebs["provisioner"],
        "codefresh.io/dind-volume-provisioner-runner-codefresh"
    );
    let sa = find(
        &render_example("ebs-gp3"),
        "ServiceAccount",
        "volume-provisioner",
    )
    .object
    .clone();
    assert!(sa["metadata"]["annotations"]["eks.amazonaws.com/role-arn"].is_string());

    let custom = render_example("custom-storage-class");
    assert!(!custom
        .manifests
        .iter()
        .any(|m| m.component == render::Component::VolumeProvisioner));
    assert_eq!(
        custom.runtime_environment["dockerDaemonScheduler"]["pvcs"][0]["storageClassName"],
        "fast-ssd"
    );

    let gce = render_example("gcedisk-sa-json");
    let dep = find(&gce, "Deployment", "dind-volume-provisioner");
    let env = &containers(dep)[0]["env"];
    assert!(env
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["name"] == "GOOGLE_APPLICATION_CREDENTIALS"));
}

#[test]
fn scheduling_proxies_and_arch_reach_the_right_pods() {
    let arm = render_example("arm64");
    for m in arm.manifests.iter().filter(|m| pod_spec(m).is_some()) {
        let spec = pod_spec(m).unwrap();
        assert_eq!(
            spec["nodeSelector"]["kubernetes.io/arch"],
            "arm64",
            "{}",
            m.display_name()
        );
        assert!(
            spec["tolerations"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t["value"] == "aarch64"),
            "{}",
            m.display_name()
        );
    }
    let runner = pod_spec(find(&arm, "Deployment", "runner")).unwrap();
    assert_eq!(runner["nodeSelector"]["arch"], "arm");
    assert_eq!(
        arm.runtime_environment["dockerDaemonScheduler"]["cluster"]["nodeSelector"]
            ["kubernetes.io/arch"],
        "arm64"
    );
    assert_eq!(
        arm.runtime_environment["runtimeScheduler"]["tolerations"][0]["value"],
        "aarch64"
    );

    let proxy = render_example("behind-a-proxy");
    for m in proxy.manifests.iter().filter(|m| m.kind == "Deployment") {
        let env = &containers(m)[0]["env"];
        for name in ["HTTPS_PROXY", "https_proxy", "NO_PROXY"] {
            assert!(
                env.as_array().unwrap().iter().any(|e| e["name"] == name),
                "{} lacks {name}",
                m.display_name()
            );
        }
        for c in containers(m) {
            assert!(c["image"]
                .as_str()
                .unwrap()
                .starts_with("registry.internal.example.com/quay/codefresh/"));
        }
    }
    assert_eq!(
        proxy.runtime_environment["runtimeScheduler"]["envVars"]["HTTP_PROXY"],
        "http://proxy.internal.example.com:3128"
    );
    let daemon = find(&proxy, "ConfigMap", "codefresh-dind-config").object["data"]["daemon.json"]
        .as_str()
        .unwrap()
        .to_string();
    let daemon: Value = serde_json::from_str(&daemon).unwrap();
    assert_eq!(daemon["mtu"], 1440);
    assert_eq!(
        daemon["registry-mirrors"][0],
        "https://mirror.internal.example.com"
    );

    let full = render_example("app-proxy-monitor");
    let ingress = find(&full, "Ingress", "app-proxy");
    assert_eq!(ingress.object["spec"]["ingressClassName"], "nginx");
    assert_eq!(
        ingress.object["spec"]["tls"][0]["secretName"],
        "app-proxy-tls"
    );
    assert_eq!(
        ingress.object["spec"]["rules"][0]["http"]["paths"][0]["path"],
        "/app-proxy"
    );
    let monitor = find(&full, "Deployment", "monitor");
    let env = containers(monitor)[0]["env"].as_array().unwrap().clone();
    let token = env.iter().find(|e| e["name"] == "API_TOKEN").unwrap();
    assert_eq!(token["valueFrom"]["secretKeyRef"]["name"], "monitor");
    assert_eq!(
        full.runtime_environment["dockerDaemonScheduler"]["userVolumeMounts"]["certs"]["mountPath"],
        "/etc/ssl/internal"
    );
    assert_eq!(
        full.runtime_environment["dockerDaemonScheduler"]["defaultDindResources"]["limits"]
            ["memory"],
        "4Gi"
    );
}

#[test]
fn flags_beat_set_values_which_beat_files() {
    let input = Input {
        files: vec![ValuesFile {
            origin: "f".into(),
            text: "Namespace: from-file\nStorage:\n  Backend: local\nMonitor:\n  Enabled: true\n"
                .into(),
        }],
        set_values: vec!["Namespace=from-set".into(), "Monitor.Enabled=false".into()],
        overrides: vec![("Namespace".into(), Value::String("from-flag".into()))],
        ..Default::default()
    };
    let v = values::load(&input).unwrap().values;
    assert_eq!(v.namespace, "from-flag");
    assert!(
        !v.monitor.enabled,
        "--set-value overrides the file's boolean"
    );

    // A boolean set in a file is honoured (venonactl dropped it).
    let input = Input {
        files: vec![ValuesFile {
            origin: "f".into(),
            text: "Monitor:\n  Enabled: true\nInsecure: true\n".into(),
        }],
        ..Default::default()
    };
    let v = values::load(&input).unwrap().values;
    assert!(v.monitor.enabled && v.insecure);
}

#[test]
fn the_monitor_reads_secrets_only_with_its_helm_release_view() {
    let render_with = |extra: &str| {
        let input = Input {
            files: vec![ValuesFile {
                origin: "test.yaml".into(),
                text: format!("Context: c\nNamespace: ns\nMonitor:\n  Enabled: true\n{extra}"),
            }],
            ..Default::default()
        };
        let loaded = values::load(&input).unwrap();
        let identity = Identity {
            context: Some("c".into()),
            ..Default::default()
        };
        render::render(&loaded.values, &identity, &loaded.redacted_tree).unwrap()
    };
    let reads_secrets = |r: &Rendered| {
        find(r, "Role", "monitor").object["rules"]
            .as_array()
            .unwrap()
            .iter()
            .any(|rule| {
                rule["resources"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|v| v == "secrets")
            })
    };
    let helm3 = |r: &Rendered| {
        containers(find(r, "Deployment", "monitor"))[0]["env"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == "HELM3")
            .unwrap()["value"]
            .clone()
    };
    let off = render_with("");
    assert!(!reads_secrets(&off));
    assert_eq!(helm3(&off), "false");
    let on = render_with("  Helm3: true\n");
    assert!(reads_secrets(&on));
    assert_eq!(helm3(&on), "true");
}

/// The dry-run reads the templates' output with its own fast reader and
/// writes the export with its own writer (issue 11). On every example, each
/// document stays inside what the fast reader knows (so no template quietly
/// falls back to the slow path) and reads exactly as the full YAML parser
/// reads it; and every object written reads back unchanged.
#[test]
fn the_fast_yaml_path_reads_and_writes_what_the_full_parser_does() {
    for ex in EXAMPLES {
        let loaded = load_example(ex);
        let identity = Identity {
            context: loaded.values.context.clone(),
            ..Default::default()
        };
        let outputs =
            render::template_output(&loaded.values, &identity, &loaded.redacted_tree).unwrap();
        for (template, _, text) in outputs {
            for doc in render::split_documents(&text) {
                let general: Value = serde_yaml_ng::from_str(doc).unwrap();
                let known = render::yaml::parse_known(doc)
                    .unwrap_or_else(|| panic!("{ex} {template}: outside the fast subset:\n{doc}"));
                assert_eq!(known, general, "{ex} {template}:\n{doc}");
            }
        }
        let r = render_example(ex);
        let objects = r.manifests.iter().map(|m| &m.object);
        for object in objects.chain([&r.runtime_environment]) {
            let text = render::yaml::emit(object);
            let back: Value = serde_yaml_ng::from_str(&text).unwrap();
            assert_eq!(&back, object, "{ex}:\n{text}");
        }
    }
}

/// cf-runner reads these Secrets back (a re-run, `upgrade`, the cluster
/// integration): their names are constants of `render`, and each must be
/// a Secret the templates actually render, or the read finds nothing.
/// (`CREDENTIALS_SECRET` and `RECORD_SECRET` reach the templates as
/// context variables, so they cannot drift.)
#[test]
fn the_secret_names_cf_runner_reads_back_are_the_ones_the_templates_render() {
    let mut rendered: Vec<String> = Vec::new();
    for name in EXAMPLES {
        for m in render_example(name).manifests {
            if m.kind == "Secret" && !rendered.contains(&m.name) {
                rendered.push(m.name.clone());
            }
        }
    }
    for wanted in [
        render::RUNNER_SECRET,
        render::DIND_CERTS_SECRET,
        render::MONITOR_SECRET,
        render::PROVISIONER_SECRET,
        render::CLUSTER_READER_TOKEN_SECRET,
        render::RECORD_SECRET,
    ] {
        assert!(
            rendered.iter().any(|r| r == wanted),
            "no example renders Secret/{wanted}; rendered: {rendered:?}"
        );
    }
}
