"""`plait adopt` and `plait vendor` on a real hand-vendored copy: pip's copy of requests (issue 22).

pip vendors requests into ``pip/_vendor/requests/`` with the `vendoring`
tool: its imports rewritten (``from pip._vendor import urllib3``), the
dependencies vendored beside it, and a patch file of pip's own.  Between
requests 2.31.0 and 2.32.0 the package moved from ``requests/`` to
``src/requests/``.

For each pair of consecutive pip releases that vendor different requests
versions (A, then B), as a user would:

1. an upstream repository with one commit per requests release, dated by
   the release's files, checked out at the version B vendors;
2. a pip repository with one commit per pip release up to A, dated the same way;
3. ``plait init --canonical ../requests ../pip`` in a workspace beside them,
   ``plait adopt pip`` and ``plait vendor pip``;

and it prints the base adopt chose against the version A really vendored
(pip's ``vendor.txt``), the local edits listed that the true base would not
list (spurious), the import edits among them (no ``rename``), and the files
of the vendored directory that differ from what pip shipped in B: each with
conflict markers (said) or without (silently wrong, unless pip rewrote its
own patch there, which no tool can derive).

Downloads (``pip download``: requests sdists, pip wheels) are cached under
``--cache`` (default ``~/.cache/plait-adopt-real``); nothing downloaded is
committed anywhere but in the temporary repositories.  Needs the network
once; the tests never do.

    python benchmarks/adopt_real.py [--cache DIR] [--pairs 22.1.2:22.2.2,...] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from datetime import UTC, datetime
from pathlib import Path

from bench_git import git

REQUESTS = [
    "2.26.0",
    "2.27.0",
    "2.27.1",
    "2.28.0",
    "2.28.1",
    "2.28.2",
    "2.29.0",
    "2.30.0",
    "2.31.0",
    "2.32.0",
    "2.32.1",
    "2.32.2",
    "2.32.3",
]
PIP = ["21.3.1", "22.0.4", "22.1.2", "22.2.2", "22.3.1", "23.0.1", "23.1.2", "23.2.1", "23.3.2", "24.0", "24.1", "24.2"]
# Consecutive releases (of those above) whose vendored requests differ; the last five are the issue's.
PAIRS = [("22.1.2", "22.2.2"), ("22.3.1", "23.0.1"), ("23.1.2", "23.2.1"), ("24.0", "24.1"), ("24.1", "24.2")]
VENDORED = "pip/_vendor/requests"


def download(cache: Path) -> None:
    """Every archive the run needs, fetched once with pip's own client."""
    for name, versions, kind in (("requests", REQUESTS, "--no-binary"), ("pip", PIP, "--only-binary")):
        folder = cache / name
        folder.mkdir(parents=True, exist_ok=True)
        for version in versions:
            if not list(folder.glob(f"{name}-{version}[.-]*")):
                subprocess.run(
                    [sys.executable, "-m", "pip", "download", "--no-deps", kind, ":all:", "-q", "-d", str(folder)]
                    + [f"{name}=={version}"],
                    check=True,
                )


def requests_release(cache: Path, version: str) -> tuple[dict[str, bytes], int]:
    """The files of a requests sdist (paths without its top directory) and its date (newest member)."""
    (archive,) = (cache / "requests").glob(f"requests-{version}.tar.gz")
    files: dict[str, bytes] = {}
    newest = 0
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            _top, _, rel = member.name.partition("/")
            data = tar.extractfile(member)
            if data is not None and rel and not rel.endswith("PKG-INFO") and ".egg-info/" not in rel:
                files[rel] = data.read()
                newest = max(newest, int(member.mtime))
    return files, newest


def pip_release(cache: Path, version: str) -> tuple[dict[str, bytes], int]:
    """The files of pip's package in a wheel, and its date (newest member)."""
    (archive,) = (cache / "pip").glob(f"pip-{version}-*.whl")
    files: dict[str, bytes] = {}
    newest = 0
    with zipfile.ZipFile(archive) as wheel:
        for info in wheel.infolist():
            if info.filename.startswith("pip/") and not info.is_dir():
                files[info.filename] = wheel.read(info)
                stamp = datetime(*info.date_time, tzinfo=UTC).timestamp()
                newest = max(newest, int(stamp))
    return files, newest


def vendored_version(files: dict[str, bytes]) -> str:
    for line in files["pip/_vendor/vendor.txt"].decode().splitlines():
        if line.lower().startswith("requests=="):
            return line.split("==", 1)[1].strip()
    raise SystemExit("pip's vendor.txt names no requests")


def replace_tree(top: Path, files: dict[str, bytes]) -> None:
    for child in top.iterdir():
        if child.name != ".git":
            shutil.rmtree(child) if child.is_dir() else child.unlink()
    for rel, data in files.items():
        path = top / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def build_repo(top: Path, releases: list[tuple[str, dict[str, bytes], int]]) -> None:
    """A repository with one commit per release, dated by the release, tagged v<version>."""
    top.mkdir(parents=True)
    git(top, "init", "-q", "-b", "main")
    for version, files, when in releases:
        replace_tree(top, files)
        git(top, "add", "-A")
        git(top, "commit", "-q", "-m", f"release {version}", when=when)
        git(top, "tag", f"v{version}")


def plait(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PLAIT_WORKSPACE"} | {"NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "plait", *args], cwd=cwd, env=env, capture_output=True, text=True)


def edits_of(done: subprocess.CompletedProcess[str]) -> list[tuple[str, str, str, str]]:
    data = json.loads(done.stdout)
    return [(e["file"], e["path"], e["kind"], e["detail"]) for e in data["local_edits"]]


def run_pair(root: Path, cache: Path, upstream: Path, a: str, b: str) -> dict[str, object]:
    a_files, _ = pip_release(cache, a)
    b_files, _ = pip_release(cache, b)
    truth, target = vendored_version(a_files), vendored_version(b_files)
    work = root / f"pip-{a}"
    releases = []
    for version in PIP[: PIP.index(a) + 1]:
        files, when = pip_release(cache, version)
        releases.append((version, files, when))
    build_repo(work / "pip", releases)
    shutil.copytree(upstream, work / "requests", symlinks=True)
    git(work / "requests", "checkout", "-q", "--detach", f"v{target}")
    ws = work / "ws"
    ws.mkdir()
    row: dict[str, object] = {"pair": f"{a} -> {b}", "true": truth, "target": target}
    started = time.monotonic()
    init = plait(ws, "init", "--canonical", "../requests", "../pip")
    if init.returncode != 0:
        return row | {"error": f"init: {init.stderr.strip()}"}
    manifest = (ws / "lineages.toml").read_text(encoding="utf-8")
    row["rename"] = "rename = {" in manifest
    adopted = plait(ws, "adopt", "pip", "--json")
    if adopted.returncode != 0:
        return row | {"error": f"adopt: {adopted.stderr.strip()}"}
    chosen = json.loads(adopted.stdout)
    tags = {git(work / "requests", "rev-list", "-n", "1", f"v{v}").strip(): v for v in REQUESTS}
    row["chosen"] = tags.get(chosen["base"]["commit"], chosen["base"]["commit"][:7])
    row["why"] = chosen["reason"]
    mine = edits_of(adopted)
    true_run = plait(ws, "adopt", "pip", "--json", "--dry-run", "--force", "--base", f"v{truth}")
    true_edits = edits_of(true_run) if true_run.returncode == 0 else []
    row["edits"] = len(mine)
    row["spurious"] = len(set(mine) - set(true_edits))
    # The same adopt without the `rename` init wrote: how many import rewrites it would list as local edits.
    bare = work / "ws-without-rename"
    bare.mkdir()
    kept = [line for line in manifest.splitlines() if not line.startswith("rename = {")]
    (bare / "lineages.toml").write_text("\n".join(kept) + "\n", encoding="utf-8")
    without = plait(bare, "adopt", "pip", "--json", "--dry-run", "--force", "--base", f"v{truth}")
    row["import_edits"] = len(set(edits_of(without)) - set(true_edits)) if without.returncode == 0 else "?"
    row["adopt_seconds"] = round(time.monotonic() - started, 1)
    vendored = plait(ws, "vendor", "pip")
    row["vendor_exit"] = vendored.returncode
    differ, conflicted = [], []
    copy = work / "pip" / VENDORED
    names = {p.relative_to(copy).as_posix() for p in copy.rglob("*") if p.is_file() and p.name != "plait.lock"}
    names |= {rel[len(VENDORED) + 1 :] for rel in b_files if rel.startswith(VENDORED + "/")}
    for rel in sorted(n for n in names if "__pycache__" not in n):
        path = copy / rel
        ours = path.read_bytes() if path.is_file() else None
        if ours != b_files.get(f"{VENDORED}/{rel}"):
            differ.append(rel)
            if ours is not None and b"<<<<<<<" in ours:
                conflicted.append(rel)
    row["files"] = len(names)
    row["differ"] = differ
    row["conflicted"] = conflicted
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "plait-adopt-real")
    parser.add_argument("--pairs", default="", help="A:B,... (default: the five of the issue)")
    parser.add_argument("--keep", type=Path, default=None, help="Build the repositories here and keep them.")
    args = parser.parse_args()
    pairs = [tuple(p.split(":")) for p in args.pairs.split(",")] if args.pairs else PAIRS
    download(args.cache)
    root = args.keep or Path(tempfile.mkdtemp(prefix="plait-adopt-real-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        upstream = root / "requests"
        if not upstream.exists():
            releases = []
            for version in REQUESTS:
                files, when = requests_release(args.cache, version)
                releases.append((version, files, when))
            build_repo(upstream, releases)
        rows = [run_pair(root, args.cache, upstream, a, b) for a, b in pairs]  # type: ignore[misc]
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    print(
        f"{'pair':<17} {'true':<7} {'chosen':<7} {'why':<10} {'edits':>5} {'spurious':>8} {'rename':>6}"
        f" {'no-rename':>9} {'differ':>6} {'said':>4}  files differing from pip's next release"
    )
    right = spurious = silent = 0
    for row in rows:
        if "error" in row:
            print(f"{row['pair']:<17} ERROR {row['error']}")
            continue
        ok = row["chosen"] == row["true"]
        right += ok
        spurious += int(row["spurious"])  # type: ignore[call-overload]
        differ, said = list(row["differ"]), list(row["conflicted"])  # type: ignore[call-overload]
        silent += len(differ) - len(said)
        shown = ", ".join(f"{d}{' (conflict)' if d in said else ''}" for d in differ) or "-"
        print(
            f"{row['pair']:<17} {row['true']:<7} {row['chosen']!s:<7} {row['why']!s:<10} {row['edits']!s:>5}"
            f" {row['spurious']!s:>8} {'yes' if row['rename'] else 'no':>6} {row['import_edits']!s:>9}"
            f" {len(differ):>3}/{row['files']!s:<2} {len(said):>4}  {shown}"
        )
    print(
        f"right base {right}/{len(rows)}; spurious local edits {spurious};"
        f" files differing without a conflict {silent} (pip's own rewrites of its patches among them)"
    )


if __name__ == "__main__":
    main()
