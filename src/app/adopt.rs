//! `cf-runner adopt`: move a runner made by another tool (the cf-runtime
//! Helm chart, venonactl or `codefresh runner init`) to cf-runner, over the
//! steps in `steps/adopt`, and end with `info`.

use super::steps::{adopt, session, status};
use super::Outcome;
use crate::cli::{AdoptArgs, InfoArgs, OutputFormat};
use crate::output;

pub fn run(args: &AdoptArgs) -> Outcome {
    if !args.dry_run && !args.yes && !output::stdin_is_tty() {
        return session::need_yes("adopt", "the move of the runner");
    }
    if let Err(problems) = adopt::check_save_path(&args.values_file, args.overwrite) {
        return Outcome::BadInput(problems);
    }
    match adopt::adopt(args, &args.values_file) {
        // `info` opens its own runtime: after the move's is done.
        Ok(Some(namespace)) => {
            let mut kube = args.kube.clone();
            kube.kube_namespace = Some(namespace);
            status::show(&InfoArgs {
                kube,
                platform: args.platform.clone(),
                output: OutputFormat::Table,
                wait: false,
                timeout: std::time::Duration::ZERO,
            })
        }
        Ok(None) => Outcome::Ok,
        Err(outcome) => outcome,
    }
}
