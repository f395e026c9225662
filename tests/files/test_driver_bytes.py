"""`plait merge %O %A %B` as git's merge driver on files that are not UTF-8 (issue 30).

As git's driver, plait exited 2 on a latin-1 file: git was left with a
conflict and no markers, the other branch's edit missing, where git's own
merge was clean.  The merge exits 2 only where git could not merge either:
a file plait cannot read as Python is git's line merge of its bytes; one
that declares its encoding is Python, merged as such and written back in
it; a binary file is git's binary merge (ours kept, a conflict).
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import git


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_CONFIG_GLOBAL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for key, value in (("user.name", "plait tests"), ("user.email", "t@plait.invalid"), ("commit.gpgsign", "false")):
        git(root, "config", key, value)
    driver = f"{shlex.quote(sys.executable)} -m plait merge %O %A %B -L %L -P %P"
    git(root, "config", "merge.plait.name", "plait structured merge")
    git(root, "config", "merge.plait.driver", driver)
    (root / ".gitattributes").write_text("*.py merge=plait\n")
    return root


def _branches(root: Path, base: bytes, main: bytes, feature: bytes) -> subprocess.CompletedProcess[str]:
    """Commit *base*, then *main* on main and *feature* on feature, and merge feature into main."""
    path = root / "legacy.py"
    path.write_bytes(base)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    git(root, "checkout", "-q", "-b", "feature")
    path.write_bytes(feature)
    git(root, "commit", "-q", "-am", "feature")
    git(root, "checkout", "-q", "main")
    path.write_bytes(main)
    git(root, "commit", "-q", "-am", "main")
    return subprocess.run(["git", "merge", "--no-edit", "feature"], cwd=root, capture_output=True, text=True)


LATIN1 = "# -*- coding: latin-1 -*-\nGREETING = 'café'\n\n\ndef one():\n    return 1\n\n\ndef two():\n    return 2\n"


def test_a_latin1_file_without_a_declaration_is_gits_line_merge_of_its_bytes(repo: Path) -> None:
    base = "GREETING = 'café'\nA = 1\nB = 2\nC = 3\nD = 4\n".encode("latin-1")
    main = base.replace(b"A = 1", b"A = 10")
    feature = base.replace(b"D = 4", b"D = 40")
    done = _branches(repo, base, main, feature)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (repo / "legacy.py").read_bytes() == base.replace(b"A = 1", b"A = 10").replace(b"D = 4", b"D = 40")


def test_a_declared_latin1_file_merges_as_python_and_stays_latin1(repo: Path) -> None:
    base = LATIN1.encode("latin-1")
    # Both add a function at the same place: git's lines conflict, plait's structure does not.
    main = (LATIN1 + "\n\ndef three():\n    return 'trois à'\n").encode("latin-1")
    feature = (LATIN1 + "\n\ndef four():\n    return 'quatre é'\n").encode("latin-1")
    done = _branches(repo, base, main, feature)
    assert done.returncode == 0, done.stdout + done.stderr
    merged = (repo / "legacy.py").read_bytes()
    text = merged.decode("latin-1")
    assert "def three()" in text and "def four()" in text and "GREETING = 'café'" in text
    compile(merged, "legacy.py", "exec")  # Python reads it by its declaration


def test_a_latin1_conflict_has_markers_and_the_bytes_of_both_sides(repo: Path) -> None:
    base = "A = 'é'\nB = 2\n".encode("latin-1")
    done = _branches(repo, base, base.replace(b"\xe9", b"\xe8"), base.replace(b"\xe9", b"\xea"))
    assert done.returncode == 1
    merged = (repo / "legacy.py").read_bytes()
    assert b"<<<<<<<" in merged and b"'\xe8'" in merged and b"'\xea'" in merged


def test_a_binary_file_is_gits_binary_merge_ours_kept_in_conflict(repo: Path) -> None:
    base = b"\0\1\2 blob"
    done = _branches(repo, base, base + b" main", base + b" feature")
    assert done.returncode == 1
    assert (repo / "legacy.py").read_bytes() == base + b" main"
    assert "binary" in done.stdout + done.stderr
