//! `cf-runner completions SHELL`: prints the completion script generated from
//! the same clap definition as `--help` (the files in `completions/` are this
//! output, checked for drift by a test).

use clap::CommandFactory;
use clap_complete::Shell as ClapShell;

use crate::app::session::outcome::Outcome;
use crate::cli::{Cli, CompletionsArgs, Shell};

/// The completion script for `shell`.
pub fn script(shell: Shell) -> String {
    let shell = match shell {
        Shell::Bash => ClapShell::Bash,
        Shell::Zsh => ClapShell::Zsh,
        Shell::Fish => ClapShell::Fish,
        Shell::Powershell => ClapShell::PowerShell,
    };
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "cf-runner", &mut buf);
    let text = String::from_utf8(buf).expect("completion scripts are UTF-8");
    match shell {
        ClapShell::Bash => contexts_in_bash(&fix_bash_subcommands(&text)),
        ClapShell::Fish => contexts_in_fish(&text),
        ClapShell::Zsh => contexts_in_zsh(&text),
        _ => text,
    }
}

/// The kube contexts, as kubectl lists them (it reads `KUBECONFIG` the way
/// cf-runner does); nothing when kubectl is not installed.
const LIST_CONTEXTS: &str = "kubectl config get-contexts -o name 2>/dev/null";

/// `--kube-context-name <TAB>` offers the kubeconfig's contexts, not files.
///
/// A context name is data, never shell text: `compgen -W "$(kubectl …)"`
/// expanded each name again, so a context named `$(touch x)` ran when the
/// user pressed TAB, and `COMPREPLY=($(…))` split and globbed the names.
/// Each line kubectl prints is read as it is, kept when it starts with what
/// was typed (a quoted, literal prefix match), and offered quoted for the
/// command line (`printf %q`), so accepting it inserts the name, not code.
fn contexts_in_bash(script: &str) -> String {
    script.replace(
        "                --kube-context-name)\n                    COMPREPLY=($(compgen -f \"${cur}\"))",
        &format!(
            "                --kube-context-name)\n\
             {i}local context\n\
             {i}COMPREPLY=()\n\
             {i}while IFS= read -r context; do\n\
             {i}    if [[ \"${{context}}\" == \"${{cur}}\"* ]]; then\n\
             {i}        COMPREPLY+=(\"$(printf '%q' \"${{context}}\")\")\n\
             {i}    fi\n\
             {i}done < <({LIST_CONTEXTS})",
            i = "                    "
        ),
    )
}

/// The same for fish: `-r` (takes a value) gains the list of contexts.
fn contexts_in_fish(script: &str) -> String {
    script
        .lines()
        .map(|line| {
            if line.contains(" -l kube-context-name ") && line.ends_with(" -r") {
                format!("{line} -f -a \"({LIST_CONTEXTS})\"")
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// The same for zsh: `_arguments` evaluates an action in braces, which
/// offers each context (one per line of kubectl's output) instead of files.
fn contexts_in_zsh(script: &str) -> String {
    script
        .lines()
        .map(|line| {
            if line.starts_with("'--kube-context-name=") {
                line.replace(
                    ":NAME:_default'",
                    &format!(":NAME:{{compadd -- ${{(f)\"$({LIST_CONTEXTS})\"}}}}'"),
                )
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// clap_complete's bash script escapes the `-` of `cf-runner` one way where
/// it records the subcommand typed (`cf__runner__subcmd__init`) and another
/// way in the `case` that lists each subcommand's options
/// (`cf__subcmd__runner__subcmd__init`), so no subcommand's option ever
/// completed. One spelling for both.
fn fix_bash_subcommands(script: &str) -> String {
    script.replace("cf__subcmd__runner", "cf__runner")
}

/// Prints the script.
pub fn run(args: &CompletionsArgs) -> Outcome {
    crate::output::print_raw(&script(args.shell));
    Outcome::Ok
}
