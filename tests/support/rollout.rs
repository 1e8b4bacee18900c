//! Watching an agent's rollout: it must never drop to zero ready replicas.
#![allow(dead_code)]

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use kube::{Api, Client};

/// Polls the ready replicas of Deployment `runner` every 100 ms until
/// stopped; gives the fewest it saw.
pub struct ReadyWatch {
    fewest: Arc<AtomicI32>,
    stop: Arc<AtomicBool>,
    handle: tokio::task::JoinHandle<()>,
}

impl ReadyWatch {
    pub fn start(client: Client, ns: &str) -> ReadyWatch {
        let fewest = Arc::new(AtomicI32::new(i32::MAX));
        let stop = Arc::new(AtomicBool::new(false));
        let api: Api<Deployment> = Api::namespaced(client, ns);
        let (f, s) = (fewest.clone(), stop.clone());
        let handle = tokio::spawn(async move {
            while !s.load(Ordering::Relaxed) {
                if let Ok(d) = api.get("runner").await {
                    let ready = d.status.and_then(|s| s.ready_replicas).unwrap_or(0);
                    f.fetch_min(ready, Ordering::Relaxed);
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        });
        ReadyWatch {
            fewest,
            stop,
            handle,
        }
    }

    /// Stops the watch; the fewest ready replicas seen.
    pub async fn fewest(self) -> i32 {
        self.stop.store(true, Ordering::Relaxed);
        self.handle.await.unwrap();
        self.fewest.load(Ordering::Relaxed)
    }
}
