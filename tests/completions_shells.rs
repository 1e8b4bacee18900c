//! The shipped completion scripts, driven through real shells: a
//! subcommand's option must complete (`cf-runner init --out<TAB>` gave
//! nothing in bash: clap_complete spells the subcommand two ways).
//! `--kube-context-name <TAB>` lists the kubeconfig's contexts (through
//! kubectl: the test control plane's). Shells come from the Debian
//! packages `bash`, `zsh` and `fish` (`.ci/run` installs them). A missing
//! shell fails the test under `CI=true`; elsewhere it is reported and
//! skipped.

mod support;

use std::path::PathBuf;
use std::process::Command;

fn script(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("completions")
        .join(file)
}

/// True when `shell` can be run; under CI a missing shell is a failure.
fn have(shell: &str) -> bool {
    let found = Command::new(shell)
        .arg("-c")
        .arg("exit 0")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{shell} is not installed (Debian package {shell}); CI must run this test"
        );
        eprintln!("{shell} is not installed: skipping its completion test");
    }
    found
}

/// A kubeconfig with the contexts `alpha` and `beta`, and a PATH holding
/// the test control plane's kubectl (which lists them): the environment a
/// shell completes kube contexts in, and the folder to keep while it does.
fn contexts_env() -> (tempfile::TempDir, [(&'static str, String); 2]) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("config"),
        "apiVersion: v1\nkind: Config\ncurrent-context: beta\n\
         clusters:\n- name: c\n  cluster: {server: \"https://127.0.0.1:1\"}\n\
         users:\n- name: u\n  user: {token: t}\n\
         contexts:\n- name: alpha\n  context: {cluster: c, user: u}\n\
         - name: beta\n  context: {cluster: c, user: u}\n",
    )
    .unwrap();
    let kubectl_dir =
        support::controlplane::bin_dir().expect("the control plane binaries (kubectl)");
    let path = format!(
        "{}:{}",
        kubectl_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let kubeconfig = dir.path().join("config").display().to_string();
    (dir, [("PATH", path), ("KUBECONFIG", kubeconfig)])
}

/// What bash completes for `words` (the last one being completed).
fn bash_complete(words: &[&str]) -> Vec<String> {
    bash_complete_with(words, &[])
}

fn bash_complete_with(words: &[&str], env: &[(&str, String)]) -> Vec<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let cur = words.last().unwrap();
    let prev = words[words.len() - 2];
    let program = format!(
        "source '{}'\nCOMP_WORDS=({})\nCOMP_CWORD={}\n_cf__runner cf-runner '{cur}' '{prev}'\n\
         printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script("cf-runner.bash").display(),
        quoted.join(" "),
        words.len() - 1
    );
    let out = Command::new("bash")
        .arg("-c")
        .arg(program)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn bash_completes_a_subcommands_options_and_values() {
    if !have("bash") {
        return;
    }
    assert_eq!(
        bash_complete(&["cf-runner", "init", "--out"]),
        vec!["--output-dir".to_string()]
    );
    let upgrade = bash_complete(&["cf-runner", "upgrade", "--force"]);
    assert_eq!(upgrade, vec!["--force-conflicts".to_string()]);
    let info = bash_complete(&["cf-runner", "info", "-o", ""]);
    assert_eq!(info, vec!["table", "json", "yaml"]);
    let subcommands = bash_complete(&["cf-runner", "te"]);
    assert_eq!(subcommands, vec!["test-pipeline".to_string()]);
    // `--kube-context-name <TAB>` lists the kubeconfig's contexts.
    let (_kubeconfig, env) = contexts_env();
    assert_eq!(
        bash_complete_with(&["cf-runner", "init", "--kube-context-name", ""], &env),
        vec!["alpha".to_string(), "beta".to_string()]
    );
    assert_eq!(
        bash_complete_with(&["cf-runner", "upgrade", "--kube-context-name", "al"], &env),
        vec!["alpha".to_string()]
    );
}

#[test]
fn fish_completes_a_subcommands_options() {
    if !have("fish") {
        return;
    }
    let (_kubeconfig, env) = contexts_env();
    let out = Command::new("fish")
        .arg("-c")
        .arg(format!(
            "source '{}'; complete -C 'cf-runner init --out'; complete -C 'cf-runner info --output '; \
             complete -C 'cf-runner init --kube-context-name '",
            script("cf-runner.fish").display()
        ))
        .envs(env)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.lines().any(|l| l.starts_with("--output-dir")),
        "{text}"
    );
    for format in ["table", "json", "yaml"] {
        assert!(text.lines().any(|l| l.starts_with(format)), "{text}");
    }
    for context in ["alpha", "beta"] {
        assert!(text.lines().any(|l| l.starts_with(context)), "{text}");
    }
}

/// Drives zsh's real completion: an interactive zsh in a pseudo-terminal
/// (the `zsh/zpty` module) loads the shipped script through compinit, types
/// the line and a TAB. A `compadd` wrapper, defined in that shell, writes
/// each match the completion adds to a file before adding it as usual.
const ZSH_DRIVER: &str = r#"
dir=$1 out=$2 line=$3
zmodload zsh/zpty || exit 3
zpty z zsh -f -i
zpty -w z "PS1='> '; fpath=('$dir' \$fpath); autoload -U compinit; compinit -u -D"
zpty -w z "compadd() { if (( \${@[(I)-[OAD]]} )); then builtin compadd \"\$@\"; return; fi; local -a found; builtin compadd -O found \"\$@\"; (( \$#found )) && print -rl -- \$found >> '$out'; builtin compadd \"\$@\"; }"
zpty -w z "print ready > '$out.ready'"
for i in {1..200}; do [[ -e $out.ready ]] && break; sleep 0.05; done
[[ -e $out.ready ]] || exit 4
zpty -w -n z "$line"$'\t'
for i in {1..200}; do [[ -s $out ]] && break; sleep 0.05; done
sleep 0.3
zpty -d z
exit 0
"#;

/// What zsh completes for `line` (TAB at its end), sorted.
fn zsh_complete(line: &str, env: &[(&str, String)]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(script("cf-runner.zsh"), dir.path().join("_cf-runner")).unwrap();
    let driver = dir.path().join("driver.zsh");
    std::fs::write(&driver, ZSH_DRIVER).unwrap();
    let out_file = dir.path().join("matches");
    let out = Command::new("zsh")
        .arg("-f")
        .arg(&driver)
        .arg(dir.path())
        .arg(&out_file)
        .arg(line)
        .env("HOME", dir.path())
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the zsh driver failed ({:?}): {}{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut found: Vec<String> = std::fs::read_to_string(&out_file)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect();
    found.sort();
    found.dedup();
    found
}

/// zsh used to be only loaded (compinit registered the function); its
/// completion was never driven. It now completes a subcommand's option, an
/// option's values and the kubeconfig's contexts, as bash and fish do.
#[test]
fn zsh_completes_a_subcommands_options_and_values() {
    if !have("zsh") {
        return;
    }
    assert_eq!(
        zsh_complete("cf-runner init --out", &[]),
        vec!["--output-dir".to_string()]
    );
    assert_eq!(
        zsh_complete("cf-runner upgrade --force", &[]),
        vec!["--force-conflicts".to_string()]
    );
    assert_eq!(
        zsh_complete("cf-runner info -o ", &[]),
        vec!["json", "table", "yaml"]
    );
    assert_eq!(
        zsh_complete("cf-runner te", &[]),
        vec!["test-pipeline".to_string()]
    );
    let (_kubeconfig, env) = contexts_env();
    assert_eq!(
        zsh_complete("cf-runner init --kube-context-name ", &env),
        vec!["alpha".to_string(), "beta".to_string()]
    );
    assert_eq!(
        zsh_complete("cf-runner upgrade --kube-context-name al", &env),
        vec!["alpha".to_string()]
    );
}
