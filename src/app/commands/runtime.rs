//! `cf-runner runtime attach|detach|rotate|delete|upgrade`: one agent serving
//! runtimes in other namespaces or clusters. The steps are `runtimes::attach`,
//! `runtimes::rotate` and `runtimes::life`.

use crate::app::commands::flags;
use crate::app::runtimes::attach::{self, AgentSide, Change, Target};
use crate::app::runtimes::{life, upgrade};
use crate::app::session::connect::runtime;
use crate::app::session::outcome::Outcome;
use crate::cli::{AgentPlace, KubeArgs, RuntimeArgs, RuntimeCommand};
use crate::cluster::ConnectOptions;

fn agent_side(agent: &AgentPlace, kube: &KubeArgs) -> AgentSide {
    AgentSide {
        connect: ConnectOptions {
            kubeconfig: kube.kube_config_path.clone(),
            context: agent.agent_context.clone(),
        },
        namespace: agent.agent_namespace.clone(),
    }
}

fn target_of(kube: &KubeArgs, name: &Option<String>, kube_host: Option<String>) -> Target {
    Target {
        settings: Default::default(),
        context: kube.kube_context_name.clone(),
        kubeconfig: None,
        namespace: kube.kube_namespace.clone(),
        name: name.clone(),
        kube_host,
        origin: String::new(),
    }
}

/// Runs `runtime attach` or `runtime detach`.
pub fn run(args: &RuntimeArgs) -> Outcome {
    match &args.command {
        RuntimeCommand::Attach(a) => {
            let targets = match &a.values {
                Some(path) => match attach::read_runtimes_file(path) {
                    Ok(list) => list,
                    Err(problems) => return Outcome::BadInput(problems),
                },
                None => match attach::settings_from_flags(&a.set_value) {
                    Ok(settings) => vec![Target {
                        settings,
                        ..target_of(&a.kube, &a.runtime_name, a.kube_host.clone())
                    }],
                    Err(problems) => return Outcome::BadInput(problems),
                },
            };
            let agent = agent_side(&a.agent, &a.kube);
            crate::app::session::connect::give_consent(
                crate::app::session::connect::KubeconfigConsent {
                    named: a.kube.kube_config_path.iter().cloned().collect(),
                    trust_files: a.trust_values_kubeconfig,
                },
            );
            let change = Change::Attach {
                targets,
                accepted: attach::Accepted {
                    insecure_tls: a.accept_agent_insecure_tls,
                    build_readable_tokens: a.allow_builds_to_read_tokens,
                },
            };
            runtime().block_on(attach::run(
                agent,
                change,
                &flags::platform(&a.platform),
                a.timeout,
            ))
        }
        RuntimeCommand::Delete(d) => runtime().block_on(life::delete_runtime(
            agent_side(&d.agent, &d.kube),
            target_of(&d.kube, &d.runtime_name, None),
            &flags::platform(&d.platform),
            life::DeleteOptions {
                keep_platform: d.keep_platform,
                yes: d.yes,
                timeout: d.timeout,
            },
        )),
        RuntimeCommand::Upgrade(u) => match attach::settings_from_flags(&u.set_value) {
            Ok(settings) => runtime().block_on(upgrade::upgrade_runtime(
                agent_side(&u.agent, &u.kube),
                Target {
                    settings,
                    ..target_of(&u.kube, &u.runtime_name, None)
                },
                &flags::platform(&u.platform),
                u.timeout,
            )),
            Err(problems) => Outcome::BadInput(problems),
        },
        RuntimeCommand::Detach(d) => {
            let target = target_of(&d.kube, &d.runtime_name, None);
            let agent = agent_side(&d.agent, &d.kube);
            runtime().block_on(attach::run(
                agent,
                Change::Detach(Box::new(target)),
                &flags::platform(&d.platform),
                d.timeout,
            ))
        }
        RuntimeCommand::Rotate(r) => {
            let target = target_of(&r.kube, &r.runtime_name, None);
            let agent = agent_side(&r.agent, &r.kube);
            runtime().block_on(crate::app::runtimes::rotate::run(agent, target, r.timeout))
        }
    }
}
