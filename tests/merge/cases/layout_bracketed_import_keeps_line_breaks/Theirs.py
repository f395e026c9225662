from pkg.exceptions import (ConnectionError, ConnectTimeoutError,
                            InvalidSchema, InvalidURL, MissingSchemaError,
                            ReadTimeout, Timeout, RetryError)


def f():
    return ConnectionError
