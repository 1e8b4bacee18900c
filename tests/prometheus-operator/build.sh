#!/usr/bin/env bash
# Fetches (or reuses) the prometheus-operator's ServiceMonitor and
# PodMonitor CRDs, for the metrics end-to-end test's strict server-side
# dry-run of the monitors cf-runner renders. The operator itself is not
# built: the test holds the objects against these schemas only.
#
# They come from the Go module github.com/prometheus-operator/prometheus-operator
# (its zip holds example/prometheus-operator-crd/); they are read from the
# zip the module proxy serves, as tests/argocd/build.sh reads its CRDs.
#
# Cached outside the repository, in
#   ${CF_RUNNER_PROMETHEUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cf-runner-prometheus-operator}/<key>/crds/
# Progress goes to stderr; the last line of stdout is the crds folder.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
export GOTOOLCHAIN=local
command -v go >/dev/null 2>&1 || {
	echo "build.sh: 'go' is not on PATH; it fetches the prometheus-operator's module" >&2
	exit 1
}
command -v unzip >/dev/null 2>&1 || {
	echo "build.sh: 'unzip' is not on PATH (apt-get install unzip)" >&2
	exit 1
}

version=v0.85.0
module=github.com/prometheus-operator/prometheus-operator
key="$(cat build.sh | sha256sum | cut -c1-16)"
cache_root="${CF_RUNNER_PROMETHEUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cf-runner-prometheus-operator}"
out="$cache_root/$key"
crds="$out/crds"

if [ -f "$out/.complete" ]; then
	echo "build.sh: reusing $crds" >&2
	echo "$crds"
	exit 0
fi
mkdir -p "$out"
exec 9>"$out/.lock"
flock 9
if [ ! -f "$out/.complete" ]; then
	tmp="$(mktemp -d)"
	trap 'rm -rf "$tmp"' EXIT
	echo "build.sh: fetching $module@$version" >&2
	zip="$(cd "$tmp" && GOFLAGS= go mod download -json "$module@$version" 2>/dev/null |
		sed -n 's/^[[:space:]]*"Zip": "\(.*\)",$/\1/p')" || true
	[ -n "$zip" ] && [ -f "$zip" ] || {
		echo "build.sh: the module proxy gave no zip for $module@$version" >&2
		exit 1
	}
	rm -rf "$crds"
	mkdir -p "$crds"
	for name in servicemonitors podmonitors; do
		unzip -p "$zip" "$module@$version/example/prometheus-operator-crd/monitoring.coreos.com_$name.yaml" \
			>"$crds/monitoring.coreos.com_$name.yaml"
	done
	touch "$out/.complete"
fi
echo "$crds"
