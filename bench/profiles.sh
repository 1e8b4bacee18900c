#!/usr/bin/env bash
# Start-up of the two profiles side by side (issue 47): the quick `release`
# build a person gets from `cargo install` or the README's `cargo run
# --release`, against the shipped `dist` build (release/build.sh), paired
# run by run with farm-bench so that the machine's load hits both alike.
#
#   bash bench/profiles.sh [RELEASE_BINARY] [DIST_BINARY]
#
# Defaults: target/release/cf-runner and target/shipped/cf-runner; build
# them first (`cargo build --release`, `bash release/build.sh`).
set -euo pipefail
cd "$(dirname "$0")/.."
quick="$(realpath "${1:-target/release/cf-runner}")"
shipped="$(realpath "${2:-target/shipped/cf-runner}")"
for bin in "$quick" "$shipped"; do
	[ -x "$bin" ] || { echo "error: no binary at $bin: build it first (see the comment at the top)" >&2; exit 1; }
done
command -v farm-bench >/dev/null 2>&1 || { echo "error: farm-bench is not on PATH" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export KUBECONFIG="$work/none" NO_COLOR=1
example="$PWD/values-examples/app-proxy-monitor.yaml"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); A = release ($(wc -c <"$quick") bytes), B = dist ($(wc -c <"$shipped") bytes)"
echo "== --version"
farm-bench -n 50 --warmup 3 --vs "$shipped --version" -- "$quick" --version
echo "== dry-run of the largest example to stdout"
farm-bench -n 50 --warmup 3 --vs "$shipped init --dry-run --yes --values $example --output-dir -" \
	-- "$quick" init --dry-run --yes --values "$example" --output-dir -
