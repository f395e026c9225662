import os

try:
    import json
except ImportError:
    json = None

STEPS = [
    "parse",
    # validation happens here
    "validate",
    "store",
]


def run():
    return STEPS
