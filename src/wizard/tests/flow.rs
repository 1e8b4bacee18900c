//! The wizard's flow beyond storage, driven by scripted replies: re-asked
//! answers, questions skipped because a flag or values file answered them,
//! proxies, the app-proxy, changing answers, the token and the context.

use super::*;

#[test]
fn an_invalid_namespace_is_asked_again_with_the_fix() {
    let s = setup(json!({}));
    let mut p = script(&[
        &[
            ("Context", Enter),
            ("Namespace", text("Code_Fresh")),
            ("Namespace", text("codefresh")),
            ("Storage.Backend", pick("local")),
            ("Storage.LocalVolumeParentDir", text("relative/dir")),
            ("Storage.LocalVolumeParentDir", text("/mnt/ssd/volumes")),
        ],
        &rest_with_defaults(),
    ]);
    let plan = run_script(&mut p, &s, aws_facts());
    let (id, why) = &p.rejected[0];
    assert_eq!(id, "Namespace");
    assert!(why.contains("DNS-1123"), "{why}");
    assert!(why.contains("code-fresh"), "the fix suggests a name: {why}");
    assert!(p.rejected[1].1.contains("absolute"), "{}", p.rejected[1].1);
    assert!(
        p.notes
            .iter()
            .any(|n| n.contains("already installed a runner in codefresh")),
        "{:?}",
        p.notes
    );
    assert_eq!(loads(&s, &plan).namespace, "codefresh");
}

#[test]
fn questions_answered_by_flags_or_values_are_not_asked() {
    let s = setup(json!({
        "Context": "eks-prod",
        "Namespace": "ci",
        "Storage": {
            "Backend": "ebs",
            "AvailabilityZone": "us-east-1d",
            "VolumeType": "gp3",
            "Encrypted": false,
            "VolumeProvisioner": {"ServiceAccount": {"Annotations": {
                "eks.amazonaws.com/role-arn": "arn:aws:iam::123456789012:role/x"}}}
        },
        "EnvVars": {"HTTPS_PROXY": "http://proxy:3128"},
        "DockerRegistry": "registry.corp/codefresh",
        "ImagePullSecrets": ["corp-mirror"],
        "Monitor": {"Enabled": true},
        "AppProxy": {"Enabled": false},
        "SetDefaultRuntime": false,
        "ExecDemoPipeline": false,
        "Runtime": {"NodeSelector": "pool=builds", "tolerations": []}
    }));
    let mut p = Scripted::new(&[]);
    let mut never = |_: &str| -> Facts { panic!("nothing to suggest, so no look-up") };
    let plan = run(&mut p, &mut never, &s).unwrap();
    let _ = &mut never;
    assert_eq!(plan.asked, 0);
    assert!(plan.proceed);
    assert!(plan.answers.is_empty(), "{:?}", plan.answers);
    assert!(p.asked.is_empty());
    assert!(p.summary.is_empty(), "no summary when nothing was asked");
}

#[test]
fn a_backend_from_the_values_still_gets_its_missing_options_asked() {
    let s = setup(
        json!({"Context": "eks-prod", "Storage": {"Backend": "ebs-csi", "VolumeType": "io1"}}),
    );
    let mut p = script(&[
        &[
            ("Namespace", Enter),
            ("Storage.AvailabilityZone", Enter),
            ("Storage.Encrypted", No),
            ("storage.credentials", pick("The nodes' instance role")),
        ],
        &rest_with_defaults(),
    ]);
    let plan = run_script(&mut p, &s, aws_facts());
    assert!(!p
        .asked
        .iter()
        .any(|q| q == "Storage.Backend" || q == "Storage.VolumeType" || q == "Storage.Iops"));
    assert_eq!(
        answer(&plan, "Storage.AvailabilityZone"),
        Some(&json!("us-east-1a"))
    );
    assert_eq!(
        answer(
            &plan,
            "Storage.VolumeProvisioner.ServiceAccount.Annotations"
        ),
        Some(&json!({}))
    );
    let row = p.summary.iter().find(|r| r.topic == "Storage").unwrap();
    assert!(row.given);
    loads(&s, &plan);
}

#[test]
fn proxies_are_prefilled_from_the_environment() {
    let mut s = setup(json!({}));
    s.env_proxies = EnvProxies {
        http: Some("http://proxy.corp:3128".into()),
        https: None,
        no_proxy: Some(".corp,10.0.0.0/8".into()),
    };
    let mut p = script(&[&[
        ("Context", Enter),
        ("Namespace", Enter),
        ("Storage.Backend", pick("local")),
        ("Storage.LocalVolumeParentDir", Enter),
        ("proxy", Enter),
        ("EnvVars.HTTP_PROXY", Enter),
        ("EnvVars.HTTPS_PROXY", text("proxy.corp:3128")),
        ("EnvVars.HTTPS_PROXY", Enter),
        ("EnvVars.NO_PROXY", Enter),
        ("mirror", Enter),
        ("Monitor.Enabled", Enter),
        ("AppProxy.Enabled", Enter),
        ("SetDefaultRuntime", Enter),
        ("ExecDemoPipeline", Enter),
        ("Runtime.NodeSelector", Enter),
        ("Runtime.tolerations", Enter),
        ("save", No),
        ("next", Enter),
    ]]);
    let plan = run_script(&mut p, &s, Facts::default());
    assert_eq!(
        p.default_of("proxy"),
        Some("true"),
        "found in the environment"
    );
    assert_eq!(
        p.default_of("EnvVars.HTTPS_PROXY"),
        Some("http://proxy.corp:3128"),
        "HTTPS falls back to the HTTP proxy"
    );
    assert_eq!(p.rejected.len(), 1, "a proxy without a scheme is not a URL");
    assert!(p
        .notes
        .iter()
        .any(|n| n.contains("HTTP_PROXY=http://proxy.corp:3128")));
    let v = loads(&s, &plan);
    assert_eq!(
        v.env_vars.get("https_proxy").map(String::as_str),
        Some("http://proxy.corp:3128")
    );
    assert_eq!(
        v.env_vars.get("NO_PROXY").map(String::as_str),
        Some(".corp,10.0.0.0/8")
    );
    assert_eq!(
        answer(&plan, "EnvVars"),
        None,
        "no empty map when proxies are set"
    );
}

#[test]
fn a_proxy_password_from_the_environment_is_not_shown_back() {
    let mut s = setup(json!({}));
    s.env_proxies = EnvProxies {
        http: Some("http://me:ENVPASS@proxy.corp:3128".into()),
        https: None,
        no_proxy: None,
    };
    let mut p = script(&[&[
        ("Context", Enter),
        ("Namespace", Enter),
        ("Storage.Backend", pick("local")),
        ("Storage.LocalVolumeParentDir", Enter),
        ("proxy", Enter),
        ("EnvVars.HTTP_PROXY", Enter),
        ("EnvVars.HTTPS_PROXY", Enter),
        ("EnvVars.NO_PROXY", Enter),
        ("mirror", Enter),
        ("Monitor.Enabled", Enter),
        ("AppProxy.Enabled", Enter),
        ("SetDefaultRuntime", Enter),
        ("ExecDemoPipeline", Enter),
        ("Runtime.NodeSelector", Enter),
        ("Runtime.tolerations", Enter),
        ("save", No),
        ("next", Enter),
    ]]);
    let plan = run_script(&mut p, &s, Facts::default());
    let shown = format!("{:?} {:?}", p.notes, p.summary);
    assert!(!shown.contains("ENVPASS"), "{shown}");
    assert!(shown.contains("me:<redacted>@proxy.corp:3128"), "{shown}");
    // The password is still used.
    let v = loads(&s, &plan);
    assert_eq!(
        v.env_vars.get("HTTPS_PROXY").map(String::as_str),
        Some("http://me:ENVPASS@proxy.corp:3128")
    );
}

#[test]
fn app_proxy_host_is_checked_and_the_ingress_class_picked() {
    let s =
        setup(json!({"Context": "kind-dev", "Namespace": "cf", "Storage": {"Backend": "local"}}));
    let mut p = script(&[&[
        ("Storage.LocalVolumeParentDir", Enter),
        ("proxy", No),
        ("mirror", Enter),
        ("Monitor.Enabled", Yes),
        ("AppProxy.Enabled", Yes),
        ("AppProxy.Ingress.Host", Enter),
        (
            "AppProxy.Ingress.Host",
            text("https://app-proxy.example.com"),
        ),
        ("AppProxy.Ingress.Host", text("app-proxy.example.com")),
        ("AppProxy.Ingress.IngressClass", Enter),
        ("SetDefaultRuntime", Yes),
        ("ExecDemoPipeline", No),
        ("Runtime.NodeSelector", text("pool")),
        ("Runtime.NodeSelector", text("pool=builds,disk=ssd")),
        ("Runtime.tolerations", text("dedicated=ci:NoRun")),
        ("Runtime.tolerations", text("dedicated=ci:NoSchedule,spot")),
        ("save", No),
        ("next", Enter),
    ]]);
    let plan = run_script(&mut p, &s, aws_facts());
    assert_eq!(p.default_of("AppProxy.Ingress.IngressClass"), Some("nginx"));
    assert_eq!(p.rejected.len(), 4, "{:?}", p.rejected);
    let v = loads(&s, &plan);
    assert!(v.monitor.enabled && v.app_proxy.enabled && v.set_default_runtime);
    assert!(!v.exec_demo_pipeline);
    assert_eq!(v.app_proxy.host.as_deref(), Some("app-proxy.example.com"));
    assert_eq!(v.app_proxy.ingress_class.as_deref(), Some("nginx"));
    assert_eq!(v.runtime.scheduling.node_selector.len(), 2);
    assert_eq!(v.runtime.scheduling.tolerations.len(), 2);
    assert_eq!(
        v.runtime.scheduling.tolerations[1].operator.as_deref(),
        Some("Exists")
    );
}

#[test]
fn the_cluster_default_ingress_class_is_recorded_as_empty() {
    let s = setup(
        json!({"Context": "kind-dev", "Namespace": "cf", "StorageClass": "standard",
        "EnvVars": {}, "DockerRegistry": "", "Monitor": {"Enabled": false}, "SetDefaultRuntime": false,
        "ExecDemoPipeline": false, "Runtime": {"NodeSelector": {}, "tolerations": []}}),
    );
    let mut p = script(&[&[
        ("AppProxy.Enabled", Yes),
        ("AppProxy.Ingress.Host", text("cf.example.com")),
        ("AppProxy.Ingress.IngressClass", Enter),
        ("save", No),
        ("next", Enter),
    ]]);
    let plan = run_script(&mut p, &s, Facts::default());
    assert_eq!(
        answer(&plan, "AppProxy.Ingress.IngressClass"),
        Some(&json!(""))
    );
    assert_eq!(loads(&s, &plan).app_proxy.ingress_class, None);
}

#[test]
fn ctrl_c_stops_the_questions() {
    let s = setup(json!({}));
    let mut p = Scripted::new(&[("Context", Enter), ("Namespace", Reply::Interrupt)]);
    let result = run(&mut p, &mut cluster_with(aws_facts()), &s);
    assert_eq!(result, Err(PromptError::Interrupted));
}

#[test]
fn changing_an_answer_walks_again_with_the_last_answers_offered() {
    let s = setup(
        json!({"Context": "kind-dev", "Storage": {"Backend": "local"},
        "EnvVars": {}, "DockerRegistry": "", "Monitor": {"Enabled": false}, "AppProxy": {"Enabled": false},
        "SetDefaultRuntime": false, "ExecDemoPipeline": false,
        "Runtime": {"NodeSelector": {}, "tolerations": []}}),
    );
    let mut p = Scripted::new(&[
        ("Namespace", text("first")),
        ("Storage.LocalVolumeParentDir", text("/data/volumes")),
        ("save", No),
        ("next", pick("Change an answer")),
        ("Namespace", text("second")),
        ("Storage.LocalVolumeParentDir", Enter),
        ("save", No),
        ("next", Enter),
    ]);
    let mut looks = 0;
    let plan = run(
        &mut p,
        &mut |_: &str| {
            looks += 1;
            Facts::default()
        },
        &s,
    )
    .unwrap();
    assert_eq!(looks, 1, "the cluster is looked at once per context");
    assert_eq!(p.default_of("Namespace"), Some("first"));
    assert_eq!(
        p.default_of("Storage.LocalVolumeParentDir"),
        Some("/data/volumes")
    );
    assert_eq!(answer(&plan, "Namespace"), Some(&json!("second")));
    assert_eq!(
        answer(&plan, "Storage.LocalVolumeParentDir"),
        Some(&json!("/data/volumes"))
    );
    assert!(plan.proceed);
}

#[test]
fn stopping_after_the_summary_saves_but_does_not_proceed() {
    let dir = tempfile::tempdir().unwrap();
    let existing = dir.path().join("cf-runner-values.yaml");
    std::fs::write(&existing, "old").unwrap();
    let wanted = dir.path().join("mine.yaml");
    let s = setup(
        json!({"Context": "kind-dev", "Namespace": "cf", "Storage": {"Backend": "local"},
        "EnvVars": {}, "DockerRegistry": "", "Monitor": {"Enabled": false}, "AppProxy": {"Enabled": false},
        "SetDefaultRuntime": false, "ExecDemoPipeline": false,
        "Runtime": {"NodeSelector": {}}}),
    );
    let mut p = Scripted::new(&[
        ("Storage.LocalVolumeParentDir", Enter),
        ("Runtime.tolerations", Enter),
        ("save", Enter),
        ("save.path", text(&dir.path().display().to_string())),
        ("save.path", text(&existing.display().to_string())),
        ("save.replace", Enter),
        ("save.path", text(&wanted.display().to_string())),
        ("next", pick("Stop here")),
    ]);
    let plan = run_script(&mut p, &s, Facts::default());
    assert_eq!(p.default_of("save.path"), Some(DEFAULT_SAVE_FILE));
    assert!(p.rejected[0].1.contains("is a folder"));
    assert_eq!(p.default_of("save.replace"), Some("false"));
    assert_eq!(plan.save_to, Some(wanted));
    assert!(!plan.proceed);
    let labels = &p.choices.iter().find(|(id, _)| id == "next").unwrap().1;
    assert_eq!(labels[0], "Write the manifests to codefresh_manifests/");
    assert!(labels[2].contains("only the values file"));
}

#[test]
fn an_install_asks_for_the_api_token_and_never_saves_it() {
    let mut s = setup(
        json!({"Context": "kind-dev", "Namespace": "cf", "StorageClass": "gp3",
        "EnvVars": {}, "DockerRegistry": "", "Monitor": {"Enabled": false}, "AppProxy": {"Enabled": false},
        "SetDefaultRuntime": false, "ExecDemoPipeline": false,
        "Runtime": {"NodeSelector": {}, "tolerations": []}}),
    );
    s.mode = Mode::Install;
    s.ask_token = true;
    let mut p = Scripted::new(&[
        ("Token", Enter),
        ("Token", text("secret-api-key")),
        ("save", No),
        ("next", Enter),
    ]);
    let plan = run_script(&mut p, &s, Facts::default());
    assert_eq!(answer(&plan, "Token"), Some(&json!("secret-api-key")));
    let labels = &p.choices.iter().find(|(id, _)| id == "next").unwrap().1;
    assert_eq!(labels[0], "Install into kind-dev");
    assert!(p
        .summary
        .iter()
        .all(|r| !r.value.contains("secret-api-key")));
    let saved = values_file(&merged(&s, &plan));
    assert!(!saved.text.contains("secret-api-key"));
    assert!(saved.text.contains("Not saved: Token"));
    assert!(!saved.holds_secret);
}

#[test]
fn a_token_from_anywhere_is_not_asked_for() {
    let mut s = setup(
        json!({"Context": "kind-dev", "Namespace": "cf", "StorageClass": "gp3",
        "EnvVars": {}, "DockerRegistry": "", "Monitor": {"Enabled": false}, "AppProxy": {"Enabled": false},
        "SetDefaultRuntime": false, "ExecDemoPipeline": false, "AgentToken": "t",
        "Runtime": {"NodeSelector": {}, "tolerations": []}}),
    );
    s.mode = Mode::Install;
    s.ask_token = true;
    let plan = run_script(&mut Scripted::new(&[]), &s, Facts::default());
    assert_eq!(plan.asked, 0);
}

#[test]
fn one_context_is_used_without_asking() {
    let mut s = setup(json!({}));
    s.contexts.names = vec!["only".into()];
    s.contexts.current = None;
    let mut p = script(&[
        &[
            ("Namespace", Enter),
            ("Storage.Backend", Enter),
            ("Storage.LocalVolumeParentDir", Enter),
        ],
        &rest_with_defaults(),
    ]);
    let plan = run_script(&mut p, &s, Facts::default());
    assert_eq!(answer(&plan, "Context"), Some(&json!("only")));
    assert!(p.notes.iter().any(|n| n.contains("the only kube context")));
}

#[test]
fn without_a_terminal_a_missing_context_names_the_flag() {
    let mut s = setup(json!({}));
    s.mode = Mode::Install;
    s.contexts.current = None;
    let problems = required_but_missing(&s, false);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].key, "Context");
    assert!(problems[0].fix.contains("--kube-context-name"));
    assert!(problems[0].fix.contains("kind-dev, eks-prod"));
    assert!(
        required_but_missing(&s, true).is_empty(),
        "the wizard can ask it"
    );
    s.contexts.names.clear();
    assert_eq!(
        required_but_missing(&s, true).len(),
        1,
        "nobody can answer it"
    );
    s.mode = Mode::DryRun { output: "x".into() };
    assert!(
        required_but_missing(&s, false).is_empty(),
        "a dry-run needs no context"
    );
}

#[test]
fn tolerations_read_like_kubectl_taints() {
    assert_eq!(
        parse_tolerations("dedicated=ci:NoSchedule, spot:NoExecute,gpu").unwrap(),
        json!([
            {"key": "dedicated", "operator": "Equal", "value": "ci", "effect": "NoSchedule"},
            {"key": "spot", "operator": "Exists", "effect": "NoExecute"},
            {"key": "gpu", "operator": "Exists"}
        ])
    );
    assert_eq!(parse_tolerations("").unwrap(), json!([]));
    assert!(parse_tolerations("a=b:Sometimes").is_err());
    assert!(parse_tolerations("=b:NoSchedule").is_err());
}

#[test]
fn a_saved_values_file_parses_back_to_the_same_tree() {
    let tree = json!({"Context": "kind-dev", "Namespace": "cf", "EnvVars": {}, "DockerRegistry": "",
        "Storage": {"Backend": "ebs", "Iops": 4000, "Encrypted": true,
            "VolumeProvisioner": {"ServiceAccount": {"Annotations": {"eks.amazonaws.com/role-arn": "arn"}}}},
        "AppProxy": {"Ingress": {"IngressClass": ""}}, "ExecDemoPipeline": true,
        "Runtime": {"NodeSelector": {"a": "true"}, "tolerations": []}});
    let saved = values_file(&tree);
    let back = tree::parse_values_text(&saved.text, "saved").unwrap();
    assert_eq!(back, tree);
    assert!(!saved.holds_secret);
}

/// The save path used to be taken when it was a device, a pipe or a link
/// (`exists` and "Replace it?"), and the file written in place over it.
/// Each non-regular kind is rejected at the question, before any answer
/// to "replace"; a regular file is still offered for replacement.
#[cfg(unix)]
#[test]
fn the_save_path_is_never_a_device_a_pipe_or_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target.yaml");
    std::fs::write(&target, "mine\n").unwrap();
    let link = dir.path().join("link.yaml");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let fifo = dir.path().join("pipe.yaml");
    let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo only creates a file.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o644) }, 0);
    let wanted = dir.path().join("mine.yaml");
    let s = setup(
        json!({"Context": "kind-dev", "Namespace": "cf", "Storage": {"Backend": "local"},
        "EnvVars": {}, "DockerRegistry": "", "Monitor": {"Enabled": false}, "AppProxy": {"Enabled": false},
        "SetDefaultRuntime": false, "ExecDemoPipeline": false,
        "Runtime": {"NodeSelector": {}}}),
    );
    let bad = ["/dev/null", link.to_str().unwrap(), fifo.to_str().unwrap()];
    let mut script = vec![
        ("Storage.LocalVolumeParentDir", Enter),
        ("Runtime.tolerations", Enter),
        ("save", Enter),
    ];
    for path in bad {
        script.push(("save.path", text(path)));
    }
    script.push(("save.path", text(&wanted.display().to_string())));
    script.push(("next", pick("Stop here")));
    let mut p = Scripted::new(&script);
    let plan = run_script(&mut p, &s, Facts::default());
    assert_eq!(p.rejected.len(), bad.len(), "{:?}", p.rejected);
    for (_, why) in &p.rejected {
        assert!(why.contains("not a regular file"), "{why}");
    }
    assert!(
        p.default_of("save.replace").is_none(),
        "asked to replace one"
    );
    assert_eq!(plan.save_to, Some(wanted));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "mine\n");
}

#[test]
fn an_install_into_a_cluster_with_an_agent_offers_to_attach_to_it() {
    let mut s = setup(json!({"Context": "kind-dev"}));
    s.mode = Mode::Install;
    let mut facts = aws_facts();
    facts.agents = vec!["codefresh".into()];
    facts.namespaces.as_mut().unwrap().extend([
        NamespaceFact {
            name: "builds-eu".into(),
            ours: false,
        },
        NamespaceFact {
            name: "kube-system".into(),
            ours: false,
        },
    ]);
    let mut p = Scripted::new(&[
        (
            "agent",
            pick("Attach to the agent already installed in namespace codefresh"),
        ),
        ("runtime.Namespace", text("missing-ns")),
        ("runtime.Namespace", text("codefresh")),
        ("runtime.Namespace", Enter),
        ("next", Enter),
    ]);
    let plan = run_script(&mut p, &s, facts.clone());
    assert_eq!(
        plan.attach,
        Some(AttachTo {
            agent_namespace: "codefresh".into(),
            namespace: "builds-eu".into(),
        })
    );
    assert!(plan.proceed);
    let offered = &p.choices.iter().find(|(id, _)| id == "agent").unwrap().1;
    assert_eq!(offered[0], "Install a new runner");

    // Picking a new runner goes on with the install's questions.
    let mut p = script(&[
        &[("agent", Enter), ("Namespace", Enter)],
        &[
            ("Storage.Backend", pick("local")),
            ("Storage.LocalVolumeParentDir", Enter),
        ],
        &rest_with_defaults(),
    ]);
    let plan = run_script(&mut p, &s, facts.clone());
    assert_eq!(plan.attach, None);

    // A cluster without an agent (a namespace labelled by cf-runner is not
    // one), or a dry-run, asks nothing new.
    let mut no_agent = facts.clone();
    no_agent.agents.clear();
    for (mode, facts) in [
        (Mode::Install, no_agent),
        (
            Mode::DryRun {
                output: "out".into(),
            },
            facts,
        ),
    ] {
        s.mode = mode;
        let mut p = script(&[
            &[("Namespace", Enter)],
            &[
                ("Storage.Backend", pick("local")),
                ("Storage.LocalVolumeParentDir", Enter),
            ],
            &rest_with_defaults(),
        ]);
        let plan = run_script(&mut p, &s, facts);
        assert_eq!(plan.attach, None);
        assert!(!p.asked.iter().any(|id| id == "agent"));
    }
}

/// A private mirror is asked after the proxy, and its pull Secret's name
/// (only the name: the password stays in the user's Secret); a bad address
/// is refused by the values' own check and asked again.
#[test]
fn a_private_mirror_and_its_pull_secret_are_asked_for() {
    let s = setup(json!({
        "Context": "kind-dev", "Namespace": "cf", "Storage": {"Backend": "local", "LocalVolumeParentDir": "/var/lib/codefresh/dind-volumes"},
        "EnvVars": {}, "Monitor": {"Enabled": false}, "AppProxy": {"Enabled": false},
        "SetDefaultRuntime": false, "ExecDemoPipeline": false,
        "Runtime": {"NodeSelector": "", "tolerations": []},
    }));
    let mut p = script(&[&[
        ("mirror", Yes),
        ("DockerRegistry", text("registry example")),
        ("DockerRegistry", text("registry.example.com/codefresh")),
        ("ImagePullSecrets", text("mirror-creds")),
        ("save", No),
        ("next", Enter),
    ]]);
    let plan = run_script(&mut p, &s, Facts::default());
    assert_eq!(
        answer(&plan, "DockerRegistry"),
        Some(&json!("registry.example.com/codefresh"))
    );
    assert_eq!(
        answer(&plan, "ImagePullSecrets"),
        Some(&json!(["mirror-creds"]))
    );
    assert_eq!(p.rejected.len(), 1, "{:?}", p.rejected);
    assert!(
        p.rejected[0].1.contains("not a registry host"),
        "{:?}",
        p.rejected
    );
}
