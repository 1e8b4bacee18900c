//! Where the old volume provisioner gets its credentials, read from its
//! Deployment and service accounts: AWS keys from the environment or a
//! Secret, a Google key file, an Azure `azure.json` mount, and the cloud
//! identities (IRSA, workload identity) on its service accounts.

use serde_json::{json, Map, Value};

use crate::app::adopt::credentials::{
    has_key, refuse, secret_in, Credential, Destination, Read, Source,
};
use crate::app::adopt::objects::{component_of, kind, name};
use crate::values;

/// The environment variables that hand the provisioner a key, the values
/// key that carries each, and the key of cf-runner's Secret it goes to.
pub(crate) const KEY_ENV: &[(&str, &str, &str, &str)] = &[
    (
        "AWS_ACCESS_KEY_ID",
        "Storage.AwsAccessKeyId",
        "aws_access_key_id",
        "the volume provisioner's AWS access key id",
    ),
    (
        "AWS_SECRET_ACCESS_KEY",
        "Storage.AwsSecretAccessKey",
        "aws_secret_access_key",
        "the volume provisioner's AWS secret access key",
    ),
];

/// The variables that point the provisioner at a key file.
pub(crate) const GOOGLE_ENV: &str = "GOOGLE_APPLICATION_CREDENTIALS";

pub(crate) const AZURE_ENV: &[&str] = &["AZURE_CREDENTIAL_FILE", "CLOUDCONFIG_AZURE"];

/// The only azure.json cf-runner mounts (templates/volume-provisioner.yaml).
pub(crate) const AZURE_JSON: &str = "/etc/kubernetes/azure.json";

/// Annotations that are the old tools' bookkeeping, not an identity.
pub(crate) fn is_tool_annotation(key: &str) -> bool {
    [
        "meta.helm.sh/",
        "helm.sh/",
        "kubectl.kubernetes.io/",
        "kubernetes.io/",
        "deployment.kubernetes.io/",
    ]
    .iter()
    .any(|p| key.starts_with(p))
}

/// Where the provisioner's credentials are: the old provisioner Deployment
/// and service accounts in `mine`, the Secrets they name in `local`.
pub fn read(mine: &[&Value], local: &[&Value], namespace: &str) -> Read {
    let mut out = Read::default();
    let is_mine = |o: &Value| {
        mine.iter()
            .any(|m| kind(m) == kind(o) && name(m) == name(o))
    };
    let provisioner = mine
        .iter()
        .copied()
        .find(|o| kind(o) == "Deployment" && component_of(name(o)) == Some("volume-provisioner"));
    if let Some(deployment) = provisioner {
        provisioner_keys(deployment, local, namespace, &is_mine, &mut out);
    }

    // Cloud identities on the service accounts of the old components.
    let mut accounts: Vec<(String, &'static str, &'static str)> = Vec::new();
    for o in mine.iter().filter(|o| kind(o) == "Deployment") {
        let spec = &o["spec"]["template"]["spec"];
        let Some(sa) = spec["serviceAccountName"]
            .as_str()
            .or(spec["serviceAccount"].as_str())
        else {
            continue;
        };
        let target = match component_of(name(o)) {
            Some("volume-provisioner") => Some((
                "Storage.VolumeProvisioner.ServiceAccount.Annotations",
                "volume-provisioner",
            )),
            Some("monitor") => Some(("Monitor.ServiceAccount.Annotations", "monitor")),
            Some("app-proxy") => Some(("AppProxy.ServiceAccount.Annotations", "app-proxy")),
            _ => None,
        };
        if let Some((key, new)) = target {
            accounts.push((sa.to_string(), key, new));
        }
    }
    accounts.push((
        "codefresh-engine".into(),
        "Runtime.ServiceAccount.Annotations",
        "codefresh-engine",
    ));
    for (sa, key, new) in accounts {
        let Some(account) = mine
            .iter()
            .find(|o| kind(o) == "ServiceAccount" && name(o) == sa)
        else {
            continue;
        };
        let Some(annotations) = account["metadata"]["annotations"].as_object() else {
            continue;
        };
        let mut carried = Map::new();
        for (annotation, value) in annotations {
            let Some(value) = value.as_str() else {
                continue;
            };
            if is_tool_annotation(annotation) {
                continue;
            }
            carried.insert(annotation.clone(), json!(value));
            out.credentials.push(Credential {
                key: key.to_string(),
                what: match new {
                    "volume-provisioner" => "the volume provisioner's cloud identity",
                    "codefresh-engine" => "the engine's cloud identity",
                    "monitor" => "the monitor's cloud identity",
                    _ => "the app-proxy's cloud identity",
                }
                .to_string(),
                from: Source::Annotation {
                    service_account: sa.clone(),
                    annotation: annotation.clone(),
                    value: value.to_string(),
                },
                to: Destination::Annotation {
                    service_account: new,
                },
            });
        }
        if !carried.is_empty() {
            out.values.push((key.to_string(), Value::Object(carried)));
        }
    }
    out
}

pub(crate) fn provisioner_keys(
    deployment: &Value,
    local: &[&Value],
    namespace: &str,
    is_mine: &dyn Fn(&Value) -> bool,
    out: &mut Read,
) {
    let spec = &deployment["spec"]["template"]["spec"];
    let containers = spec["containers"].as_array().cloned().unwrap_or_default();
    let Some(container) = containers
        .iter()
        .find(|c| c["name"] == "dind-volume-provisioner")
        .or_else(|| containers.first())
    else {
        return;
    };
    let reader = KeyReader {
        old: name(deployment).to_string(),
        namespace,
        local,
        is_mine,
        volumes: spec["volumes"].as_array().cloned().unwrap_or_default(),
        mounts: container["volumeMounts"]
            .as_array()
            .cloned()
            .unwrap_or_default(),
    };
    let mut azure_done = false;
    for env in container["env"].as_array().into_iter().flatten() {
        let var = env["name"].as_str().unwrap_or_default();
        let from_secret = &env["valueFrom"]["secretKeyRef"];
        if let Some(row) = KEY_ENV.iter().find(|(e, ..)| *e == var) {
            reader.key_env(env, *row, out);
        } else if var == GOOGLE_ENV {
            reader.google_env(env, out);
        } else if AZURE_ENV.contains(&var) {
            if !azure_done {
                azure_done = reader.azure_env(env, var, out);
            }
        } else if from_secret.is_object() {
            let secret = from_secret["name"].as_str().unwrap_or_default();
            let old = &reader.old;
            refuse(
                out,
                "Storage.VolumeProvisioner",
                format!(
                    "Deployment/{old} reads {var} from Secret/{secret}: cf-runner's provisioner has no setting for {var}, so adopt cannot carry it"
                ),
                format!(
                    "take {var} off the old provisioner if it does not need it and re-run adopt; otherwise keep the old install"
                ),
            );
        }
    }
}

/// Reads the old volume provisioner's credentials from its container.
pub(crate) struct KeyReader<'a> {
    /// The old provisioner's Deployment.
    old: String,
    namespace: &'a str,
    local: &'a [&'a Value],
    is_mine: &'a dyn Fn(&Value) -> bool,
    volumes: Vec<Value>,
    mounts: Vec<Value>,
}

impl KeyReader<'_> {
    /// The volume and the path inside it that a file path of the container
    /// lands in.
    pub(crate) fn file_of(&self, path: &str) -> Option<(Value, String)> {
        let mount = self.mounts.iter().find(|m| {
            m["mountPath"].as_str().is_some_and(|mp| {
                path == mp || path.starts_with(&format!("{}/", mp.trim_end_matches('/')))
            })
        })?;
        let mp = mount["mountPath"].as_str().unwrap_or_default();
        let volume = self.volumes.iter().find(|v| v["name"] == mount["name"])?;
        let inside = path
            .strip_prefix(mp.trim_end_matches('/'))
            .unwrap_or_default()
            .trim_start_matches('/')
            .to_string();
        Some((volume.clone(), inside))
    }

    /// The fix for a key adopt cannot read where it is.
    pub(crate) fn after_move(&self, key: &str) -> String {
        format!(
            "give the old provisioner the value from a Secret in namespace {} and re-run adopt, \
             or take {key} off the old provisioner, adopt, then set it with `cf-runner upgrade --set-value {key}=…`",
            self.namespace
        )
    }

    /// A credential read from a Secret's key: cf-runner's own Secret takes
    /// the value over when the old install made the Secret; the user's
    /// stays where it is and the values file names it.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn take_secret_key(
        &self,
        out: &mut Read,
        secret: &Value,
        key: &str,
        what: String,
        secret_name: &str,
        secret_key: &str,
        own_key: &'static str,
    ) {
        let from = Source::SecretKey {
            secret: secret_name.to_string(),
            key: secret_key.to_string(),
        };
        let to = if (self.is_mine)(secret) {
            Destination::OwnSecret { key: own_key }
        } else {
            out.values.push((
                format!("{key}SecretKeyRef"),
                json!({"Name": secret_name, "Key": secret_key}),
            ));
            Destination::UsersSecret
        };
        out.credentials.push(Credential {
            key: key.to_string(),
            what,
            from,
            to,
        });
    }

    /// An access key variable (AWS): a literal value, or a Secret's key.
    pub(crate) fn key_env(
        &self,
        env: &Value,
        row: (&str, &str, &'static str, &str),
        out: &mut Read,
    ) {
        let (var, key, own_key, what) = row;
        let old = &self.old;
        let namespace = self.namespace;
        if let Some(value) = env["value"].as_str().filter(|v| !v.is_empty()) {
            out.credentials.push(Credential {
                key: key.to_string(),
                what: what.to_string(),
                from: Source::Literal {
                    env: var.to_string(),
                    value: values::Secret::new(value),
                },
                to: Destination::OwnSecret { key: own_key },
            });
            return;
        }
        let from_secret = &env["valueFrom"]["secretKeyRef"];
        let (Some(secret), Some(secret_key)) =
            (from_secret["name"].as_str(), from_secret["key"].as_str())
        else {
            refuse(
                out,
                key,
                format!(
                    "Deployment/{old} sets {var} from a place adopt cannot read (neither a value nor a Secret's key)"
                ),
                self.after_move(key),
            );
            return;
        };
        match secret_in(self.local, secret) {
            None => refuse(
                out,
                key,
                format!(
                    "Deployment/{old} reads {var} from Secret/{secret}, which is not in namespace {namespace}: \
                     cf-runner cannot carry a key it cannot read"
                ),
                self.after_move(key),
            ),
            Some(s) if !has_key(s, secret_key) => refuse(
                out,
                key,
                format!(
                    "Deployment/{old} reads {var} from Secret/{secret} key {secret_key}, which that Secret does not have"
                ),
                self.after_move(key),
            ),
            Some(s) => {
                self.take_secret_key(out, s, key, what.to_string(), secret, secret_key, own_key)
            }
        }
    }

    /// The Google service-account key: a file of a Secret the container
    /// mounts, which a Secret volume may map to another key.
    pub(crate) fn google_env(&self, env: &Value, out: &mut Read) {
        let key = "Storage.GoogleServiceAccount";
        let what = "the volume provisioner's Google service-account key".to_string();
        let old = &self.old;
        let namespace = self.namespace;
        let path = env["value"].as_str().unwrap_or_default();
        let secret_file = self.file_of(path).and_then(|(volume, inside)| {
            let secret = volume["secret"]["secretName"].as_str()?.to_string();
            let key_of_file = volume["secret"]["items"]
                .as_array()
                .and_then(|items| {
                    items
                        .iter()
                        .find(|i| i["path"] == json!(inside))
                        .and_then(|i| i["key"].as_str())
                        .map(str::to_string)
                })
                .unwrap_or(inside);
            Some((secret, key_of_file))
        });
        let Some((secret, secret_key)) = secret_file else {
            refuse(
                out,
                key,
                format!(
                    "Deployment/{old} points {GOOGLE_ENV} at {path:?}, which is not a file of a Secret it mounts"
                ),
                format!(
                    "mount the key file from a Secret in namespace {namespace} and re-run adopt, or take {GOOGLE_ENV} off the old provisioner, adopt, \
                     then `cf-runner upgrade --set-file {key}=key.json`"
                ),
            );
            return;
        };
        match secret_in(self.local, &secret) {
            Some(s) if has_key(s, &secret_key) => self.take_secret_key(
                out,
                s,
                key,
                what,
                &secret,
                &secret_key,
                "google-service-account.json",
            ),
            _ => refuse(
                out,
                key,
                format!(
                    "Deployment/{old} reads its Google key from Secret/{secret} key {secret_key}, which is not in namespace {namespace}"
                ),
                format!(
                    "restore the Secret and re-run adopt, or take {GOOGLE_ENV} off the old provisioner, adopt, \
                     then `cf-runner upgrade --set-file {key}=key.json`"
                ),
            ),
        }
    }

    /// Azure's credentials: the node's azure.json, mounted at the same path.
    /// True once carried (the variables that name it are read once).
    pub(crate) fn azure_env(&self, env: &Value, var: &str, out: &mut Read) -> bool {
        let key = "Storage.VolumeProvisioner.MountAzureJson";
        let old = &self.old;
        let path = env["value"].as_str().unwrap_or_default();
        let host = self
            .file_of(path)
            .and_then(|(volume, inside)| {
                volume["hostPath"]["path"]
                    .as_str()
                    .map(|p| (p.to_string(), inside))
            })
            .filter(|(host, inside)| host == AZURE_JSON && inside.is_empty());
        if host.is_some() && path == AZURE_JSON {
            out.values.push((key.into(), json!(true)));
            out.credentials.push(Credential {
                key: key.into(),
                what: "the volume provisioner's Azure credentials".into(),
                from: Source::HostFile {
                    path: AZURE_JSON.into(),
                },
                to: Destination::HostFile,
            });
            return true;
        }
        refuse(
            out,
            key,
            format!(
                "Deployment/{old} points {var} at {path:?}; cf-runner mounts only the node's {AZURE_JSON}, at the same path"
            ),
            format!(
                "mount the node's {AZURE_JSON} at {AZURE_JSON} in the old provisioner and re-run adopt, or take {var} off it and adopt"
            ),
        );
        false
    }
}
