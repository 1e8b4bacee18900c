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
# The fetching itself is tests/crds/fetch.sh's, shared by every CRD fetcher.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../crds/fetch.sh
. "$here/../crds/fetch.sh"
crds="$(fetch_crds external-secrets CF_RUNNER_ESO_CACHE github.com/external-secrets/external-secrets v0.16.2 \
	config/crds/bases/external-secrets.io_externalsecrets.yaml)"
grep -q "name: v1beta1" "$crds/external-secrets.io_externalsecrets.yaml" || {
	echo "build.sh: the ExternalSecret CRD in $crds does not serve v1beta1" >&2
	exit 1
}
echo "$crds"
