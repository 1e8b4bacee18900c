#!/usr/bin/env bash
# Benchmark: cf-runner's install through a loopback HTTP CONNECT proxy named
# in the kubeconfig's proxy-url, against kubectl's server-side apply of the
# same objects through the same proxy, on a private test control plane
# (apply_through_proxy_cf_runner_vs_kubectl in tests/bench_apply.rs). The
# install direct is timed too, for what the proxy costs.
#
#   bash bench/apply_through_proxy.sh
#
# The same variables as bench/apply_vs_kubectl.sh: CF_RUNNER_BENCH_PROFILE
# (bench-fast, or dev for a quick look; say which when quoting figures) and
# CF_RUNNER_BENCH_RUNS (7 by default).
set -euo pipefail
cd "$(dirname "$0")/.."
CF_RUNNER_CP_BIN="$(bash tests/controlplane/build.sh | tail -n 1)"
export CF_RUNNER_CP_BIN
if [ -z "${CF_RUNNER_BENCH_PROFILE:-}" ]; then
	CF_RUNNER_TEST_BINARY="$(bash release/build.sh | tail -n 1)"
	export CF_RUNNER_TEST_BINARY
fi
cargo test --locked --profile "${CF_RUNNER_BENCH_PROFILE:-release}" --test bench_apply -- \
	--ignored --nocapture apply_through_proxy_cf_runner_vs_kubectl 2>&1 | grep -v '^running\|^test \|^$'
