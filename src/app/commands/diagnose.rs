//! `cf-runner diagnose`: why the builds of one installation's runtimes did
//! not run, as text for a person or JSON/YAML for a script. Exit 0 when
//! nothing is wrong, 1 when a cause was found (like `info --wait`). The
//! work is `day_two::diagnose`.

use anyhow::anyhow;

use crate::app::commands::flags;
use crate::app::day_two::diagnose::{self, Options};
use crate::app::installation::pick_installation;
use crate::app::session::connect::{connect_flags, runtime};
use crate::app::session::outcome::Outcome;
use crate::cli::{DiagnoseArgs, DiagnoseFormat};
use crate::output::{self, diagnose as shown, Structured};

/// Runs `diagnose`.
pub fn run(args: &DiagnoseArgs) -> Outcome {
    runtime().block_on(run_async(args)).into()
}

/// A window in the largest whole unit that states it (`1h`, `90m`, `45s`).
fn window_text(seconds: u64) -> String {
    match seconds {
        s if s >= 86_400 && s % 86_400 == 0 => format!("{}d", s / 86_400),
        s if s >= 3600 && s % 3600 == 0 => format!("{}h", s / 3600),
        s if s >= 60 && s % 60 == 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

async fn run_async(args: &DiagnoseArgs) -> Result<(), Outcome> {
    let kube = flags::kube(&args.kube);
    let cluster = connect_flags(&kube).await?;
    let Some(namespace) = pick_installation(&cluster, &kube, "diagnose").await? else {
        return Err(Outcome::Failed(
            anyhow!(
                "no installation of cf-runner in context {}",
                cluster.context
            ),
            Some("name the runner's namespace with --kube-namespace".into()),
        ));
    };
    let options = Options {
        since: args.since,
        since_text: window_text(args.since.as_secs()),
        platform: flags::platform(&args.platform),
    };
    let report = diagnose::diagnose(&cluster, &namespace, &options).await?;
    match args.output {
        DiagnoseFormat::Json => output::print_structured(&report, Structured::Json),
        DiagnoseFormat::Yaml => output::print_structured(&report, Structured::Yaml),
        DiagnoseFormat::Text => shown::print_text(&report),
    }
    if report.nothing_wrong {
        return Ok(());
    }
    let found = report.causes.len()
        + report
            .runtimes
            .iter()
            .flat_map(|r| &r.pods)
            .map(|p| p.causes.len())
            .sum::<usize>();
    Err(Outcome::Failed(
        anyhow!("diagnose found {found} cause(s) of builds not running in namespace {namespace}"),
        Some("each cause above names its fix and the section of docs/guide/diagnose.md that explains it".into()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_is_shown_as_written() {
        assert_eq!(window_text(3600), "1h");
        assert_eq!(window_text(5400), "90m");
        assert_eq!(window_text(172_800), "2d");
        assert_eq!(window_text(45), "45s");
    }
}
