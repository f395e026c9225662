"""`install-merge-driver` writes patterns that match exactly the vendored files, or nothing (issue 23, items 9, 16).

git reads ``#`` at the start of a pattern as a comment, ``!`` as a negation
(which .gitattributes forbids), and ``* ? [ ]`` and ``\\`` as glob syntax
anywhere: a vendored directory named with any of them used to get patterns
that matched nothing, or more than its own files (``st*r`` also matched
``stxr``).  Every pattern is now escaped and put to ``git check-attr`` on the
real files before anything is written.  A ``.gitattributes`` that is a
symlink is refused: writing through it copied its target (any file) into a
file the user is told to commit.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import git
import pytest

from plait.errors import PlaitError
from plait.vendoring.drivers import install_merge_driver

NAMES = ["#hash", "!bang", "q[ab]", "st*r", "what?", "back\\slash", "with space", 'quo"te']


def _repo(tmp_path: Path, vendored: list[str], others: list[str]) -> tuple[Path, git.Repo]:
    top = tmp_path / "repo"
    for rel in vendored:
        (top / rel).mkdir(parents=True)
        (top / rel / "plait.lock").write_text("lock = 1\n")
        (top / rel / "client.py").write_text("A = 1\n")
    for rel in others:
        (top / rel).parent.mkdir(parents=True, exist_ok=True)
        (top / rel).write_text("B = 2\n")
    repo = git.Repo.init(top)
    repo.git.add("-A")
    repo.index.commit("vendored")
    return top, repo


def _attr(repo: git.Repo, path: str) -> str:
    return str(repo.git.check_attr("merge", "--", path)).rsplit(": ", 1)[-1]


@pytest.mark.parametrize("where", ["", "svc/"], ids=["at-the-top", "nested"])
@pytest.mark.parametrize("name", NAMES)
def test_a_vendored_directory_named_with_pattern_syntax_gets_exactly_its_files(
    tmp_path: Path, name: str, where: str
) -> None:
    vendored = f"{where}{name}"
    decoys = [f"{where}{d}" for d in ("stxr/client.py", "qa/client.py", "whatx/client.py", "other.py")]
    top, repo = _repo(tmp_path, [vendored], decoys)
    install = install_merge_driver(top, python=sys.executable)
    assert install.added
    assert _attr(repo, f"{vendored}/client.py") == "plait"
    assert _attr(repo, f"{vendored}/plait.lock") == "plait-lock"
    for decoy in decoys:
        assert _attr(repo, decoy) == "unspecified", (decoy, (top / ".gitattributes").read_text())
    warned = repo.git.status("--porcelain")  # a negated pattern made every git command warn
    assert "Negative patterns" not in warned


def test_a_gitattributes_symlink_is_refused_and_its_target_never_read(tmp_path: Path) -> None:
    top, repo = _repo(tmp_path, ["svc/_vendored"], [])
    secret = tmp_path / "secret.txt"
    secret.write_text("the secret\n")
    os.symlink(secret, top / ".gitattributes")
    with pytest.raises(PlaitError, match="symlink"):
        install_merge_driver(top, python=sys.executable)
    assert (top / ".gitattributes").is_symlink() and secret.read_text() == "the secret\n"


def test_the_cli_names_a_symlinked_gitattributes_with_exit_2(tmp_path: Path) -> None:
    import subprocess

    top, _repo_ = _repo(tmp_path, ["svc/_vendored"], [])
    os.symlink(tmp_path / "secret.txt", top / ".gitattributes")
    (tmp_path / "secret.txt").write_text("the secret\n")
    done = subprocess.run(
        [sys.executable, "-m", "plait", "install-merge-driver", str(top)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2 and "symlink" in done.stderr and "the secret" not in done.stdout + done.stderr
