//! Runtimes an agent serves beyond its own: attach and detach (`attach`),
//! one runtime's delete (`life`) and upgrade (`upgrade`), the rotation of
//! an attached runtime's access token (`rotate`), the attached runtimes as
//! `delete` of their agent sees them (`attached`), and the view of them for
//! `info` and `check` (`view`). What they share: the runtime they work on
//! (`target`), the agent's side (`agent_side`) and the runtime's side
//! (`access`).

pub mod access;
pub mod agent_side;
pub mod attach;
pub mod attached;
pub mod life;
pub mod rotate;
pub mod target;
pub mod upgrade;
pub mod view;
