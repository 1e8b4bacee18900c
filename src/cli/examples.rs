//! The examples of every leaf command, in one table: `--help` shows them
//! (long help only, so `-h` stays short), and the generated reference
//! (`docs/reference/`, the man pages in `docs/man/`) prints the same rows.
//! A test parses every command line with the clap definition, so an
//! example cannot name a flag that is gone.

/// One example: what it does, and the command line that does it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Example {
    /// One line saying what the command line is for (shown as a `#` comment).
    pub comment: &'static str,
    /// The command line as a user types it, starting with `cf-runner`. It may
    /// hold `$VAR`, quotes, a trailing `> file`, and ` \` line continuations.
    pub command: &'static str,
}

/// Shorthand for the rows below.
const fn ex(comment: &'static str, command: &'static str) -> Example {
    Example { comment, command }
}

/// Each leaf command's path (the words after `cf-runner`) and its examples,
/// in the order of `cf-runner --help`.
pub const EXAMPLES: &[(&str, &[Example])] = &[
    ("init", &[
        ex("Non-interactive: a values file, no prompt ever (a missing value is an error naming its key)",
           "cf-runner init --values values-examples/local.yaml --yes --token \"$CF_API_KEY\""),
        ex("Security review: every manifest into a folder, touching neither cluster nor platform",
           "cf-runner init --values values-examples/local.yaml --yes --dry-run --output-dir ./manifests"),
        ex("Override single values (typed, dotted keys, later wins) or read a value from a file",
           "cf-runner init --dry-run --yes \\\n  --set-value Storage.Backend=gcedisk --set-value Storage.AvailabilityZone=us-central1-a \\\n  --set-file Storage.GoogleServiceAccount=key.json"),
        ex("The agent alone in its namespace; attach runtimes to it with `runtime attach`",
           "cf-runner init --agent-only --kube-namespace agents"),
    ]),
    ("info", &[
        ex("What is installed, and is it healthy? (every installation in the cluster)",
           "cf-runner info"),
        ex("One installation, as JSON",
           "cf-runner info --kube-namespace codefresh -o json"),
        ex("A gate for pipelines: wait until the install is healthy, exit 1 at the deadline",
           "cf-runner info --kube-namespace codefresh --wait --timeout 5m"),
    ]),
    ("diagnose", &[
        ex("Why did the builds of the last hour not run? (the only installation in the cluster)",
           "cf-runner diagnose"),
        ex("The last day of one installation's builds, as JSON for a script",
           "cf-runner diagnose --kube-namespace codefresh --since 24h -o json"),
    ]),
    ("delete", &[
        ex("Remove exactly what cf-runner installed",
           "cf-runner delete --kube-namespace codefresh --yes"),
        ex("Also the dind volumes, and the namespace if cf-runner created it and it is empty",
           "cf-runner delete --kube-namespace codefresh --purge-volumes --delete-namespace --yes"),
        ex("The agent and every runtime attached to it",
           "cf-runner delete --kube-namespace codefresh --all-runtimes --yes"),
    ]),
    ("upgrade", &[
        ex("Change an installation in place: recorded values < new --values/--set-value < flags",
           "cf-runner upgrade --kube-namespace codefresh --install-monitor false --yes"),
        ex("Move build pods to another node pool",
           "cf-runner upgrade --kube-namespace codefresh --build-node-selector pool=builds --yes"),
    ]),
    ("check", &[
        ex("Preflight only: versions, permissions, a server dry-run, node capacity, admission",
           "cf-runner check --values values-examples/local.yaml -o json"),
        ex("Will a build start? A dind claim and a dind-like pod, cleaned up after",
           "cf-runner check --values values-examples/local.yaml --probe"),
    ]),
    ("test-pipeline", &[
        ex("Run the demo pipeline on the installation's runtime environment",
           "cf-runner test-pipeline --kube-namespace codefresh --token \"$CF_API_KEY\""),
    ]),
    ("adopt", &[
        ex("Read a runner the Helm chart or venonactl made: save its values file and print the plan",
           "cf-runner adopt --kube-namespace codefresh --token \"$CF_API_KEY\" --dry-run"),
        ex("Move it to cf-runner, keeping its agent, runtime environment and volumes",
           "cf-runner adopt --kube-namespace codefresh --token \"$CF_API_KEY\" --yes"),
    ]),
    ("completions", &[
        ex("Completions for bash, in the folder bash-completion reads",
           "cf-runner completions bash > ~/.local/share/bash-completion/completions/cf-runner"),
    ]),
    ("diff", &[
        ex("What an upgrade with these flags would change, object by object (exit 1: changes)",
           "cf-runner diff --kube-namespace codefresh --install-monitor false"),
        ex("The same as JSON: objects[].action is create, change, same, prune or skip",
           "cf-runner diff --kube-namespace codefresh --build-node-selector pool=builds -o json"),
    ]),
    ("schema", &[
        ex("The values file's JSON Schema, for an editor or a CI linter",
           "cf-runner schema > values.schema.json"),
    ]),
    ("images", &[
        ex("Every image the install runs, under a mirror",
           "cf-runner images --values values-examples/local.yaml --docker-registry registry.example.com/cf"),
        ex("Ask the mirror for each image; exit 1 when one is missing",
           "cf-runner images -f values-examples/local.yaml --docker-registry registry.example.com/cf --check"),
    ]),
    ("fleet register", &[
        ex("Register every runtime of the fleet file on the platform (token from CF_API_KEY)",
           "cf-runner fleet register --fleet fleet.yaml --output-dir fleet"),
    ]),
    ("fleet export", &[
        ex("Write the Git tree that Flux or Argo CD applies, then commit it",
           "cf-runner fleet export --fleet fleet.yaml --output-dir fleet"),
    ]),
    ("fleet retire", &[
        ex("After a cluster left the fleet file and its overlay the tree: remove it from the platform",
           "cf-runner fleet retire --fleet fleet.yaml --output-dir fleet"),
    ]),
    ("support-bundle", &[
        ex("Something is wrong: one redacted .tar.gz to attach to a support ticket",
           "cf-runner support-bundle --kube-namespace codefresh"),
        ex("Two days of logs, in a bundle of at most 20 MiB",
           "cf-runner support-bundle --kube-namespace codefresh --since 2d --max-size 20Mi -o bundle.tar.gz"),
    ]),
    ("runtime attach", &[
        ex("A runtime in another namespace of the agent's cluster",
           "cf-runner runtime attach --agent-namespace codefresh --kube-namespace builds-eu"),
        ex("A runtime in another cluster (a context of your kubeconfig)",
           "cf-runner runtime attach --agent-namespace codefresh --agent-context hub \\\n  --kube-context-name build-cluster --kube-namespace builds"),
        ex("Several at once, from a runtimes file",
           "cf-runner runtime attach --agent-namespace codefresh -f runtimes.yaml"),
    ]),
    ("runtime detach", &[
        ex("Stop the agent serving a runtime, and remove its credentials there",
           "cf-runner runtime detach --agent-namespace codefresh --kube-namespace builds-eu"),
    ]),
    ("runtime rotate", &[
        ex("A new token for one runtime; the old one stops working",
           "cf-runner runtime rotate --agent-namespace codefresh --kube-namespace builds-eu"),
    ]),
    ("runtime delete", &[
        ex("Delete one runtime: detach it, remove its objects, and its runtime environment on the platform",
           "cf-runner runtime delete --agent-namespace codefresh --kube-namespace builds-eu --yes"),
    ]),
    ("runtime upgrade", &[
        ex("Re-apply one runtime's objects after `upgrade` of the agent changed images or dind config",
           "cf-runner runtime upgrade --agent-namespace codefresh --kube-namespace builds-eu"),
    ]),
    ("renew", &[
        ex("Sign the dind certificate again before it expires (info and check warn 30 days ahead)",
           "cf-runner renew certificate --kube-namespace codefresh --token \"$CF_API_KEY\""),
        ex("Give the agent a new Codefresh token; its runtimes stay",
           "cf-runner renew agent-token --kube-namespace codefresh --token \"$CF_API_KEY\""),
    ]),
];

/// The examples of the command at `path` (`"init"`, `"runtime attach"`);
/// none for a command that is not a leaf.
pub fn examples_of(path: &str) -> &'static [Example] {
    EXAMPLES
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, examples)| *examples)
        .unwrap_or(&[])
}

/// The text `--help` shows after the options of the command at `path`.
pub fn long_help(path: &str) -> String {
    let mut text = String::from("Examples:");
    for example in examples_of(path) {
        // A continued command line keeps its indent under the first line.
        let command = example.command.replace('\n', "\n  ");
        text.push_str(&format!("\n  # {}\n  {command}\n", example.comment));
    }
    text.trim_end().to_string()
}
