//! What an install talks to, as two traits: the platform ([`Registrar`],
//! whose real one is [`Platform`]) and the connected cluster ([`Target`],
//! whose real one is [`cluster::Cluster`]). The order of the install's
//! steps is unit-tested against fakes of both (`tests.rs`); the end-to-end
//! suite runs the real ones against a real control plane.

use std::time::Duration;

use crate::app::installation::{left_behind, LeftBehind};
use crate::app::session::lock::LockWait;
use crate::app::session::outcome::{Doing, Outcome};
use crate::app::session::{converge, preflight};
use crate::cluster::lock::{Lock, NamespaceSeen};
use crate::cluster::{self, apply, secrets};
use crate::render::{self, Manifest};

/// What an install does in the cluster once connected. Each step says
/// what went wrong as the [`Outcome`] to return.
pub(crate) trait Target {
    /// The kubeconfig context in use.
    fn context(&self) -> &str;
    /// The API server's URL.
    fn server(&self) -> &str;
    /// The preflight checks against what the install will apply; gives
    /// what they saw of the namespace, for [`Target::lock`].
    async fn preflight(
        &self,
        rendered: &render::Rendered,
        namespace: &str,
    ) -> Result<NamespaceSeen, Outcome>;
    /// Refuses (exit 2) objects of an API the cluster does not serve
    /// (`session::preflight::require_served`).
    async fn require_served(&self, _rendered: &render::Rendered) -> Result<(), Outcome> {
        Ok(())
    }
    /// The one check `--skip-cluster-test` does not skip: no object the
    /// install writes may be someone else's (`cluster::ownership`).
    async fn ownership(
        &self,
        _rendered: &render::Rendered,
        _namespace: &str,
    ) -> Result<(), Outcome> {
        Ok(())
    }
    /// Takes the install's lock, creating the namespace from
    /// `namespace_manifest` first when it does not exist yet (`seen`: what
    /// the preflight saw of it).
    async fn lock(
        &self,
        namespace: &str,
        namespace_manifest: Option<&Manifest>,
        how: LockWait,
        seen: NamespaceSeen,
    ) -> Result<Option<Lock>, Outcome>;
    /// Releases what [`Target::lock`] took.
    async fn unlock(&self, lock: Option<Lock>, namespace: &str);
    /// What an earlier install left in `namespace`.
    async fn left_behind(&self, namespace: &str) -> Result<LeftBehind, Outcome>;
    /// Applies a few objects without a progress line each (the record and
    /// the runner Secret, saved as soon as the platform gave what they hold).
    async fn save(
        &self,
        manifests: &[Manifest],
        namespace: &str,
        force_conflicts: bool,
    ) -> Result<(), Outcome>;
    /// Applies the whole install with a line per object.
    async fn apply(
        &self,
        manifests: &[Manifest],
        namespace: &str,
        force_conflicts: bool,
    ) -> Result<(), Outcome>;
    /// Waits for the workloads with a live line each.
    async fn wait(&self, manifests: &[Manifest], timeout: Duration) -> Result<(), Outcome>;
    /// The token and CA of a service-account token Secret, once Kubernetes
    /// filled it (base64, as the platform takes them); `None` after `timeout`.
    async fn service_account_token(
        &self,
        namespace: &str,
        secret: &str,
        timeout: Duration,
    ) -> Result<Option<(String, String)>, Outcome>;
}

impl Target for cluster::Cluster {
    fn context(&self) -> &str {
        &self.context
    }
    fn server(&self) -> &str {
        &self.server
    }
    async fn preflight(
        &self,
        rendered: &render::Rendered,
        namespace: &str,
    ) -> Result<NamespaceSeen, Outcome> {
        preflight::gate_install(
            self,
            &rendered.manifests,
            &rendered.runtime_environment,
            namespace,
        )
        .await
    }
    async fn require_served(&self, rendered: &render::Rendered) -> Result<(), Outcome> {
        preflight::require_served(self, &rendered.manifests).await
    }
    async fn ownership(&self, rendered: &render::Rendered, namespace: &str) -> Result<(), Outcome> {
        let manifests: Vec<&Manifest> = rendered.manifests.iter().collect();
        let found =
            match cluster::ownership::collisions(&self.client, &manifests, namespace, &|_| None)
                .await
            {
                Ok(found) => found,
                // The apply reads them again before its first write and
                // names the object and the verb refused.
                Err(e) if e.code() == Some(403) => return Ok(()),
                Err(e) => {
                    return Err(Outcome::from_cluster(
                        e,
                        "reading the objects the install would write",
                    ))
                }
            };
        if found.is_empty() {
            return Ok(());
        }
        Err(converge::refuse_foreign(&found, namespace, "install"))
    }
    async fn lock(
        &self,
        namespace: &str,
        namespace_manifest: Option<&Manifest>,
        how: LockWait,
        seen: NamespaceSeen,
    ) -> Result<Option<Lock>, Outcome> {
        crate::app::session::lock::take_seen(self, namespace, "init", how, namespace_manifest, seen)
            .await
    }
    async fn unlock(&self, lock: Option<Lock>, namespace: &str) {
        crate::app::session::lock::release(lock, namespace).await
    }
    async fn left_behind(&self, namespace: &str) -> Result<LeftBehind, Outcome> {
        left_behind(self, namespace)
            .await
            .doing("reading what an earlier install left")
    }
    async fn save(
        &self,
        manifests: &[Manifest],
        namespace: &str,
        force_conflicts: bool,
    ) -> Result<(), Outcome> {
        let report = apply::apply_all(
            &self.client,
            manifests,
            namespace,
            apply::Options { force_conflicts },
            &|_| {},
        )
        .await;
        report.warnings.iter().for_each(|w| crate::output::warn(w));
        if !report.foreign.is_empty() {
            return Err(converge::refuse_foreign(
                &report.foreign,
                namespace,
                "install",
            ));
        }
        if !report.ok() {
            return Err(converge::apply_failed(&report, "install"));
        }
        Ok(())
    }
    async fn apply(
        &self,
        manifests: &[Manifest],
        namespace: &str,
        force_conflicts: bool,
    ) -> Result<(), Outcome> {
        // A re-run of init keeps an agent that serves attached runtimes as
        // attach left it. Not knowing whether it does stops the run before
        // its first write, and says so.
        // It is read side by side with the apply's own reads, before any
        // write.
        let kept = async {
            crate::app::installation::attached::kept_attached(self, namespace, manifests)
                .await
                .map_err(|outcome| match outcome {
                    Outcome::Failed(err, hint) => {
                        let names: Vec<String> = manifests
                            .iter()
                            .map(|m| format!("{}/{}", m.kind, m.name))
                            .collect();
                        Outcome::Failed(
                            err.context(format!(
                                "the install stopped before its apply\n  not applied: {}",
                                names.join(", ")
                            )),
                            hint,
                        )
                    }
                    other => other,
                })
        };
        converge::apply_with_progress_after(
            self,
            manifests,
            namespace,
            force_conflicts,
            "install",
            kept,
        )
        .await
        .map(|_| ())
    }
    async fn wait(&self, manifests: &[Manifest], timeout: Duration) -> Result<(), Outcome> {
        converge::wait_with_progress(self, manifests, timeout, "init").await
    }
    async fn service_account_token(
        &self,
        namespace: &str,
        secret: &str,
        timeout: Duration,
    ) -> Result<Option<(String, String)>, Outcome> {
        secrets::wait_for_token(&self.client, namespace, secret, timeout)
            .await
            .doing("reading the cluster integration's token")
    }
}
