//! `cf-runner schema`: prints the JSON Schema of a values file, built by
//! `values::json_schema` from the key table the validator walks. Point an
//! editor at the output (docs/guide/values.md) to get completion and checks
//! while writing a values file.

use crate::app::session::outcome::Outcome;
use crate::output;
use crate::values::json_schema;

/// The schema as printed: pretty JSON with a final newline.
pub fn text() -> String {
    let mut text = serde_json::to_string_pretty(&json_schema::values_schema())
        .expect("a JSON value serializes");
    text.push('\n');
    text
}

/// Prints the schema on stdout.
pub fn run() -> Outcome {
    output::print_raw(&text());
    Outcome::Ok
}
