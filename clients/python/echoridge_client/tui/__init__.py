"""The terminal client of Echo Ridge (textual): ``echo-ridge play`` and ``echo-ridge watch``."""

from __future__ import annotations

from echoridge_client.tui.app import DEFAULT_URL, EchoRidgeApp, play, watch

__all__ = ["DEFAULT_URL", "EchoRidgeApp", "play", "watch"]
