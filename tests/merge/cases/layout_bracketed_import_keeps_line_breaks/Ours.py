from pkg.exceptions import (ConnectionError, ConnectTimeout, SSLError,
                            InvalidSchema, InvalidURL, MissingSchema,
                            ReadTimeout, Timeout, RetryError)


def f():
    return ConnectionError
