//! `cf-runner fleet` refusing bad input: exit 2, the key named (with its
//! cluster), a secret never echoed, nothing written.

use crate::support;

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

// ---------------------------------------------------------------------
// What the fleet commands take from the tree and the fleet file as fact
// (issue 42, items 2, 3, 10 and 11), against the fake platform.
// ---------------------------------------------------------------------

use std::path::{Path, PathBuf};

use support::fake_platform::FakePlatform;

const TOKEN: &str = "fleet-cli-token.0123456789abcdef";

/// An age identity: its recipient, and the text of its key file.
fn age_key() -> (age::x25519::Identity, String, String) {
    use age::secrecy::ExposeSecret;
    let id = age::x25519::Identity::generate();
    let recipient = id.to_public().to_string();
    let secret = format!("{}\n", id.to_string().expose_secret());
    (id, recipient, secret)
}

/// A fleet file: runners sent to `host`, secrets encrypted to `recipients`,
/// one runtime (namespace `codefresh`) in each of `clusters`.
fn fleet_yaml(host: &str, recipients: &[&str], clusters: &[&str]) -> String {
    let mut s = format!(
        "defaults:\n  CodefreshHost: {host}\n  Storage:\n    Backend: local\n  SkipClusterIntegration: true\n\
         sops:\n  ageRecipients: [{}]\nclusters:\n",
        recipients.join(", ")
    );
    for c in clusters {
        s.push_str(&format!("  - name: {c}\n"));
    }
    s
}

/// `cf-runner fleet <command>` in `dir` (also HOME, where the registration
/// key is kept) on `dir/fleet.yaml` and `dir/tree`, with the fake's token.
fn fleet(dir: &Path, fake: &FakePlatform, command: &str, extra: &[&str]) -> std::process::Output {
    let mut cmd = cf_runner(dir);
    cmd.args([
        "fleet",
        command,
        "--fleet",
        "fleet.yaml",
        "--output-dir",
        "tree",
    ]);
    if command != "export" {
        cmd.args(["--token", TOKEN, "--url", &fake.url()]);
    }
    cmd.args(extra).output().unwrap()
}

fn write_fleet(dir: &Path, text: &str) {
    std::fs::write(dir.join("fleet.yaml"), text).unwrap();
}

fn registration(dir: &Path, cluster: &str) -> PathBuf {
    dir.join("tree/secrets")
        .join(cluster)
        .join("codefresh/registration.yaml")
}

/// The calls that changed something on the platform.
fn writes(fake: &FakePlatform) -> Vec<String> {
    fake.calls()
        .into_iter()
        .filter(|c| !c.starts_with("GET "))
        .collect()
}

/// Two teams on one account: team A registered `east`, team B `west`,
/// each with its own registration key (its own HOME).
struct Teams {
    fake: FakePlatform,
    a: tempfile::TempDir,
    b: tempfile::TempDir,
}

fn two_teams() -> Teams {
    let fake = FakePlatform::start(TOKEN);
    let (_, recipient, _) = age_key();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for (dir, cluster) in [(a.path(), "east"), (b.path(), "west")] {
        write_fleet(dir, &fleet_yaml(&fake.url(), &[&recipient], &[cluster]));
        let out = fleet(dir, &fake, "register", &[]);
        assert!(out.status.success(), "{}", text(&out));
    }
    assert_eq!(fake.agents().len(), 2);
    Teams { fake, a, b }
}

fn west_agent_is_there(t: &Teams) -> bool {
    t.fake
        .agents()
        .iter()
        .any(|a| a["name"].as_str() == Some("west_codefresh"))
}

#[test]
fn retire_never_deletes_what_a_registration_it_did_not_seal_names() {
    let mut cases = 0;
    // a. B's registration copied into A's tree (another fleet's file).
    let t = two_teams();
    let (a, b) = (t.a.path(), t.b.path());
    std::fs::create_dir_all(a.join("tree/secrets/west/codefresh")).unwrap();
    std::fs::copy(registration(b, "west"), registration(a, "west")).unwrap();
    t.fake.clear_requests();
    let out = fleet(a, &t.fake, "retire", &[]);
    cases += 1;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("secrets/west/codefresh/registration.yaml"),
        "{}",
        text(&out)
    );
    assert!(text(&out).contains("not sealed"), "{}", text(&out));
    assert!(
        t.fake.calls().is_empty(),
        "asked the platform: {:?}",
        t.fake.calls()
    );
    assert!(west_agent_is_there(&t));

    // b. A file written by hand in Git, naming B's agent and runtime.
    std::fs::remove_dir_all(a.join("tree/secrets/west")).unwrap();
    let forged = a.join("tree/secrets/gone/codefresh");
    std::fs::create_dir_all(&forged).unwrap();
    std::fs::write(
        forged.join("registration.yaml"),
        "agentName: west_codefresh\nruntimeName: west/codefresh\nspecDigest: x\nsecretsDigest: y\n",
    )
    .unwrap();
    let out = fleet(a, &t.fake, "retire", &[]);
    cases += 1;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(t.fake.calls().is_empty(), "{:?}", t.fake.calls());

    // c. The same with the user's word to accept unsealed files: the
    // platform shows that runtime runs in another cluster; refused after
    // reads only, and the message does not claim a deletion.
    let out = fleet(a, &t.fake, "retire", &["--accept-unsigned-registrations"]);
    cases += 1;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("cluster west"), "{}", text(&out));
    assert!(writes(&t.fake).is_empty(), "{:?}", writes(&t.fake));
    assert!(west_agent_is_there(&t));
    std::fs::remove_dir_all(a.join("tree/secrets/gone")).unwrap();

    // d. A's own sealed registration, its agent name edited in Git, and
    // east taken out of the fleet file.
    let own = registration(a, "east");
    let original = std::fs::read_to_string(&own).unwrap();
    std::fs::write(&own, original.replace("east_codefresh", "west_codefresh")).unwrap();
    write_fleet(a, &fleet_yaml(&t.fake.url(), &[&age_key().1], &["other"]));
    t.fake.clear_requests();
    let out = fleet(a, &t.fake, "retire", &[]);
    cases += 1;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(t.fake.calls().is_empty(), "{:?}", t.fake.calls());

    // e. No registration key at all: nothing can be checked.
    std::fs::write(&own, &original).unwrap();
    let out = fleet(
        a,
        &t.fake,
        "retire",
        &["--registration-key-file", "no-such-key"],
    );
    cases += 1;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("no registration key"), "{}", text(&out));
    assert!(t.fake.calls().is_empty(), "{:?}", t.fake.calls());
    assert!(west_agent_is_there(&t));

    // f. A's own registration, unchanged: retired, and only A's objects go.
    let out = fleet(a, &t.fake, "retire", &[]);
    cases += 1;
    assert!(out.status.success(), "{}", text(&out));
    let deleted = writes(&t.fake);
    assert!(
        deleted
            .iter()
            .all(|c| c.starts_with("DELETE ") && !c.contains("west")),
        "{deleted:?}"
    );
    assert!(west_agent_is_there(&t));
    assert_eq!(t.fake.agents().len(), 1, "east's agent is still there");
    assert_eq!(
        t.fake.runtimes().keys().collect::<Vec<_>>(),
        vec!["west/codefresh"]
    );
    assert_eq!(cases, 6);
}

#[test]
fn a_registration_without_the_users_seal_is_read_only_with_their_word_and_then_sealed() {
    // Registrations an older cf-runner wrote carry no seal; one sealed
    // with a key the user no longer has (a new machine) is the same case.
    let t = two_teams();
    let a = t.a.path();
    let own = registration(a, "east");
    let other_key = ["--registration-key-file", "new-machine.key"];
    t.fake.clear_requests();
    let refused = fleet(a, &t.fake, "register", &other_key);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    assert!(
        text(&refused).contains("--accept-unsigned-registrations"),
        "{}",
        text(&refused)
    );
    assert!(t.fake.calls().is_empty(), "{:?}", t.fake.calls());
    assert!(
        !a.join("new-machine.key").exists(),
        "a refused run made a key"
    );
    let export = fleet(a, &t.fake, "export", &other_key);
    assert_eq!(export.status.code(), Some(2), "{}", text(&export));

    let accept = [&other_key[..], &["--accept-unsigned-registrations"]].concat();
    let accepted = fleet(a, &t.fake, "register", &accept);
    assert!(accepted.status.success(), "{}", text(&accepted));
    assert!(text(&accepted).contains("sealed"), "{}", text(&accepted));
    assert!(writes(&t.fake).is_empty(), "{:?}", writes(&t.fake));
    assert!(std::fs::read_to_string(&own)
        .unwrap()
        .contains("seal: hmac-sha256:"));
    t.fake.clear_requests();
    let again = fleet(a, &t.fake, "register", &other_key);
    assert!(again.status.success(), "{}", text(&again));
    assert!(text(&again).contains("unchanged"), "{}", text(&again));
    assert!(t.fake.calls().is_empty(), "{:?}", t.fake.calls());
    let export = fleet(a, &t.fake, "export", &other_key);
    assert!(export.status.success(), "{}", text(&export));
}

#[test]
fn a_run_that_stopped_after_a_platform_write_never_says_nothing_was_written() {
    let fake = FakePlatform::start(TOKEN);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let recipient = age_key().1;
    write_fleet(d, &fleet_yaml(&fake.url(), &[&recipient], &["east"]));
    let out = fleet(d, &fake, "register", &[]);
    assert!(out.status.success(), "{}", text(&out));
    // A file of the user's where west's registration goes: found only
    // once west's agent is created.
    let west = d.join("tree/secrets/west/codefresh");
    std::fs::create_dir_all(&west).unwrap();
    std::fs::write(west.join("runner.sops.yaml"), "mine: true\n").unwrap();
    write_fleet(
        d,
        &fleet_yaml(&fake.url(), &[&recipient], &["east", "west"]),
    );
    fake.clear_requests();
    let out = fleet(d, &fake, "register", &[]);
    assert_ne!(out.status.code(), Some(0), "{}", text(&out));
    assert!(!writes(&fake).is_empty(), "{}", text(&out));
    assert!(
        !text(&out).contains("nothing was applied"),
        "{}",
        text(&out)
    );
    assert!(
        text(&out).contains("created agent west_codefresh"),
        "{}",
        text(&out)
    );
    assert_eq!(
        std::fs::read_to_string(west.join("runner.sops.yaml")).unwrap(),
        "mine: true\n"
    );
}

#[test]
fn a_fleet_whose_runners_would_go_to_another_host_is_refused_before_any_platform_call() {
    let fake = FakePlatform::start(TOKEN);
    let recipient = age_key().1;
    let evil = "https://evil.example.com";
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut cases = 0;
    let base = fleet_yaml(&fake.url(), &[&recipient], &["east"]);
    let variants = [
        // The defaults, a cluster's values, a runtime's values, and no
        // host at all (the public platform) while the token is the fake's.
        (
            base.replace(&fake.url(), evil),
            "defaults.CodefreshHost",
            evil,
        ),
        (
            format!("{base}    values:\n      CodefreshHost: {evil}\n"),
            "clusters[east].CodefreshHost",
            evil,
        ),
        (
            format!("{base}    runtimes:\n      - values:\n          CodefreshHost: {evil}\n"),
            "clusters[east].CodefreshHost",
            evil,
        ),
        (
            base.replace(&format!("  CodefreshHost: {}\n", fake.url()), ""),
            "defaults.CodefreshHost",
            "https://g.codefresh.io",
        ),
    ];
    for (yaml, key, value) in &variants {
        write_fleet(d, yaml);
        let out = fleet(d, &fake, "register", &[]);
        cases += 1;
        assert_eq!(out.status.code(), Some(2), "{yaml}\n{}", text(&out));
        assert!(text(&out).contains(key), "{key}: {}", text(&out));
        assert!(text(&out).contains(value), "{value}: {}", text(&out));
        assert!(text(&out).contains(&fake.url()), "{}", text(&out));
        assert!(fake.calls().is_empty(), "{:?}", fake.calls());
        assert!(!d.join("tree").exists(), "a refused run wrote the tree");
    }
    // Registered for the fake; then the fleet file changes host: export
    // (no token) and register both refuse, and nothing is written.
    write_fleet(d, &base);
    let out = fleet(d, &fake, "register", &[]);
    assert!(out.status.success(), "{}", text(&out));
    fake.clear_requests();
    for (yaml, key, value) in &variants[..3] {
        write_fleet(d, yaml);
        for command in ["export", "register"] {
            let out = fleet(d, &fake, command, &[]);
            cases += 1;
            assert_eq!(out.status.code(), Some(2), "{command}: {}", text(&out));
            assert!(
                text(&out).contains(key) && text(&out).contains(value),
                "{}",
                text(&out)
            );
            assert!(fake.calls().is_empty(), "{:?}", fake.calls());
            assert!(
                !d.join("tree/clusters").exists(),
                "{command} wrote the tree"
            );
        }
    }
    write_fleet(d, &base);
    let out = fleet(d, &fake, "export", &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(cases, 10);
}

fn git_init(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let out = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn a_material_folder_in_a_git_work_tree_of_the_export_is_refused() {
    let fake = FakePlatform::start(TOKEN);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let store = "externalSecrets:\n  secretStoreRef: {kind: ClusterSecretStore, name: vault}\n";
    std::fs::write(
        d.join("fleet.yaml"),
        format!(
            "defaults:\n  CodefreshHost: {}\n  Storage:\n    Backend: local\n  SkipClusterIntegration: true\n{store}clusters:\n  - name: east\n",
            fake.url()
        ),
    )
    .unwrap();
    let repo = d.join("repo");
    git_init(&repo);
    std::fs::create_dir_all(d.join("elsewhere")).unwrap();
    std::os::unix::fs::symlink(repo.join("private"), d.join("link")).unwrap();
    // A submodule's work tree: `.git` is a file.
    std::fs::create_dir_all(repo.join("sub")).unwrap();
    std::fs::write(repo.join("sub/.git"), "gitdir: ../.git/modules/sub\n").unwrap();
    let run = |tree: &str, material: &str| {
        cf_runner(d)
            .args([
                "fleet",
                "register",
                "--fleet",
                "fleet.yaml",
                "--output-dir",
                tree,
            ])
            .args([
                "--token",
                TOKEN,
                "--url",
                &fake.url(),
                "--store-material-dir",
                material,
            ])
            .output()
            .unwrap()
    };
    let refused = [
        ("repo/fleet", "repo/material"),
        ("repo/fleet", "link"),
        ("repo/fleet", "link/deeper"),
        ("repo/fleet", "elsewhere/../repo/m"),
        ("repo/sub/fleet", "repo/m"),
        ("repo/sub/fleet", "repo/sub/m"),
    ];
    for (tree, material) in refused {
        let out = run(tree, material);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{tree} {material}: {}",
            text(&out)
        );
        assert!(
            text(&out).contains("--store-material-dir"),
            "{}",
            text(&out)
        );
        assert!(text(&out).contains("Git work tree"), "{}", text(&out));
        assert!(fake.calls().is_empty(), "{:?}", fake.calls());
        assert!(!d.join(tree).exists() && !d.join(material).exists());
    }
    // The registration key is no better placed in the repository.
    let out = cf_runner(d)
        .args([
            "fleet",
            "register",
            "--fleet",
            "fleet.yaml",
            "--output-dir",
            "repo/fleet",
        ])
        .args([
            "--token",
            TOKEN,
            "--url",
            &fake.url(),
            "--store-material-dir",
            "material",
        ])
        .args(["--registration-key-file", "repo/keys/fleet.key"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("--registration-key-file"),
        "{}",
        text(&out)
    );
    assert!(fake.calls().is_empty(), "{:?}", fake.calls());
    assert!(!d.join("repo/keys").exists());
    // Outside every work tree: registered, the material handed over.
    let out = run("repo/fleet", "material");
    assert!(out.status.success(), "{}", text(&out));
    assert!(d.join("material/east/codefresh/runner.yaml").is_file());
    assert_eq!(refused.len(), 6);
}

/// The recipients each SOPS file of east's folder is encrypted to.
fn recipients_in(dir: &Path) -> Vec<Vec<String>> {
    ["runner", "codefresh-certs-server"]
        .iter()
        .map(|n| {
            let file = dir.join(format!("tree/secrets/east/codefresh/{n}.sops.yaml"));
            let v =
                cf_runner::render::yaml::parse(&std::fs::read_to_string(file).unwrap()).unwrap();
            let mut r: Vec<String> = v["sops"]["age"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["recipient"].as_str().unwrap().to_string())
                .collect();
            r.sort();
            r
        })
        .collect()
}

#[test]
fn a_recipient_removed_from_the_fleet_file_stops_opening_the_secrets() {
    let fake = FakePlatform::start(TOKEN);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (keep, keep_r, keep_text) = age_key();
    let (leaked, leaked_r, _) = age_key();
    std::fs::write(d.join("keep.agekey"), keep_text).unwrap();
    write_fleet(
        d,
        &fleet_yaml(&fake.url(), &[&keep_r, &leaked_r], &["east"]),
    );
    let out = fleet(d, &fake, "register", &[]);
    assert!(out.status.success(), "{}", text(&out));
    let runner = d.join("tree/secrets/east/codefresh/runner.sops.yaml");
    let open = |id: &age::x25519::Identity| {
        let v = cf_runner::render::yaml::parse(&std::fs::read_to_string(&runner).unwrap()).unwrap();
        cf_runner::fleet::sops::decrypt(&v, std::slice::from_ref(id)).ok()
    };
    let token = open(&leaked).expect("the second recipient opens it")["stringData"]
        ["codefresh.token"]
        .clone();
    let before = std::fs::read_to_string(&runner).unwrap();
    let mut cases = 0;

    // The leaked key removed, no age key to re-encrypt with: refused,
    // naming the files and the removed recipient, nothing changed.
    write_fleet(d, &fleet_yaml(&fake.url(), &[&keep_r], &["east"]));
    fake.clear_requests();
    let out = fleet(d, &fake, "register", &[]);
    cases += 1;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    for needle in [
        "--age-key-file",
        leaked_r.as_str(),
        "runner.sops.yaml",
        "codefresh-certs-server.sops.yaml",
    ] {
        assert!(text(&out).contains(needle), "{needle}: {}", text(&out));
    }
    assert!(!text(&out).contains("unchanged"), "{}", text(&out));
    assert!(fake.calls().is_empty(), "{:?}", fake.calls());
    assert_eq!(std::fs::read_to_string(&runner).unwrap(), before);

    // With the key: encrypted anew to the one recipient left; the leaked
    // key no longer opens it, the kept one does, the token is the same,
    // and the platform is not asked anything.
    let out = fleet(d, &fake, "register", &["--age-key-file", "keep.agekey"]);
    cases += 1;
    assert!(out.status.success(), "{}", text(&out));
    assert!(!text(&out).contains("unchanged"), "{}", text(&out));
    assert!(
        text(&out).contains(&leaked_r),
        "the warning names the removed key: {}",
        text(&out)
    );
    assert_eq!(recipients_in(d), vec![vec![keep_r.clone()]; 2]);
    assert!(
        open(&leaked).is_none(),
        "the removed key still opens the file"
    );
    assert_eq!(open(&keep).unwrap()["stringData"]["codefresh.token"], token);
    assert!(fake.calls().is_empty(), "{:?}", fake.calls());

    // A recipient added: encrypted to it too.
    let (added, added_r, _) = age_key();
    write_fleet(d, &fleet_yaml(&fake.url(), &[&keep_r, &added_r], &["east"]));
    let out = fleet(d, &fake, "register", &["--age-key-file", "keep.agekey"]);
    cases += 1;
    assert!(out.status.success(), "{}", text(&out));
    let mut both = vec![keep_r.clone(), added_r.clone()];
    both.sort();
    assert_eq!(recipients_in(d), vec![both; 2]);
    assert!(open(&added).is_some());

    // Nothing changed: unchanged, and no age key needed.
    let out = fleet(d, &fake, "register", &[]);
    cases += 1;
    assert!(text(&out).contains("unchanged"), "{}", text(&out));
    assert_eq!(cases, 4);
}
