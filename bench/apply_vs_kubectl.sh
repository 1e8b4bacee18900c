#!/usr/bin/env bash
# Benchmark: cf-runner's apply against kubectl's server-side apply of the
# same objects, on a private test control plane (see tests/bench_apply.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
CF_RUNNER_CP_BIN="$(bash tests/controlplane/build.sh | tail -n 1)"
export CF_RUNNER_CP_BIN
cargo test --release --test bench_apply -- --ignored --nocapture 2>&1 | grep -v '^running\|^test \|^$'
