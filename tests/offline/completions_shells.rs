//! The shipped completion scripts, driven through real shells: a
//! subcommand's option must complete (`cf-runner init --out<TAB>` gave
//! nothing in bash: clap_complete spells the subcommand two ways).
//! `--kube-context-name <TAB>` lists the kubeconfig's contexts (through
//! kubectl: the test control plane's), and a hostile context name stays
//! data. Shells come from the Debian packages `bash`, `zsh` and `fish`
//! (`.ci/run` installs them). A shell missing from PATH makes its test
//! ignored (`#[needs_shell]`, decided by `tests/host-tools`' build script,
//! not cf-runner's), reported as such by `cargo test`; under CI (any
//! non-empty `CI`) it is never ignored, and the test fails.

use crate::support;
use cf_runner_test_host::needs_shell;

use std::path::{Path, PathBuf};
use std::process::Command;

fn script(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("completions")
        .join(file)
}

/// Fails unless `shell` runs: an ignored test never gets here, so a shell
/// missing here is a failure (under CI, or one removed since the build).
fn require(shell: &str) {
    let found = Command::new(shell)
        .arg("-c")
        .arg("exit 0")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "{shell} is not installed (Debian package {shell}); the completion tests need it"
    );
}

/// A kubeconfig with the contexts `alpha` and `beta`, and a PATH holding
/// the test control plane's kubectl (which lists them): the environment a
/// shell completes kube contexts in, and the folder to keep while it does.
fn contexts_env() -> (tempfile::TempDir, [(&'static str, String); 2]) {
    contexts_env_with(&["alpha", "beta"])
}

/// The same with the contexts `names` (the first one current).
fn contexts_env_with(names: &[&str]) -> (tempfile::TempDir, [(&'static str, String); 2]) {
    let dir = tempfile::tempdir().unwrap();
    // Names as JSON strings (JSON is YAML), so any text is one name.
    let quoted = |n: &str| serde_json::to_string(n).unwrap();
    let contexts: String = names
        .iter()
        .map(|n| {
            format!(
                "- name: {}\n  context: {{cluster: c, user: u}}\n",
                quoted(n)
            )
        })
        .collect();
    std::fs::write(
        dir.path().join("config"),
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: {}\n\
             clusters:\n- name: c\n  cluster: {{server: \"https://127.0.0.1:1\"}}\n\
             users:\n- name: u\n  user: {{token: t}}\n\
             contexts:\n{contexts}",
            quoted(names[0])
        ),
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

#[needs_shell("bash")]
#[test]
fn bash_completes_a_subcommands_options_and_values() {
    require("bash");
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

#[needs_shell("fish")]
#[test]
fn fish_completes_a_subcommands_options() {
    require("fish");
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
#[needs_shell("zsh")]
#[test]
fn zsh_completes_a_subcommands_options_and_values() {
    require("zsh");
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

/// Context names that are shell code, a glob, a variable and words: what a
/// kubeconfig from someone else (a shared file, a cloud console's download)
/// can hold. Each must be offered as the name it is, and nothing may run.
const HOSTILE_CONTEXTS: &[&str] = &[
    "$(touch pwned-dollar)",
    "`touch pwned-backtick`",
    "x;touch pwned-semicolon",
    "*",
    "$HOME",
    "two words",
    "ok-name",
];

/// `--kube-context-name <TAB>` with hostile context names, in a real bash,
/// in a folder holding a decoy file (which a glob would list). The bash
/// script used to expand each name again (`compgen -W "$(kubectl …)"`):
/// `$(touch x)` ran on TAB. Each completion is then put on a command line
/// as bash would insert it and read back by bash itself, so a completion
/// that is not quoted for the command line runs its code there and fails
/// the same check.
#[needs_shell("bash")]
#[test]
fn bash_completes_hostile_context_names_as_data() {
    require("bash");
    let (kubeconfig, env) = contexts_env_with(HOSTILE_CONTEXTS);
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("decoy"), "").unwrap();
    let complete = |cur: &str| -> Vec<String> {
        let program = format!(
            "source '{}'\nCOMP_WORDS=(cf-runner init --kube-context-name \"$1\")\nCOMP_CWORD=3\n\
             _cf__runner cf-runner \"$1\" --kube-context-name\n\
             for reply in \"${{COMPREPLY[@]}}\"; do eval \"words=($reply)\"; printf '%s\\n' \"${{words[@]}}\"; done",
            script("cf-runner.bash").display(),
        );
        let out = Command::new("bash")
            .arg("-c")
            .arg(program)
            .arg("bash")
            .arg(cur)
            .current_dir(work.path())
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
    };
    let mut all = complete("");
    all.sort();
    let mut want: Vec<String> = HOSTILE_CONTEXTS.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(all, want);
    // A typed prefix is matched literally: `$(` is no command, `*` no glob.
    assert_eq!(complete("$("), vec!["$(touch pwned-dollar)".to_string()]);
    assert_eq!(complete("*"), vec!["*".to_string()]);
    assert_eq!(complete("two"), vec!["two words".to_string()]);
    for dir in [work.path(), kubeconfig.path(), Path::new(".")] {
        let ran: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("pwned"))
            .collect();
        assert!(
            ran.is_empty(),
            "TAB ran a context name's code in {}: {ran:?}",
            dir.display()
        );
    }
}
