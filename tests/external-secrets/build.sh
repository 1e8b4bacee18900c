#!/usr/bin/env bash
# Fetches (or reuses) the CRD of external-secrets.io's ExternalSecret, for
# the fleet end-to-end test's server-side dry-run of the ExternalSecret
# flavour. The External Secrets Operator itself is not built or run: the
# test validates the exported objects against this schema only.
#
# It comes from the Go module github.com/external-secrets/external-secrets
# (its zip holds config/crds/bases/); it is read from the zip, the way
# tests/argocd/build.sh reads Argo CD's. v0.16.2 serves v1beta1 (the
# version the fleet writes) beside v1.
#
# Cached outside the repository, in
#   ${CF_RUNNER_ESO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cf-runner-external-secrets}/<key>/crds/
# Progress goes to stderr; the last line of stdout is the crds folder.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
export GOTOOLCHAIN=local
command -v go >/dev/null 2>&1 || {
	echo "build.sh: 'go' is not on PATH; it fetches the external-secrets module" >&2
	exit 1
}
command -v unzip >/dev/null 2>&1 || {
	echo "build.sh: 'unzip' is not on PATH (apt-get install unzip)" >&2
	exit 1
}

version=v0.16.2
module=github.com/external-secrets/external-secrets
key="$(cat build.sh | sha256sum | cut -c1-16)"
cache_root="${CF_RUNNER_ESO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cf-runner-external-secrets}"
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
	zip="$(cd "$tmp" && go mod download -json "$module@$version" 2>/dev/null |
		sed -n 's/^[[:space:]]*"Zip": "\(.*\)",$/\1/p')" || true
	[ -n "$zip" ] && [ -f "$zip" ] || {
		echo "build.sh: the module proxy gave no zip for $module@$version" >&2
		exit 1
	}
	rm -rf "$crds"
	mkdir -p "$crds"
	unzip -p "$zip" "$module@$version/config/crds/bases/external-secrets.io_externalsecrets.yaml" \
		>"$crds/external-secrets.io_externalsecrets.yaml"
	grep -q "name: v1beta1" "$crds/external-secrets.io_externalsecrets.yaml" || {
		echo "build.sh: $module@$version's ExternalSecret CRD does not serve v1beta1" >&2
		exit 1
	}
	touch "$out/.complete"
fi
echo "$crds"
