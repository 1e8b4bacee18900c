//! `init` into a cluster: the order of every step of an install.
//!
//! With a Codefresh API token: validate it → connect → preflight → agent →
//! dind key and CSR, signed by the platform → runtime environment → apply
//! → attach the runtime to the agent → runtime spec → default → cluster
//! integration → demo pipeline → wait. Each step first looks at what an
//! earlier run left (in the cluster and on the platform) and reuses it, so a
//! failed install re-runs to completion without creating anything twice and
//! without a local state file.
//!
//! With only `--agent-token` (no API token anywhere): offline, the platform
//! is not contacted, and the run says so.

use crate::app::identity::register;
use crate::app::install::steps::{
    connect_and_announce, namespace_manifest, render_or_fail, wait_for_install,
};
use crate::app::installation::identity;
use crate::app::session::connect::{connect, install_runtime, runtime};
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster::lock::NamespaceSeen;
use crate::output;
use crate::platform::{self, Auth, Need, Transport};
use crate::render::Identity;
use crate::values::{self, Problem, Problems};

pub(crate) use crate::app::install::steps::{needs, Options};
pub(crate) use crate::app::session::lock::LockWait;

/// Whether the install registers on the platform, and with which token.
#[derive(Debug)]
pub(crate) enum Registration {
    /// With a Codefresh API token: everything is registered.
    Platform(Auth),
    /// Only `--agent-token`: the platform is not contacted.
    Offline,
}

/// Where the platform token for `init` may come from, besides `CF_API_KEY`
/// and the cfconfig.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TokenPlaces<'a> {
    /// True when `--token` was given (its value is the values' `Token`).
    pub flag_given: bool,
    /// `--url` as the command line gave it.
    pub cli_url: Option<&'a str>,
    /// `CodefreshHost` when a values file or `--set-value` set it: the
    /// token goes there only when it is the token's own platform.
    pub values_url: Option<&'a str>,
}

/// Resolves the platform token the way an install does; no token is bad
/// input, unless an agent token allows an offline install.
pub(crate) fn registration(
    places: TokenPlaces<'_>,
    values: &values::Values,
) -> Result<Registration, Outcome> {
    let (flag, in_values) = if places.flag_given {
        (values.token.as_ref(), None)
    } else {
        (None, values.token.as_ref())
    };
    let found = register::find_token(register::TokenFrom {
        flag,
        values: in_values,
        cli_url: places.cli_url,
        named: places.values_url.map(|url| platform::auth::NamedUrl {
            url,
            origin: "CodefreshHost in the values",
        }),
    })
    .doing("finding the Codefresh API token")?;
    match found {
        Some(auth) => Ok(Registration::Platform(auth)),
        None if values.agent_token.is_some() => Ok(Registration::Offline),
        None => Err(Outcome::BadInput(Problems(vec![Problem::new(
            "Token",
            None,
            format!(
                "is required to register the runner on the Codefresh platform (none in --token, CF_API_KEY or {})",
                platform::auth::cfconfig_path().display()
            ),
            format!(
                "pass --token with an API key that has the scopes {}, or set CF_API_KEY",
                Need::describe(&needs(values))
            ),
        )]))),
    }
}

/// Runs the install.
pub(crate) fn run(
    options: &Options,
    registration: &Registration,
    loaded: &values::Loaded,
) -> Outcome {
    let connect = async || connect(&loaded.values).await;
    install_runtime().block_on(async {
        match registration {
            Registration::Platform(auth) => with_platform(options, loaded, auth, connect).await,
            Registration::Offline => offline(options, loaded, connect).await,
        }
    })
}

/// For `--generate-helm-values-file` without `--dry-run`: the account id and
/// free agent and runtime names, from the platform (nothing is created).
pub(crate) fn helm_identity(
    registration: &Registration,
    transport: Transport,
    values: &values::Values,
    mut identity: Identity,
) -> Result<Identity, Outcome> {
    let Registration::Platform(auth) = registration else {
        return Err(Outcome::BadInput(Problems(vec![Problem::new(
            "Token",
            None,
            "is required to fill the Helm values from the platform",
            "pass --token or set CF_API_KEY, or add --dry-run to leave the account id for you to fill",
        )])));
    };
    runtime().block_on(async {
        let (platform, who) = register::checked_client(auth, transport, None).await?;
        identity.account_id = who.account_id;
        let wanted = identity.agent_name(values);
        if let Some(name) = free_agent_name(&platform, &wanted, "looking up agent names").await? {
            identity.agent_name = Some(name);
        }
        // The candidates are cut to the platform's limit.
        let wanted = identity.runtime_name(values);
        for name in candidates(&wanted) {
            let existing = platform
                .runtime(&name)
                .await
                .doing("looking up runtime environment names")?;
            if existing.is_none() {
                identity.runtime_name = Some(name);
                break;
            }
        }
        Ok(identity)
    })
}

async fn offline<C: Target>(
    options: &Options,
    loaded: &values::Loaded,
    connect: impl AsyncFnOnce() -> Result<C, Outcome>,
) -> Outcome {
    match offline_steps(options, loaded, connect).await {
        Ok(()) => Outcome::Ok,
        Err(outcome) => outcome,
    }
}

async fn offline_steps<C: Target>(
    options: &Options,
    loaded: &values::Loaded,
    connect: impl AsyncFnOnce() -> Result<C, Outcome>,
) -> Result<(), Outcome> {
    let values = &loaded.values;
    let cluster = connect_and_announce(connect, values).await?;
    output::warn(
        "offline mode (no Codefresh API token, only --agent-token): the platform is not contacted; \
         the dind TLS Secret holds placeholders and the runtime environment is not registered",
    );
    output::warn(&format!(
        "the agent name {} and runtime environment name {} were NOT verified: without an API key cf-runner \
         cannot check that --agent-token belongs to that agent, nor that the runtime is attached to it \
         (pass --token to verify)",
        values.agent_name.clone().unwrap_or_else(|| format!("{}_{}", cluster.context(), values.namespace)),
        values.runtime_name.clone().unwrap_or_else(|| format!("{}/{}", cluster.context(), values.namespace)),
    ));
    let identity = identity::seed(values, Some(cluster.context().to_string()));
    let rendered = render_or_fail(values, &identity, &loaded.redacted_tree)?;
    cluster.require_served(&rendered).await?;
    // Without the preflight, the apply is the first write, and it reads
    // every object it would write before it (`cluster::ownership`).
    let seen = if values.skip_cluster_test {
        NamespaceSeen::Unknown
    } else {
        cluster.preflight(&rendered, &values.namespace).await?
    };
    let lock = cluster
        .lock(
            &values.namespace,
            namespace_manifest(&rendered),
            options.lock_wait,
            seen,
        )
        .await?;
    let applied = cluster
        .apply(
            &rendered.manifests,
            &values.namespace,
            options.force_conflicts,
        )
        .await;
    let outcome = match applied {
        Ok(()) => wait_for_install(&cluster, &rendered.manifests, &values.namespace, options).await,
        Err(o) => Err(o),
    };
    cluster.unlock(lock, &values.namespace).await;
    outcome
}

pub(crate) mod check;
pub(crate) mod delete;
pub(crate) mod init;
pub(crate) mod probe;
mod registered;
pub(crate) mod seams;
pub(crate) mod steps;
pub(crate) mod upgrade;

use crate::app::identity::agent::{candidates, free_agent_name};
use registered::with_platform;
use seams::Target;

#[cfg(test)]
mod tests;
