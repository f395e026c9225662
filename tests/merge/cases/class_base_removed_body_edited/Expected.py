class S:
    """A store of values."""

    def f(self):
        return 1
