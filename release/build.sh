#!/usr/bin/env bash
# Builds what a release ships, into target/release-files/:
#
# - per target, an archive: the binary, the completions (completions/), the
#   man pages (docs/man/), LICENSE and README.md; .tar.gz, .zip for Windows;
# - SHA256SUMS of the archives and the SBOM;
# - a CycloneDX SBOM, a Homebrew formula and a krew plugin manifest, written
#   from the same checksums by release/metadata.py.
#
#   bash release/build.sh                 x86_64 Linux only (the binary CI
#                                         tests, and the benchmarks time)
#   bash release/build.sh all             every target we ship
#   bash release/build.sh TARGET...       those targets
#
# It prints the x86_64 Linux binary's path last when it built that target
# (bench/ and .ci/run read it).
#
# The binary is built with the `dist` profile (fat LTO, one codegen unit:
# about half an hour on two cores); CF_RUNNER_PROFILE=release makes a quick
# one with the same layout, for trying the packaging out.
#
# x86_64 Linux is statically linked against musl with the host's tools, as
# always: position independent, its hot functions packed by
# release/symbol-order.txt (see build.rs), then stripped; its unstripped
# build stays at target/x86_64-unknown-linux-musl/PROFILE/ for
# release/symbol_order.sh. It needs `rustup target add
# x86_64-unknown-linux-musl` and musl-gcc (Debian package musl-tools). Every
# other target is built by release/cross.sh (zig, cargo-zigbuild).
set -euo pipefail
cd "$(dirname "$0")/.."

host_target=x86_64-unknown-linux-musl
all_targets=(x86_64-unknown-linux-musl aarch64-unknown-linux-musl x86_64-apple-darwin aarch64-apple-darwin x86_64-pc-windows-gnu)
profile="${CF_RUNNER_PROFILE:-dist}"
# Cargo's folder for the profile (dev builds land in debug/).
profile_dir="$profile"
[ "$profile" = dev ] && profile_dir=debug
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
	targets=("$host_target")
elif [ "${targets[0]}" = all ]; then
	targets=("${all_targets[@]}")
fi
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
out="$PWD/target/release-files"
rm -rf "$out"
mkdir -p "$out"

# The static x86_64 Linux binary, stripped: its path.
build_host() {
	if ! rustup target list --installed 2>/dev/null | grep -qx "$host_target"; then
		echo "error: the Rust target $host_target is not installed: run \`rustup target add $host_target\`" >&2
		exit 1
	fi
	if ! command -v musl-gcc >/dev/null 2>&1; then
		echo "error: musl-gcc is not on PATH (aws-lc's C code needs it): install the musl-tools package" >&2
		exit 1
	fi
	# Symbols kept in the build (release/symbol_order.sh reads them) and
	# taken out of the shipped copy.
	local strip_var
	strip_var="CARGO_PROFILE_$(tr '[:lower:]-' '[:upper:]_' <<<"$profile")_STRIP"
	env "$strip_var=false" cargo build --locked --profile "$profile" --target "$host_target" --bin cf-runner >&2
	mkdir -p "target/shipped"
	strip -o target/shipped/cf-runner "target/$host_target/$profile_dir/cf-runner"
	echo "$PWD/target/shipped/cf-runner"
}

# Packs `binary` for `target` into the archive, beside the files a user
# needs with it.
pack() {
	local target="$1" binary="$2"
	local name="cf-runner-$version-$target"
	local stage="$out/stage/$name"
	mkdir -p "$stage/completions" "$stage/man"
	cp "$binary" "$stage/"
	cp completions/* "$stage/completions/"
	cp docs/man/*.1 "$stage/man/"
	cp LICENSE README.md "$stage/"
	# Same bytes for the same inputs: fixed owner, order and dates.
	python3 release/pack.py "$out/stage" "$name" "$(git log -1 --format=%ct 2>/dev/null || echo 0)" "$out" >&2
}

host_binary=""
for target in "${targets[@]}"; do
	case "$target" in
	"$host_target")
		host_binary="$(build_host)"
		pack "$target" "$host_binary"
		;;
	*-apple-darwin)
		if [ -z "${SDKROOT:-}" ] && [ "$(uname -s)" != Darwin ]; then
			echo "error: $target links only with Apple's SDK: set SDKROOT (the release workflow builds it on macOS)" >&2
			exit 1
		fi
		pack "$target" "$(CF_RUNNER_PROFILE="$profile" bash release/cross.sh build "$target" | tail -n 1)"
		;;
	*)
		pack "$target" "$(CF_RUNNER_PROFILE="$profile" bash release/cross.sh build "$target" | tail -n 1)"
		;;
	esac
done
rm -rf "$out/stage"

python3 release/metadata.py sbom "$out" >&2
(
	cd "$out"
	shopt -s nullglob
	files=(*.tar.gz *.zip *.cdx.json)
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum -- "${files[@]}" >SHA256SUMS
	else
		shasum -a 256 -- "${files[@]}" >SHA256SUMS
	fi
)
python3 release/metadata.py brew "$out" >&2
python3 release/metadata.py krew "$out" >&2
echo "release files in $out:" >&2
ls -l "$out" >&2
if [ -n "$host_binary" ]; then
	echo "$host_binary"
fi
