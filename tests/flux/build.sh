#!/usr/bin/env bash
# Builds (or reuses) Flux's source-controller and kustomize-controller, for
# the fleet end-to-end test (tests/e2e/e2e_fleet.rs), from their Go modules.
#
# v1.9.6 of both: v1.10.x needs a newer Go and fluxcd/pkg versions the
# module proxy does not serve. `go install module@version` refuses modules
# with replace directives, so each controller is built as the main module
# from a writable copy of its module folder, with the replace that points at
# its nested (absent) API module dropped; source-controller also needs
# fluxcd/pkg/artifact pinned to a served version.
#
# Everything lands outside the repository, in
#   ${CF_RUNNER_FLUX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cf-runner-flux}/<key>/bin/
# holding source-controller, kustomize-controller and crds/ (the CRDs from
# the same modules' config/crd/bases). <key> hashes this script and the Go
# toolchain version. A cold build takes about 5 minutes on a 2-core machine.
#
# Progress goes to stderr; the last line of stdout is the bin directory.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

export GOTOOLCHAIN=local
command -v go >/dev/null 2>&1 || {
	echo "build.sh: 'go' is not on PATH; install Go >= 1.26 to build Flux's controllers" >&2
	exit 1
}

source_version=v1.9.6
kustomize_version=v1.9.6
artifact_pin=v0.18.0

go_version="$(go env GOVERSION)"
key="$(
	{
		cat build.sh
		echo "$go_version $(go env GOOS)/$(go env GOARCH)"
	} | sha256sum | cut -c1-16
)"
cache_root="${CF_RUNNER_FLUX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cf-runner-flux}"
out="$cache_root/$key"
bin="$out/bin"

complete() {
	[ -x "$bin/source-controller" ] && [ -x "$bin/kustomize-controller" ] &&
		[ -d "$bin/crds" ] && [ -f "$out/.complete" ]
}

if complete; then
	touch "$out" 2>/dev/null || true
	echo "build.sh: reusing $bin" >&2
	echo "$bin"
	exit 0
fi

mkdir -p "$bin"
exec 9>"$out/.lock"
flock 9
if complete; then
	echo "build.sh: reusing $bin (built concurrently)" >&2
	echo "$bin"
	exit 0
fi

work="$out/src"
rm -rf "$work" "$bin/crds"
mkdir -p "$work" "$bin/crds"

# build <name> <version> [go mod edit args...]
build() {
	local name="$1" version="$2"
	shift 2
	local module="github.com/fluxcd/$name"
	local start=$SECONDS
	echo "build.sh: fetching $module@$version" >&2
	local dir
	dir="$(cd "$work" && go mod download -json "$module@$version" |
		sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
	[ -n "$dir" ] || {
		echo "build.sh: go mod download gave no folder for $module@$version" >&2
		exit 1
	}
	cp -R "$dir" "$work/$name"
	chmod -R u+w "$work/$name"
	(
		cd "$work/$name"
		go mod edit -dropreplace "$module/api"
		for edit in "$@"; do go mod edit "$edit"; done
		echo "build.sh: building $name $version with $go_version" >&2
		GOFLAGS=-mod=mod go build -trimpath -ldflags="-s -w" -o "$bin/$name.tmp" . >&2
	)
	mv -f "$bin/$name.tmp" "$bin/$name"
	cp "$work/$name"/config/crd/bases/*.yaml "$bin/crds/"
	echo "build.sh: $name built in $((SECONDS - start))s" >&2
}

build source-controller "$source_version" \
	"-replace=github.com/fluxcd/pkg/artifact=github.com/fluxcd/pkg/artifact@$artifact_pin"
build kustomize-controller "$kustomize_version"
rm -rf "$work"
touch "$out/.complete"
find "$cache_root" -mindepth 1 -maxdepth 1 -type d ! -name "$key" \
	! -newermt '-7 days' -exec rm -rf {} + 2>/dev/null || true
echo "$bin"
