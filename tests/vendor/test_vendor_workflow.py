"""`plait vendor` on real workspaces under git: what a consumer's maintainer sees happen."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from vendor_builders import CANONICAL, ERRORS, client_source, fingerprint, write_tree

from plait.store import digest_of
from plait.vendoring.check import check, check_exit
from plait.vendoring.lock import LOCK_NAME, read_lock
from plait.vendoring.vendor import vendor


def _plan(report, name: str = "svc"):
    return next(p for p in report.plans if p.consumer == name)


def _vendored_once(scenario) -> None:
    report = vendor(scenario.ws(), ["svc"])
    assert report.exit_code == 0 and report.written, report.to_json()
    scenario.commit("vendor svc")


def test_a_first_vendor_writes_the_source_in_the_consumers_package_and_a_lock(scenario) -> None:
    report = vendor(scenario.ws(), ["svc"])

    assert report.exit_code == 0
    assert sorted(line.text for line in _plan(report).applied()) == [
        "+ file __init__.py",
        "+ file client.py",
        "+ file errors.py",
        "+ file py.typed",
    ]
    init = (scenario.vendored() / "__init__.py").read_text()
    # Absolute self-imports move into the consumer's package; the name `import corelib.errors`
    # binds stays bound, to the vendored package.
    assert "import svc._vendor.corelib.errors\nfrom svc._vendor import corelib\n" in init
    assert "from svc._vendor.corelib.client import Client" in init
    assert "Failure = corelib.errors.Failure" in init
    client = (scenario.vendored() / "client.py").read_text()
    # Relative imports are kept, and strings and docstrings are left alone.
    assert "from .errors import Failure" in client
    assert '"""The client: see corelib.errors for what it raises."""' in client

    lock = read_lock(scenario.vendored())
    assert lock is not None
    assert (lock.source, lock.source_package, lock.package) == ("canonical", "corelib", "svc._vendor.corelib")
    assert lock.source_commit == scenario.repo.head.commit.hexsha
    assert lock.files["client.py"].sha256 == digest_of(client)
    assert lock.files["__init__.py"].source == digest_of(CANONICAL["__init__.py"])
    assert lock.files["__init__.py"].base == digest_of(init)
    assert not lock.local_edits
    assert check_exit(check(scenario.ws(), ["svc"])) == 0


def test_the_vendored_copy_imports_from_the_consumer(scenario) -> None:
    _vendored_once(scenario)
    program = (
        "import sys; from svc._vendor import corelib; print(corelib.Client('x').fetch('hi'), corelib.__name__); "
        "print(sorted(m for m in sys.modules if m.startswith('corelib')))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", program], cwd=scenario.root / "consumers" / "svc", capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ['{"mode": "x", "text": "hi"} svc._vendor.corelib', "[]"]


def test_a_local_patch_survives_a_source_change_and_is_listed_by_node_path(scenario) -> None:
    _vendored_once(scenario)
    scenario.edit_vendored("client.py", "except ValueError as exc:", "except (ValueError, OSError) as exc:")
    scenario.commit("svc: catch OSError too")
    write_tree(scenario.canonical, {"client.py": client_source(fetch_many=True, timeout=9)})
    source_commit = scenario.commit("canonical: fetch_many, longer timeout")

    report = vendor(scenario.ws(), ["svc"])

    assert report.exit_code == 0, report.to_json()
    client = (scenario.vendored() / "client.py").read_text()
    assert "def fetch_many(self, texts):" in client and "timeout = 9" in client
    assert "except (ValueError, OSError) as exc:" in client
    plan = _plan(report)
    assert "+ Client.fetch_many" in [line.text for line in plan.applied()]
    edits = [(e.file, e.path, e.text) for e in plan.local_edits]
    assert edits == [("client.py", "Client.fetch", "except type OSError in Client.fetch")]
    lock = read_lock(scenario.vendored())
    assert lock is not None and lock.source_commit == source_commit
    assert [(e.file, e.path, e.kind) for e in lock.local_edits] == [("client.py", "Client.fetch", "added")]
    # The base is the pristine transformed source, not the patched result.
    assert lock.files["client.py"].base != lock.files["client.py"].sha256
    assert "OSError" not in scenario.ws().store.read_text(lock.files["client.py"].base, what="base")
    assert check_exit(check(scenario.ws(), ["svc"])) == 0


def test_a_local_patch_that_conflicts_is_written_with_markers_and_must_be_resolved(scenario) -> None:
    _vendored_once(scenario)
    scenario.edit_vendored("client.py", "timeout = 5", "timeout = 7")
    write_tree(scenario.canonical, {"client.py": client_source(timeout=9)})
    scenario.commit("both sides change the timeout")
    before = fingerprint(scenario.root)

    strict = vendor(scenario.ws(), ["svc"], write_conflicts=False)
    assert strict.exit_code == 1 and not strict.written
    assert fingerprint(scenario.root) == before

    report = vendor(scenario.ws(), ["svc"])

    assert report.exit_code == 1 and report.written
    (conflict,) = _plan(report).conflicts
    assert (conflict.file, conflict.path) == ("client.py", "Client")
    client = (scenario.vendored() / "client.py").read_text()
    assert "<<<<<<< ours" in client and "timeout = 7" in client and "timeout = 9" in client
    lock = read_lock(scenario.vendored())
    assert lock is not None and lock.conflicted == ["client.py"]
    results = check(scenario.ws(), ["svc"])
    assert check_exit(results) == 1
    assert [(d.file, d.kind) for d in results[0].drift] == [("client.py", "conflicted")]

    again = vendor(scenario.ws(), ["svc"])
    assert again.exit_code == 2 and "conflict markers are left in client.py" in _plan(again).reason

    path = scenario.vendored() / "client.py"
    path.write_text(client_source(timeout=7))  # resolved: ours wins
    resolved = vendor(scenario.ws(), ["svc"])
    assert resolved.exit_code == 0
    lock = read_lock(scenario.vendored())
    assert lock is not None and not lock.conflicted
    # The local edit names the statement, not only the class it stands in.
    assert [e.text for e in lock.local_edits] == ["changed timeout = 7 in Client"]
    assert check_exit(check(scenario.ws(), ["svc"])) == 0


def test_files_the_source_adds_and_deletes_and_files_only_the_consumer_has(scenario) -> None:
    _vendored_once(scenario)
    write_tree(scenario.vendored(), {"local.py": "HELPER = 1\n"})
    scenario.edit_vendored("py.typed", "", "partial\n")
    write_tree(scenario.canonical, {"extra.py": "EXTRA = 2\n"})
    (scenario.canonical / "errors.py").unlink()
    init = CANONICAL["__init__.py"]
    write_tree(scenario.canonical, {"__init__.py": init})
    scenario.commit("canonical adds extra.py, deletes errors.py")

    report = vendor(scenario.ws(), ["svc"])

    assert report.exit_code == 0, report.to_json()
    assert (scenario.vendored() / "extra.py").read_text() == "EXTRA = 2\n"
    assert not (scenario.vendored() / "errors.py").exists()
    assert (scenario.vendored() / "local.py").read_text() == "HELPER = 1\n"
    applied = [line.text for line in _plan(report).applied()]
    assert "+ file extra.py" in applied and "- file errors.py" in applied
    assert sorted(e.text for e in _plan(report).local_edits) == ["added file local.py", "changed file py.typed"]


def test_a_file_the_source_deleted_but_the_consumer_changed_is_a_conflict(scenario) -> None:
    _vendored_once(scenario)
    scenario.edit_vendored("errors.py", '"""A fetch failed."""', '"""A fetch failed, in svc."""')
    (scenario.canonical / "errors.py").unlink()
    scenario.commit("canonical deletes errors.py; svc changed it")

    report = vendor(scenario.ws(), ["svc"])

    assert report.exit_code == 1
    (conflict,) = _plan(report).conflicts
    assert (conflict.file, conflict.path, conflict.kind) == ("errors.py", "<file>", "delete/modify")
    assert "in svc" in (scenario.vendored() / "errors.py").read_text()


def test_an_import_that_cannot_be_rewritten_stops_the_run_naming_file_and_line(scenario) -> None:
    write_tree(
        scenario.canonical, {"loader.py": "import importlib\n\nERRORS = importlib.import_module('corelib.errors')\n"}
    )
    scenario.commit("canonical loads a module by name")
    before = fingerprint(scenario.root)

    report = vendor(scenario.ws())

    assert report.exit_code == 2 and not report.written
    reason = _plan(report).reason
    assert "canonical/loader.py:3: cannot rewrite: importlib.import_module('corelib.errors')" in reason
    assert fingerprint(scenario.root) == before


def test_dry_run_writes_nothing_and_a_second_vendor_changes_nothing(scenario) -> None:
    before = fingerprint(scenario.root)
    dry = vendor(scenario.ws(), dry_run=True)
    assert dry.exit_code == 0 and not dry.written
    assert "+++ b/svc/client.py" in _plan(dry).diff()
    assert fingerprint(scenario.root) == before

    vendor(scenario.ws())
    after_first = fingerprint(scenario.root)
    again = vendor(scenario.ws())

    assert [p.outcome for p in again.plans] == ["up-to-date", "up-to-date"]
    assert not again.written
    assert fingerprint(scenario.root) == after_first


def test_protected_files_are_never_written(scenario) -> None:
    manifest = (scenario.root / "lineages.toml").read_text()
    manifest = manifest.replace(
        'package = "svc._vendor.corelib"\n', 'package = "svc._vendor.corelib"\nprotected = ["errors.py"]\n'
    )
    (scenario.root / "lineages.toml").write_text(manifest)
    _vendored_once(scenario)
    (scenario.vendored() / "errors.py").write_text("class Failure(RuntimeError):\n    pass\n")
    write_tree(scenario.canonical, {"errors.py": ERRORS + "\n\nclass Timeout(Failure):\n    pass\n"})
    scenario.commit("canonical adds Timeout; svc replaced its errors")

    report = vendor(scenario.ws(), ["svc"])

    assert report.exit_code == 0
    assert (scenario.vendored() / "errors.py").read_text() == "class Failure(RuntimeError):\n    pass\n"
    assert [e.text for e in _plan(report).local_edits] == ["changed file errors.py (protected)"]


def test_all_consumers_in_two_worker_processes_give_what_one_process_gives(scenario, tmp_path: Path) -> None:
    seen: list[str] = []
    report = vendor(scenario.ws(), jobs=2, progress=lambda plan: seen.append(plan.consumer))

    assert report.exit_code == 0 and report.written
    assert [p.consumer for p in report.plans] == ["svc", "tool"]
    assert sorted(seen) == ["svc", "tool"]
    tool = (scenario.vendored("tool") / "__init__.py").read_text()
    assert "from tool._vendor.corelib.client import Client" in tool
    svc = (scenario.vendored("svc") / "__init__.py").read_text()
    assert svc == tool.replace("tool._vendor", "svc._vendor")
    assert check_exit(check(scenario.ws())) == 0


def test_a_lineage_sync_never_prunes_a_consumers_base(scenario) -> None:
    from plait.lineage.adopt import adopt
    from plait.lineage.sync import sync

    manifest = (scenario.root / "lineages.toml").read_text() + (
        '\n[lineages.fork]\npath = "fork/corelib"\npackage = "corelib"\nsyncs_from = "canonical"\n'
    )
    (scenario.root / "lineages.toml").write_text(manifest)
    write_tree(scenario.root / "fork" / "corelib", CANONICAL)
    scenario.commit("a fork")
    adopt(scenario.ws(), "fork", "HEAD")
    _vendored_once(scenario)
    lock = read_lock(scenario.vendored())
    assert lock is not None
    write_tree(scenario.canonical, {"client.py": client_source(fetch_many=True)})
    scenario.commit("canonical moves on")

    assert sync(scenario.ws()).written  # moves the fork's base and prunes the store

    store = scenario.ws().store
    for name, digest in lock.bases().items():
        assert store.has(digest), f"the base of svc/{name} was pruned"
    scenario.edit_vendored("client.py", "except ValueError as exc:", "except (ValueError, OSError) as exc:")
    report = vendor(scenario.ws(), ["svc"])
    assert report.exit_code == 0
    assert [e.path for e in _plan(report).local_edits] == ["Client.fetch"]


def test_a_consumer_switching_source_keeps_its_local_edits(scenario) -> None:
    _vendored_once(scenario)
    scenario.edit_vendored("client.py", "except ValueError as exc:", "except (ValueError, OSError) as exc:")
    manifest = (scenario.root / "lineages.toml").read_text() + (
        '\n[lineages.fork]\npath = "fork/corelib"\npackage = "corelib"\nsyncs_from = "canonical"\n'
    )
    manifest = manifest.replace(
        'package = "svc._vendor.corelib"\n', 'package = "svc._vendor.corelib"\nsource = "fork"\n'
    )
    (scenario.root / "lineages.toml").write_text(manifest)
    write_tree(scenario.root / "fork" / "corelib", {**CANONICAL, "client.py": client_source(fetch_many=True)})

    results = check(scenario.ws(), ["svc"])
    assert any(d.kind == "behind" and "manifest says fork" in d.detail for d in results[0].drift)
    report = vendor(scenario.ws(), ["svc"])

    assert report.exit_code == 0
    client = (scenario.vendored() / "client.py").read_text()
    assert "def fetch_many" in client and "except (ValueError, OSError)" in client
    ast.parse(client)
    lock = read_lock(scenario.vendored())
    assert lock is not None and lock.source == "fork"


def test_the_lock_is_a_file_of_the_vendored_directory_but_not_part_of_the_copy(scenario) -> None:
    _vendored_once(scenario)
    ws = scenario.ws()
    files = ws.read_files(ws.consumers["svc"], root=scenario.vendored())
    assert LOCK_NAME not in files and (scenario.vendored() / LOCK_NAME).is_file()


@pytest.mark.parametrize("consumer", ["svc"])
def test_check_names_a_hand_edit_a_missing_and_an_extra_file_with_the_command_that_fixes_them(
    scenario, consumer
) -> None:
    _vendored_once(scenario)
    scenario.edit_vendored("client.py", "timeout = 5", "timeout = 6")
    (scenario.vendored() / "errors.py").unlink()
    write_tree(scenario.vendored(), {"notes.txt": "mine\n"})

    (result,) = check(scenario.ws(), [consumer])

    assert result.state == "drift" and result.fix == "plait vendor svc"
    drift = {(d.file, d.kind): d.detail for d in result.drift}
    assert set(drift) == {("client.py", "edited"), ("errors.py", "missing"), ("notes.txt", "extra")}
    assert "run `plait vendor svc` to record the edit" in drift[("client.py", "edited")]

    vendor(scenario.ws(), [consumer])
    (after,) = check(scenario.ws(), [consumer])
    assert after.state == "ok"
    lock = read_lock(scenario.vendored())
    assert lock is not None
    assert sorted(e.text for e in lock.local_edits) == [
        "added file notes.txt",
        "changed timeout = 6 in Client",
        "removed file errors.py",
    ]


def test_check_names_a_lock_behind_its_source(scenario) -> None:
    _vendored_once(scenario)
    write_tree(scenario.canonical, {"client.py": client_source(fetch_many=True), "new.py": "X = 1\n"})
    scenario.commit("canonical moves on")

    (result,) = check(scenario.ws(), ["svc"])

    assert result.state == "drift"
    behind = {d.file: d.detail for d in result.drift if d.kind == "behind"}
    assert set(behind) == {"client.py", "new.py"}
    assert behind["client.py"].startswith("changed in canonical since it was vendored from canonical@")
    assert behind["client.py"].endswith("run `plait vendor svc`")


def test_check_refuses_a_lock_whose_base_the_store_lost(scenario) -> None:
    _vendored_once(scenario)
    lock = read_lock(scenario.vendored())
    assert lock is not None
    store = scenario.ws().store
    store.path_of(lock.files["client.py"].base).unlink()

    (result,) = check(scenario.ws(), ["svc"])

    assert result.state == "error" and "the store has lost the base of client.py" in result.error
    assert check_exit([result]) == 2
    assert vendor(scenario.ws(), ["svc"]).exit_code == 2


def test_nothing_is_pruned_while_a_consumers_lock_cannot_be_read(scenario) -> None:
    from plait.session import prunable

    _vendored_once(scenario)
    manifest = (scenario.root / "lineages.toml").read_text() + (
        '\n[consumers.far]\ngit = "https://git.invalid/far.git"\nvendor_dir = "far/_vendor/corelib"\n'
        'package = "far._vendor.corelib"\n'
    )
    (scenario.root / "lineages.toml").write_text(manifest)
    ws = scenario.ws()
    orphan = ws.store.path_of(digest_of("nobody names this\n"))
    orphan.parent.mkdir(parents=True, exist_ok=True)
    orphan.write_text("nobody names this\n")

    assert prunable(ws) == [], "far's lock is in a repository not cloned here: its bases are unknown"

    manifest = manifest[: manifest.index("\n[consumers.far]")]
    (scenario.root / "lineages.toml").write_text(manifest)
    ws = scenario.ws()
    assert prunable(ws) == [orphan]
