//! `init --agent-only --dry-run`: what an agent installed alone consists
//! of, as a reviewer reads it in the exported manifests.

use crate::support::cli;

fn dry_run(extra: &[&str]) -> (String, Vec<serde_yaml_ng::Value>) {
    let work = tempfile::tempdir().expect("temp dir");
    let mut args = vec![
        "init",
        "--yes",
        "--dry-run",
        "--output-dir",
        "-",
        "--kube-context-name",
        "hub",
        "--kube-namespace",
        "agents",
    ];
    args.extend_from_slice(extra);
    let out = cli::cf_runner(work.path())
        .args(&args)
        .output()
        .expect("run cf-runner");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{args:?}\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let docs = stdout
        .split("\n---\n")
        .filter_map(|d| serde_yaml_ng::from_str::<serde_yaml_ng::Value>(d).ok())
        .filter(|d| !d.is_null())
        .collect();
    (stdout, docs)
}

fn names(docs: &[serde_yaml_ng::Value]) -> Vec<String> {
    docs.iter()
        .map(|d| {
            format!(
                "{}/{}",
                d["kind"].as_str().unwrap_or("?"),
                d["metadata"]["name"].as_str().unwrap_or("?")
            )
        })
        .collect()
}

/// The agent's objects only, the runner in config-dir mode with an empty
/// `runnerconf`, and a record that names no runtime; the ordinary install
/// of the same flags still has its runtime.
#[test]
fn an_agent_alone_is_the_runner_and_an_empty_runnerconf_only() {
    let (text, docs) = dry_run(&["--agent-only"]);
    let all = names(&docs);
    for gone in [
        "ServiceAccount/codefresh-engine",
        "Secret/codefresh-certs-server",
        "ConfigMap/codefresh-dind-config",
        "Service/dind",
        "Deployment/dind-volume-provisioner",
    ] {
        assert!(!all.contains(&gone.to_string()), "{gone} in {all:?}");
    }
    assert!(
        !all.iter().any(|n| n.starts_with("StorageClass/")),
        "{all:?}"
    );
    for kept in [
        "Deployment/runner",
        "ServiceAccount/runner",
        "Role/runner",
        "RoleBinding/runner",
        "Secret/runner",
        "Secret/runnerconf",
        "Secret/cf-runner-values",
    ] {
        assert!(all.contains(&kept.to_string()), "{kept} not in {all:?}");
    }
    let runner = docs
        .iter()
        .find(|d| d["kind"] == "Deployment" && d["metadata"]["name"] == "runner")
        .unwrap();
    let env = serde_yaml_ng::to_string(&runner["spec"]["template"]["spec"]["containers"][0]["env"])
        .unwrap();
    assert!(env.contains("VENONA_CONFIG_DIR"), "{env}");
    assert!(!env.contains("CODEFRESH_IN_CLUSTER_RUNTIME"), "{env}");
    assert_eq!(
        runner["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"],
        serde_yaml_ng::Value::from(0)
    );
    let conf = docs
        .iter()
        .find(|d| d["kind"] == "Secret" && d["metadata"]["name"] == "runnerconf")
        .unwrap();
    assert!(
        conf["data"].as_mapping().is_none_or(|m| m.is_empty()),
        "{conf:?}"
    );
    let record = docs
        .iter()
        .find(|d| d["kind"] == "Secret" && d["metadata"]["name"] == "cf-runner-values")
        .unwrap();
    assert_eq!(record["stringData"]["runtime-name"], "");
    assert!(
        record["stringData"]["values.yaml"]
            .as_str()
            .unwrap()
            .contains("AgentOnly: true"),
        "{text}"
    );

    let (_, ordinary) = dry_run(&[]);
    let ordinary = names(&ordinary);
    assert!(ordinary.contains(&"ServiceAccount/codefresh-engine".to_string()));
    assert!(!ordinary.contains(&"Secret/runnerconf".to_string()));
}
