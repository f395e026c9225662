"""Compatibility shims."""

import sys

try:
    fast = sys.modules["_speedups_v2"]
except KeyError:
    fast = None

builtin_str = str
