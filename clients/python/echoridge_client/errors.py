"""The client's exceptions.

Exception tree::

    ClientError          base: connection problems, protocol surprises
      Refused            the server refused a request (``code`` is a registered code)
      RevealError        a reveal does not open its commitment: the server cheated, or the data
                         was altered on the way
"""

from __future__ import annotations


class ClientError(Exception):
    """Base of the client's exceptions."""


class Refused(ClientError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class RevealError(ClientError):
    """A proof the server sent does not open the commitment it published."""
