//! The images cf-runner installs, pinned to the versions (and digests) of the
//! `cf-runtime` Helm chart 10.5.2, and how `--docker-registry` and per-image
//! overrides change them.

use crate::values::ImageOverride;

/// The registry every default image comes from.
pub const DEFAULT_REGISTRY: &str = "quay.io";

/// A pinned default image: registry, repository, tag and digest.
#[derive(Debug, Clone, Copy)]
pub struct Pinned {
    pub registry: &'static str,
    pub repository: &'static str,
    pub tag: &'static str,
    pub digest: &'static str,
}

/// The chart version every pinned image (and the runtime spec) comes from.
pub const CHART_VERSION: &str = "10.5.2";

pub const RUNNER: Pinned = Pinned {
    registry: DEFAULT_REGISTRY,
    repository: "codefresh/venona",
    tag: "2.0.10",
    digest: "sha256:836510a8579e4985f046744cb409ae895c62aa01117884004887f7c061aad636",
};
pub const VOLUME_PROVISIONER: Pinned = Pinned {
    registry: DEFAULT_REGISTRY,
    repository: "codefresh/dind-volume-provisioner",
    tag: "2.1.0",
    digest: "sha256:b104d4f9517f65122c6df1bc4caad54196588c4533908b8215a071511a3162ca",
};
pub const LV_MONITOR: Pinned = Pinned {
    registry: DEFAULT_REGISTRY,
    repository: "codefresh/dind-volume-utils",
    tag: "1.30.10",
    digest: "sha256:70174fed19de2ad616327f0f49535d85fcb3480db51efbfb61577e0686094f1d",
};
pub const VOLUME_CLEANUP: Pinned = Pinned {
    registry: DEFAULT_REGISTRY,
    repository: "codefresh/dind-volume-cleanup",
    tag: "1.2.0",
    digest: "sha256:1af3e3ecc87bf2e26ba07ecef68f54ad100d7e3b5fcf074099f627fd5d917369",
};
pub const MONITOR: Pinned = Pinned {
    registry: DEFAULT_REGISTRY,
    repository: "codefresh/cf-k8s-agent",
    tag: "1.3.46",
    digest: "sha256:052d3738ce6b2810f86998008825d1a6dff9ada71da32b1c402520dd919aad09",
};
pub const APP_PROXY: Pinned = Pinned {
    registry: DEFAULT_REGISTRY,
    repository: "codefresh/cf-app-proxy",
    tag: "0.1.4",
    digest: "sha256:475507cffb3ae062d1974a359b753c56621b185b4ed487a016d15dcb2f95de0b",
};
pub const DIND: Pinned = Pinned {
    registry: DEFAULT_REGISTRY,
    repository: "codefresh/dind",
    tag: "3.0.25",
    digest: "sha256:0885ab519dace9799fdef732edc4a092a3e86f3244b4585b698f5d81a3f86e38",
};
pub const ENGINE: Pinned = Pinned {
    registry: DEFAULT_REGISTRY,
    repository: "codefresh/engine",
    tag: "3.3.13",
    digest: "sha256:ff57bea0a8fe271f5f9bde22e8eaa92f11570e4f6efc11629ce82cf55426dd59",
};

// `Runtime.Dind.Rootless`: the rootless builds of dind and of the
// lv-monitor, and the image of the init container that hands their volumes
// to user 1000, as the chart's values-rootless.yaml pins them.
pub const DIND_ROOTLESS: Pinned = Pinned {
    registry: DEFAULT_REGISTRY,
    repository: "codefresh/dind",
    tag: "3.0.25-rootless",
    digest: "sha256:a6dea9c49635923360a614cc652ef9cd7cb5df698cdee928041b2a8647dec1b6",
};
pub const LV_MONITOR_ROOTLESS: Pinned = Pinned {
    registry: DEFAULT_REGISTRY,
    repository: "codefresh/dind-volume-utils",
    tag: "1.30.9-rootless",
    digest: "sha256:e231e5d5b75424c8580f6e2922db9b1d462df2883435fb92fce9dee36503f52f",
};
pub const VOLUME_PERMISSIONS: Pinned = Pinned {
    registry: "docker.io",
    repository: "alpine",
    tag: "3.23",
    digest: "sha256:fd791d74b68913cbb027c6546007b3f0d3bc45125f797758156952bc2d6daf40",
};

// Images only the chart uses (its registration init container, hooks and
// gencerts job); cf-runner does that work from the CLI. Listed so the Helm
// values file can say what a mirror must hold.
pub const CHART_CLI: Pinned = Pinned {
    registry: DEFAULT_REGISTRY,
    repository: "codefresh/cli",
    tag: "1.2.5-rootless",
    digest: "sha256:f073118baa8cd84cbcb9c949bec937c7ea29504d02d4fb2c3469ebd4c071d77b",
};
pub const CHART_KUBECTL: Pinned = Pinned {
    registry: DEFAULT_REGISTRY,
    repository: "codefresh/kubectl",
    tag: "1.36.3",
    digest: "sha256:698013dc030404ac61b947da9cc85c30e264bdd5eff8c0c5769cea6f7d93b4f1",
};

// The images of pipeline steps, which the engine starts. They go into the
// runtime spec's engine env (`runtimeScheduler.envVars`), under the mirror
// when `--docker-registry` is given, exactly as the chart renders them.
pub const COMPOSE: Pinned = Pinned {
    registry: "quay.io",
    repository: "codefresh/compose",
    tag: "1.6.9",
    digest: "sha256:c4adbdb4a6ee5da6333552729efff45c2fd3f781fa1ed0800474fc58003ef1c5",
};
pub const CONTAINER_LOGGER: Pinned = Pinned {
    registry: "quay.io",
    repository: "codefresh/cf-container-logger",
    tag: "2.0.41",
    digest: "sha256:88b4d3b2610419daaf4223bccc85cbc8e09312aab2f84c04fd6bf69ecb5e56d9",
};
pub const DEFAULT_QEMU: Pinned = Pinned {
    registry: "docker.io",
    repository: "tonistiigi/binfmt",
    tag: "qemu-v10.2.1",
    digest: "sha256:d3b963f787999e6c0219a48dba02978769286ff61a5f4d26245cb6a6e5567ea3",
};
pub const DOCKER_BUILDER: Pinned = Pinned {
    registry: "quay.io",
    repository: "codefresh/cf-docker-builder",
    tag: "1.6.18",
    digest: "sha256:8c19043ac1aad31cd45022e50a5ded886ed3728b821cf75be22068d6e8c5ef72",
};
pub const DOCKER_PULLER: Pinned = Pinned {
    registry: "quay.io",
    repository: "codefresh/cf-docker-puller",
    tag: "8.0.48",
    digest: "sha256:9b75ab05e4cf965a662e180b6ea8a1c2329862a8a0dc0f8042950cd8e155692e",
};
pub const DOCKER_PUSHER: Pinned = Pinned {
    registry: "quay.io",
    repository: "codefresh/cf-docker-pusher",
    tag: "6.0.42",
    digest: "sha256:8c07d0ec8d2ed5b745e296e3ee13f8027218ad5892c55b2b38c69961c921d7de",
};
pub const FS_OPS: Pinned = Pinned {
    registry: "quay.io",
    repository: "codefresh/fs-ops",
    tag: "1.2.13",
    digest: "sha256:1f7ab2fddb3b8bb4153046261367e296c6c9ac3b224f48cd2028371a9f0e2bcf",
};
pub const GIT_CLONER: Pinned = Pinned {
    registry: "quay.io",
    repository: "codefresh/cf-git-cloner",
    tag: "10.3.13",
    digest: "sha256:d5eae428c4896847795202036645a90fdad5f2f68a3eb08bf8ca7e65e450b5ed",
};
pub const KUBE_DEPLOY: Pinned = Pinned {
    registry: "quay.io",
    repository: "codefresh/cf-deploy-kubernetes",
    tag: "18.0.2",
    digest: "sha256:a9642f66c7696367b43f2931bab6f647f9f91262e194609e64a19ea362a7c873",
};
pub const PIPELINE_DEBUGGER: Pinned = Pinned {
    registry: "quay.io",
    repository: "codefresh/cf-debugger",
    tag: "1.3.15",
    digest: "sha256:a3f592014974fdd3308d903a546c266c9d01fc9b5a4d533434a0dda5016e8df8",
};
pub const TEMPLATE_ENGINE: Pinned = Pinned {
    registry: "quay.io",
    repository: "codefresh/pikolo",
    tag: "0.15.15",
    digest: "sha256:992256ae4333dd5fb6ad001a96341a13dfdfbbfd4152413d6c55d01ab7ff7296",
};
pub const ALPINE: Pinned = Pinned {
    registry: "docker.io",
    repository: "alpine",
    tag: "latest",
    digest: "sha256:28bd5fe8b56d1bd048e5babf5b10710ebe0bae67db86916198a6eec434943f8b",
};
pub const GC_BUILDER: Pinned = Pinned {
    registry: "quay.io",
    repository: "codefresh/gcloud-builder",
    tag: "0.5.21",
    digest: "sha256:dd3dd1a013ee31a950b6a168ac12c7f2e88593e6120a251ab9325327032925a4",
};
pub const COSIGN_IMAGE_SIGNER: Pinned = Pinned {
    registry: "quay.io",
    repository: "codefresh/cf-cosign-image-signer",
    tag: "4.0.4",
    digest: "sha256:80e79e133e1511753b8d1274c8ebc73f699e52a70500a9736519f2785a200ada",
};

/// Engine env variable → step image, in the chart's order.
pub const STEP_IMAGES: &[(&str, Pinned)] = &[
    ("COMPOSE_IMAGE", COMPOSE),
    ("CONTAINER_LOGGER_IMAGE", CONTAINER_LOGGER),
    ("DEFAULT_QEMU_IMAGE", DEFAULT_QEMU),
    ("DOCKER_BUILDER_IMAGE", DOCKER_BUILDER),
    ("DOCKER_PULLER_IMAGE", DOCKER_PULLER),
    ("DOCKER_PUSHER_IMAGE", DOCKER_PUSHER),
    ("FS_OPS_IMAGE", FS_OPS),
    ("GIT_CLONE_IMAGE", GIT_CLONER),
    ("KUBE_DEPLOY", KUBE_DEPLOY),
    ("PIPELINE_DEBUGGER_IMAGE", PIPELINE_DEBUGGER),
    ("TEMPLATE_ENGINE", TEMPLATE_ENGINE),
    ("CR_6177_FIXER", ALPINE),
    ("GC_BUILDER_IMAGE", GC_BUILDER),
    ("COSIGN_IMAGE_SIGNER_IMAGE", COSIGN_IMAGE_SIGNER),
];

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
            registry.unwrap_or(pinned.registry),
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
