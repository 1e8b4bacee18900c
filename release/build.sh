#!/usr/bin/env bash
# Builds the binary cf-runner ships: x86_64 Linux, statically linked against
# musl (no shared library needed, runs on any distribution), position
# independent, its hot functions packed by release/symbol-order.txt (see
# build.rs), then stripped.
#
#   bash release/build.sh        prints the stripped binary's path last
#
# Needs the musl target (`rustup target add x86_64-unknown-linux-musl`) and a
# musl C compiler for aws-lc's C code (`musl-gcc`, Debian package musl-tools).
# The unstripped build stays at target/x86_64-unknown-linux-musl/release/
# for release/symbol_order.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
target=x86_64-unknown-linux-musl
if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
	echo "error: the Rust target $target is not installed: run \`rustup target add $target\`" >&2
	exit 1
fi
if ! command -v musl-gcc >/dev/null 2>&1; then
	echo "error: musl-gcc is not on PATH (aws-lc's C code needs it): install the musl-tools package" >&2
	exit 1
fi
# Symbols kept in the build (release/symbol_order.sh reads them) and taken
# out of the shipped copy.
CARGO_PROFILE_RELEASE_STRIP=false cargo build --locked --release --target "$target" --bin cf-runner >&2
mkdir -p target/dist
strip -o target/dist/cf-runner "target/$target/release/cf-runner"
echo "$PWD/target/dist/cf-runner"
