"""The protocol package's exceptions.

Exception tree::

    ProtocolError            base of every error this package raises; carries a stable code
      DecodeError            a frame or message that cannot be accepted (protocol/...)
      DeltaError             a delta that does not apply to the view (protocol/bad_delta)
      VerificationError      a transcript that does not verify (verify/...)
"""

from __future__ import annotations


class ProtocolError(Exception):
    """Base of the protocol package's errors; ``code`` is a stable registered code."""

    code = "protocol/error"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message


class DecodeError(ProtocolError):
    """A frame or message that cannot be accepted; ``code`` is ``protocol/...``.

    ``request_id`` is the frame's ``id`` when it could be read, so a reply can name the request.
    """

    code = "protocol/malformed"

    def __init__(
        self, message: str, code: str | None = None, request_id: str | None = None
    ) -> None:
        super().__init__(message, code)
        self.request_id = request_id
