//! Who the runner is on the Codefresh platform: one way from a token to a
//! checked client (`register`), the agent and its name (`agent`), the runtime
//! environment's spec, the dind certificate the platform signs
//! (`certificate`), the agent's token and its renewal (`agent_token`),
//! removing what was registered (`unregister`), and the checks that a recorded name really is ours
//! before the user's token acts on it (`verified`).

pub mod agent;
pub mod agent_token;
pub mod certificate;
pub mod certificate_renewal;
pub mod register;
pub mod registrar;
pub mod unregister;
pub mod verified;
