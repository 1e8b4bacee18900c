//! dind's bridge against the cluster's networks. The docker daemon in each
//! dind pod puts build containers on its own bridge, `172.17.0.0/16`
//! unless daemon.json sets `bip`. When a pod or Service address of the
//! cluster falls inside it, the engine's and the steps' traffic to that
//! address stays on the bridge and never arrives (the `EHOSTUNREACH` of the
//! knowledge base). This compares the bridge with the nodes' pod CIDRs and
//! the Service CIDRs, where the user may read them, and suggests a `bip`
//! that overlaps none.

use std::net::Ipv4Addr;

use k8s_openapi::api::core::v1::{ConfigMap, Node, Service};
use k8s_openapi::api::networking::v1::ServiceCIDR;
use kube::api::{Api, ListParams};
use kube::Client;
use serde_json::Value;

use super::preflight::{Check, Status};
use super::{request, KubeError};

/// Name of the `check` line.
pub const CHECK_NAME: &str = "dind bridge";

/// The ConfigMap holding dind's `daemon.json`.
const DIND_CONFIG: &str = "codefresh-dind-config";

/// docker's default bridge.
pub const DOCKER_DEFAULT_BRIDGE: &str = "172.17.0.0/16";

/// `bip` values offered, in order: small private ranges clusters rarely use.
const CANDIDATES: &[&str] = &[
    "192.168.254.1/24",
    "172.31.254.1/24",
    "10.254.254.1/24",
    "100.127.254.1/24",
];

/// An IPv4 network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Net {
    pub base: u32,
    pub prefix: u8,
}

impl Net {
    /// `10.0.0.0/8`, or `172.17.0.1/16` (a host address with its prefix, as
    /// `bip` takes it). `None` for IPv6 or text that is not a CIDR.
    pub fn parse(text: &str) -> Option<Net> {
        let (addr, prefix) = text.trim().split_once('/')?;
        let addr: Ipv4Addr = addr.parse().ok()?;
        let prefix: u8 = prefix.parse().ok().filter(|p| *p <= 32)?;
        let mask = Self::mask(prefix);
        Some(Net {
            base: u32::from(addr) & mask,
            prefix,
        })
    }
    fn mask(prefix: u8) -> u32 {
        if prefix == 0 {
            0
        } else {
            u32::MAX << (32 - prefix)
        }
    }
    /// True when the two share an address.
    pub fn overlaps(&self, other: &Net) -> bool {
        let mask = Self::mask(self.prefix.min(other.prefix));
        self.base & mask == other.base & mask
    }
}

impl std::fmt::Display for Net {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", Ipv4Addr::from(self.base), self.prefix)
    }
}

/// The bridge a daemon.json gives dind: its `bip`, else docker's default.
pub fn bridge_of(daemon_json: Option<&str>) -> (Net, String) {
    let bip = daemon_json
        .and_then(|t| serde_json::from_str::<Value>(t).ok())
        .and_then(|d| d.get("bip").and_then(Value::as_str).map(str::to_string));
    match bip.as_deref().and_then(Net::parse) {
        Some(net) => (
            net,
            format!("daemon.json's bip {}", bip.unwrap_or_default()),
        ),
        None => (
            Net::parse(DOCKER_DEFAULT_BRIDGE).expect("a CIDR"),
            format!("docker's default {DOCKER_DEFAULT_BRIDGE} (daemon.json sets no bip)"),
        ),
    }
}

/// The first candidate `bip` that overlaps none of `taken`.
pub fn suggest_bip(taken: &[Net]) -> Option<&'static str> {
    CANDIDATES.iter().copied().find(|c| {
        let net = Net::parse(c).expect("a CIDR");
        !taken.iter().any(|t| t.overlaps(&net))
    })
}

/// The cluster's networks as found: `(what, network)`, and what could not
/// be read.
#[derive(Debug, Default)]
pub struct Networks {
    pub found: Vec<(String, Net)>,
    pub unread: Vec<String>,
}

/// Reads the nodes' pod CIDRs and the Service CIDRs (the ServiceCIDR API,
/// else the address of Service `kubernetes`, which lies in the range).
pub async fn networks(client: &Client) -> Networks {
    let mut out = Networks::default();
    let nodes: Api<Node> = Api::all(client.clone());
    match request("listing", "nodes", nodes.list(&ListParams::default())).await {
        Ok(list) => {
            for n in list.items {
                let name = n.metadata.name.unwrap_or_default();
                let spec = n.spec.unwrap_or_default();
                let mut cidrs = spec.pod_cidrs.unwrap_or_default();
                cidrs.extend(spec.pod_cidr);
                cidrs.sort();
                cidrs.dedup();
                for c in cidrs {
                    if let Some(net) = Net::parse(&c) {
                        out.found.push((format!("pod CIDR of node {name}"), net));
                    }
                }
            }
        }
        Err(e) => out
            .unread
            .push(format!("the nodes' pod CIDRs ({})", short(&e))),
    }
    let cidrs: Api<ServiceCIDR> = Api::all(client.clone());
    let listed = request(
        "listing",
        "ServiceCIDRs",
        cidrs.list(&ListParams::default()),
    )
    .await;
    let mut services = 0;
    if let Ok(list) = &listed {
        for s in &list.items {
            for c in s
                .spec
                .as_ref()
                .and_then(|s| s.cidrs.clone())
                .unwrap_or_default()
            {
                if let Some(net) = Net::parse(&c) {
                    services += 1;
                    out.found.push(("the Service CIDR".to_string(), net));
                }
            }
        }
    }
    if services == 0 {
        let api: Api<Service> = Api::namespaced(client.clone(), "default");
        match request("reading", "Service kubernetes", api.get("kubernetes")).await {
            Ok(s) => {
                if let Some(ip) = s.spec.and_then(|s| s.cluster_ip) {
                    if let Some(net) = Net::parse(&format!("{ip}/32")) {
                        out.found.push((
                            "the Service network (address of Service kubernetes)".to_string(),
                            net,
                        ));
                    }
                }
            }
            Err(e) => out.unread.push(format!("the Service CIDR ({})", short(&e))),
        }
    }
    out
}

fn short(e: &KubeError) -> String {
    match e.code() {
        Some(403) => "not allowed to your user".into(),
        _ => e.to_string(),
    }
}

/// The `check` line for an install of `manifests`: the bridge their dind
/// ConfigMap gives, against the cluster's networks.
pub async fn check(client: &Client, manifests: &[crate::render::Manifest]) -> Check {
    let daemon_json = manifests
        .iter()
        .find(|m| m.kind == "ConfigMap" && m.name == DIND_CONFIG)
        .and_then(|m| m.object.pointer("/data/daemon.json"))
        .and_then(Value::as_str);
    judge(daemon_json, &networks(client).await)
}

/// The `check` line for the runtime installed in `namespace`: the bridge
/// its live dind ConfigMap gives, against `nets`. `None` when the namespace
/// holds no such ConfigMap (nothing installed there, or not readable).
pub async fn check_installed(client: &Client, namespace: &str, nets: &Networks) -> Option<Check> {
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), namespace);
    let map = api.get_opt(DIND_CONFIG).await.ok()??;
    let daemon_json = map.data.as_ref().and_then(|d| d.get("daemon.json"));
    Some(judge(daemon_json.map(String::as_str), nets))
}

/// The `check` line: the bridge against what was found.
pub fn judge(daemon_json: Option<&str>, nets: &Networks) -> Check {
    let (bridge, which) = bridge_of(daemon_json);
    let clashes: Vec<String> = nets
        .found
        .iter()
        .filter(|(_, n)| n.overlaps(&bridge))
        .map(|(what, n)| format!("{what} {n} overlaps dind's bridge {bridge}"))
        .collect();
    let mut details = clashes.clone();
    details.extend(nets.unread.iter().map(|u| format!("not compared: {u}")));
    if clashes.is_empty() {
        let compared = nets.found.len();
        return Check {
            name: CHECK_NAME.into(),
            status: if compared == 0 {
                Status::Warn
            } else {
                Status::Pass
            },
            reason: if compared == 0 {
                format!("dind's bridge is {which}; no pod or Service CIDR could be read to compare it with")
            } else {
                format!("dind's bridge is {which}, apart from the {compared} pod and Service network(s) read")
            },
            details,
            fix: (compared == 0).then(|| {
                format!("make sure no pod or Service address of the cluster is in {bridge}")
            }),
            unreachable: false,
        };
    }
    let taken: Vec<Net> = nets.found.iter().map(|(_, n)| *n).collect();
    let fix = match suggest_bip(&taken) {
        Some(bip) => format!(
            "set Runtime.Bip: {bip} in the values (dind's daemon.json then has \"bip\": \"{bip}\"): it overlaps none of them"
        ),
        None => "set Runtime.Bip in the values (dind's daemon.json \"bip\") to a bridge that overlaps none of the networks above".into(),
    };
    Check {
        name: CHECK_NAME.into(),
        status: Status::Fail,
        reason: format!(
            "dind's bridge ({which}) overlaps the cluster's network: builds cannot reach those addresses (EHOSTUNREACH)"
        ),
        details,
        fix: Some(fix),
        unreachable: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nets(found: &[(&str, &str)]) -> Networks {
        Networks {
            found: found
                .iter()
                .map(|(w, c)| (w.to_string(), Net::parse(c).unwrap()))
                .collect(),
            unread: Vec::new(),
        }
    }

    #[test]
    fn overlap_is_told_both_ways_and_bip_is_read_as_a_network() {
        let bridge = Net::parse("172.17.0.1/16").unwrap();
        assert_eq!(bridge.to_string(), "172.17.0.0/16");
        assert!(bridge.overlaps(&Net::parse("172.16.0.0/12").unwrap()));
        assert!(bridge.overlaps(&Net::parse("172.17.3.0/24").unwrap()));
        assert!(!bridge.overlaps(&Net::parse("10.244.0.0/16").unwrap()));
        assert!(Net::parse("fd00::/64").is_none());
    }

    #[test]
    fn a_pod_cidr_inside_docker_s_bridge_fails_with_a_bip_that_fits() {
        let c = judge(None, &nets(&[("pod CIDR of node a", "172.17.5.0/24")]));
        assert_eq!(c.status, Status::Fail, "{c:?}");
        assert!(c
            .fix
            .as_deref()
            .unwrap()
            .contains("\"bip\": \"192.168.254.1/24\""));
        let c = judge(
            None,
            &nets(&[("pod CIDR", "172.17.5.0/24"), ("svc", "192.168.0.0/16")]),
        );
        assert!(c
            .fix
            .as_deref()
            .unwrap()
            .contains("\"bip\": \"172.31.254.1/24\""));
        // The bip set in daemon.json is what counts.
        let c = judge(
            Some(r#"{"bip": "192.168.254.1/24"}"#),
            &nets(&[("pod CIDR", "172.17.5.0/24")]),
        );
        assert_eq!(c.status, Status::Pass, "{c:?}");
    }
}
