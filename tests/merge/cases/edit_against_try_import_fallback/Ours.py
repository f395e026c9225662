import os

from pkg import new as impl


def run():
    return impl(os.getcwd())
