//! The installation record (Secret [`RECORD_SECRET`], written by
//! `templates/record.yaml`, its keys in [`render::record_keys`]) and the
//! secrets an install keeps in Secrets of its own: the one way every
//! command reads them back. The recorded values go through the bounded
//! values parser, like any values file; a kept secret that is empty or a
//! placeholder of an offline install reads as absent.

use serde_json::Value;

use crate::cluster::{inventory, secrets, Cluster, KubeError};
use crate::render::{self, RECORD_SECRET};
use crate::values::{self, tree, Input, Problem, ValuesFile};

pub(crate) use crate::cluster::inventory::Record;

/// The record of the installation in `namespace`; `None` when there is
/// none.
pub(crate) async fn read(cluster: &Cluster, namespace: &str) -> Result<Option<Record>, KubeError> {
    inventory::record(&cluster.client, namespace).await
}

/// Where the recorded values come from, as problems name it.
pub(crate) fn origin(namespace: &str) -> String {
    format!("the installation record (Secret {RECORD_SECRET} in namespace {namespace})")
}

/// The recorded values tree (secrets redacted, as recorded); no values
/// read as an empty map.
pub(crate) fn values_tree(record: &Record) -> Result<Value, Problem> {
    let text = record.values_yaml.as_deref().unwrap_or_default();
    tree::parse_values_text(text, &origin(&record.namespace))
}

/// The recorded values, validated as a values file: `None` without values,
/// or when they no longer validate with this version.
pub(crate) fn loaded(record: &Record) -> Option<values::Loaded> {
    let text = record.values_yaml.as_ref()?;
    let input = Input {
        files: vec![ValuesFile {
            origin: origin(&record.namespace),
            text: text.clone(),
        }],
        ..Input::default()
    };
    values::load(&input).ok()
}

/// The recorded values as `info` shows them (redacted); `Null` when the
/// record holds none it can read.
pub(crate) fn shown_values(record: &Record) -> Value {
    record
        .values_yaml
        .as_ref()
        .and_then(|_| values_tree(record).ok())
        .map(|t| values::redact(&t))
        .unwrap_or(Value::Null)
}

/// The platform the install was made for (`CodefreshHost` of its recorded
/// values), when the record says.
pub(crate) fn recorded_host(record: &Record) -> Option<String> {
    values_tree(record).ok().and_then(|t| {
        tree::lookup(&t, "CodefreshHost")
            .and_then(Value::as_str)
            .map(str::to_string)
    })
}

/// True when the installation is an agent alone (`AgentOnly: true` in its
/// recorded values): no runtime in its namespace, no dind certificate, no
/// runtime environment of its own.
pub(crate) fn agent_only(record: &Record) -> bool {
    values_tree(record)
        .ok()
        .and_then(|t| tree::lookup(&t, "AgentOnly").and_then(Value::as_bool))
        .unwrap_or(false)
}

/// A kept value, or `None` when it is empty or a placeholder (an offline
/// install has no real one).
pub(crate) fn kept(value: Option<&String>) -> Option<String> {
    value
        .filter(|v| !v.is_empty() && !render::is_placeholder(v))
        .cloned()
}

/// One key of a Secret the install keeps, through [`kept`].
pub(crate) async fn read_kept(
    cluster: &Cluster,
    namespace: &str,
    secret: &str,
    key: &str,
) -> Result<Option<String>, KubeError> {
    let value = secrets::read_key(&cluster.client, namespace, secret, key).await?;
    Ok(kept(value.as_ref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(values: Option<&str>) -> Record {
        Record {
            namespace: "ci".into(),
            values_yaml: values.map(str::to_string),
            ..Default::default()
        }
    }

    #[test]
    fn placeholders_and_empty_values_are_not_kept() {
        assert_eq!(kept(Some(&render::placeholder("agent token"))), None);
        assert_eq!(kept(Some(&String::new())), None);
        assert_eq!(kept(Some(&"a-token".to_string())), Some("a-token".into()));
    }

    /// The record goes through the bounded parser like any values file:
    /// a key written twice is refused, naming the record.
    #[test]
    fn the_recorded_values_are_read_by_the_values_parser() {
        let problem = values_tree(&record(Some("Namespace: a\nNamespace: b\n")))
            .expect_err("a duplicate key is refused");
        let said = format!("{problem:?}");
        assert!(
            said.contains("Secret cf-runner-values in namespace ci"),
            "{said}"
        );
        assert_eq!(
            shown_values(&record(Some("Namespace: a\nNamespace: b\n"))),
            Value::Null
        );
        assert_eq!(shown_values(&record(None)), Value::Null);
        assert_eq!(
            values_tree(&record(None)).unwrap(),
            Value::Object(Default::default())
        );
    }
}
