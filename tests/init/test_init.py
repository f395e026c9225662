"""`plait init` on real setups: every copy named as its code says, a manifest that loads and runs."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from real_setups import Setup, commit_all, edit, make_setup, vendor_by_hand
from vendor_builders import fingerprint, init_repo, write_tree

from plait.cli import cli
from plait.commit import WorkspaceBusy, workspace_lock
from plait.errors import PlaitError
from plait.init import init
from plait.lineage.adopt import adopt
from plait.lineage.status import status
from plait.vendoring.check import check
from plait.workspace import Workspace


def _plait(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _init_all(setup: Setup, monkeypatch: pytest.MonkeyPatch, *extra: str) -> Result:
    monkeypatch.chdir(setup.ws)
    return _plait("init", "--canonical", "../canonical", "../fork", "../svc-a", "../svc-b", *extra)


def _manifest(setup: Setup) -> dict:
    return tomllib.loads((setup.ws / "lineages.toml").read_text(encoding="utf-8"))


def test_init_names_every_copy_as_its_code_says(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    result = _init_all(setup, monkeypatch)

    assert result.exit_code == 0, result.output + result.stderr
    data = _manifest(setup)
    assert data["canonical"] == {"package": "corelib", "git": "../canonical", "subdir": "corelib"}
    assert data["lineages"] == {
        "fork": {
            "package": "corelib",
            "git": "../fork",
            "subdir": "corelib",
            "syncs_from": "canonical",
            "files": {"client.py": "embedding.py"},
            "transforms": {"absolute_imports": True},
        }
    }
    assert data["consumers"] == {
        "svc-a": {
            "git": "../svc-a",
            "vendor_dir": "svc_a/_vendored_corelib",
            "package": "svc_a._vendored_corelib",
            "source": "canonical",
        },
        "svc-b": {
            "git": "../svc-b",
            "subdir": "src",
            "vendor_dir": "svc_b/_vendored_corelib",
            "package": "svc_b._vendored_corelib",
            "source": "canonical",
        },
    }
    assert "root" not in data, "every copy is in another repository: no path needs a wider boundary"


def test_the_comments_say_what_was_found_and_why(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _init_all(setup, monkeypatch).exit_code == 0
    text = (setup.ws / "lineages.toml").read_text(encoding="utf-8")

    assert "# found by its imports: __init__.py:3: from svc_a._vendored_corelib.client import Client\n" in text
    assert "corelib/ is a top-level package of its repository, so a lineage (a fork)" in text
    assert "svc_b/_vendored_corelib is nested in the package svc_b, so a consumer (a vendored copy)" in text
    assert "# the source's client.py is its embedding.py" in text
    assert "# it spells its self-imports absolutely" in text
    assert "note: its own files: metrics.py" in text
    for name in ("fork", "svc-a", "svc-b"):
        assert f"#   plait adopt {name}\n" in text, "the manifest says how to record each base"


def test_the_written_manifest_loads_and_the_library_sees_the_right_copies(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _init_all(setup, monkeypatch).exit_code == 0

    ws = Workspace.load(setup.ws)
    assert ws.canonical.root == setup.canonical / "corelib"
    fork = ws.lineages["fork"]
    assert fork.root == setup.fork / "corelib" and fork.absolute_imports
    assert "embedding.py" in ws.read_files(fork) and "client.py" not in ws.read_files(fork)
    consumers = {c.name: c for c in ws.select_consumers()}
    assert consumers["svc-a"].vendor_dir == setup.svc_a / "svc_a" / "_vendored_corelib"
    assert consumers["svc-b"].vendor_dir == setup.svc_b / "src" / "svc_b" / "_vendored_corelib"
    assert "errors.py" in ws.read_files(consumers["svc-b"], root=consumers["svc-b"].vendor_dir)

    (row,) = status(ws)
    assert (row.name, row.state) == ("fork", "never-synced")
    assert {r.consumer: r.state for r in check(ws)} == {"svc-a": "drift", "svc-b": "drift"}


def test_adopt_on_the_written_manifest_finds_the_commit_the_fork_was_copied_at(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rename and the import spelling init found are what let adopt see the fork as the second commit."""
    assert _init_all(setup, monkeypatch).exit_code == 0

    result = adopt(Workspace.load(setup.ws), "fork", dry_run=True)

    assert result.chosen is not None and result.chosen.revision.sha == setup.commits[1]
    assert result.runner_up is not None and result.runner_up.members > result.chosen.members


def test_status_and_check_run_on_the_written_manifest(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _init_all(setup, monkeypatch).exit_code == 0

    shown = _plait("--workspace", str(setup.ws), "status")
    checked = _plait("--workspace", str(setup.ws), "check")

    assert shown.exit_code == 0, shown.output + shown.stderr
    assert "fork" in shown.output
    assert checked.exit_code == 1, checked.output + checked.stderr
    assert "svc-a" in checked.output + checked.stderr and "svc-b" in checked.output + checked.stderr


def test_init_prints_the_adopt_commands_and_the_follow_up(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    result = _init_all(setup, monkeypatch)

    lines = result.output.splitlines()
    assert lines[0] == (
        f"wrote {setup.ws / 'lineages.toml'}: canonical corelib (../canonical (corelib)), 1 lineage, 2 consumers"
    )
    commands = [line.strip() for line in lines if line.startswith("  plait ")]
    assert commands == [
        "plait adopt fork",
        "plait adopt svc-a",
        "plait adopt svc-b",
        "plait sync",
        "plait vendor --all",
    ]


def test_the_commands_name_the_workspace_when_it_is_elsewhere(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(setup.root)
    result = _plait("init", "--workspace", "ws", "--canonical", "canonical", "fork")

    assert result.exit_code == 0, result.output + result.stderr
    assert "  plait --workspace ws/lineages.toml adopt fork" in result.output.splitlines()
    assert _manifest(setup)["lineages"]["fork"]["git"] == "../fork", "relative to the manifest, not the cwd"
    text = (setup.ws / "lineages.toml").read_text(encoding="utf-8")
    assert "#   plait adopt fork\n" in text, "the manifest's reader runs them from its directory"


def test_a_copy_named_by_url_is_git_backed_by_that_url(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    url = setup.svc_b.as_uri()
    monkeypatch.chdir(setup.ws)
    result = _plait("init", "--canonical", "../canonical", f"svc={url}", "--json")

    assert result.exit_code == 0, result.output + result.stderr
    (consumer,) = json.loads(result.output)["consumers"]
    assert consumer["name"] == "svc"
    assert consumer["place"] == {"git": url, "subdir": "src"}
    assert consumer["vendor_dir"] == "svc_b/_vendored_corelib"
    assert not list(Path(setup.ws).glob(".plait")), "the URL was looked at in a temporary clone"
    assert Workspace.load(setup.ws).consumers["svc"].git is not None


def test_the_canonical_package_is_found_in_this_repository_by_what_the_copies_share(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A workspace repository holding the canonical package beside another package and the manifest's
    directory: the copies decide which package is canonical, and paths widen the boundary to the repository."""
    setup = make_setup(tmp_path)
    mono = tmp_path / "mono"
    vendor_by_hand(setup.canonical / "corelib", mono / "corelib", "corelib")
    write_tree(mono, {"tools/__init__.py": '"""Release tools."""\n', "tools/release.py": "def release():\n    pass\n"})
    write_tree(mono, {"tests/__init__.py": "", "tests/test_corelib.py": "import corelib\n"})
    vendor_by_hand(
        setup.canonical / "corelib", mono / "services" / "svc" / "svc" / "_vendor" / "corelib", "svc._vendor.corelib"
    )
    write_tree(mono / "services" / "svc" / "svc", {"__init__.py": ""})
    (mono / "services" / "svc" / "svc" / "_vendor" / "__init__.py").write_text("")
    repo = init_repo(mono)
    commit_all(repo, "a monorepo")
    (mono / "plait").mkdir()
    monkeypatch.chdir(mono / "plait")

    result = _plait("init", "../services/svc", str(setup.fork))

    assert result.exit_code == 0, result.output + result.stderr
    data = tomllib.loads((mono / "plait" / "lineages.toml").read_text(encoding="utf-8"))
    assert data["root"] == ".."
    assert data["canonical"] == {"package": "corelib", "path": "../corelib"}
    assert data["consumers"]["svc"] == {
        "path": "../services/svc",
        "vendor_dir": "svc/_vendor/corelib",
        "package": "svc._vendor.corelib",
        "source": "canonical",
    }
    assert data["lineages"]["fork"]["git"] == "../../fork"
    Workspace.load(mono / "plait")


# -- errors: one named error, exit 2, nothing written ---------------------------


def _refused(result: Result, *needles: str) -> None:
    assert result.exit_code == 2, result.output + result.stderr
    assert result.stderr.startswith("plait init: error: ")
    assert len(result.stderr.strip().splitlines()) == 1, "one line"
    for needle in needles:
        assert needle in result.stderr


def test_a_copy_holding_no_copy_of_the_canonical_package_is_refused(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = setup.root / "other"
    write_tree(
        other, {"thing/__init__.py": '"""Something else."""\n', "thing/client.py": "def other():\n    return 1\n"}
    )
    before = fingerprint(setup.ws)
    monkeypatch.chdir(setup.ws)

    result = _plait("init", "--canonical", "../canonical", "../fork", "../other")

    _refused(result, "../other", "no copy of corelib")
    assert fingerprint(setup.ws) == before


def test_two_equally_good_copies_are_named_not_guessed(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    service = setup.svc_a / "svc_a"
    vendor_by_hand(service / "_vendored_corelib", service / "_vendored_corelib_old", "svc_a._vendored_corelib_old")
    monkeypatch.chdir(setup.ws)

    result = _plait("init", "--canonical", "../canonical", "../svc-a")

    _refused(result, "several equally good copies", "_vendored_corelib (", "_vendored_corelib_old (")
    assert not (setup.ws / "lineages.toml").exists()


def test_naming_the_exact_directory_settles_which_copy(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    service = setup.svc_a / "svc_a"
    vendor_by_hand(service / "_vendored_corelib", service / "_vendored_corelib_old", "svc_a._vendored_corelib_old")
    monkeypatch.chdir(setup.ws)

    result = _plait("init", "--canonical", "../canonical", "../svc-a/svc_a/_vendored_corelib")

    assert result.exit_code == 0, result.output + result.stderr
    assert _manifest(setup)["consumers"]["svc-a"]["vendor_dir"] == "svc_a/_vendored_corelib"


def test_no_canonical_package_is_one_named_error(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(setup.ws)

    given = _plait("init", "--canonical", ".", "../fork")
    found = _plait("init", "../fork")

    _refused(given, "cannot find the canonical package")
    _refused(found, "cannot find the canonical package")
    assert not (setup.ws / "lineages.toml").exists()


def test_bad_arguments_are_named(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(setup.ws)

    _refused(_plait("init", "--canonical", "../canonical", "../nowhere"), "../nowhere", "not a directory")
    _refused(
        _plait("init", "--canonical", "../canonical", "../svc-a", "../svc-a/svc_a"),
        "name the same copy",
    )
    assert not (setup.ws / "lineages.toml").exists()


# -- dry run, force, json --------------------------------------------------------


def test_dry_run_prints_the_manifest_and_writes_nothing(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    before = fingerprint(setup.root)

    result = _init_all(setup, monkeypatch, "--dry-run")

    assert result.exit_code == 0, result.output + result.stderr
    assert fingerprint(setup.root) == before
    assert "[lineages.fork]\n" in result.output and 'vendor_dir = "svc_a/_vendored_corelib"' in result.output
    lines = result.output.splitlines()
    assert f"would write {setup.ws / 'lineages.toml'}: canonical corelib" in result.output
    assert lines[-1] == "dry run: nothing was written"
    start = next(i for i, line in enumerate(lines) if line.startswith("would write"))
    report = lines[start:]
    assert all("would" in line or line.startswith(("  plait ", "  git ")) for line in report[:-1]), (
        "every line of a dry run's report says would"
    )


def test_an_existing_manifest_is_kept_unless_forced(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    manifest = setup.ws / "lineages.toml"
    manifest.write_text('# mine\n[canonical]\npackage = "x"\npath = "."\n', encoding="utf-8")

    kept = _init_all(setup, monkeypatch)

    _refused(kept, "a manifest is already here", "--force")
    assert manifest.read_text(encoding="utf-8").startswith("# mine")

    replaced = _init_all(setup, monkeypatch, "--force")

    assert replaced.exit_code == 0, replaced.output + replaced.stderr
    assert replaced.output.startswith(f"replaced {manifest}:")
    assert "the old manifest was replaced whole" in replaced.output
    assert "# mine" not in manifest.read_text(encoding="utf-8")
    assert set(_manifest(setup)["consumers"]) == {"svc-a", "svc-b"}
    assert not list(setup.ws.glob(".*.plait-tmp")), "no staged file left behind"


def test_json_gives_the_findings_as_data(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    result = _init_all(setup, monkeypatch, "--json", "--dry-run")

    assert result.exit_code == 0, result.output + result.stderr
    data = json.loads(result.output)
    assert data["schema"] == 1 and data["command"] == "init"
    assert data["written"] is False and data["dry_run"] is True
    (fork,) = data["lineages"]
    assert (fork["name"], fork["kind"], fork["absolute_imports"], fork["files"]) == (
        "fork",
        "lineage",
        True,
        {"client.py": "embedding.py"},
    )
    assert [c["vendor_dir"] for c in data["consumers"]] == ["svc_a/_vendored_corelib", "svc_b/_vendored_corelib"]
    assert data["commands"][-1] == "plait vendor --all"
    assert tomllib.loads(data["text"])["canonical"]["package"] == "corelib"
    assert not (setup.ws / "lineages.toml").exists()


def test_the_library_raises_one_plait_error(setup: Setup) -> None:
    with pytest.raises(PlaitError, match="no copy of corelib"):
        init(setup.ws, str(setup.canonical), [str(setup.ws)], cwd=setup.ws)


# -- what the imports say, when they disagree with the place ---------------------


def test_imports_the_hand_rewrite_missed_are_named_and_do_not_rename_the_package(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    init_py = setup.svc_a / "svc_a" / "_vendored_corelib" / "__init__.py"
    edit(init_py, "from svc_a._vendored_corelib.errors import Failure", "from corelib.errors import Failure")
    monkeypatch.chdir(setup.ws)

    result = _plait("init", "--canonical", "../canonical", "../svc-a")

    assert result.exit_code == 0, result.output + result.stderr
    assert _manifest(setup)["consumers"]["svc-a"]["package"] == "svc_a._vendored_corelib"
    text = (setup.ws / "lineages.toml").read_text(encoding="utf-8")
    assert (
        "# note: 1 of its imports still name corelib, e.g. __init__.py:4: from corelib.errors import Failure"
        " (the rewrite into svc_a._vendored_corelib missed them?)\n" in text
    )


def test_a_service_imported_from_a_subdirectory_is_named_by_the_path_its_imports_use(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    """app/ is a package too, but the service runs from inside it: its imports say svc_c._vendor.corelib."""
    svc_c = setup.root / "svc-c"
    write_tree(svc_c / "app", {"__init__.py": "", "svc_c/__init__.py": "", "svc_c/_vendor/__init__.py": ""})
    vendor_by_hand(
        setup.canonical / "corelib", svc_c / "app" / "svc_c" / "_vendor" / "corelib", "svc_c._vendor.corelib"
    )
    commit_all(init_repo(svc_c), "svc-c")
    monkeypatch.chdir(setup.ws)

    result = _plait("init", "--canonical", "../canonical", "../svc-c")

    assert result.exit_code == 0, result.output + result.stderr
    assert _manifest(setup)["consumers"]["svc-c"] == {
        "git": "../svc-c",
        "subdir": "app",
        "vendor_dir": "svc_c/_vendor/corelib",
        "package": "svc_c._vendor.corelib",
        "source": "canonical",
    }
    Workspace.load(setup.ws)


def test_a_fork_that_kept_relative_imports_needs_no_transform(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = setup.root / "plain"
    vendor_by_hand(setup.canonical / "corelib", plain / "corelib", "corelib")
    commit_all(init_repo(plain), "a fork that changed nothing yet")
    monkeypatch.chdir(setup.ws)

    result = _plait("init", "--canonical", "../canonical", "../plain", "--json")

    assert result.exit_code == 0, result.output + result.stderr
    (lineage,) = json.loads(result.output)["lineages"]
    assert (lineage["absolute_imports"], lineage["files"], lineage["source"]) == (False, {}, "canonical")
    data = _manifest(setup)["lineages"]["plain"]
    assert "transforms" not in data and "files" not in data
    text = (setup.ws / "lineages.toml").read_text(encoding="utf-8")
    assert "# its self-imports are mixed (3 absolute, 3 relative), and its source is as close" in text


def test_force_waits_for_a_run_in_progress_and_refuses_a_pending_journal(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest = setup.ws / "lineages.toml"
    manifest.write_text('# mine\n[canonical]\npackage = "x"\npath = "."\n', encoding="utf-8")
    store = setup.ws / ".plait"
    monkeypatch.setenv("PLAIT_LOCK_TIMEOUT", "0.2")

    with workspace_lock(store), pytest.raises(WorkspaceBusy):
        init(setup.ws, str(setup.canonical), [str(setup.fork)], force=True, cwd=setup.ws)
    (store / "journal.json").write_text("{}", encoding="utf-8")
    journal = _init_all(setup, monkeypatch, "--force")

    _refused(journal, "interrupted plait run", "journal.json")
    assert manifest.read_text(encoding="utf-8").startswith("# mine"), "neither run replaced it"


def test_each_copy_is_named_after_its_repository_or_as_given(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(setup.ws)

    result = _plait(
        "init",
        "--canonical",
        "../canonical",
        "../svc-b/src/svc_b/_vendored_corelib",
        "../fork/corelib",
        "svc-b=../svc-a",
    )

    assert result.exit_code == 0, result.output + result.stderr
    data = _manifest(setup)
    assert set(data["lineages"]) == {"fork"}, "the exact package directory: named after its repository"
    assert data["consumers"]["svc-b"]["vendor_dir"] == "svc_a/_vendored_corelib", "a name given wins"
    assert data["consumers"]["svc-b-2"]["subdir"] == "src", "not after its src/"


def test_a_directory_name_holding_control_characters_is_written_on_one_line(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The fork's repository is named with an escape and a newline.  tomlkit
    # refused them in the manifest's comments (a ValueError traceback), and the
    # report would have sent the escape to the reader's terminal.
    import subprocess

    odd = setup.root / "fo\x1b[31mrk\nx"
    (setup.root / "fork").rename(odd)
    monkeypatch.chdir(setup.ws)
    result = _plait("init", "--canonical", "../canonical", f"../{odd.name}", "../svc-a")

    assert result.exit_code == 0, result.output + result.stderr
    assert "\x1b" not in result.output + result.stderr
    text = (setup.ws / "lineages.toml").read_text(encoding="utf-8")
    assert all(line.isprintable() for line in text.splitlines())
    ws = Workspace.load(setup.ws)
    [fork] = ws.lineages.values()
    assert fork.name == "fo-31mrk-x" and fork.root == odd / "corelib"
    # The commit command names the directory exactly, as a shell reads it.
    [command] = [line.strip() for line in result.output.splitlines() if "git -C $'" in line]
    word = command.split()[2]
    said = subprocess.run(["bash", "-c", f"printf %s {word}"], capture_output=True, text=True, check=True).stdout
    assert said == f"../{odd.name}"


def test_a_rerun_finishes_an_init_killed_between_its_link_and_its_unlink(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _init_all(setup, monkeypatch)
    assert first.exit_code == 0, first.output + first.stderr
    manifest = setup.ws / "lineages.toml"
    # What a kill just after os.link leaves: the manifest and its staged twin.
    os.link(manifest, setup.ws / ".lineages.toml.k3j2h1.plait-tmp")

    rerun = _init_all(setup, monkeypatch)

    assert rerun.exit_code == 0, rerun.output + rerun.stderr
    assert not list(setup.ws.glob(".*.plait-tmp")), "the killed init's staged file is swept"
    assert set(_manifest(setup)["consumers"]) == {"svc-a", "svc-b"}
