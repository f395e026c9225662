import threading

_lock = threading.Lock()


def load(path):
    handle = open(path)
    data = handle.read()
    handle.close()
    return data


def parse(data):
    fields = data.split(",")
    count = len(fields)
    return fields, count


def store(cache, key, value):
    cache[key] = value
    return value


def fetch(client, method, url, headers, timeout):
    started = client.clock()
    response = client.request(method, url, headers=headers, timeout=timeout, allow_redirects=False)
    client.record(method, url, started, ok=response is not None)
    return response


def theirs_end():
    return 2
