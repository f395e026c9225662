import os


def f():
    return os.sep
