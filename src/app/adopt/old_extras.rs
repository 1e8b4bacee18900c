//! What a chart install says about how the app-proxy is reached and about
//! warm capacity, as cf-runner values: its HTTPRoute
//! (`appProxy.httpRoute`, chart 10.4.0), whether it has an Ingress
//! (`appProxy.ingress.enabled`), and its ballast Deployments
//! (`ballast.dind`, `ballast.engine`). Read from the objects, as the rest
//! of an old install is: the release's values are not trusted to match.

use serde_json::{json, Map, Value};

use crate::app::adopt::objects::{kind, label, name};

/// The labels the chart puts on every object, which cf-runner puts its own
/// in place of: not carried as the user's route labels.
const CHART_LABEL_PREFIXES: &[&str] = &["app.kubernetes.io/", "helm.sh/", "codefresh.io/"];

/// Annotations Helm and kubectl write: not the user's.
const TOOL_ANNOTATION_PREFIXES: &[&str] = &["meta.helm.sh/", "kubectl.kubernetes.io/"];

/// Adds `AppProxy.HttpRoute` and `AppProxy.Ingress.Enabled` when the
/// app-proxy is exposed other than by one Ingress. `has_ingress`: the old
/// install has an Ingress of its own.
pub(super) fn app_proxy_exposure(mine: &[&Value], has_ingress: bool, v: &mut Value) {
    let route = mine.iter().find(|o| kind(o) == "HTTPRoute");
    if !has_ingress {
        v["AppProxy"]["Ingress"]["Enabled"] = json!(false);
    }
    let Some(route) = route else { return };
    let spec = &route["spec"];
    let mut out = Map::new();
    out.insert("Enabled".into(), json!(true));
    out.insert("ParentRefs".into(), spec["parentRefs"].clone());
    out.insert("Hostnames".into(), spec["hostnames"].clone());
    if let Some(prefix) = spec
        .pointer("/rules/0/matches/0/path/value")
        .and_then(Value::as_str)
        .filter(|p| *p != "/")
    {
        // The chart's app-proxy takes its prefix from the Ingress; with
        // the route alone, the route's is the one it serves under.
        if v["AppProxy"]["Ingress"]["PathPrefix"].is_null() {
            out.insert("PathPrefix".into(), json!(prefix));
        }
    }
    let users = |field: &str, skip: &[&str]| -> Map<String, Value> {
        route["metadata"][field]
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(k, _)| !skip.iter().any(|p| k.starts_with(p)))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    let labels = users("labels", CHART_LABEL_PREFIXES);
    if !labels.is_empty() {
        out.insert("Labels".into(), Value::Object(labels));
    }
    let annotations = users("annotations", TOOL_ANNOTATION_PREFIXES);
    if !annotations.is_empty() {
        out.insert("Annotations".into(), Value::Object(annotations));
    }
    v["AppProxy"]["HttpRoute"] = Value::Object(out);
}

/// Adds `Runtime.Ballast.Dind` / `.Engine` for each ballast Deployment of
/// the chart (`<dind|engine>-ballast`): its replicas, and the resources its
/// placeholder holds (carried as they are, so the room kept stays the same).
pub(super) fn ballast(mine: &[&Value], v: &mut Value) {
    for (component, key) in [("dind", "Dind"), ("engine", "Engine")] {
        let Some(d) = mine.iter().find(|o| {
            kind(o) == "Deployment"
                && label(o, "codefresh.io/application") == Some("ballast")
                && (label(o, "app.kubernetes.io/component") == Some(component)
                    || name(o) == format!("{component}-ballast"))
        }) else {
            continue;
        };
        let mut out = json!({"Enabled": true});
        if let Some(n) = d["spec"]["replicas"].as_i64() {
            out["Replicas"] = json!(n);
        }
        let pod = &d["spec"]["template"];
        let resources = &pod["spec"]["containers"][0]["resources"];
        if resources.as_object().is_some_and(|r| !r.is_empty()) {
            out["resources"] = resources.clone();
        }
        if let Some(a) = pod["metadata"]["annotations"]
            .as_object()
            .filter(|a| !a.is_empty())
        {
            out["PodAnnotations"] = Value::Object(a.clone());
        }
        v["Runtime"]["Ballast"][key] = out;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chart 10.5.2 install with the route on, the Ingress off and warm
    /// capacity for dind, as `helm template` renders those objects.
    fn chart_objects() -> Vec<Value> {
        vec![
            json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
                   "metadata": {"name": "cf-runtime-app-proxy",
                                "labels": {"app.kubernetes.io/name": "cf-runtime", "team": "ci"},
                                "annotations": {"meta.helm.sh/release-name": "cf-runtime", "example.com/owner": "ci"}},
                   "spec": {"parentRefs": [{"name": "public", "namespace": "gateways"}],
                            "hostnames": ["app-proxy.example.com"],
                            "rules": [{"matches": [{"path": {"type": "PathPrefix", "value": "/app-proxy"}}],
                                       "backendRefs": [{"name": "cf-runtime-app-proxy", "port": 80}]}]}}),
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
                   "metadata": {"name": "dind-ballast",
                                "labels": {"codefresh.io/application": "ballast", "app.kubernetes.io/component": "dind"}},
                   "spec": {"replicas": 2, "template": {"metadata": {}, "spec": {"containers": [
                       {"name": "pause", "resources": {"limits": {"cpu": "400m", "memory": "800Mi"}}}]}}}}),
        ]
    }

    #[test]
    fn a_chart_route_without_an_ingress_and_its_ballast_are_carried() {
        let objects = chart_objects();
        let mine: Vec<&Value> = objects.iter().collect();
        let mut v = json!({"AppProxy": {"Enabled": true}});
        app_proxy_exposure(&mine, false, &mut v);
        ballast(&mine, &mut v);
        let route = &v["AppProxy"]["HttpRoute"];
        assert_eq!(v["AppProxy"]["Ingress"]["Enabled"], false);
        assert_eq!(route["Hostnames"], json!(["app-proxy.example.com"]));
        assert_eq!(route["ParentRefs"][0]["namespace"], "gateways");
        assert_eq!(route["PathPrefix"], "/app-proxy");
        assert_eq!(route["Labels"], json!({"team": "ci"}));
        assert_eq!(route["Annotations"], json!({"example.com/owner": "ci"}));
        let dind = &v["Runtime"]["Ballast"]["Dind"];
        assert_eq!(
            (dind["Enabled"].clone(), dind["Replicas"].clone()),
            (json!(true), json!(2))
        );
        assert_eq!(dind["resources"]["limits"]["cpu"], "400m");
        assert!(v["Runtime"]["Ballast"]["Engine"].is_null());
        // What adopt carries is a values tree cf-runner accepts.
        let text = serde_yaml_ng::to_string(&v).unwrap();
        let input = crate::values::Input {
            files: vec![crate::values::ValuesFile {
                origin: "adopted".into(),
                text,
            }],
            ..Default::default()
        };
        let loaded = crate::values::load(&input).unwrap_or_else(|p| panic!("{p}"));
        assert_eq!(
            loaded.values.app_proxy.host.as_deref(),
            Some("app-proxy.example.com")
        );
        assert!(!loaded.values.app_proxy.ingress);
        assert_eq!(loaded.values.ballast.dind.map(|d| d.replicas), Some(2));
    }
}
