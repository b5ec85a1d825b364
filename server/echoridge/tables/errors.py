"""The table service's refusals.

Exception tree::

    TableError          a refused lobby or session request; ``code`` is a registered code
                        (table/..., auth/..., command/..., server/...)
"""

from __future__ import annotations

from echoridge_protocol.codes import ALL_CODES


class TableError(Exception):
    def __init__(self, code: str, message: str | None = None) -> None:
        if code not in ALL_CODES:
            raise ValueError(f"unregistered code {code!r}")
        self.code = code
        self.message = message or ALL_CODES[code]
        super().__init__(f"{code}: {self.message}")
