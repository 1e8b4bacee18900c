//! The reader of the merged values tree: typed fields out of untyped
//! values, every problem collected (with the key and the fix) instead of
//! stopping at the first.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{
    bool_text, check_label_value, check_qualified_name, is_env_name, is_quantity, lookup,
    quantity_value, ImageOverride, Resources, Toleration,
};
use crate::values::Problem;

/// Reads typed fields out of the merged tree, collecting problems instead of
/// stopping at the first.
pub(in crate::values) struct Reader<'a> {
    root: &'a Value,
    pub problems: Vec<Problem>,
}

impl<'a> Reader<'a> {
    pub fn new(root: &'a Value) -> Self {
        Reader {
            root,
            problems: Vec::new(),
        }
    }

    /// The whole merged tree.
    pub fn root(&self) -> &'a Value {
        self.root
    }

    fn raw(&self, key: &str) -> Option<&'a Value> {
        lookup(self.root, key)
    }

    /// The value at `key` as the user wrote it (for a problem's message).
    pub fn raw_value(&self, key: &str) -> Option<&'a Value> {
        self.raw(key)
    }

    fn problem(&mut self, key: &str, why: impl Into<String>, fix: impl Into<String>) {
        let value = self.raw(key);
        self.problems.push(Problem::new(key, value, why, fix));
    }

    /// A text value; empty strings count as unset.
    pub fn text(&self, key: &str) -> Option<String> {
        let s = match self.raw(key)? {
            Value::String(s) => s.trim().to_string(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            _ => return None,
        };
        (!s.is_empty()).then_some(s)
    }

    pub fn boolean(&self, key: &str, default: bool) -> bool {
        match self.raw(key) {
            Some(Value::Bool(b)) => *b,
            Some(Value::String(s)) => bool_text(s).unwrap_or(default),
            _ => default,
        }
    }

    pub fn int(&self, key: &str) -> Option<i64> {
        match self.raw(key)? {
            Value::Number(n) => n.as_i64(),
            Value::String(s) => s.parse().ok(),
            _ => None,
        }
    }

    pub fn text_map(&self, key: &str) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        if let Some(Value::Object(m)) = self.raw(key) {
            for (k, v) in m {
                let text = match v {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    Value::Bool(b) => b.to_string(),
                    _ => continue,
                };
                out.insert(k.clone(), text);
            }
        }
        out
    }

    /// A map of environment variables: names must be valid variable names.
    pub fn env_map(&mut self, key: &str) -> BTreeMap<String, String> {
        let map = self.text_map(key);
        for name in map.keys() {
            if !is_env_name(name) {
                self.problems.push(Problem::new(
                    &format!("{key}.{name}"),
                    None,
                    "is not a valid environment variable name",
                    "use letters, digits and underscores, not starting with a digit",
                ));
            }
        }
        map
    }

    /// A map of annotations or labels: keys must be qualified names.
    pub fn annotation_map(&mut self, key: &str) -> BTreeMap<String, String> {
        let map = self.text_map(key);
        for name in map.keys() {
            if let Err(why) = check_qualified_name(name) {
                self.problems.push(Problem::new(
                    &format!("{key}.{name}"),
                    None,
                    format!("is not a valid annotation key: {why}"),
                    "use `[prefix/]name`, e.g. `eks.amazonaws.com/role-arn`",
                ));
            }
        }
        map
    }

    /// A service account's annotations: [`Self::annotation_map`], and an
    /// annotation that names a cloud identity (an IAM role, a Google
    /// service account) must have that identity's shape.
    pub fn service_account_annotations(&mut self, key: &str) -> BTreeMap<String, String> {
        let map = self.annotation_map(key);
        for (name, value) in &map {
            let Some(rule) = crate::values::cloud::annotation_rule(name) else {
                continue;
            };
            // Empty names no identity; it is passed on as written.
            if value.trim().is_empty() {
                continue;
            }
            if let Err(misfit) = rule(value.trim()) {
                self.problems.push(Problem::new(
                    &format!("{key}.{name}"),
                    Some(&Value::String(value.clone())),
                    misfit.why,
                    misfit.fix,
                ));
            }
        }
        map
    }

    pub fn text_list(&self, key: &str) -> Vec<String> {
        match self.raw(key) {
            Some(Value::String(s)) => s
                .split(',')
                .map(|x| x.trim().to_string())
                .filter(|x| !x.is_empty())
                .collect(),
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|v| match v {
                    Value::String(s) => Some(s.clone()),
                    Value::Number(n) => Some(n.to_string()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    pub fn node_selector(&mut self, key: &str) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        match self.raw(key) {
            Some(Value::String(s)) => {
                for pair in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                    match pair.split_once('=') {
                        Some((k, v)) => {
                            out.insert(k.trim().to_string(), v.trim().to_string());
                        }
                        None => {
                            self.problem(
                                key,
                                format!("has `{pair}`, which is not `key=value`"),
                                "write the node selector as `key=value[,key2=value2]`",
                            );
                            return BTreeMap::new();
                        }
                    }
                }
            }
            Some(Value::Object(_)) => out = self.text_map(key),
            _ => {}
        }
        for (k, v) in &out {
            if let Err(why) = check_qualified_name(k) {
                self.problem(
                    key,
                    format!("has the label key `{k}`, which is not valid: {why}"),
                    "label keys look like `[prefix/]name`, e.g. `kubernetes.io/arch`",
                );
            }
            if let Err(why) = check_label_value(v) {
                self.problem(
                    key,
                    format!("has the label value `{v}` for `{k}`, which is not valid: {why}"),
                    "label values are at most 63 letters, digits, `-`, `_` or `.`",
                );
            }
        }
        out
    }

    pub fn tolerations(&mut self, key: &str) -> Vec<Toleration> {
        let Some(Value::Array(items)) = self.raw(key) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let at = format!("{key}[{i}]");
            let Some(map) = item.as_object() else {
                self.problems.push(Problem::new(
                    &at,
                    Some(item),
                    "is not a toleration",
                    "write {key, operator, value, effect}",
                ));
                continue;
            };
            let t = read_toleration(&at, map, &mut self.problems);
            check_toleration(&at, map, &t, &mut self.problems);
            out.push(t);
        }
        out
    }

    pub fn resources(&mut self, key: &str) -> Resources {
        let mut out = Resources::default();
        let Some(Value::Object(map)) = self.raw(key) else {
            return out;
        };
        for (section, entries) in map {
            // The keys are written only for a message (most values have none).
            let at = || format!("{key}.{section}");
            let target = match section.as_str() {
                "limits" => &mut out.limits,
                "requests" => &mut out.requests,
                _ => {
                    self.problems.push(Problem::new(
                        &at(),
                        None,
                        "is not a resources field",
                        "use limits and requests",
                    ));
                    continue;
                }
            };
            let Some(entries) = entries.as_object() else {
                if !entries.is_null() {
                    self.problems.push(Problem::new(
                        &at(),
                        Some(entries),
                        "is not a map",
                        "e.g. `cpu: 500m` and `memory: 1Gi` under it",
                    ));
                }
                continue;
            };
            for (name, quantity) in entries {
                let at = || format!("{}.{name}", at());
                let text = match quantity {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    Value::Null => continue,
                    _ => String::new(),
                };
                if !["cpu", "memory", "ephemeral-storage"].contains(&name.as_str())
                    && !name.contains('/')
                {
                    self.problems.push(Problem::new(
                        &at(),
                        None,
                        "is not a resource name",
                        "use cpu, memory or ephemeral-storage",
                    ));
                } else if !is_quantity(&text) {
                    self.problems.push(Problem::new(
                        &at(),
                        Some(quantity),
                        "is not a Kubernetes quantity",
                        "write e.g. 500m or 1 for cpu, 512Mi or 2Gi for memory",
                    ));
                } else {
                    target.insert(name.clone(), text);
                }
            }
        }
        for (name, limit) in &out.limits {
            if let (Some(req), Some(l)) = (
                out.requests.get(name).and_then(|r| quantity_value(r)),
                quantity_value(limit),
            ) {
                if req > l {
                    self.problems.push(Problem::new(
                        &format!("{key}.requests.{name}"),
                        None,
                        format!("is larger than the limit {limit}"),
                        "a request cannot exceed its limit: lower the request or raise the limit",
                    ));
                }
            }
        }
        out
    }

    /// An image override: one string, or `Name` and `Tag` under `key`.
    pub fn image(&mut self, key: &str) -> Option<ImageOverride> {
        let reference = match self.raw(key)? {
            Value::String(s) => s.trim().to_string(),
            Value::Object(_) => {
                let name = self.text(&format!("{key}.Name"));
                let tag = self.text(&format!("{key}.Tag"));
                match (name, tag) {
                    (Some(n), Some(t)) => format!("{n}:{t}"),
                    (Some(n), None) => n,
                    (None, Some(_)) => {
                        self.problem(
                            &format!("{key}.Tag"),
                            "is set without an image name",
                            format!("set {key}.Name too, e.g. codefresh/venona"),
                        );
                        return None;
                    }
                    (None, None) => return None,
                }
            }
            _ => return None,
        };
        if reference.is_empty() {
            return None;
        }
        let at = if self.raw(key).is_some_and(Value::is_object) {
            format!("{key}.Tag")
        } else {
            key.to_string()
        };
        if reference.contains(char::is_whitespace) {
            self.problem(
                key,
                "is not an image reference",
                "write registry/repository:tag",
            );
            return None;
        }
        let last = reference.rsplit('/').next().unwrap_or(&reference);
        if !last.contains(':') && !reference.contains('@') {
            self.problem(
                &at,
                format!("`{reference}` has no tag, so it would float on :latest"),
                "pin a version tag or a digest, e.g. codefresh/venona:2.0.10",
            );
            return None;
        }
        if last.ends_with(":latest") {
            self.problem(
                &at,
                format!("`{reference}` uses the floating tag latest"),
                "pin a version tag or a digest so every node runs the same image",
            );
            return None;
        }
        Some(ImageOverride(reference))
    }

    pub fn url(&mut self, key: &str, schemes: &[&str]) -> Option<String> {
        let text = self.text(key)?;
        match url::Url::parse(&text) {
            Ok(u) if schemes.contains(&u.scheme()) && u.host_str().is_some() => Some(text),
            Ok(u) if !schemes.contains(&u.scheme()) => {
                self.problem(
                    key,
                    format!("uses the scheme `{}`", u.scheme()),
                    format!("use a URL starting with {}://", schemes.join(":// or ")),
                );
                None
            }
            _ => {
                self.problem(
                    key,
                    "is not a URL",
                    format!("write a full URL, e.g. {}://host:port", schemes[0]),
                );
                None
            }
        }
    }

    pub fn one_of(&mut self, key: &str, default: &str, allowed: &[&str]) -> String {
        let value = self.text(key).unwrap_or_else(|| default.to_string());
        if !allowed.contains(&value.as_str()) {
            self.problem(
                key,
                "is not an accepted value",
                format!("use one of: {}", allowed.join(", ")),
            );
            return default.to_string();
        }
        value
    }
}

/// One toleration's fields as written, a field it cannot have and a
/// `tolerationSeconds` that is no number added to `problems`.
fn read_toleration(
    at: &str,
    map: &serde_json::Map<String, Value>,
    problems: &mut Vec<Problem>,
) -> Toleration {
    let text = |name: &str| match map.get(name) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(Value::Bool(b)) => Some(b.to_string()),
        _ => None,
    };
    for field in map.keys() {
        if !["key", "operator", "value", "effect", "tolerationSeconds"].contains(&field.as_str()) {
            problems.push(Problem::new(
                &format!("{at}.{field}"),
                None,
                "is not a toleration field",
                "a toleration has key, operator, value, effect and tolerationSeconds",
            ));
        }
    }
    Toleration {
        key: text("key"),
        operator: text("operator"),
        value: text("value"),
        effect: text("effect"),
        toleration_seconds: match map.get("tolerationSeconds") {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) if n.is_i64() => n.as_i64(),
            Some(Value::String(s)) if s.trim().parse::<i64>().is_ok() => s.trim().parse().ok(),
            Some(other) => {
                problems.push(Problem::new(
                    &format!("{at}.tolerationSeconds"),
                    Some(other),
                    "is not a whole number of seconds",
                    "write a number of seconds, e.g. 300",
                ));
                None
            }
        },
    }
}

/// What the API server would refuse in a toleration: a key or value that
/// no taint can have, a time limit on anything but NoExecute, an unknown
/// operator or effect, a value with Exists, no key without Exists.
fn check_toleration(
    at: &str,
    map: &serde_json::Map<String, Value>,
    t: &Toleration,
    problems: &mut Vec<Problem>,
) {
    let mut refuse = |field: &str, value: Option<&Value>, why: String, fix: &str| {
        problems.push(Problem::new(&format!("{at}.{field}"), value, why, fix));
    };
    if let Some(k) = &t.key {
        if let Err(why) = check_qualified_name(k) {
            refuse(
                "key",
                map.get("key"),
                format!("is not a valid taint key: {why}"),
                "taint keys look like `[prefix/]name`, e.g. `dedicated` or `example.com/pool`",
            );
        }
    }
    if let (Some(v), false) = (&t.value, t.operator.as_deref() == Some("Exists")) {
        if let Err(why) = check_label_value(v) {
            refuse(
                "value",
                map.get("value"),
                format!("is not a valid taint value: {why}"),
                "taint values are at most 63 letters, digits, `-`, `_` or `.`",
            );
        }
    }
    if t.toleration_seconds.is_some() && t.effect.as_deref() != Some("NoExecute") {
        refuse(
            "tolerationSeconds",
            map.get("tolerationSeconds"),
            "is set, but only a NoExecute toleration has a time limit (the API server refuses it otherwise)".into(),
            "set effect: NoExecute, or remove tolerationSeconds",
        );
    }
    if let Some(op) = &t.operator {
        if op != "Equal" && op != "Exists" {
            refuse(
                "operator",
                map.get("operator"),
                "is not a toleration operator".into(),
                "use Equal or Exists",
            );
        }
        if op == "Exists" && t.value.is_some() {
            refuse(
                "value",
                map.get("value"),
                "is set, but the operator is Exists".into(),
                "remove the value, or use operator Equal",
            );
        }
    }
    if let Some(effect) = &t.effect {
        if !["NoSchedule", "PreferNoSchedule", "NoExecute"].contains(&effect.as_str()) {
            refuse(
                "effect",
                map.get("effect"),
                "is not a taint effect".into(),
                "use NoSchedule, PreferNoSchedule or NoExecute (or leave it out)",
            );
        }
    }
    if t.key.is_none() && t.operator.as_deref() != Some("Exists") {
        refuse(
            "key",
            None,
            "is missing".into(),
            "give the taint key, or use operator Exists to tolerate every taint",
        );
    }
}
