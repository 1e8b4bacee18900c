//! `cf-runner renew certificate|agent-token`: what the platform issued at
//! install time, issued again and rolled out. The certificate is signed
//! through the platform as `init` has it signed, and written as `upgrade`
//! renders it (`identity::certificate`). Works on an install whose certificate
//! already expired: the old one is never a precondition. The agent token
//! comes with a new agent that takes over the old one's runtimes
//! (`identity::agent_token`).

use crate::app::commands::flags;
use crate::app::identity::{agent_token, register};
use crate::app::installation::pick_installation;
use crate::app::session::connect::{connect_flags, runtime};
use crate::app::session::lock::{self, LockWait};
use crate::app::session::outcome::{Doing, Outcome};
use crate::cli::{RenewArgs, Renewable};
use crate::cluster::{inventory, Cluster};
use crate::platform::{self, Platform};

/// Runs `renew`.
pub fn run(args: &RenewArgs) -> Outcome {
    runtime().block_on(async {
        match renew(args).await {
            Ok(()) => Outcome::Ok,
            Err(outcome) => outcome,
        }
    })
}

async fn renew(args: &RenewArgs) -> Result<(), Outcome> {
    let cluster = connect_flags(&flags::kube(&args.kube)).await?;
    let Some(namespace) = pick_installation(&cluster, &flags::kube(&args.kube), "renew").await?
    else {
        return Err(Outcome::Failed(
            anyhow::anyhow!(
                "no Codefresh Runner is installed in context {}",
                cluster.context
            ),
            Some("install one with `cf-runner init`".into()),
        ));
    };
    let client = platform_for(args, &cluster, &namespace).await?;
    let how = LockWait::of(args.no_wait_for_lock, args.timeout);
    let held = lock::take(&cluster, &namespace, "renew", how, None).await?;
    let done = match args.what {
        Renewable::Certificate => {
            crate::app::identity::certificate_renewal::renew(&cluster, &namespace, &client).await
        }
        Renewable::AgentToken => {
            agent_token::rotate(&cluster, &namespace, &client, args.timeout).await
        }
    };
    lock::release(held, &namespace).await;
    done
}

/// The platform that signs, from the token the user gave and the host the
/// installation records. An install never registered (`--agent-token`
/// only) has nothing the platform issued to renew.
async fn platform_for(
    args: &RenewArgs,
    cluster: &Cluster,
    namespace: &str,
) -> Result<Platform, Outcome> {
    let record = inventory::record(&cluster.client, namespace)
        .await
        .doing(&format!(
            "reading the installation record in namespace {namespace} failed"
        ))?;
    let Some(record) = record else {
        return Err(Outcome::Failed(
            anyhow::anyhow!("namespace {namespace} holds no cf-runner installation record"),
            Some("re-run `cf-runner init` to finish the install".into()),
        ));
    };
    if record.registered == Some(false) {
        return Err(Outcome::Failed(
            anyhow::anyhow!(
                "the install in namespace {namespace} was never registered on the platform (--agent-token only): {}",
                match args.what {
                    Renewable::Certificate => "its dind certificate is a placeholder the platform never signed",
                    Renewable::AgentToken => "its agent token was given, not issued to it, so cf-runner cannot replace it",
                }
            ),
            Some("register it with `cf-runner init --token <API key>`".into()),
        ));
    }
    let host = crate::app::installation::record::recorded_host(&record);
    let auth = register::resolve(
        &flags::platform(&args.platform),
        host.as_deref().map(|url| platform::auth::NamedUrl {
            url,
            origin: register::RECORDED_HOST,
        }),
    )
    .doing("finding the Codefresh API token")?;
    let Some(auth) = auth else {
        let (command, why) = match args.what {
            Renewable::Certificate => (
                "renew certificate",
                "have the platform sign a new dind certificate",
            ),
            Renewable::AgentToken => (
                "renew agent-token",
                "have the platform create the agent that replaces the old one",
            ),
        };
        return Err(register::token_needed(command, why, ""));
    };
    register::client(&auth, &flags::platform(&args.platform))
}
