//! The platform calls about builds: registering and updating runtime
//! environments, cluster integrations, and the demo pipeline that tests a
//! runtime end to end.

use reqwest::Method;
use serde_json::{json, Value};

use super::{is_not_found, segment, Platform, PlatformError, RegisterRuntime};

impl Platform {
    /// `POST /api/custom_clusters/register`: registers the runtime
    /// environment. The answer's body is ignored, as the real clients do:
    /// any 2xx is success, JSON or not.
    pub async fn register_runtime(&self, request: &RegisterRuntime) -> Result<(), PlatformError> {
        let body = serde_json::to_value(request).expect("serializable");
        self.send(Method::POST, "/api/custom_clusters/register", Some(&body))
            .await
            .map(|_| ())
    }

    /// `GET /api/runtime-environments/{name}?extend=false` (the spec as
    /// sent, not merged with its parents, as the old CLI and go-sdk ask),
    /// `None` when there is none.
    pub async fn runtime(&self, name: &str) -> Result<Option<Value>, PlatformError> {
        match self
            .json(
                Method::GET,
                &format!("/api/runtime-environments/{}?extend=false", segment(name)),
                None,
            )
            .await
        {
            Ok(v) => Ok(Some(v)),
            Err(PlatformError::Status { status: 404, .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// `GET /api/runtime-environments`: every runtime environment of the account.
    pub async fn runtimes(&self) -> Result<Vec<Value>, PlatformError> {
        self.json(Method::GET, "/api/runtime-environments", None)
            .await
    }

    /// `PUT /api/runtime-environments/{name}`: replaces the runtime's spec.
    pub async fn put_runtime(&self, name: &str, spec: &Value) -> Result<(), PlatformError> {
        self.send(
            Method::PUT,
            &format!("/api/runtime-environments/{}", segment(name)),
            Some(spec),
        )
        .await
        .map(|_| ())
    }

    /// `PUT /api/runtime-environments/default/{name}`.
    pub async fn set_default_runtime(&self, name: &str) -> Result<(), PlatformError> {
        self.send(
            Method::PUT,
            &format!("/api/runtime-environments/default/{}", segment(name)),
            None,
        )
        .await
        .map(|_| ())
    }

    /// `DELETE /api/runtime-environments/{name}?force=true`.
    pub async fn delete_runtime(&self, name: &str) -> Result<(), PlatformError> {
        match self
            .send(
                Method::DELETE,
                &format!("/api/runtime-environments/{}?force=true", segment(name)),
                None,
            )
            .await
        {
            Ok(_) | Err(PlatformError::Status { status: 404, .. }) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// `GET /api/clusters`: the account's cluster integrations.
    pub async fn clusters(&self) -> Result<Vec<Value>, PlatformError> {
        self.json(Method::GET, "/api/clusters", None).await
    }

    /// `POST /api/clusters/local/cluster`: a behind-the-firewall cluster integration.
    pub async fn create_cluster_integration(
        &self,
        selector: &str,
        host: &str,
        token_b64: &str,
        ca_b64: &str,
    ) -> Result<(), PlatformError> {
        let body = json!({
            "type": "sat",
            "providerAgent": "custom",
            "selector": selector,
            "host": host,
            "serviceAccountToken": token_b64,
            "clientCa": ca_b64,
            "behindFirewall": true,
        });
        // The body is ignored (stevedore reads it as text): any 2xx will do.
        self.send(Method::POST, "/api/clusters/local/cluster", Some(&body))
            .await
            .map(|_| ())
    }

    /// `DELETE /api/clusters/{provider}/cluster/{id}`.
    pub async fn delete_cluster_integration(
        &self,
        provider: &str,
        id: &str,
    ) -> Result<(), PlatformError> {
        self.send(
            Method::DELETE,
            &format!(
                "/api/clusters/{}/cluster/{}",
                segment(provider),
                segment(id)
            ),
            None,
        )
        .await
        .map(|_| ())
    }

    /// Creates (or replaces) the demo pipeline on `runtime` and returns its
    /// name. A replace sends the fetched pipeline's `kind`, `metadata` and
    /// `version` with the new spec, and `disableRevisionCheck=true`, as the
    /// old CLI's `replace` does, so a re-run is never refused on a revision.
    pub async fn ensure_demo_pipeline(&self, runtime: &str) -> Result<String, PlatformError> {
        let project = "Runner";
        let name = format!("{project}/CF_Runner_Demo");
        match self
            .send(
                Method::GET,
                &format!("/api/projects/name/{}", segment(project)),
                None,
            )
            .await
        {
            Ok(_) => {}
            Err(e) if is_not_found(&e) => {
                self.send(
                    Method::POST,
                    "/api/projects",
                    Some(&json!({"projectName": project})),
                )
                .await?;
            }
            Err(e) => return Err(e),
        }
        let spec = json!({
            "runtimeEnvironment": {"name": runtime},
            "stages": ["test"],
            "steps": {
                "test": {
                    "stage": "test",
                    "title": "test",
                    "image": "quay.io/codefresh/alpine:3.11",
                    "commands": ["echo hello Codefresh Runner!"],
                }
            }
        });
        let path = format!("/api/pipelines/{}", segment(&name));
        match self.send(Method::GET, &path, None).await {
            Ok((_, bytes)) => {
                let fetched: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
                let mut body = serde_json::Map::new();
                for key in ["kind", "version"] {
                    if let Some(v) = fetched.get(key).filter(|v| !v.is_null()) {
                        body.insert(key.into(), v.clone());
                    }
                }
                let mut metadata = fetched
                    .get("metadata")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                metadata.insert("name".into(), Value::String(name.clone()));
                metadata.insert("project".into(), Value::String(project.into()));
                body.insert("metadata".into(), Value::Object(metadata));
                body.insert("spec".into(), spec);
                self.send(
                    Method::PUT,
                    &format!("{path}?disableRevisionCheck=true"),
                    Some(&Value::Object(body)),
                )
                .await?;
            }
            Err(e) if is_not_found(&e) => {
                let body = json!({"metadata": {"name": name, "project": project}, "spec": spec});
                self.send(Method::POST, "/api/pipelines", Some(&body))
                    .await?;
            }
            Err(e) => return Err(e),
        }
        Ok(name)
    }

    /// `POST /api/pipelines/run/{name}` on `runtime`; returns the build id.
    pub async fn run_pipeline(&self, name: &str, runtime: &str) -> Result<String, PlatformError> {
        let body = json!({"options": {}, "userMachineConfig": {"runtimeName": runtime}});
        let build: Value = self
            .json(
                Method::POST,
                &format!("/api/pipelines/run/{}", segment(name)),
                Some(&body),
            )
            .await?;
        Ok(match build {
            Value::String(id) => id,
            other => other
                .get("id")
                .or(other.get("_id"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        })
    }
}
