import os

try:
    from pkg import old as impl
except ImportError:
    from pkg import new as impl


def run():
    return impl(os.getcwd())
