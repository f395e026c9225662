"""`plait conform` as a user and CI run it: the bundled workspace, a copy by path, exit codes, pipes, JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import tomlkit
from breaks import broken_copy
from click.testing import CliRunner
from xsd_subset import read_schema, validate

from plait.cli import cli
from plait.conformance import ConformReport, load_scenarios
from plait.workspace import Workspace, copy_workspace

pytestmark = pytest.mark.slow  # conformance runs (worker processes, real servers)

REPO = Path(__file__).resolve().parents[2]
WORKSPACE = REPO / "lineages"
SCHEMA = read_schema(Path(__file__).with_name("junit.xsd"))


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy whose health says "error" where the contract says "fault"."""
    return broken_copy(tmp_path_factory.mktemp("cli-broken"), "error-not-fault")


def run(*args: str):
    return CliRunner().invoke(cli, ["conform", "--workspace", str(WORKSPACE), *args], catch_exceptions=False)


def _python_files(files: dict[str, str]) -> dict[str, str]:
    return {rel: text for rel, text in files.items() if rel.endswith(".py")}


# -- the bundled workspace -----------------------------------------------------------------------


def test_every_copy_in_the_manifest_runs_under_its_own_package_name(bundled: ConformReport) -> None:
    ws = Workspace.load(WORKSPACE)
    assert [c.target.name for c in bundled.copies] == ["canonical", *ws.lineages, *ws.consumers]
    for copy in bundled.copies:
        assert copy.error is None, copy.error
        assert Path(copy.file).parent == copy.target.package_dir, "each copy is imported from its own directory"
    kinds = {c.target.name: (c.target.kind, c.target.import_name) for c in bundled.copies}
    assert kinds["canonical"] == ("canonical", "embedding_client")
    assert kinds["cpersona"] == ("consumer", "cpersona._vendored_mcp_common.embedding_client")
    assert all(kinds[name] == ("lineage", lineage.package) for name, lineage in ws.lineages.items())


def test_the_canonical_client_and_every_exact_vendored_copy_conform(bundled: ConformReport) -> None:
    ws = Workspace.load(WORKSPACE)
    canonical = _python_files(ws.read_files(ws.canonical))
    exact = [
        c
        for c in bundled.copies
        if c.target.kind == "consumer" and _python_files(_read(c.target.package_dir)) == canonical
    ]
    assert exact, "the demo consumer vendors the canonical client as it is"
    for copy in [bundled.copies[0], *exact]:
        assert copy.conforms, [(n, v.problems) for n, v in copy.verdicts.items() if v.problems]
        skipped = {n for n, v in copy.verdicts.items() if v.status == "skip"}
        assert skipped == {n for n in copy.verdicts if n.startswith("uds-")}, "only the uds transport is missing"


def _read(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): p.read_text() for p in folder.rglob("*.py") if "__pycache__" not in p.parts
    }


def test_the_exit_code_follows_the_copies(bundled: ConformReport) -> None:
    assert bundled.exit_code == (0 if all(c.conforms for c in bundled.copies) else 1)


# -- the command line ------------------------------------------------------------------------------


def test_exit_0_when_every_copy_conforms() -> None:
    result = run("cpersona", "--scenario", "ok", "--scenario", "refused", "--scenario", "advisory-*")
    assert result.exit_code == 0, result.stdout
    assert result.stdout.splitlines()[:2] == [
        "canonical is the reference: 12/12 pass",
        "cpersona behaves like canonical on 12/12",
    ]
    *_, summary, workspace = result.stdout.splitlines()
    assert summary.startswith("2 of 2 copies conform to 12 scenarios")
    assert workspace == f"workspace: {WORKSPACE / 'lineages.toml'}"


def test_piped_verbose_output_is_one_plain_line_per_copy_and_scenario(broken: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "plait", "conform", "--workspace", str(WORKSPACE), "--path", str(broken)]
        + ["--scenario", "advisory-*", "--verbose"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1, proc.stderr
    assert "\x1b" not in proc.stdout
    lines = proc.stdout.splitlines()
    assert "canonical  advisory-fault  pass" in lines
    assert (
        f"{broken}  advisory-fault  contract  advisory 1: severity=error, canonical says fault"
        " (not one of the contract's words: fault, hint)" in lines
    )
    assert f"{broken}  advisory-not-configured  pass" in lines
    assert lines[-3].startswith("1 of 2 copies conform to 10 scenarios")
    assert lines[-2] == f"next: plait conform --path {broken} --verbose shows each scenario"
    assert f"{broken}: ran" in proc.stderr, "progress goes to stderr"


def test_json_envelope() -> None:
    result = run("cpersona", "--scenario", "ok", "--json")
    assert result.exit_code == 0
    assert "\n" not in result.stdout.strip(), "compact by default"
    data = json.loads(result.stdout)
    assert (data["schema"], data["command"], data["exit"]) == (2, "conform", 0)
    assert data["inputs"] == {
        "workspace": str(WORKSPACE / "lineages.toml"),
        "copies": ["cpersona"],
        "paths": [],
        "imports": [],
        "from": None,
        "scenarios": str(load_scenarios().path),
        "only": ["ok"],
        "strict": False,
    }
    assert [c["name"] for c in data["copies"]] == ["canonical", "cpersona"]


def test_junit_format_from_the_command_line_is_valid(broken: Path) -> None:
    result = run("--path", str(broken), "--scenario", "advisory-fault", "--scenario", "uds-ok", "--format", "junit")
    assert result.exit_code == 1
    assert validate(result.stdout, SCHEMA) == []
    assert '<skipped message="not applicable: it takes no uds_path (no uds transport)"' in result.stdout
    assert '<failure message="advisory 1: severity=error, canonical says fault' in result.stdout
    assert 'type="contract"' in result.stdout


def test_a_terminal_gets_the_matrix_as_a_coloured_table_with_verbose(broken: Path) -> None:
    result = run(
        "--path", str(broken), "--scenario", "advisory-fault", "--scenario", "ok", "--color", "always", "--verbose"
    )
    assert "\x1b[" in result.stdout
    assert "FAILS" in result.stdout and "conformance" in result.stdout
    assert "contract problems:" in result.stdout
    assert f"{broken}: advisory-fault → advisory 1: severity=error, canonical says fault" in result.stdout


def test_exit_2_names_a_copy_that_cannot_be_imported(tmp_path: Path) -> None:
    package = tmp_path / "brokenpkg"
    package.mkdir()
    (package / "__init__.py").write_text("import a_module_nobody_has_installed\n\n\nclass EmbeddingClient:\n    pass\n")
    result = run("--path", str(package), "--scenario", "ok")
    assert result.exit_code == 2
    assert (
        f"plait conform: error: {package}: cannot import brokenpkg from {tmp_path}: "
        "ModuleNotFoundError: No module named 'a_module_nobody_has_installed'"
    ) in result.stderr
    assert "canonical is the reference: 1/1 pass" in result.stdout, "the copies that could run are still reported"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["nope"], "no copy named nope (known: canonical, "),
        (["--scenario", "nothing-here"], "no scenario matches nothing-here"),
        (["--path", "/definitely/not/here"], "/definitely/not/here: no such directory or module file"),
    ],
)
def test_exit_2_on_bad_input_is_one_line(args: list[str], says: str) -> None:
    result = run(*args)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0] and lines[0].startswith("plait conform: error: ")


def test_a_declared_consumer_that_is_not_vendored_yet_is_named_and_the_others_still_run(tmp_path: Path) -> None:
    ws = copy_workspace(Workspace.load(WORKSPACE), tmp_path / "ws")
    table = tomlkit.table()
    table.update(
        {
            "path": "consumers/newcomer",
            "vendor_dir": "newcomer/_vendored/embedding_client",
            "package": "newcomer._vendored.embedding_client",
        }
    )
    ws.document["consumers"]["newcomer"] = table
    ws.manifest.write_text(tomlkit.dumps(ws.document))
    result = CliRunner().invoke(
        cli,
        ["conform", "--workspace", str(ws.dir), "canonical", "newcomer", "--scenario", "ok"],
        catch_exceptions=False,
    )
    assert result.exit_code == 2
    vendored = ws.dir / "consumers" / "newcomer" / "newcomer" / "_vendored" / "embedding_client"
    assert f"plait conform: error: newcomer: no vendored package at {vendored} (has it been vendored?)" in result.stderr
    lines = result.stdout.splitlines()
    assert lines[:2] == [
        "canonical is the reference: 1/1 pass",
        f"newcomer could not run: no vendored package at {vendored} (has it been vendored?)",
    ]
