//! The real binary in a pseudo-terminal: a complete `init` wizard ending in
//! `--dry-run`, its saved values file replayed to byte-identical manifests,
//! Ctrl-C leaving nothing behind, and `--yes` asking nothing. Most need no
//! cluster: the kubeconfig's contexts point at a closed port, and the wizard
//! falls back to suggesting defaults. One runs against the test control
//! plane, to see suggestions drawn from a real cluster.

#![cfg(unix)]

use crate::support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rexpect::process::WaitStatus;
use rexpect::reader::Options;
use rexpect::session::{spawn_with_options, PtySession};
use support::cli;

const DOWN: &str = "\x1b[B";
const ENTER: &str = "\r";

fn kubeconfig(dir: &Path) -> PathBuf {
    let path = dir.join("kubeconfig");
    std::fs::write(
        &path,
        "apiVersion: v1\nkind: Config\ncurrent-context: kind-dev\n\
         clusters:\n- name: nowhere\n  cluster: {server: 'https://127.0.0.1:1'}\n\
         users:\n- name: me\n  user: {token: not-a-real-token}\n\
         contexts:\n\
         - name: kind-dev\n  context: {cluster: nowhere, user: me}\n\
         - name: eks-prod\n  context: {cluster: nowhere, user: me}\n",
    )
    .unwrap();
    path
}

/// `cf-runner` with a clean, predictable environment in `dir`.
fn command(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = cli::cf_runner(dir);
    cmd.args(args)
        .env("KUBECONFIG", kubeconfig(dir))
        .env("TERM", "xterm")
        // The pty is the terminal: the spawn puts it on fd 0 before exec.
        .stdin(Stdio::inherit());
    cmd
}

/// A session that remembers everything the terminal showed.
struct Terminal {
    session: PtySession,
    seen: String,
}

impl Terminal {
    fn start(cmd: Command) -> Self {
        let options = Options::new()
            .timeout_ms(Some(30_000))
            .strip_ansi_escape_codes(true);
        Terminal {
            session: spawn_with_options(cmd, options).expect("spawn in a pty"),
            seen: String::new(),
        }
    }

    /// Waits until `text` is on the screen.
    fn expect(&mut self, text: &str) {
        match self.session.exp_string(&as_read(text)) {
            Ok(before) => {
                self.seen.push_str(&decode(&before));
                self.seen.push_str(text);
            }
            Err(e) => panic!(
                "waited for {text:?}: {e}\n--- the terminal showed:\n{}",
                self.seen
            ),
        }
    }

    /// Waits for a prompt, then types.
    fn answer(&mut self, prompt: &str, keys: &str) {
        self.expect(prompt);
        self.session.send(keys).unwrap();
        self.session.flush().unwrap();
    }

    /// Reads to the end and returns the exit code.
    fn finish(&mut self) -> i32 {
        match self.session.exp_eof() {
            Ok(rest) => self.seen.push_str(&decode(&rest)),
            Err(e) => panic!("no end: {e}\n--- the terminal showed:\n{}", self.seen),
        }
        match self.session.process().wait().unwrap() {
            WaitStatus::Exited(_, code) => code,
            other => panic!("ended with {other:?}\n{}", self.seen),
        }
    }
}

/// rexpect hands over each byte as a char; UTF-8 text (✔, ·) is matched
/// in that form.
fn as_read(text: &str) -> String {
    text.bytes().map(char::from).collect()
}

/// The inverse of [`as_read`].
fn decode(read: &str) -> String {
    let bytes: Vec<u8> = read.chars().map(|c| c as u32 as u8).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Every file under `dir`, by relative path, with its bytes.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            out.insert(name, std::fs::read(&path).unwrap());
        }
    }
    out
}

#[test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
fn a_complete_wizard_ends_in_a_dry_run_that_its_values_file_replays() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    // Given by a values file and a flag, so neither is asked.
    std::fs::write(work.join("base.yaml"), "Monitor:\n  Enabled: true\n").unwrap();
    let mut cmd = command(
        work,
        &[
            "init",
            "--dry-run",
            "--values",
            "base.yaml",
            "--docker-registry",
            "registry.example.com",
        ],
    );
    // Offered as the proxy suggestions. The cluster look-up goes through
    // that proxy too, and a closed port fails fast.
    cmd.env("HTTPS_PROXY", "http://127.0.0.1:1")
        .env("NO_PROXY", ".corp");
    let mut t = Terminal::start(cmd);

    t.answer("? Kube context", &format!("{DOWN}{ENTER}"));
    t.expect("✔ Kube context · eks-prod");
    t.expect("Could not reach eks-prod");
    t.answer("? Namespace (codefresh)", &format!("Bad_NS{ENTER}"));
    t.expect("is not a valid namespace name (DNS-1123 label)");
    t.answer("? Namespace", &format!("ci-runner{ENTER}"));
    t.expect("✔ Namespace · ci-runner");
    t.answer("? Storage backend", &format!("{DOWN}{ENTER}"));
    t.expect("✔ Storage backend · ebs");
    t.answer("? Availability zone", &format!("us-east-1a{ENTER}"));
    t.answer("? Volume type", &format!("{DOWN}{ENTER}"));
    t.expect("✔ Volume type · gp3");
    t.answer("? Provisioned IOPS", ENTER);
    t.answer("? Throughput (MiB/s)", ENTER);
    t.answer("? Encrypt the volumes?", "y");
    t.answer("? KMS key", ENTER);
    t.answer("? AWS credentials of the volume provisioner", ENTER);
    t.answer(
        "? IAM role ARN",
        &format!("arn:aws:iam::123456789012:role/codefresh-volumes{ENTER}"),
    );
    t.expect("Your environment has HTTPS_PROXY=http://127.0.0.1:1, NO_PROXY=.corp.");
    t.answer(
        "? Do the runner and builds reach the internet through a proxy? (y/n)",
        ENTER,
    );
    t.answer("? HTTP proxy", ENTER);
    t.answer("? HTTPS proxy (http://127.0.0.1:1)", ENTER);
    t.answer("? No proxy for (.corp)", ENTER);
    t.answer("? Pull secret of the mirror", ENTER);
    t.answer("? Install the app-proxy?", ENTER);
    t.answer(
        "? Make this the account's default runtime environment?",
        ENTER,
    );
    t.answer("? Run a demo pipeline after the install?", "n");
    t.answer("? Build node selector", ENTER);
    t.answer(
        "? Build tolerations",
        &format!("dedicated=ci:NoSchedule{ENTER}"),
    );
    t.expect("Summary");
    t.expect("Cluster monitor");
    t.expect("(given)");
    t.answer("? Save these answers as a values file?", ENTER);
    t.answer("? Values file (cf-runner-values.yaml)", ENTER);
    t.answer("? Go ahead?", ENTER);
    t.expect("saved to cf-runner-values.yaml");
    t.expect("wrote");
    let code = t.finish();
    let seen = t.seen.clone();
    assert_eq!(code, 0, "{seen}");

    // The prompts came in the documented order, each after its explanation.
    let order = [
        "The cluster to install into",
        "? Kube context",
        "Where the runner's objects go",
        "? Namespace",
        "Where builds keep their docker cache",
        "? Storage backend",
        "A disk lives in one zone",
        "? Availability zone",
        "? Volume type",
        "? Encrypt the volumes?",
        "? AWS credentials of the volume provisioner",
        "? Do the runner and builds reach the internet through a proxy?",
        "? Pull secret of the mirror",
        "? Install the app-proxy?",
        "? Build tolerations",
        "Summary",
        "? Save these answers as a values file?",
        "? Go ahead?",
    ];
    let mut from = 0;
    for text in order {
        match seen[from..].find(text) {
            Some(i) => from += i + text.len(),
            None => panic!("{text:?} missing or out of order in:\n{seen}"),
        }
    }
    assert!(
        !seen.contains("Install the cluster monitor?"),
        "answered by --values, so not asked:\n{seen}"
    );

    // The values file holds the flags, the file and the answers; no secret.
    let saved = std::fs::read_to_string(work.join("cf-runner-values.yaml")).unwrap();
    for line in [
        "Context: eks-prod",
        "Namespace: ci-runner",
        "DockerRegistry: registry.example.com",
        "Backend: ebs",
        "AvailabilityZone: us-east-1a",
        "VolumeType: gp3",
        "Encrypted: true",
        "eks.amazonaws.com/role-arn: arn:aws:iam::123456789012:role/codefresh-volumes",
        "HTTPS_PROXY: http://127.0.0.1:1",
        "Enabled: true",
        "ExecDemoPipeline: false",
        "effect: NoSchedule",
    ] {
        assert!(saved.contains(line), "{line:?} missing from:\n{saved}");
    }
    assert!(!saved.contains("0600"), "no secret in it:\n{saved}");

    let written = tree(&work.join("codefresh_manifests"));
    assert!(written.len() > 20, "{:?}", written.keys());
    assert!(written.contains_key("runtime-environment.txt"));
    let storage = String::from_utf8_lossy(
        &written["0-storageclass-dind-local-volumes-runner-ci-runner.yaml"],
    )
    .to_string();
    assert!(storage.contains("us-east-1a"), "{storage}");

    // Replaying the values file, with no terminal, gives the same bytes.
    let out = command(
        work,
        &[
            "init",
            "--values",
            "cf-runner-values.yaml",
            "--dry-run",
            "--output-dir",
            "replayed",
        ],
    )
    .stdin(Stdio::null())
    .output()
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let replayed = tree(&work.join("replayed"));
    assert_eq!(
        written.keys().collect::<Vec<_>>(),
        replayed.keys().collect::<Vec<_>>()
    );
    // The record keys each Secret file's line with a random key of its own
    // export (`.cf-runner-export.key`): those two differ by design; every
    // other line and file is the same.
    let keyless = |bytes: &[u8]| -> String {
        String::from_utf8_lossy(bytes)
            .lines()
            .filter(|l| !l.starts_with("hmac-sha256:"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    for (name, bytes) in &written {
        if name.ends_with(".cf-runner-export.key") {
            continue;
        }
        if name.ends_with(".cf-runner-export") {
            assert_eq!(keyless(bytes), keyless(&replayed[name]), "{name}");
            continue;
        }
        assert!(
            replayed[name] == *bytes,
            "{name} differs after the replay:\n--- wizard\n{}\n--- replay\n{}",
            String::from_utf8_lossy(bytes),
            String::from_utf8_lossy(&replayed[name])
        );
    }
}

#[test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
fn ctrl_c_at_a_prompt_exits_130_with_the_cursor_back_and_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    let options = Options::new().timeout_ms(Some(30_000));
    let mut session = spawn_with_options(command(work, &["init", "--dry-run"]), options).unwrap();
    // The context list hides the cursor while it is shown.
    session.exp_string("Kube context").unwrap();
    session.exp_string("eks-prod").unwrap();
    session.send_control('c').unwrap();
    let rest = session.exp_eof().unwrap();
    let status = session.process().wait().unwrap();
    assert!(
        matches!(status, WaitStatus::Exited(_, 130)),
        "{status:?}\n{rest}"
    );
    let rest = decode(&rest);
    assert!(
        rest.contains("\x1b[?25h"),
        "the cursor is shown again: {rest:?}"
    );
    assert!(rest.contains("nothing was written or applied"), "{rest}");
    let left: Vec<String> = std::fs::read_dir(work)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert_eq!(left, ["kubeconfig"], "nothing but the test's own file");
}

#[test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
fn ctrl_c_while_typing_an_answer_exits_130_too() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Terminal::start(command(
        dir.path(),
        &["init", "--dry-run", "--kube-context-name", "kind-dev"],
    ));
    t.answer("? Namespace", "half-typed");
    t.session.send_control('c').unwrap();
    assert_eq!(t.finish(), 130, "{}", t.seen);
    assert!(!dir.path().join("codefresh_manifests").exists());
}

#[test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
fn yes_on_a_terminal_asks_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Terminal::start(command(dir.path(), &["init", "--dry-run", "--yes"]));
    t.expect("wrote");
    assert_eq!(t.finish(), 0, "{}", t.seen);
    assert!(!t.seen.contains('?'), "no prompt:\n{}", t.seen);
    assert!(dir.path().join("codefresh_manifests").is_dir());
}

const CLUSTER_OBJECTS: &str = "\
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: gp3
  annotations: {storageclass.kubernetes.io/is-default-class: \"true\"}
provisioner: ebs.csi.aws.com
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
  annotations: {ingressclass.kubernetes.io/is-default-class: \"true\"}
spec: {controller: k8s.io/ingress-nginx}
---
apiVersion: v1
kind: Namespace
metadata: {name: codefresh}
";

/// Against a real API server: the namespace suggestion skips one that is
/// taken, the backend follows the cluster's default StorageClass, the zones
/// and IngressClasses come from the cluster. `CF_RUNNER_WIZARD_TRANSCRIPT`
/// names a file to keep what the terminal showed (the example in docs/guide/install.md).
#[test]
#[cfg_attr(skip_e2e, ignore = "CF_RUNNER_SKIP_E2E=1")]
fn with_a_cluster_the_wizard_suggests_from_it() {
    let cp = support::controlplane::shared();
    let mut apply = cp.kubectl();
    apply.args(["apply", "-f", "-"]).stdin(Stdio::piped());
    let mut child = apply.spawn().unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), CLUSTER_OBJECTS.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success(), "kubectl apply");

    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    let mut cmd = command(work, &["init", "--dry-run"]);
    cmd.env("KUBECONFIG", cp.admin_kubeconfig());
    let mut t = Terminal::start(cmd);
    t.expect("Using admin@cf-runner-test, the only kube context");
    t.expect("nodes in us-east-1a.");
    t.expect("codefresh is taken, so codefresh-1 is suggested.");
    t.answer("? Namespace (codefresh-1)", ENTER);
    t.expect("ebs-csi is suggested from the cluster's StorageClasses.");
    t.expect("? Storage backend");
    t.answer("StorageClass gp3", ENTER);
    t.expect("✔ Storage backend · ebs-csi");
    t.expect("? Availability zone");
    t.answer("us-east-1a    has nodes", ENTER);
    t.expect("✔ Availability zone · us-east-1a");
    t.answer("? Volume type", &format!("{DOWN}{ENTER}"));
    t.answer("? Provisioned IOPS", ENTER);
    t.answer("? Throughput (MiB/s)", &format!("250{ENTER}"));
    t.answer("? Encrypt the volumes?", "y");
    t.answer("? KMS key", ENTER);
    t.answer("? AWS credentials of the volume provisioner", ENTER);
    t.answer(
        "? IAM role ARN",
        &format!("arn:aws:iam::123456789012:role/codefresh-volumes{ENTER}"),
    );
    t.answer(
        "? Do the runner and builds reach the internet through a proxy?",
        ENTER,
    );
    t.answer(
        "? Do the nodes pull Codefresh's images from a private mirror?",
        ENTER,
    );
    t.answer("? Install the cluster monitor?", ENTER);
    t.answer("? Install the app-proxy?", "y");
    t.answer("? App-proxy host", &format!("cf.example.com{ENTER}"));
    t.answer("? Ingress class", ENTER);
    t.expect("✔ Ingress class · nginx");
    t.answer(
        "? Make this the account's default runtime environment?",
        ENTER,
    );
    t.answer("? Run a demo pipeline after the install?", ENTER);
    t.answer("? Build node selector", ENTER);
    t.answer("? Build tolerations", ENTER);
    t.expect("Summary");
    t.answer("? Save these answers as a values file?", ENTER);
    t.answer("? Values file (cf-runner-values.yaml)", ENTER);
    t.answer("? Go ahead?", ENTER);
    t.expect("wrote");
    let code = t.finish();
    if let Some(path) = std::env::var_os("CF_RUNNER_WIZARD_TRANSCRIPT") {
        std::fs::write(path, &t.seen).unwrap();
    }
    assert_eq!(code, 0, "{}", t.seen);
    let saved = std::fs::read_to_string(work.join("cf-runner-values.yaml")).unwrap();
    for line in [
        "Context: admin@cf-runner-test",
        "Namespace: codefresh-1",
        "Backend: ebs-csi",
        "Throughput: 250",
        "IngressClass: nginx",
    ] {
        assert!(saved.contains(line), "{line:?} missing from:\n{saved}");
    }
    let manifests = tree(&work.join("codefresh_manifests"));
    assert!(
        manifests.contains_key("0-namespace-codefresh-1.yaml"),
        "{:?}",
        manifests.keys()
    );
}
