"""The lock merge's rules, on locks as data: what each side changed since the base is kept,
and what it cannot know waits for `plait vendor` instead of being guessed."""

from __future__ import annotations

from collections.abc import Sequence

from plait.records import replace
from plait.vendoring.lock import LocalEdit, Lock, LockedFile
from plait.vendoring.lock_merge import MergedFile, merge_locks


def _d(char: str) -> str:
    return char * 64


BASE = Lock(
    consumer="svc",
    package="svc._vendor.corelib",
    source="canonical",
    source_package="corelib",
    source_commit="a" * 40,
    plait_version="0.1.0",
    files={
        "client.py": LockedFile(_d("1"), _d("2"), _d("3")),
        "errors.py": LockedFile(_d("4"), _d("5"), _d("6")),
    },
    local_edits=[LocalEdit("client.py", "Client.fetch", "added", "except type OSError")],
)


def _nothing_merged(names: Sequence[str]) -> dict[str, MergedFile]:
    return {}


def _merge(ours: Lock, theirs: Lock, *, merged=_nothing_merged, newer=None):
    return merge_locks(BASE, ours, theirs, merged=merged, newer=newer or (lambda o, t: None), plait_version="9")


def test_an_entry_only_one_side_changed_comes_from_it_and_a_deletion_is_kept() -> None:
    ours = replace(BASE, files={"client.py": LockedFile(_d("7"), _d("8"), _d("9"))})  # errors.py deleted upstream
    theirs = replace(BASE, files={**BASE.files, "local.py": LockedFile(_d("a"))})

    result = _merge(ours, theirs)

    assert result.clean and not result.lock.conflicted
    assert result.lock.files == {"client.py": LockedFile(_d("7"), _d("8"), _d("9")), "local.py": LockedFile(_d("a"))}
    assert "local.py" in result.lock.dumps() and Lock.loads(result.lock.dumps(), path="x") == result.lock


def test_a_file_both_changed_takes_the_merged_file_when_git_wrote_it_else_waits_for_vendor() -> None:
    ours = replace(BASE, files={**BASE.files, "errors.py": LockedFile(_d("b"), _d("5"), _d("6"))})
    theirs = replace(BASE, files={**BASE.files, "errors.py": LockedFile(_d("c"), _d("5"), _d("6"))})

    waiting = _merge(ours, theirs)
    written = _merge(ours, theirs, merged=lambda names: {n: MergedFile(_d("d")) for n in names})
    with_markers = _merge(ours, theirs, merged=lambda names: {n: MergedFile(_d("e"), markers=True) for n in names})

    assert not waiting.clean and waiting.fix == "plait vendor svc" and waiting.lock.conflicted == ["errors.py"]
    assert waiting.lock.files["errors.py"].sha256 == _d("b"), "ours' digest until vendor re-derives it"
    assert written.clean and written.lock.files["errors.py"] == LockedFile(_d("d"), _d("5"), _d("6"))
    assert not with_markers.clean and with_markers.lock.conflicted == ["errors.py"]
    assert "conflict markers" in with_markers.unsettled["errors.py"]


def test_digests_both_sides_re_vendored_come_from_the_newer_source_or_wait() -> None:
    ours = replace(
        BASE, source_commit="b" * 40, files={**BASE.files, "client.py": LockedFile(_d("1"), _d("7"), _d("8"))}
    )
    theirs = replace(
        BASE, source_commit="c" * 40, files={**BASE.files, "client.py": LockedFile(_d("1"), _d("9"), _d("a"))}
    )

    newer = _merge(ours, theirs, newer=lambda o, t: "theirs")
    unknown = _merge(ours, theirs)

    assert newer.clean and newer.lock.source_commit == "c" * 40
    assert newer.lock.files["client.py"] == LockedFile(_d("1"), _d("9"), _d("a"))
    assert not unknown.clean and unknown.lock.source_commit == "b" * 40 and unknown.lock.conflicted == ["client.py"]


def test_local_edits_and_conflicts_merge_as_sets_less_what_a_side_removed() -> None:
    kept = BASE.local_edits[0]
    added = LocalEdit("errors.py", "Timeout", "added")
    ours = replace(BASE, local_edits=[], conflicted=["client.py"])  # ours found its edit upstreamed
    theirs = replace(BASE, local_edits=[kept, added])

    result = _merge(ours, theirs)

    assert result.lock.local_edits == [added]
    assert result.lock.conflicted == ["client.py"]


def test_both_sides_changing_the_package_keeps_ours_and_asks_for_vendor() -> None:
    ours = replace(BASE, package="svc.vendored.corelib")
    theirs = replace(BASE, package="svc.third_party.corelib")

    result = _merge(ours, theirs)

    assert not result.clean and result.lock.package == "svc.vendored.corelib"
    assert any("package" in note for note in result.notes)


def test_a_lock_both_branches_added_has_no_base() -> None:
    theirs = replace(BASE, files={**BASE.files, "local.py": LockedFile(_d("a"))})
    result = merge_locks(None, BASE, theirs, merged=_nothing_merged, newer=lambda o, t: None, plait_version="9")
    assert result.clean and set(result.lock.files) == {"client.py", "errors.py", "local.py"}
