# -*- coding: latin-1 -*-
"""Client: café."""


def one():
    return 1


def two():
    return 2


def three():
    return 3
