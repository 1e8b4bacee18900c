//! Questions about the network: the proxy the runner and builds go
//! through (suggested from the environment), the private mirror images
//! come from and its pull secret, and the app-proxy's Ingress.

use serde_json::{json, Value};

use super::session::{yes_no, Session};
use super::{Choice, EnvProxies, PromptError, Question};

const PROXY_KEYS: &[&str] = &[
    "EnvVars.HTTP_PROXY",
    "EnvVars.HTTPS_PROXY",
    "EnvVars.NO_PROXY",
    "EnvVars.http_proxy",
    "EnvVars.https_proxy",
    "EnvVars.no_proxy",
];

impl Session<'_> {
    pub(super) fn ask_proxies(&mut self) -> Result<(), PromptError> {
        self.section("Proxy");
        let given: Vec<String> = PROXY_KEYS
            .iter()
            .filter_map(|k| {
                self.given_text(k)
                    .map(|v| format!("{}={v}", k.trim_start_matches("EnvVars.")))
            })
            .collect();
        if !given.is_empty() {
            self.row("Proxy", given.join(" "), true);
            return Ok(());
        }
        if self.given("EnvVars") == Some(&json!({})) {
            self.row("Proxy", "none", true);
            return Ok(());
        }
        let env = self.setup.env_proxies.clone();
        if env.any() {
            let found: Vec<String> = [
                ("HTTP_PROXY", &env.http),
                ("HTTPS_PROXY", &env.https),
                ("NO_PROXY", &env.no_proxy),
            ]
            .iter()
            .filter_map(|(n, v)| v.as_ref().map(|v| format!("{n}={v}")))
            .collect();
            self.note(&format!("Your environment has {}.", found.join(", ")));
        }
        let use_proxy = self.confirm(
            Question::new(
                "proxy",
                "Do the runner and builds reach the internet through a proxy?",
                "Then every component and build gets HTTP(S)_PROXY and NO_PROXY.",
            ),
            env.any(),
        )?;
        let set_any = if use_proxy {
            self.ask_proxy_addresses(&env)?
        } else {
            false
        };
        if !set_any {
            // An explicit empty map records "no proxy", so a replay of the
            // saved values does not ask again.
            if self.given("EnvVars").is_none() {
                self.set("EnvVars", json!({}));
            }
            self.row("Proxy", "none", false);
        }
        Ok(())
    }

    /// A private mirror of Codefresh's images (`DockerRegistry`) and, when
    /// the mirror wants credentials, the pull Secret that holds them
    /// (`ImagePullSecrets`): an air-gapped newcomer's first failed build
    /// is otherwise an image that could not be pulled. Only the Secret's
    /// name is asked; cf-runner never sees the registry's password.
    pub(super) fn ask_mirror(&mut self) -> Result<(), PromptError> {
        self.section("Images");
        match self.given("DockerRegistry") {
            Some(_) => match self.given_text("DockerRegistry").filter(|r| !r.is_empty()) {
                Some(registry) => self.row("Image mirror", registry, true),
                None => {
                    self.row("Image mirror", "none", true);
                    return Ok(());
                }
            },
            None => {
                let mirror = self.confirm(
                    Question::new(
                        "mirror",
                        "Do the nodes pull Codefresh's images from a private mirror?",
                        "Then every image, the builds' step images included, comes from it.",
                    ),
                    false,
                )?;
                if !mirror {
                    // Recorded as "none", so a replay of the saved values does
                    // not ask again.
                    self.set("DockerRegistry", Value::String(String::new()));
                    self.row("Image mirror", "none", false);
                    return Ok(());
                }
                let checker = self.checker();
                let validate = |s: &str| {
                    if s.is_empty() {
                        Err(
                            "the mirror's address is needed, e.g. registry.example.com/codefresh"
                                .into(),
                        )
                    } else {
                        checker.check("DockerRegistry", Value::String(s.to_string()))
                    }
                };
                let registry = self.input(
                    Question::new(
                        "DockerRegistry",
                        "Mirror",
                        "The registry host and path the images are pulled from, e.g. registry.example.com/codefresh.",
                    ),
                    "",
                    &validate,
                )?;
                self.set("DockerRegistry", Value::String(registry.clone()));
                self.row("Image mirror", registry, false);
            }
        }
        if let Some(given) = self.given("ImagePullSecrets") {
            let shown = given.to_string();
            self.row("Mirror pull secret", shown, true);
            return Ok(());
        }
        let checker = self.checker();
        let validate = |s: &str| checker.check_unless_empty("ImagePullSecrets", s);
        let secret = self.input(
            Question::new(
                "ImagePullSecrets",
                "Pull secret of the mirror",
                "The name of a kubernetes.io/dockerconfigjson Secret in the runner's namespace that \
                 the mirror accepts; empty when the nodes can already pull from it. cf-runner only \
                 names it on every pod.",
            ),
            "",
            &validate,
        )?;
        if secret.is_empty() {
            self.set("ImagePullSecrets", json!([]));
            self.row("Mirror pull secret", "none", false);
        } else {
            self.set("ImagePullSecrets", json!([secret]));
            self.row("Mirror pull secret", secret, false);
        }
        Ok(())
    }

    /// The proxies to use, each suggested from the environment; `true`
    /// when any was set.
    fn ask_proxy_addresses(&mut self, env: &EnvProxies) -> Result<bool, PromptError> {
        let mut set_any = false;
        let suggestions = [
            (
                "EnvVars.HTTP_PROXY",
                "HTTP proxy",
                "For plain-HTTP traffic, e.g. http://proxy.example.com:3128; empty for none.",
                env.http.clone().unwrap_or_default(),
            ),
            (
                "EnvVars.HTTPS_PROXY",
                "HTTPS proxy",
                "For HTTPS traffic (the Codefresh platform, registries); empty for none.",
                env.https.clone().or(env.http.clone()).unwrap_or_default(),
            ),
            (
                "EnvVars.NO_PROXY",
                "No proxy for",
                "Hosts, domains and CIDRs reached directly, comma-separated.",
                env.no_proxy
                    .clone()
                    .unwrap_or_else(|| "localhost,127.0.0.1,.svc,.cluster.local".into()),
            ),
        ];
        let mut shown = Vec::new();
        for (key, prompt, help, default) in suggestions {
            let checker = self.checker();
            let validate = |s: &str| checker.check_unless_empty(key, s);
            let v = self.input(Question::new(key, prompt, help), &default, &validate)?;
            if !v.is_empty() {
                shown.push(format!("{}={v}", key.trim_start_matches("EnvVars.")));
                self.set(key, Value::String(v));
                set_any = true;
            }
        }
        if set_any {
            self.row("Proxy", shown.join(" "), false);
        }
        Ok(set_any)
    }

    pub(super) fn ask_app_proxy(&mut self) -> Result<(), PromptError> {
        let host_given = self.given_text("AppProxy.Ingress.Host");
        let enabled = match self.given_bool("AppProxy.Enabled") {
            Some(b) => {
                self.row("App-proxy", yes_no(b), true);
                b
            }
            None if host_given.is_some() => {
                self.row("App-proxy", "yes", true);
                true
            }
            None => self.flag(
                "AppProxy.Enabled",
                "App-proxy",
                "Install the app-proxy?",
                "Lets Codefresh reach Git providers behind your firewall, through an Ingress.",
                false,
            )?,
        };
        if !enabled {
            return Ok(());
        }
        match host_given {
            Some(h) => self.row("App-proxy host", h, true),
            None => self.ask_app_proxy_host()?,
        }
        self.ask_ingress_class()
    }

    /// The DNS name the app-proxy's Ingress serves.
    fn ask_app_proxy_host(&mut self) -> Result<(), PromptError> {
        let key = "AppProxy.Ingress.Host";
        let checker = self.checker();
        let validate = |s: &str| {
            if s.is_empty() {
                return Err("the app-proxy needs a host name, e.g. app-proxy.example.com".into());
            }
            checker.check(key, Value::String(s.to_string()))
        };
        let host = self.input(
            Question::new(
                key,
                "App-proxy host",
                "The DNS name its Ingress serves; point it at your ingress controller.",
            ),
            "",
            &validate,
        )?;
        self.set(key, Value::String(host.clone()));
        self.row("App-proxy host", host, false);
        Ok(())
    }

    /// The ingress class of the app-proxy's Ingress: one of the cluster's,
    /// or its default (empty).
    fn ask_ingress_class(&mut self) -> Result<(), PromptError> {
        let key = "AppProxy.Ingress.IngressClass";
        let shown = |c: String| {
            if c.is_empty() {
                "cluster default".to_string()
            } else {
                c
            }
        };
        if let Some(c) = self.given_text(key) {
            self.row("Ingress class", shown(c), true);
            return Ok(());
        }
        let help = "Which ingress controller serves it.";
        let facts = self.facts();
        let class = match &facts.ingress_classes {
            Some(classes) if !classes.is_empty() => {
                let mut choices: Vec<Choice> = classes
                    .iter()
                    .map(|c| {
                        Choice::new(
                            c.name.clone(),
                            if c.is_default { "the default" } else { "" },
                        )
                    })
                    .collect();
                choices.push(Choice::new("the cluster's default", "no ingressClassName"));
                let default = classes.iter().position(|c| c.is_default).unwrap_or(0);
                let i =
                    self.select(Question::new(key, "Ingress class", help), &choices, default)?;
                classes.get(i).map(|c| c.name.clone()).unwrap_or_default()
            }
            _ => {
                let checker = self.checker();
                let validate = |s: &str| checker.check_unless_empty(key, s);
                self.input(
                    Question::new(
                        key,
                        "Ingress class",
                        format!("{help} Empty uses the cluster's default."),
                    ),
                    "",
                    &validate,
                )?
            }
        };
        // Empty text counts as unset in the values, and records the answer
        // so a replay of the saved values does not ask again.
        self.set(key, Value::String(class.clone()));
        self.row("Ingress class", shown(class), false);
        Ok(())
    }
}
