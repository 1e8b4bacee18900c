//! `cf-runner test-pipeline`: creates (or updates) the demo pipeline
//! `Runner/CF_Runner_Demo` on a runtime environment and runs it, printing
//! the build's link. The runtime is `--runtime-name`, else the one the
//! installation in the kube context (and `--kube-namespace`) recorded.

use super::steps::installation::{pick_installation, read_installation};
use super::steps::register;
use super::steps::session::{connect_flags, failed, runtime};
use super::Outcome;
use crate::cli::TestPipelineArgs;
use crate::output;
use crate::platform;

/// Runs `test-pipeline`.
pub fn run(args: &TestPipelineArgs) -> Outcome {
    runtime().block_on(async {
        let (runtime, host) = match &args.runtime_name {
            Some(name) => (name.clone(), None),
            None => {
                let cluster = match connect_flags(&args.kube).await {
                    Ok(c) => c,
                    Err(outcome) => return outcome,
                };
                let namespace = match pick_installation(&cluster, &args.kube, "test-pipeline").await {
                    Ok(Some(ns)) => ns,
                    Ok(None) => {
                        return Outcome::BadInput(crate::values::Problems(vec![crate::values::Problem::new(
                            "--runtime-name",
                            None,
                            format!("is needed: no Codefresh Runner is installed in context {}", cluster.context),
                            "pass --runtime-name with the runtime environment to run the demo pipeline on",
                        )]))
                    }
                    Err(outcome) => return outcome,
                };
                let inst = match read_installation(&cluster, &namespace).await {
                    Ok(i) => i,
                    Err(e) => return failed(e, "reading the installation failed"),
                };
                let host = inst.values.as_ref().map(|v| v.codefresh_host.clone());
                match inst.record.and_then(|r| r.runtime_name) {
                    Some(name) => (name, host),
                    None => {
                        return Outcome::BadInput(crate::values::Problems(vec![crate::values::Problem::new(
                            "--runtime-name",
                            None,
                            format!("is needed: the installation in namespace {namespace} records no runtime environment"),
                            "pass --runtime-name",
                        )]))
                    }
                }
            }
        };
        let auth = match register::resolve(
        &args.platform,
        host.as_deref().map(|url| crate::platform::auth::NamedUrl {
            url,
            origin: register::RECORDED_HOST,
        }),
    ) {
            Ok(Some(a)) => a,
            Ok(None) => return register::token_needed("test-pipeline", "run a pipeline", ""),
            Err(e) => return register::failed(e, "finding the Codefresh API token"),
        };
        let client = match register::client(&auth, &args.platform) {
            Ok(c) => c,
            Err(o) => return o,
        };
        let result = async {
            let name = client.ensure_demo_pipeline(&runtime).await?;
            let build = client.run_pipeline(&name, &runtime).await?;
            Ok::<_, platform::PlatformError>((name, build))
        }
        .await;
        match result {
            Ok((name, build)) => {
                output::done(&format!("{name} started on runtime environment {runtime}"));
                output::say(&format!("Build: {}/build/{}", client.url(), platform::segment(&build)));
                Outcome::Ok
            }
            Err(e) => {
                let hint = e.hint();
                Outcome::Failed(anyhow::Error::new(e).context("running the demo pipeline failed"), hint)
            }
        }
    })
}
