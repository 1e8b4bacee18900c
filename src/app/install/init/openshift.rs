//! `OpenShift: auto` decided at `init`: the cluster it installs in is asked
//! whether it serves `security.openshift.io` (one `GET /apis`, within a few
//! seconds). The answer is recorded as `OpenShift: true` in the values the
//! install stores, so `upgrade`, `diff` and `adopt` render the same
//! without asking again, and a dry run renders what the install would.

use std::time::Duration;

use serde_json::Value;

use crate::app::session::connect;
use crate::cluster;
use crate::cluster::preflight::openshift::serves_scc;
use crate::output;
use crate::values::openshift::{OpenShift, SCC_GROUP};
use crate::values::{Input, Loaded, Values};

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

/// `values` with `auto` decided by the cluster `client` reaches, for a
/// command already connected (`check`); the rest is unchanged.
pub(crate) async fn decided_with(values: &Values, client: &kube::Client) -> Values {
    let mut values = values.clone();
    if values.openshift == OpenShift::Auto && serves_scc(client).await == Ok(true) {
        values.openshift = OpenShift::On;
    }
    values
}
