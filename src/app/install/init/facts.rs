//! The wizard's read-only look at the cluster it installs in (namespaces,
//! storage classes, zones, agents, ingress classes), within a few seconds'
//! budget; a kubeconfig that would run a command is not contacted for it.

use std::path::PathBuf;

use crate::app::session::connect;
use crate::app::session::outcome::Outcome;
use crate::cluster;
use crate::values::Problems;
use crate::wizard;

/// The wizard's read-only look at the cluster of `context`.
pub(crate) fn cluster_facts(kubeconfig: Option<PathBuf>, context: &str) -> wizard::Facts {
    let options = cluster::ConnectOptions {
        kubeconfig,
        context: Some(context.to_string()),
    };
    // A values file's kubeconfig that would run a command is not contacted
    // to fill the wizard's defaults without the user's word.
    if let Err(Outcome::BadInput(Problems(p))) = connect::vet_kubeconfig(&options, "ConfigPath") {
        return wizard::Facts {
            unreachable: p
                .first()
                .map(|p| format!("not contacted: {} {}", p.key, p.why)),
            ..Default::default()
        };
    }
    let budget = std::time::Duration::from_secs(5);
    match crate::app::session::connect::runtime()
        .block_on(cluster::discover::facts(&options, budget))
    {
        Ok(found) => wizard::Facts {
            unreachable: None,
            namespaces: found.namespaces.map(|list| {
                list.into_iter()
                    .map(|n| wizard::NamespaceFact {
                        name: n.name,
                        ours: n.managed_by_us,
                    })
                    .collect()
            }),
            storage_classes: found
                .storage_classes
                .unwrap_or_default()
                .into_iter()
                .map(|c| wizard::StorageClassFact {
                    name: c.name,
                    provisioner: c.provisioner,
                    is_default: c.is_default,
                })
                .collect(),
            zones: found.zones.unwrap_or_default(),
            agents: found.agents,
            ingress_classes: found.ingress_classes.map(|list| {
                list.into_iter()
                    .map(|c| wizard::IngressClassFact {
                        name: c.name,
                        is_default: c.is_default,
                    })
                    .collect()
            }),
        },
        Err(why) => wizard::Facts {
            unreachable: Some(why),
            ..Default::default()
        },
    }
}
