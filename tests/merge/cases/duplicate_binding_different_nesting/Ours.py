import os

try:
    import json
except ImportError:
    json = None

LIMIT = 10


def f():
    return 1
