# Sourced by the CRD fetchers (tests/argocd, tests/external-secrets,
# tests/prometheus-operator, tests/gateway-api build.sh): fetches a Go
# module's zip through the module proxy and copies some of its YAML files
# out of it, into a cache folder outside the repository. Only the schemas
# are wanted, never the project built: the tests hold cf-runner's objects
# against them in strict server-side dry runs.
#
#   fetch_crds NAME CACHE_VAR MODULE VERSION PATTERN...
#
# NAME names the cache folder (cf-runner-NAME under $XDG_CACHE_HOME or
# ~/.cache, or $CACHE_VAR when set); each PATTERN is a path inside the
# module (a shell glob, such as config/crd/standard/*.yaml), and must match
# at least one file. The folder's key is the hash of the calling build.sh
# and of this file, so a change to either fetches again. Progress goes to
# stderr; the last line of stdout is the folder of the copied files.

fetch_crds() {
	local name="$1" cache_var="$2" module="$3" version="$4"
	shift 4
	export GOTOOLCHAIN=local
	command -v go >/dev/null 2>&1 || {
		echo "build.sh: 'go' is not on PATH; it fetches $module" >&2
		exit 1
	}
	command -v unzip >/dev/null 2>&1 || {
		echo "build.sh: 'unzip' is not on PATH (apt-get install unzip)" >&2
		exit 1
	}
	local here key cache_root out crds
	here="$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)"
	key="$(cat "$here/build.sh" "${BASH_SOURCE[0]}" | sha256sum | cut -c1-16)"
	cache_root="${!cache_var:-${XDG_CACHE_HOME:-$HOME/.cache}/cf-runner-$name}"
	out="$cache_root/$key"
	crds="$out/crds"
	if [ -f "$out/.complete" ]; then
		echo "build.sh: reusing $crds" >&2
		echo "$crds"
		return 0
	fi
	mkdir -p "$out"
	exec 9>"$out/.lock"
	flock 9
	if [ ! -f "$out/.complete" ]; then
		local tmp zip pattern names file
		tmp="$(mktemp -d)"
		echo "build.sh: fetching $module@$version" >&2
		# `go mod download` may exit non-zero after the zip is cached (a
		# module that declares a newer Go than this toolchain): the zip's
		# path is all this needs.
		zip="$(cd "$tmp" && go mod download -json "$module@$version" 2>/dev/null |
			sed -n 's/^[[:space:]]*"Zip": "\(.*\)",$/\1/p')" || true
		rm -rf "$tmp"
		[ -n "$zip" ] && [ -f "$zip" ] || {
			echo "build.sh: the module proxy gave no zip for $module@$version" >&2
			exit 1
		}
		rm -rf "$crds"
		mkdir -p "$crds"
		for pattern in "$@"; do
			names="$(unzip -Z1 "$zip" "$module@$version/$pattern" 2>/dev/null || true)"
			[ -n "$names" ] || {
				echo "build.sh: $module@$version holds no $pattern" >&2
				exit 1
			}
			for file in $names; do
				unzip -p "$zip" "$file" >"$crds/$(basename "$file")"
			done
		done
		touch "$out/.complete"
	fi
	echo "$crds"
}
