#!/usr/bin/env bash
# Fetches (or reuses) the prometheus-operator's ServiceMonitor and
# PodMonitor CRDs, for the metrics end-to-end test's strict server-side
# dry-run of the monitors cf-runner renders. The operator itself is not
# built: the test holds the objects against these schemas only.
#
# They come from the Go module github.com/prometheus-operator/prometheus-operator
# (its zip holds example/prometheus-operator-crd/); they are read from the
# zip the module proxy serves, as tests/argocd/build.sh reads its CRDs.
#
# Cached outside the repository, in
#   ${CF_RUNNER_PROMETHEUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cf-runner-prometheus-operator}/<key>/crds/
# Progress goes to stderr; the last line of stdout is the crds folder.
# The fetching itself is tests/crds/fetch.sh's, shared by every CRD fetcher.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../crds/fetch.sh
. "$here/../crds/fetch.sh"
crds="$(fetch_crds prometheus-operator CF_RUNNER_PROMETHEUS_CACHE github.com/prometheus-operator/prometheus-operator v0.85.0 \
	example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml \
	example/prometheus-operator-crd/monitoring.coreos.com_podmonitors.yaml)"
echo "$crds"
