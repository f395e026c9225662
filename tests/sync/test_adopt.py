"""`plait adopt`: a first base for a fork that never synced, given or found in the source's history."""

from __future__ import annotations

from pathlib import Path

import git
import pytest
from lineage_builders import MANIFEST, write_tree

from plait.errors import PlaitError
from plait.lineage.adopt import adopt
from plait.lineage.sync import sync
from plait.workspace import Workspace


def _client(revision: int, errors: str = ".errors") -> str:
    """The canonical client at *revision*: one more method and a new limit each time."""
    methods = "".join(f"\n    def step_{n}(self, text):\n        return text * {n}\n" for n in range(1, revision + 1))
    return (
        f'"""The client."""\n\nfrom {errors} import Failure\n\n'
        f"LIMIT = {revision * 10}\n\n\n"
        "class Client:\n"
        "    def __init__(self, mode):\n"
        "        self.mode = mode\n"
        f"{methods}"
    )


def _fork_of(revision: int) -> str:
    """The fork as it forked at *revision*, carried into forklib, with an addition of its own."""
    return _client(revision, errors="forklib.errors") + "\n    def via_uds(self, text):\n        return ('uds', text)\n"


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, list[str]]:
    """A workspace whose canonical client went through six revisions; the fork forked at the third."""
    root = tmp_path / "ws"
    repo = git.Repo.init(root)
    with repo.config_writer() as config:
        config.set_value("user", "name", "plait tests")
        config.set_value("user", "email", "tests@plait.invalid")
    (root / "lineages.toml").write_text(MANIFEST)
    write_tree(
        root / "canonical" / "corelib", {"__init__.py": "", "errors.py": "class Failure(Exception):\n    pass\n"}
    )
    shas = []
    for revision in range(1, 7):
        write_tree(root / "canonical" / "corelib", {"client.py": _client(revision)})
        repo.git.add("-A")
        repo.index.commit(f"canonical revision {revision}")
        shas.append(repo.head.commit.hexsha)
    write_tree(
        root / "fork" / "forklib",
        {"__init__.py": "", "errors.py": "class Failure(Exception):\n    pass\n", "core.py": _fork_of(3)},
    )
    repo.git.add("-A")
    repo.index.commit("the fork, as found")
    return root, shas


def test_adopt_finds_the_revision_the_fork_started_from(history: tuple[Path, list[str]]) -> None:
    root, shas = history

    result = adopt(Workspace.load(root), "fork")

    assert result.how == "inferred" and result.candidates == 6
    assert result.chosen is not None and result.chosen.revision.sha == shas[2]
    assert result.runner_up is not None and result.runner_up.revision.sha in (shas[1], shas[3])
    assert (result.chosen.members, result.chosen.lines) < (result.runner_up.members, result.runner_up.lines)
    assert result.why() == "closest by content of 6 revisions of canonical: 1 local edit"
    assert [(e.file, e.path, e.kind) for e in result.local_edits] == [("core.py", "Client.via_uds", "added")]
    record = Workspace.load(root).store.state().record("fork")
    assert record is not None and record.base.commit == shas[2]


def test_after_adopting_the_next_sync_is_a_true_three_way_merge(history: tuple[Path, list[str]]) -> None:
    root, _ = history
    adopt(Workspace.load(root), "fork")

    report = sync(Workspace.load(root))

    core = (root / "fork" / "forklib" / "core.py").read_text()
    assert report.exit_code == 0
    assert "def step_6(self, text):" in core and "LIMIT = 60" in core
    assert "def via_uds(self, text):" in core  # the fork's own method, kept
    assert "kept: Client.via_uds" in [line.text for line in report.plans[0].kept()]


def test_adopt_takes_a_given_revision_or_directory(history: tuple[Path, list[str]], tmp_path: Path) -> None:
    root, shas = history
    result = adopt(Workspace.load(root), "fork", shas[0][:10])
    assert result.how == "revision" and result.base.commit == shas[0]

    given = tmp_path / "as-forked"
    write_tree(
        given, {"__init__.py": "", "errors.py": "class Failure(Exception):\n    pass\n", "client.py": _client(3)}
    )
    result = adopt(Workspace.load(root), "fork", str(given), force=True)
    assert (
        result.how == "path"
        and result.base.commit is None
        and set(result.base.files)
        == {
            "__init__.py",
            "errors.py",
            "client.py",
        }
    )


def test_adopt_refuses_to_replace_a_base_without_force(history: tuple[Path, list[str]]) -> None:
    root, _ = history
    adopt(Workspace.load(root), "fork")
    with pytest.raises(PlaitError, match="already has a base"):
        adopt(Workspace.load(root), "fork")


def test_adopt_without_history_asks_for_a_base(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root).mkdir()
    (root / "lineages.toml").write_text(MANIFEST)
    write_tree(root / "canonical" / "corelib", {"client.py": _client(1)})
    write_tree(root / "fork" / "forklib", {"core.py": _fork_of(1)})
    with pytest.raises(PlaitError, match="no git history for canonical; pass --base PATH"):
        adopt(Workspace.load(root), "fork")


def test_adopt_in_a_shallow_clone_says_how_little_history_it_had(
    history: tuple[Path, list[str]], tmp_path: Path
) -> None:
    root, _ = history
    clone = tmp_path / "clone"
    git.Repo.clone_from(root.as_uri(), clone, multi_options=["--depth", "1"])

    result = adopt(Workspace.load(clone), "fork", dry_run=True)

    # The one commit a --depth 1 clone has: the canonical client at its last revision.
    head = git.Repo(clone).head.commit.hexsha
    assert result.candidates == 1 and result.chosen is not None and result.chosen.revision.sha == head
    assert "LIMIT = 60" in (clone / "canonical" / "corelib" / "client.py").read_text()
    assert result.runner_up is None
    assert any("shallow clone" in note and "--unshallow" in note for note in result.notes)
