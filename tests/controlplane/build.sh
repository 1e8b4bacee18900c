#!/usr/bin/env bash
# Builds (or reuses) the Kubernetes control-plane binaries pinned in go.mod:
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, kwok.
#
#   build.sh          the default version, pinned in this directory's go.mod
#   build.sh 1.33     another minor, pinned in ../controlplane-1.33/go.mod: its
#                     kube-apiserver, kube-controller-manager, kube-scheduler
#                     and kubectl; etcd and kwok are the default build's (the
#                     storage and the node simulator do not follow the minor)
#
# The binaries land outside the repository, in
#   ${CF_RUNNER_CP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cf-runner-controlplane}/<key>/bin
# where <key> hashes go.mod, go.sum, this script and the Go toolchain version,
# so they are rebuilt only when one of those changes.
#
# Progress goes to stderr; the last line of stdout is the bin directory.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
minor="${1:-}"
module_dir="$here"
if [ -n "$minor" ]; then
	module_dir="$here/../controlplane-$minor"
	if [ ! -f "$module_dir/go.mod" ]; then
		echo "build.sh: no pinned control plane for $minor (no tests/controlplane-$minor/go.mod)" >&2
		exit 2
	fi
	module_dir="$(cd "$module_dir" && pwd)"
fi
cd "$module_dir"

export GOTOOLCHAIN=local
command -v go >/dev/null 2>&1 || {
	echo "build.sh: 'go' is not on PATH; install Go >= 1.26 to build the control plane" >&2
	exit 1
}

go_version="$(go env GOVERSION)"
key="$(
	{
		cat go.mod go.sum "$here/build.sh"
		echo "$go_version $(go env GOOS)/$(go env GOARCH)"
	} | sha256sum | cut -c1-16
)"
cache_root="${CF_RUNNER_CP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cf-runner-controlplane}"
out="$cache_root/$key"
bin="$out/bin"

# name=package; built one at a time (the machine has 2 cores).
binaries=(
	"etcd=go.etcd.io/etcd/server/v3"
	"kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver"
	"kube-controller-manager=k8s.io/kubernetes/cmd/kube-controller-manager"
	"kube-scheduler=k8s.io/kubernetes/cmd/kube-scheduler"
	"kubectl=k8s.io/kubernetes/cmd/kubectl"
	"kwok=sigs.k8s.io/kwok/cmd/kwok"
)
# Another minor shares the default build's etcd and kwok: build that first.
base_bin=""
if [ -n "$minor" ]; then
	base_bin="$(bash "$here/build.sh" | tail -n 1)"
fi

complete() {
	[ -f "$out/.complete" ] || return 1
	for entry in "${binaries[@]}"; do
		[ -x "$bin/${entry%%=*}" ] || return 1
	done
}

if complete; then
	touch "$out" 2>/dev/null || true # marks it used, for pruning
	echo "build.sh: reusing $bin" >&2
	echo "$bin"
	exit 0
fi

mkdir -p "$out"
# Serialise concurrent builders (several test binaries may call us at once).
exec 9>"$out/.lock"
flock 9
if complete; then
	echo "build.sh: reusing $bin (built concurrently)" >&2
	echo "$bin"
	exit 0
fi

# Go 1.27+ turns on encoding/json/v2 by default, which makes kube-apiserver
# 1.36 serve broken OpenAPI documents.
case "$go_version" in
go1.2[0-6] | go1.2[0-6].* | go1.1[0-9]*) ;;
*) export GOEXPERIMENT="${GOEXPERIMENT:+$GOEXPERIMENT,}nojsonv2" ;;
esac

# Modules carry no version stamp: set what `make` would, so /version and
# `kubectl version` report the real release instead of v0.0.0-master.
kube_version="$(go list -m -f '{{.Version}}' k8s.io/kubernetes)"
kube_minor="${kube_version#v*.}"
kube_minor="${kube_minor%%.*}"
kube_major="${kube_version#v}"
kube_major="${kube_major%%.*}"
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
	ldflags+=" -X $pkg.gitVersion=$kube_version -X $pkg.gitMajor=$kube_major"
	ldflags+=" -X $pkg.gitMinor=$kube_minor -X $pkg.gitTreeState=clean"
	ldflags+=" -X $pkg.gitCommit=module-$kube_version -X $pkg.buildDate=1970-01-01T00:00:00Z"
done

echo "build.sh: building the control plane ($kube_version) with $go_version into $bin" >&2
start=$SECONDS
mkdir -p "$bin"
for entry in "${binaries[@]}"; do
	name="${entry%%=*}"
	pkg="${entry#*=}"
	if [ -x "$bin/$name" ]; then
		echo "build.sh: $name already built" >&2
		continue
	fi
	if [ -n "$base_bin" ] && { [ "$name" = etcd ] || [ "$name" = kwok ]; }; then
		ln -f "$base_bin/$name" "$bin/$name" 2>/dev/null || cp -f "$base_bin/$name" "$bin/$name"
		echo "build.sh: $name taken from $base_bin" >&2
		continue
	fi
	t=$SECONDS
	echo "build.sh: go build $pkg" >&2
	nice -n 10 go build -trimpath -ldflags="$ldflags" -o "$bin/$name.tmp" "$pkg" >&2
	mv -f "$bin/$name.tmp" "$bin/$name"
	echo "build.sh: built $name in $((SECONDS - t))s" >&2
done
touch "$out/.complete"
echo "build.sh: control plane built in $((SECONDS - start))s" >&2
# Drop builds of other pins that nobody has used for a week (~450 MB each).
find "$cache_root" -mindepth 1 -maxdepth 1 -type d ! -name "$key" \
	! -newermt '-7 days' -exec rm -rf {} + 2>/dev/null || true
echo "$bin"
