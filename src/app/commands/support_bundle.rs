//! `cf-runner support-bundle`: checks `--max-size` leaves room for the
//! index, then collects and writes the bundle
//! ([`crate::app::day_two::support_bundle`]).

use crate::app::commands::flags;
use crate::app::day_two::support_bundle::{self, SupportBundleOptions};
use crate::app::session::outcome::Outcome;
use crate::bundle;
use crate::cli::SupportBundleArgs;
use crate::values::{Problem, Problems};

/// Runs `support-bundle`.
pub fn run(args: &SupportBundleArgs) -> Outcome {
    if args.max_size < bundle::MIN_MAX_SIZE {
        let value = serde_json::Value::String(args.max_size.to_string());
        return Outcome::BadInput(Problems(vec![Problem::new(
            "--max-size",
            Some(&value),
            format!(
                "leaves no room: the index alone takes up to {} bytes",
                bundle::INDEX_RESERVE
            ),
            format!("pass at least {}Ki, e.g. 20Mi", bundle::MIN_MAX_SIZE / 1024),
        )]));
    }
    support_bundle::run(&SupportBundleOptions {
        kube: flags::kube(&args.kube),
        platform: flags::platform(&args.platform),
        output: args.output.clone(),
        overwrite: args.overwrite,
        since: args.since,
        max_log_bytes: args.max_log_bytes,
        max_size: args.max_size,
    })
}
