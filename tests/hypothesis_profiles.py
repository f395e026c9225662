"""The suite's two hypothesis profiles: ``ci``, the default, and ``deep``, a longer random search.

``ci`` is derandomized: each property runs the examples a hash of the test
function picks, with no example database, no deadline and no timing health
check, so a run's result depends on the code alone (and on the hypothesis
version), never on the machine's load or on what an earlier run found.  The
README's test command and ``.ci/run`` use it.

``deep`` searches: ten times the examples, a fresh random seed each run, and
the example database in ``.hypothesis/`` (gitignored) replaying what earlier
deep runs found.  Choose it for a scheduled job or before a release::

    python3 -m pytest -n auto --hypothesis-profile deep tests/...
    PLAIT_HYPOTHESIS_PROFILE=deep python3 -m pytest -n auto

A failure it finds is kept as an explicit ``@example`` on the property, with
a comment saying what it caught, so that the derandomized CI runs it ever
after: hypothesis prints the falsifying example and writes
``.hypothesis/patches/<date>--<hash>.patch``, which ``git apply`` adds.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

__all__ = ["PROFILE_ENV", "examples"]

#: The environment variable that names the profile (``--hypothesis-profile`` overrides it).
PROFILE_ENV = "PLAIT_HYPOTHESIS_PROFILE"

_UNTIMED = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow], "print_blob": True}

settings.register_profile("ci", derandomize=True, database=None, **_UNTIMED)
settings.register_profile("deep", max_examples=1000, **_UNTIMED)
settings.load_profile(os.environ.get(PROFILE_ENV, "ci"))


def examples(n: int, **kwargs: object) -> settings:
    """Settings for a property that runs *n* examples under ``ci``, scaled as the profile scales
    hypothesis's default of 100 (``deep``: ten times *n*)."""
    scale = settings.default.max_examples / 100
    return settings(max_examples=max(1, round(n * scale)), **kwargs)  # type: ignore[arg-type]
