"""Echo Ridge wire protocol: messages, codec, error codes and the fairness primitives.

This package depends on msgpack only, so a third-party Python client can use it alone.

Exception tree::

    ProtocolError            base of every error this package raises
      DecodeError            a frame or message that cannot be accepted (codec.py; protocol/...)
      DeltaError             a delta that does not apply (delta.py; protocol/bad_delta)
"""

from echoridge_protocol.codec import (
    CLIENT_LIMITS,
    SERVER_LIMITS,
    DecodeLimits,
    decode,
    decode_client,
    decode_server,
    encode,
)
from echoridge_protocol.delta import DeltaError, Op, apply, diff
from echoridge_protocol.errors import DecodeError, ProtocolError
from echoridge_protocol.fairness import GENERATOR_VERSION, draw_below, draw_bytes
from echoridge_protocol.messages import (
    PROTOCOL,
    SUBPROTOCOL_JSON,
    SUBPROTOCOL_MSGPACK,
    SUBPROTOCOLS,
    ClientMessage,
    Message,
    ServerMessage,
)
from echoridge_protocol.version import __version__

__all__ = [
    "CLIENT_LIMITS",
    "GENERATOR_VERSION",
    "PROTOCOL",
    "SERVER_LIMITS",
    "SUBPROTOCOLS",
    "SUBPROTOCOL_JSON",
    "SUBPROTOCOL_MSGPACK",
    "ClientMessage",
    "DecodeError",
    "DecodeLimits",
    "DeltaError",
    "Message",
    "Op",
    "ProtocolError",
    "ServerMessage",
    "__version__",
    "apply",
    "decode",
    "decode_client",
    "decode_server",
    "diff",
    "draw_below",
    "draw_bytes",
    "encode",
]
