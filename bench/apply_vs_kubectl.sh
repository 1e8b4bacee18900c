#!/usr/bin/env bash
# Benchmark: cf-runner's apply against kubectl's server-side apply of the
# same objects, on a private test control plane (see tests/bench_apply.rs).
#
#   bash bench/apply_vs_kubectl.sh             the benchmark (the shipped static
#                                              binary, release/build.sh)
#   bash bench/apply_vs_kubectl.sh timeline    one install's per-request timeline
#
# CF_RUNNER_BENCH_PROFILE=bench-fast times the binary of that Cargo profile
# instead (quicker to build; say so when quoting its figures). CF_RUNNER_BENCH_BEFORE=
# <binary> times another build (e.g. a copy from before a change) in the same
# runs; CF_RUNNER_TIMELINE_BIN=<binary> takes the timeline of another build;
# CF_RUNNER_BENCH_RUNS=<n> runs each kind n times instead of 7.
set -euo pipefail
cd "$(dirname "$0")/.."
CF_RUNNER_CP_BIN="$(bash tests/controlplane/build.sh | tail -n 1)"
export CF_RUNNER_CP_BIN
if [ -z "${CF_RUNNER_BENCH_PROFILE:-}" ]; then
	CF_RUNNER_TEST_BINARY="$(bash release/build.sh | tail -n 1)"
	export CF_RUNNER_TEST_BINARY
fi
cargo test --profile "${CF_RUNNER_BENCH_PROFILE:-release}" --test bench_apply -- \
	--ignored --nocapture "${1:-apply_cf_runner_vs_kubectl}" 2>&1 | grep -v '^running\|^test \|^$'
