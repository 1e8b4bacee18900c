#!/usr/bin/env bash
# Benchmark: `cf-runner diagnose` of a runtime namespace with 500 build pods
# and 5,000 events, on a private test control plane (tests/bench_diagnose/,
# part of the bench_apply binary). The goal: under 2 s.
#
#   bash bench/diagnose_scale.sh     the shipped static binary (release/build.sh)
#
# CF_RUNNER_BENCH_PROFILE=bench-fast (or dev) times the binary of that Cargo
# profile instead (say which when quoting its figures); CF_RUNNER_BENCH_RUNS=<n>
# runs it n times instead of 7.
set -euo pipefail
cd "$(dirname "$0")/.."
CF_RUNNER_CP_BIN="$(bash tests/controlplane/build.sh | tail -n 1)"
export CF_RUNNER_CP_BIN
if [ -z "${CF_RUNNER_BENCH_PROFILE:-}" ]; then
	CF_RUNNER_TEST_BINARY="$(bash release/build.sh | tail -n 1)"
	export CF_RUNNER_TEST_BINARY
fi
cargo test --profile "${CF_RUNNER_BENCH_PROFILE:-release}" --test bench_apply -- \
	--ignored --nocapture diagnose_500_build_pods_and_5000_events 2>&1 | grep -v '^running\|^test \|^$'
