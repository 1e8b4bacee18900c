#!/usr/bin/env bash
# Fetches (or reuses) Argo CD's CRDs (Application, ApplicationSet,
# AppProject), for the fleet end-to-end test's server-side dry-run of the
# Argo CD flavour. Argo CD itself is not built: the test validates the
# exported objects against these schemas only.
#
# They come from the Go module github.com/argoproj/argo-cd/v3 (its zip
# holds manifests/crds/); the module declares a newer Go than this
# toolchain, so `go mod download` fetches the zip but will not extract it:
# the CRDs are read from the zip directly.
#
# Cached outside the repository, in
#   ${CF_RUNNER_ARGOCD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cf-runner-argocd}/<key>/crds/
# Progress goes to stderr; the last line of stdout is the crds folder.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
export GOTOOLCHAIN=local
command -v go >/dev/null 2>&1 || {
	echo "build.sh: 'go' is not on PATH; it fetches Argo CD's module" >&2
	exit 1
}
command -v unzip >/dev/null 2>&1 || {
	echo "build.sh: 'unzip' is not on PATH (apt-get install unzip)" >&2
	exit 1
}

version=v3.6.1
module=github.com/argoproj/argo-cd/v3
key="$(cat build.sh | sha256sum | cut -c1-16)"
cache_root="${CF_RUNNER_ARGOCD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cf-runner-argocd}"
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
	# Exits non-zero (the Go version), after the zip is in the module cache.
	zip="$(cd "$tmp" && go mod download -json "$module@$version" 2>/dev/null |
		sed -n 's/^[[:space:]]*"Zip": "\(.*\)",$/\1/p')" || true
	[ -n "$zip" ] && [ -f "$zip" ] || {
		echo "build.sh: the module proxy gave no zip for $module@$version" >&2
		exit 1
	}
	rm -rf "$crds"
	mkdir -p "$crds"
	for name in application-crd applicationset-crd appproject-crd; do
		unzip -p "$zip" "$module@$version/manifests/crds/$name.yaml" >"$crds/$name.yaml"
	done
	touch "$out/.complete"
fi
echo "$crds"
