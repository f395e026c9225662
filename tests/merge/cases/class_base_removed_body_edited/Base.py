class S(object):
    """A store."""

    def f(self):
        return 1
