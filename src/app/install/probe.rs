//! `check --probe`: tries the build path on an installed namespace
//! (`cluster::probe`) and turns the stages into check lines. Ctrl-C stops it
//! and still removes the probe's claim and pod.

use std::time::Duration;

use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster::probe::{self, ProbeSpec, Stage};
use crate::cluster::Cluster;
use crate::{output, render, values};

/// Runs the probe for the runtime spec `rendered` describes.
pub(crate) async fn run(
    cluster: &Cluster,
    rendered: &render::Rendered,
    namespace: &str,
    timeout: Duration,
    platform_url: Option<String>,
) -> Result<Vec<Stage>, Outcome> {
    let Some(mut spec) = ProbeSpec::from_runtime_spec(&rendered.runtime_environment, namespace)
    else {
        return Err(Outcome::Failed(
            anyhow::anyhow!(
                "the runtime spec names no dind image or StorageClass (a bug in cf-runner)"
            ),
            None,
        ));
    };
    spec.platform_url = platform_url;
    let on_stage = |_: &Stage| {};
    tokio::select! {
        result = probe::run(&cluster.client, &spec, timeout, &on_stage) => {
            result.doing("the probe failed to talk to the cluster")
        }
        _ = tokio::signal::ctrl_c() => {
            let _ = probe::clean_up(&cluster.client, namespace).await;
            Err(Outcome::Interrupted)
        }
    }
}

/// One check line per stage, with its time.
pub(crate) fn print_stages(stages: &[Stage]) {
    for stage in stages {
        let mark = if stage.passed {
            output::Mark::Pass
        } else {
            output::Mark::Fail
        };
        output::check_line(
            mark,
            &format!("probe: {}", stage.name),
            &format!(
                "{} (after {:.1}s)",
                stage.detail,
                stage.after_ms as f64 / 1000.0
            ),
            &[],
            stage.fix.as_deref(),
        );
    }
}

/// `init --probe`: the probe right after an install that went well.
pub(crate) fn after_install(values: &values::Values, timeout: Duration) -> Outcome {
    let probed: Result<(), Outcome> = crate::app::session::connect::runtime().block_on(async {
        let cluster = crate::app::session::connect::connect(values).await?;
        let identity =
            crate::app::installation::identity::seed(values, Some(cluster.context.clone()));
        let rendered = render::render(values, &identity, &serde_json::Value::Null)?;
        output::say("Probing the build path (a dind claim and a dind-like pod):");
        let url = Some(values.codefresh_host.clone());
        let stages = run(&cluster, &rendered, &values.namespace, timeout, url).await?;
        print_stages(&stages);
        match stages.iter().find(|s| !s.passed) {
            None => {
                output::done("the build path works: a build can get its volume, node and image");
                Ok(())
            }
            Some(stage) => Err(Outcome::failed(
                anyhow::anyhow!(
                    "the runner is installed, but a build would fail at \"{}\": {}",
                    stage.name,
                    stage.detail
                ),
                stage.fix.clone(),
            )),
        }
    });
    probed.into()
}
