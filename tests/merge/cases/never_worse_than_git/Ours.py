import os

try:
    import json
except ImportError:
    json = None

LIMIT = 10

STEPS = [
    "parse",
    "dedupe",
    # validation happens here
    "validate",
    "store",
]


def run():
    return STEPS
