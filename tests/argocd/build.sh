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
# The fetching itself is tests/crds/fetch.sh's, shared by every CRD fetcher.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../crds/fetch.sh
. "$here/../crds/fetch.sh"
crds="$(fetch_crds argocd CF_RUNNER_ARGOCD_CACHE github.com/argoproj/argo-cd/v3 v3.6.1 \
	manifests/crds/application-crd.yaml \
	manifests/crds/applicationset-crd.yaml \
	manifests/crds/appproject-crd.yaml)"
echo "$crds"
