//! `OpenShift: auto` decided at `init`: the cluster it installs in is asked
//! whether it serves `security.openshift.io` (one `GET /apis`, within a few
//! seconds). The answer is recorded as `OpenShift: true` in the values the
//! install stores, so `upgrade`, `diff` and `adopt` render the same
//! without asking again, and a dry run renders what the install would.

use std::time::Duration;

use serde_json::Value;

use crate::app::session::connect;
use crate::cluster;
use crate::cluster::preflight::openshift::{decide, serves_scc};
use crate::cluster::preflight::{names, Check};
use crate::values::openshift::{OpenShift, SCC_GROUP};
use crate::values::{Input, Loaded, Values};
use crate::{output, render};

/// How long a dry run waits for the cluster's answer.
const BUDGET: Duration = Duration::from_secs(5);

/// True when `auto` should become `true`: the values leave it to the
/// cluster and the cluster serves the SCC API. A cluster that cannot be
/// asked (no kubeconfig, one that would run a command unasked, no answer)
/// leaves it plain Kubernetes, and a note says so where a context was named.
pub(crate) fn decided_on(values: &Values) -> bool {
    if values.openshift != OpenShift::Auto {
        return false;
    }
    let options = connect::options_from_values(values);
    if connect::vet_kubeconfig(&options, "ConfigPath").is_err() {
        return false;
    }
    let known = cluster::discover::contexts(options.kubeconfig.as_ref())
        .map(|found| match &options.context {
            Some(name) => found.names.contains(name),
            None => found.current.is_some(),
        })
        .unwrap_or(false);
    if !known {
        return false;
    }
    let asked = connect::runtime().block_on(async {
        tokio::time::timeout(BUDGET, async {
            let cluster = cluster::connect(&options).await.ok()?;
            serves_scc(&cluster.client).await.ok()
        })
        .await
        .ok()
        .flatten()
    });
    match asked {
        Some(true) => {
            output::note(&format!(
                "OpenShift: the cluster serves {SCC_GROUP}; rendering for OpenShift (recorded as OpenShift: true)"
            ));
            true
        }
        Some(false) => false,
        None => {
            output::note(
                "OpenShift: auto, and the cluster did not answer: rendered for plain Kubernetes \
                 (set OpenShift: true for an OpenShift cluster)",
            );
            false
        }
    }
}

/// `loaded` again by `reload`, with `OpenShift: true` added below every
/// other override for the install to record, when `asks` and `auto` became
/// `true` ([`decided_on`]); else `loaded` as it is.
pub(crate) fn recorded<E>(
    asks: bool,
    loaded: Loaded,
    input: &mut Input,
    reload: impl FnOnce(&Input) -> Result<Loaded, E>,
) -> Result<Loaded, E> {
    if !asks || !decided_on(&loaded.values) {
        return Ok(loaded);
    }
    input
        .overrides
        .insert(0, ("OpenShift".into(), Value::Bool(true)));
    reload(input)
}

/// `check` with `OpenShift: auto`: its render is the plain one (no
/// request is spent before the preflight's first), and where the preflight
/// found the SCC API served, the `openshift` check is made again for what
/// `init` renders there.
pub(crate) fn as_init_would(loaded: &Loaded, identity: &render::Identity, checks: &mut [Check]) {
    if loaded.values.openshift != OpenShift::Auto {
        return;
    }
    // Without a binding in the render, the check shows only where the group is served.
    let Some(check) = checks.iter_mut().find(|c| c.name == names::OPENSHIFT) else {
        return;
    };
    let mut values = loaded.values.clone();
    values.openshift = OpenShift::On;
    if let Ok(rendered) = render::render(&values, identity, &loaded.redacted_tree) {
        if let Some(decided) = decide(true, &rendered.manifests) {
            *check = decided;
        }
    }
}
