"""The table service's refusals.

Exception tree::

    TableError          a refused lobby or session request; ``code`` is a registered code
                        (table/..., auth/..., command/..., server/...)
"""

from __future__ import annotations

from echoridge_protocol.codes import ALL_CODES


class TableError(Exception):
    """``retry_in``: for a refusal of a rate, the milliseconds until the same request may be
    accepted (sent as the reply's ``retry_in``, SPEC.md §7.1)."""

    def __init__(self, code: str, message: str | None = None, retry_in: int | None = None) -> None:
        if code not in ALL_CODES:
            raise ValueError(f"unregistered code {code!r}")
        self.code = code
        self.message = message or ALL_CODES[code]
        self.retry_in = retry_in
        super().__init__(f"{code}: {self.message}")
