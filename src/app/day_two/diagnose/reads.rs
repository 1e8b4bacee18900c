//! What one runtime namespace's causes are judged from ([`Context`]), and
//! the events in it about one object, newest last.

use serde_json::Value;

use crate::app::day_two::diagnose::pods::{text, time_at};
use crate::cluster::builds::BuildReads;

/// What the causes of one runtime namespace are judged from.
pub(crate) struct Context<'a> {
    pub namespace: &'a str,
    pub reads: &'a BuildReads,
    /// The registry the values name for images, if any.
    pub mirror: Option<&'a str>,
}

/// The events in `events` about object `kind`/`name`, newest last.
pub(crate) fn events_about<'a>(events: &'a [Value], kind: &str, name: &str) -> Vec<&'a Value> {
    let mut out: Vec<&Value> = events
        .iter()
        .filter(|e| {
            text(e, "/involvedObject/kind") == kind && text(e, "/involvedObject/name") == name
        })
        .collect();
    out.sort_by_key(|e| event_time(e));
    out
}

/// When an event last happened.
pub(crate) fn event_time(e: &Value) -> i64 {
    [
        "/lastTimestamp",
        "/eventTime",
        "/metadata/creationTimestamp",
    ]
    .iter()
    .find_map(|p| time_at(e, p))
    .unwrap_or(0)
}

/// The newest message of an event of `reason` among `events`.
pub(crate) fn newest_message<'a>(events: &[&'a Value], reason: &str) -> Option<&'a str> {
    events
        .iter()
        .rev()
        .find(|e| text(e, "/reason") == reason)
        .map(|e| text(e, "/message"))
}
