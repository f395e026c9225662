"""Real servers and checks that prove a client copy keeps the contract.

Tests of the canonical client, conformance runs over vendored copies and
`plait probe` demonstrations all need a backend that misbehaves on demand in
exactly the ways production backends do; it lives here so they share one.

The conformance run (`plait conform`) is built from:

- `scenarios` (+ ``scenarios.toml``): the scenarios, as data;
- `options`: the client options scenarios set, and the keywords copies spell them as;
- `targets`: the copies, in any layout, and how each is imported under its own name;
- `discover`: which module of a copy holds the client, found by reading its source;
- `wire`: the JSON the runner, the workers and the verdicts exchange, typed;
- `worker`: what runs inside each copy's own subprocess;
- `verdicts`: a copy's outcomes judged against the scenario and the canonical, in tiers;
- `runner`: `conform`, which runs the matrix;
- `report`: the matrix as text, markdown or JUnit XML;
- `pytest_plugin`: the same scenarios inside a consumer's own test run.

The public names are re-exported here lazily: the worker subprocess imports
this package on its way to `worker`, and must not pay for the workspace,
git and rich modules the runner uses.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .discover import NotAnEmbeddingClient
    from .report import plain_lines, terminal_renderables, to_junit, to_markdown
    from .runner import ConformReport, CopyResult, conform, run_copy
    from .scenarios import Scenario, ScenarioSet, load_scenarios, scenarios_path
    from .targets import Target, import_target, installed_canonical, path_target, workspace_targets
    from .verdicts import Problem, Verdict

__all__ = [
    "ConformReport",
    "CopyResult",
    "NotAnEmbeddingClient",
    "Problem",
    "Scenario",
    "ScenarioSet",
    "Target",
    "Verdict",
    "conform",
    "import_target",
    "installed_canonical",
    "load_scenarios",
    "path_target",
    "plain_lines",
    "run_copy",
    "scenarios_path",
    "terminal_renderables",
    "to_junit",
    "to_markdown",
    "workspace_targets",
]

_HOME = {
    "ConformReport": "runner",
    "CopyResult": "runner",
    "conform": "runner",
    "run_copy": "runner",
    "Scenario": "scenarios",
    "ScenarioSet": "scenarios",
    "load_scenarios": "scenarios",
    "scenarios_path": "scenarios",
    "NotAnEmbeddingClient": "discover",
    "Target": "targets",
    "import_target": "targets",
    "installed_canonical": "targets",
    "path_target": "targets",
    "workspace_targets": "targets",
    "Problem": "verdicts",
    "Verdict": "verdicts",
    "plain_lines": "report",
    "terminal_renderables": "report",
    "to_junit": "report",
    "to_markdown": "report",
}


def __getattr__(name: str) -> object:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'plait.conformance' has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{home}"), name)
