"""Files served over plain HTTP from disk: a folder behind safe URL paths (``StaticFiles``: the
browser client, and the examples below), and the documents published beside the protocol under
``/protocol/`` (SPEC.md §1), from which a stranger writes a client without this repository.

``DOCUMENTS`` maps each published name to its file in a source checkout (``SPEC.md``, the
schema, the players' ``rules.md``, its Spanish translation ``rules.es.md`` and ``rulings.md`` from
docs/, the clients' log wording ``logtext.en.json`` and its Spanish ``logtext.es.json``); the
folder ``protocol/examples`` (when present) is served as ``/protocol/examples/NAME``.  A checkout
(or an editable install) serves the repository's own files, so git holds one copy; setup.py
copies them into the wheel as ``echoridge/published/NAME`` (and ``…/published/examples/``), where
``find_published`` finds them in an installed server.  Only ``.md`` and ``.json`` are published.

This module imports nothing of the server's: setup.py reads ``DOCUMENTS``, ``EXAMPLES``,
``CARRIED`` and ``DOCUMENT_TYPES`` from it with ``runpy``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Final
from urllib.parse import unquote

CONTENT_TYPES: Final = {  # the browser client's files
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".json": "application/json",
    ".txt": "text/plain; charset=utf-8",
    ".webmanifest": "application/manifest+json",
}

PREFIX: Final = "/protocol/"
DOCUMENTS: Final = {  # the name under PREFIX -> the file in a source checkout
    "SPEC.md": "protocol/SPEC.md",
    "echoridge.v2.schema.json": "protocol/schema/echoridge.v2.schema.json",
    "rules.md": "docs/rules.md",
    "rules.es.md": "docs/rules.es.md",
    "rulings.md": "docs/rulings.md",
    "logtext.en.json": "clients/python/echoridge_client/logtext.en.json",
    "logtext.es.json": "clients/python/echoridge_client/logtext.es.json",
}
EXAMPLES: Final = "protocol/examples"  # a folder, served as PREFIX + "examples/NAME"
CARRIED: Final = "published"  # the folder of the ``echoridge`` package a wheel carries them in
DOCUMENT_TYPES: Final = {".md": "text/markdown; charset=utf-8", ".json": "application/json"}


class StaticFiles:
    """The files under ``root``: a URL path maps to a file only if every segment is a plain
    name (no ``..``, no dot files, no empty segment), the file is inside ``root`` once symlinks
    are resolved, and its suffix is one of ``types`` (suffix -> content type).  ``/`` is
    ``index`` (None: nothing)."""

    def __init__(
        self,
        root: Path | None,
        types: Mapping[str, str] = CONTENT_TYPES,
        index: str | None = "index.html",
    ) -> None:
        self.root = root.resolve() if root is not None else None
        self.types = types
        self.index = index

    def resolve(self, url_path: str) -> Path | None:
        if self.root is None:
            return None
        try:
            path = unquote(url_path, errors="strict")
        except UnicodeDecodeError:
            return None
        if path == "/" and self.index is not None:
            path = "/" + self.index
        if not path.startswith("/") or "\\" in path or "\x00" in path:
            return None
        parts = path[1:].split("/")
        if any(not p or p.startswith(".") for p in parts):
            return None
        try:
            file = self.root.joinpath(*parts).resolve()
        except (OSError, ValueError):
            return None
        if not file.is_relative_to(self.root) or file.suffix not in self.types:
            return None
        return file if file.is_file() else None


class Published:
    """The published documents: ``documents`` (name under ``/protocol/`` -> file) and the
    folder of the examples."""

    def __init__(self, documents: Mapping[str, Path], examples: Path) -> None:
        self.documents = dict(documents)
        self.examples = StaticFiles(examples, DOCUMENT_TYPES, index=None)

    @classmethod
    def checkout(cls, root: Path) -> Published:
        """The repository's own files, ``root`` being a source checkout."""
        return cls({name: root / source for name, source in DOCUMENTS.items()}, root / EXAMPLES)

    @classmethod
    def carried(cls, folder: Path) -> Published:
        """The copies a wheel carries in ``folder`` (setup.py), under their published names."""
        return cls({name: folder / name for name in DOCUMENTS}, folder / "examples")

    def resolve(self, url_path: str) -> Path | None:
        """The file a URL path under ``/protocol/`` names, or None (404)."""
        if not url_path.startswith(PREFIX):
            return None
        name = url_path.removeprefix(PREFIX)
        if name.startswith("examples/"):
            return self.examples.resolve(name.removeprefix("examples"))
        file = self.documents.get(name)
        return file if file is not None and file.is_file() else None


def find_published() -> Published:
    """The documents beside the ``server`` folder this package was loaded from (a source
    checkout, or an editable install); else the copies inside the package (a wheel)."""
    import echoridge

    package = Path(echoridge.__file__).resolve().parent
    checkout = package.parents[1]
    if (checkout / DOCUMENTS["SPEC.md"]).is_file():
        return Published.checkout(checkout)
    return Published.carried(package / CARRIED)
