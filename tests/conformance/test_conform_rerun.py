"""A verdict a loaded machine could have made is confirmed by running its scenario again, alone.

On a loaded CI runner a starved worker missed the 2 s ceiling of a 1 s
deadline scenario, and deadline-cut answers differed from the canonical's
at parity: each run failed on other copies.  Now such a verdict's scenario
runs once more, alone, and the rerun's verdict stands, with both times in
every report.  A copy that stalls on every run still fails.

The copies here are the canonical client with a real stall appended to its
client module: ``await asyncio.sleep`` before the call, outside its
deadline, on the ``drip-body`` scenario's text.  The stall that happens once
marks a file beside the module the first time, so its rerun does not stall:
the first run's verdict is slowed for certain and the rerun is not.
"""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from plait.cli import cli
from plait.conformance import conform, installed_canonical, load_scenarios, path_target
from plait.conformance.runner import _Matrix
from plait.conformance.targets import Target
from plait.conformance.wire import ScenarioFacts, WorkerResult

pytestmark = pytest.mark.slow  # conformance runs (worker processes, real servers)

CANONICAL = Path(__file__).resolve().parents[2] / "client" / "embedding_client"
SCENARIOS = ["ok", "drip-body", "status-500"]

STALL = """

# -- a stall for the conformance tests (appended) --
import asyncio as _asyncio
import pathlib as _pathlib

_unstalled = EmbeddingClient.embed_with_outcome


async def _stalled(self, texts):
    marker = _pathlib.Path(__file__).with_name("stalled-once")
    if texts and texts[0].startswith("drip body") and not ({once} and marker.exists()):
        marker.write_text("stalled")
        await _asyncio.sleep({seconds})
    return await _unstalled(self, texts)


EmbeddingClient.embed_with_outcome = _stalled
"""


def _stalled_copy(root: Path, *, once: bool, seconds: float) -> Path:
    copy = root / "stalled" / "embedding_client"
    shutil.copytree(CANONICAL, copy, ignore=shutil.ignore_patterns("__pycache__"))
    client = copy / "client.py"
    client.write_text(client.read_text(encoding="utf-8") + STALL.format(once=once, seconds=seconds), encoding="utf-8")
    return copy


def _conform(copy: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(
        cli,
        ["conform", "--path", str(copy), *(f"--scenario={name}" for name in SCENARIOS), *args],
        catch_exceptions=False,
    )
    return result.exit_code, result.stdout, result.stderr


def test_a_first_run_slowed_past_its_ceiling_is_rerun_alone_and_passes(tmp_path: Path) -> None:
    copy = _stalled_copy(tmp_path, once=True, seconds=2.5)
    report = conform([installed_canonical(), path_target(copy, name="stalled")], load_scenarios().named(SCENARIOS))

    assert report.exit_code == 0, report.problems()
    stalled = report.copies[1]
    verdict = stalled.verdicts["drip-body"]
    assert verdict.status == "pass" and verdict.rerun is not None
    assert verdict.rerun.first.status == "fail"
    [first] = [p for p in verdict.rerun.first.problems if p.field == "elapsed"]
    assert first.tier == "safety" and first.text.startswith("took ") and first.text.endswith(", ceiling 2 s")
    assert verdict.rerun.first_seconds >= 3.0 > verdict.rerun.seconds
    # Only what timing could have made is rerun: the other scenarios ran once.
    assert [name for name, v in stalled.verdicts.items() if v.rerun is not None] == ["drip-body"]
    assert all(v.rerun is None for v in report.copies[0].verdicts.values())
    assert (copy / "stalled-once").read_text() == "stalled", "the rerun ran the copy again"


def test_every_report_says_the_verdict_needed_a_rerun_and_both_times(tmp_path: Path) -> None:
    copy = _stalled_copy(tmp_path, once=True, seconds=2.5)
    code, out, _err = _conform(copy)
    assert code == 0, out
    [line] = [line for line in out.splitlines() if "  rerun  " in line]
    assert line.startswith(f"{copy}  rerun  drip-body: took longer than its 2 s ceiling in ")
    assert "took longer than its 2 s ceiling in " in line and "; alone in " in line and line.endswith(" s: passes")

    (copy / "stalled-once").unlink()
    code, out, _err = _conform(copy, "--json")
    assert code == 0
    [result] = [r for r in json.loads(out)["copies"][1]["results"] if r["scenario"] == "drip-body"]
    rerun = result["rerun"]
    assert result["status"] == "pass" and rerun["first"]["status"] == "fail"
    assert rerun["first"]["problems"][0]["tier"] == "safety"
    assert rerun["first_seconds"] >= 3.0 > rerun["seconds"] == result["observed"]["elapsed"]

    (copy / "stalled-once").unlink()
    code, out, _err = _conform(copy, "--format", "markdown")
    assert code == 0
    section = out.split("### Confirmed by a rerun, alone\n\n", 1)[1].splitlines()[0]
    assert section.startswith(f"- `{copy}` drip-body: took longer than ") and section.endswith(" s: passes")

    (copy / "stalled-once").unlink()
    code, out, _err = _conform(copy, "--format", "junit")
    assert code == 0
    case = ET.fromstring(out).find(f".//testsuite[@name='{copy}']/testcase[@name='drip-body']")
    assert case is not None and case.find("failure") is None
    said = case.findtext("system-out") or ""
    assert said.startswith("rerun alone to confirm: took ") and said.endswith(" s: passes")


def test_a_copy_that_stalls_3_s_on_every_run_still_fails_after_its_rerun(tmp_path: Path) -> None:
    copy = _stalled_copy(tmp_path, once=False, seconds=3.0)
    code, out, _err = _conform(copy)

    assert code == 1, out
    lines = out.splitlines()
    assert f"{copy}  safety  took longer than its 2 s ceiling  (drip-body)" in lines
    [line] = [line for line in lines if "  rerun  " in line]
    assert "; alone in " in line and line.endswith(" s: fails again: took longer than its 2 s ceiling")
    alone = float(line.split("; alone in ")[1].split(" s:")[0])
    assert alone >= 3.0, "the rerun stalled too: it is the copy's, not the machine's"


# -- the rerun logic on given facts: which verdicts are rerun, and against what --------------------


def _call(elapsed: float, *, ok: bool) -> ScenarioFacts:
    """What one call of the "ok" scenario did: the vectors, or cut at its deadline."""
    error = None if ok else "mode=http / POST http://{host}/ok failed: ReadTimeout: timed out"
    fact = {"value": "2x8" if ok else "None", "attempted": True, "ok": ok, "error": error, "elapsed": elapsed}
    return {"calls": [fact], "endpoint": "http://{host}/ok", "requests": 1, "elapsed": elapsed}  # type: ignore[typeddict-item]


def _raw(facts: ScenarioFacts) -> WorkerResult:
    return {"capabilities": {"embed_with_outcome": True}, "keywords": {}, "results": {"ok": facts}}


def test_a_canonical_cut_at_its_deadline_is_rerun_first_and_the_copies_judged_against_its_rerun() -> None:
    # The canonical was starved past its 5 s timeout in the first run, so a
    # copy that got its answer in time differed from it; the copy's own
    # facts ran into no deadline, so only the canonical is rerun.
    scenarios = load_scenarios().named(["ok"])
    canonical = Target(name="canonical", kind="canonical", import_name="c", sys_path="", package_dir=Path("c"))
    copy = Target(name="copy", kind="path", import_name="x", sys_path="", package_dir=Path("x"))
    reruns: list[str] = []

    def rerun(target: Target, alone: object) -> WorkerResult:
        reruns.append(target.name)
        return _raw(_call(0.3, ok=True))

    first = [_raw(_call(5.0, ok=False)), _raw(_call(0.2, ok=True))]
    matrix = _Matrix([canonical, copy], first, scenarios)
    before = matrix.copies()
    assert before[0].verdicts["ok"].status == "fail" and before[1].verdicts["ok"].status == "parity"
    matrix.confirm(rerun)  # type: ignore[arg-type]
    after = matrix.copies()

    assert reruns == ["canonical"]
    assert [c.verdicts["ok"].status for c in after] == ["pass", "pass"]
    confirmed = after[0].verdicts["ok"].rerun
    assert confirmed is not None and (confirmed.first.status, confirmed.first_seconds, confirmed.seconds) == (
        "fail",
        5.0,
        0.3,
    )
    assert after[1].verdicts["ok"].rerun is None, "the copy ran once: its verdict changed with the reference"


def test_a_verdict_on_what_a_text_says_is_never_rerun() -> None:
    scenarios = load_scenarios().named(["ok"])
    copy = Target(name="copy", kind="path", import_name="x", sys_path="", package_dir=Path("x"))
    leaky = _call(6.0, ok=False)
    leaky["calls"][0]["unprintable"] = ["\\x1b"]
    matrix = _Matrix([copy], [_raw(leaky)], scenarios)
    reruns: list[str] = []
    matrix.confirm(lambda target, alone: reruns.append(target.name) or _raw(_call(0.1, ok=True)))  # type: ignore[arg-type, func-returns-value]
    # The timed problems (the outcome) are rerun; alone, the copy answers in time.
    assert reruns == ["copy"]
    assert matrix.copies()[0].verdicts["ok"].status == "pass"

    only_text = _call(0.1, ok=True)
    only_text["calls"][0]["leaks"] = ["raw"]
    matrix = _Matrix([copy], [_raw(only_text)], scenarios)
    matrix.confirm(lambda target, alone: reruns.append("again") or _raw(_call(0.1, ok=True)))  # type: ignore[arg-type, func-returns-value]
    assert reruns == ["copy"], "a secret in the error is the copy's whatever the time"
    assert matrix.copies()[0].verdicts["ok"].status == "fail"
