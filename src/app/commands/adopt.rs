//! `cf-runner adopt`: refuses to move without `--yes` where nobody can be
//! asked and a values file it may not write, moves the runner
//! ([`crate::app::adopt`]), then shows what `info` shows of it.

use crate::app::adopt::objects::AdoptOptions;
use crate::app::adopt::{adopt, check_save_path};
use crate::app::commands::flags;
use crate::app::day_two::status;
use crate::app::session::connect;
use crate::app::session::outcome::Outcome;
use crate::cli::AdoptArgs;
use crate::output;

/// Runs `adopt`.
pub fn run(args: &AdoptArgs) -> Outcome {
    let args = &options(args);
    if !args.dry_run && !args.yes && !output::stdin_is_tty() {
        return connect::need_yes("adopt", "the move of the runner");
    }
    if let Err(problems) = check_save_path(&args.values_file, args.overwrite) {
        return problems.into();
    }
    adopt(args)
        .and_then(|moved| match moved {
            // `info`'s view opens its own runtime: after the move's is done.
            Some(namespace) => show_installed(args, namespace),
            None => Ok(()),
        })
        .into()
}

/// What `info` shows of the install in `namespace`, once it is moved.
fn show_installed(args: &AdoptOptions, namespace: String) -> Result<(), Outcome> {
    connect::runtime().block_on(async {
        let cluster = connect::connect_flags(&args.kube).await?;
        let report =
            status::report(&cluster, std::slice::from_ref(&namespace), &args.platform).await?;
        output::info::print_table(&report, Some(&namespace));
        Ok(())
    })
}

/// The flags of `adopt`, read once.
fn options(args: &AdoptArgs) -> AdoptOptions {
    AdoptOptions {
        kube: flags::kube(&args.kube),
        platform: flags::platform(&args.platform),
        dry_run: args.dry_run,
        yes: args.yes,
        timeout: args.timeout,
        no_wait_for_lock: args.no_wait_for_lock,
        values_file: args.values_file.clone(),
        overwrite: args.overwrite,
    }
}
