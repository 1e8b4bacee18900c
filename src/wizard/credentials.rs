//! Questions about credentials: the rights of the volume provisioner (an
//! IAM role or Workload Identity, keys kept in a Secret, or the nodes' own)
//! and the Codefresh API token an install registers with.

use serde_json::{json, Value};

use super::finish::expand_home;
use super::session::Session;
use super::{Choice, PromptError, Question};
use crate::values::{cloud, pod_identity};

const SA_ANNOTATIONS: &str = "Storage.VolumeProvisioner.ServiceAccount.Annotations";

impl Session<'_> {
    fn credentials_given(&mut self, keys: &[&str]) -> bool {
        if keys.iter().any(|k| self.given(k).is_some()) || self.given(SA_ANNOTATIONS).is_some() {
            self.row("Provisioner credentials", "as given", true);
            return true;
        }
        false
    }

    pub(super) fn ask_aws_credentials(&mut self) -> Result<(), PromptError> {
        if self.credentials_given(&[
            "Storage.AwsAccessKeyId",
            "Storage.AwsSecretAccessKey",
            pod_identity::KEY,
        ]) {
            return Ok(());
        }
        let choices = [
            Choice::new(
                "IAM role for its service account (IRSA)",
                "no keys in the cluster",
            ),
            Choice::new("Access keys kept in a Secret", "an IAM user's key pair"),
            Choice::new(
                "The nodes' instance role",
                "nothing to set; the role needs the EC2 volume rights",
            ),
            Choice::new(
                "EKS Pod Identity",
                "you associate a role with its service account after install",
            ),
        ];
        let i = self.select(
            Question::new(
                "storage.credentials",
                "AWS credentials of the volume provisioner",
                "It creates, attaches and deletes EBS volumes, so it needs AWS rights.",
            ),
            &choices,
            0,
        )?;
        match i {
            0 => self.ask_irsa_role()?,
            1 => self.ask_aws_keys()?,
            3 => {
                self.set(pod_identity::KEY, json!(true));
                self.row(
                    "Provisioner credentials",
                    format!(
                        "EKS Pod Identity of ServiceAccount {}",
                        pod_identity::SERVICE_ACCOUNT
                    ),
                    false,
                );
            }
            _ => {
                self.set(SA_ANNOTATIONS, json!({}));
                self.row("Provisioner credentials", "the nodes' instance role", false);
            }
        }
        Ok(())
    }

    pub(super) fn ask_google_credentials(&mut self) -> Result<(), PromptError> {
        if self.credentials_given(&["Storage.GoogleServiceAccount"]) {
            return Ok(());
        }
        let choices = [
            Choice::new(
                "Workload Identity",
                "a Google service account bound to the provisioner's; no key in the cluster",
            ),
            Choice::new("A service-account key file", "JSON, stored in a Secret"),
            Choice::new("The nodes' service account", "nothing to set"),
        ];
        let i = self.select(
            Question::new(
                "storage.credentials",
                "Google credentials of the volume provisioner",
                "It creates, attaches and deletes persistent disks, so it needs Google rights.",
            ),
            &choices,
            0,
        )?;
        match i {
            0 => self.ask_workload_identity()?,
            1 => self.ask_google_key_file()?,
            _ => {
                self.set(SA_ANNOTATIONS, json!({}));
                self.row(
                    "Provisioner credentials",
                    "the nodes' service account",
                    false,
                );
            }
        }
        Ok(())
    }
    /// An IAM role for the provisioner's service account (IRSA).
    fn ask_irsa_role(&mut self) -> Result<(), PromptError> {
        let key = format!("{SA_ANNOTATIONS}.eks\\.amazonaws\\.com/role-arn");
        let checker = self.checker();
        let validate = |s: &str| {
            cloud::iam_role_arn(s).map_err(|m| m.for_answer(s))?;
            checker.check(&key, Value::String(s.to_string()))
        };
        let arn = self.input(
            Question::new(
                "storage.role-arn",
                "IAM role ARN",
                "The role the provisioner's service account assumes (eks.amazonaws.com/role-arn).",
            ),
            "",
            &validate,
        )?;
        self.set(&key, Value::String(arn.clone()));
        self.row("Provisioner credentials", format!("IRSA role {arn}"), false);
        Ok(())
    }

    /// An IAM user's key pair, kept in a Secret.
    fn ask_aws_keys(&mut self) -> Result<(), PromptError> {
        let id_key = "Storage.AwsAccessKeyId";
        let validate = |s: &str| {
            let ok = (16..=128).contains(&s.len())
                && s.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
            if ok {
                Ok(())
            } else {
                Err(
                    "an access key id is 16 or more capital letters and digits, e.g. AKIA…"
                        .to_string(),
                )
            }
        };
        let id = self.input(
            Question::new(
                id_key,
                "AWS access key id",
                "Stored in a Secret in the namespace.",
            ),
            "",
            &validate,
        )?;
        let required = |s: &str| {
            if s.is_empty() {
                Err("the secret access key is needed with the key id".to_string())
            } else {
                Ok(())
            }
        };
        let secret = self.password(
            Question::new(
                "Storage.AwsSecretAccessKey",
                "AWS secret access key",
                "Not shown as you type; stored in the same Secret.",
            ),
            &required,
        )?;
        self.set(id_key, Value::String(id));
        self.set("Storage.AwsSecretAccessKey", Value::String(secret));
        self.row(
            "Provisioner credentials",
            "access keys (in a Secret)",
            false,
        );
        Ok(())
    }

    /// A Google service account bound through Workload Identity.
    fn ask_workload_identity(&mut self) -> Result<(), PromptError> {
        let key = format!("{SA_ANNOTATIONS}.iam\\.gke\\.io/gcp-service-account");
        let checker = self.checker();
        let validate = |s: &str| {
            cloud::gcp_service_account(s).map_err(|m| m.for_answer(s))?;
            checker.check(&key, Value::String(s.to_string()))
        };
        let email = self.input(
            Question::new(
                "storage.google-service-account",
                "Google service account",
                "Annotated as iam.gke.io/gcp-service-account on the provisioner's service account.",
            ),
            "",
            &validate,
        )?;
        self.set(&key, Value::String(email.clone()));
        self.row(
            "Provisioner credentials",
            format!("Workload Identity {email}"),
            false,
        );
        Ok(())
    }

    /// A service-account key file, its contents kept in a Secret.
    fn ask_google_key_file(&mut self) -> Result<(), PromptError> {
        let key = "Storage.GoogleServiceAccount";
        let checker = self.checker();
        // The text validated is the text kept: the file is read once
        // per answer, bounded and only if it is a regular file.
        let read = std::cell::RefCell::new(String::new());
        let validate = |s: &str| {
            let text = crate::input_file::read_regular_text(
                &expand_home(s),
                crate::values::tree::MAX_INPUT_BYTES,
            )
            .map_err(|e| format!("{s} {e}"))?;
            checker.check(key, Value::String(text.clone()))?;
            *read.borrow_mut() = text;
            Ok(())
        };
        let path = self.input(
            Question::new(
                "storage.key-file",
                "Key file",
                "The JSON key downloaded for the service account; its contents go into a Secret.",
            ),
            "",
            &validate,
        )?;
        let text = read.take();
        self.set(key, Value::String(text));
        self.row("Provisioner credentials", format!("key file {path}"), false);
        Ok(())
    }

    pub(super) fn ask_platform(&mut self) -> Result<(), PromptError> {
        self.section("Codefresh platform");
        let given = ["Token", "AgentToken"]
            .iter()
            .any(|k| self.given_text(k).is_some_and(|t| !t.is_empty()));
        if !self.setup.ask_token || given {
            return Ok(());
        }
        let required = |s: &str| {
            if s.is_empty() {
                Err(
                    "the install registers the runner with this token (or quit and use --dry-run)"
                        .to_string(),
                )
            } else {
                Ok(())
            }
        };
        let token = self.password(
            Question::new(
                "Token",
                "Codefresh API token",
                "An API key with the scopes Runner-Installation, Agent and Agents (User settings → API keys); it is not saved.",
            ),
            &required,
        )?;
        self.set("Token", Value::String(token));
        self.row("API token", "(hidden)", false);
        Ok(())
    }
}
