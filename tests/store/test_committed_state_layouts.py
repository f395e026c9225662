"""The prune keeps what HEAD's committed state names, wherever the manifest sits (issue 23, item 1).

`gitops.committed()` used to strip ``./`` characters from the front of the
path it asked git for (``rel.lstrip("./")``), which turns
``.plait/state.toml`` into ``plait/state.toml``: with the manifest at the top
of its repository (the layout `plait init` writes) the committed state was
never read, and the bases it named were pruned.  Both layouts are run here:
the manifest at the repository's top, and one directory down.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import git
import pytest
from lineage_builders import CANONICAL, CLIENT_V2, FORK, MANIFEST, client_source, write_tree

from plait import gitops

pytestmark = pytest.mark.slow  # whole workflows in real repositories


def _plait(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plait", "--workspace", str(ws), *args], capture_output=True, text=True, timeout=300
    )


def _layout(tmp_path: Path, down: str) -> tuple[Path, git.Repo]:
    top = tmp_path / "repo"
    ws = top / down if down else top
    write_tree(ws / "canonical" / "corelib", CANONICAL)
    write_tree(ws / "fork" / "forklib", FORK)
    (ws / "lineages.toml").write_text(MANIFEST, encoding="utf-8")
    repo = git.Repo.init(top)
    with repo.config_writer() as config:
        config.set_value("user", "name", "plait tests")
        config.set_value("user", "email", "tests@plait.invalid")
    repo.git.add("-A")
    repo.index.commit("canonical and fork")
    return ws, repo


@pytest.mark.parametrize("down", ["", "ws"], ids=["manifest-at-the-top", "one-directory-down"])
def test_a_base_named_only_by_the_committed_state_is_kept(tmp_path: Path, down: str) -> None:
    ws, repo = _layout(tmp_path, down)
    prefix = f"{down}/" if down else ""
    adopted = _plait(ws, "adopt", "fork", "--base", "HEAD")
    assert adopted.returncode == 0, adopted.stderr
    repo.git.add("-A")
    repo.index.commit("adopt")
    # A sync whose state is committed with `git commit -a`: its new objects are not.
    write_tree(ws / "canonical" / "corelib", {"client.py": CLIENT_V2})
    repo.git.add("-A")
    repo.index.commit("canonical v2")
    assert _plait(ws, "sync").returncode == 0
    repo.git.commit("-q", "-am", "s")
    # Another sync, then the state and the fork back as committed: their base must still be there.
    write_tree(
        ws / "canonical" / "corelib",
        {"client.py": client_source(fetch_many=True, http_version=True, message="repr(exc)")},
    )
    repo.git.add(f"{prefix}canonical")
    repo.index.commit("canonical v3")
    assert _plait(ws, "sync").returncode == 0
    repo.git.checkout("HEAD", "--", f"{prefix}.plait/state.toml", f"{prefix}fork")
    again = _plait(ws, "sync")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "missing" not in again.stderr


@pytest.mark.parametrize("down", ["", "ws"], ids=["manifest-at-the-top", "one-directory-down"])
def test_committed_reads_a_dot_directory_at_any_depth(tmp_path: Path, down: str) -> None:
    ws, repo = _layout(tmp_path, down)
    state = ws / ".plait" / "state.toml"
    state.parent.mkdir()
    state.write_text("# committed\n")
    repo.git.add("-A")
    repo.index.commit("a state")
    state.write_text("# on disk\n")
    assert gitops.committed(state) == b"# committed\n"
    assert gitops.committed(ws / ".plait" / "missing.toml") is None


@pytest.mark.parametrize("down", ["", "ws"], ids=["manifest-at-the-top", "one-directory-down"])
def test_an_abort_keeps_the_bases_a_committed_conflict_names(tmp_path: Path, down: str) -> None:
    ws, repo = _layout(tmp_path, down)
    prefix = f"{down}/" if down else ""
    assert _plait(ws, "adopt", "fork", "--base", "HEAD").returncode == 0
    repo.git.add("-A")
    repo.index.commit("adopt")
    # Both sides change the same message: the sync conflicts, and the conflict is committed.
    core = ws / "fork" / "forklib" / "core.py"
    core.write_text(core.read_text().replace("raise Failure(str(exc))", 'raise Failure("fork: " + str(exc))'))
    write_tree(ws / "canonical" / "corelib", {"client.py": client_source(message="repr(exc)")})
    repo.git.add("-A")
    repo.index.commit("canonical: another catch")
    assert _plait(ws, "sync").returncode == 1
    repo.git.add("-A")
    repo.index.commit("the conflict, to resolve later")
    aborted = _plait(ws, "sync", "--abort")
    assert aborted.returncode == 0, aborted.stdout + aborted.stderr
    # Back to the committed conflict: every base it names is still in the store.
    repo.git.checkout("HEAD", "--", f"{prefix}.plait/state.toml", f"{prefix}fork")
    again = _plait(ws, "sync", "--abort")
    assert again.returncode == 0, again.stdout + again.stderr
