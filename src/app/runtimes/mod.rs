//! Runtimes an agent serves beyond its own: attach and detach (`attach`),
//! each runtime's own upgrade and delete (`life`), the rotation of an
//! attached runtime's access token (`rotate`), and the view of them for
//! `info` and `check` (`view`).

pub mod attach;
pub mod life;
pub mod rotate;
pub mod view;
