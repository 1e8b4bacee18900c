//! `cf-runner fleet` refusing bad input: exit 2, the key named (with its
//! cluster), a secret never echoed, nothing written.

mod support;

use support::cli::{cf_runner, text};

fn run(dir: &std::path::Path, fleet: &str, command: &str) -> std::process::Output {
    std::fs::write(dir.join("fleet.yaml"), fleet).unwrap();
    cf_runner(dir)
        .args([
            "fleet",
            command,
            "--fleet",
            "fleet.yaml",
            "--output-dir",
            "tree",
        ])
        .output()
        .unwrap()
}

#[test]
fn a_bad_value_exits_2_naming_the_cluster_and_key_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(
        dir.path(),
        "clusters:\n  - name: east\n    values:\n      Namespace: Not_A_Namespace\n",
        "export",
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("clusters[east].Namespace"),
        "{}",
        text(&out)
    );
    assert!(
        !dir.path().join("tree").exists(),
        "a refused export wrote files"
    );
}

#[test]
fn a_token_in_the_fleet_file_is_refused_without_echoing_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(
        dir.path(),
        "defaults:\n  AgentToken: very-secret-agent-token\nclusters:\n  - name: east\n",
        "register",
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("defaults.AgentToken"), "{}", text(&out));
    assert!(
        !text(&out).contains("very-secret-agent-token"),
        "{}",
        text(&out)
    );
    assert!(!dir.path().join("tree").exists());
}

#[test]
fn a_credential_named_env_value_in_the_fleet_file_is_refused_without_echoing_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(
        dir.path(),
        "defaults:\n  EnvVars: {HTTP_PORT: \"80\"}\nclusters:\n  - name: east\n    values:\n      EnvVars: {SEED_DB_PASSWORD: pw-in-git-0123}\n",
        "register",
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("EnvVars.SEED_DB_PASSWORD"),
        "{}",
        text(&out)
    );
    assert!(!text(&out).contains("pw-in-git-0123"), "{}", text(&out));
    assert!(!text(&out).contains("HTTP_PORT"), "{}", text(&out));
    assert!(!dir.path().join("tree").exists());
}

#[test]
fn retire_refuses_the_register_only_flag_instead_of_ignoring_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("fleet.yaml"), "clusters:\n  - name: east\n").unwrap();
    let out = cf_runner(dir.path())
        .args([
            "fleet",
            "retire",
            "--fleet",
            "fleet.yaml",
            "--output-dir",
            "tree",
        ])
        .args(["--store-material-dir", "material"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("--store-material-dir"),
        "{}",
        text(&out)
    );
    assert!(!dir.path().join("material").exists());
}

#[test]
fn an_export_before_registration_says_to_register_first() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), "clusters:\n  - name: east\n", "export");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("clusters[east]") && text(&out).contains("fleet register"),
        "{}",
        text(&out)
    );
}

#[test]
fn register_without_age_recipients_is_refused_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), "clusters:\n  - name: east\n", "register");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("sops.ageRecipients"), "{}", text(&out));
}
