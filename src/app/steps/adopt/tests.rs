use super::*;

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
