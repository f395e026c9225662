"""`plait merge %O %A %B` as a real git merge driver, in a throwaway repo.

Two branches add a method at the same spot of one class.  Plain git would
conflict on that; with the driver configured the merge succeeds and both
methods are there, ours first.  A real conflict still stops `git merge`, and
the file carries plait's markers around the narrowest region.
"""

from __future__ import annotations

import ast
import shlex
import sys
from pathlib import Path

import git
import pytest

BASE = '''"""Client."""


class Client:
    def __init__(self, mode):
        self.mode = mode
        self.limit = 10

    def embed(self, text):
        return [text]
'''

MAIN_METHOD = """
    def close(self):
        return None
"""

FEATURE_METHOD = """
    def health(self):
        return "ok"
"""


@pytest.fixture(autouse=True)
def _isolated_git(monkeypatch, tmp_path):
    """No outer repository (a hook's GIT_DIR) or user config leaks into the test repo."""
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_CONFIG_GLOBAL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def _driver_command() -> str:
    # The interpreter running the tests has plait installed; it is also the
    # one `plait` would run, without depending on a shim on PATH.
    return f"{shlex.quote(sys.executable)} -m plait merge %O %A %B -L %L -P %P"


def _repo(path: Path, driver: bool) -> git.Repo:
    path = path / "repo"
    path.mkdir()
    repo = git.Repo.init(path, initial_branch="main")
    with repo.config_writer() as cfg:
        cfg.set_value("user", "name", "plait tests")
        cfg.set_value("user", "email", "tests@plait.invalid")
        cfg.set_value("commit", "gpgsign", "false")
        if driver:
            cfg.set_value('merge "plait"', "name", "plait structured merge")
            cfg.set_value('merge "plait"', "driver", _driver_command())
    if driver:
        (path / ".gitattributes").write_text("*.py merge=plait\n")
        repo.index.add([".gitattributes"])
    (path / "client.py").write_text(BASE)
    repo.index.add(["client.py"])
    repo.index.commit("base")
    return repo


def _commit_on(repo: git.Repo, branch: str, text: str, message: str) -> None:
    repo.git.checkout(branch)
    (Path(repo.working_tree_dir) / "client.py").write_text(text)
    repo.index.add(["client.py"])
    repo.index.commit(message)


def _branch_and_edit(repo: git.Repo, ours: str, theirs: str) -> None:
    """`feature` gets `theirs`, `main` gets `ours`, and `main` is checked out."""
    repo.git.branch("feature")
    _commit_on(repo, "feature", theirs, "feature side")
    _commit_on(repo, "main", ours, "main side")


def test_plain_git_conflicts_on_methods_added_at_the_same_spot(tmp_path):
    """The control: without the driver, this scenario is a git conflict."""
    repo = _repo(tmp_path, driver=False)
    _branch_and_edit(repo, BASE + MAIN_METHOD, BASE + FEATURE_METHOD)
    with pytest.raises(git.GitCommandError):
        repo.git.merge("feature", "--no-edit")
    assert "<<<<<<<" in (tmp_path / "repo" / "client.py").read_text()


def test_driver_merges_methods_added_at_the_same_spot(tmp_path):
    repo = _repo(tmp_path, driver=True)
    _branch_and_edit(repo, BASE + MAIN_METHOD, BASE + FEATURE_METHOD)

    repo.git.merge("feature", "--no-edit")  # raises on a conflict

    merged = (tmp_path / "repo" / "client.py").read_text()
    tree = ast.parse(merged)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Client")
    methods = [n.name for n in cls.body if isinstance(n, ast.FunctionDef)]
    assert methods == ["__init__", "embed", "close", "health"], merged  # ours (main) first
    assert "<<<<<<<" not in merged
    assert not repo.is_dirty(untracked_files=True)
    head = repo.head.commit
    assert len(head.parents) == 2, "not a merge commit"
    assert head.tree["client.py"].data_stream.read().decode() == merged


def test_driver_reports_a_real_conflict_with_plait_markers(tmp_path):
    repo = _repo(tmp_path, driver=True)
    ours = BASE.replace("self.limit = 10", "self.limit = 20") + MAIN_METHOD
    theirs = BASE.replace("self.limit = 10", "self.limit = 30") + FEATURE_METHOD
    _branch_and_edit(repo, ours, theirs)

    with pytest.raises(git.GitCommandError) as info:
        repo.git.merge("feature", "--no-edit")
    assert "CONFLICT" in str(info.value)
    # plait's own stderr line, naming the node path, comes through git.
    assert "Client.__init__" in str(info.value)

    merged = (tmp_path / "repo" / "client.py").read_text()
    lines = merged.splitlines()
    for marker in ("<<<<<<< ours", "||||||| base", "=======", ">>>>>>> theirs"):
        assert marker in lines, merged
    # Narrow: only the one statement is in conflict; both added methods merged.
    region = merged[merged.index("<<<<<<< ours") : merged.index(">>>>>>> theirs")]
    assert "self.limit = 20" in region and "self.limit = 30" in region and "self.limit = 10" in region
    assert "def close" not in region and "def health" not in region
    assert "def close" in merged and "def health" in merged
    assert merged.index("def close") < merged.index("def health")
    # git records the path as unmerged.
    assert "client.py" in repo.index.unmerged_blobs()
    # -P: plait names the repository path, not git's temporary file.
    assert "CONFLICT client.py: Client.__init__" in str(info.value)


def test_driver_honours_gits_conflict_marker_size(tmp_path):
    """git passes `conflict-marker-size` from .gitattributes as %L; plait's markers follow it."""
    repo = _repo(tmp_path, driver=True)
    (tmp_path / "repo" / ".gitattributes").write_text("*.py merge=plait conflict-marker-size=11\n")
    repo.index.add([".gitattributes"])
    repo.index.commit("longer markers")
    ours = BASE.replace("self.limit = 10", "self.limit = 20")
    theirs = BASE.replace("self.limit = 10", "self.limit = 30")
    _branch_and_edit(repo, ours, theirs)
    with pytest.raises(git.GitCommandError):
        repo.git.merge("feature", "--no-edit")
    lines = (tmp_path / "repo" / "client.py").read_text().splitlines()
    assert "<" * 11 + " ours" in lines and ">" * 11 + " theirs" in lines and "=" * 11 in lines
    assert "<<<<<<< ours" not in lines
