import threading

_lock = threading.Lock()


def load(path):
    handle = open(path)
    try:
        data = handle.read()
    except OSError:
        data = ""
    handle.close()
    return data


def parse(data):
    if data:
        fields = data.split(",")
    else:
        fields = []
    count = len(fields)
    return fields, count


def store(cache, key, value):
    with _lock:
        cache[key] = value
    return value


def fetch(client, method, url, headers, timeout):
    started = client.clock()
    try:
        response = client.request(method, url, headers=headers, timeout=timeout, allow_redirects=False)
    except client.Timeout:
        response = None
    client.record(method, url, started)
    return response


def ours_end():
    return 1
