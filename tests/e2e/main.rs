//! The end-to-end tests that share one test control plane (see
//! `support::controlplane::shared`), linked into one binary, so the control
//! plane starts once for all of them and the binary is linked once. Each
//! test works in a namespace of its own (and, where it reads the audit log,
//! only its own namespaces' or users' requests); a test that breaks the
//! control plane on purpose, or needs a second cluster, starts a private
//! one. Run one file's tests with `cargo test --test e2e <file>::`.
//!
//! Kept out, in binaries of their own (each says why in its opening
//! comment): tests that change what every test of the cluster sees
//! (`e2e_admission`: webhooks and Pod Security; `e2e_preflight_nodes`,
//! `e2e_probe`: nodes that come and go), tests that need the control plane
//! to themselves at times (`e2e_quiet/`: audit-log assertions over every
//! request of cf-runner or of the `limited` user, a node that fails every
//! check), the tests in a pseudo-terminal (`e2e_terminal/`) and the
//! benchmark (`bench_apply`).

#[path = "../support/mod.rs"]
mod support;

mod attached_runtimes;
mod e2e_adopt;
mod e2e_adopt_credentials;
mod e2e_adopt_extra;
mod e2e_adopt_pod_identity;
mod e2e_adopt_runtimes;
mod e2e_apply_order;
mod e2e_attach;
mod e2e_attach_values;
mod e2e_build_rights;
mod e2e_ca_bundle_record;
mod e2e_cluster_access;
mod e2e_controlplane;
mod e2e_diagnose;
mod e2e_diff;
mod e2e_examples_apply;
mod e2e_extra_resources;
mod e2e_fleet;
mod e2e_foreign_install;
mod e2e_gateway;
mod e2e_init;
mod e2e_install_thread;
mod e2e_lifecycle;
mod e2e_lock;
mod e2e_lock_forged;
mod e2e_lock_namespace;
mod e2e_messages;
mod e2e_metrics;
mod e2e_openshift;
mod e2e_ownership;
mod e2e_ownership_forged;
mod e2e_platform;
mod e2e_preflight_rules;
mod e2e_reach;
mod e2e_rotate;
mod e2e_runtime_credentials;
mod e2e_support_bundle;
mod e2e_support_bundle_scan;
mod e2e_terminal_data;
mod e2e_trust_platform;
mod e2e_tuning_diff;
mod e2e_venona;
mod e2e_venona_attach;
mod e2e_wait_outage;
