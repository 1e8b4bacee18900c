#!/usr/bin/env bash
# Builds (or reuses) the helm binary pinned in go.mod, for the tests that
# render the reference cf-runtime chart (../shared/reference/charts/).
#
# The binary lands outside the repository, in
#   ${CF_RUNNER_HELM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cf-runner-helm}/<key>/bin/helm
# where <key> hashes go.mod, go.sum, this script and the Go toolchain version,
# so it is rebuilt only when one of those changes. A cold build takes about
# 15 minutes on a 2-core machine.
#
# Progress goes to stderr; the last line of stdout is the bin directory.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

export GOTOOLCHAIN=local
command -v go >/dev/null 2>&1 || {
	echo "build.sh: 'go' is not on PATH; install Go >= 1.26 to build helm" >&2
	exit 1
}

go_version="$(go env GOVERSION)"
key="$(
	{
		cat go.mod go.sum build.sh
		echo "$go_version $(go env GOOS)/$(go env GOARCH)"
	} | sha256sum | cut -c1-16
)"
cache_root="${CF_RUNNER_HELM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cf-runner-helm}"
out="$cache_root/$key"
bin="$out/bin"

if [ -x "$bin/helm" ] && [ -f "$out/.complete" ]; then
	touch "$out" 2>/dev/null || true
	echo "build.sh: reusing $bin" >&2
	echo "$bin"
	exit 0
fi

mkdir -p "$bin"
exec 9>"$out/.lock"
flock 9
if [ -x "$bin/helm" ] && [ -f "$out/.complete" ]; then
	echo "build.sh: reusing $bin (built concurrently)" >&2
	echo "$bin"
	exit 0
fi

version="$(go list -m -f '{{.Version}}' helm.sh/helm/v4)"
ldflags="-s -w -X helm.sh/helm/v4/internal/version.version=$version"
echo "build.sh: building helm $version with $go_version into $bin" >&2
start=$SECONDS
go build -trimpath -ldflags="$ldflags" -o "$bin/helm.tmp" helm.sh/helm/v4/cmd/helm >&2
mv -f "$bin/helm.tmp" "$bin/helm"
touch "$out/.complete"
echo "build.sh: helm built in $((SECONDS - start))s" >&2
find "$cache_root" -mindepth 1 -maxdepth 1 -type d ! -name "$key" \
	! -newermt '-7 days' -exec rm -rf {} + 2>/dev/null || true
echo "$bin"
