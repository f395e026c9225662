from pkg.exceptions import (ConnectionError, ConnectTimeout,
                            InvalidSchema, InvalidURL, MissingSchema,
                            ReadTimeout, Timeout, RetryError)


def f():
    return ConnectionError
