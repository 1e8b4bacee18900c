//! What one runtime namespace's causes are judged from (`Context`), and
//! the events in it about one object, newest last. The events are indexed
//! by the object they are about once per namespace: a namespace of 500
//! build pods and 5,000 events is otherwise scanned once per pod.

use std::collections::HashMap;

use serde_json::Value;

use crate::app::day_two::diagnose::pods::{text, time_at};
use crate::cluster::builds::BuildReads;

/// What the causes of one runtime namespace are judged from.
pub(crate) struct Context<'a> {
    pub namespace: &'a str,
    pub reads: &'a BuildReads,
    /// The registry the values name for images, if any.
    pub mirror: Option<&'a str>,
    /// The namespace's events by the object they are about.
    pub events: EventIndex<'a>,
}

impl<'a> Context<'a> {
    /// The context of the namespace whose objects `reads` holds.
    pub(crate) fn new(namespace: &'a str, reads: &'a BuildReads, mirror: Option<&'a str>) -> Self {
        Context {
            namespace,
            reads,
            mirror,
            events: EventIndex::new(&reads.events),
        }
    }
}

/// Events of one kind of object by its name, each with its time.
type TimedByName<'a> = HashMap<&'a str, Vec<(i64, &'a Value)>>;

/// Events by the kind and then the name of the object they are about, each
/// list newest last.
#[derive(Default)]
pub(crate) struct EventIndex<'a>(HashMap<&'a str, HashMap<&'a str, Vec<&'a Value>>>);

impl<'a> EventIndex<'a> {
    /// Indexes `events`.
    pub(crate) fn new(events: &'a [Value]) -> Self {
        let mut timed: HashMap<&str, TimedByName<'a>> = HashMap::new();
        for e in events {
            timed
                .entry(text(e, "/involvedObject/kind"))
                .or_default()
                .entry(text(e, "/involvedObject/name"))
                .or_default()
                .push((event_time(e), e));
        }
        let sorted = |mut list: Vec<(i64, &'a Value)>| {
            list.sort_by_key(|(at, _)| *at);
            list.into_iter().map(|(_, e)| e).collect()
        };
        EventIndex(
            timed
                .into_iter()
                .map(|(kind, names)| {
                    let names = names.into_iter().map(|(n, l)| (n, sorted(l))).collect();
                    (kind, names)
                })
                .collect(),
        )
    }

    /// The events about object `kind`/`name`, newest last.
    pub(crate) fn about(&self, kind: &str, name: &str) -> &[&'a Value] {
        self.0
            .get(kind)
            .and_then(|names| names.get(name))
            .map(Vec::as_slice)
            .unwrap_or_default()
    }
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
