"""Error codes in words, in the clients' languages: English is the protocol's own registry
(``echoridge_protocol.codes``, one copy), another language's sentences are in
``errors.<language>.json`` beside this module (``errors.es.json``: Spanish), one file both
clients read (the terminal client through ``sentences``; the browser client fetches the server's
``/errors.<language>.json``, which ``published`` makes).  A sentence is an ICU message without
arguments (``i18n.py``: ``''`` is an apostrophe); clients word an error from its code, never from
the server's English ``message`` or ``detail``."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from echoridge_protocol.codes import ALL_CODES

LANGUAGES = ("en", "es")


@cache
def sentences(language: str = "en") -> dict[str, str]:
    """code -> sentence in ``language`` (English: the registry; empty for a language we do not
    have)."""
    if language == "en":
        return dict(ALL_CODES)
    if language not in LANGUAGES:
        return {}
    source = resources.files("echoridge_client").joinpath(f"errors.{language}.json")
    data = json.loads(source.read_text(encoding="utf-8"))
    return {str(k): str(v) for k, v in data["errors"].items()}


@cache
def published(language: str) -> bytes:
    """The document a server publishes at ``/errors.<language>.json``:
    ``{"language": ..., "errors": {code: sentence}}``."""
    body = {"language": language, "errors": sentences(language)}
    return json.dumps(body, ensure_ascii=False, sort_keys=True).encode()
