//! `cf-runner test-pipeline`: creates (or updates) the demo pipeline
//! `Runner/CF_Runner_Demo` on a runtime environment and runs it, printing
//! the build's link. The runtime is `--runtime-name`, else the one the
//! installation in the kube context (and `--kube-namespace`) recorded.

use crate::app::commands::flags;
use crate::app::identity::register;
use crate::app::installation::{pick_installation, read_installation};
use crate::app::session::connect::{connect_flags, runtime};
use crate::app::session::outcome::{Doing, Outcome};
use crate::cli::TestPipelineArgs;
use crate::output;
use crate::platform;
use crate::values::Problem;

/// Runs `test-pipeline`.
pub fn run(args: &TestPipelineArgs) -> Outcome {
    runtime().block_on(test_pipeline(args)).into()
}

async fn test_pipeline(args: &TestPipelineArgs) -> Result<(), Outcome> {
    let (runtime, host) = match &args.runtime_name {
        Some(name) => (name.clone(), None),
        None => recorded_runtime(args).await?,
    };
    let named = host.as_deref().map(|url| platform::auth::NamedUrl {
        url,
        origin: register::RECORDED_HOST,
    });
    let auth = register::resolve(&flags::platform(&args.platform), named)
        .doing("finding the Codefresh API token")?
        .ok_or_else(|| register::token_needed("test-pipeline", "run a pipeline", ""))?;
    let client = register::client(&auth, &flags::platform(&args.platform))?;
    let result = async {
        let name = client.ensure_demo_pipeline(&runtime).await?;
        let build = client.run_pipeline(&name, &runtime).await?;
        Ok::<_, platform::PlatformError>((name, build))
    }
    .await;
    let (name, build) = result.map_err(|e| {
        let hint = e.hint();
        Outcome::failed(
            anyhow::Error::new(e).context("running the demo pipeline failed"),
            hint,
        )
    })?;
    output::done(&format!("{name} started on runtime environment {runtime}"));
    output::say(&format!(
        "Build: {}/build/{}",
        client.url(),
        platform::segment(&build)
    ));
    Ok(())
}

/// The runtime environment the installation in the kube context recorded,
/// and its platform host.
async fn recorded_runtime(args: &TestPipelineArgs) -> Result<(String, Option<String>), Outcome> {
    let cluster = connect_flags(&flags::kube(&args.kube)).await?;
    let Some(namespace) =
        pick_installation(&cluster, &flags::kube(&args.kube), "test-pipeline").await?
    else {
        return Err(Problem::new(
            "--runtime-name",
            None,
            format!(
                "is needed: no Codefresh Runner is installed in context {}",
                cluster.context
            ),
            "pass --runtime-name with the runtime environment to run the demo pipeline on",
        )
        .into());
    };
    let inst = read_installation(&cluster, &namespace)
        .await
        .doing("reading the installation failed")?;
    let host = inst.values.as_ref().map(|v| v.codefresh_host.clone());
    match inst.record.and_then(|r| r.runtime_name) {
        Some(name) => Ok((name, host)),
        None => Err(Problem::new(
            "--runtime-name",
            None,
            format!(
                "is needed: the installation in namespace {namespace} records no runtime environment"
            ),
            "pass --runtime-name",
        )
        .into()),
    }
}
