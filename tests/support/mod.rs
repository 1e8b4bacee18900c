//! Helpers shared by the integration tests (`mod support;` in a test file).

pub mod adopt;
pub mod audit;
pub mod ci;
pub mod cli;
pub mod connect_proxy;
pub mod controlplane;
pub mod fake_platform;
pub mod gateway;
pub mod helm;
pub mod namespace;
pub mod objects;
pub mod rollout;
pub mod tls_front;
pub mod tool;
pub mod venona;
