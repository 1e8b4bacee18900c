//! `cf-runner diff` against the real control plane: nothing to show right
//! after `init`, exactly the changed field for a changed setting, a hand
//! edit made with kubectl, and never a write (checked in the audit log).

use crate::support;

use std::process::Output;
use std::time::Instant;

use serde_json::Value;
use support::cli::{self, example, isolated, shared_home, text};
use support::controlplane::{self, ControlPlane, ADMIN_USER};
use support::fake_platform::FakePlatform;
use support::namespace::unique;

const AGENT_TOKEN: &str = "agent-token-for-diff-0123456789";
const CONTEXT: &str = "admin@cf-runner-test";
const API_TOKEN: &str = "api-token-for-diff-9876543210";

fn cf_runner(cp: &ControlPlane, args: &[&str]) -> Output {
    isolated(cp.admin_kubeconfig(), shared_home())
        .args(args)
        .output()
        .unwrap()
}

/// An offline init of the local example into `ns`.
fn init(cp: &ControlPlane, ns: &str) {
    let out = cli::init(cp.admin_kubeconfig(), shared_home(), "local", ns, CONTEXT)
        .args([
            "--skip-cluster-test",
            "--no-wait",
            "--agent-token",
            AGENT_TOKEN,
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "init: {}", text(&out));
}

fn diff(cp: &ControlPlane, ns: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "diff",
        "--kube-namespace",
        ns,
        "--kube-context-name",
        CONTEXT,
    ];
    args.extend_from_slice(extra);
    let started = Instant::now();
    let out = cf_runner(cp, &args);
    // A figure for the report, not a check: no test fails on timing.
    eprintln!("diff {extra:?} took {:?}", started.elapsed());
    out
}

/// Requests since `since` that changed something about `ns`'s objects.
fn writes_about(cp: &ControlPlane, ns: &str, since: usize) -> Vec<String> {
    cp.audit_events()
        .unwrap()
        .into_iter()
        .skip(since)
        .filter(|e| e["user"]["username"] == ADMIN_USER && e["stage"] == "ResponseComplete")
        .filter(|e| {
            matches!(
                e["verb"].as_str(),
                Some("create" | "update" | "patch" | "delete" | "deletecollection")
            )
        })
        .filter(|e| e["requestURI"].as_str().unwrap_or_default().contains(ns))
        // The control plane's own controllers act on the install meanwhile.
        .filter(|e| {
            let agent = e["userAgent"].as_str().unwrap_or_default();
            !["kube-controller-manager/", "kube-scheduler/", "kwok"]
                .iter()
                .any(|c| agent.starts_with(c))
        })
        .filter(|e| !crate::support::audit::is_dry_run(e))
        .map(|e| format!("{} {} {}", e["verb"], e["requestURI"], e["userAgent"]))
        .collect()
}

fn report(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(out)))
}

/// The `+`/`-` lines of a unified diff, without the file headers.
fn changed_lines(diff: &str) -> Vec<&str> {
    diff.lines()
        .filter(|l| {
            (l.starts_with('+') || l.starts_with('-'))
                && !l.starts_with("+++")
                && !l.starts_with("---")
        })
        .collect()
}

#[test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
fn right_after_init_there_is_nothing_to_show_and_nothing_is_written() {
    let cp = controlplane::shared();
    let ns = unique("diff0");
    init(cp, &ns);
    let mark = cp.audit_events().unwrap().len();
    let out = diff(cp, &ns, &[]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.contains("0 to create, 0 to change, 0 to remove"),
        "{said}"
    );
    let out = diff(cp, &ns, &["-o", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let r = report(&out);
    assert_eq!(r["changes"], false);
    assert!(r["objects"].as_array().unwrap().len() >= 10);
    assert_eq!(writes_about(cp, &ns, mark), Vec::<String>::new());
}

/// The common case: neither `init` nor `diff` is given a context; both use
/// the kubeconfig's current one, and the record must not show as changed.
#[test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
fn without_a_context_flag_init_then_diff_shows_nothing() {
    let cp = controlplane::shared();
    let ns = unique("diffnc");
    // The local example without its `Context:` line.
    let dir = tempfile::tempdir().unwrap();
    let values = dir.path().join("values.yaml");
    let example = std::fs::read_to_string(cli::example("local")).unwrap();
    let kept: Vec<&str> = example
        .lines()
        .filter(|l| !l.starts_with("Context:"))
        .collect();
    std::fs::write(&values, kept.join("\n")).unwrap();
    let out = isolated(cp.admin_kubeconfig(), shared_home())
        .args(["init", "--yes", "--values"])
        .arg(&values)
        .args(["--kube-namespace", &ns, "--skip-cluster-test", "--no-wait"])
        .args(["--agent-token", AGENT_TOKEN])
        .output()
        .unwrap();
    assert!(out.status.success(), "init: {}", text(&out));
    let out = cf_runner(cp, &["diff", "--kube-namespace", &ns]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.contains("0 to create, 0 to change, 0 to remove"),
        "{said}"
    );
}

#[test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
fn a_changed_setting_shows_exactly_that_field() {
    let cp = controlplane::shared();
    let ns = unique("diff1");
    init(cp, &ns);
    let mark = cp.audit_events().unwrap().len();
    let out = diff(
        cp,
        &ns,
        &["--build-node-selector", "pool=builds", "-o", "json"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let r = report(&out);
    assert_eq!(r["changes"], true);
    let changed: Vec<&Value> = r["objects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["action"] != "same")
        .collect();
    assert!(!changed.is_empty());
    let mut saw_selector = false;
    for object in &changed {
        assert_eq!(object["action"], "change", "{object}");
        for line in changed_lines(object["diff"].as_str().unwrap()) {
            let expected = line.contains("pool: builds")
                || line.contains("cf-runner.codefresh.io/applied-hash")
                || line.contains("(secret value")
                || line.trim_start_matches(['+', '-']).trim() == "nodeSelector: {}"
                || line.trim_start_matches(['+', '-']).trim() == "nodeSelector:";
            assert!(expected, "{}: unexpected change {line:?}", object["object"]);
            saw_selector |= line.starts_with('+') && line.contains("pool: builds");
        }
    }
    assert!(saw_selector, "{changed:#?}");
    // The human form names the object and shows the line.
    let out = diff(cp, &ns, &["--build-node-selector", "pool=builds"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("pool: builds"), "{said}");
    assert!(said.contains("0 to create"), "{said}");
    assert_eq!(writes_about(cp, &ns, mark), Vec::<String>::new());
}

#[test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
fn a_hand_edit_made_with_kubectl_shows_up() {
    let cp = controlplane::shared();
    let ns = unique("diff2");
    init(cp, &ns);
    let edit = cp
        .kubectl()
        .args([
            "-n",
            &ns,
            "patch",
            "deployment",
            "runner",
            "--type",
            "merge",
            "-p",
            r#"{"spec":{"replicas":3}}"#,
        ])
        .output()
        .unwrap();
    assert!(edit.status.success(), "{}", text(&edit));
    let mark = cp.audit_events().unwrap().len();
    let out = diff(cp, &ns, &["-o", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let r = report(&out);
    let runner = r["objects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["object"] == "Deployment/runner")
        .expect("the runner is diffed")
        .clone();
    assert_eq!(runner["action"], "change");
    let lines = changed_lines(runner["diff"].as_str().unwrap());
    assert_eq!(lines, vec!["-  replicas: 3", "+  replicas: 1"], "{runner}");
    assert_eq!(writes_about(cp, &ns, mark), Vec::<String>::new());
}

#[test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
fn with_nothing_installed_everything_is_to_create() {
    let cp = controlplane::shared();
    let ns = unique("diff3");
    let ex = example("local");
    let mark = cp.audit_events().unwrap().len();
    let out = diff(cp, &ns, &["-f", ex.to_str().unwrap(), "-o", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let r = report(&out);
    for object in r["objects"].as_array().unwrap() {
        assert_eq!(object["action"], "create", "{object}");
        assert!(!object["diff"].as_str().unwrap().contains(AGENT_TOKEN));
    }
    assert_eq!(writes_about(cp, &ns, mark), Vec::<String>::new());
}

#[test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
fn the_runtime_spec_is_compared_with_the_platform_when_a_token_is_at_hand() {
    let cp = controlplane::shared();
    let ns = unique("diff4");
    let fake = FakePlatform::start(API_TOKEN);
    let out = cli::init(cp.admin_kubeconfig(), shared_home(), "local", &ns, CONTEXT)
        .args([
            "--skip-cluster-test",
            "--skip-cluster-integration",
            "--no-wait",
            "--token",
            API_TOKEN,
            "--url",
            &fake.url(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "init: {}", text(&out));

    let url = fake.url();
    let out = diff(
        cp,
        &ns,
        &["--token", API_TOKEN, "--url", &url, "-o", "json"],
    );
    assert!(!text(&out).contains(API_TOKEN));
    let r = report(&out);
    assert_eq!(r["runtimeSpec"]["compared"], true, "{r}");
    assert_eq!(
        r["runtimeSpec"]["differences"],
        serde_json::json!([]),
        "{r}"
    );
    // Init and upgrade record the same values (only the secrets some Secret
    // holds): nothing changes, the record included.
    let objects = r["objects"].as_array().unwrap();
    assert!(
        objects
            .iter()
            .any(|o| o["object"] == "Secret/cf-runner-values"),
        "{r}"
    );
    for object in objects {
        assert_eq!(object["action"], "same", "{object}");
    }
    // And the upgrade with the same inputs writes nothing in the cluster,
    // the record included, nor on the platform, which holds the spec.
    let mark = cp.audit_events().unwrap().len();
    let platform_calls = fake.calls().len();
    let out = cf_runner(
        cp,
        &[
            "upgrade",
            "--yes",
            "--no-wait",
            "--kube-namespace",
            &ns,
            "--kube-context-name",
            CONTEXT,
            "--token",
            API_TOKEN,
            "--url",
            &url,
        ],
    );
    assert!(out.status.success(), "upgrade: {}", text(&out));
    assert!(text(&out).contains("values: unchanged"), "{}", text(&out));
    assert!(
        text(&out).contains("the Codefresh platform holds it already, not re-sent"),
        "{}",
        text(&out)
    );
    let sent: Vec<String> = fake.calls()[platform_calls..]
        .iter()
        .filter(|c| !c.starts_with("GET "))
        .cloned()
        .collect();
    assert_eq!(sent, Vec::<String>::new(), "{}", text(&out));
    // (Its lock's Lease aside: that is the run's, not the install's.)
    assert_eq!(
        crate::support::audit::cf_runner_writes(cp, mark, &[&ns]),
        Vec::<String>::new(),
        "{}",
        text(&out)
    );

    let out = diff(
        cp,
        &ns,
        &[
            "--token",
            API_TOKEN,
            "--url",
            &url,
            "--build-node-selector",
            "pool=builds",
            "-o",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let r = report(&out);
    let differences: Vec<&str> = r["runtimeSpec"]["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap())
        .collect();
    assert!(!differences.is_empty(), "{r}");
    for d in &differences {
        assert!(
            d.contains("nodeSelector"),
            "{d} is not the changed setting: {r}"
        );
    }

    // Without a token the spec is not compared, and the diff says so.
    let out = diff(cp, &ns, &[]);
    assert!(out.status.code().is_some_and(|c| c < 2), "{}", text(&out));
    assert!(
        text(&out).contains("not compared: no Codefresh API token"),
        "{}",
        text(&out)
    );
}

/// A kubeconfig for a ServiceAccount of `ns` whose rights are `rules`
/// (granted in `ns`) and `cluster_rules` (cluster-wide); its token comes
/// from the TokenRequest API, as a CI job's would.
fn service_account_kubeconfig(
    cp: &ControlPlane,
    ns: &str,
    name: &str,
    rules: &str,
    cluster_rules: &str,
    dir: &std::path::Path,
) -> std::path::PathBuf {
    let rbac = format!(
        "apiVersion: v1
kind: ServiceAccount
metadata: {{name: {name}, namespace: {ns}}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {{name: {name}, namespace: {ns}}}
rules: {rules}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {{name: {name}, namespace: {ns}}}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: {name}}}
subjects: [{{kind: ServiceAccount, name: {name}, namespace: {ns}}}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {{name: {ns}-{name}}}
rules: {cluster_rules}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {{name: {ns}-{name}}}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: {ns}-{name}}}
subjects: [{{kind: ServiceAccount, name: {name}, namespace: {ns}}}]
"
    );
    let file = dir.join(format!("{name}-rbac.yaml"));
    std::fs::write(&file, rbac).unwrap();
    let out = cp
        .kubectl()
        .args(["apply", "-f"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let out = cp
        .kubectl()
        .args(["create", "token", name, "-n", ns])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let token = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let path = dir.join(format!("{name}.kubeconfig"));
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: {name}\n\
             clusters:\n- name: c\n  cluster: {{server: \"{}\", certificate-authority: \"{}\"}}\n\
             users:\n- name: {name}\n  user: {{token: \"{token}\"}}\n\
             contexts:\n- name: {name}\n  context: {{cluster: c, user: {name}}}\n",
            cp.server(),
            cp.ca_file().display()
        ),
    )
    .unwrap();
    path
}

/// `diff` needs read and dry-run rights only; with fewer, it used to fail on
/// the first 403 naming one object. It now asks first (SelfSubjectAccess-
/// Reviews) and names every permission missing, and with them it runs.
#[test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
fn diff_names_the_read_and_dry_run_rights_a_user_lacks() {
    let cp = controlplane::shared();
    let ns = unique("diffrights");
    init(cp, &ns);
    let dir = tempfile::tempdir().unwrap();
    // Read-only: get and list, nothing else.
    let kubeconfig = service_account_kubeconfig(
        cp,
        &ns,
        "reader",
        "[{apiGroups: ['*'], resources: ['*'], verbs: [get, list]}]",
        "[{apiGroups: ['*'], resources: ['*'], verbs: [get, list]}]",
        dir.path(),
    );
    let run = |kubeconfig: &std::path::Path| {
        isolated(kubeconfig, dir.path())
            .args(["diff", "--kube-namespace", &ns])
            .output()
            .unwrap()
    };
    let out = run(&kubeconfig);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains("permission(s) diff needs: it reads each object (get, list) and asks the API server for a dry-run of the apply (patch)"),
        "{said}"
    );
    for missing in [
        format!("- patch deployments (apps) in namespace {ns}"),
        format!("- patch secrets in namespace {ns}"),
        "- patch clusterroles (rbac.authorization.k8s.io) cluster-wide".to_string(),
        "- patch storageclasses (storage.k8s.io) cluster-wide".to_string(),
    ] {
        assert!(said.contains(&missing), "{missing} not in:\n{said}");
    }
    // What it holds is not listed, and nothing is to be created; the
    // roles' own rules are listed, as a dry-run of a role needs them.
    let own = |verb: &str| {
        said.lines().any(|l| {
            l.trim_start().starts_with(&format!("- {verb} ")) && !l.contains("(granted by ")
        })
    };
    assert!(!own("get") && !own("list") && !own("create"), "{said}");
    assert!(
        said.contains(&format!(
            "- create pods in namespace {ns} (granted by Role/runner)"
        )),
        "{said}"
    );

    // With patch, and escalate and bind for the dry-run of the roles, the
    // same user runs the diff (which shows the record's new context name:
    // exit 1, changes, not 2, an error).
    let kubeconfig = service_account_kubeconfig(
        cp,
        &ns,
        "differ",
        "[{apiGroups: ['*'], resources: ['*'], verbs: [get, list, patch, escalate, bind]}]",
        "[{apiGroups: ['*'], resources: ['*'], verbs: [get, list, patch, escalate, bind]}]",
        dir.path(),
    );
    let out = run(&kubeconfig);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(!said.contains("diff needs"), "{said}");
    assert!(said.contains("to change"), "{said}");
}
