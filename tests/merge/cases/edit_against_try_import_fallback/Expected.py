import os

<<<<<<< ours
from pkg import new as impl
||||||| base
from pkg import old as impl
=======
try:
    from pkg import old as impl
except ImportError:
    from pkg import new as impl
>>>>>>> theirs


def run():
    return impl(os.getcwd())
