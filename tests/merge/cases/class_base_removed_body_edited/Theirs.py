class S:
    """A store."""

    def f(self):
        return 1
