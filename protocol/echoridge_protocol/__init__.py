"""Echo Ridge wire protocol: messages, codec, error codes and the fairness primitives.

This package depends on msgpack only, so a third-party Python client can use it alone.

Exception tree::

    ProtocolError            base of every error this package raises
"""

from echoridge_protocol.fairness import GENERATOR_VERSION, draw_below, draw_bytes

__all__ = ["GENERATOR_VERSION", "draw_below", "draw_bytes"]
