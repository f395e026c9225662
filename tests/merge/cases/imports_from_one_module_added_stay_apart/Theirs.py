import os
from m import c


def f():
    return os.sep


def g():
    return c
