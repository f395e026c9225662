import logging


def start(app, settings):
    return app.run(settings.host, settings.port)
