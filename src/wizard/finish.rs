//! The end of the questions: whether to save the answers as a values file
//! (and that file's text), and whether to go ahead, change an answer, or
//! stop.

use std::path::PathBuf;

use serde_json::{json, Value};

use super::session::Session;
use super::{Choice, Mode, PromptError, Question, SavedValues, DEFAULT_SAVE_FILE};
use crate::values::{schema, tree};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Next {
    Proceed,
    Change,
    Stop,
}

/// Keys never written to a saved values file: tokens stay out of files
/// other than Secrets (PRODUCT §5); a replay passes them again.
pub const UNSAVED_KEYS: &[&str] = &["Token", "AgentToken"];

/// The values file for the merged tree of everything (given + answers): one
/// file that `init --values` replays to the same manifests. Tokens are left
/// out (the header says so); other secrets (provisioner keys) stay, and the
/// file is then written with mode 0600.
pub fn values_file(merged: &Value) -> SavedValues {
    let mut tree = merged.clone();
    let mut left_out = Vec::new();
    if let Some(map) = tree.as_object_mut() {
        for key in UNSAVED_KEYS {
            if map.remove(*key).is_some_and(|v| !v.is_null()) {
                left_out.push(*key);
            }
        }
    }
    // A proxy password is as secret as a key.
    let holds_secret = schema::SECRET_KEYS
        .iter()
        .any(|key| tree::lookup(&tree, key).is_some_and(|v| v != &json!("")))
        || !crate::values::secrets::url_credentials(&tree).is_empty();
    let mut text = String::from(
        "# yaml-language-server: $schema=values.schema.json\n\
         # cf-runner values, saved by the `cf-runner init` wizard.\n\
         # Replay: cf-runner init --values <this file> [--yes]\n\
         # Editor checks: cf-runner schema > values.schema.json (beside this file).\n",
    );
    if !left_out.is_empty() {
        text.push_str(&format!(
            "# Not saved: {} (tokens stay out of files); pass --token or set CF_API_KEY again.\n",
            left_out.join(", ")
        ));
    }
    if holds_secret {
        text.push_str("# It holds a secret: keep it private (written with mode 0600).\n");
    }
    text.push_str(&serde_yaml_ng::to_string(&tree).expect("a JSON tree serializes to YAML"));
    SavedValues { text, holds_secret }
}

impl Session<'_> {
    pub(super) fn ask_save(&mut self) -> Result<Option<PathBuf>, PromptError> {
        let save = self.confirm(
            Question::new(
                "save",
                "Save these answers as a values file?",
                "Replay the same setup later or in CI with `cf-runner init --values FILE --yes`.",
            ),
            true,
        )?;
        if !save {
            return Ok(None);
        }
        loop {
            let validate = |s: &str| {
                if s.is_empty() {
                    return Err("name a file, e.g. cf-runner-values.yaml".to_string());
                }
                let path = expand_home(s);
                if path.is_dir() {
                    return Err(format!("{s} is a folder; name a file in it"));
                }
                // Only a regular file is ever replaced: not a link, a device
                // or a pipe (writing there would hit whatever it stands for).
                if path.symlink_metadata().is_ok_and(|m| !m.is_file()) {
                    return Err(format!(
                        "{s} is not a regular file (a link, a device or a pipe); name another file"
                    ));
                }
                match path.parent() {
                    Some(parent) if !parent.as_os_str().is_empty() && !parent.is_dir() => {
                        Err(format!("the folder {} does not exist", parent.display()))
                    }
                    _ => Ok(()),
                }
            };
            let name = self.input(
                Question::new(
                    "save.path",
                    "Values file",
                    "Everything given and answered goes in it; mode 0600 when it holds a secret.",
                ),
                DEFAULT_SAVE_FILE,
                &validate,
            )?;
            let path = expand_home(&name);
            if !path.exists() {
                return Ok(Some(path));
            }
            let replace = self.confirm(
                Question::new("save.replace", &format!("{name} exists. Replace it?"), ""),
                false,
            )?;
            if replace {
                return Ok(Some(path));
            }
        }
    }

    pub(super) fn ask_next(
        &mut self,
        context: Option<&str>,
        saving: bool,
    ) -> Result<Next, PromptError> {
        let go = match &self.setup.mode {
            Mode::DryRun { output } if output == "-" => "Write the manifests to stdout".to_string(),
            Mode::DryRun { output } => format!("Write the manifests to {output}/"),
            Mode::Helm { path } => format!("Write the Helm values to {path}"),
            Mode::Install => match context {
                Some(c) => format!("Install into {c}"),
                None => "Install".to_string(),
            },
        };
        let stop = if saving {
            "Stop here (only the values file is written)"
        } else {
            "Stop here without changing anything"
        };
        let choices = [
            Choice::new(go, ""),
            Choice::new("Change an answer", "walk the questions again"),
            Choice::new(stop, ""),
        ];
        Ok(
            match self.select(Question::new("next", "Go ahead?", ""), &choices, 0)? {
                0 => Next::Proceed,
                1 => Next::Change,
                _ => Next::Stop,
            },
        )
    }
}

pub(super) fn expand_home(path: &str) -> PathBuf {
    match path.strip_prefix("~/") {
        Some(rest) => crate::env::home()
            .map(|h| h.join(rest))
            .unwrap_or_else(|| PathBuf::from(path)),
        None => PathBuf::from(path),
    }
}
