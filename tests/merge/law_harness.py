"""Makes the merge law harness (``benchmarks/merge_laws.py`` and ``law_edits.py``) importable.

The harness is a benchmark script first, so it lives in ``benchmarks/``, which
is not a package; the tests put that folder on ``sys.path`` (as running the
script does) and import it as a library.
"""

from __future__ import annotations

import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))

import law_edits  # noqa: E402
import merge_laws  # noqa: E402

__all__ = ["law_edits", "merge_laws"]
