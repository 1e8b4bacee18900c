#compdef cf-runner

autoload -U is-at-least

_cf-runner() {
    typeset -A opt_args
    typeset -a _arguments_options
    local ret=1

    if is-at-least 5.2; then
        _arguments_options=(-s -S -C)
    else
        _arguments_options=(-s -C)
    fi

    local context curcontext="$curcontext" state line
    _arguments "${_arguments_options[@]}" : \
'-h[Print help]' \
'--help[Print help]' \
'-V[Print version]' \
'--version[Print version]' \
":: :_cf-runner_commands" \
"*::: :->cf-runner" \
&& ret=0
    case $state in
    (cf-runner)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:cf-runner-command-$line[1]:"
        case $line[1] in
            (init)
_arguments "${_arguments_options[@]}" : \
'--kube-context-name=[Kubernetes context to use \[default\: the kubeconfig'\''s current context\]]:NAME:{compadd -- ${(f)"$(kubectl config get-contexts -o name 2>/dev/null)"}}' \
'--kube-namespace=[Namespace of the runner \[default\: codefresh\]]:NAMESPACE:_default' \
'--kube-config-path=[Path to the kubeconfig \[default\: \$KUBECONFIG or ~/.kube/config\]]:PATH:_files' \
'--kube-node-selector=[Node selector for the runner and volume provisioner\: key=value\[,key=value\]]:K=V,...:_default' \
'--build-node-selector=[Node selector for build (engine and dind) pods\: key=value\[,key=value\]]:K=V,...:_default' \
'--docker-registry=[Registry that serves every image (a mirror of quay.io)]:HOST[/PATH]:_default' \
'*--image-pull-secret=[Secret of yours (type docker-registry, in the runner'\''s namespace) that every pod and build pulls images with (repeatable)]:SECRET:_default' \
'*--env-vars=[Environment variable for every component and build (repeatable)\: KEY=VALUE]:KEY=VALUE:_default' \
'--http-proxy=[HTTP proxy for every component and build]:URL:_default' \
'--https-proxy=[HTTPS proxy for every component and build]:URL:_default' \
'--no-proxy=[Hosts that bypass the proxy, comma-separated]:HOSTS:_default' \
'--ca-bundle=[PEM file of CA certificates (a TLS-inspecting proxy'\''s) that cf-runner, every component and every build trust besides the public roots]:FILE:_files' \
'--install-monitor=[Install the cluster monitor (with upgrade, false removes it)]::BOOL:(true false)' \
'--app-proxy=[Install the app-proxy, which needs --app-proxy-host (with upgrade, false removes it)]::BOOL:(true false)' \
'--app-proxy-host=[Host name of the app-proxy Ingress]:HOST:_default' \
'--app-proxy-ingress-class=[IngressClass of the app-proxy Ingress]:CLASS:_default' \
'--docker-daemon-access=[Let pipeline steps reach the docker daemon]::BOOL:(true false)' \
'*-f+[Values file in the venonactl format (repeatable; later files win)]:FILE:_files' \
'*--values=[Values file in the venonactl format (repeatable; later files win)]:FILE:_files' \
'*--set-value=[Set a value by dotted key, typed like Helm (repeatable)\: Storage.Backend=ebs]:KEY=VALUE:_default' \
'*--set-file=[Set a value to a file'\''s contents (repeatable)\: Storage.GoogleServiceAccount=key.json]:KEY=PATH:_default' \
'--name=[Name of the agent on the platform \[default\: <context>_<namespace>\]]:NAME:_default' \
'--token=[Codefresh API token \[default\: \$CF_API_KEY, then ~/.cfconfig\]]:TOKEN:_default' \
'--agent-token=[Agent token issued earlier by the platform (re-install an existing agent)]:TOKEN:_default' \
'--url=[Codefresh platform URL \[default\: https\://g.codefresh.io\]]:URL:_default' \
'--tolerations=[Tolerations for the runner and provisioner\: JSON list, or @file.json]:JSON|@FILE:_default' \
'--storage-class-name=[Use an existing StorageClass for dind volumes (skips the volume provisioner)]:NAME:_default' \
'--set-default-runtime=[Make the new runtime environment the account'\''s default]::BOOL:(true false)' \
'--exec-demo-pipeline=[Create and run the demo pipeline after install]::BOOL:(true false)' \
'--output-dir=[Where --dry-run writes\: a directory, or - for one YAML stream on stdout]:DIR:_files' \
'--generate-helm-values-file=[Write a values file for the cf-runtime Helm chart instead of installing]::PATH:_files' \
'--timeout=[How long to wait for the workloads to become ready, and for another run'\''s lock (e.g. 90s, 5m)]:DURATION:_default' \
'--probe-timeout=[How long the probe may take (e.g. 90s, 5m)]:DURATION:_default' \
'--insecure[Skip TLS verification towards the platform (self-signed on-prem only)]' \
'--allow-http[Send the API key over a plain http\:// platform URL (other than localhost)]' \
'--skip-cluster-test[Skip the preflight checks]' \
'--skip-cluster-integration[Do not create the cluster integration on the platform]' \
'--agent-only[Install the agent alone, with no runtime in its namespace (attach runtimes with \`runtime attach\`)]' \
'--dry-run[Write the manifests instead of installing; touches neither cluster nor platform]' \
'--overwrite[Write over files cf-runner did not write (in the --output-dir folder, or at the Helm values path)]' \
'--force-conflicts[Take over fields that another field manager owns]' \
'--no-wait[Apply and return without waiting for the workloads]' \
'--no-wait-for-lock[Stop at once (exit 1) when another run holds the install'\''s lock, instead of waiting up to --timeout]' \
'--probe[After the install, try the build path\: a dind claim and a dind-like pod]' \
'-y[Answer every question with its default; never prompt]' \
'--yes[Answer every question with its default; never prompt]' \
'--trust-values-kubeconfig[Let a kubeconfig that a values file names (ConfigPath, Runtimes\[\].ConfigPath) run its auth plugin and send its token file (risky\: whoever wrote the file picks the command)]' \
'--accept-agent-insecure-tls[Attach the values'\'' Runtimes although the agent skips TLS verification (--insecure)\: it would then skip it towards every attached runtime'\''s API server too]' \
'--allow-builds-to-read-tokens[Attach the values'\'' Runtimes although the agent runs builds of its own runtime in its namespace\: every pipeline there could read their tokens and create pods in their namespaces]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(info)
_arguments "${_arguments_options[@]}" : \
'--kube-context-name=[Kubernetes context to use \[default\: the kubeconfig'\''s current context\]]:NAME:{compadd -- ${(f)"$(kubectl config get-contexts -o name 2>/dev/null)"}}' \
'--kube-config-path=[Path to the kubeconfig \[default\: \$KUBECONFIG or ~/.kube/config\]]:PATH:_files' \
'--token=[Codefresh API token \[default\: \$CF_API_KEY, then the current context of ~/.cfconfig\]]:TOKEN:_default' \
'--url=[Codefresh platform URL \[default\: the installation'\''s, else https\://g.codefresh.io\]]:URL:_default' \
'-o+[Output format]:OUTPUT:(table json yaml)' \
'--output=[Output format]:OUTPUT:(table json yaml)' \
'--timeout=[How long --wait waits (e.g. 90s, 5m)]:DURATION:_default' \
'--kube-namespace=[Namespace of the runner \[default\: every installation in the cluster\]]:NAMESPACE:_default' \
'--insecure[Skip TLS verification towards the platform (self-signed on-prem only)]' \
'--allow-http[Send the API key over a plain http\:// platform URL (other than localhost)]' \
'--wait[Wait until the install is healthy (runner ready, runtime registered, certificate valid); exit 1 at --timeout]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(delete)
_arguments "${_arguments_options[@]}" : \
'--kube-context-name=[Kubernetes context to use \[default\: the kubeconfig'\''s current context\]]:NAME:{compadd -- ${(f)"$(kubectl config get-contexts -o name 2>/dev/null)"}}' \
'--kube-config-path=[Path to the kubeconfig \[default\: \$KUBECONFIG or ~/.kube/config\]]:PATH:_files' \
'--token=[Codefresh API token \[default\: \$CF_API_KEY, then the current context of ~/.cfconfig\]]:TOKEN:_default' \
'--url=[Codefresh platform URL \[default\: the installation'\''s, else https\://g.codefresh.io\]]:URL:_default' \
'--timeout=[How long to wait for the objects to be gone, and for another run'\''s lock (e.g. 90s, 5m)]:DURATION:_default' \
'--kube-namespace=[Namespace of the runner \[default\: the only installation in the cluster\]]:NAMESPACE:_default' \
'--insecure[Skip TLS verification towards the platform (self-signed on-prem only)]' \
'--allow-http[Send the API key over a plain http\:// platform URL (other than localhost)]' \
'-y[Do not ask for confirmation]' \
'--yes[Do not ask for confirmation]' \
'--delete-namespace[Also delete the namespace, if cf-runner created it and nothing else is in it]' \
'--delete-namespace-with-contents[Also delete the namespace cf-runner created with everything still in it (lists it first)]' \
'--purge-volumes[Also delete dind volumes (PVs and PVCs)]' \
'--keep-platform[Leave the agent and runtime environment on the platform]' \
'--all-runtimes[Also delete every runtime attached to the agent, first (their objects and runtime environments; the agent is not rolled for them)]' \
'--ignore-agent[Delete an attached runtime'\''s namespace objects although an agent may still serve it (its agent is gone)]' \
'--delete-adopted[Also delete objects that existed before the install and were taken over with --force-conflicts]' \
'--no-wait-for-lock[Stop at once (exit 1) when another run holds the install'\''s lock, instead of waiting up to --timeout]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(upgrade)
_arguments "${_arguments_options[@]}" : \
'--kube-context-name=[Kubernetes context to use \[default\: the kubeconfig'\''s current context\]]:NAME:{compadd -- ${(f)"$(kubectl config get-contexts -o name 2>/dev/null)"}}' \
'--kube-config-path=[Path to the kubeconfig \[default\: \$KUBECONFIG or ~/.kube/config\]]:PATH:_files' \
'--kube-node-selector=[Node selector for the runner and volume provisioner\: key=value\[,key=value\]]:K=V,...:_default' \
'--build-node-selector=[Node selector for build (engine and dind) pods\: key=value\[,key=value\]]:K=V,...:_default' \
'--docker-registry=[Registry that serves every image (a mirror of quay.io)]:HOST[/PATH]:_default' \
'*--image-pull-secret=[Secret of yours (type docker-registry, in the runner'\''s namespace) that every pod and build pulls images with (repeatable)]:SECRET:_default' \
'*--env-vars=[Environment variable for every component and build (repeatable)\: KEY=VALUE]:KEY=VALUE:_default' \
'--http-proxy=[HTTP proxy for every component and build]:URL:_default' \
'--https-proxy=[HTTPS proxy for every component and build]:URL:_default' \
'--no-proxy=[Hosts that bypass the proxy, comma-separated]:HOSTS:_default' \
'--ca-bundle=[PEM file of CA certificates (a TLS-inspecting proxy'\''s) that cf-runner, every component and every build trust besides the public roots]:FILE:_files' \
'--install-monitor=[Install the cluster monitor (with upgrade, false removes it)]::BOOL:(true false)' \
'--app-proxy=[Install the app-proxy, which needs --app-proxy-host (with upgrade, false removes it)]::BOOL:(true false)' \
'--app-proxy-host=[Host name of the app-proxy Ingress]:HOST:_default' \
'--app-proxy-ingress-class=[IngressClass of the app-proxy Ingress]:CLASS:_default' \
'--docker-daemon-access=[Let pipeline steps reach the docker daemon]::BOOL:(true false)' \
'*-f+[Values file applied on top of the stored values (repeatable; later files win)]:FILE:_files' \
'*--values=[Values file applied on top of the stored values (repeatable; later files win)]:FILE:_files' \
'*--set-value=[Set a value by dotted key, typed like Helm (repeatable)\: Monitor.Enabled=false]:KEY=VALUE:_default' \
'*--set-file=[Set a value to a file'\''s contents (repeatable)\: Storage.GoogleServiceAccount=key.json]:KEY=PATH:_default' \
'--token=[Codefresh API token (for the monitor) \[default\: the one installed\]]:TOKEN:_default' \
'--url=[Codefresh platform URL; the only host other than the token'\''s own (CF_URL, ~/.cfconfig) the token is sent to \[default\: the installation'\''s, when it is the token'\''s own\]]:URL:_default' \
'--agent-token=[Agent token \[default\: the one installed\]]:TOKEN:_default' \
'--timeout=[How long to wait for the workloads to become ready, and for another run'\''s lock (e.g. 90s, 5m)]:DURATION:_default' \
'--kube-namespace=[Namespace of the runner \[default\: the only installation in the cluster\]]:NAMESPACE:_default' \
'--allow-http[Send the API key over a plain http\:// platform URL (other than localhost)]' \
'--force-conflicts[Take over fields that another field manager owns]' \
'--no-wait[Apply and return without waiting for the workloads]' \
'--no-wait-for-lock[Stop at once (exit 1) when another run holds the install'\''s lock, instead of waiting up to --timeout]' \
'-y[Do not ask for confirmation]' \
'--yes[Do not ask for confirmation]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(check)
_arguments "${_arguments_options[@]}" : \
'--kube-context-name=[Kubernetes context to use \[default\: the kubeconfig'\''s current context\]]:NAME:{compadd -- ${(f)"$(kubectl config get-contexts -o name 2>/dev/null)"}}' \
'--kube-namespace=[Namespace of the runner \[default\: codefresh\]]:NAMESPACE:_default' \
'--kube-config-path=[Path to the kubeconfig \[default\: \$KUBECONFIG or ~/.kube/config\]]:PATH:_files' \
'*-f+[Values file to check the install of (repeatable)]:FILE:_files' \
'*--values=[Values file to check the install of (repeatable)]:FILE:_files' \
'*--set-value=[Set a value by dotted key, typed like Helm (repeatable)\: Storage.Backend=ebs]:KEY=VALUE:_default' \
'-o+[Output format]:OUTPUT:(table json yaml)' \
'--output=[Output format]:OUTPUT:(table json yaml)' \
'--probe-timeout=[How long the probe may take (e.g. 90s, 5m)]:DURATION:_default' \
'--probe[Also try the build path on the installed namespace\: a dind claim and a dind-like pod]' \
'--trust-values-kubeconfig[Let a kubeconfig that a values file names (ConfigPath) run its auth plugin and send its token file (risky\: whoever wrote the file picks the command)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(test-pipeline)
_arguments "${_arguments_options[@]}" : \
'--kube-context-name=[Kubernetes context to use \[default\: the kubeconfig'\''s current context\]]:NAME:{compadd -- ${(f)"$(kubectl config get-contexts -o name 2>/dev/null)"}}' \
'--kube-config-path=[Path to the kubeconfig \[default\: \$KUBECONFIG or ~/.kube/config\]]:PATH:_files' \
'--token=[Codefresh API token \[default\: \$CF_API_KEY, then the current context of ~/.cfconfig\]]:TOKEN:_default' \
'--url=[Codefresh platform URL \[default\: the installation'\''s, else https\://g.codefresh.io\]]:URL:_default' \
'--runtime-name=[Runtime environment to run the demo pipeline on \[default\: the installation'\''s\]]:NAME:_default' \
'--kube-namespace=[Namespace of the runner \[default\: the only installation in the cluster\]]:NAMESPACE:_default' \
'--insecure[Skip TLS verification towards the platform (self-signed on-prem only)]' \
'--allow-http[Send the API key over a plain http\:// platform URL (other than localhost)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(adopt)
_arguments "${_arguments_options[@]}" : \
'--kube-context-name=[Kubernetes context to use \[default\: the kubeconfig'\''s current context\]]:NAME:{compadd -- ${(f)"$(kubectl config get-contexts -o name 2>/dev/null)"}}' \
'--kube-namespace=[Namespace of the runner \[default\: codefresh\]]:NAMESPACE:_default' \
'--kube-config-path=[Path to the kubeconfig \[default\: \$KUBECONFIG or ~/.kube/config\]]:PATH:_files' \
'--token=[Codefresh API token \[default\: \$CF_API_KEY, then the current context of ~/.cfconfig\]]:TOKEN:_default' \
'--url=[Codefresh platform URL \[default\: the installation'\''s, else https\://g.codefresh.io\]]:URL:_default' \
'--timeout=[How long to wait for each step of the move, and for another run'\''s lock (e.g. 90s, 5m)]:DURATION:_default' \
'--values-file=[Where to save what the install is, as a cf-runner values file]:PATH:_files' \
'--insecure[Skip TLS verification towards the platform (self-signed on-prem only)]' \
'--allow-http[Send the API key over a plain http\:// platform URL (other than localhost)]' \
'--dry-run[Read the install, save the values file and print the plan; change nothing in the cluster]' \
'-y[Do not ask for confirmation before moving the runner]' \
'--yes[Do not ask for confirmation before moving the runner]' \
'--no-wait-for-lock[Stop at once (exit 1) when another run holds the install'\''s lock, instead of waiting up to --timeout]' \
'--overwrite[Write over a file at --values-file that cf-runner adopt did not write]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(completions)
_arguments "${_arguments_options[@]}" : \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':shell -- The shell to print the script for:(bash zsh fish powershell)' \
&& ret=0
;;
(diff)
_arguments "${_arguments_options[@]}" : \
'--kube-context-name=[Kubernetes context to use \[default\: the kubeconfig'\''s current context\]]:NAME:{compadd -- ${(f)"$(kubectl config get-contexts -o name 2>/dev/null)"}}' \
'--kube-namespace=[Namespace of the runner \[default\: codefresh\]]:NAMESPACE:_default' \
'--kube-config-path=[Path to the kubeconfig \[default\: \$KUBECONFIG or ~/.kube/config\]]:PATH:_files' \
'--kube-node-selector=[Node selector for the runner and volume provisioner\: key=value\[,key=value\]]:K=V,...:_default' \
'--build-node-selector=[Node selector for build (engine and dind) pods\: key=value\[,key=value\]]:K=V,...:_default' \
'--docker-registry=[Registry that serves every image (a mirror of quay.io)]:HOST[/PATH]:_default' \
'*--image-pull-secret=[Secret of yours (type docker-registry, in the runner'\''s namespace) that every pod and build pulls images with (repeatable)]:SECRET:_default' \
'*--env-vars=[Environment variable for every component and build (repeatable)\: KEY=VALUE]:KEY=VALUE:_default' \
'--http-proxy=[HTTP proxy for every component and build]:URL:_default' \
'--https-proxy=[HTTPS proxy for every component and build]:URL:_default' \
'--no-proxy=[Hosts that bypass the proxy, comma-separated]:HOSTS:_default' \
'--ca-bundle=[PEM file of CA certificates (a TLS-inspecting proxy'\''s) that cf-runner, every component and every build trust besides the public roots]:FILE:_files' \
'--install-monitor=[Install the cluster monitor (with upgrade, false removes it)]::BOOL:(true false)' \
'--app-proxy=[Install the app-proxy, which needs --app-proxy-host (with upgrade, false removes it)]::BOOL:(true false)' \
'--app-proxy-host=[Host name of the app-proxy Ingress]:HOST:_default' \
'--app-proxy-ingress-class=[IngressClass of the app-proxy Ingress]:CLASS:_default' \
'--docker-daemon-access=[Let pipeline steps reach the docker daemon]::BOOL:(true false)' \
'*-f+[Values file applied on top of the stored values (repeatable; later files win)]:FILE:_files' \
'*--values=[Values file applied on top of the stored values (repeatable; later files win)]:FILE:_files' \
'*--set-value=[Set a value by dotted key, typed like Helm (repeatable)\: Monitor.Enabled=false]:KEY=VALUE:_default' \
'*--set-file=[Set a value to a file'\''s contents (repeatable)\: Storage.GoogleServiceAccount=key.json]:KEY=PATH:_default' \
'--token=[Codefresh API token (for the monitor) \[default\: the one installed\]]:TOKEN:_default' \
'--url=[Codefresh platform URL; the only host other than the token'\''s own (CF_URL, ~/.cfconfig) the token is sent to \[default\: the installation'\''s, when it is the token'\''s own\]]:URL:_default' \
'--agent-token=[Agent token \[default\: the one installed\]]:TOKEN:_default' \
'-o+[Output format]:OUTPUT:(table json yaml)' \
'--output=[Output format]:OUTPUT:(table json yaml)' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(schema)
_arguments "${_arguments_options[@]}" : \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(images)
_arguments "${_arguments_options[@]}" : \
'--kube-node-selector=[Node selector for the runner and volume provisioner\: key=value\[,key=value\]]:K=V,...:_default' \
'--build-node-selector=[Node selector for build (engine and dind) pods\: key=value\[,key=value\]]:K=V,...:_default' \
'--docker-registry=[Registry that serves every image (a mirror of quay.io)]:HOST[/PATH]:_default' \
'*--image-pull-secret=[Secret of yours (type docker-registry, in the runner'\''s namespace) that every pod and build pulls images with (repeatable)]:SECRET:_default' \
'*--env-vars=[Environment variable for every component and build (repeatable)\: KEY=VALUE]:KEY=VALUE:_default' \
'--http-proxy=[HTTP proxy for every component and build]:URL:_default' \
'--https-proxy=[HTTPS proxy for every component and build]:URL:_default' \
'--no-proxy=[Hosts that bypass the proxy, comma-separated]:HOSTS:_default' \
'--ca-bundle=[PEM file of CA certificates (a TLS-inspecting proxy'\''s) that cf-runner, every component and every build trust besides the public roots]:FILE:_files' \
'--install-monitor=[Install the cluster monitor (with upgrade, false removes it)]::BOOL:(true false)' \
'--app-proxy=[Install the app-proxy, which needs --app-proxy-host (with upgrade, false removes it)]::BOOL:(true false)' \
'--app-proxy-host=[Host name of the app-proxy Ingress]:HOST:_default' \
'--app-proxy-ingress-class=[IngressClass of the app-proxy Ingress]:CLASS:_default' \
'--docker-daemon-access=[Let pipeline steps reach the docker daemon]::BOOL:(true false)' \
'*-f+[Values file in the venonactl format (repeatable; later files win)]:FILE:_files' \
'*--values=[Values file in the venonactl format (repeatable; later files win)]:FILE:_files' \
'*--set-value=[Set a value by dotted key, typed like Helm (repeatable)\: Monitor.Enabled=true]:KEY=VALUE:_default' \
'*--set-file=[Set a value to a file'\''s contents (repeatable)\: Storage.GoogleServiceAccount=key.json]:KEY=PATH:_default' \
'--docker-config=[Docker config file with registry credentials for --check \[default\: \$DOCKER_CONFIG/config.json, then ~/.docker/config.json\]]:PATH:_files' \
'-o+[Output format]:OUTPUT:(table json yaml)' \
'--output=[Output format]:OUTPUT:(table json yaml)' \
'--check[Ask each image'\''s registry whether it holds it; exit 1 when one is missing]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(fleet)
_arguments "${_arguments_options[@]}" : \
'-h[Print help]' \
'--help[Print help]' \
'-V[Print version]' \
'--version[Print version]' \
":: :_cf-runner__subcmd__fleet_commands" \
"*::: :->fleet" \
&& ret=0

    case $state in
    (fleet)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:cf-runner-fleet-command-$line[1]:"
        case $line[1] in
            (register)
_arguments "${_arguments_options[@]}" : \
'--fleet=[The fleet file (YAML\: defaults, gitops, sops, clusters)]:PATH:_files' \
'--output-dir=[The tree'\''s folder (inside your Git repository)]:DIR:_files' \
'--token=[Codefresh API token \[default\: \$CF_API_KEY, then the current context of ~/.cfconfig\]]:TOKEN:_default' \
'--url=[Codefresh platform URL \[default\: the installation'\''s, else https\://g.codefresh.io\]]:URL:_default' \
'--age-key-file=[age identities, to re-encrypt a registration whose Secrets changed shape or whose sops.ageRecipients changed \[default\: \$SOPS_AGE_KEY_FILE\]]:PATH:_files' \
'--store-material-dir=[With \`externalSecrets\`\: where a new registration'\''s Secrets are written (0600, outside the tree) for you to load into your store]:DIR:_files' \
'--registration-key-file=[The key registrations are sealed with, kept outside the tree (made by the first \`fleet register\`) \[default\: ~/.config/cf-runner/fleet-registration.key\]]:PATH:_files' \
'--insecure[Skip TLS verification towards the platform (self-signed on-prem only)]' \
'--allow-http[Send the API key over a plain http\:// platform URL (other than localhost)]' \
'--accept-unsigned-registrations[Read registration.yaml files without a valid seal (an older cf-runner'\''s, or another key'\''s); \`register\` and \`retire\` check each against the platform first, \`register\` then seals it. Risky\: anyone who can write to the repository can write one naming another team'\''s agent]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(export)
_arguments "${_arguments_options[@]}" : \
'--fleet=[The fleet file (YAML\: defaults, gitops, sops, clusters)]:PATH:_files' \
'--output-dir=[The tree'\''s folder (inside your Git repository)]:DIR:_files' \
'--registration-key-file=[The key registrations are sealed with, kept outside the tree (made by the first \`fleet register\`) \[default\: ~/.config/cf-runner/fleet-registration.key\]]:PATH:_files' \
'--overwrite[Write beside files cf-runner did not write (files with the same names are replaced)]' \
'--accept-unsigned-registrations[Read registration.yaml files without a valid seal (an older cf-runner'\''s, or another key'\''s); \`register\` and \`retire\` check each against the platform first, \`register\` then seals it. Risky\: anyone who can write to the repository can write one naming another team'\''s agent]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(retire)
_arguments "${_arguments_options[@]}" : \
'--fleet=[The fleet file (YAML\: defaults, gitops, sops, clusters)]:PATH:_files' \
'--output-dir=[The tree'\''s folder (inside your Git repository)]:DIR:_files' \
'--token=[Codefresh API token \[default\: \$CF_API_KEY, then the current context of ~/.cfconfig\]]:TOKEN:_default' \
'--url=[Codefresh platform URL \[default\: the installation'\''s, else https\://g.codefresh.io\]]:URL:_default' \
'--age-key-file=[age identities, to re-encrypt a registration whose Secrets changed shape or whose sops.ageRecipients changed \[default\: \$SOPS_AGE_KEY_FILE\]]:PATH:_files' \
'--store-material-dir=[With \`externalSecrets\`\: where a new registration'\''s Secrets are written (0600, outside the tree) for you to load into your store]:DIR:_files' \
'--registration-key-file=[The key registrations are sealed with, kept outside the tree (made by the first \`fleet register\`) \[default\: ~/.config/cf-runner/fleet-registration.key\]]:PATH:_files' \
'--insecure[Skip TLS verification towards the platform (self-signed on-prem only)]' \
'--allow-http[Send the API key over a plain http\:// platform URL (other than localhost)]' \
'--accept-unsigned-registrations[Read registration.yaml files without a valid seal (an older cf-runner'\''s, or another key'\''s); \`register\` and \`retire\` check each against the platform first, \`register\` then seals it. Risky\: anyone who can write to the repository can write one naming another team'\''s agent]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
":: :_cf-runner__subcmd__fleet__subcmd__help_commands" \
"*::: :->help" \
&& ret=0

    case $state in
    (help)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:cf-runner-fleet-help-command-$line[1]:"
        case $line[1] in
            (register)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(export)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(retire)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
        esac
    ;;
esac
;;
        esac
    ;;
esac
;;
(support-bundle)
_arguments "${_arguments_options[@]}" : \
'--kube-context-name=[Kubernetes context to use \[default\: the kubeconfig'\''s current context\]]:NAME:{compadd -- ${(f)"$(kubectl config get-contexts -o name 2>/dev/null)"}}' \
'--kube-config-path=[Path to the kubeconfig \[default\: \$KUBECONFIG or ~/.kube/config\]]:PATH:_files' \
'--token=[Codefresh API token \[default\: \$CF_API_KEY, then the current context of ~/.cfconfig\]]:TOKEN:_default' \
'--url=[Codefresh platform URL \[default\: the installation'\''s, else https\://g.codefresh.io\]]:URL:_default' \
'-o+[Where to write the bundle \[default\: cf-runner-support-<namespace>-<UTC time>.tar.gz here\]]:FILE:_files' \
'--output=[Where to write the bundle \[default\: cf-runner-support-<namespace>-<UTC time>.tar.gz here\]]:FILE:_files' \
'--since=[Only log lines newer than this (e.g. 30m, 6h, 2d)]:AGE:_default' \
'--max-log-bytes=[Most bytes kept of each container log, the newest (e.g. 512Ki, 2Mi)]:BYTES:_default' \
'--max-size=[Largest bundle to write; what would pass it is left out and listed (e.g. 20Mi)]:BYTES:_default' \
'--kube-namespace=[Namespace of the runner \[default\: the only installation in the cluster\]]:NAMESPACE:_default' \
'--insecure[Skip TLS verification towards the platform (self-signed on-prem only)]' \
'--allow-http[Send the API key over a plain http\:// platform URL (other than localhost)]' \
'--overwrite[Write over a file at --output that is not a bundle cf-runner wrote]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(runtime)
_arguments "${_arguments_options[@]}" : \
'-h[Print help]' \
'--help[Print help]' \
'-V[Print version]' \
'--version[Print version]' \
":: :_cf-runner__subcmd__runtime_commands" \
"*::: :->runtime" \
&& ret=0

    case $state in
    (runtime)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:cf-runner-runtime-command-$line[1]:"
        case $line[1] in
            (attach)
_arguments "${_arguments_options[@]}" : \
'--kube-config-path=[Path to the kubeconfig \[default\: \$KUBECONFIG or ~/.kube/config\]]:PATH:_files' \
'--agent-namespace=[Namespace of the installed agent (made by \`cf-runner init\`)]:NAMESPACE:_default' \
'--agent-context=[Context of the agent'\''s cluster \[default\: the kubeconfig'\''s current context\]]:NAME:_default' \
'--token=[Codefresh API token \[default\: \$CF_API_KEY, then the current context of ~/.cfconfig\]]:TOKEN:_default' \
'--url=[Codefresh platform URL \[default\: the installation'\''s, else https\://g.codefresh.io\]]:URL:_default' \
'--runtime-name=[Name of the runtime environment on the platform \[default\: <context>/<namespace>\]]:NAME:_default' \
'--kube-host=[API server URL the agent reaches the runtime'\''s cluster at \[default\: in-cluster for the agent'\''s own cluster, else the kubeconfig'\''s\]]:URL:_default' \
'-f+[Runtimes file listing several runtimes to attach (see docs/guide/runtimes.md)]:FILE:_files' \
'--values=[Runtimes file listing several runtimes to attach (see docs/guide/runtimes.md)]:FILE:_files' \
'(-f --values)*--set-value=[The runtime'\''s own setting, by a runtimes file entry'\''s key (repeatable)\: NodeSelector=zone=a, Storage.Backend=local]:KEY=VALUE:_default' \
'--timeout=[How long to wait for each token and for the agent'\''s rollout, and for another run'\''s lock (e.g. 90s, 5m)]:DURATION:_default' \
'--kube-namespace=[Namespace of the runtime (builds run there) \[default\: the agent'\''s namespace\]]:NAMESPACE:_default' \
'--kube-context-name=[Context of the runtime'\''s cluster \[default\: the agent'\''s context\]]:NAME:{compadd -- ${(f)"$(kubectl config get-contexts -o name 2>/dev/null)"}}' \
'--insecure[Skip TLS verification towards the platform (self-signed on-prem only)]' \
'--allow-http[Send the API key over a plain http\:// platform URL (other than localhost)]' \
'--trust-values-kubeconfig[Let a kubeconfig that the runtimes file names (Runtimes\[\].ConfigPath) run its auth plugin and send its token file (risky\: whoever wrote the file picks the command)]' \
'--accept-agent-insecure-tls[Attach although the agent skips TLS verification (--insecure at init)\: it would then skip it towards every attached runtime'\''s API server too]' \
'--allow-builds-to-read-tokens[Attach although the agent'\''s namespace runs builds of its own runtime\: every pipeline there could read the attached runtime'\''s token and create pods in its namespace]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(detach)
_arguments "${_arguments_options[@]}" : \
'--kube-config-path=[Path to the kubeconfig \[default\: \$KUBECONFIG or ~/.kube/config\]]:PATH:_files' \
'--agent-namespace=[Namespace of the installed agent (made by \`cf-runner init\`)]:NAMESPACE:_default' \
'--agent-context=[Context of the agent'\''s cluster \[default\: the kubeconfig'\''s current context\]]:NAME:_default' \
'--token=[Codefresh API token \[default\: \$CF_API_KEY, then the current context of ~/.cfconfig\]]:TOKEN:_default' \
'--url=[Codefresh platform URL \[default\: the installation'\''s, else https\://g.codefresh.io\]]:URL:_default' \
'--runtime-name=[Name of the runtime environment to detach \[default\: <context>/<namespace>\]]:NAME:_default' \
'--timeout=[How long to wait for the agent'\''s rollout and the removals, and for another run'\''s lock (e.g. 90s, 5m)]:DURATION:_default' \
'--kube-namespace=[Namespace of the runtime to detach]:NAMESPACE:_default' \
'--kube-context-name=[Context of the runtime'\''s cluster \[default\: the agent'\''s context\]]:NAME:{compadd -- ${(f)"$(kubectl config get-contexts -o name 2>/dev/null)"}}' \
'--insecure[Skip TLS verification towards the platform (self-signed on-prem only)]' \
'--allow-http[Send the API key over a plain http\:// platform URL (other than localhost)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(rotate)
_arguments "${_arguments_options[@]}" : \
'--kube-config-path=[Path to the kubeconfig \[default\: \$KUBECONFIG or ~/.kube/config\]]:PATH:_files' \
'--agent-namespace=[Namespace of the installed agent (made by \`cf-runner init\`)]:NAMESPACE:_default' \
'--agent-context=[Context of the agent'\''s cluster \[default\: the kubeconfig'\''s current context\]]:NAME:_default' \
'--runtime-name=[Name of the runtime environment whose token is rotated \[default\: <context>/<namespace>\]]:NAME:_default' \
'--timeout=[How long to wait for each token, each rollout of the agent and the removals, and for another run'\''s lock (e.g. 90s, 5m)]:DURATION:_default' \
'--kube-namespace=[Namespace of the runtime whose token is rotated]:NAMESPACE:_default' \
'--kube-context-name=[Context of the runtime'\''s cluster \[default\: the agent'\''s context\]]:NAME:{compadd -- ${(f)"$(kubectl config get-contexts -o name 2>/dev/null)"}}' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(delete)
_arguments "${_arguments_options[@]}" : \
'--kube-config-path=[Path to the kubeconfig \[default\: \$KUBECONFIG or ~/.kube/config\]]:PATH:_files' \
'--agent-namespace=[Namespace of the installed agent (made by \`cf-runner init\`)]:NAMESPACE:_default' \
'--agent-context=[Context of the agent'\''s cluster \[default\: the kubeconfig'\''s current context\]]:NAME:_default' \
'--token=[Codefresh API token \[default\: \$CF_API_KEY, then the current context of ~/.cfconfig\]]:TOKEN:_default' \
'--url=[Codefresh platform URL \[default\: the installation'\''s, else https\://g.codefresh.io\]]:URL:_default' \
'--runtime-name=[Name of the runtime environment to delete \[default\: <context>/<namespace>\]]:NAME:_default' \
'--timeout=[How long to wait for the agent'\''s rollout and the removals, and for another run'\''s lock (e.g. 90s, 5m)]:DURATION:_default' \
'--kube-namespace=[Namespace of the runtime to delete]:NAMESPACE:_default' \
'--kube-context-name=[Context of the runtime'\''s cluster \[default\: the agent'\''s context\]]:NAME:{compadd -- ${(f)"$(kubectl config get-contexts -o name 2>/dev/null)"}}' \
'--insecure[Skip TLS verification towards the platform (self-signed on-prem only)]' \
'--allow-http[Send the API key over a plain http\:// platform URL (other than localhost)]' \
'--keep-platform[Leave the runtime environment on the platform (it is still detached from the agent)]' \
'-y[Do not ask for confirmation]' \
'--yes[Do not ask for confirmation]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(upgrade)
_arguments "${_arguments_options[@]}" : \
'--kube-config-path=[Path to the kubeconfig \[default\: \$KUBECONFIG or ~/.kube/config\]]:PATH:_files' \
'--agent-namespace=[Namespace of the installed agent (made by \`cf-runner init\`)]:NAMESPACE:_default' \
'--agent-context=[Context of the agent'\''s cluster \[default\: the kubeconfig'\''s current context\]]:NAME:_default' \
'--token=[Codefresh API token \[default\: \$CF_API_KEY, then the current context of ~/.cfconfig\]]:TOKEN:_default' \
'--url=[Codefresh platform URL \[default\: the installation'\''s, else https\://g.codefresh.io\]]:URL:_default' \
'--runtime-name=[Name of the runtime environment to upgrade \[default\: <context>/<namespace>\]]:NAME:_default' \
'*--set-value=[The runtime'\''s own setting, as at attach (repeatable)\: NodeSelector=zone=a, Storage.Backend=local; a setting of its own on the platform that is not given again is refused, not dropped]:KEY=VALUE:_default' \
'--timeout=[How long to wait for another run'\''s lock (e.g. 90s, 5m)]:DURATION:_default' \
'--kube-namespace=[Namespace of the runtime to upgrade]:NAMESPACE:_default' \
'--kube-context-name=[Context of the runtime'\''s cluster \[default\: the agent'\''s context\]]:NAME:{compadd -- ${(f)"$(kubectl config get-contexts -o name 2>/dev/null)"}}' \
'--insecure[Skip TLS verification towards the platform (self-signed on-prem only)]' \
'--allow-http[Send the API key over a plain http\:// platform URL (other than localhost)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
":: :_cf-runner__subcmd__runtime__subcmd__help_commands" \
"*::: :->help" \
&& ret=0

    case $state in
    (help)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:cf-runner-runtime-help-command-$line[1]:"
        case $line[1] in
            (attach)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(detach)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(rotate)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(delete)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(upgrade)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
        esac
    ;;
esac
;;
        esac
    ;;
esac
;;
(renew)
_arguments "${_arguments_options[@]}" : \
'--kube-context-name=[Kubernetes context to use \[default\: the kubeconfig'\''s current context\]]:NAME:{compadd -- ${(f)"$(kubectl config get-contexts -o name 2>/dev/null)"}}' \
'--kube-config-path=[Path to the kubeconfig \[default\: \$KUBECONFIG or ~/.kube/config\]]:PATH:_files' \
'--token=[Codefresh API token \[default\: \$CF_API_KEY, then the current context of ~/.cfconfig\]]:TOKEN:_default' \
'--url=[Codefresh platform URL \[default\: the installation'\''s, else https\://g.codefresh.io\]]:URL:_default' \
'--timeout=[How long to wait for another run'\''s lock, and for the agent'\''s rollout (e.g. 90s, 5m)]:DURATION:_default' \
'--kube-namespace=[Namespace of the runner \[default\: the only installation in the cluster\]]:NAMESPACE:_default' \
'--insecure[Skip TLS verification towards the platform (self-signed on-prem only)]' \
'--allow-http[Send the API key over a plain http\:// platform URL (other than localhost)]' \
'--no-wait-for-lock[Stop at once (exit 1) when another run holds the install'\''s lock, instead of waiting up to --timeout]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':what -- What to renew:((certificate\:"The dind daemon'\''s TLS certificate, signed again by the platform"
agent-token\:"The agent'\''s Codefresh token\: a new agent with the same runtimes replaces the old one"))' \
&& ret=0
;;
(diagnose)
_arguments "${_arguments_options[@]}" : \
'--kube-context-name=[Kubernetes context to use \[default\: the kubeconfig'\''s current context\]]:NAME:{compadd -- ${(f)"$(kubectl config get-contexts -o name 2>/dev/null)"}}' \
'--kube-config-path=[Path to the kubeconfig \[default\: \$KUBECONFIG or ~/.kube/config\]]:PATH:_files' \
'--token=[Codefresh API token \[default\: \$CF_API_KEY, then the current context of ~/.cfconfig\]]:TOKEN:_default' \
'--url=[Codefresh platform URL \[default\: the installation'\''s, else https\://g.codefresh.io\]]:URL:_default' \
'--since=[Look at build pods created this long ago or later (e.g. 30m, 1h, 2d)]:AGE:_default' \
'-o+[Output format]:OUTPUT:((text\:"Lines for a person"
json\:"JSON, for scripts"
yaml\:"YAML, for scripts"))' \
'--output=[Output format]:OUTPUT:((text\:"Lines for a person"
json\:"JSON, for scripts"
yaml\:"YAML, for scripts"))' \
'--kube-namespace=[Namespace of the runner \[default\: the only installation in the cluster\]]:NAMESPACE:_default' \
'--insecure[Skip TLS verification towards the platform (self-signed on-prem only)]' \
'--allow-http[Send the API key over a plain http\:// platform URL (other than localhost)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
":: :_cf-runner__subcmd__help_commands" \
"*::: :->help" \
&& ret=0

    case $state in
    (help)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:cf-runner-help-command-$line[1]:"
        case $line[1] in
            (init)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(info)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(delete)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(upgrade)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(check)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(test-pipeline)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(adopt)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(completions)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(diff)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(schema)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(images)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(fleet)
_arguments "${_arguments_options[@]}" : \
":: :_cf-runner__subcmd__help__subcmd__fleet_commands" \
"*::: :->fleet" \
&& ret=0

    case $state in
    (fleet)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:cf-runner-help-fleet-command-$line[1]:"
        case $line[1] in
            (register)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(export)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(retire)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
        esac
    ;;
esac
;;
(support-bundle)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(runtime)
_arguments "${_arguments_options[@]}" : \
":: :_cf-runner__subcmd__help__subcmd__runtime_commands" \
"*::: :->runtime" \
&& ret=0

    case $state in
    (runtime)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:cf-runner-help-runtime-command-$line[1]:"
        case $line[1] in
            (attach)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(detach)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(rotate)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(delete)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(upgrade)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
        esac
    ;;
esac
;;
(renew)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(diagnose)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
        esac
    ;;
esac
;;
        esac
    ;;
esac
}

(( $+functions[_cf-runner_commands] )) ||
_cf-runner_commands() {
    local commands; commands=(
'init:Install the runner\: wizard, or non-interactive with --values/--yes' \
'info:Show what is installed and whether it is healthy' \
'delete:Remove exactly what cf-runner installed' \
'upgrade:Re-render from the stored values (plus new flags) and apply' \
'check:Preflight\: check that the cluster and your permissions can take an install' \
'test-pipeline:Run the demo pipeline on a runtime environment' \
'adopt:Move a runner made by the Helm chart or venonactl to cf-runner, keeping its agent and volumes' \
'completions:Print a shell completion script' \
'diff:Show what upgrade (or init) with these flags would change; changes nothing' \
'schema:Print the JSON Schema of a values file, for editors and linters' \
'images:List every image an install with these values runs; --check asks the registry' \
'fleet:Runners for a fleet of clusters, as a Git tree that Flux or Argo CD applies' \
'support-bundle:Write a redacted .tar.gz of what support needs to look into a runner' \
'runtime:Attach a runtime in another namespace or cluster to an installed agent, or detach it' \
'renew:Renew what the platform issued\: the dind certificate, or the agent token' \
'diagnose:Why builds did not run\: each build pod'\''s wait, the cause and the fix; exit 1 when something is wrong' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'cf-runner commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__adopt_commands] )) ||
_cf-runner__subcmd__adopt_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner adopt commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__check_commands] )) ||
_cf-runner__subcmd__check_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner check commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__completions_commands] )) ||
_cf-runner__subcmd__completions_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner completions commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__delete_commands] )) ||
_cf-runner__subcmd__delete_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner delete commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__diagnose_commands] )) ||
_cf-runner__subcmd__diagnose_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner diagnose commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__diff_commands] )) ||
_cf-runner__subcmd__diff_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner diff commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__fleet_commands] )) ||
_cf-runner__subcmd__fleet_commands() {
    local commands; commands=(
'register:Register every runtime of the fleet file on the platform (no cluster needed) and write its secrets encrypted' \
'export:Write the fleet as a Git tree\: a Kustomize base, an overlay per cluster, Flux Kustomizations, Argo CD Applications' \
'retire:Remove from the platform the runtimes registered in the tree that the fleet file no longer lists' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'cf-runner fleet commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__fleet__subcmd__export_commands] )) ||
_cf-runner__subcmd__fleet__subcmd__export_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner fleet export commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__fleet__subcmd__help_commands] )) ||
_cf-runner__subcmd__fleet__subcmd__help_commands() {
    local commands; commands=(
'register:Register every runtime of the fleet file on the platform (no cluster needed) and write its secrets encrypted' \
'export:Write the fleet as a Git tree\: a Kustomize base, an overlay per cluster, Flux Kustomizations, Argo CD Applications' \
'retire:Remove from the platform the runtimes registered in the tree that the fleet file no longer lists' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'cf-runner fleet help commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__fleet__subcmd__help__subcmd__export_commands] )) ||
_cf-runner__subcmd__fleet__subcmd__help__subcmd__export_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner fleet help export commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__fleet__subcmd__help__subcmd__help_commands] )) ||
_cf-runner__subcmd__fleet__subcmd__help__subcmd__help_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner fleet help help commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__fleet__subcmd__help__subcmd__register_commands] )) ||
_cf-runner__subcmd__fleet__subcmd__help__subcmd__register_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner fleet help register commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__fleet__subcmd__help__subcmd__retire_commands] )) ||
_cf-runner__subcmd__fleet__subcmd__help__subcmd__retire_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner fleet help retire commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__fleet__subcmd__register_commands] )) ||
_cf-runner__subcmd__fleet__subcmd__register_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner fleet register commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__fleet__subcmd__retire_commands] )) ||
_cf-runner__subcmd__fleet__subcmd__retire_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner fleet retire commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__help_commands] )) ||
_cf-runner__subcmd__help_commands() {
    local commands; commands=(
'init:Install the runner\: wizard, or non-interactive with --values/--yes' \
'info:Show what is installed and whether it is healthy' \
'delete:Remove exactly what cf-runner installed' \
'upgrade:Re-render from the stored values (plus new flags) and apply' \
'check:Preflight\: check that the cluster and your permissions can take an install' \
'test-pipeline:Run the demo pipeline on a runtime environment' \
'adopt:Move a runner made by the Helm chart or venonactl to cf-runner, keeping its agent and volumes' \
'completions:Print a shell completion script' \
'diff:Show what upgrade (or init) with these flags would change; changes nothing' \
'schema:Print the JSON Schema of a values file, for editors and linters' \
'images:List every image an install with these values runs; --check asks the registry' \
'fleet:Runners for a fleet of clusters, as a Git tree that Flux or Argo CD applies' \
'support-bundle:Write a redacted .tar.gz of what support needs to look into a runner' \
'runtime:Attach a runtime in another namespace or cluster to an installed agent, or detach it' \
'renew:Renew what the platform issued\: the dind certificate, or the agent token' \
'diagnose:Why builds did not run\: each build pod'\''s wait, the cause and the fix; exit 1 when something is wrong' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'cf-runner help commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__help__subcmd__adopt_commands] )) ||
_cf-runner__subcmd__help__subcmd__adopt_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner help adopt commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__help__subcmd__check_commands] )) ||
_cf-runner__subcmd__help__subcmd__check_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner help check commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__help__subcmd__completions_commands] )) ||
_cf-runner__subcmd__help__subcmd__completions_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner help completions commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__help__subcmd__delete_commands] )) ||
_cf-runner__subcmd__help__subcmd__delete_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner help delete commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__help__subcmd__diagnose_commands] )) ||
_cf-runner__subcmd__help__subcmd__diagnose_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner help diagnose commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__help__subcmd__diff_commands] )) ||
_cf-runner__subcmd__help__subcmd__diff_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner help diff commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__help__subcmd__fleet_commands] )) ||
_cf-runner__subcmd__help__subcmd__fleet_commands() {
    local commands; commands=(
'register:Register every runtime of the fleet file on the platform (no cluster needed) and write its secrets encrypted' \
'export:Write the fleet as a Git tree\: a Kustomize base, an overlay per cluster, Flux Kustomizations, Argo CD Applications' \
'retire:Remove from the platform the runtimes registered in the tree that the fleet file no longer lists' \
    )
    _describe -t commands 'cf-runner help fleet commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__help__subcmd__fleet__subcmd__export_commands] )) ||
_cf-runner__subcmd__help__subcmd__fleet__subcmd__export_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner help fleet export commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__help__subcmd__fleet__subcmd__register_commands] )) ||
_cf-runner__subcmd__help__subcmd__fleet__subcmd__register_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner help fleet register commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__help__subcmd__fleet__subcmd__retire_commands] )) ||
_cf-runner__subcmd__help__subcmd__fleet__subcmd__retire_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner help fleet retire commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__help__subcmd__help_commands] )) ||
_cf-runner__subcmd__help__subcmd__help_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner help help commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__help__subcmd__images_commands] )) ||
_cf-runner__subcmd__help__subcmd__images_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner help images commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__help__subcmd__info_commands] )) ||
_cf-runner__subcmd__help__subcmd__info_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner help info commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__help__subcmd__init_commands] )) ||
_cf-runner__subcmd__help__subcmd__init_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner help init commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__help__subcmd__renew_commands] )) ||
_cf-runner__subcmd__help__subcmd__renew_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner help renew commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__help__subcmd__runtime_commands] )) ||
_cf-runner__subcmd__help__subcmd__runtime_commands() {
    local commands; commands=(
'attach:Let an installed agent serve the runtime in another namespace or cluster' \
'detach:Stop the agent serving a runtime, and remove its credentials there' \
'rotate:Give the agent a new token for an attached runtime; the old one stops working' \
'delete:Delete one attached runtime\: detach it, remove its objects, and its runtime environment on the platform' \
'upgrade:Re-apply one attached runtime'\''s objects from the agent'\''s values (images, dind config)' \
    )
    _describe -t commands 'cf-runner help runtime commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__help__subcmd__runtime__subcmd__attach_commands] )) ||
_cf-runner__subcmd__help__subcmd__runtime__subcmd__attach_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner help runtime attach commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__help__subcmd__runtime__subcmd__delete_commands] )) ||
_cf-runner__subcmd__help__subcmd__runtime__subcmd__delete_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner help runtime delete commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__help__subcmd__runtime__subcmd__detach_commands] )) ||
_cf-runner__subcmd__help__subcmd__runtime__subcmd__detach_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner help runtime detach commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__help__subcmd__runtime__subcmd__rotate_commands] )) ||
_cf-runner__subcmd__help__subcmd__runtime__subcmd__rotate_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner help runtime rotate commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__help__subcmd__runtime__subcmd__upgrade_commands] )) ||
_cf-runner__subcmd__help__subcmd__runtime__subcmd__upgrade_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner help runtime upgrade commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__help__subcmd__schema_commands] )) ||
_cf-runner__subcmd__help__subcmd__schema_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner help schema commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__help__subcmd__support-bundle_commands] )) ||
_cf-runner__subcmd__help__subcmd__support-bundle_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner help support-bundle commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__help__subcmd__test-pipeline_commands] )) ||
_cf-runner__subcmd__help__subcmd__test-pipeline_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner help test-pipeline commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__help__subcmd__upgrade_commands] )) ||
_cf-runner__subcmd__help__subcmd__upgrade_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner help upgrade commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__images_commands] )) ||
_cf-runner__subcmd__images_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner images commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__info_commands] )) ||
_cf-runner__subcmd__info_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner info commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__init_commands] )) ||
_cf-runner__subcmd__init_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner init commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__renew_commands] )) ||
_cf-runner__subcmd__renew_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner renew commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__runtime_commands] )) ||
_cf-runner__subcmd__runtime_commands() {
    local commands; commands=(
'attach:Let an installed agent serve the runtime in another namespace or cluster' \
'detach:Stop the agent serving a runtime, and remove its credentials there' \
'rotate:Give the agent a new token for an attached runtime; the old one stops working' \
'delete:Delete one attached runtime\: detach it, remove its objects, and its runtime environment on the platform' \
'upgrade:Re-apply one attached runtime'\''s objects from the agent'\''s values (images, dind config)' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'cf-runner runtime commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__runtime__subcmd__attach_commands] )) ||
_cf-runner__subcmd__runtime__subcmd__attach_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner runtime attach commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__runtime__subcmd__delete_commands] )) ||
_cf-runner__subcmd__runtime__subcmd__delete_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner runtime delete commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__runtime__subcmd__detach_commands] )) ||
_cf-runner__subcmd__runtime__subcmd__detach_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner runtime detach commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__runtime__subcmd__help_commands] )) ||
_cf-runner__subcmd__runtime__subcmd__help_commands() {
    local commands; commands=(
'attach:Let an installed agent serve the runtime in another namespace or cluster' \
'detach:Stop the agent serving a runtime, and remove its credentials there' \
'rotate:Give the agent a new token for an attached runtime; the old one stops working' \
'delete:Delete one attached runtime\: detach it, remove its objects, and its runtime environment on the platform' \
'upgrade:Re-apply one attached runtime'\''s objects from the agent'\''s values (images, dind config)' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'cf-runner runtime help commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__runtime__subcmd__help__subcmd__attach_commands] )) ||
_cf-runner__subcmd__runtime__subcmd__help__subcmd__attach_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner runtime help attach commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__runtime__subcmd__help__subcmd__delete_commands] )) ||
_cf-runner__subcmd__runtime__subcmd__help__subcmd__delete_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner runtime help delete commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__runtime__subcmd__help__subcmd__detach_commands] )) ||
_cf-runner__subcmd__runtime__subcmd__help__subcmd__detach_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner runtime help detach commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__runtime__subcmd__help__subcmd__help_commands] )) ||
_cf-runner__subcmd__runtime__subcmd__help__subcmd__help_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner runtime help help commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__runtime__subcmd__help__subcmd__rotate_commands] )) ||
_cf-runner__subcmd__runtime__subcmd__help__subcmd__rotate_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner runtime help rotate commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__runtime__subcmd__help__subcmd__upgrade_commands] )) ||
_cf-runner__subcmd__runtime__subcmd__help__subcmd__upgrade_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner runtime help upgrade commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__runtime__subcmd__rotate_commands] )) ||
_cf-runner__subcmd__runtime__subcmd__rotate_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner runtime rotate commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__runtime__subcmd__upgrade_commands] )) ||
_cf-runner__subcmd__runtime__subcmd__upgrade_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner runtime upgrade commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__schema_commands] )) ||
_cf-runner__subcmd__schema_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner schema commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__support-bundle_commands] )) ||
_cf-runner__subcmd__support-bundle_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner support-bundle commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__test-pipeline_commands] )) ||
_cf-runner__subcmd__test-pipeline_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner test-pipeline commands' commands "$@"
}
(( $+functions[_cf-runner__subcmd__upgrade_commands] )) ||
_cf-runner__subcmd__upgrade_commands() {
    local commands; commands=()
    _describe -t commands 'cf-runner upgrade commands' commands "$@"
}

if [ "$funcstack[1]" = "_cf-runner" ]; then
    _cf-runner "$@"
else
    compdef _cf-runner cf-runner
fi
