import os

try:
    import json
    LIMIT = 20
except ImportError:
    json = None

STEPS = [
    "parse",
    # validation happens here
    "store",
]


def run():
    return STEPS
