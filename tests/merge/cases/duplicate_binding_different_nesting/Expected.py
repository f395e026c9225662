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

def f():
    return 1
