#!/usr/bin/env bash
# Times `cf-runner fleet export` for fleets of 3 and 100 clusters (the goal
# is under 1 s for 100). Registration is stood in for by registration.yaml
# files (export reads only those), so no platform is needed; --overwrite
# because those stand-ins are not files cf-runner wrote.
#
#   bash bench/fleet_export.sh [path/to/cf-runner]   (default: target/release/cf-runner)
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-target/release/cf-runner}"
[ -x "$bin" ] || { echo "build it first: cargo build --release" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for n in 3 100; do
	dir="$work/$n"
	mkdir -p "$dir"
	{
		printf 'defaults:\n  Namespace: codefresh\n  Storage:\n    Backend: local\n'
		printf 'gitops:\n  path: fleet\nclusters:\n'
		for i in $(seq 1 "$n"); do
			printf '  - name: build-%03d\n' "$i"
			if [ $((i % 2)) -eq 0 ]; then printf '    values:\n      Namespace: cf-%03d\n' "$i"; fi
		done
	} >"$dir/fleet.yaml"
	for i in $(seq 1 "$n"); do
		ns=codefresh
		if [ $((i % 2)) -eq 0 ]; then ns="$(printf 'cf-%03d' "$i")"; fi
		reg="$dir/tree/secrets/build-$(printf '%03d' "$i")/$ns"
		mkdir -p "$reg"
		printf 'agentName: build-%03d_%s\nruntimeName: build-%03d/%s\naccountId: bench\nspecDigest: x\nsecretsDigest: x\n' \
			"$i" "$ns" "$i" "$ns" >"$reg/registration.yaml"
	done
	best=""
	for run in 1 2 3; do
		rm -rf "$dir/tree/base" "$dir/tree/clusters" "$dir/tree/flux" "$dir/tree/argocd" "$dir/tree/.cf-runner-export"*
		start=$(date +%s%N)
		"$bin" fleet export --fleet "$dir/fleet.yaml" --output-dir "$dir/tree" --overwrite >/dev/null
		ms=$((($(date +%s%N) - start) / 1000000))
		if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
	done
	start=$(date +%s%N)
	"$bin" fleet export --fleet "$dir/fleet.yaml" --output-dir "$dir/tree" --overwrite >/dev/null
	again=$((($(date +%s%N) - start) / 1000000))
	files=$(find "$dir/tree" -type f -not -path '*/secrets/*' -not -name '.cf-runner-export*' | wc -l)
	echo "fleet export, $n clusters: best of 3 cold exports ${best} ms ($files files); unchanged re-export ${again} ms"
done
