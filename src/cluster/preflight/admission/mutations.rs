//! Mutations: what a mutating admission step changed in a dry-run pod
//! against what was sent (a sidecar, a rewritten image), so the preflight
//! can warn before a webhook breaks the builds.

use serde_json::Value;

use super::pod_security::container_name;
use crate::values::quantity_value;

/// The fields a mutating admission step changed in `got` against `sent`:
/// values sent that came back different or missing, and containers,
/// volumes, mounts, env vars, labels and annotations added. Fields only
/// added to what was sent (defaults, the ServiceAccount token volume, a
/// LimitRange's default resources, default tolerations) are not changes.
pub fn mutations(sent: &Value, got: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for key in ["labels", "annotations"] {
        let before = sent.pointer(&format!("/metadata/{key}"));
        let after = got
            .pointer(&format!("/metadata/{key}"))
            .and_then(Value::as_object);
        // The LimitRanger's note of the defaults it set is no webhook's.
        let built_in = |k: &str| k == "kubernetes.io/limit-ranger";
        for (k, v) in after.into_iter().flatten().filter(|(k, _)| !built_in(k)) {
            match before.and_then(|b| b.get(k)) {
                None => out.push(format!("metadata.{key}[{k}] added ({})", short(v))),
                Some(b) if b != v => {
                    out.push(format!("metadata.{key}[{k}]: {} → {}", short(b), short(v)))
                }
                _ => {}
            }
        }
    }
    let (Some(s), Some(g)) = (sent.get("spec"), got.get("spec")) else {
        return out;
    };
    changed("spec", s, g, &mut out);
    for key in ["initContainers", "containers"] {
        let sent_names = names_in(s.get(key));
        for name in names_in(g.get(key)) {
            if !sent_names.contains(&name) {
                out.push(format!("spec.{key}[{name}] added"));
            }
        }
    }
    let ignored = |name: &str| name.starts_with("kube-api-access-");
    let sent_volumes = names_in(s.get("volumes"));
    for name in names_in(g.get("volumes")) {
        if !sent_volumes.contains(&name) && !ignored(&name) {
            out.push(format!("spec.volumes[{name}] added"));
        }
    }
    for c in g
        .get("containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = container_name(c);
        let Some(before) = s
            .get("containers")
            .and_then(Value::as_array)
            .and_then(|a| a.iter().find(|x| container_name(x) == name))
        else {
            continue;
        };
        for field in ["env", "volumeMounts"] {
            let was = names_in(before.get(field));
            for added in names_in(c.get(field)) {
                if !was.contains(&added) && !ignored(&added) {
                    out.push(format!("spec.containers[{name}].{field}[{added}] added"));
                }
            }
        }
    }
    out
}

/// The `name` of each entry of a list of named items.
pub(super) fn names_in(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.get("name").and_then(Value::as_str))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn short(v: &Value) -> String {
    let text = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if text.chars().count() > 80 {
        format!("{}…", text.chars().take(80).collect::<String>())
    } else {
        text
    }
}

/// Empty values the API server leaves out of its answer.
fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.is_empty(),
        Value::Number(n) => n.as_f64() == Some(0.0),
    }
}

/// Walks what was sent; reports each value that came back different.
/// Lists of named items are matched by name (an injected sidecar shifts
/// the others); quantities are compared by value (`1000m` is `1`).
fn changed(path: &str, sent: &Value, got: &Value, out: &mut Vec<String>) {
    match (sent, got) {
        (Value::Object(s), Value::Object(g)) => {
            for (k, v) in s {
                let p = format!("{path}.{k}");
                match g.get(k) {
                    Some(gv) => changed(&p, v, gv, out),
                    None if is_empty(v) => {}
                    None => out.push(format!("{p} removed (was {})", short(v))),
                }
            }
        }
        (Value::Array(s), Value::Array(g)) => {
            let named = !s.is_empty() && s.iter().all(|x| x.get("name").is_some());
            for (i, v) in s.iter().enumerate() {
                let (label, other) = if named {
                    let name = v.get("name").and_then(Value::as_str).unwrap_or("?");
                    (
                        format!("{path}[{name}]"),
                        g.iter().find(|x| x.get("name") == v.get("name")),
                    )
                } else {
                    (format!("{path}[{i}]"), g.get(i))
                };
                match other {
                    Some(gv) => changed(&label, v, gv, out),
                    None => out.push(format!("{label} removed")),
                }
            }
        }
        (Value::String(a), Value::String(b)) if a != b => {
            let same_quantity = matches!(
                (quantity_value(a), quantity_value(b)),
                (Some(x), Some(y)) if (x - y).abs() <= f64::EPSILON * x.abs().max(1.0)
            );
            if !same_quantity {
                out.push(format!("{path}: {} → {}", short(sent), short(got)));
            }
        }
        // A number sent as text and answered as a number is the same.
        (a, b)
            if a != b
                && !(is_empty(a) && is_empty(b))
                && a.as_str() != Some(b.to_string().as_str())
                && b.as_str() != Some(a.to_string().as_str()) =>
        {
            out.push(format!("{path}: {} → {}", short(a), short(b)));
        }
        _ => {}
    }
}
