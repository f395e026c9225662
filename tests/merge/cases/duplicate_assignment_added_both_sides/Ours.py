import os

LIMIT = 10


def f():
    return 1


def g():
    return 2
