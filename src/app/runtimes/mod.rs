//! Runtimes an agent serves beyond its own: attach and detach (`attach`),
//! one runtime's delete (`life`) and upgrade (`upgrade`), the rotation of
//! an attached runtime's access token (`rotate`), the attached runtimes as
//! `delete` of their agent sees them (`attached`), and the view of them for
//! `info` and `check` (`view`).

pub mod attach;
pub mod attached;
pub mod life;
pub mod rotate;
pub mod upgrade;
pub mod view;
