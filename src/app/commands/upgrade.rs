//! `cf-runner upgrade`: never changes an install unasked (`--yes` where
//! nobody can be asked); the flags become the new input and the options of
//! `install::upgrade`, which does the work.

use crate::app::commands::flags;
use crate::app::install::upgrade::{self, UpgradeOptions};
use crate::app::session::connect::{need_yes, runtime};
use crate::app::session::outcome::Outcome;
use crate::cli::UpgradeArgs;
use crate::output;

/// Runs `upgrade`.
pub fn run(args: &UpgradeArgs) -> Outcome {
    if !args.yes && !output::stdin_is_tty() {
        return need_yes("upgrade", "the upgrade");
    }
    flags::for_upgrade(flags::UpgradeFlags {
        kube: &args.kube,
        settings: &args.settings,
        values: &args.values,
        set_value: &args.set_value,
        set_file: &args.set_file,
        token: &args.token,
        url: &args.url,
        agent_token: &args.agent_token,
    })
    .map_err(Outcome::from)
    .and_then(|new_input| runtime().block_on(upgrade::locked(&options(args), new_input)))
    .into()
}

/// The flags of `upgrade` other than the new input's.
fn options(args: &UpgradeArgs) -> UpgradeOptions {
    UpgradeOptions {
        kube: flags::kube(&args.kube),
        token: args.token.clone(),
        url: args.url.clone(),
        allow_http: args.allow_http,
        force_conflicts: args.force_conflicts,
        timeout: args.timeout,
        no_wait: args.no_wait,
        no_wait_for_lock: args.no_wait_for_lock,
        yes: args.yes,
    }
}
