//! What an install asks of the Codefresh platform, as a trait
//! (`Registrar`) whose real one is `Platform`: the order of the install's
//! platform steps is unit-tested against a fake of it (`install/tests.rs`),
//! and the end-to-end suites run the real one against the fake platform.

use serde_json::Value;

use crate::platform::KeySubject;
use crate::platform::{Agent, Platform, PlatformError, RegisterRuntime};
use crate::values::Secret;

/// What an install asks of the platform.
pub(crate) trait Registrar {
    /// The platform's web address, for the links a run prints.
    fn url(&self) -> &str;
    async fn key_subject(&self, token: &Secret) -> Result<Option<KeySubject>, PlatformError>;
    async fn agent(&self, id: &str) -> Result<Option<Agent>, PlatformError>;
    async fn agents_named(&self, name: &str) -> Result<Vec<Agent>, PlatformError>;
    async fn create_agent(&self, name: &str) -> Result<Agent, PlatformError>;
    async fn update_agent(&self, agent: &Agent, runtimes: &[String]) -> Result<(), PlatformError>;
    async fn sign_server_certs(
        &self,
        csr_pem: &str,
        sans: &str,
    ) -> Result<(String, String), PlatformError>;
    async fn runtime(&self, name: &str) -> Result<Option<Value>, PlatformError>;
    async fn register_runtime(&self, request: &RegisterRuntime) -> Result<(), PlatformError>;
    async fn put_runtime(&self, name: &str, spec: &Value) -> Result<(), PlatformError>;
    async fn set_default_runtime(&self, name: &str) -> Result<(), PlatformError>;
    async fn clusters(&self) -> Result<Vec<Value>, PlatformError>;
    async fn create_cluster_integration(
        &self,
        selector: &str,
        host: &str,
        token_b64: &str,
        ca_b64: &str,
    ) -> Result<(), PlatformError>;
    async fn ensure_demo_pipeline(&self, runtime: &str) -> Result<String, PlatformError>;
    async fn run_pipeline(&self, name: &str, runtime: &str) -> Result<String, PlatformError>;
}

impl Registrar for Platform {
    fn url(&self) -> &str {
        Platform::url(self)
    }
    async fn key_subject(&self, token: &Secret) -> Result<Option<KeySubject>, PlatformError> {
        Platform::key_subject(self, token).await
    }
    async fn agent(&self, id: &str) -> Result<Option<Agent>, PlatformError> {
        Platform::agent(self, id).await
    }
    async fn agents_named(&self, name: &str) -> Result<Vec<Agent>, PlatformError> {
        Platform::agents_named(self, name).await
    }
    async fn create_agent(&self, name: &str) -> Result<Agent, PlatformError> {
        Platform::create_agent(self, name).await
    }
    async fn update_agent(&self, agent: &Agent, runtimes: &[String]) -> Result<(), PlatformError> {
        Platform::update_agent(self, agent, runtimes).await
    }
    async fn sign_server_certs(
        &self,
        csr_pem: &str,
        sans: &str,
    ) -> Result<(String, String), PlatformError> {
        Platform::sign_server_certs(self, csr_pem, sans).await
    }
    async fn runtime(&self, name: &str) -> Result<Option<Value>, PlatformError> {
        Platform::runtime(self, name).await
    }
    async fn register_runtime(&self, request: &RegisterRuntime) -> Result<(), PlatformError> {
        Platform::register_runtime(self, request).await
    }
    async fn put_runtime(&self, name: &str, spec: &Value) -> Result<(), PlatformError> {
        Platform::put_runtime(self, name, spec).await
    }
    async fn set_default_runtime(&self, name: &str) -> Result<(), PlatformError> {
        Platform::set_default_runtime(self, name).await
    }
    async fn clusters(&self) -> Result<Vec<Value>, PlatformError> {
        Platform::clusters(self).await
    }
    async fn create_cluster_integration(
        &self,
        selector: &str,
        host: &str,
        token_b64: &str,
        ca_b64: &str,
    ) -> Result<(), PlatformError> {
        Platform::create_cluster_integration(self, selector, host, token_b64, ca_b64).await
    }
    async fn ensure_demo_pipeline(&self, runtime: &str) -> Result<String, PlatformError> {
        Platform::ensure_demo_pipeline(self, runtime).await
    }
    async fn run_pipeline(&self, name: &str, runtime: &str) -> Result<String, PlatformError> {
        Platform::run_pipeline(self, name, runtime).await
    }
}
