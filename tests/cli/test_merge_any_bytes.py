"""`plait merge` and `plait merge-lock` take any bytes git hands them (issue 23, items 6 and 15).

As git's driver, `plait merge` used to drop a statement without a marker
when a file's last line had no newline or its lines ended with a bare CR:
base ``a = 1; b = 2``, ours ``a = 10``, theirs ``b = 20`` wrote ours as
``a = 10`` alone and exited 1.  Every variant here must either merge with
every statement of both sides, or conflict with markers.  `merge-lock` on a
FIFO hung and on /dev/zero ate memory.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BASE = ["def f():", "    a = 1", "    b = 2"]
OURS = ["def f():", "    a = 10", "    b = 2"]
THEIRS = ["def f():", "    a = 1", "    b = 20"]

VARIANTS = {
    "no-trailing-newline": ("\n", ""),
    "cr-only": ("\r", "\r"),
    "cr-only-no-trailing": ("\r", ""),
    "crlf-no-trailing": ("\r\n", ""),
    "crlf": ("\r\n", "\r\n"),
}


def _driver(tmp_path: Path, base: bytes, ours: bytes, theirs: bytes) -> tuple[int, bytes, str]:
    paths = []
    for name, data in (("base", base), ("ours", ours), ("theirs", theirs)):
        path = tmp_path / name
        path.write_bytes(data)
        paths.append(str(path))
    done = subprocess.run(
        [sys.executable, "-m", "plait", "merge", *paths, "-L", "7", "-P", "pkg/m.py"],
        capture_output=True,
        timeout=120,
    )
    return done.returncode, (tmp_path / "ours").read_bytes(), done.stderr.decode()


def _kept_or_marked(code: int, text: str) -> None:
    if code == 0:
        assert "a = 10" in text and "b = 20" in text, text
        compile(text, "m.py", "exec")
    else:
        assert code == 1 and "<<<<<<<" in text and ">>>>>>>" in text, text


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_statement_is_kept_whatever_the_line_endings(tmp_path: Path, variant: str) -> None:
    eol, last = VARIANTS[variant]
    files = [(eol.join(lines) + last).encode() for lines in (BASE, OURS, THEIRS)]
    code, merged, stderr = _driver(tmp_path, *files)
    assert code == 0, stderr
    text = merged.decode()
    _kept_or_marked(code, text.replace("\r\n", "\n").replace("\r", "\n"))
    # Written in ours' own line ending, and without a final newline when neither side had one.
    assert text.replace(eol, "") == text.replace("\r", "").replace("\n", "")
    assert text.endswith(eol) == bool(last)


def test_mixed_line_endings_keep_every_statement(tmp_path: Path) -> None:
    base = b"def f():\n    a = 1\r\n    b = 2\r"
    ours = b"def f():\n    a = 10\r\n    b = 2\r"
    theirs = b"def f():\n    a = 1\r\n    b = 20\r"
    code, merged, stderr = _driver(tmp_path, base, ours, theirs)
    _kept_or_marked(code, merged.decode().replace("\r\n", "\n").replace("\r", "\n"))


def test_a_side_left_alone_gives_the_other_side_byte_for_byte(tmp_path: Path) -> None:
    base = "\r".join(BASE).encode()
    theirs = "\r".join(THEIRS).encode()
    code, merged, _ = _driver(tmp_path, base, base, theirs)
    assert code == 0 and merged == theirs


@pytest.mark.parametrize("which", [0, 1, 2])
@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_merge_lock_refuses_a_fifo_or_a_device_instead_of_hanging(tmp_path: Path, which: int, kind: str) -> None:
    lock = '# plait.lock\nlock = 1\n\n[source]\nname = "canonical"\npackage = "corelib"\n'
    paths = []
    for name in ("base", "ours", "theirs"):
        path = tmp_path / f"{name}.lock"
        path.write_text(lock)
        paths.append(str(path))
    if kind == "fifo":
        os.unlink(paths[which])
        os.mkfifo(paths[which])
    else:
        paths[which] = "/dev/zero"
    done = subprocess.run(
        [sys.executable, "-m", "plait", "merge-lock", *paths], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "not a regular file" in done.stderr and "Traceback" not in done.stderr
