"""cpersona: a small memory service, bundled as the demo consumer.

It shows how a service that vendors ``embedding_client`` (into
``cpersona/_vendored_mcp_common/``) wires outcome-fed health into recall, so
a dead embedding backend reaches the user as an advisory instead of as
quietly worse answers.
"""

__version__ = "0.1.0"
