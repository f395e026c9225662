import logging

log = logging.getLogger("svc")

MODES = ["off", "http", "api"]


def start(config):
    value = config.get(
        "timeout",
        30,
    )
    limit = compute_limit(config, default=8)  # type: ignore[arg-type]
    return value, limit


def stop():
    log.info("stopping")


def ours_end():
    return 1


def theirs_end():
    return 2
