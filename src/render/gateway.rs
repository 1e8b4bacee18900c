//! The shape check of the one object cf-runner renders without a Rust type
//! of its own: the app-proxy's Gateway API `HTTPRoute`. Enough to catch a
//! broken template in the unit tests; the end-to-end test dry-runs the
//! object against the Gateway API's real CRDs (strict field validation).

use serde_json::Value;

/// The fields an HTTPRoute's `spec` may have (Gateway API v1).
const SPEC_FIELDS: &[&str] = &["parentRefs", "hostnames", "rules"];

/// Checks the fields the app-proxy's route must have, and no others.
pub(super) fn check_route(object: &Value) -> Result<(), String> {
    let spec = object
        .get("spec")
        .and_then(Value::as_object)
        .ok_or("it has no spec")?;
    if let Some(field) = spec.keys().find(|k| !SPEC_FIELDS.contains(&k.as_str())) {
        return Err(format!("spec.{field} is not a field of an HTTPRoute"));
    }
    let non_empty_list = |field: &str| {
        spec.get(field)
            .and_then(Value::as_array)
            .is_some_and(|l| !l.is_empty())
    };
    for field in SPEC_FIELDS {
        if !non_empty_list(field) {
            return Err(format!("spec.{field} is not a non-empty list"));
        }
    }
    let names_a_gateway = spec["parentRefs"]
        .as_array()
        .into_iter()
        .flatten()
        .all(|p| p.get("name").and_then(Value::as_str).is_some());
    if !names_a_gateway {
        return Err("a parentRef has no name".into());
    }
    Ok(())
}
