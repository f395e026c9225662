"""Compatibility shims."""

import sys

try:
    fast = sys.modules["_speedups_v2"]
except KeyError:
    fast = None

try:
    import simplejson as json
except ImportError:
    import json

builtin_str = str
