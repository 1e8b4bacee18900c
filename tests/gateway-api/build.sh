#!/usr/bin/env bash
# Fetches (or reuses) the Gateway API's standard-channel CRDs (Gateway,
# GatewayClass, HTTPRoute, GRPCRoute, ReferenceGrant, ...), for the
# gateway end-to-end test: the control plane learns the kinds, and a strict
# server-side dry run checks the HTTPRoute cf-runner renders against the
# real schema. No Gateway controller is built: nothing routes traffic.
#
# They come from the Go module sigs.k8s.io/gateway-api (its zip holds
# config/crd/standard/). v1.6.3 is pinned: later versions declare a newer
# Go than this toolchain. The CRDs are read from the zip directly, as
# tests/argocd/build.sh does, so nothing is extracted or compiled.
#
# Cached outside the repository, in
#   ${CF_RUNNER_GATEWAY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cf-runner-gateway-api}/<key>/crds/
# Progress goes to stderr; the last line of stdout is the crds folder.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
export GOTOOLCHAIN=local
command -v go >/dev/null 2>&1 || {
	echo "build.sh: 'go' is not on PATH; it fetches the Gateway API module" >&2
	exit 1
}
command -v unzip >/dev/null 2>&1 || {
	echo "build.sh: 'unzip' is not on PATH (apt-get install unzip)" >&2
	exit 1
}

version=v1.6.3
module=sigs.k8s.io/gateway-api
key="$(cat build.sh | sha256sum | cut -c1-16)"
cache_root="${CF_RUNNER_GATEWAY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cf-runner-gateway-api}"
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
	# `go mod download` may exit non-zero after the zip is cached (a newer
	# go directive); the zip's path is all this needs.
	zip="$(cd "$tmp" && go mod download -json "$module@$version" 2>/dev/null |
		sed -n 's/^[[:space:]]*"Zip": "\(.*\)",$/\1/p')" || true
	[ -n "$zip" ] && [ -f "$zip" ] || {
		echo "build.sh: the module proxy gave no zip for $module@$version" >&2
		exit 1
	}
	rm -rf "$crds"
	mkdir -p "$crds"
	prefix="$module@$version/config/crd/standard/"
	names="$(unzip -Z1 "$zip" "${prefix}*.yaml")"
	[ -n "$names" ] || {
		echo "build.sh: $module@$version holds no ${prefix}*.yaml" >&2
		exit 1
	}
	for name in $names; do
		unzip -p "$zip" "$name" >"$crds/$(basename "$name")"
	done
	touch "$out/.complete"
fi
echo "$crds"
