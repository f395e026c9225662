import logging

log = logging.getLogger("svc")

MODES = ["none", "http", "api"]


def start(config):
    log.info("starting with %s", config)
    value = config.get("timeout", 10)
    limit = compute_limit(config, default=5)
    return value, limit


def stop():
    log.info("stopping")
