"""Compatibility shims."""

import sys

try:
    fast = sys.modules["_speedups"]
except KeyError:
    fast = None

try:
    import simplejson as json
except ImportError:
    import json

builtin_str = str
