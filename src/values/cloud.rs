//! The shapes of cloud identities a values key can name: an AWS IAM role
//! ARN, an AWS KMS key, a Google service account's email. One home for
//! each rule, so a values file, `--set-value` and a wizard answer are held
//! to the same one.

/// The service-account annotation that names the IAM role pods assume (EKS).
pub const IAM_ROLE_ANNOTATION: &str = "eks.amazonaws.com/role-arn";
/// The service-account annotation that names the Google service account
/// pods act as (GKE Workload Identity).
pub const GCP_SERVICE_ACCOUNT_ANNOTATION: &str = "iam.gke.io/gcp-service-account";

/// Why a text does not have the shape its key needs, and how to write it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Misfit {
    /// Completes "KEY = VALUE ...", e.g. `is not an IAM role ARN`.
    pub why: &'static str,
    /// What to write instead, with an example.
    pub fix: &'static str,
}

impl Misfit {
    /// One line for a prompt that re-asks: the value, why, and the fix.
    pub fn for_answer(&self, value: &str) -> String {
        format!("{value:?} {}; {}", self.why, self.fix)
    }
}

/// An IAM role ARN: `arn:aws…:iam::ACCOUNT:role/NAME`.
pub fn iam_role_arn(text: &str) -> Result<(), Misfit> {
    if text.starts_with("arn:aws") && text.contains(":iam::") && text.contains(":role/") {
        return Ok(());
    }
    Err(Misfit {
        why: "is not an IAM role ARN",
        fix: "write the role's ARN, e.g. arn:aws:iam::123456789012:role/codefresh-volumes",
    })
}

/// A KMS key as EBS takes it: a key or alias ARN, a key id (a UUID), or
/// `alias/NAME`.
pub fn kms_key(text: &str) -> Result<(), Misfit> {
    if text.starts_with("arn:aws") && text.contains(":kms:")
        || text.starts_with("alias/")
        || is_uuid(text)
    {
        return Ok(());
    }
    Err(Misfit {
        why: "is not a KMS key ARN, key id or alias",
        fix: "write a key ARN (arn:aws:kms:…), a key id, or alias/NAME",
    })
}

/// A Google service account's email: `NAME@PROJECT.iam.gserviceaccount.com`.
pub fn gcp_service_account(text: &str) -> Result<(), Misfit> {
    if text.contains('@') && text.ends_with(".gserviceaccount.com") {
        return Ok(());
    }
    Err(Misfit {
        why: "is not a Google service account's email",
        fix: "write the service account's email, e.g. volumes@my-project.iam.gserviceaccount.com",
    })
}

/// A shape rule: `Ok` when the text has the shape.
pub type Rule = fn(&str) -> Result<(), Misfit>;

/// The rule for a service-account annotation, if it names a cloud identity.
pub fn annotation_rule(name: &str) -> Option<Rule> {
    match name {
        IAM_ROLE_ANNOTATION => Some(iam_role_arn),
        GCP_SERVICE_ACCOUNT_ANNOTATION => Some(gcp_service_account),
        _ => None,
    }
}

fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.chars().enumerate().all(|(i, c)| {
            if [8, 13, 18, 23].contains(&i) {
                c == '-'
            } else {
                c.is_ascii_hexdigit()
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_identity_takes_its_documented_forms_and_nothing_else() {
        assert!(iam_role_arn("arn:aws:iam::123456789012:role/codefresh-volumes").is_ok());
        assert!(iam_role_arn("arn:aws-cn:iam::123456789012:role/x").is_ok());
        assert!(iam_role_arn("codefresh-volumes").is_err());
        assert!(iam_role_arn("arn:aws:iam::123456789012:user/x").is_err());

        assert!(kms_key("arn:aws:kms:us-east-1:123456789012:key/1234abcd").is_ok());
        assert!(kms_key("alias/builds").is_ok());
        assert!(kms_key("1234abcd-12ab-34cd-56ef-1234567890ab").is_ok());
        assert!(kms_key("my-key").is_err());
        assert!(kms_key("1234abcd-12ab-34cd-56ef-1234567890az").is_err());

        assert!(gcp_service_account("volumes@my-project.iam.gserviceaccount.com").is_ok());
        assert!(gcp_service_account("volumes").is_err());
        assert!(gcp_service_account("volumes@example.com").is_err());
    }
}
