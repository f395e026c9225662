__all__ = ['a']


def a():
    pass
