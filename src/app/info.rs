//! `cf-runner info`: what is installed and whether it is healthy, for one
//! namespace or every namespace holding an installation, as a table or as
//! JSON/YAML. The reader and its view model are the `status` step, which
//! `adopt` also ends with.

use super::steps::status;
use super::Outcome;
use crate::cli::InfoArgs;

/// Runs `info`.
pub fn run(args: &InfoArgs) -> Outcome {
    status::show(args)
}
