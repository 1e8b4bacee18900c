//! `cf-runner images`: the values its flags give, loaded, and the list
//! ([`crate::app::day_two::images`]) in the format asked for.

use crate::app::commands::flags;
use crate::app::day_two::images::{self, ImagesOptions};
use crate::app::session::input;
use crate::app::session::outcome::Outcome;
use crate::cli::{ImagesArgs, OutputFormat};
use crate::output::Structured;
use crate::values::{self, Problems};

fn gather_input(args: &ImagesArgs) -> Result<values::Input, Problems> {
    let (mut input, mut problems) =
        input::read_input(&args.values, &args.set_value, &args.set_file);
    let mut overrides = input::Overrides::default();
    flags::settings_overrides(&args.settings, &mut overrides, &mut problems);
    input.overrides = overrides.list;
    if !problems.is_empty() {
        return Err(Problems(problems));
    }
    Ok(input)
}

/// Runs `images`.
pub fn run(args: &ImagesArgs) -> Outcome {
    let loaded = match gather_input(args).and_then(|input| values::load(&input)) {
        Ok(l) => l,
        Err(problems) => return Outcome::BadInput(problems),
    };
    images::run(
        &loaded,
        &ImagesOptions {
            check: args.check,
            docker_config: args.docker_config.clone(),
            format: match args.output {
                OutputFormat::Json => Some(Structured::Json),
                OutputFormat::Yaml => Some(Structured::Yaml),
                OutputFormat::Table => None,
            },
        },
    )
}
