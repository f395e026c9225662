import os

try:
    import json
    LIMIT = 20
except ImportError:
    json = None


def f():
    return 1
