//! A catalogue of the mistakes users make in values files and on the command
//! line. Each one runs the real binary in an empty folder, with no kubeconfig
//! and no stdin, and must: exit 2, name the key (or flag) at fault, print
//! nothing on stdout, write nothing (no `codefresh_manifests/`, no Helm
//! values file), and never echo a secret it was given.

use crate::support;

use std::collections::BTreeSet;
use std::path::Path;
use support::cli;

/// Stands for the folder holding the case's input files (values files,
/// `--set-file` sources) in arguments and file names.
const INPUTS: &str = "@IN@";

/// What `init` is asked to do when the input is bad.
#[derive(Clone, Copy)]
enum Mode {
    /// `init --dry-run --yes`: would write `./codefresh_manifests/`.
    DryRun,
    /// `init --dry-run --yes --generate-helm-values-file`: would write
    /// `./generated_values.yaml`.
    Helm,
    /// `init --yes`: would go to the cluster.
    Install,
}

/// One mistake and what the user must be told about it.
struct Case {
    mode: Mode,
    args: Vec<String>,
    /// Files put in the inputs folder first; a name ending in `/` is a folder.
    files: Vec<(String, String)>,
    /// Text stderr must contain: the key, and where useful the why or the fix.
    says: Vec<String>,
    /// Secret text stdout and stderr must not contain.
    hides: Vec<String>,
    /// The number of problems the report must count, when it matters.
    problems: Option<usize>,
    /// A clap usage error, which has no problem list.
    usage: bool,
}

fn bad(args: &[&str]) -> Case {
    Case {
        mode: Mode::DryRun,
        args: args.iter().map(|a| a.to_string()).collect(),
        files: Vec::new(),
        says: Vec::new(),
        hides: Vec::new(),
        problems: None,
        usage: false,
    }
}

impl Case {
    fn says(mut self, texts: &[&str]) -> Self {
        self.says.extend(texts.iter().map(|t| t.to_string()));
        self
    }
    fn hides(mut self, secrets: &[&str]) -> Self {
        self.hides.extend(secrets.iter().map(|t| t.to_string()));
        self
    }
    fn file(mut self, name: &str, text: &str) -> Self {
        self.files.push((name.to_string(), text.to_string()));
        self
    }
    fn problems(mut self, n: usize) -> Self {
        self.problems = Some(n);
        self
    }
    fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }
    fn usage_error(mut self) -> Self {
        self.usage = true;
        self
    }

    fn check(self, name: &str) {
        assert!(
            !self.says.is_empty(),
            "{name}: a case must say what it expects"
        );
        let work = tempfile::tempdir().expect("temp work dir");
        let inputs = tempfile::tempdir().expect("temp inputs dir");
        let in_path = inputs.path().display().to_string();
        for (file, text) in &self.files {
            let path = inputs.path().join(file.replace(INPUTS, &in_path));
            if file.ends_with('/') {
                std::fs::create_dir_all(&path).expect("create input folder");
            } else {
                std::fs::write(&path, text).expect("write input file");
            }
        }
        let inputs_before = listing(inputs.path());

        let mut args: Vec<String> = vec!["init".into(), "--yes".into()];
        match self.mode {
            Mode::DryRun => args.push("--dry-run".into()),
            Mode::Helm => args.extend([
                "--dry-run".into(),
                // The path is optional; giving it keeps the case's flags apart.
                "--generate-helm-values-file".into(),
                "generated_values.yaml".into(),
            ]),
            Mode::Install => {}
        }
        args.extend(self.args.iter().map(|a| a.replace(INPUTS, &in_path)));

        // HOME is the inputs folder, so a write to ~/ is caught below too.
        let out = cli::cf_runner(work.path())
            .args(&args)
            .env("HOME", inputs.path())
            .output()
            .expect("run cf-runner");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let shown = format!("args: {args:?}\n--- stdout\n{stdout}--- stderr\n{stderr}");

        assert_eq!(out.status.code(), Some(2), "{name}: exit code\n{shown}");
        assert!(
            stdout.trim().is_empty(),
            "{name}: bad input prints nothing on stdout\n{shown}"
        );
        if !self.usage {
            assert!(
                stderr.starts_with("error: the input has ")
                    && stderr.contains("nothing was applied or written"),
                "{name}: the problem report header\n{shown}"
            );
            assert!(
                stderr.contains("fix: "),
                "{name}: every problem has a fix\n{shown}"
            );
        }
        if let Some(n) = self.problems {
            let header = format!(
                "the input has {n} problem{};",
                if n == 1 { "" } else { "s" }
            );
            assert!(
                stderr.contains(&header),
                "{name}: expected `{header}`\n{shown}"
            );
        }
        for text in &self.says {
            let text = text.replace(INPUTS, &in_path);
            assert!(
                stderr.contains(&text),
                "{name}: stderr lacks `{text}`\n{shown}"
            );
        }
        for secret in &self.hides {
            assert!(
                !stderr.contains(secret.as_str()) && !stdout.contains(secret.as_str()),
                "{name}: the secret `{secret}` was echoed\n{shown}"
            );
        }
        let written = listing(work.path());
        assert!(
            written.is_empty(),
            "{name}: wrote {written:?} into the current folder\n{shown}"
        );
        assert_eq!(
            listing(inputs.path()),
            inputs_before,
            "{name}: changed the inputs folder\n{shown}"
        );
    }
}

/// Every path under `dir`, relative to it.
fn listing(dir: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read dir") {
            let path = entry.expect("dir entry").path();
            out.insert(
                path.strip_prefix(dir)
                    .expect("under dir")
                    .display()
                    .to_string(),
            );
            if path.is_dir() {
                stack.push(path);
            }
        }
    }
    out
}

/// One `#[test]` per case, so a failure is reported by the case's name.
macro_rules! catalogue {
    ($($(#[$doc:meta])* $name:ident => $case:expr;)+) => {
        $(
            $(#[$doc])*
            #[test]
            fn $name() {
                $case.check(stringify!($name));
            }
        )+
        const CASE_NAMES: &[&str] = &[$(stringify!($name)),+];
    };
}

/// An ebs backend that is otherwise complete, plus `more`.
fn ebs(more: &[&str]) -> Case {
    let mut case = bad(&[
        "--set-value",
        "Storage.Backend=ebs",
        "--set-value",
        "Storage.AvailabilityZone=us-east-1a",
    ]);
    case.args.extend(more.iter().map(|a| a.to_string()));
    case
}

catalogue! {
    // ---- names -------------------------------------------------------------
    namespace_with_capitals_and_underscore =>
        bad(&["--set-value", "Namespace=Code_Fresh"])
            .says(&["Namespace = \"Code_Fresh\"", "DNS-1123", "\"code-fresh\""])
            .problems(1);
    kube_namespace_flag_with_a_space =>
        bad(&["--kube-namespace", "my runner"]).says(&["Namespace = \"my runner\""]);
    namespace_longer_than_63 =>
        bad(&["--kube-namespace", &"a".repeat(64)]).says(&["Namespace", "at most 63"]);
    agent_name_with_spaces =>
        bad(&["--name", "my cluster"]).says(&["AgentId = \"my cluster\""]);
    storage_class_name_not_dns =>
        bad(&["--storage-class-name", "My_Class"]).says(&["StorageClass = \"My_Class\""]);
    /// A pull secret named the way a registry is, by the flag.
    image_pull_secret_flag_not_a_secret_name =>
        bad(&["--image-pull-secret", "registry.example.com:5000"])
            .says(&["--image-pull-secret", "ImagePullSecrets", "not a usable Secret name"])
            .problems(1);
    /// `nodeAfinity` would be dropped by the API server without a word.
    build_affinity_misspelt =>
        bad(&["--values", "@IN@/values.yaml"])
            .file("values.yaml", "Runtime:\n  Affinity:\n    nodeAfinity: {}\n")
            .says(&["Runtime.Affinity.nodeAfinity", "not a kind of affinity", "nodeAffinity"])
            .problems(1);
    build_pod_label_value_with_spaces =>
        bad(&["--set-value", "Runtime.PodLabels.team=continuous integration"])
            .says(&["Runtime.PodLabels.team", "not a valid label value"])
            .problems(1);
    /// A monitor of a component that is not installed would scrape nothing.
    metrics_app_proxy_without_the_app_proxy =>
        bad(&["--set-value", "Metrics.AppProxy=true"])
            .says(&["Metrics.AppProxy", "not installed", "AppProxy.Enabled"])
            .problems(1);
    /// cf-runner's own labels find the install's objects: not the user's to set.
    metrics_label_that_cf_runner_owns =>
        bad(&["--values", "@IN@/values.yaml"])
            .file("values.yaml", "Metrics:\n  Labels:\n    app.kubernetes.io/instance: prometheus\n")
            .says(&["Metrics.Labels.app.kubernetes.io/instance", "cf-runner sets", "release: prometheus"])
            .problems(1);
    /// The network address instead of the bridge's own: dockerd would not start.
    bip_is_a_network_address =>
        bad(&["--set-value", "Runtime.Bip=172.30.0.0/16"])
            .says(&["Runtime.Bip", "172.30.0.1/16"])
            .problems(1);
    volume_retention_in_words =>
        bad(&["--set-value", "Runtime.VolumeRetention=one week"])
            .says(&["Runtime.VolumeRetention", "not a number of days", "7d"])
            .problems(1);
    /// A misspelt field would be dropped by the API server: the pod would
    /// run with the default the user meant to change.
    security_context_field_kubernetes_does_not_have =>
        bad(&["--set-value", "Runner.SecurityContext.runAsUsr=1000"])
            .says(&["Runner.SecurityContext.runAsUsr", "not a field", "runAsUser"])
            .problems(1);
    security_context_user_by_name =>
        bad(&["--set-value", "Runtime.Dind.ContainerSecurityContext.runAsUser=rootless"])
            .says(&["Runtime.Dind.ContainerSecurityContext.runAsUser", "whole number"])
            .problems(1);
    openshift_in_other_words =>
        bad(&["--set-value", "OpenShift=maybe"])
            .says(&["OpenShift", "auto, true, false"])
            .problems(1);
    workflow_limit_the_engine_does_not_know =>
        bad(&["--set-value", "Runtime.WorkflowLimits.MAX_BUILD_TIME=3600"])
            .says(&["Runtime.WorkflowLimits.MAX_BUILD_TIME", "MAXIMUM_ALLOWED_WORKFLOW_AGE_BEFORE_TERMINATION"])
            .problems(1);
    /// A build's engine image must say which version it is.
    engine_image_with_a_digest_and_no_tag =>
        bad(&["--set-value", "Runtime.Engine.Image=codefresh/engine@sha256:ff57bea0"])
            .says(&["Runtime.Engine.Image", "no tag", "codefresh/engine:3.3.13@sha256"])
            .problems(1);
    step_image_the_engine_does_not_know =>
        bad(&["--set-value", "Runtime.Engine.RuntimeImages.GIT_CLONER=mirror.example.com/cf-git-cloner:10.3.14"])
            .says(&["Runtime.Engine.RuntimeImages.GIT_CLONER", "GIT_CLONE_IMAGE"])
            .problems(1);
    /// The runtime spec is stored on the platform in clear: a token given
    /// as text is refused, and the refusal does not repeat it.
    user_env_var_holding_a_token_as_text =>
        bad(&["--values", "@IN@/values.yaml"])
            .file("values.yaml", "Runtime:\n  Engine:\n    UserEnvVars:\n      - name: NPM_TOKEN\n        value: npm_Zq81secretvalue\n")
            .says(&["Runtime.Engine.UserEnvVars[0] (NPM_TOKEN)", "in clear", "secretKeyRef"])
            .hides(&["npm_Zq81secretvalue"])
            .problems(1);
    user_env_var_the_engine_already_has =>
        bad(&["--values", "@IN@/values.yaml"])
            .file("values.yaml", "Runtime:\n  Engine:\n    UserEnvVars:\n      - {name: LOGGER_LEVEL, value: info}\n")
            .says(&["Runtime.Engine.UserEnvVars[0] (LOGGER_LEVEL)", "Runtime.AdditionalEnvVars"])
            .problems(1);
    cleaner_schedule_in_words =>
        bad(&["--set-value", "Storage.VolumeCleaner.Schedule=every hour"])
            .says(&["Storage.VolumeCleaner.Schedule", "not a cron schedule", "0 * * * *"])
            .problems(1);
    provisioner_replicas_out_of_range =>
        bad(&["--set-value", "Storage.VolumeProvisioner.Replicas=10"])
            .says(&["Storage.VolumeProvisioner.Replicas", "from 1 to 5"])
            .problems(1);
    engine_grace_period_of_zero =>
        bad(&["--set-value", "Runtime.Engine.TerminationGracePeriodSeconds=0"])
            .says(&["Runtime.Engine.TerminationGracePeriodSeconds", "from 1 to 86400"])
            .problems(1);
    /// cf-runner's own agent-token Secret is no registry credential.
    image_pull_secrets_naming_cf_runners_own_secret =>
        bad(&["--values", "@IN@/values.yaml"])
            .file("values.yaml", "ImagePullSecrets:\n  - mirror-pull\n  - runner\n")
            .says(&["ImagePullSecrets", "cf-runner writes itself", "kubectl create secret docker-registry"])
            .problems(1);

    // ---- unknown keys --------------------------------------------------------
    /// A typo in a nested key gets the right sibling suggested.
    unknown_key_gets_did_you_mean =>
        bad(&["--set-value", "Storage.Backnd=ebs"])
            .says(&["Storage.Backnd", "is not a known key", "did you mean `Storage.Backend`?"]);
    /// Keys are case-sensitive; the old files used `Namespace`.
    lowercase_key_in_values_file =>
        bad(&["--values", "@IN@/values.yaml"])
            .file("values.yaml", "namespace: codefresh\n")
            .says(&["namespace", "did you mean `Namespace`?"]);
    unknown_key_far_from_any =>
        bad(&["--values", "@IN@/values.yaml"])
            .file("values.yaml", "Storage:\n  Zzqxv: 1\n")
            .says(&["Storage.Zzqxv", "the keys allowed here are:", "Backend"]);
    section_given_a_scalar =>
        bad(&["--values", "@IN@/values.yaml"])
            .file("values.yaml", "Storage: ebs\n")
            .says(&["Storage = \"ebs\"", "section of keys"]);

    // ---- storage ------------------------------------------------------------
    ebs_without_availability_zone =>
        bad(&["--set-value", "Storage.Backend=ebs"])
            .says(&["Storage.AvailabilityZone", "required for the ebs backend", "us-east-1a"]);
    ebs_csi_without_availability_zone_in_helm_mode =>
        bad(&["--set-value", "Storage.Backend=ebs-csi"])
            .mode(Mode::Helm)
            .says(&["Storage.AvailabilityZone", "ebs-csi"]);
    gcedisk_without_zone =>
        bad(&["--values", "@IN@/values.yaml"])
            .file("values.yaml", "Storage:\n  Backend: gcedisk\n")
            .says(&["Storage.AvailabilityZone", "gcedisk", "us-central1-a"]);
    zone_that_is_not_a_zone =>
        ebs(&["--set-value", "Storage.AvailabilityZone=US East 1"])
            .says(&["Storage.AvailabilityZone = \"US East 1\"", "not a zone name"]);
    iops_with_gp2 =>
        ebs(&["--set-value", "Storage.Iops=3000"])
            .says(&["Storage.Iops = 3000", "VolumeType gp2"]);
    throughput_with_io1 =>
        ebs(&["--set-value", "Storage.VolumeType=io1", "--set-value", "Storage.Throughput=250"])
            .says(&["Storage.Throughput = 250", "only gp3"]);
    gp3_iops_out_of_range =>
        ebs(&["--set-value", "Storage.VolumeType=gp3", "--set-value", "Storage.Iops=100"])
            .says(&["Storage.Iops = 100", "3000–16000"]);
    gp3_throughput_out_of_range =>
        ebs(&["--set-value", "Storage.VolumeType=gp3", "--set-value", "Storage.Throughput=5000"])
            .says(&["Storage.Throughput = 5000", "125–1000"]);
    iops_with_a_unit =>
        ebs(&["--set-value", "Storage.VolumeType=gp3", "--set-value", "Storage.Iops=3000iops"])
            .says(&["Storage.Iops = \"3000iops\"", "whole number"]);
    /// A number too big for i64 passed the shape check and was then silently
    /// dropped; it must be reported.
    iops_too_large_for_a_number_is_reported_not_dropped =>
        bad(&["--values", "@IN@/values.yaml"])
            .file(
                "values.yaml",
                "Storage:\n  Backend: ebs\n  AvailabilityZone: us-east-1a\n  VolumeType: gp3\n  \
                 Iops: 10000000000000000000\n",
            )
            .says(&["Storage.Iops"])
            .problems(1);
    volume_type_unknown =>
        ebs(&["--set-value", "Storage.VolumeType=gp4"])
            .says(&["Storage.VolumeType = \"gp4\"", "gp2, gp3, io1, io2"]);
    unknown_backend_nfs =>
        bad(&["--set-value", "Storage.Backend=nfs"])
            .says(&["Storage.Backend = \"nfs\"", "local, ebs, ebs-csi, gcedisk, azuredisk"]);
    backend_azuredisk_csi =>
        bad(&["--set-value", "Storage.Backend=azuredisk-csi"])
            .says(&["Storage.Backend = \"azuredisk-csi\"", "use azuredisk"]);
    encrypted_maybe =>
        ebs(&["--set-value", "Storage.Encrypted=maybe"])
            .says(&["Storage.Encrypted = \"maybe\"", "not a boolean"]);
    kms_key_without_encrypted =>
        ebs(&["--set-value", "Storage.KmsKeyId=arn:aws:kms:us-east-1:1:key/x"])
            .says(&["Storage.KmsKeyId", "Storage.Encrypted=true"]);
    // The identities the wizard checked, held to the same rule from a file
    // and from --set-value (they used to reach the cluster unchecked).
    kms_key_not_a_key_in_a_values_file =>
        bad(&["--values", "@IN@/values.yaml"])
            .file(
                "values.yaml",
                "Storage:\n  Backend: ebs\n  AvailabilityZone: us-east-1a\n  Encrypted: true\n  \
                 KmsKeyId: my-key\n",
            )
            .says(&["Storage.KmsKeyId = \"my-key\"", "not a KMS key", "alias/NAME"])
            .problems(1);
    kms_key_not_a_key_via_set_value =>
        ebs(&["--set-value", "Storage.Encrypted=true", "--set-value", "Storage.KmsKeyId=my-key"])
            .says(&["Storage.KmsKeyId = \"my-key\"", "not a KMS key", "arn:aws:kms:"])
            .problems(1);
    role_arn_not_an_arn_in_a_values_file =>
        bad(&["--values", "@IN@/values.yaml"])
            .file(
                "values.yaml",
                "Storage:\n  Backend: ebs\n  AvailabilityZone: us-east-1a\n  VolumeProvisioner:\n    \
                 ServiceAccount:\n      Annotations:\n        \
                 eks.amazonaws.com/role-arn: codefresh-volumes\n",
            )
            .says(&[
                "Storage.VolumeProvisioner.ServiceAccount.Annotations.eks.amazonaws.com/role-arn \
                 = \"codefresh-volumes\"",
                "not an IAM role ARN",
                "arn:aws:iam::123456789012:role/",
            ])
            .problems(1);
    role_arn_not_an_arn_via_set_value =>
        ebs(&[
            "--set-value",
            "Storage.VolumeProvisioner.ServiceAccount.Annotations.eks\\.amazonaws\\.com/role-arn=codefresh-volumes",
        ])
        .says(&[
            "Storage.VolumeProvisioner.ServiceAccount.Annotations.eks.amazonaws.com/role-arn \
             = \"codefresh-volumes\"",
            "not an IAM role ARN",
        ])
        .problems(1);
    /// The runtime's service account takes the same annotation, by the same rule.
    runtime_role_arn_not_an_arn_via_set_value =>
        bad(&[
            "--set-value",
            "Runtime.ServiceAccount.Annotations.eks\\.amazonaws\\.com/role-arn=arn:aws:iam::1:user/x",
        ])
        .says(&[
            "Runtime.ServiceAccount.Annotations.eks.amazonaws.com/role-arn",
            "not an IAM role ARN",
        ])
        .problems(1);
    gcp_service_account_not_an_email_in_a_values_file =>
        bad(&["--values", "@IN@/values.yaml"])
            .file(
                "values.yaml",
                "Storage:\n  Backend: gcedisk\n  AvailabilityZone: us-central1-a\n  VolumeProvisioner:\n    \
                 ServiceAccount:\n      Annotations:\n        \
                 iam.gke.io/gcp-service-account: volumes\n",
            )
            .says(&[
                "Storage.VolumeProvisioner.ServiceAccount.Annotations.iam.gke.io/gcp-service-account \
                 = \"volumes\"",
                "not a Google service account's email",
                "volumes@my-project.iam.gserviceaccount.com",
            ])
            .problems(1);
    gcp_service_account_not_an_email_via_set_value =>
        bad(&[
            "--set-value", "Storage.Backend=gcedisk",
            "--set-value", "Storage.AvailabilityZone=us-central1-a",
            "--set-value",
            "Storage.VolumeProvisioner.ServiceAccount.Annotations.iam\\.gke\\.io/gcp-service-account=volumes@example.com",
        ])
        .says(&[
            "Storage.VolumeProvisioner.ServiceAccount.Annotations.iam.gke.io/gcp-service-account \
             = \"volumes@example.com\"",
            "not a Google service account's email",
        ])
        .problems(1);
    sku_name_with_ebs =>
        ebs(&["--set-value", "Storage.SkuName=Premium_LRS"])
            .says(&["Storage.SkuName", "azuredisk backend, but Storage.Backend is ebs"]);
    local_dir_with_gcedisk =>
        bad(&[
            "--set-value", "Storage.Backend=gcedisk",
            "--set-value", "Storage.AvailabilityZone=us-central1-a",
            "--set-value", "Storage.LocalVolumeParentDir=/var/lib/x",
        ])
        .says(&["Storage.LocalVolumeParentDir", "belongs to the local backend"]);
    local_dir_relative =>
        bad(&["--set-value", "Storage.LocalVolumeParentDir=var/lib/codefresh"])
            .says(&["Storage.LocalVolumeParentDir = \"var/lib/codefresh\""]);

    // ---- secrets ------------------------------------------------------------
    aws_access_key_without_secret =>
        ebs(&["--set-value", "Storage.AwsAccessKeyId=AKIAEXAMPLEKEYID"])
            .says(&["Storage.AwsSecretAccessKey", "come in pairs"])
            .hides(&["AKIAEXAMPLEKEYID"]);
    aws_secret_without_access_key =>
        ebs(&["--set-value", "Storage.AwsSecretAccessKey=wJalrSECRETbPxRfiCY"])
            .says(&["Storage.AwsAccessKeyId", "come in pairs"])
            .hides(&["wJalrSECRETbPxRfiCY"]);
    aws_secret_as_a_list_is_not_echoed =>
        bad(&["--values", "@IN@/values.yaml"])
            .file(
                "values.yaml",
                "Storage:\n  Backend: ebs\n  AvailabilityZone: us-east-1a\n  \
                 AwsAccessKeyId: AKIAEXAMPLEKEYID\n  AwsSecretAccessKey: [wJalrSECRETbPxRfiCY]\n",
            )
            .says(&["Storage.AwsSecretAccessKey = <redacted>", "is a list"])
            .hides(&["wJalrSECRETbPxRfiCY", "AKIAEXAMPLEKEYID"]);
    aws_secret_with_the_wrong_backend =>
        bad(&[
            "--set-value", "Storage.AwsAccessKeyId=AKIAEXAMPLEKEYID",
            "--set-value", "Storage.AwsSecretAccessKey=wJalrSECRETbPxRfiCY",
        ])
        .says(&["Storage.AwsSecretAccessKey", "Storage.Backend is local"])
        .hides(&["wJalrSECRETbPxRfiCY", "AKIAEXAMPLEKEYID"]);
    google_service_account_not_json =>
        bad(&[
            "--set-value", "Storage.Backend=gcedisk",
            "--set-value", "Storage.AvailabilityZone=us-central1-a",
            "--set-file", "Storage.GoogleServiceAccount=@IN@/key.json",
        ])
        .file("key.json", "private_key: GOOGLESECRETKEYTEXT\n")
        .says(&["Storage.GoogleServiceAccount", "not valid JSON"])
        .hides(&["GOOGLESECRETKEYTEXT"]);
    google_service_account_json_but_not_a_key =>
        bad(&[
            "--set-value", "Storage.Backend=gcedisk",
            "--set-value", "Storage.AvailabilityZone=us-central1-a",
            "--set-file", "Storage.GoogleServiceAccount=@IN@/key.json",
        ])
        .file("key.json", r#"{"type": "authorized_user", "refresh_token": "GOOGLESECRETKEYTEXT"}"#)
        .says(&["Storage.GoogleServiceAccount", "not a service-account key"])
        .hides(&["GOOGLESECRETKEYTEXT"]);
    token_written_as_a_map_is_not_echoed =>
        bad(&["--values", "@IN@/values.yaml"])
            .file("values.yaml", "Token:\n  value: CFTOKENSECRET0123\n")
            .says(&["Token = <redacted>", "is a map"])
            .hides(&["CFTOKENSECRET0123"]);
    /// `--set-value Token:abc` (a colon for `=`) used to print the whole
    /// argument, token included.
    set_value_token_without_equals_does_not_echo_the_token =>
        bad(&["--set-value", "Token:CFTOKENSECRET0123"])
            .says(&["--set-value = <redacted>", "has no `=`"])
            .hides(&["CFTOKENSECRET0123"]);
    set_value_aws_secret_without_equals_does_not_echo_it =>
        ebs(&["--set-value", "Storage.AwsSecretAccessKey wJalrSECRETbPxRfiCY"])
            .says(&["--set-value", "has no `=`"])
            .hides(&["wJalrSECRETbPxRfiCY"]);
    /// A credential-named variable is secret whole: a colon for `=` must
    /// not echo it, from `--set-value` or `--env-vars`.
    set_value_credential_env_without_equals_does_not_echo_it =>
        bad(&["--set-value", "EnvVars.SEED_DB_PASSWORD:DBPASSSECRET0123"])
            .says(&["--set-value = <redacted>", "has no `=`"])
            .hides(&["DBPASSSECRET0123"]);
    env_vars_credential_without_equals_does_not_echo_it =>
        bad(&["--env-vars", "NPM_TOKEN:NPMTOKSECRET0123"])
            .says(&["--env-vars", "is not KEY=VALUE"])
            .hides(&["NPMTOKSECRET0123"]);
    /// dockerd cannot log in to a mirror with URL credentials, and they
    /// landed in clear in the dind ConfigMap.
    registry_mirror_with_a_password_is_refused_unechoed =>
        bad(&["--set-value", "Runtime.RegistryMirrors={https://m:MIRRORPASS0@mirror.example.com}"])
            .says(&["Runtime.RegistryMirrors[0]", "dockerd cannot log in"])
            .hides(&["MIRRORPASS0"]);
    registry_mirror_with_a_reserved_character_in_its_password_is_refused_unechoed =>
        bad(&["--values", "@IN@/v.yaml"])
            .file("v.yaml", "Runtime:\n  RegistryMirrors:\n    - https://mirror.example.com\n    - \"https://m:MIR#RORPASS1@mirror.example.com\"\n")
            .says(&["Runtime.RegistryMirrors[1]", "credentials"])
            .hides(&["RORPASS1"]);
    /// Annotations are written in clear on the StorageClass, the Ingress,
    /// the service accounts.
    storage_class_annotation_with_a_url_password_is_refused_unechoed =>
        bad(&["--set-value", "Storage.Annotations.docs=https://u:ANNOPASS2@wiki.example.com"])
            .says(&["Storage.Annotations.docs", "annotation"])
            .hides(&["ANNOPASS2"]);
    ingress_annotation_with_a_url_password_is_refused_unechoed =>
        bad(&["--values", "@IN@/v.yaml"])
            .file("v.yaml", "AppProxy:\n  Enabled: true\n  Ingress:\n    Host: ap.example.com\n    Annotations:\n      x/auth-url: \"https://u:p?ANNOPASS3@auth.example.com/check\"\n")
            .says(&["AppProxy.Ingress.Annotations.x/auth-url", "annotation"])
            .hides(&["ANNOPASS3"]);
    service_account_annotation_with_a_url_password_is_refused_unechoed =>
        bad(&["--set-value", "Runtime.ServiceAccount.Annotations.x/y=https://u:p/ANNOPASS4@h.example.com"])
            .says(&["Runtime.ServiceAccount.Annotations.x/y", "annotation"])
            .hides(&["ANNOPASS4"]);
    volume_spec_with_a_url_password_is_refused_unechoed =>
        bad(&["--values", "@IN@/v.yaml"])
            .file("v.yaml", "Runtime:\n  userVolumes:\n    data:\n      name: data\n      csi:\n        driver: x\n        volumeAttributes:\n          source: \"smb://u:p#VOLPASS5@files.example.com/share\"\n")
            .says(&["Runtime.userVolumes.data.csi.volumeAttributes.source", "environment variables"])
            .hides(&["VOLPASS5"]);
    /// A proxy password with `#` used to be printed whole in the refusal.
    proxy_password_with_a_hash_is_not_echoed =>
        bad(&["--https-proxy", "http://user:p#PROXYPASS6@proxy.example.com:3128"])
            .says(&["--https-proxy"])
            .hides(&["PROXYPASS6"]);
    platform_url_password_with_a_question_mark_is_not_echoed =>
        bad(&["--url", "https://u:p?CFURLPASS7@cf.example.com"])
            .says(&["CodefreshHost", "credentials"])
            .hides(&["CFURLPASS7"]);
    /// A shared values file's `CodefreshHost` used to receive the key of
    /// the user's `~/.cfconfig`: now refused before any request, naming both.
    values_file_host_never_gets_the_cfconfig_key =>
        bad(&["--values", "@IN@/shared.yaml", "--kube-config-path", "@IN@/kubeconfig"])
            .mode(Mode::Install)
            .file("kubeconfig", "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\ncontexts:\n- name: ctx\n  context:\n    cluster: c\n    user: u\nusers:\n- name: u\n  user:\n    token: t\ncurrent-context: ctx\n")
            .file(".cfconfig", "current-context: work\ncontexts:\n  work:\n    token: CFCONFIGKEY01\n    url: https://cf.example.test\n")
            .file("shared.yaml", "Namespace: team\nCodefreshHost: http://127.0.0.1:9\n")
            .says(&["http://127.0.0.1:9", "https://cf.example.test", "--url"])
            .hides(&["CFCONFIGKEY01"]);
    values_file_host_over_plain_http_never_gets_the_cfconfig_key =>
        bad(&["--values", "@IN@/shared.yaml", "--kube-config-path", "@IN@/kubeconfig"])
            .mode(Mode::Install)
            .file("kubeconfig", "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\ncontexts:\n- name: ctx\n  context:\n    cluster: c\n    user: u\nusers:\n- name: u\n  user:\n    token: t\ncurrent-context: ctx\n")
            .file(".cfconfig", "current-context: work\ncontexts:\n  work:\n    token: CFCONFIGKEY02\n    url: https://cf.example.test\n")
            .file("shared.yaml", "CodefreshHost: http://cf.example.test\n")
            .says(&["http://cf.example.test", "https://cf.example.test"])
            .hides(&["CFCONFIGKEY02"]);
    token_beside_another_problem_is_not_echoed =>
        bad(&["--token", "CFTOKENSECRET0123", "--url", "g.codefresh.io"])
            .says(&["CodefreshHost = \"g.codefresh.io\""])
            .hides(&["CFTOKENSECRET0123"]);

    // ---- resources ------------------------------------------------------------
    memory_limit_in_gigabytes =>
        bad(&["--set-value", "Runtime.resources.limits.memory=1GB"])
            .says(&[
                "Runtime.resources.limits.memory = \"1GB\"",
                "not a Kubernetes quantity",
                "2Gi",
            ]);
    request_above_limit =>
        bad(&["--values", "@IN@/values.yaml"])
            .file(
                "values.yaml",
                "Runtime:\n  resources:\n    limits: {cpu: 500m}\n    requests: {cpu: '1'}\n",
            )
            .says(&["Runtime.resources.requests.cpu", "larger than the limit 500m"]);
    resource_name_unknown =>
        bad(&["--set-value", "Runner.resources.limits.gpu=1"])
            .says(&["Runner.resources.limits.gpu", "not a resource name"]);
    resources_section_misspelt =>
        bad(&["--set-value", "Monitor.resources.limit.cpu=1"])
            .says(&["Monitor.resources.limit", "use limits and requests"]);

    // ---- scheduling -----------------------------------------------------------
    node_selector_without_equals =>
        bad(&["--kube-node-selector", "foo"])
            .says(&["NodeSelector = \"foo\"", "not `key=value`"]);
    build_node_selector_with_invalid_label_key =>
        bad(&["--build-node-selector", "bad key!=x"])
            .says(&["Runtime.NodeSelector", "label key `bad key!`"]);
    node_selector_with_invalid_label_value =>
        bad(&["--kube-node-selector", "pool=ci pool"])
            .says(&["NodeSelector", "label value `ci pool`"]);
    toleration_with_unknown_operator =>
        bad(&["--tolerations", r#"[{"key":"dedicated","operator":"Equals","value":"ci"}]"#])
            .says(&["Tolerations[0].operator = \"Equals\"", "Equal or Exists"]);
    toleration_with_unknown_effect =>
        bad(&["--tolerations", r#"[{"key":"dedicated","value":"ci","effect":"NoExec"}]"#])
            .says(&["Tolerations[0].effect = \"NoExec\"", "NoSchedule"]);
    toleration_exists_with_value =>
        bad(&["--values", "@IN@/values.yaml"])
            .file(
                "values.yaml",
                "Runtime:\n  tolerations:\n  - key: dedicated\n    operator: Exists\n    \
                 value: ci\n",
            )
            .says(&["Runtime.tolerations[0].value = \"ci\"", "operator is Exists"]);
    toleration_without_key =>
        bad(&["--tolerations", r#"[{"operator":"Equal","value":"ci"}]"#])
            .says(&["Tolerations[0].key", "is missing"]);
    toleration_field_misspelt =>
        bad(&["--tolerations", r#"[{"key":"a","efect":"NoSchedule"}]"#])
            .says(&["Tolerations[0].efect", "not a toleration field"]);
    tolerations_flag_not_json =>
        bad(&["--tolerations", "key=dedicated:NoSchedule"])
            .says(&["--tolerations", "not a JSON list of tolerations"]);
    tolerations_flag_names_a_missing_file =>
        bad(&["--tolerations", "@@IN@/tolerations.json"])
            .says(&["--tolerations", "could not be read"]);

    // ---- network and URLs -------------------------------------------------------
    http_proxy_not_a_url =>
        bad(&["--http-proxy", "proxy corp 3128"])
            .says(&["EnvVars.HTTP_PROXY = \"proxy corp 3128\"", "not a URL"]);
    https_proxy_with_ftp_scheme =>
        bad(&["--https-proxy", "ftp://proxy.corp:3128"])
            .says(&["EnvVars.HTTPS_PROXY", "scheme `ftp`"]);
    codefresh_host_without_scheme =>
        bad(&["--url", "g.codefresh.io"])
            .says(&["CodefreshHost = \"g.codefresh.io\"", "https://"]);
    docker_registry_with_spaces =>
        bad(&["--docker-registry", "my registry"])
            .says(&["DockerRegistry = \"my registry\""]);
    registry_mirror_without_scheme =>
        bad(&["--set-value", "Runtime.RegistryMirrors={mirror.example.com}"])
            .says(&["Runtime.RegistryMirrors[0] = \"mirror.example.com\"", "https://"]);
    insecure_registry_with_scheme =>
        bad(&["--values", "@IN@/values.yaml"])
            .file("values.yaml", "Runtime:\n  InsecureRegistries:\n  - http://10.0.0.5:5000\n")
            .says(&[
                "Runtime.InsecureRegistries[0] = \"http://10.0.0.5:5000\"",
                "without a scheme",
            ]);
    mtu_70000 =>
        bad(&["--set-value", "Runtime.Mtu=70000"])
            .says(&["Runtime.Mtu = 70000", "576–9001"]);

    // ---- images ------------------------------------------------------------------
    image_with_latest_tag =>
        bad(&[
            "--set-value",
            "Storage.VolumeProvisioner.Image=quay.io/codefresh/dind-volume-provisioner:latest",
        ])
            .says(&["Storage.VolumeProvisioner.Image", "floating tag latest"]);
    image_tag_latest_by_name_and_tag =>
        bad(&[
            "--set-value", "Monitor.Image.Name=quay.io/codefresh/agent",
            "--set-value", "Monitor.Image.Tag=latest",
        ])
            .says(&["Monitor.Image.Tag = \"latest\"", "floating tag latest"]);
    image_without_tag =>
        bad(&["--set-value", "Storage.VolumeCleaner.Image=quay.io/codefresh/dind-volume-cleanup"])
            .says(&["Storage.VolumeCleaner.Image", "has no tag"]);
    image_tag_without_name =>
        bad(&["--set-value", "AppProxy.Image.Tag=1.2.3"])
            .says(&["AppProxy.Image.Tag", "without an image name"]);

    // ---- app-proxy ----------------------------------------------------------------
    app_proxy_without_host =>
        bad(&["--app-proxy"])
            .says(&[
                "AppProxy.Ingress.Host",
                "required when the app-proxy is enabled",
                "--app-proxy-host",
            ]);
    app_proxy_host_with_scheme =>
        bad(&["--app-proxy", "--app-proxy-host", "https://x"])
            .says(&["AppProxy.Ingress.Host = \"https://x\"", "no scheme"]);
    app_proxy_path_prefix_without_slash =>
        bad(&[
            "--app-proxy",
            "--app-proxy-host", "app-proxy.example.com",
            "--set-value", "AppProxy.Ingress.PathPrefix=app-proxy",
        ])
            .says(&["AppProxy.Ingress.PathPrefix = \"app-proxy\"", "start it with /"]);
    app_proxy_ingress_class_not_a_name =>
        bad(&[
            "--app-proxy-host", "app-proxy.example.com",
            "--app-proxy-ingress-class", "Nginx Public",
        ])
            .says(&["AppProxy.Ingress.IngressClass = \"Nginx Public\""]);

    // ---- booleans, sizes, arch ---------------------------------------------------
    bool_key_with_yes =>
        bad(&["--set-value", "Monitor.Enabled=yes"])
            .says(&["Monitor.Enabled = \"yes\"", "true or false"]);
    volume_size_without_unit =>
        bad(&["--set-value", "Runtime.VolumeSize=10"])
            .says(&["Runtime.VolumeSize = \"10\"", "16Gi"]);
    volume_size_below_1gi =>
        bad(&["--set-value", "Runtime.VolumeSize=512Mi"])
            .says(&["Runtime.VolumeSize = \"512Mi\"", "at least 1Gi"]);
    arch_unknown =>
        bad(&["--set-value", "Arch=x86"]).says(&["Arch = \"x86\"", "amd64 or arm64"]);
    env_var_name_starting_with_a_digit =>
        bad(&["--env-vars", "1FOO=bar"])
            .says(&["EnvVars.1FOO", "not a valid environment variable name"]);
    annotation_key_invalid =>
        bad(&["--values", "@IN@/values.yaml"])
            .file(
                "values.yaml",
                "Runtime:\n  ServiceAccount:\n    Annotations:\n      'bad key': x\n",
            )
            .says(&["Runtime.ServiceAccount.Annotations.bad key", "not a valid annotation key"]);

    // ---- files and flags ----------------------------------------------------------
    values_file_invalid_yaml =>
        bad(&["--values", "@IN@/values.yaml"])
            .file("values.yaml", "Namespace: codefresh\nStorage:\n  Backend: [ebs\n")
            .says(&["@IN@/values.yaml", "is not valid YAML", "line"]);
    values_file_is_a_list =>
        bad(&["--values", "@IN@/values.yaml"])
            .file("values.yaml", "- Namespace: codefresh\n")
            .says(&["@IN@/values.yaml", "holds a list at the top level"]);
    values_file_missing =>
        bad(&["--values", "@IN@/no-such-values.yaml"])
            .says(&["--values = \"@IN@/no-such-values.yaml\"", "could not be read"]);
    set_value_without_equals =>
        bad(&["--set-value", "Storage.Backend"])
            .says(&["--set-value = \"Storage.Backend\"", "has no `=`", "KEY=VALUE"]);
    set_value_with_empty_key_between_dots =>
        bad(&["--set-value", "Storage..Backend=ebs"])
            .says(&["--set-value = \"Storage..Backend\"", "empty key"]);
    set_file_missing_file =>
        bad(&[
            "--set-value", "Storage.Backend=gcedisk",
            "--set-value", "Storage.AvailabilityZone=us-central1-a",
            "--set-file", "Storage.GoogleServiceAccount=@IN@/no-such-key.json",
        ])
        .says(&[
            "--set-file Storage.GoogleServiceAccount",
            "no-such-key.json",
            "could not be read",
        ]);
    env_vars_without_equals =>
        bad(&["--env-vars", "FOO"]).says(&["--env-vars = \"FOO\"", "KEY=VALUE"]);
    output_dir_is_a_file =>
        bad(&["--output-dir", "@IN@/manifests"])
            .file("manifests", "not a folder\n")
            .says(&["--output-dir", "is a file, not a folder"]);
    helm_values_path_is_a_folder =>
        bad(&["--dry-run", "--generate-helm-values-file", "@IN@/out/"])
            .mode(Mode::Install)
            .file("out/", "")
            .says(&["--generate-helm-values-file", "is a folder, not a file"]);

    // ---- usage errors (clap) ---------------------------------------------------------
    unknown_flag =>
        bad(&["--kube-namspace", "codefresh"])
            .usage_error()
            .says(&["error: unexpected argument '--kube-namspace'", "--kube-namespace"]);
    bool_flag_with_a_word =>
        bad(&["--install-monitor=maybe"])
            .usage_error()
            .says(&["--install-monitor", "maybe"]);

    // ---- several problems at once -----------------------------------------------------
    /// Every problem from every layer comes in one report, so the user fixes
    /// them in one go.
    many_problems_are_reported_together =>
        bad(&[
            "--values", "@IN@/values.yaml",
            "--set-value", "Runtime.resources.limits.memory=1GB",
            "--kube-namespace", "Code_Fresh",
            "--http-proxy", "proxy:3128:x",
        ])
        .file("values.yaml", "Storage:\n  Backend: ebs\n  Backnd: ebs\n  Iops: 3000\n")
        .says(&[
            "Namespace = \"Code_Fresh\"",
            "Storage.Backnd",
            "Storage.AvailabilityZone",
            "Storage.Iops",
            "Runtime.resources.limits.memory",
            "EnvVars.HTTP_PROXY",
        ])
        .problems(6);
    flag_problems_are_reported_together =>
        bad(&["--values", "@IN@/missing.yaml", "--env-vars", "FOO", "--tolerations", "{}"])
            .says(&["--values", "--env-vars", "--tolerations"])
            .problems(3);
    bad_input_stops_an_install_before_the_cluster =>
        // No kubeconfig here either: both are reported at once.
        bad(&["--set-value", "Storage.Backend=ebs"])
            .mode(Mode::Install)
            .says(&["Storage.AvailabilityZone", "Context: is required to install", "--kube-context-name"])
            .problems(2);

    // ---- accepted silently before: each is refused now --------------------
    /// The last of two `Namespace` lines used to win: the install went to `evil`.
    duplicate_key_names_the_key_and_both_lines =>
        bad(&["--values", "@IN@/values.yaml"])
            .file("values.yaml", "Namespace: codefresh\nStorage:\n  Backend: local\nNamespace: evil\n")
            .says(&["Namespace: is written twice", "values.yaml, at lines 1 and 4"])
            .problems(1);
    duplicate_nested_key_is_named_by_its_path =>
        bad(&["--values", "@IN@/values.yaml"])
            .file("values.yaml", "Runtime:\n  Mtu: 1440\n  Mtu: 9000\n")
            .says(&["Runtime.Mtu: is written twice", "lines 2 and 3"]);
    /// `.nan` used to become null, so the default namespace was used.
    nan_namespace_is_not_the_default =>
        bad(&["--values", "@IN@/values.yaml"])
            .file("values.yaml", "Namespace: .nan\n")
            .says(&["Namespace = \".nan\"", "DNS-1123"]);
    infinite_mtu_is_not_dropped =>
        bad(&["--values", "@IN@/values.yaml"])
            .file("values.yaml", "Runtime:\n  Mtu: .inf\n")
            .says(&["Runtime.Mtu = \".inf\"", "whole number"]);
    hex_mtu_is_not_read_as_a_string_of_digits =>
        bad(&["--values", "@IN@/values.yaml"])
            .file("values.yaml", "Runtime:\n  Mtu: 0x5A0\n")
            .says(&["Runtime.Mtu = \"0x5A0\"", "whole number"]);
    /// tolerationSeconds used to be dropped when quoted, and accepted with NoSchedule.
    toleration_seconds_without_no_execute =>
        bad(&["--tolerations", r#"[{"key":"a","tolerationSeconds":"60"}]"#])
            .says(&["Tolerations[0].tolerationSeconds = \"60\"", "NoExecute"]);
    toleration_seconds_with_no_schedule =>
        bad(&["--values", "@IN@/values.yaml"])
            .file("values.yaml", "Runtime:\n  tolerations:\n  - {key: a, effect: NoSchedule, tolerationSeconds: 60}\n")
            .says(&["Runtime.tolerations[0].tolerationSeconds = 60", "NoExecute"]);
    toleration_seconds_not_a_number =>
        bad(&["--tolerations", r#"[{"key":"a","effect":"NoExecute","tolerationSeconds":"soon"}]"#])
            .says(&["Tolerations[0].tolerationSeconds = \"soon\"", "whole number of seconds"]);
    toleration_key_with_a_space =>
        bad(&["--tolerations", r#"[{"key":"my key","operator":"Exists"}]"#])
            .says(&["Tolerations[0].key = \"my key\"", "not a valid taint key"]);
    toleration_key_with_a_newline =>
        bad(&["--values", "@IN@/values.yaml"])
            .file("values.yaml", "Tolerations:\n- {key: \"a\\nb\", operator: Exists}\n")
            .says(&["Tolerations[0].key = \"a\\nb\"", "not a valid taint key"]);
    toleration_value_not_a_label_value =>
        bad(&["--tolerations", r#"[{"key":"a","value":"x y","effect":"NoSchedule"}]"#])
            .says(&["Tolerations[0].value = \"x y\"", "not a valid taint value"]);
    env_value_with_a_nul =>
        bad(&["--values", "@IN@/values.yaml"])
            .file("values.yaml", "EnvVars:\n  A: \"x\\0y\"\n")
            .says(&["EnvVars.A: holds a NUL character"]);
    context_of_100000_characters =>
        bad(&["--kube-context-name", &"c".repeat(100_000)])
            .says(&["Context: is 100000 characters long", "4096"]);
    local_volume_dir_etc =>
        bad(&["--set-value", "Storage.LocalVolumeParentDir=/etc"])
            .says(&["Storage.LocalVolumeParentDir = \"/etc\"", "system folder", "/var/lib/codefresh/dind-volumes"]);
    local_volume_dir_kubelet =>
        bad(&["--set-value", "Storage.LocalVolumeParentDir=/var/lib/kubelet/pods/"])
            .says(&["Storage.LocalVolumeParentDir", "inside /var/lib/kubelet"]);
    local_volume_dir_proc_spelled_oddly =>
        bad(&["--set-value", "Storage.LocalVolumeParentDir=//proc/./"])
            .says(&["Storage.LocalVolumeParentDir", "is /proc"]);

    // ---- bounds ----------------------------------------------------------------
    /// `--values /dev/zero` used to grow to gigabytes.
    values_from_dev_zero =>
        bad(&["--values", "/dev/zero"]).says(&["--values = \"/dev/zero\"", "character device, not a file"]);
    set_file_from_dev_zero =>
        bad(&["--set-file", "EnvVars.A=/dev/zero"]).says(&["--set-file EnvVars.A = \"/dev/zero\"", "character device"]);
    values_is_a_folder =>
        bad(&["--values", "@IN@/dir/"]).file("dir/", "").says(&["is a folder, not a file"]);
    values_file_over_a_megabyte =>
        bad(&["--values", "@IN@/big.yaml"])
            .file("big.yaml", &format!("# {}\n", "x".repeat(1_100_000)))
            .says(&["big.yaml", "larger than the 1048576 bytes"]);
    /// 100 KB of `[` kept the old parser busy for more than 90 s.
    values_file_of_open_brackets =>
        bad(&["--values", "@IN@/deep.yaml"])
            .file("deep.yaml", &"[".repeat(100_000))
            .says(&["deep.yaml", "not valid YAML"]);
    values_file_nested_too_deep =>
        bad(&["--values", "@IN@/deep.yaml"])
            .file("deep.yaml", &format!("A: {}1{}\n", "[".repeat(100), "]".repeat(100)))
            .says(&["deep.yaml", "more than 64 levels deep"]);
    values_file_alias_bomb =>
        bad(&["--values", "@IN@/bomb.yaml"])
            .file("bomb.yaml", &alias_bomb())
            .says(&["bomb.yaml", "more than 100000 values"]);

    // ---- characters a YAML text may not hold (issue 21) -----------------------
    // Each file holds the raw character (a real NUL byte, not an escape):
    // the YAML reader took a NUL for the end of the text and rendered what
    // came before it, exit 0.
    /// `Namespace: prod<NUL>` and more keys: the rest used to vanish.
    values_file_with_a_nul_byte_after_a_value =>
        bad(&["--values", "@IN@/nul.yaml"])
            .file("nul.yaml", "Namespace: prod\0\nNoSuchKey: 1\n")
            .says(&["nul.yaml", "U+0000 (NUL)", "line 1, column 16"]);
    values_file_that_is_utf16 =>
        bad(&["--values", "@IN@/utf16.yaml"])
            .file("utf16.yaml", "N\0a\0m\0e\0s\0p\0a\0c\0e\0:\0 \0x\0\n\0")
            .says(&["utf16.yaml", "U+0000 (NUL)", "line 1, column 2", "UTF-16"]);
    values_file_with_a_nul_on_a_later_line =>
        bad(&["--values", "@IN@/nul.yaml"])
            .file("nul.yaml", "Namespace: prod\nContext: c\nEnvVars:\n  A: \"x\0y\"\n")
            .says(&["nul.yaml", "U+0000", "line 4, column 8"]);
    values_file_with_a_byte_order_mark_inside =>
        bad(&["--values", "@IN@/bom.yaml"])
            .file("bom.yaml", "Namespace: prod\n\u{feff}Context: c\n")
            .says(&["bom.yaml", "U+FEFF (a byte order mark)", "line 2, column 1"]);
    values_file_with_a_control_character =>
        bad(&["--values", "@IN@/bell.yaml"])
            .file("bell.yaml", "Namespace: pro\u{7}d\n")
            .says(&["bell.yaml", "U+0007 (a control character)", "line 1, column 15"]);
    values_file_with_a_c1_control_character =>
        bad(&["--values", "@IN@/c1.yaml"])
            .file("c1.yaml", "Namespace: prod\nContext: \u{9b}31m\n")
            .says(&["c1.yaml", "U+009B", "line 2, column 10"]);

    // ---- crashes and wraps (issue 21) -----------------------------------------
    /// A path thousands of keys deep overflowed the stack (exit 134).
    set_value_path_thousands_of_keys_deep =>
        bad(&["--set-value", &format!("{}B=1", "A.".repeat(5000))])
            .says(&["--set-value", "more than 64 keys deep"]);
    set_value_path_of_nested_lists_deep =>
        bad(&["--set-value", &format!("A{}=1", "[0]".repeat(3000))])
            .says(&["--set-value", "more than 64 keys deep"]);
    set_value_path_one_past_the_bound =>
        bad(&["--set-value", &format!("{}B=1", "A.".repeat(64))])
            .says(&["--set-value", "more than 64 keys deep"]);
    set_file_path_thousands_of_keys_deep =>
        bad(&["--set-file", &format!("{}B=@IN@/f.txt", "A.".repeat(5000))])
            .file("f.txt", "x")
            .says(&["--set-file", "more than 64 keys deep"]);
    /// `--timeout` in hours wrapped to a few seconds (or panicked).
    timeout_hours_that_wrap_u64 =>
        bad(&["--timeout", "5124095576030432h"])
            .usage_error()
            .says(&["--timeout", "longer than the 24h a wait may last"]);
    timeout_seconds_past_u64 =>
        bad(&["--timeout", "18446744073709551616"])
            .usage_error()
            .says(&["--timeout", "longer than the 24h a wait may last"]);
    timeout_minutes_past_a_day =>
        bad(&["--timeout", "1441m"])
            .usage_error()
            .says(&["--timeout", "longer than the 24h a wait may last"]);
    timeout_hours_past_any_clock =>
        bad(&["--timeout", "9999999999999999h"])
            .usage_error()
            .says(&["--timeout", "longer than the 24h a wait may last"]);
    probe_timeout_past_a_day =>
        bad(&["--probe-timeout", "25h"])
            .usage_error()
            .says(&["--probe-timeout", "longer than the 24h a wait may last"]);

    // ---- messages ----------------------------------------------------------------
    /// A key with escape sequences set the terminal title and forged an `error:` line.
    escape_sequences_in_a_key_are_shown_escaped =>
        bad(&["--set-value", "Bad\u{1b}]0;TITLE\u{7}\nerror: x=1"])
            .says(&["Bad\\e]0;TITLE\\u{7}\\nerror: x: is not a known key"]);
    build_node_selector_names_the_flag_then_the_key =>
        bad(&["--build-node-selector", "pool"])
            .says(&["--build-node-selector → Runtime.NodeSelector", "`pool`"]);

    // ---- an agent alone (--agent-only) ------------------------------------------
    agent_only_with_a_storage_class_flag =>
        bad(&["--agent-only", "--storage-class-name", "fast"])
            .says(&["--storage-class-name → StorageClass", "AgentOnly (--agent-only) installs the agent without one"])
            .problems(1);
    agent_only_with_runtime_keys_in_a_values_file =>
        bad(&["--values", "@IN@/agent.yaml"])
            .file("agent.yaml", "AgentOnly: true\nStorage:\n  Backend: local\nRuntime:\n  NodeSelector: {pool: builds}\n")
            .says(&["Storage.Backend", "Runtime.NodeSelector.pool", "Runtimes entry's keys"])
            .problems(2);
    agent_only_has_no_chart_values =>
        bad(&["--agent-only"])
            .mode(Mode::Helm)
            .says(&["--generate-helm-values-file", "the cf-runtime chart always installs the agent with a runtime"]);
    agent_only_needs_the_platform =>
        bad(&["--agent-only", "--agent-token", "AGENTONLYTOKEN1", "--kube-namespace", "hub", "--kube-context-name", "hub-ctx"])
            .mode(Mode::Install)
            .says(&["AgentOnly", "needs the Codefresh platform", "--token"])
            .hides(&["AGENTONLYTOKEN1"]);
}

/// Nine levels of aliases, each repeating the one before ten times.
fn alias_bomb() -> String {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..9 {
        let prev = format!("*a{}", i - 1);
        text.push_str(&format!(
            "a{i}: &a{i} [{}]\n",
            [prev.as_str(); 10].join(", ")
        ));
    }
    text
}

#[test]
fn the_catalogue_covers_at_least_110_mistakes() {
    assert!(CASE_NAMES.len() >= 110, "only {} cases", CASE_NAMES.len());
    let distinct: BTreeSet<_> = CASE_NAMES.iter().collect();
    assert_eq!(distinct.len(), CASE_NAMES.len());
}
