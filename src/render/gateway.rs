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

/// The chart's `appProxy.ingress.enabled` and `appProxy.httpRoute` from
/// the values, into the Helm values' `appProxy` and its `ingress`. The
/// Ingress host stays set with the Ingress off: the chart tells the
/// platform `https://<ingress.host><pathPrefix>` whatever exposes the
/// app-proxy, so it carries the address cf-runner derived.
pub(super) fn helm_into(
    app_proxy: &mut serde_json::Map<String, Value>,
    ingress: &mut serde_json::Map<String, Value>,
    values: &crate::values::Values,
) {
    use serde_json::json;
    let proxy = &values.app_proxy;
    if !proxy.ingress {
        ingress.insert("enabled".into(), json!(false));
    }
    let Some(route) = &proxy.http_route else {
        return;
    };
    let mut out = serde_json::Map::new();
    out.insert("enabled".into(), json!(true));
    if proxy.path_prefix != "/" {
        out.insert("pathPrefix".into(), json!(proxy.path_prefix));
    }
    out.insert("parentRefs".into(), json!(route.parent_refs));
    out.insert("hostnames".into(), json!(route.hostnames));
    if !route.annotations.is_empty() {
        out.insert("annotations".into(), json!(route.annotations));
    }
    if !route.labels.is_empty() {
        out.insert("labels".into(), json!(route.labels));
    }
    app_proxy.insert("httpRoute".into(), Value::Object(out));
}
