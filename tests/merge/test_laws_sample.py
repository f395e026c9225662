"""The merge laws on a small fixed sample of real code (issue 7).

``benchmarks/merge_laws.py`` edits real standard-library modules on both
sides and knows the right merge; this runs a few modules through it, every
edit kind, with a fixed seed, and asserts that each counter is zero.  The
failing merges are listed in the assertion message, one line each; run
``python benchmarks/merge_laws.py --only <module> --dump DIR`` to get them as
case folders.

``PLAIT_PROPERTY_SCALE=N`` draws N times as many modules (and allows longer
ones), as it deepens the property tests.
"""

from __future__ import annotations

import os

import pytest
from law_harness import law_edits as le
from law_harness import merge_laws as ml

pytestmark = pytest.mark.slow  # the merge laws on real modules

SCALE = float(os.environ.get("PLAIT_PROPERTY_SCALE", "1"))
SEED = 12
MODULES = max(2, round(2 * SCALE))
MAX_LINES = 400 if SCALE <= 1 else ml.MAX_LINES


@pytest.fixture(scope="module")
def sample() -> ml.Report:
    return ml.run(modules=MODULES, seed=SEED, jobs=2, max_lines=MAX_LINES, max_seconds=float("inf"))


def test_sample_exercises_every_edit_kind_on_real_modules(sample):
    assert not [m.error for m in sample.modules if m.error]
    assert sample.kinds() == sorted(le.EDIT_KINDS), "pick another SEED: the sample misses some edit kinds"
    assert len(sample.modules) == MODULES and all(m.verdicts for m in sample.modules)


@pytest.mark.parametrize("counter", ml.COUNTERS)
def test_merge_law_holds_on_the_sample(sample, counter):
    failing = [v for v in sample.verdicts if counter in v.failures]
    listing = "\n".join(
        f"  {v.module} {v.kind} {v.variant} {v.check}: {v.why[0].splitlines()[0] if v.why else ''}" for v in failing
    )
    assert len(failing) == 0, f"{ml.COUNTER_LABELS[counter]}: {len(failing)}\n{listing}\n{sample.summary_line()}"
