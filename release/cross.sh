#!/usr/bin/env bash
# Compiles cf-runner for the targets other than the host, with zig as the C
# compiler and linker (PyPI's `ziglang`, driven by `cargo-zigbuild`), so that
# no Linux-only call creeps in unnoticed (issue 47).
#
#   bash release/cross.sh check [TARGET...]   clippy (-D warnings) of the
#                                             product's code for each target
#   bash release/cross.sh build [TARGET...]   a linked binary for each target
#                                             (profile: $CF_RUNNER_PROFILE,
#                                             default release)
#
# Default targets: every one we ship but the host's. macOS links only with
# Apple's SDK (SDKROOT), which no package registry serves: without it
# `build` stops at `check` for the two macOS targets and says so.
# Needs: `pip install ziglang cargo-zigbuild` and `rustup target add TARGET`.
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-check}"
shift || true
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
	targets=(aarch64-unknown-linux-musl x86_64-apple-darwin aarch64-apple-darwin x86_64-pc-windows-gnu)
fi
profile="${CF_RUNNER_PROFILE:-release}"
# Cargo's folder for the profile (dev builds land in debug/).
profile_dir="$profile"
[ "$profile" = dev ] && profile_dir=debug

command -v cargo-zigbuild >/dev/null 2>&1 || {
	echo "error: cargo-zigbuild is not on PATH: pip install ziglang cargo-zigbuild" >&2
	exit 1
}
installed="$(rustup target list --installed 2>/dev/null || true)"
host="$(rustc -vV | sed -n 's/^host: //p')"

for target in "${targets[@]}"; do
	grep -qx "$target" <<<"$installed" || {
		echo "error: the Rust target $target is not installed: run \`rustup target add $target\`" >&2
		exit 1
	}
	start=$SECONDS
	case "$mode" in
	check)
		# The product only (lib and bin): the tests drive Unix terminals and
		# shells, and run where they can (see .ci/run's aarch64 phase).
		cargo-zigbuild clippy --locked --target "$target" --lib --bin cf-runner -- -D warnings >&2
		echo "$target: checked in $((SECONDS - start)) s" >&2
		;;
	build)
		if [[ "$target" == *-apple-darwin && -z "${SDKROOT:-}" && "$(uname -s)" != Darwin ]]; then
			cargo-zigbuild check --locked --target "$target" --bin cf-runner >&2
			echo "$target: compiled, not linked (no macOS SDK: set SDKROOT) in $((SECONDS - start)) s" >&2
			continue
		fi
		if [ "$target" = "$host" ] || [[ "$(uname -s)" == Darwin && "$target" == *-apple-darwin ]]; then
			# On its own system (the release workflow's macOS runner) the
			# platform's own toolchain links it.
			cargo build --locked --profile "$profile" --target "$target" --bin cf-runner >&2
		else
			cargo-zigbuild zigbuild --locked --profile "$profile" --target "$target" --bin cf-runner >&2
		fi
		exe=cf-runner
		[[ "$target" == *windows* ]] && exe=cf-runner.exe
		bin="target/$target/$profile_dir/$exe"
		echo "$target: linked in $((SECONDS - start)) s: $bin ($(wc -c <"$bin" | tr -d " ") bytes)" >&2
		echo "$PWD/$bin"
		;;
	*)
		echo "error: unknown mode $mode: use check or build" >&2
		exit 2
		;;
	esac
done
