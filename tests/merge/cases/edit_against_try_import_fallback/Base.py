import os

from pkg import old as impl


def run():
    return impl(os.getcwd())
