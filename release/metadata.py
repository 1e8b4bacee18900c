#!/usr/bin/env python3
"""Writes the files of a release that describe its archives, from the
archives' checksums and Cargo's own view of the dependencies:

  metadata.py sbom  DIR        DIR/cf-runner-VERSION.cdx.json, a CycloneDX
                               1.5 SBOM of what the binary is built from
  metadata.py brew  DIR        DIR/cf-runner.rb, a Homebrew formula
  metadata.py krew  DIR        DIR/cf-runner.yaml, a krew plugin manifest

DIR holds the archives and SHA256SUMS (release/build.sh writes them). The
formula and the manifest name each archive by URL under $CF_RUNNER_RELEASE_URL
(default: the GitHub release of the version's tag) with the checksum
SHA256SUMS gives it, so the three can never disagree.
"""
import json
import os
import subprocess
import sys
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_URL = "https://github.com/codefresh-io/cf-runner/releases/download/v{version}"

# Each shipped target: (Homebrew's os and arch, krew's os and arch).
PLATFORMS = {
    "x86_64-unknown-linux-musl": (("linux", "intel"), ("linux", "amd64")),
    "aarch64-unknown-linux-musl": (("linux", "arm"), ("linux", "arm64")),
    "x86_64-apple-darwin": (("macos", "intel"), ("darwin", "amd64")),
    "aarch64-apple-darwin": (("macos", "arm"), ("darwin", "arm64")),
    "x86_64-pc-windows-gnu": (None, ("windows", "amd64")),
}


def metadata():
    out = subprocess.run(
        ["cargo", "metadata", "--locked", "--offline", "--format-version", "1"],
        cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def shipped_packages(meta):
    """The root package and every package it needs at run time: normal
    dependencies only, followed from the root (dev and build ones do not end
    up in the binary), on any target we ship."""
    nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
    root = meta["resolve"]["root"]
    seen, todo = {root}, [root]
    while todo:
        for dep in nodes[todo.pop()]["deps"]:
            normal = any(k["kind"] is None for k in dep["dep_kinds"])
            if normal and dep["pkg"] not in seen:
                seen.add(dep["pkg"])
                todo.append(dep["pkg"])
    return root, [p for p in meta["packages"] if p["id"] in seen]


def purl(pkg):
    return f"pkg:cargo/{pkg['name']}@{pkg['version']}"


def component(pkg):
    c = {"type": "library", "bom-ref": purl(pkg), "name": pkg["name"],
         "version": pkg["version"], "purl": purl(pkg)}
    if pkg.get("license"):
        c["licenses"] = [{"expression": pkg["license"]}]
    if pkg.get("description"):
        c["description"] = " ".join(pkg["description"].split())
    return c


def checksums(folder):
    sums = {}
    with open(os.path.join(folder, "SHA256SUMS")) as f:
        for line in f:
            digest, name = line.split()
            sums[name.lstrip("*")] = digest
    return sums


def archives(folder, version):
    """(target, file name, sha256) of each archive SHA256SUMS lists."""
    found = []
    for name, digest in sorted(checksums(folder).items()):
        for target in PLATFORMS:
            if name in (f"cf-runner-{version}-{target}.tar.gz", f"cf-runner-{version}-{target}.zip"):
                found.append((target, name, digest))
    if not found:
        sys.exit(f"error: SHA256SUMS in {folder} lists no archive of version {version}")
    return found


def sbom(folder, version):
    meta = metadata()
    root, pkgs = shipped_packages(meta)
    top = next(p for p in pkgs if p["id"] == root)
    others = sorted((p for p in pkgs if p["id"] != root), key=lambda p: (p["name"], p["version"]))
    by_id = {p["id"]: p for p in pkgs}
    deps = []
    for node in meta["resolve"]["nodes"]:
        if node["id"] in by_id:
            on = sorted({purl(by_id[d["pkg"]]) for d in node["deps"] if d["pkg"] in by_id
                         and any(k["kind"] is None for k in d["dep_kinds"])})
            deps.append({"ref": purl(by_id[node["id"]]), "dependsOn": on})
    # The serial number is derived from the version, so a rebuild of the
    # same version writes the same file (and the same checksum).
    serial = uuid.uuid5(uuid.NAMESPACE_URL, f"cf-runner/{version}/sbom")
    doc = {
        "bomFormat": "CycloneDX",
        "specVersion": "1.5",
        "serialNumber": f"urn:uuid:{serial}",
        "version": 1,
        "metadata": {"component": dict(component(top), type="application"),
                     "tools": {"components": [{"type": "application", "name": "release/metadata.py"}]}},
        "components": [component(p) for p in others],
        "dependencies": sorted(deps, key=lambda d: d["ref"]),
    }
    path = os.path.join(folder, f"cf-runner-{version}.cdx.json")
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    return path


def brew(folder, version, base):
    lines = [
        "# Written by release/metadata.py from SHA256SUMS; do not edit.",
        "class CfRunner < Formula",
        '  desc "Installs, inspects, upgrades and removes the Codefresh Runner on Kubernetes"',
        '  homepage "https://codefresh.io/docs/docs/installation/runner/"',
        f'  version "{version}"',
        '  license "Apache-2.0"',
    ]
    blocks = {}
    for target, name, digest in archives(folder, version):
        if PLATFORMS[target][0]:
            os_name, arch = PLATFORMS[target][0]
            blocks.setdefault(os_name, []).append((arch, name, digest))
    for os_name in sorted(blocks):
        lines.append(f"  on_{os_name} do")
        for arch, name, digest in sorted(blocks[os_name]):
            lines += [f"    on_{arch} do", f'      url "{base}/{name}"', f'      sha256 "{digest}"', "    end"]
        lines.append("  end")
    lines += [
        "",
        "  def install",
        '    bin.install "cf-runner"',
        '    bash_completion.install "completions/cf-runner.bash" => "cf-runner"',
        '    zsh_completion.install "completions/cf-runner.zsh" => "_cf-runner"',
        '    fish_completion.install "completions/cf-runner.fish"',
        '    man1.install Dir["man/*.1"]',
        "  end",
        "",
        "  test do",
        '    assert_match version.to_s, shell_output("#{bin}/cf-runner --version")',
        "  end",
        "end",
    ]
    path = os.path.join(folder, "cf-runner.rb")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def krew(folder, version, base):
    lines = [
        "# Written by release/metadata.py from SHA256SUMS; do not edit.",
        "apiVersion: krew.googlecontainertools.github.com/v1alpha2",
        "kind: Plugin",
        "metadata:",
        "  name: cf-runner",
        "spec:",
        f"  version: v{version}",
        "  homepage: https://codefresh.io/docs/docs/installation/runner/",
        "  shortDescription: Install and manage the Codefresh Runner",
        "  description: |",
        "    Installs, inspects, upgrades and removes the Codefresh Runner (the agent",
        "    that runs Codefresh CI builds) on the cluster of the current context.",
        "    `kubectl cf-runner` is the cf-runner CLI: every command and flag is the same.",
        "  platforms:",
    ]
    for target, name, digest in archives(folder, version):
        os_name, arch = PLATFORMS[target][1]
        # krew links kubectl-cf_runner (its name for the plugin cf-runner)
        # to `bin`; cf-runner then answers as `kubectl cf-runner`.
        exe = "cf-runner.exe" if os_name == "windows" else "cf-runner"
        # The archive holds one folder, named as the archive.
        top = name.removesuffix(".tar.gz").removesuffix(".zip")
        lines += [
            "  - selector:",
            "      matchLabels:",
            f"        os: {os_name}",
            f"        arch: {arch}",
            f"    uri: {base}/{name}",
            f"    sha256: {digest}",
            "    files:",
            f"    - from: {top}/{exe}",
            "      to: .",
            f"    - from: {top}/LICENSE",
            "      to: .",
            f"    bin: {exe}",
        ]
    path = os.path.join(folder, "cf-runner.yaml")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("sbom", "brew", "krew"):
        sys.exit(__doc__)
    kind, folder = sys.argv[1], sys.argv[2]
    version = metadata_version()
    base = os.environ.get("CF_RUNNER_RELEASE_URL", DEFAULT_URL).format(version=version)
    path = {"sbom": lambda: sbom(folder, version),
            "brew": lambda: brew(folder, version, base),
            "krew": lambda: krew(folder, version, base)}[kind]()
    print(path)


def metadata_version():
    with open(os.path.join(ROOT, "Cargo.toml")) as f:
        for line in f:
            if line.startswith("version = "):
                return line.split('"')[1]
    sys.exit("error: no version in Cargo.toml")


if __name__ == "__main__":
    main()
