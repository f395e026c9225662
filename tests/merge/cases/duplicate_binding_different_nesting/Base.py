import os

try:
    import json
except ImportError:
    json = None


def f():
    return 1
