use std::path::Path;

use serde_json::{json, Value};

use crate::app::adopt::classify::plan;
use crate::app::adopt::detect::{detect, SERVICE_ACCOUNT_TOKEN_TYPE};
use crate::app::adopt::found::Found;
use crate::app::adopt::gather::{interim, storage_problems};
use crate::app::adopt::objects::{ObjectRef, Tool, SAVED_MARK};
use crate::app::adopt::old_values::{use_runnerconf, values_text};
use crate::app::adopt::report::{check_save_path, unclassified_refusal};
use crate::render::{self, Manifest, LABEL_MANAGED_BY};
use crate::values::{self, Input};

fn deployment(name: &str, labels: Value, env: Value) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": "cf", "labels": labels},
        "spec": {"template": {"spec": {
            "nodeSelector": {"pool": "ci"},
            "containers": [{"name": "runner", "image": "registry.example.com/codefresh/venona:1.9.0", "env": env}]
        }}}
    })
}

fn venonactl_install() -> Vec<Value> {
    vec![
        deployment(
            "runner",
            json!({"app": "runner", "version": "2.0.7"}),
            json!([{"name": "AGENT_ID", "value": "old-agent"},
                   {"name": "CODEFRESH_HOST", "value": "https://cf.example.com"},
                   {"name": "HTTPS_PROXY", "value": "http://proxy:3128"}]),
        ),
        json!({"apiVersion": "v1", "kind": "Secret",
               "metadata": {"name": "runner", "namespace": "cf"},
               "data": {"codefresh.token": ""}}),
        json!({"apiVersion": "v1", "kind": "ServiceAccount",
               "metadata": {"name": "runner", "namespace": "cf"}}),
        json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
               "metadata": {"name": "dind-local-volumes-runner-cf"},
               "provisioner": "codefresh.io/dind-volume-provisioner-runner-cf",
               "parameters": {"volumeBackend": "ebs", "VolumeType": "gp3",
                              "AvailabilityZone": "us-east-1a", "encrypted": "true"}}),
        // Another namespace's class is not this install's.
        json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
               "metadata": {"name": "dind-local-volumes-runner-other"},
               "provisioner": "codefresh.io/dind-volume-provisioner-runner-other"}),
    ]
}

#[test]
fn a_venonactl_install_is_read_into_values() {
    let found = detect(&venonactl_install(), "cf", "ctx").unwrap().unwrap();
    assert_eq!(found.tool, Tool::Venonactl);
    assert_eq!(found.token_secret.as_deref(), Some("runner"));
    let v = &found.values;
    assert_eq!(v["AgentId"], json!("old-agent"));
    assert_eq!(v["CodefreshHost"], json!("https://cf.example.com"));
    assert_eq!(v["EnvVars"]["HTTPS_PROXY"], json!("http://proxy:3128"));
    assert_eq!(v["DockerRegistry"], json!("registry.example.com"));
    assert_eq!(v["NodeSelector"], json!({"pool": "ci"}));
    assert_eq!(v["Storage"]["Backend"], json!("ebs"));
    assert_eq!(v["Storage"]["VolumeType"], json!("gp3"));
    assert_eq!(v["Storage"]["AvailabilityZone"], json!("us-east-1a"));
    assert_eq!(v["Storage"]["Encrypted"], json!(true));
    // venonactl keeps the runtime name only in runnerconf: said, not guessed.
    assert!(v.get("RuntimeEnvironmentName").is_none());
    assert!(found
        .not_read
        .iter()
        .any(|n| n.contains("RuntimeEnvironmentName")));
    let names: Vec<String> = found.objects.iter().map(ToString::to_string).collect();
    assert!(names.contains(&"StorageClass/dind-local-volumes-runner-cf".to_string()));
    assert!(!names.iter().any(|n| n.ends_with("-other")), "{names:?}");
    // The file it makes is valid cf-runner input.
    let saved = values_text(&found, "cf");
    assert!(saved.text.starts_with(SAVED_MARK));
    let input = Input {
        files: vec![values::ValuesFile {
            origin: "adopted.yaml".into(),
            text: saved.text,
        }],
        ..Default::default()
    };
    values::load(&input).unwrap();
}

#[test]
fn the_pull_secrets_and_placement_of_the_old_runners_pod_are_carried() {
    let mut objects = venonactl_install();
    objects[0]["spec"]["template"]["spec"]["imagePullSecrets"] = json!([{"name": "mirror-pull"}]);
    let affinity = json!({"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": []}});
    objects[0]["spec"]["template"]["spec"]["affinity"] = affinity.clone();
    objects[0]["spec"]["template"]["metadata"]["annotations"] = json!({
        "karpenter.sh/do-not-disrupt": "true",
        "kubectl.kubernetes.io/restartedAt": "2026-01-01T00:00:00Z"});
    let found = detect(&objects, "cf", "ctx").unwrap().unwrap();
    assert_eq!(found.values["ImagePullSecrets"], json!(["mirror-pull"]));
    assert_eq!(found.values["Runner"]["Affinity"], affinity);
    assert_eq!(
        found.values["Runner"]["PodAnnotations"],
        json!({"karpenter.sh/do-not-disrupt": "true"})
    );
    let input = Input {
        files: vec![values::ValuesFile {
            origin: "adopted.yaml".into(),
            text: values_text(&found, "cf").text,
        }],
        ..Default::default()
    };
    let loaded = values::load(&input).unwrap();
    assert_eq!(loaded.values.image_pull_secrets, ["mirror-pull"]);
    assert_eq!(loaded.values.runner.placement.affinity, Some(affinity));
}

#[test]
fn a_users_binding_to_an_account_of_the_namespace_is_not_the_old_installs() {
    let mut objects = venonactl_install();
    let binding = |name: &str| {
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
               "metadata": {"name": name},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
               "subjects": [{"kind": "ServiceAccount", "name": "ci-bot", "namespace": "cf"}]})
    };
    objects.push(binding("ci-bot-can-view"));
    objects.push(binding("runner-cf"));
    let found = detect(&objects, "cf", "ctx").unwrap().unwrap();
    let names: Vec<String> = found.objects.iter().map(ToString::to_string).collect();
    assert!(
        names.contains(&"ClusterRoleBinding/runner-cf".to_string()),
        "{names:?}"
    );
    assert!(!names.iter().any(|n| n.contains("ci-bot")), "{names:?}");
    assert!(!names.iter().any(|n| n == "ClusterRole/view"), "{names:?}");
}

#[test]
fn a_cf_runner_install_beside_an_old_runner_is_two_runners() {
    let mut objects = venonactl_install();
    objects.push(json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "x", "namespace": "cf",
                     "labels": {LABEL_MANAGED_BY: "cf-runner"}}}));
    let err = detect(&objects, "cf", "ctx").unwrap_err();
    assert_eq!(err.0[0].key, "--kube-namespace");
    assert!(err.0[0].why.contains("more than one runner"), "{:?}", err.0);
}

#[test]
fn a_namespace_with_only_cf_runner_has_nothing_to_adopt() {
    let objects = vec![json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "x", "namespace": "cf",
                     "labels": {LABEL_MANAGED_BY: "cf-runner"}}})];
    assert!(detect(&objects, "cf", "ctx").unwrap().is_none());
}

fn rendered_for(tree: Value) -> Vec<Manifest> {
    let input = Input {
        files: vec![values::ValuesFile {
            origin: "test".into(),
            text: serde_yaml_ng::to_string(&tree).unwrap(),
        }],
        ..Default::default()
    };
    let loaded = values::load(&input).unwrap();
    let identity = render::Identity {
        context: Some("ctx".into()),
        ..Default::default()
    };
    render::render(&loaded.values, &identity, &loaded.redacted_tree)
        .unwrap()
        .manifests
}

#[test]
fn a_move_that_would_change_the_storage_backend_is_refused() {
    let ours = rendered_for(json!({"Namespace": "cf", "Storage": {"Backend": "local"}}));
    let class = ours.iter().find(|m| m.kind == "StorageClass").unwrap();
    // The same class as in place: nothing to refuse.
    assert!(storage_problems(&ours, std::slice::from_ref(&class.object)).is_empty());
    // Another backend behind the same class name.
    let mut ebs = class.object.clone();
    ebs["parameters"] = json!({"volumeBackend": "ebs", "VolumeType": "gp3"});
    let problems = storage_problems(&ours, &[ebs]);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].key, "Storage.Backend");
    assert!(
        problems[0].why.contains("backend ebs"),
        "{}",
        problems[0].why
    );
    // The same backend, another parameter.
    let mut moved = class.object.clone();
    moved["parameters"]["volumeParentDir"] = json!("/elsewhere");
    let problems = storage_problems(&ours, &[moved]);
    assert_eq!(problems[0].key, "Storage");
    assert!(
        problems[0].why.contains("volumeParentDir"),
        "{}",
        problems[0].why
    );
    // Volumes bound later than cf-runner's class binds them.
    let mut late = class.object.clone();
    late["volumeBindingMode"] = json!("WaitForFirstConsumer");
    let problems = storage_problems(&ours, &[late]);
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].why.contains("volumeBindingMode"),
        "{}",
        problems[0].why
    );
}

#[test]
fn the_interim_workload_has_its_own_name_and_a_selector_old_ones_do_not_match() {
    let ours = rendered_for(json!({"Namespace": "cf"}));
    let runner = ours
        .iter()
        .find(|m| m.kind == "Deployment" && m.name == "runner")
        .unwrap();
    let copy = interim(runner);
    assert_eq!(copy.name, "runner-adopting");
    assert_eq!(copy.object["metadata"]["name"], json!("runner-adopting"));
    let selector = &copy.object["spec"]["selector"]["matchLabels"];
    let labels = &copy.object["spec"]["template"]["metadata"]["labels"];
    for (k, v) in selector.as_object().unwrap() {
        assert_eq!(&labels[k], v, "the pods must match their own selector");
    }
    // venonactl's runner selects `app: runner`: the interim pods must
    // not be counted as its own.
    assert!(labels.get("app").is_none());
    assert_ne!(selector, &runner.object["spec"]["selector"]["matchLabels"]);
    // cf-runner's labels stay, so `delete` finds it after an interruption.
    assert_eq!(
        copy.object["metadata"]["labels"][LABEL_MANAGED_BY],
        json!("cf-runner")
    );
}

/// venonactl's volume provisioner of an EBS install with AWS keys
/// (`*.vp.yaml`): its Secret, its Deployment reading them, its account.
fn venonactl_ebs_keys(env: Value) -> Vec<Value> {
    let mut objects = venonactl_install();
    objects.push(json!({"apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "dind-volume-provisioner-runner", "namespace": "cf",
                     "labels": {"app": "dind-volume-provisioner"}},
        "data": {"aws_access_key_id": "", "aws_secret_access_key": ""}}));
    objects.push(json!({"apiVersion": "v1", "kind": "ServiceAccount",
        "metadata": {"name": "volume-provisioner-runner", "namespace": "cf",
                     "labels": {"app": "dind-volume-provisioner"},
                     "annotations": {"eks.amazonaws.com/role-arn": "arn:aws:iam::123456789012:role/volumes",
                                     "kubectl.kubernetes.io/last-applied-configuration": "{}"}}}));
    objects.push(json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "dind-volume-provisioner-runner", "namespace": "cf",
                     "labels": {"app": "dind-volume-provisioner"}},
        "spec": {"template": {"spec": {"serviceAccount": "volume-provisioner-runner",
            "containers": [{"name": "dind-volume-provisioner", "env": env}]}}}}));
    objects.push(json!({"apiVersion": "batch/v1", "kind": "CronJob",
        "metadata": {"name": "dind-volume-cleanup-runner", "namespace": "cf", "uid": "cron-1",
                     "labels": {"app": "dind-volume-cleanup"}}}));
    objects.push(json!({"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "dind-volume-cleanup-runner-29000000", "namespace": "cf",
                     "ownerReferences": [{"kind": "CronJob", "name": "dind-volume-cleanup-runner", "uid": "cron-1"}]}}));
    objects.push(
        json!({"apiVersion": "v1", "kind": "Secret", "type": SERVICE_ACCOUNT_TOKEN_TYPE,
        "metadata": {"name": "runner-token-x7k2p", "namespace": "cf",
                     "annotations": {"kubernetes.io/service-account.name": "runner"}},
        "data": {"token": ""}}),
    );
    objects
}

fn aws_env(secret: &str) -> Value {
    json!([
        {"name": "AWS_ACCESS_KEY_ID", "valueFrom": {"secretKeyRef": {"name": secret, "key": "aws_access_key_id"}}},
        {"name": "AWS_SECRET_ACCESS_KEY", "valueFrom": {"secretKeyRef": {"name": secret, "key": "aws_secret_access_key"}}},
    ])
}

fn ours_for(found: &Found) -> Vec<(ObjectRef, Value)> {
    rendered_for(
        json!({"Namespace": "cf", "Storage": {"Backend": "ebs", "AvailabilityZone": "us-east-1a",
                        "AwsAccessKeyId": "x", "AwsSecretAccessKey": "y"}}),
    )
    .into_iter()
    .map(|m| {
        (
            ObjectRef {
                kind: m.kind.clone(),
                name: m.name.clone(),
            },
            m.object["spec"]["selector"].clone(),
        )
    })
    .filter(|_| !found.objects.is_empty())
    .collect()
}

#[test]
fn the_aws_keys_of_venonactls_provisioner_go_to_cf_runners_secret_and_its_objects_are_all_placed() {
    let found = detect(
        &venonactl_ebs_keys(aws_env("dind-volume-provisioner-runner")),
        "cf",
        "ctx",
    )
    .unwrap()
    .unwrap();
    let lines: Vec<String> = found.credentials.iter().map(|c| c.line()).collect();
    assert!(
        lines.iter().any(|l| l.contains(
            "Secret/dind-volume-provisioner-runner key aws_access_key_id -> cf-runner's Secret/dind-volume-provisioner key aws_access_key_id"
        )),
        "{lines:#?}"
    );
    // The IAM role on its account carries over; kubectl's record does not.
    assert_eq!(
        found.values["Storage"]["VolumeProvisioner"]["ServiceAccount"]["Annotations"],
        json!({"eks.amazonaws.com/role-arn": "arn:aws:iam::123456789012:role/volumes"})
    );
    // No key value in the values (the saved file names where they are).
    assert!(found.values["Storage"].get("AwsAccessKeyId").is_none());
    let saved = values_text(&found, "cf");
    assert!(
        saved
            .text
            .contains("# Storage.AwsAccessKeyId: not written here"),
        "{}",
        saved.text
    );

    let plan = plan(&found, &ours_for(&found), "cf");
    assert!(plan.unclassified.is_empty(), "{:?}", plan.unclassified);
    let replaced: Vec<String> = plan
        .replaced
        .iter()
        .map(|(o, n)| format!("{o} -> {n}"))
        .collect();
    for line in [
        "Secret/dind-volume-provisioner-runner -> Secret/dind-volume-provisioner",
        "CronJob/dind-volume-cleanup-runner -> CronJob/dind-volume-cleanup",
        "Deployment/dind-volume-provisioner-runner -> Deployment/dind-volume-provisioner",
    ] {
        assert!(replaced.contains(&line.to_string()), "{replaced:#?}");
    }
    let removed: Vec<String> = plan.removed.iter().map(ToString::to_string).collect();
    for gone in [
        "Job/dind-volume-cleanup-runner-29000000",
        "Secret/runner-token-x7k2p",
    ] {
        assert!(removed.contains(&gone.to_string()), "{removed:#?}");
    }
}

#[test]
fn a_key_in_a_secret_of_the_users_is_referenced_and_left_alone() {
    let mut objects = venonactl_ebs_keys(aws_env("my-aws-keys"));
    objects.push(json!({"apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "my-aws-keys", "namespace": "cf"},
        "data": {"aws_access_key_id": "", "aws_secret_access_key": ""}}));
    let found = detect(&objects, "cf", "ctx").unwrap().unwrap();
    assert_eq!(
        found.values["Storage"]["AwsSecretAccessKeySecretKeyRef"],
        json!({"Name": "my-aws-keys", "Key": "aws_secret_access_key"})
    );
    let names: Vec<String> = found.objects.iter().map(ToString::to_string).collect();
    assert!(!names.contains(&"Secret/my-aws-keys".to_string()));
    let plan = plan(&found, &ours_for(&found), "cf");
    assert!(
        plan.left_alone
            .iter()
            .any(|l| l.starts_with("Secret/my-aws-keys (yours")),
        "{:?}",
        plan.left_alone
    );
    // The values file it makes is valid input that points at the Secret.
    let input = Input {
        files: vec![values::ValuesFile {
            origin: "adopted.yaml".into(),
            text: values_text(&found, "cf").text,
        }],
        ..Default::default()
    };
    let loaded = values::load(&input).unwrap();
    let r = loaded
        .values
        .storage
        .credentials
        .aws_secret_access_key_ref
        .unwrap();
    assert_eq!(
        (r.name.as_str(), r.key.as_str()),
        ("my-aws-keys", "aws_secret_access_key")
    );
}

#[test]
fn a_key_adopt_cannot_read_is_refused_naming_the_value_that_supplies_it() {
    let err = detect(&venonactl_ebs_keys(aws_env("gone")), "cf", "ctx").unwrap_err();
    assert_eq!(err.0[0].key, "Storage.AwsAccessKeyId");
    assert!(err.0[0].why.contains("Secret/gone"), "{:?}", err.0);
    assert!(
        err.0[0].fix.contains("--set-value Storage.AwsAccessKeyId"),
        "{:?}",
        err.0
    );
    // A Google key pointed at a file no Secret provides.
    let env = json!([{"name": "GOOGLE_APPLICATION_CREDENTIALS", "value": "/keys/sa.json"}]);
    let err = detect(&venonactl_ebs_keys(env), "cf", "ctx").unwrap_err();
    assert_eq!(err.0[0].key, "Storage.GoogleServiceAccount");
    assert!(err.0[0].fix.contains("--set-file"), "{:?}", err.0);
}

#[test]
fn a_secret_of_the_old_tool_whose_role_adopt_does_not_know_stops_the_move() {
    let mut objects = venonactl_install();
    objects.push(json!({"apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "mystery", "namespace": "cf", "labels": {"app": "runner"}},
        "data": {"password": ""}}));
    let found = detect(&objects, "cf", "ctx").unwrap().unwrap();
    let plan = plan(&found, &ours_for(&found), "cf");
    assert_eq!(plan.unclassified.len(), 1, "{plan:?}");
    assert_eq!(plan.unclassified[0].0.to_string(), "Secret/mystery");
    let problems = unclassified_refusal(&plan).unwrap();
    assert!(problems.0[0].why.contains("Secret/mystery"), "{problems:?}");
}

#[test]
fn runnerconfs_name_entry_names_the_runtime_environment() {
    let mut found = detect(&venonactl_install(), "cf", "ctx").unwrap().unwrap();
    use_runnerconf(&mut found, vec!["ctx/cf".into()]);
    assert_eq!(found.values["RuntimeEnvironmentName"], json!("ctx/cf"));
    assert!(!found
        .not_read
        .iter()
        .any(|n| n.contains("RuntimeEnvironmentName")));
}

/// adopt's values file used to be replaced whenever its first line was
/// adopt's mark, edits below it lost. It is adopt's only while unchanged
/// since adopt wrote it; anything but a regular file is refused even with
/// --overwrite.
#[cfg(unix)]
#[test]
fn an_edited_values_file_is_not_adopts_to_replace() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cf-runner-values.yaml");
    let saved = format!("{SAVED_MARK} from x in namespace cf.\nNamespace: cf\n");
    crate::export::replace_file(&path, &crate::export::stamped(&saved), false).unwrap();
    assert!(check_save_path(&path, false).is_ok(), "adopt's own file");
    let written = std::fs::read_to_string(&path).unwrap();
    let edits = [
        format!("{written}Monitor:\n  Enabled: true\n"),
        written.replace("Namespace: cf", "Namespace: mine"),
        format!("{SAVED_MARK} mine\n"),
        saved.clone(),
    ];
    let mut cases = 1;
    for edited in &edits {
        cases += 1;
        std::fs::write(&path, edited).unwrap();
        let refused = check_save_path(&path, false).unwrap_err().to_string();
        assert!(
            refused.contains("--values-file") && refused.contains("--overwrite"),
            "{refused}"
        );
        assert!(check_save_path(&path, true).is_ok());
    }
    let link = dir.path().join("link.yaml");
    std::os::unix::fs::symlink(&path, &link).unwrap();
    for odd in [link.as_path(), Path::new("/dev/null")] {
        cases += 1;
        let refused = check_save_path(odd, true).unwrap_err().to_string();
        assert!(refused.contains("not a regular file"), "{refused}");
    }
    assert_eq!(cases, 7);
}
