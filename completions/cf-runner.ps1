
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'cf-runner' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'cf-runner'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'cf-runner' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Install the runner: wizard, or non-interactive with --values/--yes')
            [CompletionResult]::new('info', 'info', [CompletionResultType]::ParameterValue, 'Show what is installed and whether it is healthy')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Remove exactly what cf-runner installed')
            [CompletionResult]::new('upgrade', 'upgrade', [CompletionResultType]::ParameterValue, 'Re-render from the stored values (plus new flags) and apply')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Preflight: check that the cluster and your permissions can take an install')
            [CompletionResult]::new('test-pipeline', 'test-pipeline', [CompletionResultType]::ParameterValue, 'Run the demo pipeline on a runtime environment')
            [CompletionResult]::new('adopt', 'adopt', [CompletionResultType]::ParameterValue, 'Move a runner made by the Helm chart or venonactl to cf-runner, keeping its agent and volumes')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Show what upgrade (or init) with these flags would change; changes nothing')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'Print the JSON Schema of a values file, for editors and linters')
            [CompletionResult]::new('images', 'images', [CompletionResultType]::ParameterValue, 'List every image an install with these values runs; --check asks the registry')
            [CompletionResult]::new('fleet', 'fleet', [CompletionResultType]::ParameterValue, 'Runners for a fleet of clusters, as a Git tree that Flux or Argo CD applies')
            [CompletionResult]::new('support-bundle', 'support-bundle', [CompletionResultType]::ParameterValue, 'Write a redacted .tar.gz of what support needs to look into a runner')
            [CompletionResult]::new('runtime', 'runtime', [CompletionResultType]::ParameterValue, 'Attach a runtime in another namespace or cluster to an installed agent, or detach it')
            [CompletionResult]::new('renew', 'renew', [CompletionResultType]::ParameterValue, 'Renew what the platform issued: the dind certificate, or the agent token')
            [CompletionResult]::new('diagnose', 'diagnose', [CompletionResultType]::ParameterValue, 'Why builds did not run: each build pod''s wait, the cause and the fix; exit 1 when something is wrong')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'cf-runner;init' {
            [CompletionResult]::new('--kube-context-name', '--kube-context-name', [CompletionResultType]::ParameterName, 'Kubernetes context to use [default: the kubeconfig''s current context]')
            [CompletionResult]::new('--kube-namespace', '--kube-namespace', [CompletionResultType]::ParameterName, 'Namespace of the runner [default: codefresh]')
            [CompletionResult]::new('--kube-config-path', '--kube-config-path', [CompletionResultType]::ParameterName, 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]')
            [CompletionResult]::new('--kube-node-selector', '--kube-node-selector', [CompletionResultType]::ParameterName, 'Node selector for the runner and volume provisioner: key=value[,key=value]')
            [CompletionResult]::new('--build-node-selector', '--build-node-selector', [CompletionResultType]::ParameterName, 'Node selector for build (engine and dind) pods: key=value[,key=value]')
            [CompletionResult]::new('--docker-registry', '--docker-registry', [CompletionResultType]::ParameterName, 'Registry that serves every image (a mirror of quay.io)')
            [CompletionResult]::new('--image-pull-secret', '--image-pull-secret', [CompletionResultType]::ParameterName, 'Secret of yours (type docker-registry, in the runner''s namespace) that every pod and build pulls images with (repeatable)')
            [CompletionResult]::new('--env-vars', '--env-vars', [CompletionResultType]::ParameterName, 'Environment variable for every component and build (repeatable): KEY=VALUE')
            [CompletionResult]::new('--http-proxy', '--http-proxy', [CompletionResultType]::ParameterName, 'HTTP proxy for every component and build')
            [CompletionResult]::new('--https-proxy', '--https-proxy', [CompletionResultType]::ParameterName, 'HTTPS proxy for every component and build')
            [CompletionResult]::new('--no-proxy', '--no-proxy', [CompletionResultType]::ParameterName, 'Hosts that bypass the proxy, comma-separated')
            [CompletionResult]::new('--ca-bundle', '--ca-bundle', [CompletionResultType]::ParameterName, 'PEM file of CA certificates (a TLS-inspecting proxy''s) that cf-runner, every component and every build trust besides the public roots')
            [CompletionResult]::new('--install-monitor', '--install-monitor', [CompletionResultType]::ParameterName, 'Install the cluster monitor (with upgrade, false removes it)')
            [CompletionResult]::new('--app-proxy', '--app-proxy', [CompletionResultType]::ParameterName, 'Install the app-proxy, which needs --app-proxy-host (with upgrade, false removes it)')
            [CompletionResult]::new('--app-proxy-host', '--app-proxy-host', [CompletionResultType]::ParameterName, 'Host name of the app-proxy Ingress')
            [CompletionResult]::new('--app-proxy-ingress-class', '--app-proxy-ingress-class', [CompletionResultType]::ParameterName, 'IngressClass of the app-proxy Ingress')
            [CompletionResult]::new('--docker-daemon-access', '--docker-daemon-access', [CompletionResultType]::ParameterName, 'Let pipeline steps reach the docker daemon')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Values file in the venonactl format (repeatable; later files win)')
            [CompletionResult]::new('--values', '--values', [CompletionResultType]::ParameterName, 'Values file in the venonactl format (repeatable; later files win)')
            [CompletionResult]::new('--set-value', '--set-value', [CompletionResultType]::ParameterName, 'Set a value by dotted key, typed like Helm (repeatable): Storage.Backend=ebs')
            [CompletionResult]::new('--set-file', '--set-file', [CompletionResultType]::ParameterName, 'Set a value to a file''s contents (repeatable): Storage.GoogleServiceAccount=key.json')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'Name of the agent on the platform [default: <context>_<namespace>]')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Codefresh API token [default: $CF_API_KEY, then ~/.cfconfig]')
            [CompletionResult]::new('--agent-token', '--agent-token', [CompletionResultType]::ParameterName, 'Agent token issued earlier by the platform (re-install an existing agent)')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Codefresh platform URL [default: https://g.codefresh.io]')
            [CompletionResult]::new('--tolerations', '--tolerations', [CompletionResultType]::ParameterName, 'Tolerations for the runner and provisioner: JSON list, or @file.json')
            [CompletionResult]::new('--storage-class-name', '--storage-class-name', [CompletionResultType]::ParameterName, 'Use an existing StorageClass for dind volumes (skips the volume provisioner)')
            [CompletionResult]::new('--set-default-runtime', '--set-default-runtime', [CompletionResultType]::ParameterName, 'Make the new runtime environment the account''s default')
            [CompletionResult]::new('--exec-demo-pipeline', '--exec-demo-pipeline', [CompletionResultType]::ParameterName, 'Create and run the demo pipeline after install')
            [CompletionResult]::new('--output-dir', '--output-dir', [CompletionResultType]::ParameterName, 'Where --dry-run writes: a directory, or - for one YAML stream on stdout')
            [CompletionResult]::new('--generate-helm-values-file', '--generate-helm-values-file', [CompletionResultType]::ParameterName, 'Write a values file for the cf-runtime Helm chart instead of installing')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for the workloads to become ready, and for another run''s lock (e.g. 90s, 5m)')
            [CompletionResult]::new('--probe-timeout', '--probe-timeout', [CompletionResultType]::ParameterName, 'How long the probe may take (e.g. 90s, 5m)')
            [CompletionResult]::new('--insecure', '--insecure', [CompletionResultType]::ParameterName, 'Skip TLS verification towards the platform (self-signed on-prem only)')
            [CompletionResult]::new('--allow-http', '--allow-http', [CompletionResultType]::ParameterName, 'Send the API key over a plain http:// platform URL (other than localhost)')
            [CompletionResult]::new('--skip-cluster-test', '--skip-cluster-test', [CompletionResultType]::ParameterName, 'Skip the preflight checks')
            [CompletionResult]::new('--skip-cluster-integration', '--skip-cluster-integration', [CompletionResultType]::ParameterName, 'Do not create the cluster integration on the platform')
            [CompletionResult]::new('--agent-only', '--agent-only', [CompletionResultType]::ParameterName, 'Install the agent alone, with no runtime in its namespace (attach runtimes with `runtime attach`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Write the manifests instead of installing; touches neither cluster nor platform')
            [CompletionResult]::new('--overwrite', '--overwrite', [CompletionResultType]::ParameterName, 'Write over files cf-runner did not write (in the --output-dir folder, or at the Helm values path)')
            [CompletionResult]::new('--force-conflicts', '--force-conflicts', [CompletionResultType]::ParameterName, 'Take over fields that another field manager owns')
            [CompletionResult]::new('--no-wait', '--no-wait', [CompletionResultType]::ParameterName, 'Apply and return without waiting for the workloads')
            [CompletionResult]::new('--no-wait-for-lock', '--no-wait-for-lock', [CompletionResultType]::ParameterName, 'Stop at once (exit 1) when another run holds the install''s lock, instead of waiting up to --timeout')
            [CompletionResult]::new('--probe', '--probe', [CompletionResultType]::ParameterName, 'After the install, try the build path: a dind claim and a dind-like pod')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Answer every question with its default; never prompt')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer every question with its default; never prompt')
            [CompletionResult]::new('--trust-values-kubeconfig', '--trust-values-kubeconfig', [CompletionResultType]::ParameterName, 'Let a kubeconfig that a values file names (ConfigPath, Runtimes[].ConfigPath) run its auth plugin and send its token file (risky: whoever wrote the file picks the command)')
            [CompletionResult]::new('--accept-agent-insecure-tls', '--accept-agent-insecure-tls', [CompletionResultType]::ParameterName, 'Attach the values'' Runtimes although the agent skips TLS verification (--insecure): it would then skip it towards every attached runtime''s API server too')
            [CompletionResult]::new('--allow-builds-to-read-tokens', '--allow-builds-to-read-tokens', [CompletionResultType]::ParameterName, 'Attach the values'' Runtimes although the agent runs builds of its own runtime in its namespace: every pipeline there could read their tokens and create pods in their namespaces')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'cf-runner;info' {
            [CompletionResult]::new('--kube-context-name', '--kube-context-name', [CompletionResultType]::ParameterName, 'Kubernetes context to use [default: the kubeconfig''s current context]')
            [CompletionResult]::new('--kube-config-path', '--kube-config-path', [CompletionResultType]::ParameterName, 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Codefresh platform URL [default: the installation''s, else https://g.codefresh.io]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long --wait waits (e.g. 90s, 5m)')
            [CompletionResult]::new('--kube-namespace', '--kube-namespace', [CompletionResultType]::ParameterName, 'Namespace of the runner [default: every installation in the cluster]')
            [CompletionResult]::new('--insecure', '--insecure', [CompletionResultType]::ParameterName, 'Skip TLS verification towards the platform (self-signed on-prem only)')
            [CompletionResult]::new('--allow-http', '--allow-http', [CompletionResultType]::ParameterName, 'Send the API key over a plain http:// platform URL (other than localhost)')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait until the install is healthy (runner ready, runtime registered, certificate valid); exit 1 at --timeout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'cf-runner;delete' {
            [CompletionResult]::new('--kube-context-name', '--kube-context-name', [CompletionResultType]::ParameterName, 'Kubernetes context to use [default: the kubeconfig''s current context]')
            [CompletionResult]::new('--kube-config-path', '--kube-config-path', [CompletionResultType]::ParameterName, 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Codefresh platform URL [default: the installation''s, else https://g.codefresh.io]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for the objects to be gone, and for another run''s lock (e.g. 90s, 5m)')
            [CompletionResult]::new('--kube-namespace', '--kube-namespace', [CompletionResultType]::ParameterName, 'Namespace of the runner [default: the only installation in the cluster]')
            [CompletionResult]::new('--insecure', '--insecure', [CompletionResultType]::ParameterName, 'Skip TLS verification towards the platform (self-signed on-prem only)')
            [CompletionResult]::new('--allow-http', '--allow-http', [CompletionResultType]::ParameterName, 'Send the API key over a plain http:// platform URL (other than localhost)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation')
            [CompletionResult]::new('--delete-namespace', '--delete-namespace', [CompletionResultType]::ParameterName, 'Also delete the namespace, if cf-runner created it and nothing else is in it')
            [CompletionResult]::new('--delete-namespace-with-contents', '--delete-namespace-with-contents', [CompletionResultType]::ParameterName, 'Also delete the namespace cf-runner created with everything still in it (lists it first)')
            [CompletionResult]::new('--purge-volumes', '--purge-volumes', [CompletionResultType]::ParameterName, 'Also delete dind volumes (PVs and PVCs)')
            [CompletionResult]::new('--keep-platform', '--keep-platform', [CompletionResultType]::ParameterName, 'Leave the agent and runtime environment on the platform')
            [CompletionResult]::new('--all-runtimes', '--all-runtimes', [CompletionResultType]::ParameterName, 'Also delete every runtime attached to the agent, first (their objects and runtime environments; the agent is not rolled for them)')
            [CompletionResult]::new('--ignore-agent', '--ignore-agent', [CompletionResultType]::ParameterName, 'Delete an attached runtime''s namespace objects although an agent may still serve it (its agent is gone)')
            [CompletionResult]::new('--delete-adopted', '--delete-adopted', [CompletionResultType]::ParameterName, 'Also delete objects that existed before the install and were taken over with --force-conflicts')
            [CompletionResult]::new('--no-wait-for-lock', '--no-wait-for-lock', [CompletionResultType]::ParameterName, 'Stop at once (exit 1) when another run holds the install''s lock, instead of waiting up to --timeout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'cf-runner;upgrade' {
            [CompletionResult]::new('--kube-context-name', '--kube-context-name', [CompletionResultType]::ParameterName, 'Kubernetes context to use [default: the kubeconfig''s current context]')
            [CompletionResult]::new('--kube-config-path', '--kube-config-path', [CompletionResultType]::ParameterName, 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]')
            [CompletionResult]::new('--kube-node-selector', '--kube-node-selector', [CompletionResultType]::ParameterName, 'Node selector for the runner and volume provisioner: key=value[,key=value]')
            [CompletionResult]::new('--build-node-selector', '--build-node-selector', [CompletionResultType]::ParameterName, 'Node selector for build (engine and dind) pods: key=value[,key=value]')
            [CompletionResult]::new('--docker-registry', '--docker-registry', [CompletionResultType]::ParameterName, 'Registry that serves every image (a mirror of quay.io)')
            [CompletionResult]::new('--image-pull-secret', '--image-pull-secret', [CompletionResultType]::ParameterName, 'Secret of yours (type docker-registry, in the runner''s namespace) that every pod and build pulls images with (repeatable)')
            [CompletionResult]::new('--env-vars', '--env-vars', [CompletionResultType]::ParameterName, 'Environment variable for every component and build (repeatable): KEY=VALUE')
            [CompletionResult]::new('--http-proxy', '--http-proxy', [CompletionResultType]::ParameterName, 'HTTP proxy for every component and build')
            [CompletionResult]::new('--https-proxy', '--https-proxy', [CompletionResultType]::ParameterName, 'HTTPS proxy for every component and build')
            [CompletionResult]::new('--no-proxy', '--no-proxy', [CompletionResultType]::ParameterName, 'Hosts that bypass the proxy, comma-separated')
            [CompletionResult]::new('--ca-bundle', '--ca-bundle', [CompletionResultType]::ParameterName, 'PEM file of CA certificates (a TLS-inspecting proxy''s) that cf-runner, every component and every build trust besides the public roots')
            [CompletionResult]::new('--install-monitor', '--install-monitor', [CompletionResultType]::ParameterName, 'Install the cluster monitor (with upgrade, false removes it)')
            [CompletionResult]::new('--app-proxy', '--app-proxy', [CompletionResultType]::ParameterName, 'Install the app-proxy, which needs --app-proxy-host (with upgrade, false removes it)')
            [CompletionResult]::new('--app-proxy-host', '--app-proxy-host', [CompletionResultType]::ParameterName, 'Host name of the app-proxy Ingress')
            [CompletionResult]::new('--app-proxy-ingress-class', '--app-proxy-ingress-class', [CompletionResultType]::ParameterName, 'IngressClass of the app-proxy Ingress')
            [CompletionResult]::new('--docker-daemon-access', '--docker-daemon-access', [CompletionResultType]::ParameterName, 'Let pipeline steps reach the docker daemon')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Values file applied on top of the stored values (repeatable; later files win)')
            [CompletionResult]::new('--values', '--values', [CompletionResultType]::ParameterName, 'Values file applied on top of the stored values (repeatable; later files win)')
            [CompletionResult]::new('--set-value', '--set-value', [CompletionResultType]::ParameterName, 'Set a value by dotted key, typed like Helm (repeatable): Monitor.Enabled=false')
            [CompletionResult]::new('--set-file', '--set-file', [CompletionResultType]::ParameterName, 'Set a value to a file''s contents (repeatable): Storage.GoogleServiceAccount=key.json')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Codefresh API token (for the monitor) [default: the one installed]')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Codefresh platform URL; the only host other than the token''s own (CF_URL, ~/.cfconfig) the token is sent to [default: the installation''s, when it is the token''s own]')
            [CompletionResult]::new('--agent-token', '--agent-token', [CompletionResultType]::ParameterName, 'Agent token [default: the one installed]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for the workloads to become ready, and for another run''s lock (e.g. 90s, 5m)')
            [CompletionResult]::new('--kube-namespace', '--kube-namespace', [CompletionResultType]::ParameterName, 'Namespace of the runner [default: the only installation in the cluster]')
            [CompletionResult]::new('--allow-http', '--allow-http', [CompletionResultType]::ParameterName, 'Send the API key over a plain http:// platform URL (other than localhost)')
            [CompletionResult]::new('--force-conflicts', '--force-conflicts', [CompletionResultType]::ParameterName, 'Take over fields that another field manager owns')
            [CompletionResult]::new('--no-wait', '--no-wait', [CompletionResultType]::ParameterName, 'Apply and return without waiting for the workloads')
            [CompletionResult]::new('--no-wait-for-lock', '--no-wait-for-lock', [CompletionResultType]::ParameterName, 'Stop at once (exit 1) when another run holds the install''s lock, instead of waiting up to --timeout')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'cf-runner;check' {
            [CompletionResult]::new('--kube-context-name', '--kube-context-name', [CompletionResultType]::ParameterName, 'Kubernetes context to use [default: the kubeconfig''s current context]')
            [CompletionResult]::new('--kube-namespace', '--kube-namespace', [CompletionResultType]::ParameterName, 'Namespace of the runner [default: codefresh]')
            [CompletionResult]::new('--kube-config-path', '--kube-config-path', [CompletionResultType]::ParameterName, 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Values file to check the install of (repeatable)')
            [CompletionResult]::new('--values', '--values', [CompletionResultType]::ParameterName, 'Values file to check the install of (repeatable)')
            [CompletionResult]::new('--set-value', '--set-value', [CompletionResultType]::ParameterName, 'Set a value by dotted key, typed like Helm (repeatable): Storage.Backend=ebs')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--probe-timeout', '--probe-timeout', [CompletionResultType]::ParameterName, 'How long the probe may take (e.g. 90s, 5m)')
            [CompletionResult]::new('--probe', '--probe', [CompletionResultType]::ParameterName, 'Also try the build path on the installed namespace: a dind claim and a dind-like pod')
            [CompletionResult]::new('--trust-values-kubeconfig', '--trust-values-kubeconfig', [CompletionResultType]::ParameterName, 'Let a kubeconfig that a values file names (ConfigPath) run its auth plugin and send its token file (risky: whoever wrote the file picks the command)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'cf-runner;test-pipeline' {
            [CompletionResult]::new('--kube-context-name', '--kube-context-name', [CompletionResultType]::ParameterName, 'Kubernetes context to use [default: the kubeconfig''s current context]')
            [CompletionResult]::new('--kube-config-path', '--kube-config-path', [CompletionResultType]::ParameterName, 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Codefresh platform URL [default: the installation''s, else https://g.codefresh.io]')
            [CompletionResult]::new('--runtime-name', '--runtime-name', [CompletionResultType]::ParameterName, 'Runtime environment to run the demo pipeline on [default: the installation''s]')
            [CompletionResult]::new('--kube-namespace', '--kube-namespace', [CompletionResultType]::ParameterName, 'Namespace of the runner [default: the only installation in the cluster]')
            [CompletionResult]::new('--insecure', '--insecure', [CompletionResultType]::ParameterName, 'Skip TLS verification towards the platform (self-signed on-prem only)')
            [CompletionResult]::new('--allow-http', '--allow-http', [CompletionResultType]::ParameterName, 'Send the API key over a plain http:// platform URL (other than localhost)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'cf-runner;adopt' {
            [CompletionResult]::new('--kube-context-name', '--kube-context-name', [CompletionResultType]::ParameterName, 'Kubernetes context to use [default: the kubeconfig''s current context]')
            [CompletionResult]::new('--kube-namespace', '--kube-namespace', [CompletionResultType]::ParameterName, 'Namespace of the runner [default: codefresh]')
            [CompletionResult]::new('--kube-config-path', '--kube-config-path', [CompletionResultType]::ParameterName, 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Codefresh platform URL [default: the installation''s, else https://g.codefresh.io]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for each step of the move, and for another run''s lock (e.g. 90s, 5m)')
            [CompletionResult]::new('--values-file', '--values-file', [CompletionResultType]::ParameterName, 'Where to save what the install is, as a cf-runner values file')
            [CompletionResult]::new('--insecure', '--insecure', [CompletionResultType]::ParameterName, 'Skip TLS verification towards the platform (self-signed on-prem only)')
            [CompletionResult]::new('--allow-http', '--allow-http', [CompletionResultType]::ParameterName, 'Send the API key over a plain http:// platform URL (other than localhost)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Read the install, save the values file and print the plan; change nothing in the cluster')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation before moving the runner')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation before moving the runner')
            [CompletionResult]::new('--no-wait-for-lock', '--no-wait-for-lock', [CompletionResultType]::ParameterName, 'Stop at once (exit 1) when another run holds the install''s lock, instead of waiting up to --timeout')
            [CompletionResult]::new('--overwrite', '--overwrite', [CompletionResultType]::ParameterName, 'Write over a file at --values-file that cf-runner adopt did not write')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'cf-runner;completions' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'cf-runner;diff' {
            [CompletionResult]::new('--kube-context-name', '--kube-context-name', [CompletionResultType]::ParameterName, 'Kubernetes context to use [default: the kubeconfig''s current context]')
            [CompletionResult]::new('--kube-namespace', '--kube-namespace', [CompletionResultType]::ParameterName, 'Namespace of the runner [default: codefresh]')
            [CompletionResult]::new('--kube-config-path', '--kube-config-path', [CompletionResultType]::ParameterName, 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]')
            [CompletionResult]::new('--kube-node-selector', '--kube-node-selector', [CompletionResultType]::ParameterName, 'Node selector for the runner and volume provisioner: key=value[,key=value]')
            [CompletionResult]::new('--build-node-selector', '--build-node-selector', [CompletionResultType]::ParameterName, 'Node selector for build (engine and dind) pods: key=value[,key=value]')
            [CompletionResult]::new('--docker-registry', '--docker-registry', [CompletionResultType]::ParameterName, 'Registry that serves every image (a mirror of quay.io)')
            [CompletionResult]::new('--image-pull-secret', '--image-pull-secret', [CompletionResultType]::ParameterName, 'Secret of yours (type docker-registry, in the runner''s namespace) that every pod and build pulls images with (repeatable)')
            [CompletionResult]::new('--env-vars', '--env-vars', [CompletionResultType]::ParameterName, 'Environment variable for every component and build (repeatable): KEY=VALUE')
            [CompletionResult]::new('--http-proxy', '--http-proxy', [CompletionResultType]::ParameterName, 'HTTP proxy for every component and build')
            [CompletionResult]::new('--https-proxy', '--https-proxy', [CompletionResultType]::ParameterName, 'HTTPS proxy for every component and build')
            [CompletionResult]::new('--no-proxy', '--no-proxy', [CompletionResultType]::ParameterName, 'Hosts that bypass the proxy, comma-separated')
            [CompletionResult]::new('--ca-bundle', '--ca-bundle', [CompletionResultType]::ParameterName, 'PEM file of CA certificates (a TLS-inspecting proxy''s) that cf-runner, every component and every build trust besides the public roots')
            [CompletionResult]::new('--install-monitor', '--install-monitor', [CompletionResultType]::ParameterName, 'Install the cluster monitor (with upgrade, false removes it)')
            [CompletionResult]::new('--app-proxy', '--app-proxy', [CompletionResultType]::ParameterName, 'Install the app-proxy, which needs --app-proxy-host (with upgrade, false removes it)')
            [CompletionResult]::new('--app-proxy-host', '--app-proxy-host', [CompletionResultType]::ParameterName, 'Host name of the app-proxy Ingress')
            [CompletionResult]::new('--app-proxy-ingress-class', '--app-proxy-ingress-class', [CompletionResultType]::ParameterName, 'IngressClass of the app-proxy Ingress')
            [CompletionResult]::new('--docker-daemon-access', '--docker-daemon-access', [CompletionResultType]::ParameterName, 'Let pipeline steps reach the docker daemon')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Values file applied on top of the stored values (repeatable; later files win)')
            [CompletionResult]::new('--values', '--values', [CompletionResultType]::ParameterName, 'Values file applied on top of the stored values (repeatable; later files win)')
            [CompletionResult]::new('--set-value', '--set-value', [CompletionResultType]::ParameterName, 'Set a value by dotted key, typed like Helm (repeatable): Monitor.Enabled=false')
            [CompletionResult]::new('--set-file', '--set-file', [CompletionResultType]::ParameterName, 'Set a value to a file''s contents (repeatable): Storage.GoogleServiceAccount=key.json')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Codefresh API token (for the monitor) [default: the one installed]')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Codefresh platform URL; the only host other than the token''s own (CF_URL, ~/.cfconfig) the token is sent to [default: the installation''s, when it is the token''s own]')
            [CompletionResult]::new('--agent-token', '--agent-token', [CompletionResultType]::ParameterName, 'Agent token [default: the one installed]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'cf-runner;schema' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'cf-runner;images' {
            [CompletionResult]::new('--kube-node-selector', '--kube-node-selector', [CompletionResultType]::ParameterName, 'Node selector for the runner and volume provisioner: key=value[,key=value]')
            [CompletionResult]::new('--build-node-selector', '--build-node-selector', [CompletionResultType]::ParameterName, 'Node selector for build (engine and dind) pods: key=value[,key=value]')
            [CompletionResult]::new('--docker-registry', '--docker-registry', [CompletionResultType]::ParameterName, 'Registry that serves every image (a mirror of quay.io)')
            [CompletionResult]::new('--image-pull-secret', '--image-pull-secret', [CompletionResultType]::ParameterName, 'Secret of yours (type docker-registry, in the runner''s namespace) that every pod and build pulls images with (repeatable)')
            [CompletionResult]::new('--env-vars', '--env-vars', [CompletionResultType]::ParameterName, 'Environment variable for every component and build (repeatable): KEY=VALUE')
            [CompletionResult]::new('--http-proxy', '--http-proxy', [CompletionResultType]::ParameterName, 'HTTP proxy for every component and build')
            [CompletionResult]::new('--https-proxy', '--https-proxy', [CompletionResultType]::ParameterName, 'HTTPS proxy for every component and build')
            [CompletionResult]::new('--no-proxy', '--no-proxy', [CompletionResultType]::ParameterName, 'Hosts that bypass the proxy, comma-separated')
            [CompletionResult]::new('--ca-bundle', '--ca-bundle', [CompletionResultType]::ParameterName, 'PEM file of CA certificates (a TLS-inspecting proxy''s) that cf-runner, every component and every build trust besides the public roots')
            [CompletionResult]::new('--install-monitor', '--install-monitor', [CompletionResultType]::ParameterName, 'Install the cluster monitor (with upgrade, false removes it)')
            [CompletionResult]::new('--app-proxy', '--app-proxy', [CompletionResultType]::ParameterName, 'Install the app-proxy, which needs --app-proxy-host (with upgrade, false removes it)')
            [CompletionResult]::new('--app-proxy-host', '--app-proxy-host', [CompletionResultType]::ParameterName, 'Host name of the app-proxy Ingress')
            [CompletionResult]::new('--app-proxy-ingress-class', '--app-proxy-ingress-class', [CompletionResultType]::ParameterName, 'IngressClass of the app-proxy Ingress')
            [CompletionResult]::new('--docker-daemon-access', '--docker-daemon-access', [CompletionResultType]::ParameterName, 'Let pipeline steps reach the docker daemon')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Values file in the venonactl format (repeatable; later files win)')
            [CompletionResult]::new('--values', '--values', [CompletionResultType]::ParameterName, 'Values file in the venonactl format (repeatable; later files win)')
            [CompletionResult]::new('--set-value', '--set-value', [CompletionResultType]::ParameterName, 'Set a value by dotted key, typed like Helm (repeatable): Monitor.Enabled=true')
            [CompletionResult]::new('--set-file', '--set-file', [CompletionResultType]::ParameterName, 'Set a value to a file''s contents (repeatable): Storage.GoogleServiceAccount=key.json')
            [CompletionResult]::new('--docker-config', '--docker-config', [CompletionResultType]::ParameterName, 'Docker config file with registry credentials for --check [default: $DOCKER_CONFIG/config.json, then ~/.docker/config.json]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Ask each image''s registry whether it holds it; exit 1 when one is missing')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'cf-runner;fleet' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('register', 'register', [CompletionResultType]::ParameterValue, 'Register every runtime of the fleet file on the platform (no cluster needed) and write its secrets encrypted')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write the fleet as a Git tree: a Kustomize base, an overlay per cluster, Flux Kustomizations, Argo CD Applications')
            [CompletionResult]::new('retire', 'retire', [CompletionResultType]::ParameterValue, 'Remove from the platform the runtimes registered in the tree that the fleet file no longer lists')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'cf-runner;fleet;register' {
            [CompletionResult]::new('--fleet', '--fleet', [CompletionResultType]::ParameterName, 'The fleet file (YAML: defaults, gitops, sops, clusters)')
            [CompletionResult]::new('--output-dir', '--output-dir', [CompletionResultType]::ParameterName, 'The tree''s folder (inside your Git repository)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Codefresh platform URL [default: the installation''s, else https://g.codefresh.io]')
            [CompletionResult]::new('--age-key-file', '--age-key-file', [CompletionResultType]::ParameterName, 'age identities, to re-encrypt a registration whose Secrets changed shape or whose sops.ageRecipients changed [default: $SOPS_AGE_KEY_FILE]')
            [CompletionResult]::new('--store-material-dir', '--store-material-dir', [CompletionResultType]::ParameterName, 'With `externalSecrets`: where a new registration''s Secrets are written (0600, outside the tree) for you to load into your store')
            [CompletionResult]::new('--registration-key-file', '--registration-key-file', [CompletionResultType]::ParameterName, 'The key registrations are sealed with, kept outside the tree (made by the first `fleet register`) [default: ~/.config/cf-runner/fleet-registration.key]')
            [CompletionResult]::new('--insecure', '--insecure', [CompletionResultType]::ParameterName, 'Skip TLS verification towards the platform (self-signed on-prem only)')
            [CompletionResult]::new('--allow-http', '--allow-http', [CompletionResultType]::ParameterName, 'Send the API key over a plain http:// platform URL (other than localhost)')
            [CompletionResult]::new('--accept-unsigned-registrations', '--accept-unsigned-registrations', [CompletionResultType]::ParameterName, 'Read registration.yaml files without a valid seal (an older cf-runner''s, or another key''s); `register` and `retire` check each against the platform first, `register` then seals it. Risky: anyone who can write to the repository can write one naming another team''s agent')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'cf-runner;fleet;export' {
            [CompletionResult]::new('--fleet', '--fleet', [CompletionResultType]::ParameterName, 'The fleet file (YAML: defaults, gitops, sops, clusters)')
            [CompletionResult]::new('--output-dir', '--output-dir', [CompletionResultType]::ParameterName, 'The tree''s folder (inside your Git repository)')
            [CompletionResult]::new('--registration-key-file', '--registration-key-file', [CompletionResultType]::ParameterName, 'The key registrations are sealed with, kept outside the tree (made by the first `fleet register`) [default: ~/.config/cf-runner/fleet-registration.key]')
            [CompletionResult]::new('--overwrite', '--overwrite', [CompletionResultType]::ParameterName, 'Write beside files cf-runner did not write (files with the same names are replaced)')
            [CompletionResult]::new('--accept-unsigned-registrations', '--accept-unsigned-registrations', [CompletionResultType]::ParameterName, 'Read registration.yaml files without a valid seal (an older cf-runner''s, or another key''s); `register` and `retire` check each against the platform first, `register` then seals it. Risky: anyone who can write to the repository can write one naming another team''s agent')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'cf-runner;fleet;retire' {
            [CompletionResult]::new('--fleet', '--fleet', [CompletionResultType]::ParameterName, 'The fleet file (YAML: defaults, gitops, sops, clusters)')
            [CompletionResult]::new('--output-dir', '--output-dir', [CompletionResultType]::ParameterName, 'The tree''s folder (inside your Git repository)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Codefresh platform URL [default: the installation''s, else https://g.codefresh.io]')
            [CompletionResult]::new('--age-key-file', '--age-key-file', [CompletionResultType]::ParameterName, 'age identities, to re-encrypt a registration whose Secrets changed shape or whose sops.ageRecipients changed [default: $SOPS_AGE_KEY_FILE]')
            [CompletionResult]::new('--store-material-dir', '--store-material-dir', [CompletionResultType]::ParameterName, 'With `externalSecrets`: where a new registration''s Secrets are written (0600, outside the tree) for you to load into your store')
            [CompletionResult]::new('--registration-key-file', '--registration-key-file', [CompletionResultType]::ParameterName, 'The key registrations are sealed with, kept outside the tree (made by the first `fleet register`) [default: ~/.config/cf-runner/fleet-registration.key]')
            [CompletionResult]::new('--insecure', '--insecure', [CompletionResultType]::ParameterName, 'Skip TLS verification towards the platform (self-signed on-prem only)')
            [CompletionResult]::new('--allow-http', '--allow-http', [CompletionResultType]::ParameterName, 'Send the API key over a plain http:// platform URL (other than localhost)')
            [CompletionResult]::new('--accept-unsigned-registrations', '--accept-unsigned-registrations', [CompletionResultType]::ParameterName, 'Read registration.yaml files without a valid seal (an older cf-runner''s, or another key''s); `register` and `retire` check each against the platform first, `register` then seals it. Risky: anyone who can write to the repository can write one naming another team''s agent')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'cf-runner;fleet;help' {
            [CompletionResult]::new('register', 'register', [CompletionResultType]::ParameterValue, 'Register every runtime of the fleet file on the platform (no cluster needed) and write its secrets encrypted')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write the fleet as a Git tree: a Kustomize base, an overlay per cluster, Flux Kustomizations, Argo CD Applications')
            [CompletionResult]::new('retire', 'retire', [CompletionResultType]::ParameterValue, 'Remove from the platform the runtimes registered in the tree that the fleet file no longer lists')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'cf-runner;fleet;help;register' {
            break
        }
        'cf-runner;fleet;help;export' {
            break
        }
        'cf-runner;fleet;help;retire' {
            break
        }
        'cf-runner;fleet;help;help' {
            break
        }
        'cf-runner;support-bundle' {
            [CompletionResult]::new('--kube-context-name', '--kube-context-name', [CompletionResultType]::ParameterName, 'Kubernetes context to use [default: the kubeconfig''s current context]')
            [CompletionResult]::new('--kube-config-path', '--kube-config-path', [CompletionResultType]::ParameterName, 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Codefresh platform URL [default: the installation''s, else https://g.codefresh.io]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Where to write the bundle [default: cf-runner-support-<namespace>-<UTC time>.tar.gz here]')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Where to write the bundle [default: cf-runner-support-<namespace>-<UTC time>.tar.gz here]')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only log lines newer than this (e.g. 30m, 6h, 2d)')
            [CompletionResult]::new('--max-log-bytes', '--max-log-bytes', [CompletionResultType]::ParameterName, 'Most bytes kept of each container log, the newest (e.g. 512Ki, 2Mi)')
            [CompletionResult]::new('--max-size', '--max-size', [CompletionResultType]::ParameterName, 'Largest bundle to write; what would pass it is left out and listed (e.g. 20Mi)')
            [CompletionResult]::new('--kube-namespace', '--kube-namespace', [CompletionResultType]::ParameterName, 'Namespace of the runner [default: the only installation in the cluster]')
            [CompletionResult]::new('--insecure', '--insecure', [CompletionResultType]::ParameterName, 'Skip TLS verification towards the platform (self-signed on-prem only)')
            [CompletionResult]::new('--allow-http', '--allow-http', [CompletionResultType]::ParameterName, 'Send the API key over a plain http:// platform URL (other than localhost)')
            [CompletionResult]::new('--overwrite', '--overwrite', [CompletionResultType]::ParameterName, 'Write over a file at --output that is not a bundle cf-runner wrote')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'cf-runner;runtime' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('attach', 'attach', [CompletionResultType]::ParameterValue, 'Let an installed agent serve the runtime in another namespace or cluster')
            [CompletionResult]::new('detach', 'detach', [CompletionResultType]::ParameterValue, 'Stop the agent serving a runtime, and remove its credentials there')
            [CompletionResult]::new('rotate', 'rotate', [CompletionResultType]::ParameterValue, 'Give the agent a new token for an attached runtime; the old one stops working')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete one attached runtime: detach it, remove its objects, and its runtime environment on the platform')
            [CompletionResult]::new('upgrade', 'upgrade', [CompletionResultType]::ParameterValue, 'Re-apply one attached runtime''s objects from the agent''s values (images, dind config)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'cf-runner;runtime;attach' {
            [CompletionResult]::new('--kube-config-path', '--kube-config-path', [CompletionResultType]::ParameterName, 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]')
            [CompletionResult]::new('--agent-namespace', '--agent-namespace', [CompletionResultType]::ParameterName, 'Namespace of the installed agent (made by `cf-runner init`)')
            [CompletionResult]::new('--agent-context', '--agent-context', [CompletionResultType]::ParameterName, 'Context of the agent''s cluster [default: the kubeconfig''s current context]')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Codefresh platform URL [default: the installation''s, else https://g.codefresh.io]')
            [CompletionResult]::new('--runtime-name', '--runtime-name', [CompletionResultType]::ParameterName, 'Name of the runtime environment on the platform [default: <context>/<namespace>]')
            [CompletionResult]::new('--kube-host', '--kube-host', [CompletionResultType]::ParameterName, 'API server URL the agent reaches the runtime''s cluster at [default: in-cluster for the agent''s own cluster, else the kubeconfig''s]')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Runtimes file listing several runtimes to attach (see docs/guide/runtimes.md)')
            [CompletionResult]::new('--values', '--values', [CompletionResultType]::ParameterName, 'Runtimes file listing several runtimes to attach (see docs/guide/runtimes.md)')
            [CompletionResult]::new('--set-value', '--set-value', [CompletionResultType]::ParameterName, 'The runtime''s own setting, by a runtimes file entry''s key (repeatable): NodeSelector=zone=a, Storage.Backend=local')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for each token and for the agent''s rollout, and for another run''s lock (e.g. 90s, 5m)')
            [CompletionResult]::new('--kube-namespace', '--kube-namespace', [CompletionResultType]::ParameterName, 'Namespace of the runtime (builds run there) [default: the agent''s namespace]')
            [CompletionResult]::new('--kube-context-name', '--kube-context-name', [CompletionResultType]::ParameterName, 'Context of the runtime''s cluster [default: the agent''s context]')
            [CompletionResult]::new('--insecure', '--insecure', [CompletionResultType]::ParameterName, 'Skip TLS verification towards the platform (self-signed on-prem only)')
            [CompletionResult]::new('--allow-http', '--allow-http', [CompletionResultType]::ParameterName, 'Send the API key over a plain http:// platform URL (other than localhost)')
            [CompletionResult]::new('--trust-values-kubeconfig', '--trust-values-kubeconfig', [CompletionResultType]::ParameterName, 'Let a kubeconfig that the runtimes file names (Runtimes[].ConfigPath) run its auth plugin and send its token file (risky: whoever wrote the file picks the command)')
            [CompletionResult]::new('--accept-agent-insecure-tls', '--accept-agent-insecure-tls', [CompletionResultType]::ParameterName, 'Attach although the agent skips TLS verification (--insecure at init): it would then skip it towards every attached runtime''s API server too')
            [CompletionResult]::new('--allow-builds-to-read-tokens', '--allow-builds-to-read-tokens', [CompletionResultType]::ParameterName, 'Attach although the agent''s namespace runs builds of its own runtime: every pipeline there could read the attached runtime''s token and create pods in its namespace')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'cf-runner;runtime;detach' {
            [CompletionResult]::new('--kube-config-path', '--kube-config-path', [CompletionResultType]::ParameterName, 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]')
            [CompletionResult]::new('--agent-namespace', '--agent-namespace', [CompletionResultType]::ParameterName, 'Namespace of the installed agent (made by `cf-runner init`)')
            [CompletionResult]::new('--agent-context', '--agent-context', [CompletionResultType]::ParameterName, 'Context of the agent''s cluster [default: the kubeconfig''s current context]')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Codefresh platform URL [default: the installation''s, else https://g.codefresh.io]')
            [CompletionResult]::new('--runtime-name', '--runtime-name', [CompletionResultType]::ParameterName, 'Name of the runtime environment to detach [default: <context>/<namespace>]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for the agent''s rollout and the removals, and for another run''s lock (e.g. 90s, 5m)')
            [CompletionResult]::new('--kube-namespace', '--kube-namespace', [CompletionResultType]::ParameterName, 'Namespace of the runtime to detach')
            [CompletionResult]::new('--kube-context-name', '--kube-context-name', [CompletionResultType]::ParameterName, 'Context of the runtime''s cluster [default: the agent''s context]')
            [CompletionResult]::new('--insecure', '--insecure', [CompletionResultType]::ParameterName, 'Skip TLS verification towards the platform (self-signed on-prem only)')
            [CompletionResult]::new('--allow-http', '--allow-http', [CompletionResultType]::ParameterName, 'Send the API key over a plain http:// platform URL (other than localhost)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'cf-runner;runtime;rotate' {
            [CompletionResult]::new('--kube-config-path', '--kube-config-path', [CompletionResultType]::ParameterName, 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]')
            [CompletionResult]::new('--agent-namespace', '--agent-namespace', [CompletionResultType]::ParameterName, 'Namespace of the installed agent (made by `cf-runner init`)')
            [CompletionResult]::new('--agent-context', '--agent-context', [CompletionResultType]::ParameterName, 'Context of the agent''s cluster [default: the kubeconfig''s current context]')
            [CompletionResult]::new('--runtime-name', '--runtime-name', [CompletionResultType]::ParameterName, 'Name of the runtime environment whose token is rotated [default: <context>/<namespace>]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for each token, each rollout of the agent and the removals, and for another run''s lock (e.g. 90s, 5m)')
            [CompletionResult]::new('--kube-namespace', '--kube-namespace', [CompletionResultType]::ParameterName, 'Namespace of the runtime whose token is rotated')
            [CompletionResult]::new('--kube-context-name', '--kube-context-name', [CompletionResultType]::ParameterName, 'Context of the runtime''s cluster [default: the agent''s context]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'cf-runner;runtime;delete' {
            [CompletionResult]::new('--kube-config-path', '--kube-config-path', [CompletionResultType]::ParameterName, 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]')
            [CompletionResult]::new('--agent-namespace', '--agent-namespace', [CompletionResultType]::ParameterName, 'Namespace of the installed agent (made by `cf-runner init`)')
            [CompletionResult]::new('--agent-context', '--agent-context', [CompletionResultType]::ParameterName, 'Context of the agent''s cluster [default: the kubeconfig''s current context]')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Codefresh platform URL [default: the installation''s, else https://g.codefresh.io]')
            [CompletionResult]::new('--runtime-name', '--runtime-name', [CompletionResultType]::ParameterName, 'Name of the runtime environment to delete [default: <context>/<namespace>]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for the agent''s rollout and the removals, and for another run''s lock (e.g. 90s, 5m)')
            [CompletionResult]::new('--kube-namespace', '--kube-namespace', [CompletionResultType]::ParameterName, 'Namespace of the runtime to delete')
            [CompletionResult]::new('--kube-context-name', '--kube-context-name', [CompletionResultType]::ParameterName, 'Context of the runtime''s cluster [default: the agent''s context]')
            [CompletionResult]::new('--insecure', '--insecure', [CompletionResultType]::ParameterName, 'Skip TLS verification towards the platform (self-signed on-prem only)')
            [CompletionResult]::new('--allow-http', '--allow-http', [CompletionResultType]::ParameterName, 'Send the API key over a plain http:// platform URL (other than localhost)')
            [CompletionResult]::new('--keep-platform', '--keep-platform', [CompletionResultType]::ParameterName, 'Leave the runtime environment on the platform (it is still detached from the agent)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'cf-runner;runtime;upgrade' {
            [CompletionResult]::new('--kube-config-path', '--kube-config-path', [CompletionResultType]::ParameterName, 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]')
            [CompletionResult]::new('--agent-namespace', '--agent-namespace', [CompletionResultType]::ParameterName, 'Namespace of the installed agent (made by `cf-runner init`)')
            [CompletionResult]::new('--agent-context', '--agent-context', [CompletionResultType]::ParameterName, 'Context of the agent''s cluster [default: the kubeconfig''s current context]')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Codefresh platform URL [default: the installation''s, else https://g.codefresh.io]')
            [CompletionResult]::new('--runtime-name', '--runtime-name', [CompletionResultType]::ParameterName, 'Name of the runtime environment to upgrade [default: <context>/<namespace>]')
            [CompletionResult]::new('--set-value', '--set-value', [CompletionResultType]::ParameterName, 'The runtime''s own setting, as at attach (repeatable): NodeSelector=zone=a, Storage.Backend=local; a setting of its own on the platform that is not given again is refused, not dropped')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for another run''s lock (e.g. 90s, 5m)')
            [CompletionResult]::new('--kube-namespace', '--kube-namespace', [CompletionResultType]::ParameterName, 'Namespace of the runtime to upgrade')
            [CompletionResult]::new('--kube-context-name', '--kube-context-name', [CompletionResultType]::ParameterName, 'Context of the runtime''s cluster [default: the agent''s context]')
            [CompletionResult]::new('--insecure', '--insecure', [CompletionResultType]::ParameterName, 'Skip TLS verification towards the platform (self-signed on-prem only)')
            [CompletionResult]::new('--allow-http', '--allow-http', [CompletionResultType]::ParameterName, 'Send the API key over a plain http:// platform URL (other than localhost)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'cf-runner;runtime;help' {
            [CompletionResult]::new('attach', 'attach', [CompletionResultType]::ParameterValue, 'Let an installed agent serve the runtime in another namespace or cluster')
            [CompletionResult]::new('detach', 'detach', [CompletionResultType]::ParameterValue, 'Stop the agent serving a runtime, and remove its credentials there')
            [CompletionResult]::new('rotate', 'rotate', [CompletionResultType]::ParameterValue, 'Give the agent a new token for an attached runtime; the old one stops working')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete one attached runtime: detach it, remove its objects, and its runtime environment on the platform')
            [CompletionResult]::new('upgrade', 'upgrade', [CompletionResultType]::ParameterValue, 'Re-apply one attached runtime''s objects from the agent''s values (images, dind config)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'cf-runner;runtime;help;attach' {
            break
        }
        'cf-runner;runtime;help;detach' {
            break
        }
        'cf-runner;runtime;help;rotate' {
            break
        }
        'cf-runner;runtime;help;delete' {
            break
        }
        'cf-runner;runtime;help;upgrade' {
            break
        }
        'cf-runner;runtime;help;help' {
            break
        }
        'cf-runner;renew' {
            [CompletionResult]::new('--kube-context-name', '--kube-context-name', [CompletionResultType]::ParameterName, 'Kubernetes context to use [default: the kubeconfig''s current context]')
            [CompletionResult]::new('--kube-config-path', '--kube-config-path', [CompletionResultType]::ParameterName, 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Codefresh platform URL [default: the installation''s, else https://g.codefresh.io]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for another run''s lock, and for the agent''s rollout (e.g. 90s, 5m)')
            [CompletionResult]::new('--kube-namespace', '--kube-namespace', [CompletionResultType]::ParameterName, 'Namespace of the runner [default: the only installation in the cluster]')
            [CompletionResult]::new('--insecure', '--insecure', [CompletionResultType]::ParameterName, 'Skip TLS verification towards the platform (self-signed on-prem only)')
            [CompletionResult]::new('--allow-http', '--allow-http', [CompletionResultType]::ParameterName, 'Send the API key over a plain http:// platform URL (other than localhost)')
            [CompletionResult]::new('--no-wait-for-lock', '--no-wait-for-lock', [CompletionResultType]::ParameterName, 'Stop at once (exit 1) when another run holds the install''s lock, instead of waiting up to --timeout')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'cf-runner;diagnose' {
            [CompletionResult]::new('--kube-context-name', '--kube-context-name', [CompletionResultType]::ParameterName, 'Kubernetes context to use [default: the kubeconfig''s current context]')
            [CompletionResult]::new('--kube-config-path', '--kube-config-path', [CompletionResultType]::ParameterName, 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Codefresh platform URL [default: the installation''s, else https://g.codefresh.io]')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Look at build pods created this long ago or later (e.g. 30m, 1h, 2d)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--kube-namespace', '--kube-namespace', [CompletionResultType]::ParameterName, 'Namespace of the runner [default: the only installation in the cluster]')
            [CompletionResult]::new('--insecure', '--insecure', [CompletionResultType]::ParameterName, 'Skip TLS verification towards the platform (self-signed on-prem only)')
            [CompletionResult]::new('--allow-http', '--allow-http', [CompletionResultType]::ParameterName, 'Send the API key over a plain http:// platform URL (other than localhost)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'cf-runner;help' {
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Install the runner: wizard, or non-interactive with --values/--yes')
            [CompletionResult]::new('info', 'info', [CompletionResultType]::ParameterValue, 'Show what is installed and whether it is healthy')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Remove exactly what cf-runner installed')
            [CompletionResult]::new('upgrade', 'upgrade', [CompletionResultType]::ParameterValue, 'Re-render from the stored values (plus new flags) and apply')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Preflight: check that the cluster and your permissions can take an install')
            [CompletionResult]::new('test-pipeline', 'test-pipeline', [CompletionResultType]::ParameterValue, 'Run the demo pipeline on a runtime environment')
            [CompletionResult]::new('adopt', 'adopt', [CompletionResultType]::ParameterValue, 'Move a runner made by the Helm chart or venonactl to cf-runner, keeping its agent and volumes')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Show what upgrade (or init) with these flags would change; changes nothing')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'Print the JSON Schema of a values file, for editors and linters')
            [CompletionResult]::new('images', 'images', [CompletionResultType]::ParameterValue, 'List every image an install with these values runs; --check asks the registry')
            [CompletionResult]::new('fleet', 'fleet', [CompletionResultType]::ParameterValue, 'Runners for a fleet of clusters, as a Git tree that Flux or Argo CD applies')
            [CompletionResult]::new('support-bundle', 'support-bundle', [CompletionResultType]::ParameterValue, 'Write a redacted .tar.gz of what support needs to look into a runner')
            [CompletionResult]::new('runtime', 'runtime', [CompletionResultType]::ParameterValue, 'Attach a runtime in another namespace or cluster to an installed agent, or detach it')
            [CompletionResult]::new('renew', 'renew', [CompletionResultType]::ParameterValue, 'Renew what the platform issued: the dind certificate, or the agent token')
            [CompletionResult]::new('diagnose', 'diagnose', [CompletionResultType]::ParameterValue, 'Why builds did not run: each build pod''s wait, the cause and the fix; exit 1 when something is wrong')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'cf-runner;help;init' {
            break
        }
        'cf-runner;help;info' {
            break
        }
        'cf-runner;help;delete' {
            break
        }
        'cf-runner;help;upgrade' {
            break
        }
        'cf-runner;help;check' {
            break
        }
        'cf-runner;help;test-pipeline' {
            break
        }
        'cf-runner;help;adopt' {
            break
        }
        'cf-runner;help;completions' {
            break
        }
        'cf-runner;help;diff' {
            break
        }
        'cf-runner;help;schema' {
            break
        }
        'cf-runner;help;images' {
            break
        }
        'cf-runner;help;fleet' {
            [CompletionResult]::new('register', 'register', [CompletionResultType]::ParameterValue, 'Register every runtime of the fleet file on the platform (no cluster needed) and write its secrets encrypted')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write the fleet as a Git tree: a Kustomize base, an overlay per cluster, Flux Kustomizations, Argo CD Applications')
            [CompletionResult]::new('retire', 'retire', [CompletionResultType]::ParameterValue, 'Remove from the platform the runtimes registered in the tree that the fleet file no longer lists')
            break
        }
        'cf-runner;help;fleet;register' {
            break
        }
        'cf-runner;help;fleet;export' {
            break
        }
        'cf-runner;help;fleet;retire' {
            break
        }
        'cf-runner;help;support-bundle' {
            break
        }
        'cf-runner;help;runtime' {
            [CompletionResult]::new('attach', 'attach', [CompletionResultType]::ParameterValue, 'Let an installed agent serve the runtime in another namespace or cluster')
            [CompletionResult]::new('detach', 'detach', [CompletionResultType]::ParameterValue, 'Stop the agent serving a runtime, and remove its credentials there')
            [CompletionResult]::new('rotate', 'rotate', [CompletionResultType]::ParameterValue, 'Give the agent a new token for an attached runtime; the old one stops working')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete one attached runtime: detach it, remove its objects, and its runtime environment on the platform')
            [CompletionResult]::new('upgrade', 'upgrade', [CompletionResultType]::ParameterValue, 'Re-apply one attached runtime''s objects from the agent''s values (images, dind config)')
            break
        }
        'cf-runner;help;runtime;attach' {
            break
        }
        'cf-runner;help;runtime;detach' {
            break
        }
        'cf-runner;help;runtime;rotate' {
            break
        }
        'cf-runner;help;runtime;delete' {
            break
        }
        'cf-runner;help;runtime;upgrade' {
            break
        }
        'cf-runner;help;renew' {
            break
        }
        'cf-runner;help;diagnose' {
            break
        }
        'cf-runner;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
