"""A file that is not Python, changed on both sides, through `plait vendor` and `plait sync` (issue 30).

It used to become a whole-file "conflict" with no markers and no upstream
side, even where git's line merge was clean; `next:` said "resolve the
markers", and doing as told recorded the copy's version: upstream's edit
was gone and `plait check` passed.  Now a text file gets git's line merge
(markers on a real conflict), a binary file keeps the copy's version with
both versions beside it, and no run takes a conflict as resolved until a
person has seen both sides (markers gone, the versions beside removed).
"""

from __future__ import annotations

TEXT = "".join(f"line {n}\n" for n in range(1, 9))
PNG = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(range(256))


def test_a_text_file_both_changed_gets_gits_clean_line_merge(make_workspace) -> None:
    ws = make_workspace({"data.txt": TEXT})
    ws.write(ws.vendored / "data.txt", TEXT.replace("line 1\n", "line 1 (svc)\n"))
    ws.write(ws.canonical / "data.txt", TEXT.replace("line 8\n", "line 8 (upstream)\n"))
    ws.commit("both edit data.txt")
    ws.ok("vendor", "svc")
    merged = (ws.vendored / "data.txt").read_text()
    assert "line 1 (svc)\n" in merged and "line 8 (upstream)\n" in merged
    ws.ok("check")


def test_a_text_conflict_has_markers_and_waits_for_them(make_workspace) -> None:
    ws = make_workspace({"data.txt": TEXT})
    ws.write(ws.vendored / "data.txt", TEXT.replace("line 4\n", "line 4 (svc)\n"))
    ws.write(ws.canonical / "data.txt", TEXT.replace("line 4\n", "line 4 (upstream)\n"))
    ws.commit("both edit line 4")
    done = ws.ok("vendor", "svc", code=1)
    assert "next: resolve the markers, then plait vendor svc" in done.stdout
    marked = (ws.vendored / "data.txt").read_text()
    assert "<<<<<<< ours\nline 4 (svc)\n" in marked and "line 4 (upstream)\n>>>>>>> theirs\n" in marked
    refused = ws.ok("vendor", "svc", code=2)
    assert "conflict markers are left in data.txt:4" in refused.stderr
    ws.write(ws.vendored / "data.txt", TEXT.replace("line 4\n", "line 4 (both)\n"))
    ws.ok("vendor", "svc")
    assert (ws.vendored / "data.txt").read_text() == TEXT.replace("line 4\n", "line 4 (both)\n")
    ws.ok("check")


def test_a_binary_conflict_keeps_ours_with_both_versions_beside_until_a_person_chooses(make_workspace) -> None:
    ws = make_workspace({"logo.png": PNG})
    ours, theirs = PNG + b"svc", PNG + b"upstream"
    ws.write(ws.vendored / "logo.png", ours)
    ws.write(ws.canonical / "logo.png", theirs)
    ws.commit("both change the logo")
    done = ws.ok("vendor", "svc", code=1)
    assert (ws.vendored / "logo.png").read_bytes() == ours
    assert (ws.vendored / "logo.png~ours").read_bytes() == ours
    assert (ws.vendored / "logo.png~theirs").read_bytes() == theirs
    assert "CONFLICT (binary)" in done.stderr and "logo.png~theirs" in done.stderr
    assert "remove logo.png~ours and logo.png~theirs, then plait vendor svc" in done.stdout
    assert "resolve the markers" not in done.stdout  # there are none
    assert "logo.png~" not in done.stdout.split("next: git add", 1)[-1] or "git add" not in done.stdout

    # Doing nothing is not a resolution: the next run refuses, and the file is still ours.
    refused = ws.ok("vendor", "svc", code=2)
    assert "logo.png~ours and logo.png~theirs still beside it" in refused.stderr
    # Choosing upstream's version: it stands at logo.png, the versions beside are removed.
    (ws.vendored / "logo.png~theirs").replace(ws.vendored / "logo.png")
    (ws.vendored / "logo.png~ours").unlink()
    ws.ok("vendor", "svc")
    assert (ws.vendored / "logo.png").read_bytes() == theirs
    ws.ok("check")


def test_a_file_the_consumer_deleted_and_upstream_changed_is_shown_beside(make_workspace) -> None:
    ws = make_workspace({"data.txt": TEXT})
    (ws.vendored / "data.txt").unlink()
    ws.write(ws.canonical / "data.txt", TEXT + "line 9\n")
    ws.commit("svc deletes data.txt, upstream extends it")
    ws.ok("vendor", "svc", code=1)
    assert not (ws.vendored / "data.txt").exists()
    assert (ws.vendored / "data.txt~theirs").read_text() == TEXT + "line 9\n"
    ws.ok("vendor", "svc", code=2)
    (ws.vendored / "data.txt~theirs").unlink()  # seen, and the deletion kept
    ws.ok("vendor", "svc")
    assert not (ws.vendored / "data.txt").exists()


def test_sync_continue_waits_for_a_binary_choice_and_abort_removes_the_versions_beside(make_workspace) -> None:
    ws = make_workspace({"logo.png": PNG, "data.txt": TEXT}, lineage=True)
    ws.write(ws.fork / "logo.png", PNG + b"fork")
    ws.write(ws.fork / "data.txt", TEXT.replace("line 2\n", "line 2 (fork)\n"))
    ws.write(ws.canonical / "logo.png", PNG + b"upstream")
    ws.write(ws.canonical / "data.txt", TEXT.replace("line 7\n", "line 7 (upstream)\n"))
    ws.commit("both change the logo and the data")
    done = ws.ok("sync", "fork", code=1)
    assert "then plait sync --continue fork" in done.stdout and "logo.png~theirs" in done.stdout
    merged = (ws.fork / "data.txt").read_text()
    assert "line 2 (fork)\n" in merged and "line 7 (upstream)\n" in merged
    assert (ws.fork / "logo.png~theirs").read_bytes() == PNG + b"upstream"
    stuck = ws.ok("sync", "--continue", "fork", code=1)
    assert "still beside it" in stuck.stdout + stuck.stderr

    ws.ok("sync", "--abort", "fork")
    assert not (ws.fork / "logo.png~ours").exists() and not (ws.fork / "logo.png~theirs").exists()
    assert (ws.fork / "logo.png").read_bytes() == PNG + b"fork"
    assert (ws.fork / "data.txt").read_text() == TEXT.replace("line 2\n", "line 2 (fork)\n")

    ws.ok("sync", "fork", code=1)
    (ws.fork / "logo.png~ours").unlink()
    (ws.fork / "logo.png~theirs").unlink()  # the fork's own logo kept, upstream's seen
    ws.ok("sync", "--continue", "fork")
    assert (ws.fork / "logo.png").read_bytes() == PNG + b"fork"
