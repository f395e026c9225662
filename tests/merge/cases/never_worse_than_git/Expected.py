import os

try:
    import json
    LIMIT = 20
except ImportError:
    json = None

<<<<<<< ours
LIMIT = 10

||||||| base
=======
>>>>>>> theirs
STEPS = [
    "parse",
    "dedupe",
    # validation happens here
    "store",
]


def run():
    return STEPS
