#!/usr/bin/env bash
# Builds (or reuses) the Codefresh Runner agent, venona 2.0.10, from the
# reference source (../shared/reference/venona-2.0.10 next to the repository,
# or $CF_RUNNER_VENONA_SRC), for the e2e tests that run the real agent on what
# cf-runner installed (tests/support/venona.rs).
#
# The binary lands outside the repository, in
#   ${CF_RUNNER_VENONA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cf-runner-venona}/<key>/bin/venona
# where <key> hashes every file of the source, this script and the Go
# toolchain version, so it is rebuilt only when one of those changes.
# Dependencies come from the Go module proxy (GOPROXY) into the module cache.
#
# Progress goes to stderr; the last line of stdout is the binary's path.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
src="${CF_RUNNER_VENONA_SRC:-$repo/../shared/reference/venona-2.0.10}"

export GOTOOLCHAIN=local
command -v go >/dev/null 2>&1 || {
	echo "build.sh: 'go' is not on PATH; install Go >= 1.26 to build the agent" >&2
	exit 1
}
[ -f "$src/go.mod" ] || {
	echo "build.sh: no venona source at $src (go.mod missing); set CF_RUNNER_VENONA_SRC to the venona-2.0.10 folder" >&2
	exit 1
}
src="$(cd "$src" && pwd)"

go_version="$(go env GOVERSION)"
key="$(
	{
		(cd "$src" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
		sha256sum <"$here/build.sh"
		echo "$go_version $(go env GOOS)/$(go env GOARCH)"
	} | sha256sum | cut -c1-16
)"
cache_root="${CF_RUNNER_VENONA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cf-runner-venona}"
out="$cache_root/$key"
bin="$out/bin"

if [ -x "$bin/venona" ] && [ -f "$out/.complete" ]; then
	touch "$out" 2>/dev/null || true
	echo "build.sh: reusing $bin/venona" >&2
	echo "$bin/venona"
	exit 0
fi

mkdir -p "$bin"
exec 9>"$out/.lock"
flock 9
if [ -x "$bin/venona" ] && [ -f "$out/.complete" ]; then
	echo "build.sh: reusing $bin/venona (built concurrently)" >&2
	echo "$bin/venona"
	exit 0
fi

version="$(tr -d '[:space:]' <"$src/VERSION" 2>/dev/null || echo unknown)"
ldflags="-s -w -X github.com/codefresh-io/go/venona/cmd.version=$version"
echo "build.sh: building venona $version from $src with $go_version into $bin" >&2
start=$SECONDS
# -C: build in the (read-only) source folder; -mod=readonly: go.mod/go.sum are
# taken as they are, never rewritten.
go build -C "$src" -mod=readonly -trimpath -ldflags="$ldflags" -o "$bin/venona.tmp" . >&2
mv -f "$bin/venona.tmp" "$bin/venona"
touch "$out/.complete"
echo "build.sh: venona built in $((SECONDS - start))s" >&2
find "$cache_root" -mindepth 1 -maxdepth 1 -type d ! -name "$key" \
	! -newermt '-7 days' -exec rm -rf {} + 2>/dev/null || true
echo "$bin/venona"
