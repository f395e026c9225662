"""Hostile stores, manifests, states and locks: one named error, exit 2, nothing written (issue 14, 6, 7, 10).

Each case attacks a committed copy of the bundled workspace the way a bad
checkout, a hand edit or a malicious pull request would, then runs plait
through its command line and checks what a user sees: exit 2, one line
naming the file and the cause, no traceback, and nothing written or pruned
inside the workspace or outside it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest
from bundled_repo import Bundled, bundled_repo


def _fingerprint(root: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if ".git" in rel.parts or "__pycache__" in rel.parts:
            continue
        if path.is_symlink():
            out[rel.as_posix()] = "-> " + os.readlink(path)
        elif path.is_file():
            out[rel.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.fixture
def ws(tmp_path: Path) -> Bundled:
    return bundled_repo(tmp_path / "repo")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory outside the workspace, with one file a prune would delete if it got here."""
    folder = tmp_path / "outside"
    (folder / "ab").mkdir(parents=True)
    victim = folder / "ab" / ("c" * 62)
    victim.write_text("not plait's\n")
    return folder


def _refused(ws: Bundled, *args: str, cause: str) -> str:
    before = _fingerprint(ws.root)
    result = ws.plait(*args)
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert cause in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    assert _fingerprint(ws.root) == before, "a refused run wrote nothing in the workspace"
    return result.stderr


def _moved_out(path: Path, outside: Path) -> None:
    """Replace *path* by a symlink to a copy of it in *outside*."""
    target = outside / path.name
    shutil.move(str(path), target)
    path.symlink_to(target, target_is_directory=target.is_dir())


# -- 6. writes and reads outside the workspace --------------------------------


def test_a_store_that_is_a_symlink_leading_out_is_refused(ws: Bundled, outside: Path) -> None:
    _moved_out(ws.workspace / ".plait", outside)
    before = _fingerprint(outside)
    _refused(ws, "sync", cause="the store leads out of the workspace")
    assert _fingerprint(outside) == before


def test_an_objects_directory_leading_out_is_refused(ws: Bundled, outside: Path) -> None:
    _moved_out(ws.workspace / ".plait" / "objects", outside)
    before = _fingerprint(outside)
    _refused(ws, "sync", cause="a symlink in the store leads out of it")
    assert _fingerprint(outside) == before


def test_a_fan_out_directory_leading_out_is_neither_written_nor_pruned(ws: Bundled, outside: Path) -> None:
    objects = ws.workspace / ".plait" / "objects"
    fan_out = sorted(objects.iterdir())[0]
    shutil.rmtree(fan_out)
    fan_out.symlink_to(outside / "ab", target_is_directory=True)
    before = _fingerprint(outside)
    _refused(ws, "sync", cause="a symlink in the store leads out of it")
    assert _fingerprint(outside) == before, "the object outside was not pruned"


def test_a_state_file_that_is_a_symlink_out_is_not_read(ws: Bundled, outside: Path) -> None:
    _moved_out(ws.workspace / ".plait" / "state.toml", outside)
    _refused(ws, "sync", cause="a symlink in the store leads out of it")
    _refused(ws, "status", cause="a symlink in the store leads out of it")


def test_a_lock_that_is_a_symlink_out_is_not_read(ws: Bundled, outside: Path) -> None:
    lock = ws.workspace / "consumers/cpersona/cpersona/_vendored_mcp_common/embedding_client/plait.lock"
    _moved_out(lock, outside)
    _refused(ws, "vendor", "cpersona", cause="the lock is a symlink leading out of its directory")
    checked = ws.plait("check", "cpersona")
    assert checked.returncode == 2 and "the lock is a symlink leading out" in checked.stdout + checked.stderr


def test_a_manifest_root_past_its_repository_is_refused(ws: Bundled) -> None:
    manifest = ws.workspace / "lineages.toml"
    manifest.write_text(manifest.read_text().replace('root = ".."', 'root = "/"'))
    _refused(ws, "status", cause="'root' = '/' widens the workspace past its git repository")


def test_without_a_repository_root_stays_in_the_manifests_directory(tmp_path: Path) -> None:
    folder = tmp_path / "plain" / "ws"
    folder.mkdir(parents=True)
    (folder / "lineages.toml").write_text('root = ".."\n[canonical]\npackage = "x"\npath = "x"\n')
    (folder / "x").mkdir()
    from bundled_repo import plait_in

    result = plait_in(folder, "status")
    assert result.returncode == 2
    assert "widens the workspace past its own directory" in result.stderr


# -- 7. silent acceptance -------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "cause"),
    [
        (
            "absolute_imports = true",
            "absolute_import = true",
            "[lineages.upstream.transforms]: unknown key 'absolute_import' (did you mean 'absolute_imports'?)",
        ),
        (
            'syncs_from = "upstream"',
            'syncs_form = "upstream"',
            "[lineages.sibling]: unknown key 'syncs_form' (did you mean 'syncs_from'?)",
        ),
        (
            'vendor_dir = "scheduler/_vendor/mcp_common"',
            'vendor_dirs = "scheduler/_vendor/mcp_common"',
            "[consumers.scheduler]: unknown key 'vendor_dirs' (did you mean 'vendor_dir'?)",
        ),
    ],
)
def test_an_unknown_manifest_key_is_named_with_the_nearest_known_one(
    ws: Bundled, old: str, new: str, cause: str
) -> None:
    manifest = ws.workspace / "lineages.toml"
    text = manifest.read_text()
    assert old in text
    manifest.write_text(text.replace(old, new, 1))
    _refused(ws, "sync", cause=cause)
    _refused(ws, "vendor", "--all", cause=cause)


@pytest.mark.parametrize(
    ("edit", "cause"),
    [
        (lambda t: t.replace('source = "upstream"', 'source = "upstream"\nbefore = 3', 1), "'before' belongs to"),
        (
            lambda t: t.replace('source = "upstream"', 'source = "upstream"\nstate = "conflicted"\nbefore = 3', 1),
            "needs both state",
        ),
        (lambda t: t.replace('source = "upstream"', 'source = "upstream"\nconflicted_files = "abc"', 1), "belongs to"),
        (lambda t: t.replace("[lineages.sibling.files]", "[lineages.sibling.filez]", 1), "unknown key 'filez'"),
        (lambda t: t.replace('source = "upstream"', "source = 3", 1), "'source' must name the copy"),
        (lambda t: t.replace("tree = ", "tree = 'f' # ", 1), "'tree' must be the sha256"),
    ],
)
def test_a_state_with_wrong_keys_or_types_is_named_and_nothing_is_pruned(ws: Bundled, edit, cause: str) -> None:
    state = ws.workspace / ".plait" / "state.toml"
    state.write_text(edit(state.read_text()))
    message = _refused(ws, "sync", cause=cause)
    assert "state.toml" in message
    _refused(ws, "vendor", "--all", cause=cause)


def test_a_state_whose_tree_does_not_match_its_files_is_refused(ws: Bundled) -> None:
    state = ws.workspace / ".plait" / "state.toml"
    text = state.read_text()
    digest = text.split('"boundary.py" = "', 1)[1][:64]
    state.write_text(text.replace(digest, "0" * 64, 1))
    _refused(ws, "sync", cause="'tree' does not match 'files'")


# -- 10. check verifies the objects it relies on ----------------------------------


def test_check_names_a_base_object_with_a_flipped_byte(ws: Bundled) -> None:
    assert ws.plait("check", "scheduler").returncode == 0
    lock = (ws.workspace / "consumers/scheduler/scheduler/_vendor/mcp_common/plait.lock").read_text()
    digest = lock.split('base = "', 1)[1][:64]
    obj = ws.workspace / ".plait" / "objects" / digest[:2] / digest[2:]
    data = bytearray(obj.read_bytes())
    data[len(data) // 2] ^= 0x01
    obj.write_bytes(bytes(data))
    checked = ws.plait("check", "scheduler")
    assert checked.returncode == 2
    said = checked.stdout + checked.stderr
    assert "is corrupt: it hashes to" in said and f"not {digest[:12]}" in said
    assert f".plait/objects/{digest[:2]}/{digest[2:]}" in said, "the corrupt object is named"
