"""The terminal client of Echo Ridge (textual): ``echo-ridge play``, ``echo-ridge watch`` and
``echo-ridge replay``."""

from __future__ import annotations

from echoridge_terminal.app import DEFAULT_URL, EchoRidgeApp, play, replay, watch

__all__ = ["DEFAULT_URL", "EchoRidgeApp", "play", "replay", "watch"]
