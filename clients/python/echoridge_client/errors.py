"""The client's exceptions.

Exception tree::

    ClientError          base: connection problems, protocol surprises
      Busy               the server refused the websocket upgrade for now: HTTP 429 (too many
                         connections from this address) or 503 (the server is full)
      Refused            the server refused a request (``code`` is a registered code)
      RevealError        a reveal does not open its commitment: the server cheated, or the data
                         was altered on the way
"""

from __future__ import annotations


class ClientError(Exception):
    """Base of the client's exceptions."""


class Busy(ClientError):
    """The server refused the upgrade for now (SPEC.md §2.1): ``status`` 429 or 503, and the
    seconds it asked the client to wait (``Retry-After``; None: it did not say)."""

    def __init__(self, url: str, status: int, retry_after: float | None) -> None:
        why = "too many connections from this address" if status == 429 else "the server is full"
        super().__init__(f"cannot connect to {url}: HTTP {status} ({why})")
        self.status = status
        self.retry_after = retry_after


class Refused(ClientError):
    """An ``error`` reply; ``retry_in``: for a refusal of a rate, the milliseconds the server
    says to wait before the same request (SPEC.md §7.1); for ``auth/banned``, until the ban
    ends."""

    def __init__(self, code: str, message: str, retry_in: int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.retry_in = retry_in


class RevealError(ClientError):
    """A proof the server sent does not open the commitment it published."""
