#!/usr/bin/env python3
"""Benchmark: whole-process `cf-runner --version`, and a full dry-run of the
largest values example to a temp dir. Reports median and p90 wall time and
peak RSS per run (from wait4), for the release binary.

Usage: python3 bench/startup_and_dry_run.py [--runs N] [--binary PATH]
Targets (issue 2): median under 20 ms and peak memory under 20 MB for each.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def measure(argv, cwd, runs):
    times, peaks = [], []
    env = dict(os.environ, KUBECONFIG=os.path.join(cwd, "none"), NO_COLOR="1")
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            sys.exit(f"{argv} failed: {proc.stderr.read().decode()}")
        proc.stderr.close()
        times.append(elapsed * 1000)
        peaks.append(usage.ru_maxrss / 1024)  # KiB -> MiB on Linux
    times.sort()
    return {
        "median_ms": statistics.median(times),
        "p90_ms": times[int(len(times) * 0.9) - 1],
        "min_ms": times[0],
        "peak_rss_mib": max(peaks),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "cf-runner"))
    args = ap.parse_args()
    if not os.path.exists(args.binary):
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    example = os.path.join(ROOT, "values-examples", "app-proxy-monitor.yaml")
    with tempfile.TemporaryDirectory() as tmp:
        cases = {
            "cf-runner --version": [args.binary, "--version"],
            "init --dry-run (app-proxy-monitor, the largest example)": [
                args.binary, "init", "--dry-run", "--yes", "--values", example,
                "--output-dir", os.path.join(tmp, "out")],
        }
        print(f"{'case':52} {'median':>9} {'p90':>9} {'min':>9} {'peak RSS':>10}")
        failed = False
        for name, argv in cases.items():
            r = measure(argv, tmp, args.runs)
            ok = r["median_ms"] < 20 and r["peak_rss_mib"] < 20
            failed |= not ok
            print(f"{name:52} {r['median_ms']:7.2f}ms {r['p90_ms']:7.2f}ms "
                  f"{r['min_ms']:7.2f}ms {r['peak_rss_mib']:7.1f}MiB {'ok' if ok else 'OVER TARGET'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
