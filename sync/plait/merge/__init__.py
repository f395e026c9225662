"""Structured 3-way merge of Python modules.

The pipeline runs one stage per module: `tree` (the parsed modules as keyed
trees), `match` (pair nodes, find moves), `decide` (the 3-way decisions),
`render` (code and markers), driven by `structured` (which parses) and
`engine` (the whole merge: fast path, structured path, audits, fallbacks).
`lines` is git's line merge, the fast path and the fallback; `text` merges
a file that is not Python (by lines, or as git merges a binary file);
`surface` takes a file's BOM, line endings and declared encoding off before
any merge and puts them back after.  The audits
`inventory` (nothing either side added was lost) and `semantic` (no new
undefined names) read the facts they share from `facts`.
docs/architecture.md walks through the stages with an example.

Nothing here knows about manifests, git repositories or the CLI.
"""

from .conflicts import CONFLICT_KINDS, Conflict, ConflictKind, Markers
from .engine import DEFAULT_BUDGET, merge3
from .result import Change, MergeResult
from .text import merge_text

__all__ = [
    "CONFLICT_KINDS",
    "DEFAULT_BUDGET",
    "Change",
    "Conflict",
    "ConflictKind",
    "Markers",
    "MergeResult",
    "merge3",
    "merge_text",
]
