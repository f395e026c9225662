"""The manifest: what it declares, what it refuses, and what survives a write."""

from __future__ import annotations

from pathlib import Path

import pytest
from lineage_builders import CANONICAL, FORK, MANIFEST, make_scenario, write_tree

from plait.errors import PlaitError
from plait.lineage.adopt import adopt
from plait.session import new_transaction
from plait.workspace import Workspace, locate


def _workspace(root: Path, manifest: str) -> Workspace:
    write_tree(root / "canonical" / "corelib", CANONICAL)
    write_tree(root / "fork" / "forklib", FORK)
    (root / "lineages.toml").write_text(manifest, encoding="utf-8")
    return Workspace.load(root)


def test_comments_and_order_survive_a_write(tmp_path: Path) -> None:
    manifest = (
        MANIFEST
        + '\n[lineages.fork2]\npath = "fork/forklib"\npackage = "forklib"\nbase = "old/bases/fork2"  # hand-kept\n'
    )
    ws = _workspace(tmp_path, manifest)

    # adopt drops a hand-kept 'base' key once the base is in the store.
    result = adopt(ws, "fork2", str(tmp_path / "canonical" / "corelib"))

    assert result.notes and "base" in result.notes[0]
    written = (tmp_path / "lineages.toml").read_text()
    assert written == manifest.replace('base = "old/bases/fork2"  # hand-kept\n', "")
    assert "# A test workspace.  This comment, and the order below, must survive writes." in written
    assert 'path = "fork/forklib"   # where the fork lives' in written


def test_stage_manifest_writes_the_edited_document_with_its_comments(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, MANIFEST)
    ws.document["lineages"]["fork"]["description"] = "renamed"
    txn = new_transaction(ws)
    ws.stage_manifest(txn)
    txn.commit()
    written = (tmp_path / "lineages.toml").read_text()
    assert 'description = "renamed"' in written
    assert written.splitlines()[0] == MANIFEST.splitlines()[0]
    assert Workspace.load(tmp_path).lineages["fork"].description == "renamed"


def test_a_cycle_is_an_error_that_names_it(tmp_path: Path) -> None:
    manifest = MANIFEST.replace('syncs_from = "canonical"', 'syncs_from = "b"') + (
        '\n[lineages.b]\npath = "fork/forklib"\npackage = "forklib"\nsyncs_from = "c"\n'
        '\n[lineages.c]\npath = "fork/forklib"\npackage = "forklib"\nsyncs_from = "fork"\n'
    )
    ws = _workspace(tmp_path, manifest)
    with pytest.raises(PlaitError, match="cycle: fork -> b -> c -> fork"):
        ws.sync_order()


def test_an_unknown_source_is_named(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, MANIFEST.replace('syncs_from = "canonical"', 'syncs_from = "nowhere"'))
    with pytest.raises(PlaitError, match="syncs from 'nowhere', which the manifest does not declare"):
        ws.sync_order()


@pytest.mark.parametrize(
    ("old", "new", "cause"),
    [
        ('path = "fork/forklib"', 'path = "../../etc"', "escapes the workspace"),
        ('path = "canonical/corelib"', 'path = "/usr/lib/python3"', "escapes the workspace"),
        ('"client.py" = "core.py"', '"client.py" = "../core.py"', "must be a plain relative path"),
    ],
)
def test_a_path_escaping_the_workspace_is_refused(tmp_path: Path, old: str, new: str, cause: str) -> None:
    root = tmp_path / "ws"
    with pytest.raises(PlaitError, match=cause):
        _workspace(root, MANIFEST.replace(old, new))


def test_a_symlinked_lineage_directory_leading_outside_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write_tree(outside, FORK)
    root = tmp_path / "ws"
    write_tree(root / "canonical" / "corelib", CANONICAL)
    (root / "fork").mkdir()
    (root / "fork" / "forklib").symlink_to(outside)
    (root / "lineages.toml").write_text(MANIFEST)
    with pytest.raises(PlaitError, match="escapes the workspace"):
        Workspace.load(root)


def test_locate_prefers_the_option_then_the_environment_then_the_nearest_manifest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = make_scenario(tmp_path / "a"), make_scenario(tmp_path / "b")
    deep = a.fork / "deeper"
    deep.mkdir()
    monkeypatch.delenv("PLAIT_WORKSPACE", raising=False)
    assert locate(cwd=deep) == a.root / "lineages.toml"
    monkeypatch.setenv("PLAIT_WORKSPACE", str(b.root))
    assert locate(cwd=deep) == b.root / "lineages.toml"
    assert locate(a.root, cwd=deep) == a.root / "lineages.toml"
    with pytest.raises(PlaitError, match="no lineages.toml here"):
        locate(tmp_path / "nowhere")


def test_the_bundled_workspace_is_found_from_anywhere_in_the_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PLAIT_WORKSPACE", raising=False)
    repo = Path(__file__).resolve().parents[2]
    assert locate(cwd=repo / "client") == repo / "lineages" / "lineages.toml"
    ws = Workspace.load()
    assert [lineage.name for lineage in ws.sync_order()] == ["upstream", "sibling"]
    assert ws.consumers["cpersona"].vendor_rel == "cpersona/_vendored_mcp_common/embedding_client"


_NAME_RULE = "a name is at most 100 ASCII letters"
_NOT_NAMES = [
    "\x1b",
    "a\nb",
    "a b",
    "../escape",
    "-x",
    ".hidden",
    "a..b",
    "svc.lock",
    "café",
    "x" * 101,
    "a/b",
    "$(id)",
]


def _named(ws: Path, section: str, name: str) -> None:
    """A manifest that gives a copy of *section* the (quoted) *name*."""
    import json

    _workspace(ws, MANIFEST)
    table = (
        'path = "fork/forklib"\npackage = "forklib"\n'
        if section == "lineages"
        else 'path = "svc"\nvendor_dir = "svc/_vendor/corelib"\npackage = "svc._vendor.corelib"\n'
    )
    (ws / "svc" / "svc" / "_vendor" / "corelib").mkdir(parents=True, exist_ok=True)
    with (ws / "lineages.toml").open("a", encoding="utf-8") as manifest:
        manifest.write(f"\n[{section}.{json.dumps(name)}]\n{table}")


@pytest.mark.parametrize("name", _NOT_NAMES)
@pytest.mark.parametrize("section", ["consumers", "lineages"])
def test_a_copy_name_that_is_no_plain_word_is_refused(tmp_path: Path, section: str, name: str) -> None:
    # A copy's name becomes a clone directory, a branch, a command-line word and
    # a lock header: a name a terminal, git, a shell or a TOML comment cannot
    # take as it is was a traceback (tomlkit refused '\x1b' in the lock's header).
    _named(tmp_path, section, name)
    with pytest.raises(PlaitError) as refused:
        Workspace.load(tmp_path)
    assert f"[{section}] names a copy {name!r}: {_NAME_RULE}" in str(refused.value)
    assert str(refused.value).isprintable()


@pytest.mark.parametrize("section", ["consumers", "lineages"])
def test_a_control_character_in_a_copy_name_is_one_printable_error_and_exit_2(tmp_path: Path, section: str) -> None:
    import subprocess
    import sys

    _named(tmp_path, section, "\x1b")
    proc = subprocess.run(
        [sys.executable, "-m", "plait", "--workspace", str(tmp_path), "check"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    [line] = proc.stderr.splitlines()
    assert line.isprintable() and line.startswith("plait check: error: ")
    assert f"lineages.toml: [{section}] names a copy '\\x1b': {_NAME_RULE}" in line


@pytest.mark.parametrize("name", ["svc", "svc-2", "svc_api", "zope.interface", "_private", "S3", "x" * 100])
def test_a_plain_copy_name_is_taken(tmp_path: Path, name: str) -> None:
    import json

    manifest = MANIFEST + f'\n[lineages.{json.dumps(name)}]\npath = "fork/forklib"\npackage = "forklib"\n'
    assert name in _workspace(tmp_path, manifest).lineages
