"""The rules engine's exceptions.

Exception tree::

    RulesError              base of everything the engine raises on purpose
      RuleViolation         a command the rules do not allow now; carries a stable code
"""

from __future__ import annotations

from echoridge_protocol.codes import RULE_CODES


class RulesError(Exception):
    """Base of the rules engine's exceptions."""


class RuleViolation(RulesError):
    """An illegal command.  ``code`` is stable (``rules/...``); ``detail`` is for players."""

    def __init__(self, code: str, detail: str) -> None:
        if code not in RULE_CODES:
            raise ValueError(f"unregistered rule code {code!r}")
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail
