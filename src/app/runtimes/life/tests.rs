//! Unit tests of `app/runtimes/life.rs`.

use super::*;
use crate::app::runtimes::attached::{attached_plan, check_agent_delete, Attached};
use crate::app::runtimes::upgrade::scheduling_keys;

#[test]
fn a_claim_s_class_is_named_alike_in_the_chart_s_map_and_cf_runner_s_list() {
    let registered = serde_json::json!({"dockerDaemonScheduler":
        {"pvcs": {"dind": {"storageClassName": "dind-local-volumes-runner-far"}}}});
    let rendered = serde_json::json!({"dockerDaemonScheduler":
        {"pvcs": [{"name": "dind", "storageClassName": "dind-local-volumes-runner-far"}]}});
    let (mut was, mut now) = (Vec::new(), Vec::new());
    scheduling_keys(&registered, "", &mut was);
    scheduling_keys(&rendered, "", &mut now);
    assert_eq!(was, now);
    assert_eq!(was[0].0, "dockerDaemonScheduler.pvcs.dind.storageClassName");
}

fn attached(name: &str, place: Result<Target, String>) -> Attached {
    Attached {
        name: name.into(),
        place,
    }
}

fn far() -> Target {
    Target {
        context: Some("build-cluster".into()),
        namespace: Some("builds".into()),
        name: Some("build-cluster/builds".into()),
        ..Target::default()
    }
}

#[test]
fn an_agent_with_runtimes_attached_is_deleted_only_with_all_runtimes() {
    let list = [attached("build-cluster/builds", Ok(far()))];
    assert!(matches!(
        check_agent_delete(&list, "codefresh", false),
        Err(Outcome::PreflightFailed)
    ));
    assert!(check_agent_delete(&list, "codefresh", true).is_ok());
    assert!(check_agent_delete(&[], "codefresh", false).is_ok());
    assert_eq!(
        list[0].describe(),
        "build-cluster/builds (namespace builds, context build-cluster)"
    );
}

#[test]
fn the_all_runtimes_plan_says_the_agent_is_not_rolled_and_what_goes() {
    let listed = [
        "a (namespace a)".to_string(),
        "b (namespace b, context c)".to_string(),
    ];
    let with = attached_plan(&listed, true);
    assert!(
        with.contains("a (namespace a), b (namespace b, context c)"),
        "{with}"
    );
    assert!(
        with.contains("its runtime environment on the platform go"),
        "{with}"
    );
    assert!(with.contains("not rolled"), "{with}");
    assert!(!with.contains("detach"), "{with}");
    let without = attached_plan(&listed, false);
    assert!(
        without.contains("the platform is left as it is"),
        "{without}"
    );
    assert!(!without.contains("runtime environment"), "{without}");
}

#[test]
fn all_runtimes_refuses_a_runtime_it_cannot_place() {
    let list = [
        attached("build-cluster/builds", Ok(far())),
        attached(
            "lost",
            Err("no kubeconfig context reaches https://x".into()),
        ),
    ];
    assert!(matches!(
        check_agent_delete(&list, "codefresh", true),
        Err(Outcome::PreflightFailed)
    ));
}
