#!/usr/bin/env python3
"""Packs a staged folder into a release archive, the same bytes for the same
files on any system (GNU and BSD tar differ; Windows has neither): entries
in name order, owner 0, one date (the commit's), executables 0755 and the
rest 0644, gzip without a time stamp.

Usage: pack.py STAGE_PARENT NAME WHEN OUT_DIR
  writes OUT_DIR/NAME.zip when NAME names a Windows target, else
  OUT_DIR/NAME.tar.gz, of STAGE_PARENT/NAME; WHEN is a Unix time.
"""
import gzip
import io
import os
import sys
import tarfile
import time
import zipfile


def entries(parent, name):
    """Every file under parent/name, by its path inside the archive, sorted."""
    found = []
    for root, dirs, files in os.walk(os.path.join(parent, name)):
        dirs.sort()
        for f in files:
            full = os.path.join(root, f)
            found.append((os.path.relpath(full, parent).replace(os.sep, "/"), full))
    return sorted(found)


def executable(path):
    return os.path.basename(path) in ("cf-runner", "cf-runner.exe")


def pack_tar(parent, name, when, out):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for inner, full in entries(parent, name):
            info = tarfile.TarInfo(inner)
            info.size = os.path.getsize(full)
            info.mtime = when
            info.mode = 0o755 if executable(full) else 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            with open(full, "rb") as src:
                tar.addfile(info, src)
    path = os.path.join(out, f"{name}.tar.gz")
    with open(path, "wb") as f, gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0) as gz:
        gz.write(raw.getvalue())
    return path


def pack_zip(parent, name, when, out):
    stamp = time.gmtime(max(when, 315532800))[:6]  # zip dates start in 1980
    path = os.path.join(out, f"{name}.zip")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for inner, full in entries(parent, name):
            info = zipfile.ZipInfo(inner, stamp)
            info.external_attr = (0o755 if executable(full) else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            with open(full, "rb") as src:
                z.writestr(info, src.read())
    return path


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    parent, name, when, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    pack = pack_zip if "windows" in name else pack_tar
    print(pack(parent, name, when, out))


if __name__ == "__main__":
    main()
