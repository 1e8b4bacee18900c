# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_cf_runner_global_optspecs
    string join \n h/help V/version
end

function __fish_cf_runner_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_cf_runner_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_cf_runner_using_subcommand
    set -l cmd (__fish_cf_runner_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c cf-runner -n "__fish_cf_runner_needs_command" -s h -l help -d 'Print help'
complete -c cf-runner -n "__fish_cf_runner_needs_command" -s V -l version -d 'Print version'
complete -c cf-runner -n "__fish_cf_runner_needs_command" -f -a "init" -d 'Install the runner: wizard, or non-interactive with --values/--yes'
complete -c cf-runner -n "__fish_cf_runner_needs_command" -f -a "info" -d 'Show what is installed and whether it is healthy'
complete -c cf-runner -n "__fish_cf_runner_needs_command" -f -a "delete" -d 'Remove exactly what cf-runner installed'
complete -c cf-runner -n "__fish_cf_runner_needs_command" -f -a "upgrade" -d 'Re-render from the stored values (plus new flags) and apply'
complete -c cf-runner -n "__fish_cf_runner_needs_command" -f -a "check" -d 'Preflight: check that the cluster and your permissions can take an install'
complete -c cf-runner -n "__fish_cf_runner_needs_command" -f -a "test-pipeline" -d 'Run the demo pipeline on a runtime environment'
complete -c cf-runner -n "__fish_cf_runner_needs_command" -f -a "adopt" -d 'Move a runner made by the Helm chart or venonactl to cf-runner, keeping its agent and volumes'
complete -c cf-runner -n "__fish_cf_runner_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c cf-runner -n "__fish_cf_runner_needs_command" -f -a "diff" -d 'Show what upgrade (or init) with these flags would change; changes nothing'
complete -c cf-runner -n "__fish_cf_runner_needs_command" -f -a "schema" -d 'Print the JSON Schema of a values file, for editors and linters'
complete -c cf-runner -n "__fish_cf_runner_needs_command" -f -a "images" -d 'List every image an install with these values runs; --check asks the registry'
complete -c cf-runner -n "__fish_cf_runner_needs_command" -f -a "fleet" -d 'Runners for a fleet of clusters, as a Git tree that Flux or Argo CD applies'
complete -c cf-runner -n "__fish_cf_runner_needs_command" -f -a "support-bundle" -d 'Write a redacted .tar.gz of what support needs to look into a runner'
complete -c cf-runner -n "__fish_cf_runner_needs_command" -f -a "runtime" -d 'Attach a runtime in another namespace or cluster to an installed agent, or detach it'
complete -c cf-runner -n "__fish_cf_runner_needs_command" -f -a "renew" -d 'Renew what the platform issued: the dind certificate, or the agent token'
complete -c cf-runner -n "__fish_cf_runner_needs_command" -f -a "diagnose" -d 'Why builds did not run: each build pod\'s wait, the cause and the fix; exit 1 when something is wrong'
complete -c cf-runner -n "__fish_cf_runner_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l kube-context-name -d 'Kubernetes context to use [default: the kubeconfig\'s current context]' -r -f -a "(kubectl config get-contexts -o name 2>/dev/null)"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l kube-namespace -d 'Namespace of the runner [default: codefresh]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l kube-config-path -d 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l kube-node-selector -d 'Node selector for the runner and volume provisioner: key=value[,key=value]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l build-node-selector -d 'Node selector for build (engine and dind) pods: key=value[,key=value]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l docker-registry -d 'Registry that serves every image (a mirror of quay.io)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l image-pull-secret -d 'Secret of yours (type docker-registry, in the runner\'s namespace) that every pod and build pulls images with (repeatable)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l env-vars -d 'Environment variable for every component and build (repeatable): KEY=VALUE' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l http-proxy -d 'HTTP proxy for every component and build' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l https-proxy -d 'HTTPS proxy for every component and build' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l no-proxy -d 'Hosts that bypass the proxy, comma-separated' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l ca-bundle -d 'PEM file of CA certificates (a TLS-inspecting proxy\'s) that cf-runner, every component and every build trust besides the public roots' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l install-monitor -d 'Install the cluster monitor (with upgrade, false removes it)' -r -f -a "true\t''
false\t''"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l app-proxy -d 'Install the app-proxy, which needs --app-proxy-host (with upgrade, false removes it)' -r -f -a "true\t''
false\t''"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l app-proxy-host -d 'Host name of the app-proxy Ingress' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l app-proxy-ingress-class -d 'IngressClass of the app-proxy Ingress' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l docker-daemon-access -d 'Let pipeline steps reach the docker daemon' -r -f -a "true\t''
false\t''"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -s f -l values -d 'Values file in the venonactl format (repeatable; later files win)' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l set-value -d 'Set a value by dotted key, typed like Helm (repeatable): Storage.Backend=ebs' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l set-file -d 'Set a value to a file\'s contents (repeatable): Storage.GoogleServiceAccount=key.json' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l name -d 'Name of the agent on the platform [default: <context>_<namespace>]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l token -d 'Codefresh API token [default: $CF_API_KEY, then ~/.cfconfig]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l agent-token -d 'Agent token issued earlier by the platform (re-install an existing agent)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l url -d 'Codefresh platform URL [default: https://g.codefresh.io]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l tolerations -d 'Tolerations for the runner and provisioner: JSON list, or @file.json' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l storage-class-name -d 'Use an existing StorageClass for dind volumes (skips the volume provisioner)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l set-default-runtime -d 'Make the new runtime environment the account\'s default' -r -f -a "true\t''
false\t''"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l exec-demo-pipeline -d 'Create and run the demo pipeline after install' -r -f -a "true\t''
false\t''"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l output-dir -d 'Where --dry-run writes: a directory, or - for one YAML stream on stdout' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l generate-helm-values-file -d 'Write a values file for the cf-runtime Helm chart instead of installing' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l timeout -d 'How long to wait for the workloads to become ready, and for another run\'s lock (e.g. 90s, 5m)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l probe-timeout -d 'How long the probe may take (e.g. 90s, 5m)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l insecure -d 'Skip TLS verification towards the platform (self-signed on-prem only)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l allow-http -d 'Send the API key over a plain http:// platform URL (other than localhost)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l skip-cluster-test -d 'Skip the preflight checks'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l skip-cluster-integration -d 'Do not create the cluster integration on the platform'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l agent-only -d 'Install the agent alone, with no runtime in its namespace (attach runtimes with `runtime attach`)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l dry-run -d 'Write the manifests instead of installing; touches neither cluster nor platform'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l overwrite -d 'Write over files cf-runner did not write (in the --output-dir folder, or at the Helm values path)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l force-conflicts -d 'Take over fields that another field manager owns'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l no-wait -d 'Apply and return without waiting for the workloads'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l no-wait-for-lock -d 'Stop at once (exit 1) when another run holds the install\'s lock, instead of waiting up to --timeout'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l probe -d 'After the install, try the build path: a dind claim and a dind-like pod'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -s y -l yes -d 'Answer every question with its default; never prompt'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l trust-values-kubeconfig -d 'Let a kubeconfig that a values file names (ConfigPath, Runtimes[].ConfigPath) run its auth plugin and send its token file (risky: whoever wrote the file picks the command)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l accept-agent-insecure-tls -d 'Attach the values\' Runtimes although the agent skips TLS verification (--insecure): it would then skip it towards every attached runtime\'s API server too'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -l allow-builds-to-read-tokens -d 'Attach the values\' Runtimes although the agent runs builds of its own runtime in its namespace: every pipeline there could read their tokens and create pods in their namespaces'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand init" -s V -l version -d 'Print version'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand info" -l kube-context-name -d 'Kubernetes context to use [default: the kubeconfig\'s current context]' -r -f -a "(kubectl config get-contexts -o name 2>/dev/null)"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand info" -l kube-config-path -d 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand info" -l token -d 'Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand info" -l url -d 'Codefresh platform URL [default: the installation\'s, else https://g.codefresh.io]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand info" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
yaml\t''"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand info" -l timeout -d 'How long --wait waits (e.g. 90s, 5m)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand info" -l kube-namespace -d 'Namespace of the runner [default: every installation in the cluster]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand info" -l insecure -d 'Skip TLS verification towards the platform (self-signed on-prem only)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand info" -l allow-http -d 'Send the API key over a plain http:// platform URL (other than localhost)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand info" -l wait -d 'Wait until the install is healthy (runner ready, runtime registered, certificate valid); exit 1 at --timeout'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand info" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand info" -s V -l version -d 'Print version'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand delete" -l kube-context-name -d 'Kubernetes context to use [default: the kubeconfig\'s current context]' -r -f -a "(kubectl config get-contexts -o name 2>/dev/null)"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand delete" -l kube-config-path -d 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand delete" -l token -d 'Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand delete" -l url -d 'Codefresh platform URL [default: the installation\'s, else https://g.codefresh.io]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand delete" -l timeout -d 'How long to wait for the objects to be gone, and for another run\'s lock (e.g. 90s, 5m)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand delete" -l kube-namespace -d 'Namespace of the runner [default: the only installation in the cluster]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand delete" -l insecure -d 'Skip TLS verification towards the platform (self-signed on-prem only)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand delete" -l allow-http -d 'Send the API key over a plain http:// platform URL (other than localhost)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand delete" -s y -l yes -d 'Do not ask for confirmation'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand delete" -l delete-namespace -d 'Also delete the namespace, if cf-runner created it and nothing else is in it'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand delete" -l delete-namespace-with-contents -d 'Also delete the namespace cf-runner created with everything still in it (lists it first)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand delete" -l purge-volumes -d 'Also delete dind volumes (PVs and PVCs)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand delete" -l keep-platform -d 'Leave the agent and runtime environment on the platform'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand delete" -l all-runtimes -d 'Also delete every runtime attached to the agent, first (their objects and runtime environments; the agent is not rolled for them)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand delete" -l ignore-agent -d 'Delete an attached runtime\'s namespace objects although an agent may still serve it (its agent is gone)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand delete" -l delete-adopted -d 'Also delete objects that existed before the install and were taken over with --force-conflicts'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand delete" -l no-wait-for-lock -d 'Stop at once (exit 1) when another run holds the install\'s lock, instead of waiting up to --timeout'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand delete" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand delete" -s V -l version -d 'Print version'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l kube-context-name -d 'Kubernetes context to use [default: the kubeconfig\'s current context]' -r -f -a "(kubectl config get-contexts -o name 2>/dev/null)"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l kube-config-path -d 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l kube-node-selector -d 'Node selector for the runner and volume provisioner: key=value[,key=value]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l build-node-selector -d 'Node selector for build (engine and dind) pods: key=value[,key=value]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l docker-registry -d 'Registry that serves every image (a mirror of quay.io)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l image-pull-secret -d 'Secret of yours (type docker-registry, in the runner\'s namespace) that every pod and build pulls images with (repeatable)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l env-vars -d 'Environment variable for every component and build (repeatable): KEY=VALUE' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l http-proxy -d 'HTTP proxy for every component and build' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l https-proxy -d 'HTTPS proxy for every component and build' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l no-proxy -d 'Hosts that bypass the proxy, comma-separated' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l ca-bundle -d 'PEM file of CA certificates (a TLS-inspecting proxy\'s) that cf-runner, every component and every build trust besides the public roots' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l install-monitor -d 'Install the cluster monitor (with upgrade, false removes it)' -r -f -a "true\t''
false\t''"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l app-proxy -d 'Install the app-proxy, which needs --app-proxy-host (with upgrade, false removes it)' -r -f -a "true\t''
false\t''"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l app-proxy-host -d 'Host name of the app-proxy Ingress' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l app-proxy-ingress-class -d 'IngressClass of the app-proxy Ingress' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l docker-daemon-access -d 'Let pipeline steps reach the docker daemon' -r -f -a "true\t''
false\t''"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -s f -l values -d 'Values file applied on top of the stored values (repeatable; later files win)' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l set-value -d 'Set a value by dotted key, typed like Helm (repeatable): Monitor.Enabled=false' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l set-file -d 'Set a value to a file\'s contents (repeatable): Storage.GoogleServiceAccount=key.json' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l token -d 'Codefresh API token (for the monitor) [default: the one installed]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l url -d 'Codefresh platform URL; the only host other than the token\'s own (CF_URL, ~/.cfconfig) the token is sent to [default: the installation\'s, when it is the token\'s own]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l agent-token -d 'Agent token [default: the one installed]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l timeout -d 'How long to wait for the workloads to become ready, and for another run\'s lock (e.g. 90s, 5m)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l kube-namespace -d 'Namespace of the runner [default: the only installation in the cluster]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l allow-http -d 'Send the API key over a plain http:// platform URL (other than localhost)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l force-conflicts -d 'Take over fields that another field manager owns'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l no-wait -d 'Apply and return without waiting for the workloads'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -l no-wait-for-lock -d 'Stop at once (exit 1) when another run holds the install\'s lock, instead of waiting up to --timeout'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -s y -l yes -d 'Do not ask for confirmation'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand upgrade" -s V -l version -d 'Print version'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand check" -l kube-context-name -d 'Kubernetes context to use [default: the kubeconfig\'s current context]' -r -f -a "(kubectl config get-contexts -o name 2>/dev/null)"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand check" -l kube-namespace -d 'Namespace of the runner [default: codefresh]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand check" -l kube-config-path -d 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand check" -s f -l values -d 'Values file to check the install of (repeatable)' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand check" -l set-value -d 'Set a value by dotted key, typed like Helm (repeatable): Storage.Backend=ebs' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand check" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
yaml\t''"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand check" -l probe-timeout -d 'How long the probe may take (e.g. 90s, 5m)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand check" -l probe -d 'Also try the build path on the installed namespace: a dind claim and a dind-like pod'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand check" -l trust-values-kubeconfig -d 'Let a kubeconfig that a values file names (ConfigPath) run its auth plugin and send its token file (risky: whoever wrote the file picks the command)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand check" -s V -l version -d 'Print version'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand test-pipeline" -l kube-context-name -d 'Kubernetes context to use [default: the kubeconfig\'s current context]' -r -f -a "(kubectl config get-contexts -o name 2>/dev/null)"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand test-pipeline" -l kube-config-path -d 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand test-pipeline" -l token -d 'Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand test-pipeline" -l url -d 'Codefresh platform URL [default: the installation\'s, else https://g.codefresh.io]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand test-pipeline" -l runtime-name -d 'Runtime environment to run the demo pipeline on [default: the installation\'s]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand test-pipeline" -l kube-namespace -d 'Namespace of the runner [default: the only installation in the cluster]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand test-pipeline" -l insecure -d 'Skip TLS verification towards the platform (self-signed on-prem only)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand test-pipeline" -l allow-http -d 'Send the API key over a plain http:// platform URL (other than localhost)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand test-pipeline" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand test-pipeline" -s V -l version -d 'Print version'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand adopt" -l kube-context-name -d 'Kubernetes context to use [default: the kubeconfig\'s current context]' -r -f -a "(kubectl config get-contexts -o name 2>/dev/null)"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand adopt" -l kube-namespace -d 'Namespace of the runner [default: codefresh]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand adopt" -l kube-config-path -d 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand adopt" -l token -d 'Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand adopt" -l url -d 'Codefresh platform URL [default: the installation\'s, else https://g.codefresh.io]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand adopt" -l timeout -d 'How long to wait for each step of the move, and for another run\'s lock (e.g. 90s, 5m)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand adopt" -l values-file -d 'Where to save what the install is, as a cf-runner values file' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand adopt" -l insecure -d 'Skip TLS verification towards the platform (self-signed on-prem only)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand adopt" -l allow-http -d 'Send the API key over a plain http:// platform URL (other than localhost)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand adopt" -l dry-run -d 'Read the install, save the values file and print the plan; change nothing in the cluster'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand adopt" -s y -l yes -d 'Do not ask for confirmation before moving the runner'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand adopt" -l no-wait-for-lock -d 'Stop at once (exit 1) when another run holds the install\'s lock, instead of waiting up to --timeout'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand adopt" -l overwrite -d 'Write over a file at --values-file that cf-runner adopt did not write'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand adopt" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand adopt" -s V -l version -d 'Print version'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand completions" -s V -l version -d 'Print version'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diff" -l kube-context-name -d 'Kubernetes context to use [default: the kubeconfig\'s current context]' -r -f -a "(kubectl config get-contexts -o name 2>/dev/null)"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diff" -l kube-namespace -d 'Namespace of the runner [default: codefresh]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diff" -l kube-config-path -d 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diff" -l kube-node-selector -d 'Node selector for the runner and volume provisioner: key=value[,key=value]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diff" -l build-node-selector -d 'Node selector for build (engine and dind) pods: key=value[,key=value]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diff" -l docker-registry -d 'Registry that serves every image (a mirror of quay.io)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diff" -l image-pull-secret -d 'Secret of yours (type docker-registry, in the runner\'s namespace) that every pod and build pulls images with (repeatable)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diff" -l env-vars -d 'Environment variable for every component and build (repeatable): KEY=VALUE' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diff" -l http-proxy -d 'HTTP proxy for every component and build' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diff" -l https-proxy -d 'HTTPS proxy for every component and build' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diff" -l no-proxy -d 'Hosts that bypass the proxy, comma-separated' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diff" -l ca-bundle -d 'PEM file of CA certificates (a TLS-inspecting proxy\'s) that cf-runner, every component and every build trust besides the public roots' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diff" -l install-monitor -d 'Install the cluster monitor (with upgrade, false removes it)' -r -f -a "true\t''
false\t''"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diff" -l app-proxy -d 'Install the app-proxy, which needs --app-proxy-host (with upgrade, false removes it)' -r -f -a "true\t''
false\t''"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diff" -l app-proxy-host -d 'Host name of the app-proxy Ingress' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diff" -l app-proxy-ingress-class -d 'IngressClass of the app-proxy Ingress' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diff" -l docker-daemon-access -d 'Let pipeline steps reach the docker daemon' -r -f -a "true\t''
false\t''"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diff" -s f -l values -d 'Values file applied on top of the stored values (repeatable; later files win)' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diff" -l set-value -d 'Set a value by dotted key, typed like Helm (repeatable): Monitor.Enabled=false' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diff" -l set-file -d 'Set a value to a file\'s contents (repeatable): Storage.GoogleServiceAccount=key.json' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diff" -l token -d 'Codefresh API token (for the monitor) [default: the one installed]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diff" -l url -d 'Codefresh platform URL; the only host other than the token\'s own (CF_URL, ~/.cfconfig) the token is sent to [default: the installation\'s, when it is the token\'s own]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diff" -l agent-token -d 'Agent token [default: the one installed]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diff" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
yaml\t''"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diff" -s V -l version -d 'Print version'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand schema" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand schema" -s V -l version -d 'Print version'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand images" -l kube-node-selector -d 'Node selector for the runner and volume provisioner: key=value[,key=value]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand images" -l build-node-selector -d 'Node selector for build (engine and dind) pods: key=value[,key=value]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand images" -l docker-registry -d 'Registry that serves every image (a mirror of quay.io)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand images" -l image-pull-secret -d 'Secret of yours (type docker-registry, in the runner\'s namespace) that every pod and build pulls images with (repeatable)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand images" -l env-vars -d 'Environment variable for every component and build (repeatable): KEY=VALUE' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand images" -l http-proxy -d 'HTTP proxy for every component and build' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand images" -l https-proxy -d 'HTTPS proxy for every component and build' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand images" -l no-proxy -d 'Hosts that bypass the proxy, comma-separated' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand images" -l ca-bundle -d 'PEM file of CA certificates (a TLS-inspecting proxy\'s) that cf-runner, every component and every build trust besides the public roots' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand images" -l install-monitor -d 'Install the cluster monitor (with upgrade, false removes it)' -r -f -a "true\t''
false\t''"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand images" -l app-proxy -d 'Install the app-proxy, which needs --app-proxy-host (with upgrade, false removes it)' -r -f -a "true\t''
false\t''"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand images" -l app-proxy-host -d 'Host name of the app-proxy Ingress' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand images" -l app-proxy-ingress-class -d 'IngressClass of the app-proxy Ingress' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand images" -l docker-daemon-access -d 'Let pipeline steps reach the docker daemon' -r -f -a "true\t''
false\t''"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand images" -s f -l values -d 'Values file in the venonactl format (repeatable; later files win)' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand images" -l set-value -d 'Set a value by dotted key, typed like Helm (repeatable): Monitor.Enabled=true' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand images" -l set-file -d 'Set a value to a file\'s contents (repeatable): Storage.GoogleServiceAccount=key.json' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand images" -l docker-config -d 'Docker config file with registry credentials for --check [default: $DOCKER_CONFIG/config.json, then ~/.docker/config.json]' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand images" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
yaml\t''"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand images" -l check -d 'Ask each image\'s registry whether it holds it; exit 1 when one is missing'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand images" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand images" -s V -l version -d 'Print version'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and not __fish_seen_subcommand_from register export retire help" -s h -l help -d 'Print help'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and not __fish_seen_subcommand_from register export retire help" -s V -l version -d 'Print version'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and not __fish_seen_subcommand_from register export retire help" -f -a "register" -d 'Register every runtime of the fleet file on the platform (no cluster needed) and write its secrets encrypted'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and not __fish_seen_subcommand_from register export retire help" -f -a "export" -d 'Write the fleet as a Git tree: a Kustomize base, an overlay per cluster, Flux Kustomizations, Argo CD Applications'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and not __fish_seen_subcommand_from register export retire help" -f -a "retire" -d 'Remove from the platform the runtimes registered in the tree that the fleet file no longer lists'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and not __fish_seen_subcommand_from register export retire help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from register" -l fleet -d 'The fleet file (YAML: defaults, gitops, sops, clusters)' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from register" -l output-dir -d 'The tree\'s folder (inside your Git repository)' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from register" -l token -d 'Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from register" -l url -d 'Codefresh platform URL [default: the installation\'s, else https://g.codefresh.io]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from register" -l age-key-file -d 'age identities, to re-encrypt a registration whose Secrets changed shape or whose sops.ageRecipients changed [default: $SOPS_AGE_KEY_FILE]' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from register" -l store-material-dir -d 'With `externalSecrets`: where a new registration\'s Secrets are written (0600, outside the tree) for you to load into your store' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from register" -l registration-key-file -d 'The key registrations are sealed with, kept outside the tree (made by the first `fleet register`) [default: ~/.config/cf-runner/fleet-registration.key]' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from register" -l insecure -d 'Skip TLS verification towards the platform (self-signed on-prem only)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from register" -l allow-http -d 'Send the API key over a plain http:// platform URL (other than localhost)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from register" -l accept-unsigned-registrations -d 'Read registration.yaml files without a valid seal (an older cf-runner\'s, or another key\'s); `register` and `retire` check each against the platform first, `register` then seals it. Risky: anyone who can write to the repository can write one naming another team\'s agent'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from register" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from register" -s V -l version -d 'Print version'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from export" -l fleet -d 'The fleet file (YAML: defaults, gitops, sops, clusters)' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from export" -l output-dir -d 'The tree\'s folder (inside your Git repository)' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from export" -l registration-key-file -d 'The key registrations are sealed with, kept outside the tree (made by the first `fleet register`) [default: ~/.config/cf-runner/fleet-registration.key]' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from export" -l overwrite -d 'Write beside files cf-runner did not write (files with the same names are replaced)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from export" -l accept-unsigned-registrations -d 'Read registration.yaml files without a valid seal (an older cf-runner\'s, or another key\'s); `register` and `retire` check each against the platform first, `register` then seals it. Risky: anyone who can write to the repository can write one naming another team\'s agent'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from export" -s V -l version -d 'Print version'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from retire" -l fleet -d 'The fleet file (YAML: defaults, gitops, sops, clusters)' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from retire" -l output-dir -d 'The tree\'s folder (inside your Git repository)' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from retire" -l token -d 'Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from retire" -l url -d 'Codefresh platform URL [default: the installation\'s, else https://g.codefresh.io]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from retire" -l age-key-file -d 'age identities, to re-encrypt a registration whose Secrets changed shape or whose sops.ageRecipients changed [default: $SOPS_AGE_KEY_FILE]' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from retire" -l store-material-dir -d 'With `externalSecrets`: where a new registration\'s Secrets are written (0600, outside the tree) for you to load into your store' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from retire" -l registration-key-file -d 'The key registrations are sealed with, kept outside the tree (made by the first `fleet register`) [default: ~/.config/cf-runner/fleet-registration.key]' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from retire" -l insecure -d 'Skip TLS verification towards the platform (self-signed on-prem only)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from retire" -l allow-http -d 'Send the API key over a plain http:// platform URL (other than localhost)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from retire" -l accept-unsigned-registrations -d 'Read registration.yaml files without a valid seal (an older cf-runner\'s, or another key\'s); `register` and `retire` check each against the platform first, `register` then seals it. Risky: anyone who can write to the repository can write one naming another team\'s agent'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from retire" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from retire" -s V -l version -d 'Print version'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from help" -f -a "register" -d 'Register every runtime of the fleet file on the platform (no cluster needed) and write its secrets encrypted'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from help" -f -a "export" -d 'Write the fleet as a Git tree: a Kustomize base, an overlay per cluster, Flux Kustomizations, Argo CD Applications'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from help" -f -a "retire" -d 'Remove from the platform the runtimes registered in the tree that the fleet file no longer lists'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand fleet; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand support-bundle" -l kube-context-name -d 'Kubernetes context to use [default: the kubeconfig\'s current context]' -r -f -a "(kubectl config get-contexts -o name 2>/dev/null)"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand support-bundle" -l kube-config-path -d 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand support-bundle" -l token -d 'Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand support-bundle" -l url -d 'Codefresh platform URL [default: the installation\'s, else https://g.codefresh.io]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand support-bundle" -s o -l output -d 'Where to write the bundle [default: cf-runner-support-<namespace>-<UTC time>.tar.gz here]' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand support-bundle" -l since -d 'Only log lines newer than this (e.g. 30m, 6h, 2d)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand support-bundle" -l max-log-bytes -d 'Most bytes kept of each container log, the newest (e.g. 512Ki, 2Mi)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand support-bundle" -l max-size -d 'Largest bundle to write; what would pass it is left out and listed (e.g. 20Mi)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand support-bundle" -l kube-namespace -d 'Namespace of the runner [default: the only installation in the cluster]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand support-bundle" -l insecure -d 'Skip TLS verification towards the platform (self-signed on-prem only)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand support-bundle" -l allow-http -d 'Send the API key over a plain http:// platform URL (other than localhost)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand support-bundle" -l overwrite -d 'Write over a file at --output that is not a bundle cf-runner wrote'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand support-bundle" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand support-bundle" -s V -l version -d 'Print version'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and not __fish_seen_subcommand_from attach detach rotate delete upgrade help" -s h -l help -d 'Print help'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and not __fish_seen_subcommand_from attach detach rotate delete upgrade help" -s V -l version -d 'Print version'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and not __fish_seen_subcommand_from attach detach rotate delete upgrade help" -f -a "attach" -d 'Let an installed agent serve the runtime in another namespace or cluster'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and not __fish_seen_subcommand_from attach detach rotate delete upgrade help" -f -a "detach" -d 'Stop the agent serving a runtime, and remove its credentials there'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and not __fish_seen_subcommand_from attach detach rotate delete upgrade help" -f -a "rotate" -d 'Give the agent a new token for an attached runtime; the old one stops working'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and not __fish_seen_subcommand_from attach detach rotate delete upgrade help" -f -a "delete" -d 'Delete one attached runtime: detach it, remove its objects, and its runtime environment on the platform'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and not __fish_seen_subcommand_from attach detach rotate delete upgrade help" -f -a "upgrade" -d 'Re-apply one attached runtime\'s objects from the agent\'s values (images, dind config)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and not __fish_seen_subcommand_from attach detach rotate delete upgrade help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from attach" -l kube-config-path -d 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from attach" -l agent-namespace -d 'Namespace of the installed agent (made by `cf-runner init`)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from attach" -l agent-context -d 'Context of the agent\'s cluster [default: the kubeconfig\'s current context]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from attach" -l token -d 'Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from attach" -l url -d 'Codefresh platform URL [default: the installation\'s, else https://g.codefresh.io]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from attach" -l runtime-name -d 'Name of the runtime environment on the platform [default: <context>/<namespace>]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from attach" -l kube-host -d 'API server URL the agent reaches the runtime\'s cluster at [default: in-cluster for the agent\'s own cluster, else the kubeconfig\'s]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from attach" -s f -l values -d 'Runtimes file listing several runtimes to attach (see docs/guide/runtimes.md)' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from attach" -l set-value -d 'The runtime\'s own setting, by a runtimes file entry\'s key (repeatable): NodeSelector=zone=a, Storage.Backend=local' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from attach" -l timeout -d 'How long to wait for each token and for the agent\'s rollout, and for another run\'s lock (e.g. 90s, 5m)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from attach" -l kube-namespace -d 'Namespace of the runtime (builds run there) [default: the agent\'s namespace]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from attach" -l kube-context-name -d 'Context of the runtime\'s cluster [default: the agent\'s context]' -r -f -a "(kubectl config get-contexts -o name 2>/dev/null)"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from attach" -l insecure -d 'Skip TLS verification towards the platform (self-signed on-prem only)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from attach" -l allow-http -d 'Send the API key over a plain http:// platform URL (other than localhost)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from attach" -l trust-values-kubeconfig -d 'Let a kubeconfig that the runtimes file names (Runtimes[].ConfigPath) run its auth plugin and send its token file (risky: whoever wrote the file picks the command)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from attach" -l accept-agent-insecure-tls -d 'Attach although the agent skips TLS verification (--insecure at init): it would then skip it towards every attached runtime\'s API server too'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from attach" -l allow-builds-to-read-tokens -d 'Attach although the agent\'s namespace runs builds of its own runtime: every pipeline there could read the attached runtime\'s token and create pods in its namespace'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from attach" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from attach" -s V -l version -d 'Print version'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from detach" -l kube-config-path -d 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from detach" -l agent-namespace -d 'Namespace of the installed agent (made by `cf-runner init`)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from detach" -l agent-context -d 'Context of the agent\'s cluster [default: the kubeconfig\'s current context]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from detach" -l token -d 'Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from detach" -l url -d 'Codefresh platform URL [default: the installation\'s, else https://g.codefresh.io]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from detach" -l runtime-name -d 'Name of the runtime environment to detach [default: <context>/<namespace>]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from detach" -l timeout -d 'How long to wait for the agent\'s rollout and the removals, and for another run\'s lock (e.g. 90s, 5m)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from detach" -l kube-namespace -d 'Namespace of the runtime to detach' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from detach" -l kube-context-name -d 'Context of the runtime\'s cluster [default: the agent\'s context]' -r -f -a "(kubectl config get-contexts -o name 2>/dev/null)"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from detach" -l insecure -d 'Skip TLS verification towards the platform (self-signed on-prem only)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from detach" -l allow-http -d 'Send the API key over a plain http:// platform URL (other than localhost)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from detach" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from detach" -s V -l version -d 'Print version'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from rotate" -l kube-config-path -d 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from rotate" -l agent-namespace -d 'Namespace of the installed agent (made by `cf-runner init`)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from rotate" -l agent-context -d 'Context of the agent\'s cluster [default: the kubeconfig\'s current context]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from rotate" -l runtime-name -d 'Name of the runtime environment whose token is rotated [default: <context>/<namespace>]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from rotate" -l timeout -d 'How long to wait for each token, each rollout of the agent and the removals, and for another run\'s lock (e.g. 90s, 5m)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from rotate" -l kube-namespace -d 'Namespace of the runtime whose token is rotated' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from rotate" -l kube-context-name -d 'Context of the runtime\'s cluster [default: the agent\'s context]' -r -f -a "(kubectl config get-contexts -o name 2>/dev/null)"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from rotate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from rotate" -s V -l version -d 'Print version'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from delete" -l kube-config-path -d 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from delete" -l agent-namespace -d 'Namespace of the installed agent (made by `cf-runner init`)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from delete" -l agent-context -d 'Context of the agent\'s cluster [default: the kubeconfig\'s current context]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from delete" -l token -d 'Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from delete" -l url -d 'Codefresh platform URL [default: the installation\'s, else https://g.codefresh.io]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from delete" -l runtime-name -d 'Name of the runtime environment to delete [default: <context>/<namespace>]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from delete" -l timeout -d 'How long to wait for the agent\'s rollout and the removals, and for another run\'s lock (e.g. 90s, 5m)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from delete" -l kube-namespace -d 'Namespace of the runtime to delete' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from delete" -l kube-context-name -d 'Context of the runtime\'s cluster [default: the agent\'s context]' -r -f -a "(kubectl config get-contexts -o name 2>/dev/null)"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from delete" -l insecure -d 'Skip TLS verification towards the platform (self-signed on-prem only)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from delete" -l allow-http -d 'Send the API key over a plain http:// platform URL (other than localhost)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from delete" -l keep-platform -d 'Leave the runtime environment on the platform (it is still detached from the agent)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from delete" -s y -l yes -d 'Do not ask for confirmation'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from delete" -s V -l version -d 'Print version'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from upgrade" -l kube-config-path -d 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from upgrade" -l agent-namespace -d 'Namespace of the installed agent (made by `cf-runner init`)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from upgrade" -l agent-context -d 'Context of the agent\'s cluster [default: the kubeconfig\'s current context]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from upgrade" -l token -d 'Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from upgrade" -l url -d 'Codefresh platform URL [default: the installation\'s, else https://g.codefresh.io]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from upgrade" -l runtime-name -d 'Name of the runtime environment to upgrade [default: <context>/<namespace>]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from upgrade" -l set-value -d 'The runtime\'s own setting, as at attach (repeatable): NodeSelector=zone=a, Storage.Backend=local; a setting of its own on the platform that is not given again is refused, not dropped' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from upgrade" -l timeout -d 'How long to wait for another run\'s lock (e.g. 90s, 5m)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from upgrade" -l kube-namespace -d 'Namespace of the runtime to upgrade' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from upgrade" -l kube-context-name -d 'Context of the runtime\'s cluster [default: the agent\'s context]' -r -f -a "(kubectl config get-contexts -o name 2>/dev/null)"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from upgrade" -l insecure -d 'Skip TLS verification towards the platform (self-signed on-prem only)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from upgrade" -l allow-http -d 'Send the API key over a plain http:// platform URL (other than localhost)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from upgrade" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from upgrade" -s V -l version -d 'Print version'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from help" -f -a "attach" -d 'Let an installed agent serve the runtime in another namespace or cluster'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from help" -f -a "detach" -d 'Stop the agent serving a runtime, and remove its credentials there'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from help" -f -a "rotate" -d 'Give the agent a new token for an attached runtime; the old one stops working'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete one attached runtime: detach it, remove its objects, and its runtime environment on the platform'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from help" -f -a "upgrade" -d 'Re-apply one attached runtime\'s objects from the agent\'s values (images, dind config)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand runtime; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand renew" -l kube-context-name -d 'Kubernetes context to use [default: the kubeconfig\'s current context]' -r -f -a "(kubectl config get-contexts -o name 2>/dev/null)"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand renew" -l kube-config-path -d 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand renew" -l token -d 'Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand renew" -l url -d 'Codefresh platform URL [default: the installation\'s, else https://g.codefresh.io]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand renew" -l timeout -d 'How long to wait for another run\'s lock, and for the agent\'s rollout (e.g. 90s, 5m)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand renew" -l kube-namespace -d 'Namespace of the runner [default: the only installation in the cluster]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand renew" -l insecure -d 'Skip TLS verification towards the platform (self-signed on-prem only)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand renew" -l allow-http -d 'Send the API key over a plain http:// platform URL (other than localhost)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand renew" -l no-wait-for-lock -d 'Stop at once (exit 1) when another run holds the install\'s lock, instead of waiting up to --timeout'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand renew" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand renew" -s V -l version -d 'Print version'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diagnose" -l kube-context-name -d 'Kubernetes context to use [default: the kubeconfig\'s current context]' -r -f -a "(kubectl config get-contexts -o name 2>/dev/null)"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diagnose" -l kube-config-path -d 'Path to the kubeconfig [default: $KUBECONFIG or ~/.kube/config]' -r -F
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diagnose" -l token -d 'Codefresh API token [default: $CF_API_KEY, then the current context of ~/.cfconfig]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diagnose" -l url -d 'Codefresh platform URL [default: the installation\'s, else https://g.codefresh.io]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diagnose" -l since -d 'Look at build pods created this long ago or later (e.g. 30m, 1h, 2d)' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diagnose" -s o -l output -d 'Output format' -r -f -a "text\t'Lines for a person'
json\t'JSON, for scripts'
yaml\t'YAML, for scripts'"
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diagnose" -l kube-namespace -d 'Namespace of the runner [default: the only installation in the cluster]' -r
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diagnose" -l insecure -d 'Skip TLS verification towards the platform (self-signed on-prem only)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diagnose" -l allow-http -d 'Send the API key over a plain http:// platform URL (other than localhost)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diagnose" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand diagnose" -s V -l version -d 'Print version'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand help; and not __fish_seen_subcommand_from init info delete upgrade check test-pipeline adopt completions diff schema images fleet support-bundle runtime renew diagnose help" -f -a "init" -d 'Install the runner: wizard, or non-interactive with --values/--yes'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand help; and not __fish_seen_subcommand_from init info delete upgrade check test-pipeline adopt completions diff schema images fleet support-bundle runtime renew diagnose help" -f -a "info" -d 'Show what is installed and whether it is healthy'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand help; and not __fish_seen_subcommand_from init info delete upgrade check test-pipeline adopt completions diff schema images fleet support-bundle runtime renew diagnose help" -f -a "delete" -d 'Remove exactly what cf-runner installed'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand help; and not __fish_seen_subcommand_from init info delete upgrade check test-pipeline adopt completions diff schema images fleet support-bundle runtime renew diagnose help" -f -a "upgrade" -d 'Re-render from the stored values (plus new flags) and apply'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand help; and not __fish_seen_subcommand_from init info delete upgrade check test-pipeline adopt completions diff schema images fleet support-bundle runtime renew diagnose help" -f -a "check" -d 'Preflight: check that the cluster and your permissions can take an install'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand help; and not __fish_seen_subcommand_from init info delete upgrade check test-pipeline adopt completions diff schema images fleet support-bundle runtime renew diagnose help" -f -a "test-pipeline" -d 'Run the demo pipeline on a runtime environment'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand help; and not __fish_seen_subcommand_from init info delete upgrade check test-pipeline adopt completions diff schema images fleet support-bundle runtime renew diagnose help" -f -a "adopt" -d 'Move a runner made by the Helm chart or venonactl to cf-runner, keeping its agent and volumes'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand help; and not __fish_seen_subcommand_from init info delete upgrade check test-pipeline adopt completions diff schema images fleet support-bundle runtime renew diagnose help" -f -a "completions" -d 'Print a shell completion script'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand help; and not __fish_seen_subcommand_from init info delete upgrade check test-pipeline adopt completions diff schema images fleet support-bundle runtime renew diagnose help" -f -a "diff" -d 'Show what upgrade (or init) with these flags would change; changes nothing'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand help; and not __fish_seen_subcommand_from init info delete upgrade check test-pipeline adopt completions diff schema images fleet support-bundle runtime renew diagnose help" -f -a "schema" -d 'Print the JSON Schema of a values file, for editors and linters'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand help; and not __fish_seen_subcommand_from init info delete upgrade check test-pipeline adopt completions diff schema images fleet support-bundle runtime renew diagnose help" -f -a "images" -d 'List every image an install with these values runs; --check asks the registry'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand help; and not __fish_seen_subcommand_from init info delete upgrade check test-pipeline adopt completions diff schema images fleet support-bundle runtime renew diagnose help" -f -a "fleet" -d 'Runners for a fleet of clusters, as a Git tree that Flux or Argo CD applies'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand help; and not __fish_seen_subcommand_from init info delete upgrade check test-pipeline adopt completions diff schema images fleet support-bundle runtime renew diagnose help" -f -a "support-bundle" -d 'Write a redacted .tar.gz of what support needs to look into a runner'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand help; and not __fish_seen_subcommand_from init info delete upgrade check test-pipeline adopt completions diff schema images fleet support-bundle runtime renew diagnose help" -f -a "runtime" -d 'Attach a runtime in another namespace or cluster to an installed agent, or detach it'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand help; and not __fish_seen_subcommand_from init info delete upgrade check test-pipeline adopt completions diff schema images fleet support-bundle runtime renew diagnose help" -f -a "renew" -d 'Renew what the platform issued: the dind certificate, or the agent token'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand help; and not __fish_seen_subcommand_from init info delete upgrade check test-pipeline adopt completions diff schema images fleet support-bundle runtime renew diagnose help" -f -a "diagnose" -d 'Why builds did not run: each build pod\'s wait, the cause and the fix; exit 1 when something is wrong'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand help; and not __fish_seen_subcommand_from init info delete upgrade check test-pipeline adopt completions diff schema images fleet support-bundle runtime renew diagnose help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand help; and __fish_seen_subcommand_from fleet" -f -a "register" -d 'Register every runtime of the fleet file on the platform (no cluster needed) and write its secrets encrypted'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand help; and __fish_seen_subcommand_from fleet" -f -a "export" -d 'Write the fleet as a Git tree: a Kustomize base, an overlay per cluster, Flux Kustomizations, Argo CD Applications'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand help; and __fish_seen_subcommand_from fleet" -f -a "retire" -d 'Remove from the platform the runtimes registered in the tree that the fleet file no longer lists'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand help; and __fish_seen_subcommand_from runtime" -f -a "attach" -d 'Let an installed agent serve the runtime in another namespace or cluster'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand help; and __fish_seen_subcommand_from runtime" -f -a "detach" -d 'Stop the agent serving a runtime, and remove its credentials there'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand help; and __fish_seen_subcommand_from runtime" -f -a "rotate" -d 'Give the agent a new token for an attached runtime; the old one stops working'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand help; and __fish_seen_subcommand_from runtime" -f -a "delete" -d 'Delete one attached runtime: detach it, remove its objects, and its runtime environment on the platform'
complete -c cf-runner -n "__fish_cf_runner_using_subcommand help; and __fish_seen_subcommand_from runtime" -f -a "upgrade" -d 'Re-apply one attached runtime\'s objects from the agent\'s values (images, dind config)'
