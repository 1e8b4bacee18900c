//! `cf-runner check`: the values as `init` loads them (files, `--set-value`,
//! the kube flags), then the preflight (`install::check`).
//! Exit code 3 when a check fails.

use crate::app::commands::flags;
use crate::app::install::check::{self, CheckOptions};
use crate::app::session::connect;
use crate::app::session::input::{self, Overrides};
use crate::app::session::outcome::Outcome;
use crate::cli::{CheckArgs, OutputFormat};
use crate::output::Structured;
use crate::values::{self, Input, Problems};

/// Reads the values files and turns the flags into the highest-precedence
/// overrides, as `init` does for the flags `check` shares with it.
fn gather_input(args: &CheckArgs) -> Result<Input, Problems> {
    let (mut input, problems) = input::read_input(&args.values, &args.set_value, &[]);
    if !problems.is_empty() {
        return Err(Problems(problems));
    }
    let mut out = Overrides::default();
    flags::kube_overrides(&args.kube, &mut out);
    input.overrides = out.list;
    Ok(input)
}

/// Runs `check`.
pub fn run(args: &CheckArgs) -> Outcome {
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
    let loaded = match gather_input(args).and_then(|input| values::load(&input)) {
        Ok(l) => l,
        Err(problems) => return Outcome::BadInput(problems),
    };
    input::warn_loaded(&loaded);
    check::run(
        &loaded,
        &CheckOptions {
            probe: args.probe.then_some(args.probe_timeout),
            format: match args.output {
                OutputFormat::Table => None,
                OutputFormat::Json => Some(Structured::Json),
                OutputFormat::Yaml => Some(Structured::Yaml),
            },
        },
    )
}
