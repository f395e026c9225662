"""Structured 3-way merge of Python modules.

The pipeline runs one stage per module: `tree` (parse into keyed trees),
`match` (pair nodes, find moves), `decide` (the 3-way decisions), `render` (code, markers,
re-parse).  `lines` is the line-based fast path and fallback, and
`inventory` proves that nothing either side added was lost.

Nothing here knows about manifests, git repositories or the CLI.
"""

from .conflicts import CONFLICT_KINDS, Conflict, ConflictKind, Markers
from .engine import DEFAULT_BUDGET, merge3
from .result import Change, MergeResult

__all__ = ["CONFLICT_KINDS", "DEFAULT_BUDGET", "Change", "Conflict", "ConflictKind", "Markers", "MergeResult", "merge3"]
