_cf__runner() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="cf__runner"
                ;;
            cf__runner,adopt)
                cmd="cf__runner__subcmd__adopt"
                ;;
            cf__runner,check)
                cmd="cf__runner__subcmd__check"
                ;;
            cf__runner,completions)
                cmd="cf__runner__subcmd__completions"
                ;;
            cf__runner,delete)
                cmd="cf__runner__subcmd__delete"
                ;;
            cf__runner,diagnose)
                cmd="cf__runner__subcmd__diagnose"
                ;;
            cf__runner,diff)
                cmd="cf__runner__subcmd__diff"
                ;;
            cf__runner,fleet)
                cmd="cf__runner__subcmd__fleet"
                ;;
            cf__runner,help)
                cmd="cf__runner__subcmd__help"
                ;;
            cf__runner,images)
                cmd="cf__runner__subcmd__images"
                ;;
            cf__runner,info)
                cmd="cf__runner__subcmd__info"
                ;;
            cf__runner,init)
                cmd="cf__runner__subcmd__init"
                ;;
            cf__runner,renew)
                cmd="cf__runner__subcmd__renew"
                ;;
            cf__runner,runtime)
                cmd="cf__runner__subcmd__runtime"
                ;;
            cf__runner,schema)
                cmd="cf__runner__subcmd__schema"
                ;;
            cf__runner,support-bundle)
                cmd="cf__runner__subcmd__support__subcmd__bundle"
                ;;
            cf__runner,test-pipeline)
                cmd="cf__runner__subcmd__test__subcmd__pipeline"
                ;;
            cf__runner,upgrade)
                cmd="cf__runner__subcmd__upgrade"
                ;;
            cf__runner__subcmd__fleet,export)
                cmd="cf__runner__subcmd__fleet__subcmd__export"
                ;;
            cf__runner__subcmd__fleet,help)
                cmd="cf__runner__subcmd__fleet__subcmd__help"
                ;;
            cf__runner__subcmd__fleet,register)
                cmd="cf__runner__subcmd__fleet__subcmd__register"
                ;;
            cf__runner__subcmd__fleet,retire)
                cmd="cf__runner__subcmd__fleet__subcmd__retire"
                ;;
            cf__runner__subcmd__fleet__subcmd__help,export)
                cmd="cf__runner__subcmd__fleet__subcmd__help__subcmd__export"
                ;;
            cf__runner__subcmd__fleet__subcmd__help,help)
                cmd="cf__runner__subcmd__fleet__subcmd__help__subcmd__help"
                ;;
            cf__runner__subcmd__fleet__subcmd__help,register)
                cmd="cf__runner__subcmd__fleet__subcmd__help__subcmd__register"
                ;;
            cf__runner__subcmd__fleet__subcmd__help,retire)
                cmd="cf__runner__subcmd__fleet__subcmd__help__subcmd__retire"
                ;;
            cf__runner__subcmd__help,adopt)
                cmd="cf__runner__subcmd__help__subcmd__adopt"
                ;;
            cf__runner__subcmd__help,check)
                cmd="cf__runner__subcmd__help__subcmd__check"
                ;;
            cf__runner__subcmd__help,completions)
                cmd="cf__runner__subcmd__help__subcmd__completions"
                ;;
            cf__runner__subcmd__help,delete)
                cmd="cf__runner__subcmd__help__subcmd__delete"
                ;;
            cf__runner__subcmd__help,diagnose)
                cmd="cf__runner__subcmd__help__subcmd__diagnose"
                ;;
            cf__runner__subcmd__help,diff)
                cmd="cf__runner__subcmd__help__subcmd__diff"
                ;;
            cf__runner__subcmd__help,fleet)
                cmd="cf__runner__subcmd__help__subcmd__fleet"
                ;;
            cf__runner__subcmd__help,help)
                cmd="cf__runner__subcmd__help__subcmd__help"
                ;;
            cf__runner__subcmd__help,images)
                cmd="cf__runner__subcmd__help__subcmd__images"
                ;;
            cf__runner__subcmd__help,info)
                cmd="cf__runner__subcmd__help__subcmd__info"
                ;;
            cf__runner__subcmd__help,init)
                cmd="cf__runner__subcmd__help__subcmd__init"
                ;;
            cf__runner__subcmd__help,renew)
                cmd="cf__runner__subcmd__help__subcmd__renew"
                ;;
            cf__runner__subcmd__help,runtime)
                cmd="cf__runner__subcmd__help__subcmd__runtime"
                ;;
            cf__runner__subcmd__help,schema)
                cmd="cf__runner__subcmd__help__subcmd__schema"
                ;;
            cf__runner__subcmd__help,support-bundle)
                cmd="cf__runner__subcmd__help__subcmd__support__subcmd__bundle"
                ;;
            cf__runner__subcmd__help,test-pipeline)
                cmd="cf__runner__subcmd__help__subcmd__test__subcmd__pipeline"
                ;;
            cf__runner__subcmd__help,upgrade)
                cmd="cf__runner__subcmd__help__subcmd__upgrade"
                ;;
            cf__runner__subcmd__help__subcmd__fleet,export)
                cmd="cf__runner__subcmd__help__subcmd__fleet__subcmd__export"
                ;;
            cf__runner__subcmd__help__subcmd__fleet,register)
                cmd="cf__runner__subcmd__help__subcmd__fleet__subcmd__register"
                ;;
            cf__runner__subcmd__help__subcmd__fleet,retire)
                cmd="cf__runner__subcmd__help__subcmd__fleet__subcmd__retire"
                ;;
            cf__runner__subcmd__help__subcmd__runtime,attach)
                cmd="cf__runner__subcmd__help__subcmd__runtime__subcmd__attach"
                ;;
            cf__runner__subcmd__help__subcmd__runtime,delete)
                cmd="cf__runner__subcmd__help__subcmd__runtime__subcmd__delete"
                ;;
            cf__runner__subcmd__help__subcmd__runtime,detach)
                cmd="cf__runner__subcmd__help__subcmd__runtime__subcmd__detach"
                ;;
            cf__runner__subcmd__help__subcmd__runtime,rotate)
                cmd="cf__runner__subcmd__help__subcmd__runtime__subcmd__rotate"
                ;;
            cf__runner__subcmd__help__subcmd__runtime,upgrade)
                cmd="cf__runner__subcmd__help__subcmd__runtime__subcmd__upgrade"
                ;;
            cf__runner__subcmd__runtime,attach)
                cmd="cf__runner__subcmd__runtime__subcmd__attach"
                ;;
            cf__runner__subcmd__runtime,delete)
                cmd="cf__runner__subcmd__runtime__subcmd__delete"
                ;;
            cf__runner__subcmd__runtime,detach)
                cmd="cf__runner__subcmd__runtime__subcmd__detach"
                ;;
            cf__runner__subcmd__runtime,help)
                cmd="cf__runner__subcmd__runtime__subcmd__help"
                ;;
            cf__runner__subcmd__runtime,rotate)
                cmd="cf__runner__subcmd__runtime__subcmd__rotate"
                ;;
            cf__runner__subcmd__runtime,upgrade)
                cmd="cf__runner__subcmd__runtime__subcmd__upgrade"
                ;;
            cf__runner__subcmd__runtime__subcmd__help,attach)
                cmd="cf__runner__subcmd__runtime__subcmd__help__subcmd__attach"
                ;;
            cf__runner__subcmd__runtime__subcmd__help,delete)
                cmd="cf__runner__subcmd__runtime__subcmd__help__subcmd__delete"
                ;;
            cf__runner__subcmd__runtime__subcmd__help,detach)
                cmd="cf__runner__subcmd__runtime__subcmd__help__subcmd__detach"
                ;;
            cf__runner__subcmd__runtime__subcmd__help,help)
                cmd="cf__runner__subcmd__runtime__subcmd__help__subcmd__help"
                ;;
            cf__runner__subcmd__runtime__subcmd__help,rotate)
                cmd="cf__runner__subcmd__runtime__subcmd__help__subcmd__rotate"
                ;;
            cf__runner__subcmd__runtime__subcmd__help,upgrade)
                cmd="cf__runner__subcmd__runtime__subcmd__help__subcmd__upgrade"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        cf__runner)
            opts="-h -V --help --version init info delete upgrade check test-pipeline adopt completions diff schema images fleet support-bundle runtime renew diagnose help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__adopt)
            opts="-y -h -V --kube-context-name --kube-namespace --kube-config-path --token --url --insecure --allow-http --dry-run --yes --timeout --no-wait-for-lock --values-file --overwrite --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kube-context-name)
                    local context
                    COMPREPLY=()
                    while IFS= read -r context; do
                        if [[ "${context}" == "${cur}"* ]]; then
                            COMPREPLY+=("$(printf '%q' "${context}")")
                        fi
                    done < <(kubectl config get-contexts -o name 2>/dev/null)
                    return 0
                    ;;
                --kube-namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-config-path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --values-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__check)
            opts="-f -o -h -V --kube-context-name --kube-namespace --kube-config-path --values --set-value --output --probe --probe-timeout --trust-values-kubeconfig --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kube-context-name)
                    local context
                    COMPREPLY=()
                    while IFS= read -r context; do
                        if [[ "${context}" == "${cur}"* ]]; then
                            COMPREPLY+=("$(printf '%q' "${context}")")
                        fi
                    done < <(kubectl config get-contexts -o name 2>/dev/null)
                    return 0
                    ;;
                --kube-namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-config-path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --values)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set-value)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json yaml" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json yaml" -- "${cur}"))
                    return 0
                    ;;
                --probe-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__completions)
            opts="-h -V --help --version bash zsh fish powershell"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__delete)
            opts="-y -h -V --kube-context-name --kube-config-path --token --url --insecure --allow-http --yes --delete-namespace --delete-namespace-with-contents --purge-volumes --keep-platform --all-runtimes --ignore-agent --delete-adopted --timeout --no-wait-for-lock --kube-namespace --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kube-context-name)
                    local context
                    COMPREPLY=()
                    while IFS= read -r context; do
                        if [[ "${context}" == "${cur}"* ]]; then
                            COMPREPLY+=("$(printf '%q' "${context}")")
                        fi
                    done < <(kubectl config get-contexts -o name 2>/dev/null)
                    return 0
                    ;;
                --kube-config-path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__diagnose)
            opts="-o -h -V --kube-context-name --kube-config-path --token --url --insecure --allow-http --since --output --kube-namespace --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kube-context-name)
                    local context
                    COMPREPLY=()
                    while IFS= read -r context; do
                        if [[ "${context}" == "${cur}"* ]]; then
                            COMPREPLY+=("$(printf '%q' "${context}")")
                        fi
                    done < <(kubectl config get-contexts -o name 2>/dev/null)
                    return 0
                    ;;
                --kube-config-path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --since)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "text json yaml" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "text json yaml" -- "${cur}"))
                    return 0
                    ;;
                --kube-namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__diff)
            opts="-f -o -h -V --kube-context-name --kube-namespace --kube-config-path --kube-node-selector --build-node-selector --docker-registry --image-pull-secret --env-vars --http-proxy --https-proxy --no-proxy --ca-bundle --install-monitor --app-proxy --app-proxy-host --app-proxy-ingress-class --docker-daemon-access --values --set-value --set-file --token --url --agent-token --output --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kube-context-name)
                    local context
                    COMPREPLY=()
                    while IFS= read -r context; do
                        if [[ "${context}" == "${cur}"* ]]; then
                            COMPREPLY+=("$(printf '%q' "${context}")")
                        fi
                    done < <(kubectl config get-contexts -o name 2>/dev/null)
                    return 0
                    ;;
                --kube-namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-config-path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-node-selector)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --build-node-selector)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --docker-registry)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --image-pull-secret)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --env-vars)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --http-proxy)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --https-proxy)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --no-proxy)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ca-bundle)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --install-monitor)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --app-proxy)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --app-proxy-host)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --app-proxy-ingress-class)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --docker-daemon-access)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --values)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set-value)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json yaml" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json yaml" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__fleet)
            opts="-h -V --help --version register export retire help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__fleet__subcmd__export)
            opts="-h -V --fleet --output-dir --overwrite --registration-key-file --accept-unsigned-registrations --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --fleet)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --registration-key-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__fleet__subcmd__help)
            opts="register export retire help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__fleet__subcmd__help__subcmd__export)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__fleet__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__fleet__subcmd__help__subcmd__register)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__fleet__subcmd__help__subcmd__retire)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__fleet__subcmd__register)
            opts="-h -V --fleet --output-dir --token --url --insecure --allow-http --age-key-file --store-material-dir --registration-key-file --accept-unsigned-registrations --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --fleet)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --age-key-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --store-material-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --registration-key-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__fleet__subcmd__retire)
            opts="-h -V --fleet --output-dir --token --url --insecure --allow-http --age-key-file --store-material-dir --registration-key-file --accept-unsigned-registrations --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --fleet)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --age-key-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --store-material-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --registration-key-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__help)
            opts="init info delete upgrade check test-pipeline adopt completions diff schema images fleet support-bundle runtime renew diagnose help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__help__subcmd__adopt)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__help__subcmd__check)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__help__subcmd__completions)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__help__subcmd__delete)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__help__subcmd__diagnose)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__help__subcmd__diff)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__help__subcmd__fleet)
            opts="register export retire"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__help__subcmd__fleet__subcmd__export)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__help__subcmd__fleet__subcmd__register)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__help__subcmd__fleet__subcmd__retire)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__help__subcmd__images)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__help__subcmd__info)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__help__subcmd__init)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__help__subcmd__renew)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__help__subcmd__runtime)
            opts="attach detach rotate delete upgrade"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__help__subcmd__runtime__subcmd__attach)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__help__subcmd__runtime__subcmd__delete)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__help__subcmd__runtime__subcmd__detach)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__help__subcmd__runtime__subcmd__rotate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__help__subcmd__runtime__subcmd__upgrade)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__help__subcmd__schema)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__help__subcmd__support__subcmd__bundle)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__help__subcmd__test__subcmd__pipeline)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__help__subcmd__upgrade)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__images)
            opts="-f -o -h -V --kube-node-selector --build-node-selector --docker-registry --image-pull-secret --env-vars --http-proxy --https-proxy --no-proxy --ca-bundle --install-monitor --app-proxy --app-proxy-host --app-proxy-ingress-class --docker-daemon-access --values --set-value --set-file --check --docker-config --output --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kube-node-selector)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --build-node-selector)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --docker-registry)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --image-pull-secret)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --env-vars)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --http-proxy)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --https-proxy)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --no-proxy)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ca-bundle)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --install-monitor)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --app-proxy)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --app-proxy-host)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --app-proxy-ingress-class)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --docker-daemon-access)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --values)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set-value)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --docker-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json yaml" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json yaml" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__info)
            opts="-o -h -V --kube-context-name --kube-config-path --token --url --insecure --allow-http --output --wait --timeout --kube-namespace --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kube-context-name)
                    local context
                    COMPREPLY=()
                    while IFS= read -r context; do
                        if [[ "${context}" == "${cur}"* ]]; then
                            COMPREPLY+=("$(printf '%q' "${context}")")
                        fi
                    done < <(kubectl config get-contexts -o name 2>/dev/null)
                    return 0
                    ;;
                --kube-config-path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json yaml" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json yaml" -- "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__init)
            opts="-f -y -h -V --kube-context-name --kube-namespace --kube-config-path --kube-node-selector --build-node-selector --docker-registry --image-pull-secret --env-vars --http-proxy --https-proxy --no-proxy --ca-bundle --install-monitor --app-proxy --app-proxy-host --app-proxy-ingress-class --docker-daemon-access --values --set-value --set-file --name --token --agent-token --url --insecure --allow-http --tolerations --storage-class-name --set-default-runtime --exec-demo-pipeline --skip-cluster-test --skip-cluster-integration --agent-only --dry-run --output-dir --generate-helm-values-file --overwrite --force-conflicts --timeout --no-wait --no-wait-for-lock --probe --probe-timeout --yes --trust-values-kubeconfig --accept-agent-insecure-tls --allow-builds-to-read-tokens --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kube-context-name)
                    local context
                    COMPREPLY=()
                    while IFS= read -r context; do
                        if [[ "${context}" == "${cur}"* ]]; then
                            COMPREPLY+=("$(printf '%q' "${context}")")
                        fi
                    done < <(kubectl config get-contexts -o name 2>/dev/null)
                    return 0
                    ;;
                --kube-namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-config-path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-node-selector)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --build-node-selector)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --docker-registry)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --image-pull-secret)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --env-vars)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --http-proxy)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --https-proxy)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --no-proxy)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ca-bundle)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --install-monitor)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --app-proxy)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --app-proxy-host)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --app-proxy-ingress-class)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --docker-daemon-access)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --values)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set-value)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tolerations)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --storage-class-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set-default-runtime)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --exec-demo-pipeline)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --output-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --generate-helm-values-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --probe-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__renew)
            opts="-h -V --kube-context-name --kube-config-path --token --url --insecure --allow-http --timeout --no-wait-for-lock --kube-namespace --help --version certificate agent-token"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kube-context-name)
                    local context
                    COMPREPLY=()
                    while IFS= read -r context; do
                        if [[ "${context}" == "${cur}"* ]]; then
                            COMPREPLY+=("$(printf '%q' "${context}")")
                        fi
                    done < <(kubectl config get-contexts -o name 2>/dev/null)
                    return 0
                    ;;
                --kube-config-path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__runtime)
            opts="-h -V --help --version attach detach rotate delete upgrade help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__runtime__subcmd__attach)
            opts="-f -h -V --kube-config-path --agent-namespace --agent-context --token --url --insecure --allow-http --runtime-name --kube-host --values --set-value --timeout --trust-values-kubeconfig --accept-agent-insecure-tls --allow-builds-to-read-tokens --kube-namespace --kube-context-name --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kube-config-path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-host)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --values)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set-value)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-context-name)
                    local context
                    COMPREPLY=()
                    while IFS= read -r context; do
                        if [[ "${context}" == "${cur}"* ]]; then
                            COMPREPLY+=("$(printf '%q' "${context}")")
                        fi
                    done < <(kubectl config get-contexts -o name 2>/dev/null)
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__runtime__subcmd__delete)
            opts="-y -h -V --kube-config-path --agent-namespace --agent-context --token --url --insecure --allow-http --runtime-name --keep-platform --yes --timeout --kube-namespace --kube-context-name --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kube-config-path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-context-name)
                    local context
                    COMPREPLY=()
                    while IFS= read -r context; do
                        if [[ "${context}" == "${cur}"* ]]; then
                            COMPREPLY+=("$(printf '%q' "${context}")")
                        fi
                    done < <(kubectl config get-contexts -o name 2>/dev/null)
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__runtime__subcmd__detach)
            opts="-h -V --kube-config-path --agent-namespace --agent-context --token --url --insecure --allow-http --runtime-name --timeout --kube-namespace --kube-context-name --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kube-config-path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-context-name)
                    local context
                    COMPREPLY=()
                    while IFS= read -r context; do
                        if [[ "${context}" == "${cur}"* ]]; then
                            COMPREPLY+=("$(printf '%q' "${context}")")
                        fi
                    done < <(kubectl config get-contexts -o name 2>/dev/null)
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__runtime__subcmd__help)
            opts="attach detach rotate delete upgrade help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__runtime__subcmd__help__subcmd__attach)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__runtime__subcmd__help__subcmd__delete)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__runtime__subcmd__help__subcmd__detach)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__runtime__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__runtime__subcmd__help__subcmd__rotate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__runtime__subcmd__help__subcmd__upgrade)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__runtime__subcmd__rotate)
            opts="-h -V --kube-config-path --agent-namespace --agent-context --runtime-name --timeout --kube-namespace --kube-context-name --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kube-config-path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-context-name)
                    local context
                    COMPREPLY=()
                    while IFS= read -r context; do
                        if [[ "${context}" == "${cur}"* ]]; then
                            COMPREPLY+=("$(printf '%q' "${context}")")
                        fi
                    done < <(kubectl config get-contexts -o name 2>/dev/null)
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__runtime__subcmd__upgrade)
            opts="-h -V --kube-config-path --agent-namespace --agent-context --token --url --insecure --allow-http --runtime-name --set-value --timeout --kube-namespace --kube-context-name --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kube-config-path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set-value)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-context-name)
                    local context
                    COMPREPLY=()
                    while IFS= read -r context; do
                        if [[ "${context}" == "${cur}"* ]]; then
                            COMPREPLY+=("$(printf '%q' "${context}")")
                        fi
                    done < <(kubectl config get-contexts -o name 2>/dev/null)
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__schema)
            opts="-h -V --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__support__subcmd__bundle)
            opts="-o -h -V --kube-context-name --kube-config-path --token --url --insecure --allow-http --output --overwrite --since --max-log-bytes --max-size --kube-namespace --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kube-context-name)
                    local context
                    COMPREPLY=()
                    while IFS= read -r context; do
                        if [[ "${context}" == "${cur}"* ]]; then
                            COMPREPLY+=("$(printf '%q' "${context}")")
                        fi
                    done < <(kubectl config get-contexts -o name 2>/dev/null)
                    return 0
                    ;;
                --kube-config-path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --since)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-log-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__test__subcmd__pipeline)
            opts="-h -V --kube-context-name --kube-config-path --token --url --insecure --allow-http --runtime-name --kube-namespace --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kube-context-name)
                    local context
                    COMPREPLY=()
                    while IFS= read -r context; do
                        if [[ "${context}" == "${cur}"* ]]; then
                            COMPREPLY+=("$(printf '%q' "${context}")")
                        fi
                    done < <(kubectl config get-contexts -o name 2>/dev/null)
                    return 0
                    ;;
                --kube-config-path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        cf__runner__subcmd__upgrade)
            opts="-f -y -h -V --kube-context-name --kube-config-path --kube-node-selector --build-node-selector --docker-registry --image-pull-secret --env-vars --http-proxy --https-proxy --no-proxy --ca-bundle --install-monitor --app-proxy --app-proxy-host --app-proxy-ingress-class --docker-daemon-access --values --set-value --set-file --token --url --agent-token --allow-http --force-conflicts --timeout --no-wait --no-wait-for-lock --yes --kube-namespace --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --kube-context-name)
                    local context
                    COMPREPLY=()
                    while IFS= read -r context; do
                        if [[ "${context}" == "${cur}"* ]]; then
                            COMPREPLY+=("$(printf '%q' "${context}")")
                        fi
                    done < <(kubectl config get-contexts -o name 2>/dev/null)
                    return 0
                    ;;
                --kube-config-path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-node-selector)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --build-node-selector)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --docker-registry)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --image-pull-secret)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --env-vars)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --http-proxy)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --https-proxy)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --no-proxy)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ca-bundle)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --install-monitor)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --app-proxy)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --app-proxy-host)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --app-proxy-ingress-class)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --docker-daemon-access)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --values)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set-value)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent-token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _cf__runner -o nosort -o bashdefault -o default cf-runner
else
    complete -F _cf__runner -o bashdefault -o default cf-runner
fi
