//! The render's [`Identity`] — names and credentials that do not come from
//! the values — built in one place: seeded from the values and the context
//! before the platform is asked, or read back from what an installation
//! recorded. The steps that register on the platform fill in the rest.

use crate::cluster::inventory::Record;
use crate::render::Identity;
use crate::values::Values;

/// The identity before anything is registered: the kube context (for names
/// like `<context>/<namespace>`) and the agent and runtime names the values
/// give. Everything else renders as a placeholder.
pub(crate) fn seed(values: &Values, context: Option<String>) -> Identity {
    Identity {
        context,
        agent_name: values.agent_name.clone(),
        runtime_name: values.runtime_name.clone(),
        ..Default::default()
    }
}

/// The identity an installation recorded: its agent and runtime names
/// (else the values'), whether it registered on the platform, and the
/// context connected to. Credentials are read back separately.
pub(crate) fn recorded(record: &Record, values: Option<&Values>, context: &str) -> Identity {
    Identity {
        context: Some(context.to_string()),
        agent_name: record
            .agent_name
            .clone()
            .or_else(|| values.and_then(|v| v.agent_name.clone())),
        // An agent-only install records an empty runtime name.
        runtime_name: record
            .runtime_name
            .clone()
            .filter(|name| !name.is_empty())
            .or_else(|| values.and_then(|v| v.runtime_name.clone())),
        registered: record.registered.unwrap_or(false),
        ..Default::default()
    }
}
