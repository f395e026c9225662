"""How fast `plait adopt` walks a source's history: today's walk against the old one, side by side (issue 22).

The old walk read every revision's files with GitPython, carried each whole
revision through the transforms, aligned the copy's import spelling with it
and compared the two member by member: 1.3-1.9 s per revision on a real
package, 378 s for its 200.  The new one lists each revision's blobs, reads
every blob once, ranks the revisions by the lines they share with the copy,
and carries and compares only the closest few.

The history is made from the canonical client of this repository: 200
commits, each changing one of its modules (a function appended, a constant
changed), and a service that vendored revision 20 by hand (imports
rewritten, two local fixes) in a repository of its own, committed after the
last revision so that no date bounds the walk.  Both walks must choose
revision 20; the goal is the new walk over 200 revisions in at most 20 s on
2 cores, about ten times faster than the old.

    python benchmarks/adopt_walk.py [--revisions 200] [--old-revisions N]

``--old-revisions`` times the old walk on fewer revisions and scales it (it
is linear in them) when a full run would take too long.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

from bench_git import git

ROOT = Path(__file__).resolve().parents[1]
CLIENT = ROOT / "client" / "embedding_client"
PACKAGE = "svc._vendored.embedding_client"
MANIFEST = f"""\
[canonical]
package = "embedding_client"
git = "../upstream"
subdir = "embedding_client"

[consumers.svc]
git = "../service"
vendor_dir = "svc/_vendored/embedding_client"
package = "{PACKAGE}"
"""
START = 1_780_000_000


def revision(files: dict[str, str], n: int) -> None:
    """Revision *n*: one module changed, as a day of upstream work changes one."""
    modules = sorted(rel for rel in files if rel.endswith(".py") and rel != "__init__.py")
    rel = modules[n % len(modules)]
    files[rel] += f"\n\ndef _revision_{n}(value):\n    return value + {n}\n"


def build(root: Path, count: int, copied_at: int) -> Path:
    upstream = root / "upstream"
    package = upstream / "embedding_client"
    shutil.copytree(CLIENT, package, ignore=shutil.ignore_patterns("__pycache__"))
    git(upstream, "init", "-q", "-b", "main")
    files = {p.relative_to(package).as_posix(): p.read_text() for p in package.rglob("*") if p.is_file()}
    copy: dict[str, str] = {}
    for n in range(count):
        if n:
            revision(files, n)
            for rel, text in files.items():
                (package / rel).write_text(text)
        git(upstream, "add", "-A")
        git(upstream, "commit", "-q", "-m", f"revision {n}", when=START + n * 3600)
        if n == copied_at:
            copy = dict(files)
    service = root / "service"
    vendored = service / "svc" / "_vendored" / "embedding_client"
    vendored.mkdir(parents=True)
    (service / "svc" / "__init__.py").write_text("")
    (service / "svc" / "_vendored" / "__init__.py").write_text("")
    for rel, text in copy.items():
        # What the service's sed did, and two fixes of its own.
        text = text.replace("from embedding_client.", f"from {PACKAGE}.")
        if rel == "cache.py":
            text = text.replace("return entry[1]", "return list(entry[1])")
        text += "\n\nLOCAL_FIX = True\n" if rel == "packing.py" else ""
        (vendored / rel).write_text(text)
    git(service, "init", "-q", "-b", "main")
    git(service, "add", "-A")
    git(service, "commit", "-q", "-m", "vendor the client by hand", when=START + count * 3600)
    ws = root / "ws"
    ws.mkdir()
    (ws / "lineages.toml").write_text(MANIFEST)
    return ws


class _OldLines:
    """Member sources as the old `plait.lineage.diff.members` cut them: `ast.get_source_segment`,
    which splits the whole module again for every member."""

    def __init__(self, text: str) -> None:
        self.text = text

    def segment(self, node: ast.AST) -> str:
        return ast.get_source_segment(self.text, node) or ""


def old_distance(a_files: Mapping[str, str], b_files: Mapping[str, str]) -> tuple[int, int]:
    """`plait.lineage.diff.distance` as the old walk ran it: both sides parsed on every call."""
    from plait.lineage import diff

    diff._Lines = _OldLines  # type: ignore[assignment,misc]
    member_count = line_count = 0
    for name in set(a_files) | set(b_files):
        a, b = a_files.get(name, ""), b_files.get(name, "")
        if a == b:
            continue
        lines = difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=0)
        line_count += sum(1 for line in lines if line[:1] in "+-" and line[:3] not in ("+++", "---"))
        try:
            ma, mb = diff.members(a), diff.members(b)
        except SyntaxError:
            member_count += 1
            continue
        member_count += len(ma.keys() ^ mb.keys())
        member_count += sum(1 for p in ma.keys() & mb.keys() if ma[p].shape != mb[p].shape)
    return member_count, line_count


def old_walk(ws_dir: Path, limit: int) -> str:
    """The walk `plait adopt` made before issue 22: the newest *limit* revisions, each one whole."""
    from plait import gitops
    from plait.vendoring.vendor import align_spelling, carry, vendored_files
    from plait.workspace import Workspace

    ws = Workspace.load(ws_dir)
    consumer = ws.consumers["svc"]
    source = ws.copy("canonical")
    _raw, ours = vendored_files(ws, consumer)
    best: tuple[tuple[int, int, int], str] | None = None
    for age, rev in enumerate(gitops.history(source.root, limit=limit)):
        files = gitops.files_at(source.root, rev.sha)
        theirs = carry(consumer, source, files)
        mine = {k: v for k, v in ours.items() if k in theirs}
        members, lines = old_distance(theirs, align_spelling(mine, theirs, consumer.package))
        key = ((members, lines, age), rev.sha)
        best = key if best is None or key < best else best
    assert best is not None
    return best[1]


def new_walk(ws_dir: Path) -> tuple[str, int]:
    from plait.lineage.adopt import adopt
    from plait.workspace import Workspace

    result = adopt(Workspace.load(ws_dir), "svc", dry_run=True)
    assert result.base.commit is not None
    return result.base.commit, result.candidates


def fresh(fn, *args):  # type: ignore[no-untyped-def]
    """*fn* in a process of its own, so neither walk profits from the other's caches."""
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(1) as pool:
        started = time.perf_counter()
        value = pool.apply(fn, args)
        return value, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--revisions", type=int, default=200)
    parser.add_argument("--old-revisions", type=int, default=None)
    parser.add_argument("--copied-at", type=int, default=20)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="plait-adopt-walk-"))
    try:
        ws = build(root, args.revisions, args.copied_at)
        from plait import gitops

        upstream = ws.parent / "upstream"
        truth = subprocess.run(
            ["git", "rev-list", "--reverse", "HEAD"], cwd=upstream, capture_output=True, text=True, check=True
        ).stdout.split()[args.copied_at]
        (chosen_new, compared), new_seconds = fresh(new_walk, ws)
        old_count = args.old_revisions or args.revisions
        chosen_old, old_seconds = fresh(old_walk, ws, old_count)
        old_scaled = old_seconds * args.revisions / old_count
        del gitops
    finally:
        shutil.rmtree(root, ignore_errors=True)
    per_new, per_old = new_seconds / args.revisions, old_scaled / args.revisions
    print(f"{'walk':<5} {'revisions':>9} {'seconds':>8} {'s/revision':>10}  chose revision {args.copied_at}")
    # Walking only the newest revisions, the old walk cannot reach revision 20: its choice says nothing then.
    old_chose = str(chosen_old == truth) if old_count == args.revisions else f"n/a (the newest {old_count} only)"
    print(f"{'old':<5} {old_count:>9} {old_seconds:>8.1f} {per_old:>10.3f}  {old_chose}")
    print(f"{'new':<5} {compared:>9} {new_seconds:>8.1f} {per_new:>10.3f}  {chosen_new == truth}")
    ratio = old_scaled / new_seconds
    verdict = "PASS" if new_seconds <= 20 and ratio >= 10 and chosen_new == truth else "MISS"
    scaled = f" (old scaled from {old_count})" if old_count != args.revisions else ""
    print(
        f"{verdict}: {args.revisions} revisions in {new_seconds:.1f} s (goal <= 20 s), {ratio:.1f}x faster than"
        f" the old walk{scaled} (goal >= 10x)"
    )
    sys.exit(0)


if __name__ == "__main__":
    main()
