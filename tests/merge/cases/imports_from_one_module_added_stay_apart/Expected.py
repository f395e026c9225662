import os
from m import b
from m import c


def f():
    return os.sep, b


def g():
    return c
