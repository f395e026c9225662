from pkg.exceptions import (ConnectionError, ConnectTimeoutError, SSLError,
                            InvalidSchema, InvalidURL, MissingSchemaError,
                            ReadTimeout, Timeout, RetryError)


def f():
    return ConnectionError
