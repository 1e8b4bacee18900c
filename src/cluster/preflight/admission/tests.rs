//! Unit tests of the admission check's pure parts: a build's dind pod, Pod
//! Security levels, fixes, mutations, quotas and LimitRanges.

use super::mutations::names_in;
use super::*;
use serde_json::json;

fn dind_spec() -> Value {
    json!({"dockerDaemonScheduler": {
        "dindImage": "quay.io/codefresh/dind:3@sha256:aa",
        "cluster": {"serviceAccount": "codefresh-engine", "nodeSelector": {"pool": "builds"}},
        "envVars": {"CLEAN_DOCKER": "true"},
        "pvcs": [{"name": "dind", "storageClassName": "dind-local", "volumeSize": "16Gi"}],
        "defaultDindResources": {"limits": {"cpu": "400m", "memory": "800Mi"}, "requests": null},
        "volumes": {"codefresh-certs-server": {"name": "codefresh-certs-server", "secret": {"secretName": "codefresh-certs-server"}}},
        "volumeMounts": {"codefresh-certs-server": {"name": "codefresh-certs-server", "mountPath": "/etc/ssl/cf"}},
    }})
}

#[test]
fn a_builds_dind_pod_is_privileged_and_mounts_its_claim() {
    let objects = build_objects(&dind_spec());
    assert_eq!(objects.len(), 2);
    let pod = &objects[0].object;
    assert_eq!(
        pod["spec"]["containers"][0]["securityContext"]["privileged"],
        true
    );
    assert_eq!(
        pod["spec"]["containers"][0]["image"],
        "quay.io/codefresh/dind:3@sha256:aa"
    );
    assert_eq!(pod["spec"]["nodeSelector"], json!({"pool": "builds"}));
    assert!(pod["spec"].get("serviceAccountName").is_none());
    let volumes = names_in(pod["spec"].get("volumes"));
    assert_eq!(volumes, vec!["dind", "codefresh-certs-server"]);
    let claim = &objects[1].object;
    assert_eq!(claim["spec"]["storageClassName"], "dind-local");
    assert_eq!(claim["spec"]["resources"]["requests"]["storage"], "16Gi");
    let (level, why) = level_needed(&pod["spec"]);
    assert_eq!(level, Level::Privileged);
    assert!(why[0].contains("privileged (container \"dind\""), "{why:?}");
}

#[test]
fn levels_follow_the_pod_security_standards() {
    let host_path = json!({"containers": [{"name": "c"}], "volumes": [{"name": "v", "hostPath": {"path": "/x"}}]});
    assert_eq!(level_needed(&host_path).0, Level::Privileged);
    let plain = json!({"containers": [{"name": "c"}]});
    let (level, why) = level_needed(&plain);
    assert_eq!(level, Level::Baseline);
    assert!(why
        .iter()
        .any(|w| w.starts_with("allowPrivilegeEscalation")));
    let hardened = json!({
        "securityContext": {"runAsNonRoot": true, "seccompProfile": {"type": "RuntimeDefault"}},
        "containers": [{"name": "c", "securityContext": {
            "allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}}}],
    });
    assert_eq!(level_needed(&hardened).0, Level::Restricted);
    assert_eq!(Level::parse("baseline"), Some(Level::Baseline));
    assert_eq!(
        label_command("cf", Level::Privileged),
        "kubectl label --overwrite namespace cf pod-security.kubernetes.io/enforce=privileged"
    );
}

#[test]
fn each_refusal_gets_its_fix() {
    let psa = "pods \"x\" is forbidden: violates PodSecurity \"baseline:latest\": privileged";
    assert!(
        fix_for(psa, "every build", "cf", Level::Privileged, &[]).contains(
            "kubectl label --overwrite namespace cf pod-security.kubernetes.io/enforce=privileged"
        )
    );
    let quota = "pods \"x\" is forbidden: exceeded quota: small, requested: requests.memory=1Gi, used: requests.memory=0, limited: requests.memory=100Mi";
    assert!(
        fix_for(quota, "Deployment/runner", "cf", Level::Baseline, &[])
            .contains("kubectl edit resourcequota small -n cf")
    );
    let hook =
        "admission webhook \"deny-privileged.example.com\" denied the request: no privileged pods";
    assert!(fix_for(hook, "every build", "cf", Level::Privileged, &[])
        .contains("\"deny-privileged.example.com\""));
    let range = "pods \"x\" is forbidden: maximum cpu usage per Container is 100m, but limit is 1";
    assert!(fix_for(
        range,
        "Deployment/runner",
        "cf",
        Level::Baseline,
        &["tight".into()]
    )
    .contains("LimitRange tight"));
}

#[test]
fn a_sidecar_and_a_rewritten_image_are_mutations_but_defaults_are_not() {
    let sent = json!({"metadata": {"labels": {"app": "dind"}}, "spec": {
        "containers": [{"name": "dind", "image": "a/dind:1", "resources": {"limits": {"cpu": "1000m"}}, "env": [{"name": "E", "value": ""}]}],
        "volumes": [{"name": "dind", "persistentVolumeClaim": {"claimName": "c"}}],
        "tolerations": [{"key": "k", "operator": "Exists"}],
    }});
    let defaulted = json!({"metadata": {"labels": {"app": "dind"},
        "annotations": {"kubernetes.io/limit-ranger": "LimitRanger plugin set: cpu request"}}, "spec": {
        "containers": [{"name": "dind", "image": "a/dind:1", "imagePullPolicy": "IfNotPresent",
            "resources": {"limits": {"cpu": "1"}, "requests": {"cpu": "1"}}, "env": [{"name": "E"}],
            "volumeMounts": [{"name": "kube-api-access-x", "mountPath": "/var/run/secrets"}]}],
        "volumes": [{"name": "dind", "persistentVolumeClaim": {"claimName": "c"}}, {"name": "kube-api-access-x", "projected": {}}],
        "tolerations": [{"key": "k", "operator": "Exists"}, {"key": "node.kubernetes.io/not-ready"}],
        "dnsPolicy": "ClusterFirst",
    }});
    assert_eq!(mutations(&sent, &defaulted), Vec::<String>::new());
    let mut injected = defaulted.clone();
    injected["spec"]["containers"][0]["image"] = json!("mirror/dind:1");
    injected["spec"]["containers"]
        .as_array_mut()
        .unwrap()
        .insert(0, json!({"name": "istio-proxy"}));
    injected["metadata"]["annotations"] = json!({"sidecar.istio.io/status": "{}"});
    let found = mutations(&sent, &injected);
    assert!(
        found.contains(&"spec.containers[dind].image: a/dind:1 → mirror/dind:1".to_string()),
        "{found:?}"
    );
    assert!(
        found.contains(&"spec.containers[istio-proxy] added".to_string()),
        "{found:?}"
    );
    assert!(found
        .iter()
        .any(|f| f.starts_with("metadata.annotations[sidecar.istio.io/status] added")));
}

#[test]
fn a_quota_too_small_for_a_build_is_named_with_what_is_left() {
    let candidates = build_objects(&dind_spec());
    let need = quota_needs(&candidates);
    assert_eq!(need["requests.storage"], 16.0 * 1024.0 * 1024.0 * 1024.0);
    let quota = json!({"metadata": {"name": "small"}, "status": {
        "hard": {"requests.storage": "10Gi", "limits.memory": "4Gi"},
        "used": {"requests.storage": "2Gi", "limits.memory": "0"}}});
    let found = quota_findings(&quota, &need, "cf");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with(
            "ResourceQuota small: requests.storage has 8Gi left (hard 10Gi, used 2Gi)"
        ),
        "{}",
        found[0]
    );
    assert!(
        found[0].contains("raise it by at least 8Gi"),
        "{}",
        found[0]
    );
}

#[test]
fn a_limit_range_below_a_limit_is_named() {
    let candidates = build_objects(&dind_spec());
    let range = json!({"metadata": {"name": "tight"}, "spec": {"limits": [
        {"type": "Container", "max": {"cpu": "200m"}},
        {"type": "PersistentVolumeClaim", "max": {"storage": "8Gi"}}]}});
    let found = limit_range_findings(&range, &candidates, "cf");
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].contains("allows at most 200m cpu per container, its limit is 400m"));
    assert!(found[1].contains("at most 8Gi per volume claim, the claim asks 16Gi"));
}

#[test]
fn a_quota_too_small_for_warm_capacity_names_the_placeholders() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/values-examples/warm-capacity.yaml"
    );
    let input = crate::values::Input {
        files: vec![crate::values::ValuesFile {
            origin: path.into(),
            text: std::fs::read_to_string(path).unwrap(),
        }],
        ..Default::default()
    };
    let loaded = crate::values::load(&input).unwrap();
    let rendered = crate::render::render(
        &loaded.values,
        &crate::render::Identity::default(),
        &loaded.redacted_tree,
    )
    .unwrap();
    let candidates = workload_pods(&rendered.manifests);
    // Two dind placeholders request 2 cpu, the engine's 100m more: a
    // 2-cpu quota cannot hold them beside the runner's pods.
    let quota = json!({"metadata": {"name": "ci"}, "status": {
        "hard": {"requests.cpu": "2"}, "used": {"requests.cpu": "0"}}});
    let found = quota_findings(&quota, &quota_needs(&candidates), "codefresh");
    assert_eq!(found.len(), 1, "{found:?}");
    let note = super::quotas::warm_capacity_note(&candidates).expect("a note");
    assert!(
        note.contains("Deployment/dind-ballast (2 pod(s))")
            && note.contains("Runtime.Ballast.*.Replicas"),
        "{note}"
    );
}
