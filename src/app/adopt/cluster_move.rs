//! The confirmed move in the cluster, in an order where one runner always
//! serves builds: cf-runner's objects up beside the old ones, the old
//! runner gone, then the rest of the old install (the Helm release record
//! last).

use serde_json::{json, Value};

use crate::app::adopt::detect::{ADOPTING_ANNOTATION, INTERIM_SUFFIX};
use crate::app::adopt::found::{Found, Plan};
use crate::app::adopt::gather::interim;
use crate::app::adopt::handover::{mark_taken_over, remove};
use crate::app::adopt::objects::{in_namespace, kind, name, ObjectRef};
use crate::app::session::converge;
use crate::app::session::outcome::{Doing, Outcome};
use crate::cluster;
use crate::output;
use crate::render::{self, Manifest, Rendered};

/// Applies with force: adopt takes over the old tool's objects of the same
/// name.
pub(crate) async fn adopt_apply(
    cluster: &cluster::Cluster,
    manifests: &[Manifest],
    namespace: &str,
) -> Result<(), Outcome> {
    converge::apply_with_progress(cluster, manifests, namespace, true, "adopt")
        .await
        .map(|_| ())
}

pub(crate) async fn adopt_wait(
    cluster: &cluster::Cluster,
    manifests: &[Manifest],
    timeout: std::time::Duration,
) -> Result<(), Outcome> {
    converge::wait_with_progress(cluster, manifests, timeout, "adopt").await
}

/// The confirmed move in the cluster, in an order where one runner always
/// serves builds.
pub(crate) struct Carry<'a> {
    pub(crate) cluster: &'a cluster::Cluster,
    pub(crate) namespace: &'a str,
    /// The namespace's objects, as scanned before the move.
    pub(crate) objects: &'a [Value],
    pub(crate) timeout: std::time::Duration,
}

impl<'a> Carry<'a> {
    /// The scanned object `r` names (the namespace's first).
    pub(crate) fn by_ref(&self, r: &ObjectRef) -> Option<&'a Value> {
        let objects = self.objects;
        objects
            .iter()
            .find(|o| {
                kind(o) == r.kind
                    && name(o) == r.name
                    && !is_cluster_scoped_value(o, self.namespace)
            })
            .or_else(|| {
                objects
                    .iter()
                    .find(|o| kind(o) == r.kind && name(o) == r.name)
            })
    }

    /// The rendered record Secret.
    pub(crate) fn record<'r>(&self, rendered: &'r Rendered) -> &'r Manifest {
        rendered
            .manifests
            .iter()
            .find(|m| m.kind == "Secret" && m.name == render::RECORD_SECRET)
            .expect("the record is always rendered")
    }

    /// Steps 0 to 3 of the move.
    pub(crate) async fn run(
        &self,
        rendered: &Rendered,
        plan: &Plan,
        found: Option<&Found>,
        tool: &str,
    ) -> Result<(), Outcome> {
        let record = self.record(rendered);
        let mut moving = record.clone();
        moving.object["metadata"]["annotations"][ADOPTING_ANNOTATION] = json!(tool);
        self.mark_taken_over(rendered, plan, found).await?;

        // 0. The record first, marked: a re-run continues from here.
        adopt_apply(self.cluster, std::slice::from_ref(&moving), self.namespace).await?;
        let clash = self.bring_up(rendered, plan, &moving).await?;
        self.old_runner_goes(rendered, plan, &clash).await?;
        self.old_objects_go(rendered, plan).await
    }

    /// What is taken over in place is cf-runner's from now on: marked with
    /// its own uid before the first apply, which refuses any object that is
    /// someone else's (`cluster::ownership`).
    /// The runner's StorageClass stays (same name and provisioner) and gets
    /// cf-runner's labels: it is taken over too.
    pub(crate) async fn mark_taken_over(
        &self,
        rendered: &Rendered,
        plan: &Plan,
        found: Option<&Found>,
    ) -> Result<(), Outcome> {
        let class = found
            .and_then(|f| f.storage_class.as_ref())
            .map(|(name, _)| ObjectRef {
                kind: "StorageClass".into(),
                name: name.clone(),
            });
        let rendered_class = class.as_ref().filter(|c| {
            rendered
                .manifests
                .iter()
                .any(|m| m.kind == c.kind && m.name == c.name)
        });
        for r in plan.taken_over.iter().chain(rendered_class) {
            let Some(o) = self.by_ref(r) else { continue };
            mark_taken_over(self.cluster, self.namespace, o).await?;
        }
        Ok(())
    }

    /// 1. cf-runner's runner (and every other object) up and ready, with the
    ///    same agent token; a workload whose name an old one of another pod
    ///    selector holds comes up under an interim name. Gives those
    ///    workloads.
    pub(crate) async fn bring_up<'r>(
        &self,
        rendered: &'r Rendered,
        plan: &Plan,
        moving: &Manifest,
    ) -> Result<Vec<&'r Manifest>, Outcome> {
        let clash: Vec<&Manifest> = rendered
            .manifests
            .iter()
            .filter(|m| {
                plan.selector_clash
                    .iter()
                    .any(|c| c.kind == m.kind && c.name == m.name)
            })
            .collect();
        let mut first: Vec<Manifest> = rendered
            .manifests
            .iter()
            .filter(|m| !clash.iter().any(|c| c.kind == m.kind && c.name == m.name))
            .map(|m| {
                if m.name == moving.name && m.kind == "Secret" {
                    moving.clone()
                } else {
                    m.clone()
                }
            })
            .collect();
        first.extend(clash.iter().map(|m| interim(m)));
        output::say(
            "Step 1 of 3: cf-runner's runner comes up beside the old one (same agent token)",
        );
        adopt_apply(self.cluster, &first, self.namespace).await?;
        adopt_wait(self.cluster, &first, self.timeout).await?;
        Ok(clash)
    }

    /// 2. The old runner (and the old workloads replaced) go; the workloads
    ///    of their names come up, and the interim ones (of this run or an
    ///    interrupted one) go once the real ones are ready.
    pub(crate) async fn old_runner_goes(
        &self,
        rendered: &Rendered,
        plan: &Plan,
        clash: &[&Manifest],
    ) -> Result<(), Outcome> {
        output::say("Step 2 of 3: the old runner goes");
        let old_workloads: Vec<&Value> = plan
            .replaced
            .iter()
            .map(|(old, _)| old)
            .chain(plan.selector_clash.iter())
            .filter(|o| matches!(o.kind.as_str(), "Deployment" | "DaemonSet"))
            .filter_map(|r| self.by_ref(r))
            .collect();
        remove(self.cluster, old_workloads, self.timeout).await?;
        if !clash.is_empty() {
            let now: Vec<Manifest> = clash.iter().map(|m| (*m).clone()).collect();
            adopt_apply(self.cluster, &now, self.namespace).await?;
            adopt_wait(self.cluster, &now, self.timeout).await?;
        }
        let mut interims = Vec::new();
        for m in rendered
            .manifests
            .iter()
            .filter(|m| matches!(m.kind.as_str(), "Deployment" | "DaemonSet"))
        {
            let interim_name = format!("{}{INTERIM_SUFFIX}", m.name);
            if let Some(live) = cluster::inventory::get(
                &self.cluster.client,
                &m.api_version,
                &m.kind,
                m.namespace.as_deref(),
                &interim_name,
            )
            .await
            .doing("reading the interim workloads failed")?
            {
                let mut object = live.object.clone();
                object["apiVersion"] = json!(m.api_version);
                object["kind"] = json!(m.kind);
                interims.push(object);
            }
        }
        remove(self.cluster, interims.iter().collect(), self.timeout).await
    }

    /// 3. The rest: the old tool's marks off what cf-runner took over, the
    ///    old objects replaced or only the old tool needed, and the Helm
    ///    release records last, so that helm no longer claims anything.
    pub(crate) async fn old_objects_go(
        &self,
        rendered: &Rendered,
        plan: &Plan,
    ) -> Result<(), Outcome> {
        output::say("Step 3 of 3: the old installer's objects go (the Helm release record last)");
        // Never the namespace: it is left alone, marks and all.
        for m in rendered.manifests.iter().filter(|m| m.kind != "Namespace") {
            cluster::adopt::remove_old_marks(
                self.cluster,
                &m.api_version,
                &m.kind,
                m.namespace.as_deref(),
                &m.name,
            )
            .await
            .doing("removing the old installer's labels failed")?;
        }
        let is_release =
            |r: &ObjectRef| r.kind == "Secret" && r.name.starts_with("sh.helm.release.v1.");
        let rest: Vec<&Value> = plan
            .replaced
            .iter()
            .map(|(old, _)| old)
            .chain(plan.removed.iter())
            .filter(|o| !matches!(o.kind.as_str(), "Deployment" | "DaemonSet"))
            .filter(|o| !is_release(o))
            .filter_map(|r| self.by_ref(r))
            .collect();
        remove(self.cluster, rest, self.timeout).await?;
        let releases: Vec<&Value> = plan
            .removed
            .iter()
            .filter(|o| is_release(o))
            .filter_map(|r| self.by_ref(r))
            .collect();
        remove(self.cluster, releases, self.timeout).await
    }
}

pub(crate) fn is_cluster_scoped_value(o: &Value, namespace: &str) -> bool {
    !in_namespace(o, namespace)
}
