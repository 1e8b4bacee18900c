#!/usr/bin/env bash
# Checks the release files release/build.sh wrote, as a user would: every
# line of SHA256SUMS matches its file; each Linux archive unpacks to the
# binary, completions, man pages and licence, and its binary runs
# `--version` with the version of Cargo.toml (aarch64 under qemu-aarch64,
# the Debian package qemu-user-static, when the machine is not aarch64);
# the formula and the krew manifest carry the archives' checksums.
#
#   bash release/verify.sh [DIR]     (default target/release-files)
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-target/release-files}"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
fail() { echo "error: $*" >&2; exit 1; }

[ -s "$dir/SHA256SUMS" ] || fail "no SHA256SUMS in $dir: run release/build.sh first"
(cd "$dir" && sha256sum --check --strict SHA256SUMS) || fail "a file in $dir does not match SHA256SUMS"
[ -s "$dir/cf-runner-$version.cdx.json" ] || fail "no SBOM in $dir"
grep -q "cf-runner-$version.cdx.json" "$dir/SHA256SUMS" || fail "SHA256SUMS does not cover the SBOM"

checked=0
while read -r sum name; do
	case "$name" in
	*.tar.gz | *.zip)
		grep -q "$sum" "$dir/cf-runner.yaml" || fail "the krew manifest lacks the checksum of $name"
		case "$name" in *linux* | *darwin*) grep -q "$sum" "$dir/cf-runner.rb" || fail "the formula lacks the checksum of $name" ;; esac
		;;
	esac
	case "$name" in
	*linux*.tar.gz) ;;
	*) continue ;;
	esac
	work="$(mktemp -d)"
	tar -C "$work" -xzf "$dir/$name"
	root="$work/${name%.tar.gz}"
	for f in cf-runner LICENSE README.md completions/cf-runner.bash completions/cf-runner.zsh completions/cf-runner.fish man/cf-runner-init.1; do
		[ -e "$root/$f" ] || fail "$name lacks $f"
	done
	run=("$root/cf-runner")
	if [[ "$name" == *aarch64* && "$(uname -m)" != aarch64 ]]; then
		command -v qemu-aarch64-static >/dev/null 2>&1 || fail "qemu-aarch64-static is needed to run $name here (Debian package qemu-user-static)"
		run=(qemu-aarch64-static "$root/cf-runner")
	fi
	shown="$("${run[@]}" --version)"
	[ "$shown" = "cf-runner $version" ] || fail "$name: --version printed '$shown', not 'cf-runner $version'"
	echo "$name: sum ok, contents ok, --version: $shown ($(wc -c <"$root/cf-runner") bytes unpacked, $(wc -c <"$dir/$name") packed)"
	rm -rf "$work"
	checked=$((checked + 1))
done <"$dir/SHA256SUMS"
[ "$checked" -gt 0 ] || fail "no Linux archive in $dir"
