#!/usr/bin/env bash
# Writes release/symbol-order.txt: the functions of the static release binary
# that `--version`, `--help`, a dry-run to stdout and a first export into a
# new folder execute, in the order they first run. build.rs hands the list to
# the linker so that these functions sit together (fewer page faults and
# cache misses at every start; issue 26).
#
#   bash release/build.sh && bash release/symbol_order.sh && bash release/build.sh
#
# Needs valgrind. Reads the unstripped build release/build.sh leaves in
# target/x86_64-unknown-linux-musl/dist/ (or PROFILE/ with CF_RUNNER_PROFILE). Run it again when the list has
# aged: it prints how many of the functions the current build executes were
# already in it.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$PWD/target/x86_64-unknown-linux-musl/${CF_RUNNER_PROFILE:-dist}/cf-runner"
test -x "$bin" || { echo "error: no build at $bin: run bash release/build.sh first" >&2; exit 1; }
command -v valgrind >/dev/null 2>&1 || { echo "error: valgrind is needed" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
example="$PWD/values-examples/app-proxy-monitor.yaml"
profile() {
	local name="$1"
	shift
	(cd "$work" && KUBECONFIG="$work/none" NO_COLOR=1 valgrind --tool=callgrind --demangle=no \
		--callgrind-out-file="$work/$name.out" "$bin" "$@" >/dev/null 2>&1)
}
profile version --version
profile help --help
profile stdout init --dry-run --yes --values "$example" --output-dir -
profile folder init --dry-run --yes --values "$example" --output-dir "$work/new-folder"
python3 - "$work" "$bin" release/symbol-order.txt <<'PY'
import os, re, sys
work, binary, out = sys.argv[1:]
binary = os.path.realpath(binary)
seen, order = set(), []
for name in ("version", "help", "stdout", "folder"):
    objects, functions, obj = {}, {}, None
    for line in open(os.path.join(work, name + ".out")):
        m = re.match(r"^(c?ob)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if m:
            if m.group(3):
                objects[m.group(2)] = m.group(3)
            if m.group(1) == "ob":
                obj = objects.get(m.group(2))
            continue
        m = re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if m:
            if m.group(3):
                functions[m.group(2)] = m.group(3)
            fn = functions.get(m.group(2))
            if (m.group(1) == "fn" and fn and obj and os.path.realpath(obj) == binary and fn not in seen
                    and not fn.startswith("0x")):
                seen.add(fn)
                order.append(fn)
old = set()
if os.path.exists(out):
    old = {line.strip() for line in open(out) if line.strip()}
with open(out, "w") as f:
    f.write("".join(fn + "\n" for fn in order))
kept = sum(1 for fn in order if fn in old)
print(f"{out}: {len(order)} functions; {kept} of them were in the list before ({len(old)} entries)")
PY
