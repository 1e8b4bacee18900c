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
# The fetching itself is tests/crds/fetch.sh's, shared by every CRD fetcher.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../crds/fetch.sh
. "$here/../crds/fetch.sh"
crds="$(fetch_crds gateway-api CF_RUNNER_GATEWAY_CACHE sigs.k8s.io/gateway-api v1.6.3 \
	"config/crd/standard/*.yaml")"
echo "$crds"
