"""How fast `plait check` is, next to the floor of hashing the same files.

It generates a workspace of 50 consumers, each vendoring a 10-file package
(the canonical client's modules plus two more), vendors them all with
`plait.vendoring.vendor.vendor`, then times, interleaved:

* ``plait check`` as CI runs it: the whole command, process start included;
* ``sha256sum`` of the same 500 vendored files: the floor, one process;
* ``python -c pass`` with the same interpreter: what any Python command pays
  before doing anything (shown for information).

Run: ``python benchmarks/check_speed.py [--consumers 50] [--repeat 15]``.
Not a test: it prints a table with PASS/MISS per goal and always exits 0.
Goals: at most 0.5 s wall, and at most 3x the sha256sum floor.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from plait.vendoring.vendor import vendor
from plait.workspace import Workspace

REPO = Path(__file__).resolve().parent.parent
CANONICAL = REPO / "client" / "embedding_client"
FILES_PER_CONSUMER = 10
GOAL_SECONDS = 0.5
GOAL_RATIO = 3.0


def build(root: Path, consumers: int) -> list[Path]:
    """A workspace with a 10-file canonical package and *consumers* consumers, vendored; the vendored files."""
    package = root / "canonical" / "embedding_client"
    shutil.copytree(CANONICAL, package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    extra = FILES_PER_CONSUMER - sum(1 for p in package.iterdir() if p.is_file())
    for n in range(extra):
        body = "".join(f"def helper_{n}_{i}(value):\n    return value * {i}\n\n\n" for i in range(40))
        (package / f"extra_{n}.py").write_text(
            f'"""Generated module {n}."""\n\nfrom .cache import TTLCache\n\n\n{body}'
        )
    manifest = ['[canonical]\npackage = "embedding_client"\npath = "canonical/embedding_client"\n']
    for i in range(consumers):
        name = f"svc{i:03d}"
        (root / "consumers" / name / name / "_vendor").mkdir(parents=True)
        (root / "consumers" / name / name / "__init__.py").write_text("")
        (root / "consumers" / name / name / "_vendor" / "__init__.py").write_text("")
        manifest.append(
            f'[consumers.{name}]\npath = "consumers/{name}"\nvendor_dir = "{name}/_vendor/embedding_client"\n'
            f'package = "{name}._vendor.embedding_client"\n'
        )
    (root / "lineages.toml").write_text("\n".join(manifest))
    report = vendor(Workspace.load(root), jobs=os.cpu_count() or 1)
    assert report.exit_code == 0, report.notes
    files = sorted(p for p in (root / "consumers").rglob("*") if p.is_file() and "_vendor/embedding_client" in str(p))
    return [p for p in files if p.name != "plait.lock"]


def timed(argv: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{argv[0]} failed ({proc.returncode}): {proc.stderr.strip()}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--consumers", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    plait = Path(sys.executable).parent / "plait"
    if not plait.exists():
        raise SystemExit(f"no plait console script beside {sys.executable}; pip install -e ./client -e . first")
    sha256sum = shutil.which("sha256sum")
    if sha256sum is None:
        raise SystemExit("sha256sum is not on PATH")

    with tempfile.TemporaryDirectory(prefix="plait-check-speed-") as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        files = build(root, args.consumers)
        print(
            f"{args.consumers} consumers x {FILES_PER_CONSUMER} files = {len(files)} vendored files "
            f"({sum(p.stat().st_size for p in files) / 1e6:.1f} MB), vendored in {time.perf_counter() - started:.1f} s"
        )
        commands = {
            "plait check": [str(plait), "--workspace", str(root), "check"],
            "sha256sum (floor)": [sha256sum, *map(str, files)],
            "python -c pass": [sys.executable, "-c", "pass"],
        }
        samples: dict[str, list[float]] = {name: [] for name in commands}
        for argv in commands.values():
            timed(argv, root)  # warm the page cache and the interpreter's imports
        for _ in range(args.repeat):
            for name, argv in commands.items():
                samples[name].append(timed(argv, root))

    median = {name: statistics.median(values) for name, values in samples.items()}
    ratio = median["plait check"] / median["sha256sum (floor)"]
    print(f"\n{'command':<20} {'median':>10} {'min':>10}")
    for name, values in samples.items():
        print(f"{name:<20} {median[name] * 1000:>8.1f}ms {min(values) * 1000:>8.1f}ms")
    wall_ok = median["plait check"] <= GOAL_SECONDS
    ratio_ok = ratio <= GOAL_RATIO
    print(
        f"\nplait check, wall: {median['plait check']:.3f} s (goal <= {GOAL_SECONDS} s)",
        "PASS" if wall_ok else "MISS",
    )
    print(f"plait check / sha256sum: {ratio:.2f}x (goal <= {GOAL_RATIO}x)  {'PASS' if ratio_ok else 'MISS'}")
    print(f"plait check beyond interpreter start: {(median['plait check'] - median['python -c pass']) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
