"""A module the environment lacks is the environment's, not the copy's: an ``environment`` tier that fails nothing.

The copies are the canonical client edited with libcst (`variants`): one
that imports a module nobody installed in api mode only, one that needs it
to be imported at all, and two whose import fails on their own account (a
module of their package that is not there; self-imports the vendoring did
not rewrite), which stay the copy's failure.
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from variants import ABSENT, needing_copy, self_importing_copy, unrewritten_copy
from xsd_subset import read_schema, validate

pytestmark = pytest.mark.slow  # conformance runs (worker processes, real servers)

REPO = Path(__file__).resolve().parents[2]
WORKSPACE = REPO / "lineages"
API = ["api-ok", "api-shuffled"]
INSTALL = f"{sys.executable} -m pip install {ABSENT}"


def conform(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plait", "conform", "--workspace", str(WORKSPACE), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def scenarios(*names: str) -> list[str]:
    return [arg for name in names for arg in ("--scenario", name)]


@pytest.fixture(scope="module")
def lazy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return needing_copy(tmp_path_factory.mktemp("lazy"))


def test_a_missing_optional_module_leaves_scenarios_unchecked_not_failed(lazy: Path) -> None:
    proc = conform("--path", str(lazy), *scenarios("ok", *API))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    name = str(lazy)
    assert f"{name} behaves like canonical on 1/3: 2 not checked here (needs {ABSENT})" in lines
    said = f"{name}  environment  needs {ABSENT}, which is not installed where plait runs  (api-ok, api-shuffled)"
    assert said in lines
    assert not [line for line in lines if "  contract  " in line], "no contract failure for the environment's gap"
    assert lines[-3].startswith("2 of 2 copies conform to 3 scenarios, 1 not fully checked here in ")
    assert lines[-2] == f"next: {INSTALL}, or run plait conform where the copies' own dependencies are"


def test_json_junit_and_markdown_carry_the_environment_tier(lazy: Path) -> None:
    data = json.loads(conform("--path", str(lazy), *scenarios("ok", *API), "--json").stdout)
    assert data["exit"] == 0
    copy = data["copies"][1]
    assert copy["conforms"] is True and copy["missing"] == [ABSENT]
    assert copy["problems"]["environment"] == 2 and copy["problems"]["contract"] == 0
    result = next(r for r in copy["results"] if r["scenario"] == "api-ok")
    assert result["status"] == "skip"
    assert result["reason"] == f"not checked here: needs {ABSENT}, which is not installed where plait runs"
    assert result["problems"] == [
        {
            "tier": "environment",
            "field": "import",
            "expected": None,
            "observed": ABSENT,
            "text": f"needs {ABSENT}, which is not installed where plait runs",
        }
    ]
    assert copy["like_canonical"]["unchecked"] == 2
    junit = conform("--path", str(lazy), *scenarios("ok", *API), "--format", "junit").stdout
    assert validate(junit, read_schema(Path(__file__).with_name("junit.xsd"))) == []
    suite = ET.fromstring(junit)[1]
    assert suite.get("failures") == "0" and suite.get("skipped") == "2"
    skipped = suite.find("testcase[@name='api-ok']/skipped")
    assert skipped is not None and skipped.get("message") == result["reason"]
    assert suite.find("properties/property[@name='missing']").get("value") == ABSENT
    markdown = conform("--path", str(lazy), *scenarios("ok", *API), "--format", "markdown").stdout
    assert (
        f"**environment**: needs {ABSENT}, which is not installed where plait runs (api-ok, api-shuffled)" in markdown
    )


def test_a_copy_that_cannot_even_be_imported_here_names_the_module_and_how_to_get_it(tmp_path: Path) -> None:
    copy = needing_copy(tmp_path, at_import=True)
    proc = conform("--path", str(copy), "--scenario", "ok")
    assert proc.returncode == 2, "nothing of it could be checked"
    assert (
        f"plait conform: error: {copy}: cannot import embedding_client from {tmp_path}: "
        f"ModuleNotFoundError: No module named '{ABSENT}' ({ABSENT} is not installed here: {INSTALL})"
    ) in proc.stderr.splitlines()
    lines = proc.stdout.splitlines()
    assert f"{copy} could not be checked here: it needs {ABSENT}, which is not installed where plait runs" in lines
    assert f"{copy}  environment  needs {ABSENT}, not installed where plait runs" in lines
    assert lines[-2].startswith(f"next: {INSTALL}")


@pytest.mark.parametrize(
    ("make", "module"),
    [(self_importing_copy, "embedding_client.gone"), (unrewritten_copy, "mcp_common")],
    ids=["own-module-missing", "self-import-not-rewritten"],
)
def test_an_import_error_of_the_copys_own_modules_is_still_the_copys(tmp_path: Path, make, module: str) -> None:
    copy = make(tmp_path)
    proc = conform("--path", str(copy), "--scenario", "ok")
    assert proc.returncode == 2
    error = next(line for line in proc.stderr.splitlines() if line.startswith("plait conform: error: "))
    assert error.endswith(f"ModuleNotFoundError: No module named '{module}'"), error
    assert "not installed" not in proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert any(line.startswith(f"{copy} could not run: cannot import ") for line in lines)
    assert any(line.startswith(f"{copy}  error  cannot import ") for line in lines)
    assert lines[-2] == f"next: make {copy} importable (the error above says why), then rerun plait conform"
