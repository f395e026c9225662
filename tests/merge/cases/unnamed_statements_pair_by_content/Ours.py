"""Compatibility shims."""

import sys

try:
    fast = sys.modules["_speedups"]
except KeyError:
    fast = None

builtin_str = str
