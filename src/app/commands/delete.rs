//! `cf-runner delete`: never deletes unasked (`--yes` where nobody can be
//! asked); the deletion itself is `install::delete`.

use crate::app::commands::flags;
use crate::app::install::delete::{self, DeleteOptions};
use crate::app::session::connect::need_yes;
use crate::app::session::outcome::Outcome;
use crate::cli::DeleteArgs;
use crate::output;

/// Runs `delete`.
pub fn run(args: &DeleteArgs) -> Outcome {
    if !args.yes && !output::stdin_is_tty() {
        return need_yes("delete", "the deletion");
    }
    delete::run(&DeleteOptions {
        kube: flags::kube(&args.kube),
        platform: flags::platform(&args.platform),
        yes: args.yes,
        delete_namespace: args.delete_namespace,
        delete_namespace_with_contents: args.delete_namespace_with_contents,
        purge_volumes: args.purge_volumes,
        keep_platform: args.keep_platform,
        all_runtimes: args.all_runtimes,
        ignore_agent: args.ignore_agent,
        delete_adopted: args.delete_adopted,
        timeout: args.timeout,
        no_wait_for_lock: args.no_wait_for_lock,
    })
}
