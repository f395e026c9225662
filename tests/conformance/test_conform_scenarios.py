"""The scenario file: shipped in the package, covering every hostile backend, refusing bad data."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

import pytest

from plait.conformance import load_scenarios, scenarios_path
from plait.conformance.servers import API_BEHAVIOURS, BEHAVIOURS
from plait.conformance.verdicts import SEVERITY_WORDS, error_kind
from plait.errors import PlaitError

pytestmark = pytest.mark.slow  # conformance runs (worker processes, real servers)

REPO = Path(__file__).resolve().parents[2]


def test_the_scenarios_ship_inside_the_package() -> None:
    path = scenarios_path()
    assert path.is_file() and path.parent.name == "conformance"
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    globs = project["tool"]["setuptools"]["package-data"]["plait"]
    # The wheel carries what these globs match, relative to the plait package.
    assert any(fnmatch.fnmatch(path.relative_to(path.parents[1]).as_posix(), glob) for glob in globs)


def test_every_server_behaviour_is_exercised_by_a_scenario() -> None:
    scenarios = load_scenarios().scenarios
    used = {s.server for s in scenarios}
    # by-text scenarios pick the behaviour per text: "wide|width: second".
    used |= {text.partition("|")[0] for s in scenarios if s.server == "by-text" for text in s.texts}
    missing = (set(BEHAVIOURS) | set(API_BEHAVIOURS)) - used
    assert not missing, f"behaviours no scenario uses: {sorted(missing)}"
    assert "refused" in used


def test_the_issues_client_configurations_are_all_there() -> None:
    scenarios = load_scenarios().scenarios
    urls = [s.url for s in scenarios]
    assert any("@" in url and "?token=" in url for url in urls), "a URL with userinfo and a query token"
    keys = {s.api_key for s in scenarios}
    for tail in ("\n", "\r\n", "\t"):
        assert any(key.endswith(tail) for key in keys), f"an API key ending in {tail!r}"
    repeated = [s for s in scenarios if len(s.calls) > 1 and len({c.texts for c in s.calls}) == 1]
    assert any(len(s.calls[0].texts) == 1 for s in repeated), "a repeated single text (the cache path)"
    assert {s.mode for s in scenarios} >= {"http", "api", "uds", "none", "bogus"}


def test_uds_scenarios_apply_only_where_the_transport_exists() -> None:
    uds = [s for s in load_scenarios().scenarios if s.mode == "uds"]
    assert uds and all(s.needs == {"uds"} for s in uds)
    failures = [call.expect for s in uds for call in s.calls if call.expect.ok is False]
    assert failures and all(e.attempted is True for e in failures)


def test_advisory_expectations_use_only_the_contracts_words() -> None:
    words = {
        advisory["severity"] for s in load_scenarios().scenarios for advisory in s.advisories if advisory is not None
    }
    assert words == set(SEVERITY_WORDS)


def test_a_subset_is_chosen_by_glob_and_an_empty_choice_is_an_error() -> None:
    chosen = load_scenarios().named(["advisory-*", "ok"])
    assert [s.name for s in chosen.scenarios][0] == "ok"
    assert all(s.name == "ok" or s.name.startswith("advisory-") for s in chosen.scenarios)
    with pytest.raises(PlaitError, match="no scenario matches nothing-like-this"):
        load_scenarios().named(["nothing-like-this"])


GOOD = '[[scenario]]\nname = "fine"\nserver = "ok"\ntexts = ["a"]\nexpect = { ok = true }\n'


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (GOOD.replace('server = "ok"', 'server = "teapot"'), "scenario 'fine': server behaviour 'teapot'"),
        (GOOD + "colour = 1\n", "scenario 'fine': unknown key(s) colour"),
        (GOOD.replace("{ ok = true }", '{ detail = "(" }'), "'detail' is not a regular expression"),
        (GOOD.replace("{ ok = true }", '{ ok = "yes" }'), "'ok' must be bool"),
        (GOOD + GOOD, "two scenarios are called 'fine'"),
        (GOOD + "requests = 1\n" + GOOD.replace("fine", "other"), "its text 'a' is also sent by other"),
        (
            '[[scenario]]\nname = "adv"\nkind = "advisory"\nsteps = [{ advise = "" }]\nadvisories = []\n',
            "1 advise step(s) but 0 expected advisories",
        ),
        ('[[scenario]]\nname = "adv"\nkind = "advisory"\nsteps = [{ shout = "" }]\n', "unknown step 'shout'"),
        (
            '[[scenario]]\nname = "adv"\nkind = "advisory"\nsteps = [{ outcome = { ok = true, colour = 1 } }]\n',
            "steps[0] outcome: unknown key(s) colour",
        ),
        ("[settings]\ntimeout = 1\nspeed = 3\n", "[settings]: unknown key(s) speed"),
        ("[[scenario]]\nname = 'broken\n", "the scenarios do not parse"),
    ],
)
def test_bad_scenario_data_is_refused_with_the_place_named(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "scenarios.toml"
    path.write_text(text)
    with pytest.raises(PlaitError) as caught:
        load_scenarios(path)
    assert says in str(caught.value)
    assert str(path) in str(caught.value)


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        (None, "none"),
        ("mode=http / POST http://h:1/e failed: ReadTimeout: no complete answer", "ReadTimeout"),
        ("mode=api / POST http://h:1/v1 returned no embeddings", "no-embeddings"),
        ("mode=bogus is not a supported embedding mode", "unsupported-mode"),
        ("mode=http has no endpoint URL configured", "no-url"),
        ("something went wrong", "unrecognised"),
    ],
)
def test_the_evidence_forms_are_told_apart(line: str | None, kind: str) -> None:
    assert error_kind(line)[0] == kind
