//! How the platform reaches the app-proxy: through cf-runner's Ingress (the
//! default), through a Gateway API `HTTPRoute` attached to the user's
//! Gateway, through both, or through neither (the user exposes the
//! `app-proxy` Service their own way). Mirrors the chart's
//! `appProxy.ingress.enabled` and `appProxy.httpRoute.*` (chart 10.4.0) in
//! the venonactl spelling of the existing `AppProxy.Ingress.*` keys.
//!
//! Like the chart, the Ingress and the HTTPRoute are independent: both may
//! be on at once (a move from one to the other without a gap). The address
//! the platform is told (the runtime spec's `appProxy.externalIP`) is
//! `AppProxy.Ingress.Host` when given, else the HTTPRoute's first exact
//! hostname: the chart always takes the Ingress host, which leaves an
//! HTTPRoute-only install with no address (`https:///`).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use super::model::reader::Reader;
use super::model::{check_label_value, is_dns_label, is_dns_subdomain};
use super::Problem;

/// The values key that turns the HTTPRoute on, for messages elsewhere
/// (the preflight's "the cluster does not serve the Gateway API").
pub const HTTP_ROUTE_ENABLED_KEY: &str = "AppProxy.HttpRoute.Enabled";

/// The API the HTTPRoute belongs to (a set of CRDs a cluster may not have).
pub const GATEWAY_API_VERSION: &str = "gateway.networking.k8s.io/v1";

/// The fields of a Gateway API `ParentReference`.
const PARENT_REF_FIELDS: &[&str] = &["group", "kind", "namespace", "name", "sectionName", "port"];

/// The app-proxy's HTTPRoute, validated.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct HttpRoute {
    /// The Gateways (or listeners of one) it attaches to, as the
    /// HTTPRoute's `spec.parentRefs` takes them.
    pub parent_refs: Vec<Value>,
    /// The host names it serves; the first exact one is the app-proxy's
    /// address when `AppProxy.Ingress.Host` is not given.
    pub hostnames: Vec<String>,
    /// Annotations and extra labels of the HTTPRoute object.
    pub annotations: BTreeMap<String, String>,
    pub labels: BTreeMap<String, String>,
}

impl HttpRoute {
    /// The first hostname without a wildcard: one the platform can reach.
    pub fn exact_hostname(&self) -> Option<&str> {
        self.hostnames
            .iter()
            .map(String::as_str)
            .find(|h| !h.starts_with('*'))
    }
}

/// How the app-proxy is exposed, as [`resolve`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Exposure {
    /// `AppProxy.Ingress.Enabled` (default true).
    pub ingress: bool,
    /// The HTTPRoute, when `AppProxy.HttpRoute.Enabled`.
    pub http_route: Option<HttpRoute>,
    /// `AppProxy.HttpRoute.PathPrefix`, when given: it must agree with
    /// `AppProxy.Ingress.PathPrefix` (the app-proxy serves one prefix).
    pub route_path_prefix: Option<String>,
}

/// Reads the Ingress switch and the HTTPRoute keys. `app_proxy_on`: the
/// app-proxy is installed (the HTTPRoute's required keys are only
/// required then).
pub(super) fn resolve(r: &mut Reader, app_proxy_on: bool) -> Exposure {
    let ingress = r.boolean("AppProxy.Ingress.Enabled", true);
    // Like the Ingress host, ParentRefs alone turn the HTTPRoute on.
    let has_parents = r.raw_value("AppProxy.HttpRoute.ParentRefs").is_some();
    let enabled = r.boolean(HTTP_ROUTE_ENABLED_KEY, has_parents);
    let route_path_prefix = r.text("AppProxy.HttpRoute.PathPrefix");
    if !(enabled && app_proxy_on) {
        return Exposure {
            ingress,
            http_route: None,
            route_path_prefix,
        };
    }
    let route = HttpRoute {
        parent_refs: parent_refs(r),
        hostnames: hostnames(r),
        annotations: r.annotation_map("AppProxy.HttpRoute.Annotations"),
        labels: labels(r),
    };
    Exposure {
        ingress,
        http_route: Some(route),
        route_path_prefix,
    }
}

/// The host the platform is told the app-proxy is at: `given`
/// (`AppProxy.Ingress.Host`), else the HTTPRoute's first exact hostname.
/// One of them is required when the app-proxy is on.
pub(super) fn address(
    r: &mut Reader,
    enabled: bool,
    given: Option<String>,
    exposure: &Exposure,
) -> Option<String> {
    if !enabled || given.is_some() {
        return given;
    }
    let Some(route) = &exposure.http_route else {
        r.problems.push(Problem::new(
            "AppProxy.Ingress.Host",
            None,
            "is required when the app-proxy is enabled",
            "give the hostname the Ingress serves (with AppProxy.Ingress.Enabled false, the one you expose \
             the app-proxy Service at), e.g. --app-proxy-host app-proxy.example.com",
        ));
        return None;
    };
    let host = route.exact_hostname().map(str::to_string);
    // No names at all is said by `hostnames`; only wildcards, here.
    if host.is_none() && !route.hostnames.is_empty() {
        r.problems.push(Problem::new(
            "AppProxy.HttpRoute.Hostnames",
            None,
            "has no exact host name (only wildcards): the platform needs one address to reach the app-proxy at",
            "list the app-proxy's own host name first, or give AppProxy.Ingress.Host",
        ));
    }
    host
}

/// The one path prefix the app-proxy serves under (`API_PATH_PREFIX`),
/// which the Ingress and the HTTPRoute both route: either key gives it,
/// and two different ones are refused.
pub(super) fn path_prefix(r: &mut Reader, exposure: &Exposure) -> String {
    let route = exposure.route_path_prefix.clone();
    let prefix = r
        .text("AppProxy.Ingress.PathPrefix")
        .or_else(|| route.clone())
        .unwrap_or_else(|| "/".into());
    if let Some(route) = route.filter(|p| *p != prefix) {
        r.problems.push(Problem::new(
            "AppProxy.HttpRoute.PathPrefix",
            Some(&Value::String(route)),
            "differs from AppProxy.Ingress.PathPrefix: the app-proxy serves one path prefix",
            "give the prefix once (either key), e.g. /app-proxy",
        ));
    }
    prefix
}

fn parent_refs(r: &mut Reader) -> Vec<Value> {
    let key = "AppProxy.HttpRoute.ParentRefs";
    let items = match r.raw_value(key).cloned() {
        Some(Value::Array(items)) if !items.is_empty() => items,
        other => {
            r.problems.push(Problem::new(
                key,
                other.as_ref().filter(|v| !v.is_null()),
                "must list the Gateway(s) the HTTPRoute attaches to",
                "e.g. `ParentRefs: [{name: public, namespace: gateways}]` (kubectl get gateways -A)",
            ));
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = format!("{key}[{i}]");
        let Some(map) = item.as_object() else {
            r.problems.push(Problem::new(
                &at,
                Some(item),
                "is not a Gateway reference",
                "write a map with at least `name`, e.g. `{name: public, namespace: gateways}`",
            ));
            continue;
        };
        if parent_ref_ok(r, &at, map) {
            out.push(item.clone());
        }
    }
    out
}

/// Checks one reference field by field, as the API server would: the
/// problem names the field, where the server would only say "invalid".
fn parent_ref_ok(r: &mut Reader, at: &str, map: &Map<String, Value>) -> bool {
    let before = r.problems.len();
    let mut bad = |field: &str, value: Option<&Value>, why: &str, fix: &str| {
        r.problems
            .push(Problem::new(&format!("{at}.{field}"), value, why, fix));
    };
    for field in map.keys() {
        if !PARENT_REF_FIELDS.contains(&field.as_str()) {
            bad(
                field,
                None,
                "is not a field of a Gateway reference",
                "use name, namespace, sectionName, port, group or kind (a ParentReference of the Gateway API)",
            );
        }
    }
    let text = |field: &str| map.get(field).and_then(Value::as_str);
    match text("name") {
        Some(name) if is_dns_subdomain(name) => {}
        _ => bad(
            "name",
            map.get("name"),
            "is not a Gateway's name",
            "give the Gateway's name as `kubectl get gateways -A` shows it",
        ),
    }
    if let Some(v) = map.get("namespace") {
        if !text("namespace").is_some_and(is_dns_label) {
            bad(
                "namespace",
                Some(v),
                "is not a namespace name",
                "give the Gateway's namespace, e.g. gateways",
            );
        }
    }
    if let Some(v) = map.get("sectionName") {
        if !text("sectionName").is_some_and(is_dns_subdomain) {
            bad(
                "sectionName",
                Some(v),
                "is not a listener name",
                "give the name of one of the Gateway's listeners, e.g. https",
            );
        }
    }
    if let Some(v) = map.get("port") {
        if !v.as_i64().is_some_and(|p| (1..=65535).contains(&p)) {
            bad(
                "port",
                Some(v),
                "is not a port number",
                "give the listener's port, 1 to 65535, e.g. 443",
            );
        }
    }
    for field in ["group", "kind"] {
        if let Some(v) = map.get(field) {
            if !v.is_string() {
                bad(
                    field,
                    Some(v),
                    "is not text",
                    "leave it out for a Gateway (its default), or write the group or kind as text",
                );
            }
        }
    }
    r.problems.len() == before
}

fn hostnames(r: &mut Reader) -> Vec<String> {
    let key = "AppProxy.HttpRoute.Hostnames";
    let names = r.text_list(key);
    if names.is_empty() {
        r.problems.push(Problem::new(
            key,
            None,
            "must list the host name(s) the HTTPRoute serves",
            "give the app-proxy's host name, e.g. `Hostnames: [app-proxy.example.com]`",
        ));
        return names;
    }
    for name in &names {
        let bare = name.strip_prefix("*.").unwrap_or(name);
        if !is_dns_subdomain(bare) || !bare.contains('.') {
            r.problems.push(Problem::new(
                key,
                Some(&Value::String(name.clone())),
                "holds a name that is not a DNS host name (no scheme, no port, no path)",
                "write just the host, e.g. app-proxy.example.com",
            ));
        }
    }
    names
}

fn labels(r: &mut Reader) -> BTreeMap<String, String> {
    let key = "AppProxy.HttpRoute.Labels";
    let labels = r.annotation_map(key);
    for (name, value) in &labels {
        if let Err(why) = check_label_value(value) {
            r.problems.push(Problem::new(
                &format!("{key}.{name}"),
                Some(&Value::String(value.clone())),
                format!("is not a valid label value: {why}"),
                "quote a short word, e.g. `team: ci`; put longer text in Annotations",
            ));
        }
    }
    labels
}

/// The JSON Schema of `AppProxy.HttpRoute.ParentRefs`.
pub fn parent_refs_schema() -> Value {
    serde_json::json!({
        "type": ["array", "null"],
        "minItems": 1,
        "items": {
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string"},
                "namespace": {"type": "string"},
                "sectionName": {"type": "string"},
                "port": {"type": "integer", "minimum": 1, "maximum": 65535},
                "group": {"type": "string"},
                "kind": {"type": "string"},
            },
            "additionalProperties": false,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(values: Value) -> (Exposure, Vec<String>) {
        let mut r = Reader::new(&values);
        let e = resolve(&mut r, true);
        (e, r.problems.into_iter().map(|p| p.key).collect())
    }

    #[test]
    fn parent_refs_alone_turn_the_route_on_and_keep_the_ingress() {
        let (e, problems) = read(json!({"AppProxy": {"HttpRoute": {
            "ParentRefs": [{"name": "public", "namespace": "gateways", "sectionName": "https", "port": 443}],
            "Hostnames": ["*.example.com", "app-proxy.example.com"],
            "Labels": {"team": "ci"}}}}));
        assert!(problems.is_empty(), "{problems:?}");
        assert!(e.ingress);
        let route = e.http_route.expect("the route is on");
        assert_eq!(route.exact_hostname(), Some("app-proxy.example.com"));
        assert_eq!(route.parent_refs[0]["port"], 443);
    }

    #[test]
    fn each_mistake_names_its_key() {
        let (_, problems) = read(
            json!({"AppProxy": {"Ingress": {"Enabled": false}, "HttpRoute": {
            "Enabled": true,
            "ParentRefs": [{"nmae": "public"}, {"name": "public", "namespace": "Gateways", "port": 0}],
            "Hostnames": ["https://app-proxy.example.com"],
            "Labels": {"team": "two words"}}}}),
        );
        assert_eq!(
            problems,
            [
                "AppProxy.HttpRoute.ParentRefs[0].nmae",
                "AppProxy.HttpRoute.ParentRefs[0].name",
                "AppProxy.HttpRoute.ParentRefs[1].namespace",
                "AppProxy.HttpRoute.ParentRefs[1].port",
                "AppProxy.HttpRoute.Hostnames",
                "AppProxy.HttpRoute.Labels.team",
            ]
        );
    }

    #[test]
    fn a_wildcard_only_route_or_two_prefixes_are_refused_by_their_keys() {
        let input = crate::values::Input {
            files: vec![crate::values::ValuesFile {
                origin: "test".into(),
                text: "AppProxy:\n  Ingress: {Enabled: false, PathPrefix: /a}\n  HttpRoute:\n    \
                       ParentRefs: [{name: gw}]\n    Hostnames: ['*.example.com']\n    PathPrefix: /b\n"
                    .into(),
            }],
            ..Default::default()
        };
        let problems = crate::values::load(&input).expect_err("refused").0;
        let keys: Vec<&str> = problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "AppProxy.HttpRoute.Hostnames",
                "AppProxy.HttpRoute.PathPrefix"
            ]
        );
    }

    #[test]
    fn an_enabled_route_needs_parents_and_hostnames() {
        let (_, problems) = read(json!({"AppProxy": {"HttpRoute": {"Enabled": true}}}));
        assert_eq!(
            problems,
            [
                "AppProxy.HttpRoute.ParentRefs",
                "AppProxy.HttpRoute.Hostnames"
            ]
        );
    }
}
