import logging

log = logging.getLogger("svc")

MODES = ['none', "http", "api"]


def start(config):
    log.info('starting with %s', config)  # noisy
    value = config.get(
        "timeout",
        10,
    )
    limit = compute_limit(config, default=5)  # type: ignore[arg-type]
    return value, limit


def stop():
    log.info("stopping")


def ours_end():
    return 1
