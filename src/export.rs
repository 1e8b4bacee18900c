//! Dry-run export: rendered manifests to a folder (one file per object, plus
//! `runtime-environment.yaml`) or to stdout as one YAML stream. Files that
//! hold a Secret are created 0600 from the start, never widened later.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::render::{Manifest, Rendered};

/// Name of the runtime-environment spec file in an export folder.
pub const RUNTIME_ENVIRONMENT_FILE: &str = "runtime-environment.yaml";

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("could not create the output folder {path}")]
    CreateDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("could not write {path}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} exists and is not a folder")]
    NotADir { path: PathBuf },
}

/// One object as a YAML document.
pub fn to_yaml(object: &Value) -> String {
    serde_yaml_ng::to_string(object).expect("a JSON tree always serializes to YAML")
}

/// True for files an earlier export wrote (and this one may replace).
fn is_export_file(name: &str) -> bool {
    name == RUNTIME_ENVIRONMENT_FILE
        || (name.ends_with(".yaml")
            && name.len() > 2
            && name.as_bytes()[1] == b'-'
            && name.as_bytes()[0].is_ascii_digit())
}

/// Writes every manifest to `dir`, replacing files of an earlier export, so
/// the folder always matches exactly one render. Returns the files written.
pub fn write_dir(dir: &Path, rendered: &Rendered) -> Result<Vec<PathBuf>, ExportError> {
    if dir.exists() && !dir.is_dir() {
        return Err(ExportError::NotADir { path: dir.into() });
    }
    fs::create_dir_all(dir).map_err(|source| ExportError::CreateDir {
        path: dir.into(),
        source,
    })?;
    if let Ok(entries) = fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_name().to_str().is_some_and(is_export_file) {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
    let mut written = Vec::new();
    for m in &rendered.manifests {
        let path = dir.join(m.file_name());
        write_file(&path, &to_yaml(&m.object), m.is_secret())?;
        written.push(path);
    }
    let path = dir.join(RUNTIME_ENVIRONMENT_FILE);
    write_file(&path, &to_yaml(&rendered.runtime_environment), false)?;
    written.push(path);
    Ok(written)
}

/// Writes `text` to `path`; private files are created with mode 0600.
pub fn write_file(path: &Path, text: &str, private: bool) -> Result<(), ExportError> {
    let err = |source| ExportError::Write {
        path: path.into(),
        source,
    };
    // Remove first, so an older file's wider mode is not inherited.
    let _ = fs::remove_file(path);
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(if private { 0o600 } else { 0o644 });
    }
    let mut file = options.open(path).map_err(err)?;
    file.write_all(text.as_bytes()).map_err(err)?;
    Ok(())
}

/// One multi-document YAML stream for stdout. Secret values other than
/// placeholders are withheld (stdout ends up in logs); returns the stream and
/// how many values were withheld.
pub fn to_stream(manifests: &[Manifest]) -> (String, usize) {
    let mut out = String::new();
    let mut withheld = 0;
    for m in manifests {
        let mut object = m.object.clone();
        if m.is_secret() {
            withheld += withhold_secret_values(&mut object);
        }
        out.push_str("---\n");
        out.push_str(&to_yaml(&object));
    }
    (out, withheld)
}

fn withhold_secret_values(secret: &mut Value) -> usize {
    let mut count = 0;
    for field in ["stringData", "data"] {
        if let Some(Value::Object(map)) = secret.get_mut(field) {
            for (key, value) in map.iter_mut() {
                let is_placeholder = value
                    .as_str()
                    .is_some_and(|s| s.starts_with("<placeholder:"));
                if !is_placeholder && !is_record_field(key) {
                    *value = Value::String(
                        "<withheld from stdout: use --output-dir to write it to a 0600 file>"
                            .into(),
                    );
                    count += 1;
                }
            }
        }
    }
    count
}

/// The record Secret's fields are already redacted and safe to show.
fn is_record_field(key: &str) -> bool {
    matches!(
        key,
        "cf-runner-version"
            | "record-format"
            | "agent-name"
            | "runtime-name"
            | "registered-on-platform"
            | "values.yaml"
    )
}
