//! Unit tests of security contexts: what a user writes replaces the
//! default, a field Kubernetes does not have names its key, and rootless and
//! OpenShift change the defaults as the chart's recipes do.

use super::*;
use serde_json::json;

fn read(values: Value) -> (Security, Vec<Problem>) {
    let mut r = Reader::new(&values);
    let s = resolve(&mut r);
    (s, r.problems)
}

#[test]
fn the_defaults_are_what_cf_runner_rendered_before() {
    let (s, problems) = read(json!({}));
    assert!(problems.is_empty());
    let runner = s.contexts(Pods::Runner, false);
    assert_eq!(runner.pod["runAsUser"], 10001);
    assert_eq!(runner.pod["fsGroup"], 10001);
    assert_eq!(runner.container["allowPrivilegeEscalation"], false);
    assert!(s.contexts(Pods::Dind, false).pod.is_empty());
    assert_eq!(s.changed(Pods::Runner, false), (false, false));
}

#[test]
fn a_given_context_replaces_the_default_and_an_empty_one_renders_none() {
    let (s, problems) = read(json!({
        "Runner": {"SecurityContext": {"runAsUser": 2000, "runAsNonRoot": true}},
        "Monitor": {"SecurityContext": {}},
        "Runtime": {"Dind": {"ContainerSecurityContext": {"privileged": true}}}}));
    assert!(problems.is_empty(), "{problems:?}");
    let runner = s.contexts(Pods::Runner, false);
    assert_eq!(runner.pod.get("runAsUser"), Some(&json!(2000)));
    assert_eq!(runner.pod.get("fsGroup"), None, "replaced, not merged");
    assert!(s.contexts(Pods::Monitor, false).pod.is_empty());
    assert_eq!(
        s.contexts(Pods::Dind, false).container["privileged"],
        json!(true)
    );
    assert_eq!(s.changed(Pods::Runner, false), (true, false));
}

#[test]
fn an_unknown_field_a_quoted_user_and_a_list_name_their_key() {
    let (s, problems) = read(json!({
        "Runner": {"SecurityContext": {"runAsUsr": 1000}},
        "AppProxy": {"ContainerSecurityContext": {"runAsUser": "1000"}},
        "Storage": {"VolumeProvisioner": {"SecurityContext": ["runAsNonRoot"]}}}));
    let keys: Vec<&str> = problems.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(
        keys,
        [
            "Runner.SecurityContext.runAsUsr",
            "Storage.VolumeProvisioner.SecurityContext",
            "AppProxy.ContainerSecurityContext.runAsUser",
        ]
    );
    assert!(problems[0].fix.contains("runAsUser"), "{}", problems[0].fix);
    assert!(
        problems[2].fix.contains("whole number"),
        "{}",
        problems[2].fix
    );
    // A refused context falls back to the default, never half of it.
    assert_eq!(s.contexts(Pods::Runner, false).pod["runAsUser"], 10001);
}

#[test]
fn a_pod_field_in_a_container_context_is_refused() {
    let (_, problems) =
        read(json!({"Runtime": {"Dind": {"ContainerSecurityContext": {"fsGroup": 1000}}}}));
    assert_eq!(problems.len(), 1);
    assert_eq!(
        problems[0].key,
        "Runtime.Dind.ContainerSecurityContext.fsGroup"
    );
}

#[test]
fn rootless_runs_dind_and_the_lv_monitor_as_user_1000() {
    let (s, _) = read(json!({"Runtime": {"Dind": {"Rootless": true}}}));
    assert!(s.rootless);
    let dind = s.contexts(Pods::Dind, false);
    assert_eq!(
        dind.container,
        as_map(json!({"privileged": true, "runAsUser": 1000}))
    );
    assert_eq!(dind.pod["fsGroupChangePolicy"], "OnRootMismatch");
    let lv = s.contexts(Pods::LvMonitor, false);
    assert_eq!(lv.container["runAsUser"], 1000);
    assert_eq!(lv.pod["fsGroup"], 1000);
    assert_eq!(s.changed(Pods::LvMonitor, false), (true, true));
    assert_eq!(s.changed(Pods::Runner, false), (false, false));
}

#[test]
fn openshift_fixes_no_ids_and_makes_the_lv_monitor_privileged() {
    let (s, _) = read(json!({}));
    assert!(s.contexts(Pods::Runner, true).pod.is_empty());
    assert!(s.contexts(Pods::Provisioner, true).pod.is_empty());
    assert_eq!(
        s.contexts(Pods::Monitor, true).pod,
        as_map(json!({"runAsNonRoot": true}))
    );
    let lv = s.contexts(Pods::LvMonitor, true);
    assert_eq!(lv.container, as_map(json!({"privileged": true})));
    // The user's word still wins.
    let (s, _) = read(json!({"Runner": {"SecurityContext": {"runAsNonRoot": true}}}));
    assert_eq!(s.contexts(Pods::Runner, true).pod.len(), 1);
}
