//! Questions about where builds run: the node selector (suggested from the
//! disks' zone) and the taints build pods tolerate.

use serde_json::{json, Map, Value};

use super::session::{plural, Session};
use super::{PromptError, Question, ZONE_LABEL};

impl Session<'_> {
    pub(super) fn ask_build_node_selector(
        &mut self,
        zone: Option<&str>,
    ) -> Result<(), PromptError> {
        let key = "Runtime.NodeSelector";
        if let Some(v) = self.given(key) {
            let shown = selector_text(v);
            self.row(
                "Build node selector",
                if shown.is_empty() {
                    "any node".into()
                } else {
                    shown
                },
                true,
            );
            return Ok(());
        }
        // Disks live in one zone; when nodes span several, keep builds there.
        let suggestion = match zone {
            Some(z) if self.facts().zones.len() > 1 => format!("{ZONE_LABEL}={z}"),
            _ => String::new(),
        };
        let checker = self.checker();
        let validate = |s: &str| checker.check_unless_empty(key, s);
        let text = self.input(
            Question::new(
                key,
                "Build node selector",
                "Labels the nodes for builds must have, key=value[,key=value]; empty for any node.",
            ),
            &suggestion,
            &validate,
        )?;
        let map: Map<String, Value> = text
            .split(',')
            .filter_map(|pair| pair.split_once('='))
            .map(|(k, v)| (k.trim().to_string(), Value::String(v.trim().to_string())))
            .collect();
        self.set(key, Value::Object(map));
        self.row(
            "Build node selector",
            if text.is_empty() {
                "any node".into()
            } else {
                text
            },
            false,
        );
        Ok(())
    }

    pub(super) fn ask_build_tolerations(&mut self) -> Result<(), PromptError> {
        let key = "Runtime.tolerations";
        if let Some(Value::Array(list)) = self.given(key) {
            let n = list.len();
            self.row("Build tolerations", plural(n, "toleration"), true);
            return Ok(());
        }
        let checker = self.checker();
        let validate = |s: &str| {
            let list = parse_tolerations(s)?;
            checker.check(key, list)
        };
        let text = self.input(
            Question::new(
                key,
                "Build tolerations",
                "Taints build pods tolerate, key=value:Effect or key:Effect, comma-separated; empty for none.",
            ),
            "",
            &validate,
        )?;
        let list = parse_tolerations(&text).expect("validated");
        self.set(key, list);
        self.row(
            "Build tolerations",
            if text.is_empty() { "none".into() } else { text },
            false,
        );
        Ok(())
    }
}

/// `key=value:Effect`, `key:Effect`, `key=value`, `key` (any value), comma
/// separated, into Kubernetes tolerations.
pub(super) fn parse_tolerations(text: &str) -> Result<Value, String> {
    let mut out = Vec::new();
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (taint, effect) = match item.rsplit_once(':') {
            Some((t, e)) => (t, Some(e)),
            None => (item, None),
        };
        let mut t = Map::new();
        match taint.split_once('=') {
            Some((k, v)) => {
                t.insert("key".into(), json!(k.trim()));
                t.insert("operator".into(), json!("Equal"));
                t.insert("value".into(), json!(v.trim()));
            }
            None => {
                t.insert("key".into(), json!(taint.trim()));
                t.insert("operator".into(), json!("Exists"));
            }
        }
        if let Some(effect) = effect {
            if !["NoSchedule", "PreferNoSchedule", "NoExecute"].contains(&effect) {
                return Err(format!(
                    "{item:?} has the effect {effect:?}; use NoSchedule, PreferNoSchedule or NoExecute"
                ));
            }
            t.insert("effect".into(), json!(effect));
        }
        if t.get("key") == Some(&json!("")) {
            return Err(format!("{item:?} has no taint key; write key=value:Effect"));
        }
        out.push(Value::Object(t));
    }
    Ok(Value::Array(out))
}

fn selector_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
            .collect::<Vec<_>>()
            .join(","),
        _ => String::new(),
    }
}
