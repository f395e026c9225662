"""A file plait cannot read, or a directory it cannot write, is one named error (issue 14, defect 7).

It used to be "internal error (PermissionError)".  The tests run plait
without the power to ignore file modes: as an ordinary user, chmod is
enough; as root (CI containers), plait runs under `setpriv` with the
capabilities that bypass file modes dropped, so the modes bind it too.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from bundled_repo import Bundled, bundled_repo
from test_hostile_state import _fingerprint

_CAPS = "-dac_override,-dac_read_search"


def _bound_by_modes(argv: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return argv
    setpriv = shutil.which("setpriv")
    assert setpriv, "as root these tests need util-linux's setpriv to drop the capabilities that bypass file modes"
    return [setpriv, f"--bounding-set={_CAPS}", f"--inh-caps={_CAPS}", *argv]


def _plait(ws: Bundled, *args: str) -> subprocess.CompletedProcess[str]:
    argv = _bound_by_modes([sys.executable, "-m", "plait", "--workspace", str(ws.workspace), *args])
    return subprocess.run(argv, capture_output=True, text=True, timeout=180)


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Bundled]:
    bundled = bundled_repo(tmp_path / "repo")
    yield bundled
    for path in bundled.root.rglob("*"):  # let pytest clean up
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | stat.S_IRWXU)


def _refused(ws: Bundled, *args: str, cause: str) -> str:
    before = _fingerprint(ws.root)
    result = _plait(ws, *args)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr, result.stderr
    said = result.stdout + result.stderr  # status names a lineage's error in its row
    assert cause in said, said
    assert _fingerprint(ws.root) == before
    return said


def test_an_unreadable_lineage_file_is_named(ws: Bundled) -> None:
    target = ws.workspace / "sibling" / "mcp_common" / "cache.py"
    target.chmod(0)
    message = _refused(ws, "sync", cause="Permission denied")
    assert str(target) in message


def test_an_unreadable_lineage_directory_is_named(ws: Bundled) -> None:
    target = ws.workspace / "sibling" / "mcp_common"
    target.chmod(0)
    message = _refused(ws, "status", cause="Permission denied")
    assert str(target) in message


def test_an_unreadable_manifest_is_named(ws: Bundled) -> None:
    manifest = ws.workspace / "lineages.toml"
    manifest.chmod(0)
    message = _refused(ws, "status", cause="Permission denied")
    assert str(manifest) in message


def test_an_unwritable_vendored_directory_is_named_and_nothing_is_written(ws: Bundled) -> None:
    assert ws.plait("sync").returncode == 0
    ws.commit("synced")
    vendored = ws.workspace / "consumers/scheduler/scheduler/_vendor/mcp_common"
    vendored.chmod(0o555)
    message = _refused(ws, "vendor", "scheduler", cause="Permission denied")
    assert str(vendored) in message
    assert not list(vendored.glob(".*.plait-tmp"))
