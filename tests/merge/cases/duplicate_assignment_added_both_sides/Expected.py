import os
<<<<<<< ours

LIMIT = 10
||||||| base
=======


LIMIT = 20
>>>>>>> theirs


def f():
    return 1


def g():
    return 2
