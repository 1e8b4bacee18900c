//! `cf-runner init`: the flags are read once, into a `Plan` and the
//! input (values files, `--set-*`, the flags that set keys); everything
//! after that (`install::init`) never looks at them again.

use crate::app::commands::flags;
use crate::app::install::init::{init, Mode, Plan};
use crate::app::install::LockWait;
use crate::app::runtimes::attach;
use crate::app::session::connect;
use crate::app::session::input::{self, Overrides};
use crate::app::session::outcome::Outcome;
use crate::cli::InitArgs;
use crate::values::{Input, Problem, Problems};

/// The mode the flags ask for: a Helm values file beats `--dry-run`.
pub(crate) fn mode_of(args: &InitArgs) -> Mode {
    match (&args.generate_helm_values_file, args.dry_run) {
        (Some(path), dry_run) => Mode::Helm {
            path: path.clone(),
            from_platform: !dry_run,
        },
        (None, true) => Mode::DryRun {
            output_dir: args.output_dir.clone(),
        },
        (None, false) => Mode::Install {
            probe: args.probe.then_some(args.probe_timeout),
        },
    }
}

/// Reads the flags; the values and files they name are read by [`gather_input`].
fn plan_of(args: &InitArgs, overrides: &Overrides) -> Plan {
    Plan {
        mode: mode_of(args),
        overwrite: args.overwrite,
        yes: args.yes,
        flags: overrides.named(),
        token_flag_given: args.token.is_some(),
        url: args.url.clone(),
        allow_http: args.allow_http,
        accepted: attach::Accepted {
            insecure_tls: args.accept_agent_insecure_tls,
            build_readable_tokens: args.allow_builds_to_read_tokens,
        },
        force_conflicts: args.force_conflicts,
        wait: (!args.no_wait).then_some(args.timeout),
        lock_wait: LockWait::of(args.no_wait_for_lock, args.timeout),
    }
}

/// Turns the flags into values overrides (explicit flags beat files and
/// `--set-value`). Flag-specific parsing errors become problems too.
pub(crate) fn flag_overrides(args: &InitArgs, problems: &mut Vec<Problem>) -> Overrides {
    let mut out = Overrides::default();
    out.text("--kube-context-name", &args.kube.kube_context_name);
    out.text("--kube-namespace", &args.kube.kube_namespace);
    out.text("--name", &args.name);
    out.text("--token", &args.token);
    out.text("--agent-token", &args.agent_token);
    out.text("--url", &args.url);
    out.text("--storage-class-name", &args.storage_class_name);
    out.path("--kube-config-path", &args.kube.kube_config_path);
    flags::settings_overrides(&args.settings, &mut out, problems);
    out.boolean("--set-default-runtime", args.set_default_runtime);
    out.boolean("--exec-demo-pipeline", args.exec_demo_pipeline);
    out.boolean("--insecure", args.insecure.then_some(true));
    out.boolean("--agent-only", args.agent_only.then_some(true));
    out.boolean(
        "--skip-cluster-test",
        args.skip_cluster_test.then_some(true),
    );
    out.boolean(
        "--skip-cluster-integration",
        args.skip_cluster_integration.then_some(true),
    );
    if let Some(raw) = &args.tolerations {
        match input::parse_tolerations_flag(raw) {
            Ok(v) => out.value("--tolerations", v),
            Err(p) => problems.push(p),
        }
    }
    out
}

/// Reads the values files and `--set-file` files named by the flags, and
/// the plan the flags make.
pub(crate) fn gather_input(args: &InitArgs) -> Result<(Input, Plan), Problems> {
    let (mut input, mut problems) =
        input::read_input(&args.values, &args.set_value, &args.set_file);
    let overrides = flag_overrides(args, &mut problems);
    let plan = plan_of(args, &overrides);
    input.overrides = overrides.list;
    if !problems.is_empty() {
        return Err(Problems(problems));
    }
    Ok((input, plan))
}

/// Runs `init`: input → (wizard) → load → the mode's steps.
pub fn run(args: &InitArgs) -> Outcome {
    connect::give_consent(connect::KubeconfigConsent {
        named: args
            .kube
            .kube_config_path
            .iter()
            .cloned()
            .chain(connect::set_value_kubeconfigs(&args.set_value))
            .collect(),
        trust_files: args.trust_values_kubeconfig,
    });
    let (input, plan) = match gather_input(args) {
        Ok(read) => read,
        Err(problems) => return problems.into(),
    };
    init(input, plan).unwrap_or_else(|outcome| outcome)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wizard;
    use clap::Parser;
    use std::path::PathBuf;

    fn init_args(flags: &[&str]) -> InitArgs {
        let mut argv = vec!["cf-runner", "init"];
        argv.extend_from_slice(flags);
        match crate::cli::Cli::try_parse_from(argv)
            .expect("the flags parse")
            .command
        {
            crate::cli::Command::Init(args) => *args,
            other => panic!("not init: {other:?}"),
        }
    }

    /// The mode was worked out twice (in `run` and in the wizard); it is
    /// decided once, and a Helm values file beats `--dry-run` in both.
    #[test]
    fn the_mode_is_decided_once_and_a_helm_file_beats_dry_run() {
        let helm = mode_of(&init_args(&[
            "--dry-run",
            "--generate-helm-values-file",
            "v.yaml",
        ]));
        assert_eq!(
            helm,
            Mode::Helm {
                path: PathBuf::from("v.yaml"),
                from_platform: false
            }
        );
        assert!(!helm.needs_platform());
        assert!(matches!(helm.for_wizard(), wizard::Mode::Helm { .. }));
        let filled = mode_of(&init_args(&["--generate-helm-values-file", "v.yaml"]));
        assert!(filled.needs_platform());
        let dry = mode_of(&init_args(&["--dry-run", "--output-dir", "-"]));
        assert!(!dry.needs_platform());
        assert!(matches!(dry.for_wizard(), wizard::Mode::DryRun { output } if output == "-"));
        let install = mode_of(&init_args(&["--probe"]));
        assert!(matches!(install, Mode::Install { probe: Some(_) }));
        assert!(install.needs_platform());
    }

    /// A problem about a key a flag set names the flag first; flags whose
    /// keys are secrets or switches are not named.
    #[test]
    fn the_plan_names_the_flags_set_for_problems() {
        let args = init_args(&["--build-node-selector", "a=b", "--token", "t", "--insecure"]);
        let (_, plan) = gather_input(&args).expect("the input gathers");
        assert_eq!(
            plan.flags,
            [("--build-node-selector", "Runtime.NodeSelector")]
        );
        assert!(plan.token_flag_given);
        assert_eq!(plan.wait, Some(args.timeout));
    }

    /// The in-process seam: `init --dry-run --output-dir -` runs as a
    /// function, and what it says is captured from `output`.
    #[test]
    fn a_dry_run_to_stdout_runs_in_process_and_prints_the_manifests() {
        let args = init_args(&[
            "--dry-run",
            "--output-dir",
            "-",
            "--yes",
            "--kube-context-name",
            "kind-ci",
            "--kube-namespace",
            "ci-runner",
        ]);
        let (outcome, said) = crate::output::capture(|| run(&args));
        assert!(matches!(outcome, Outcome::Ok), "{outcome:?} {said:?}");
        assert!(said.stdout.contains("kind: Deployment"), "{}", said.stdout);
        assert!(
            said.stdout.contains("namespace: ci-runner"),
            "{}",
            said.stdout
        );
        assert!(said.stdout.contains("kind-ci"), "{}", said.stdout);
    }

    /// Bad input stops before anything is written, and the report names
    /// the flag (exit 2 through `Outcome::finish`).
    #[test]
    fn bad_input_in_process_names_the_flag_on_stderr() {
        let args = init_args(&["--dry-run", "--yes", "--tolerations", "not a list"]);
        let (code, said) = crate::output::capture(|| {
            let outcome = run(&args);
            assert!(matches!(outcome, Outcome::BadInput(_)), "{outcome:?}");
            outcome.finish()
        });
        assert_eq!(
            format!("{code:?}"),
            format!("{:?}", std::process::ExitCode::from(2))
        );
        assert!(said.stdout.is_empty(), "{}", said.stdout);
        assert!(said.stderr.contains("--tolerations"), "{}", said.stderr);
    }
}
