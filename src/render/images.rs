//! The images cf-runner installs, pinned to the versions (and digests) of the
//! `cf-runtime` Helm chart 10.5.2, and how `--docker-registry` and per-image
//! overrides change them.

use crate::values::ImageOverride;

/// The registry every default image comes from.
pub const DEFAULT_REGISTRY: &str = "quay.io";

/// A pinned default image: repository, tag and digest.
#[derive(Debug, Clone, Copy)]
pub struct Pinned {
    pub repository: &'static str,
    pub tag: &'static str,
    pub digest: &'static str,
}

pub const RUNNER: Pinned = Pinned {
    repository: "codefresh/venona",
    tag: "2.0.10",
    digest: "sha256:836510a8579e4985f046744cb409ae895c62aa01117884004887f7c061aad636",
};
pub const VOLUME_PROVISIONER: Pinned = Pinned {
    repository: "codefresh/dind-volume-provisioner",
    tag: "2.1.0",
    digest: "sha256:b104d4f9517f65122c6df1bc4caad54196588c4533908b8215a071511a3162ca",
};
pub const LV_MONITOR: Pinned = Pinned {
    repository: "codefresh/dind-volume-utils",
    tag: "1.30.10",
    digest: "sha256:70174fed19de2ad616327f0f49535d85fcb3480db51efbfb61577e0686094f1d",
};
pub const VOLUME_CLEANUP: Pinned = Pinned {
    repository: "codefresh/dind-volume-cleanup",
    tag: "1.2.0",
    digest: "sha256:1af3e3ecc87bf2e26ba07ecef68f54ad100d7e3b5fcf074099f627fd5d917369",
};
pub const MONITOR: Pinned = Pinned {
    repository: "codefresh/cf-k8s-agent",
    tag: "1.3.46",
    digest: "sha256:052d3738ce6b2810f86998008825d1a6dff9ada71da32b1c402520dd919aad09",
};
pub const APP_PROXY: Pinned = Pinned {
    repository: "codefresh/cf-app-proxy",
    tag: "0.1.4",
    digest: "sha256:475507cffb3ae062d1974a359b753c56621b185b4ed487a016d15dcb2f95de0b",
};
pub const DIND: Pinned = Pinned {
    repository: "codefresh/dind",
    tag: "3.0.25",
    digest: "sha256:0885ab519dace9799fdef732edc4a092a3e86f3244b4585b698f5d81a3f86e38",
};
pub const ENGINE: Pinned = Pinned {
    repository: "codefresh/engine",
    tag: "3.3.13",
    digest: "sha256:ff57bea0a8fe271f5f9bde22e8eaa92f11570e4f6efc11629ce82cf55426dd59",
};

/// The image reference to use: the user's override if any, else the pinned
/// default; both under `registry` when one is given.
pub fn reference(pinned: Pinned, over: Option<&ImageOverride>, registry: Option<&str>) -> String {
    match over {
        Some(ImageOverride(reference)) => match registry {
            Some(reg) if !has_registry_host(reference) => format!("{reg}/{reference}"),
            _ => reference.clone(),
        },
        None => format!(
            "{}/{}:{}@{}",
            registry.unwrap_or(DEFAULT_REGISTRY),
            pinned.repository,
            pinned.tag,
            pinned.digest
        ),
    }
}

/// True when the first path component names a registry host.
fn has_registry_host(reference: &str) -> bool {
    match reference.split_once('/') {
        Some((first, _)) => first.contains('.') || first.contains(':') || first == "localhost",
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_pinned_and_prefixed() {
        assert_eq!(
            reference(RUNNER, None, None),
            format!("quay.io/codefresh/venona:2.0.10@{}", RUNNER.digest)
        );
        assert!(reference(RUNNER, None, Some("mirror.local:5000"))
            .starts_with("mirror.local:5000/codefresh/venona:2.0.10@"));
    }

    #[test]
    fn overrides_get_the_registry_only_without_a_host() {
        let o = ImageOverride("codefresh/venona:2.0.9".into());
        assert_eq!(
            reference(RUNNER, Some(&o), Some("reg.io")),
            "reg.io/codefresh/venona:2.0.9"
        );
        let o = ImageOverride("ghcr.io/x/venona:1".into());
        assert_eq!(
            reference(RUNNER, Some(&o), Some("reg.io")),
            "ghcr.io/x/venona:1"
        );
    }
}
