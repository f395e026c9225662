"""The bundled workspace stays truthful: what lineages.toml names exists, and every
vendored copy matches its lock and is current with its source (`plait check`)."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

from plait.workspace import Workspace

ROOT = Path(__file__).resolve().parent.parent
WORKSPACE = ROOT / "lineages"


def _manifest() -> dict:
    return tomllib.loads((WORKSPACE / "lineages.toml").read_text(encoding="utf-8"))


def test_every_path_in_the_manifest_exists_and_parses() -> None:
    m = _manifest()
    paths = [m["canonical"]["path"]]
    for lineage in m["lineages"].values():
        paths.append(lineage["path"])
    paths += [c["path"] for c in m["consumers"].values()]
    for rel in paths:
        folder = (WORKSPACE / rel).resolve()
        assert folder.is_dir(), rel
        for py in folder.rglob("*.py"):
            ast.parse(py.read_text(encoding="utf-8"), filename=str(py))


def test_plait_check_finds_every_bundled_consumer_in_step_with_its_lock_and_its_source() -> None:
    # The whole command, as CI and the pre-commit hook run it.  When this fails
    # after a change to the canonical client or a lineage, re-vendor:
    # `plait vendor cpersona scheduler`, and commit the vendored files with their locks.
    # mnemo was vendored by hand and is left so, for the demo to adopt: check
    # says so (exit 1, drift) and names adopt, not vendor, as the fix.
    proc = subprocess.run(
        [sys.executable, "-m", "plait", "--workspace", str(WORKSPACE), "check"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert "mnemo: drift in 1 place(s); fix: plait adopt mnemo" in lines
    assert any(line.startswith("mnemo  -  unlocked  no plait.lock: vendored without plait") for line in lines)
    for name in ("cpersona", "scheduler"):
        alone = subprocess.run(
            [sys.executable, "-m", "plait", "--workspace", str(WORKSPACE), "check", name], capture_output=True
        )
        assert alone.returncode == 0, alone.stdout
    # Each copy holds every file of its source, however many the client has.
    ws = Workspace.load(WORKSPACE)
    canonical, upstream = len(ws.read_files(ws.canonical)), len(ws.read_files(ws.lineages["upstream"]))
    assert any(line.startswith(f"cpersona: ok ({canonical} files, vendored from canonical@") for line in lines), lines
    assert any(line.startswith(f"scheduler: ok ({upstream} files, vendored from upstream@") for line in lines), lines
