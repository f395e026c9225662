"""Bad input is a named error with exit 2, never a traceback or a wait without end (issue 23, items 12, 14, 15).

- TOML holding a 5,000-digit integer (past the interpreter's limit on
  converting long integers) or arrays and tables nested 3,000 deep (past
  the recursion limit), in a manifest, a lock or the sync state, read by
  `status`, `check`, `check --locks` and `merge-lock`;
- ``$PLAIT_LOCK_TIMEOUT`` set to ``nan``, ``inf``, a negative number or a word;
- a file system without ``flock``;
- the temporary manifest a killed `plait init` left, swept by the next one.
"""

from __future__ import annotations

import errno
import subprocess
import sys
from pathlib import Path

import pytest

from plait.commit import workspace_lock
from plait.errors import PlaitError

HUGE = "1" * 5000
DEEP = "[" * 3000 + "]" * 3000
INLINE = "{a = " * 3000 + "1" + "}" * 3000
DOTTED = ".".join(["a"] * 3000)

POISONS = {
    "huge-integer": f"x = {HUGE}\n",
    "deep-arrays": f"x = {DEEP}\n",
    "deep-tables": f"x = {INLINE}\n",
    "deep-dotted-key": f"{DOTTED} = 1\n",
}

MANIFEST = '[canonical]\npackage = "corelib"\npath = "corelib"\n'
LOCK = '# plait.lock\nlock = 1\n\n[source]\nname = "canonical"\npackage = "corelib"\n'


def _plait(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run(
        [sys.executable, "-m", "plait", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def _named(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "error:" in done.stderr
    assert "digits" in done.stderr or "deep" in done.stderr or "dotted" in done.stderr, done.stderr


def _workspace(tmp_path: Path) -> Path:
    (tmp_path / "corelib").mkdir()
    (tmp_path / "corelib" / "__init__.py").write_text("")
    (tmp_path / "lineages.toml").write_text(MANIFEST)
    return tmp_path


@pytest.mark.parametrize("poison", sorted(POISONS))
@pytest.mark.parametrize("command", [["status"], ["check"]])
def test_a_poisoned_manifest_is_named(tmp_path: Path, poison: str, command: list[str]) -> None:
    ws = _workspace(tmp_path)
    (ws / "lineages.toml").write_text(MANIFEST + POISONS[poison])
    _named(_plait(ws, *command))


@pytest.mark.parametrize("poison", sorted(POISONS))
def test_a_poisoned_sync_state_is_named(tmp_path: Path, poison: str) -> None:
    ws = _workspace(tmp_path)
    (ws / ".plait").mkdir()
    (ws / ".plait" / "state.toml").write_text(POISONS[poison])
    _named(_plait(ws, "status"))


@pytest.mark.parametrize("poison", sorted(POISONS))
def test_a_poisoned_lock_is_named_by_check_locks_and_merge_lock(tmp_path: Path, poison: str) -> None:
    vendored = tmp_path / "svc" / "_vendored"
    vendored.mkdir(parents=True)
    (vendored / "plait.lock").write_text(LOCK + POISONS[poison])
    _named(_plait(tmp_path, "check", "--locks", str(tmp_path / "svc")))
    sides = []
    for name in ("base", "ours", "theirs"):
        side = tmp_path / f"{name}.lock"
        side.write_text(LOCK + POISONS[poison])
        sides.append(str(side))
    _named(_plait(tmp_path, "merge-lock", *sides))


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "soon"])
def test_a_lock_timeout_that_is_no_number_of_seconds_is_named(tmp_path: Path, value: str) -> None:
    ws = _workspace(tmp_path)
    done = _plait(ws, "sync", env={"PLAIT_LOCK_TIMEOUT": value})
    assert done.returncode == 2 and "$PLAIT_LOCK_TIMEOUT" in done.stderr, done.stdout + done.stderr


def test_a_file_system_without_flock_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import fcntl

    def no_locks(fd: int, operation: int) -> None:
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    with pytest.raises(PlaitError, match="flock"), workspace_lock(tmp_path / ".plait"):
        pass


def test_init_sweeps_the_manifest_a_killed_init_left(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    corelib = ws / "corelib"
    corelib.mkdir()
    (corelib / "__init__.py").write_text('"""corelib."""\n')
    stale = ws / ".lineages.toml.k1ll3d.plait-tmp"
    stale.write_text("half a manifest")
    done = _plait(ws, "init", "--canonical", "corelib")
    assert done.returncode == 0, done.stdout + done.stderr
    assert not stale.exists() and (ws / "lineages.toml").is_file()
