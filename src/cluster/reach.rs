//! How the API server is reached, read as kubectl reads it where kube-rs
//! reads it differently: which proxy setting is in force (for a refusal
//! that names it), whether `NO_PROXY` covers the server, and a `tokenFile`
//! read as client-go reads it. [`super::connect`] applies them.

use kube::config::Kubeconfig;

/// Where the proxy kube-rs goes through is named, as a user would look for
/// it (the cluster's `proxy-url` in the kubeconfig, else `HTTPS_PROXY`, else
/// `https_proxy`, the order kube-rs reads them in), and its text.
pub(super) fn proxy_setting(
    kubeconfig: &Kubeconfig,
    context: &str,
    path: &str,
) -> (String, String) {
    let cluster = kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == context)
        .and_then(|c| c.context.as_ref())
        .map(|c| c.cluster.clone())
        .unwrap_or_default();
    let named = kubeconfig
        .clusters
        .iter()
        .find(|n| n.name == cluster)
        .and_then(|n| n.cluster.as_ref())
        .and_then(|c| c.proxy_url.clone())
        .filter(|url| !url.is_empty());
    if let Some(url) = named {
        return (format!("proxy-url of cluster {cluster:?} in {path}"), url);
    }
    for variable in ["HTTPS_PROXY", "https_proxy"] {
        if let Some(url) = crate::env::var(variable).filter(|url| !url.is_empty()) {
            return (variable.to_string(), url);
        }
    }
    ("HTTPS_PROXY".to_string(), String::new())
}

/// A `tokenFile` ending in a newline (as `echo $TOKEN > file` writes) is
/// read as client-go reads it, trimmed: kube-rs sends the newline, which no
/// header may hold. Read once for this run; a file without such whitespace
/// is left to kube-rs, which re-reads it every minute.
pub(super) fn token_file_trimmed(config: &mut kube::Config) {
    if config.auth_info.token.is_some() {
        return;
    }
    let Some(file) = config.auth_info.token_file.clone() else {
        return;
    };
    let Ok(raw) = std::fs::read_to_string(&file) else {
        return; // kube-rs says what is wrong with it
    };
    let trimmed = raw.trim();
    if trimmed.len() == raw.len() || trimmed.is_empty() {
        return;
    }
    let parsed: Result<kube::config::AuthInfo, _> =
        serde_json::from_value(serde_json::json!({ "token": trimmed }));
    if let Ok(parsed) = parsed {
        config.auth_info.token = parsed.token;
        config.auth_info.token_file = None;
    }
}

/// True when `NO_PROXY` (comma-separated: `*`, host names, `.domain`
/// suffixes, IPs, IPv4 CIDRs, each with an optional `:port`) covers `host`.
pub fn no_proxy_matches(no_proxy: &str, host: &str, port: Option<u16>) -> bool {
    let host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase();
    no_proxy
        .split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .any(|entry| {
            if entry == "*" {
                return true;
            }
            let (pattern, entry_port) = match entry.rsplit_once(':') {
                Some((h, p)) if !h.contains(':') && p.parse::<u16>().is_ok() => {
                    (h, p.parse::<u16>().ok())
                }
                _ => (entry, None),
            };
            if entry_port.is_some() && entry_port != port {
                return false;
            }
            let pattern = pattern
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_ascii_lowercase();
            if let Some((net, bits)) = pattern.split_once('/') {
                return match (
                    net.parse::<std::net::Ipv4Addr>(),
                    bits.parse::<u32>(),
                    host.parse::<std::net::Ipv4Addr>(),
                ) {
                    (Ok(net), Ok(bits), Ok(ip)) if bits <= 32 => {
                        let mask = if bits == 0 {
                            0
                        } else {
                            u32::MAX << (32 - bits)
                        };
                        (u32::from(net) & mask) == (u32::from(ip) & mask)
                    }
                    _ => false,
                };
            }
            let suffix = pattern.trim_start_matches('.');
            host == suffix || host.ends_with(&format!(".{suffix}"))
        })
}

#[cfg(test)]
mod tests {
    use super::{no_proxy_matches, proxy_setting};

    fn kubeconfig(proxy_url: &str) -> kube::config::Kubeconfig {
        let text = format!(
            "clusters:\n- name: prod\n  cluster: {{server: https://api:6443, proxy-url: '{proxy_url}'}}\n\
             contexts:\n- name: ctx\n  context: {{cluster: prod, user: u}}\nusers: []\n"
        );
        kube::config::Kubeconfig::from_yaml(&text).unwrap()
    }

    #[test]
    fn a_refusal_names_the_proxy_setting_in_force() {
        let env = |https: Option<&str>, lower: Option<&str>, url: &str| {
            crate::env::with_vars(&[("HTTPS_PROXY", https), ("https_proxy", lower)], || {
                proxy_setting(&kubeconfig(url), "ctx", "/home/me/.kube/config")
            })
        };
        let named = env(Some("http://env:1"), None, "https://p:3128");
        assert_eq!(
            named,
            (
                "proxy-url of cluster \"prod\" in /home/me/.kube/config".to_string(),
                "https://p:3128".to_string()
            )
        );
        let upper = env(Some("https://env:1"), Some("http://low:1"), "");
        assert_eq!(upper, ("HTTPS_PROXY".into(), "https://env:1".into()));
        let lower = env(None, Some("socks4://low:1"), "");
        assert_eq!(lower, ("https_proxy".into(), "socks4://low:1".into()));
    }

    #[test]
    fn no_proxy_entries() {
        assert!(no_proxy_matches("127.0.0.1", "127.0.0.1", Some(6443)));
        assert!(!no_proxy_matches("127.0.0.2", "127.0.0.1", Some(6443)));
        assert!(no_proxy_matches(
            "localhost,.svc,10.0.0.0/8",
            "10.1.2.3",
            None
        ));
        assert!(no_proxy_matches(".example.com", "api.example.com", None));
        assert!(no_proxy_matches("example.com", "api.example.com", None));
        assert!(!no_proxy_matches("example.com", "badexample.com", None));
        assert!(no_proxy_matches("*", "anything", None));
        assert!(no_proxy_matches("api.local:6443", "api.local", Some(6443)));
        assert!(!no_proxy_matches("api.local:443", "api.local", Some(6443)));
        assert!(!no_proxy_matches("", "api.local", None));
    }
}
