import os
from m import b


def f():
    return os.sep, b
