"""`plait adopt` finds the base a copy was really made from, in two real repositories with real dates (issue 22).

Upstream's history: R1, then R2 two months later, which took the service's
patches in a reworked form (a tuple `_ACTION_ID_KEYS` instead of two
assignments, a docstring on `_decay`) and added code of its own (the `now is
None` branch).  The service's history: the copy of R1 with its imports
rewritten by `sed`, then three commits of local fixes.  R2 is closer to the
copy by content; only the histories, the dates and the direction of the
differences say R1.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import git
import pytest
from vendor_builders import init_repo, write_tree

from plait.errors import PlaitError
from plait.lineage.adopt import AmbiguousBase, adopt
from plait.vendoring.lock import read_lock
from plait.vendoring.vendor import vendor
from plait.workspace import Workspace

pytestmark = pytest.mark.slow  # long histories

DAY = 86_400
START = 1_780_000_000  # 2026-05-28

ERRORS_R1 = '''"""What the store raises."""


class StoreError(Exception):
    """A write failed."""
'''

ERRORS_FIXED = (
    ERRORS_R1
    + '''

class ClockError(StoreError):
    """The clock went backwards."""
'''
)

INIT = '''"""corelib: a store of records."""

from .store import write

__all__ = ["write"]
'''

STORE_R1 = '''"""Persisting records."""

from corelib.errors import StoreError

DEFAULT_TTL = 30


def _decay(score, age):
    return score / (1 + age)


def skip_write(record):
    record["skipped"] = True
    return record


def write(record, now):
    if record.get("skip"):
        return skip_write(record)
    if now < 0:
        raise StoreError("no time")
    record["at"] = now
    return record
'''

# The service's three fixes, one commit each: each is (old, new) in store.py, or a file.
FIX_DECAY = ("    return score / (1 + age)\n", "    return score / (1 + max(age, 0))\n")
FIX_IDS = (
    '    record["skipped"] = True\n    return record\n',
    '    record["skipped"] = True\n    record["id"] = None\n    record["action_id"] = None\n    return record\n',
)
FIX_TTL = ("DEFAULT_TTL = 30\n", "DEFAULT_TTL = 60\nMAX_SIZE = 100\n\n\ndef _now():\n    return 0\n")

# R2: upstream took the fixes: the ids and the TTL verbatim, _decay reworked (a
# float, a docstring), and added code of its own: one more id, the tuple that
# names them all, a branch.
STORE_R2 = '''"""Persisting records."""

from corelib.errors import StoreError

DEFAULT_TTL = 60
MAX_SIZE = 100

_ACTION_ID_KEYS = ("id", "action_id", "deleted_id")


def _now():
    return 0


def _decay(score, age):
    """A score decayed by age; a negative age counts as none."""
    return score / (1.0 + max(age, 0.0))


def skip_write(record):
    record["skipped"] = True
    record["id"] = None
    record["action_id"] = None
    record["deleted_id"] = None
    return record


def write(record, now):
    if record.get("skip"):
        return skip_write(record)
    for key in _ACTION_ID_KEYS:
        record.setdefault(key, None)
    if now is None:
        now = _now()
    if now < 0:
        raise StoreError("no time")
    record["at"] = now
    return record
'''

MANIFEST = """\
[canonical]
package = "corelib"
git = "../upstream"
subdir = "{subdir}"

[consumers.svc]
git = "../service"
vendor_dir = "svc/_vendored/corelib"
package = "svc._vendored.corelib"
"""


def upstream_files(store: str, errors: str = ERRORS_R1) -> dict[str, str]:
    return {"__init__.py": INIT, "store.py": store, "errors.py": errors}


def limits(taken: int) -> str:
    """More of the service's fixes that upstream took verbatim: *taken* limits of its own."""
    return "".join(f"LIMIT_{n} = {n}\n" for n in range(taken))


def commit(repo: git.Repo, message: str, when: int) -> str:
    """Commit everything at *when* (seconds since the epoch), as both author and committer."""
    repo.git.add("-A")
    stamp = f"{when} +0000"
    repo.index.commit(message, author_date=stamp, commit_date=stamp)
    return repo.head.commit.hexsha


def sed(files: dict[str, str]) -> dict[str, str]:
    """What the service's `sed 's/corelib\\./svc._vendored.corelib./g'` did to the copy."""
    return {rel: text.replace("from corelib.", "from svc._vendored.corelib.") for rel, text in files.items()}


def edit(path: Path, change: tuple[str, str]) -> None:
    text = path.read_text(encoding="utf-8")
    assert change[0] in text, (change, path)
    path.write_text(text.replace(change[0], change[1]), encoding="utf-8")


def local_fixes(copy: Path) -> None:
    """The service's three fixes, on the copy's files as they are."""
    edit(copy / "store.py", FIX_DECAY)
    edit(copy / "store.py", FIX_IDS)
    edit(copy / "store.py", FIX_TTL)
    (copy / "errors.py").write_text(ERRORS_FIXED, encoding="utf-8")


@dataclass
class Histories:
    root: Path
    ws: Path
    upstream: git.Repo
    service: git.Repo
    copy: Path
    r1: str
    r2: str
    synced: str = ""


def make_histories(root: Path, *, history: bool = True, taken: int = 0) -> Histories:
    """Upstream (R1, then R2 two months later) and the service, in repositories of their own.

    With *history*, the service commits the copy of R1 and then each fix;
    without, both repositories have one commit per state, all at one date.
    *taken*: how many more fixes of the service upstream took verbatim.
    """
    upstream = init_repo(root / "upstream")
    write_tree(root / "upstream" / "corelib", upstream_files(STORE_R1))
    r1 = commit(upstream, "corelib R1", START)
    service = init_repo(root / "service")
    copy = root / "service" / "svc" / "_vendored" / "corelib"
    write_tree(root / "service" / "svc", {"__init__.py": "", "_vendored/__init__.py": ""})
    write_tree(copy, sed(upstream_files(STORE_R1)))
    synced = ""
    if history:
        # A note of the service's own, beside the copy: no revision has it, so it says nothing of the base.
        (copy / "VENDORED.txt").write_text("corelib, copied by hand from upstream\n", encoding="utf-8")
        synced = commit(service, "vendor corelib R1 (cp + sed)", START + DAY)
        when = START + 2 * DAY
        for message, fix in (("clamp a negative age", FIX_DECAY), ("null the ids of a skipped write", FIX_IDS)):
            edit(copy / "store.py", fix)
            commit(service, message, when)
            when += DAY
        edit(copy / "store.py", FIX_TTL)
        (copy / "errors.py").write_text(ERRORS_FIXED, encoding="utf-8")
        commit(service, "a longer ttl, a size limit and ClockError", when)
        r2_when = START + 60 * DAY
    else:
        local_fixes(copy)
        commit(service, "the service, as found", START)
        r2_when = START
    if taken:
        edit(copy / "store.py", ("MAX_SIZE = 100\n", "MAX_SIZE = 100\n" + limits(taken)))
        commit(service, "limits", START + 6 * DAY if history else START)
    store_r2 = STORE_R2.replace("MAX_SIZE = 100\n", "MAX_SIZE = 100\n" + limits(taken))
    write_tree(root / "upstream" / "corelib", upstream_files(store_r2, ERRORS_FIXED))
    r2 = commit(upstream, "corelib R2: take the service's fixes, reworked", r2_when)
    ws = root / "ws"
    ws.mkdir()
    (ws / "lineages.toml").write_text(MANIFEST.format(subdir="corelib"), encoding="utf-8")
    return Histories(root, ws, upstream, service, copy, r1, r2, synced)


def plait(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plait", *args], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )


def test_adopt_takes_the_sync_point_in_the_copy_s_history_over_the_closer_revision(tmp_path: Path) -> None:
    h = make_histories(tmp_path)

    result = adopt(Workspace.load(h.ws), "svc")

    assert result.base.commit == h.r1, "the copy was made from R1, though R2 is closer by content"
    assert result.finding is not None and result.finding.how == "sync point"
    sync = result.finding.sync
    assert sync is not None and sync.commit is not None and sync.commit.sha == h.synced and sync.later == 3
    assert result.why() == (f"sync point: svc {h.synced[:7]} ({sync.commit.date}) equals it; 3 later commits are local")
    # What the three fixes did is what the copy has over R1, and nothing of the sed spelling.
    kinds = sorted((e.file, e.path) for e in result.local_edits)
    assert ("store.py", "_decay") in kinds and ("store.py", "skip_write") in kinds
    assert ("errors.py", "ClockError") in kinds and ("VENDORED.txt", "<file>") in kinds
    assert not any("import" in e.text for e in result.local_edits), result.local_edits
    lock = read_lock(h.copy)
    assert lock is not None and lock.source_commit == h.r1
    assert (h.copy / "plait.lock").read_text(encoding="utf-8").startswith("# Written by `plait adopt`")


def test_the_next_vendor_brings_in_the_rework_and_conflicts_only_where_both_edited(tmp_path: Path) -> None:
    h = make_histories(tmp_path)
    adopt(Workspace.load(h.ws), "svc")

    report = vendor(Workspace.load(h.ws))

    (plan,) = report.plans
    # Both reworked the one line of _decay, each its own way: that, and only that, conflicts.
    conflicted = [(c.file, c.path) for c in plan.conflicts]
    assert conflicted == [("store.py", "_decay")], plan.conflicts
    store = (h.copy / "store.py").read_text(encoding="utf-8")
    # Upstream's own code arrived: the tuple, its use, the branch, the third id.
    assert '_ACTION_ID_KEYS = ("id", "action_id", "deleted_id")' in store
    assert "    for key in _ACTION_ID_KEYS:\n        record.setdefault(key, None)\n" in store
    assert "    if now is None:\n        now = _now()\n" in store
    assert '    record["action_id"] = None\n    record["deleted_id"] = None\n' in store
    # What both made alike merged cleanly, once.
    assert store.count('record["id"] = None') == 1
    assert store.count("DEFAULT_TTL = 60") == 1 and store.count("def _now():") == 1
    assert (h.copy / "errors.py").read_text(encoding="utf-8").count("class ClockError") == 1
    assert "from svc._vendored.corelib.errors import StoreError" in store


def test_without_history_the_direction_rule_keeps_the_closer_revision_from_winning(tmp_path: Path) -> None:
    h = make_histories(tmp_path, history=False)

    result = adopt(Workspace.load(h.ws), "svc", dry_run=True)

    # Under R2 the copy would have removed the tuple, its entries and the branch R2 added.
    assert result.base.commit == h.r1
    runner = result.runner_up
    assert runner is not None and runner.revision.sha == h.r2
    removed = {e.text for e in runner.penalty}
    assert {"removed attribute _ACTION_ID_KEYS in <module>", "removed branch now is None in write"} <= removed
    done = plait(h.ws, "adopt", "svc", "--dry-run")
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stdout.splitlines() if line.startswith("  runner-up: "))
    assert line.startswith(f"  runner-up: {h.r2[:7]} (") and "would have removed what the source had just added" in line


def test_when_the_direction_rule_alone_decides_adopt_stops_and_names_both(tmp_path: Path) -> None:
    # Upstream took three more fixes verbatim: R2 is closer even by local edits, until the
    # direction rule counts what the copy would have removed.
    h = make_histories(tmp_path, history=False, taken=3)
    before = sorted(p.name for p in h.copy.iterdir())

    with pytest.raises(AmbiguousBase) as raised:
        adopt(Workspace.load(h.ws), "svc")

    ambiguity = raised.value.ambiguity
    assert (ambiguity.first.revision.sha, ambiguity.second.revision.sha) == (h.r1, h.r2)
    message = str(raised.value)
    assert f"--base {h.r1[:7]}" in message and f"--base {h.r2[:7]}" in message
    assert f"under {h.r2[:7]} your copy removed attribute _ACTION_ID_KEYS in <module> (store.py)" in message
    assert f"under {h.r1[:7]} your copy changed" in message
    assert sorted(p.name for p in h.copy.iterdir()) == before, "nothing written"

    # Piped (CI), the command exits 2 naming both; with --json too, the candidates in the document.
    for extra in ([], ["--json"]):
        done = plait(h.ws, "adopt", "svc", *extra)
        assert done.returncode == 2, done.stdout + done.stderr
        (line,) = done.stderr.splitlines()
        assert line.startswith("plait adopt: error: cannot tell which revision svc was copied from")
        assert h.r1[:7] in line and h.r2[:7] in line
    document = json.loads(done.stdout)
    assert [c["commit"] for c in document["ambiguity"]["candidates"]] == [h.r1, h.r2]
    assert not (h.copy / "plait.lock").exists()

    # A person who chooses gets what they chose.
    chosen = adopt(Workspace.load(h.ws), "svc", choose=lambda a: a.first)
    assert chosen.base.commit == h.r1 and chosen.why().startswith("chosen by you between the two closest")


def test_a_base_given_by_hand_still_wins(tmp_path: Path) -> None:
    h = make_histories(tmp_path, history=False)
    result = adopt(Workspace.load(h.ws), "svc", h.r1[:10])
    assert result.how == "revision" and result.base.commit == h.r1


# --------------------------------------------------------------------------
# the walk: a package that moves, a long history


def test_the_walk_follows_a_package_that_moved_and_base_tag_finds_it(tmp_path: Path) -> None:
    h = make_histories(tmp_path)
    h.upstream.create_tag("v1", ref=h.r1)
    top = tmp_path / "upstream"
    (top / "src").mkdir()
    h.upstream.git.mv("corelib", "src/corelib")
    moved = commit(h.upstream, "move the package under src/", START + 61 * DAY)
    write_tree(top / "src" / "corelib", {"store.py": STORE_R2 + "\n\nLIMIT = 1\n"})
    commit(h.upstream, "after the move", START + 62 * DAY)
    (h.ws / "lineages.toml").write_text(MANIFEST.format(subdir="src/corelib"), encoding="utf-8")

    result = adopt(Workspace.load(h.ws), "svc", dry_run=True)

    assert result.base.commit == h.r1
    assert any(f"from corelib/ to src/corelib/ (moved in {moved[:7]})" in note for note in result.notes)

    by_tag = adopt(Workspace.load(h.ws), "svc", "v1", dry_run=True)
    assert by_tag.how == "revision" and by_tag.base.commit == h.r1
    assert set(by_tag.base.files) == {"__init__.py", "store.py", "errors.py"}


def test_a_copy_taken_more_than_200_commits_back_is_found_or_the_bound_is_named(tmp_path: Path) -> None:
    upstream = init_repo(tmp_path / "upstream")
    package = tmp_path / "upstream" / "corelib"
    write_tree(package, upstream_files(STORE_R1))
    first = commit(upstream, "R0", START)
    for n in range(1, 231):
        write_tree(package, {"version.py": f"VERSION = {n}\n"})
        commit(upstream, f"release {n}", START + n * 3600)
    service = init_repo(tmp_path / "service")
    write_tree(tmp_path / "service" / "svc", {"__init__.py": "", "_vendored/__init__.py": ""})
    copy = tmp_path / "service" / "svc" / "_vendored" / "corelib"
    write_tree(copy, sed(upstream_files(STORE_R1)))
    commit(service, "vendor corelib", START + 300 * 3600)
    edit(copy / "store.py", FIX_DECAY)
    commit(service, "clamp a negative age", START + 301 * 3600)
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "lineages.toml").write_text(MANIFEST.format(subdir="corelib"), encoding="utf-8")

    found = adopt(Workspace.load(ws), "svc", dry_run=True)
    assert found.base.commit == first and found.candidates == 231

    bounded = adopt(Workspace.load(ws), "svc", dry_run=True, max_revisions=50)
    assert bounded.base.commit != first
    assert "compared the newest 50 of 231 revisions (--max-revisions)" in " ".join(bounded.notes)
    done = plait(ws, "adopt", "svc", "--max-revisions", "50", "--dry-run")
    assert done.returncode == 0 and "compared the newest 50 of 231 revisions" in done.stdout, done.stderr


def test_adopt_without_any_history_asks_for_a_base(tmp_path: Path) -> None:
    h = make_histories(tmp_path)
    with pytest.raises(PlaitError, match="no revision 'nope'"):
        adopt(Workspace.load(h.ws), "svc", "nope")


def test_a_copy_older_than_every_source_revision_is_told_the_date_bound_left_them_out(tmp_path: Path) -> None:
    # The copy's only commit predates every revision of the source (a history rewritten or imported
    # later): the date bound excludes them all, and the error must say so and name --base.
    upstream = init_repo(tmp_path / "upstream")
    write_tree(tmp_path / "upstream" / "corelib", upstream_files(STORE_R1))
    r1 = commit(upstream, "corelib R1", START + 30 * DAY)
    write_tree(tmp_path / "upstream" / "corelib", upstream_files(STORE_R2, ERRORS_FIXED))
    commit(upstream, "corelib R2", START + 40 * DAY)
    service = init_repo(tmp_path / "service")
    write_tree(tmp_path / "service" / "svc", {"__init__.py": "", "_vendored/__init__.py": ""})
    write_tree(tmp_path / "service" / "svc" / "_vendored" / "corelib", sed(upstream_files(STORE_R1)))
    commit(service, "the service, as found", START)
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "lineages.toml").write_text(MANIFEST.format(subdir="corelib"), encoding="utf-8")

    done = plait(ws, "adopt", "svc")

    assert done.returncode == 2, done.stdout + done.stderr
    said = done.stdout + done.stderr
    assert "has no files in its history" not in said
    assert "date bound left out all 2 revisions" in said and "--base" in said, said
    assert "last commit" in said and "Traceback" not in said
    # Doing as told works: --base names the revision it was copied from.
    assert plait(ws, "adopt", "svc", "--base", r1).returncode == 0
