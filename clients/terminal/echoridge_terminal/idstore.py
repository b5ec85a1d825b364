"""Where ``echo-ridge play`` keeps the player's identities (SPEC.md §4.9): one small JSON file,
``identity.json`` in the user's config directory (``$ECHORIDGE_CONFIG_DIR``, else
``$XDG_CONFIG_HOME/echo-ridge``, else ``~/.config/echo-ridge``), one entry per server URL: the
identity's secret, its id and its handle.

The secret signs the player in: the file is written with mode 0600 (its directory 0700), and
the secret is never printed or logged (an entry's ``repr`` leaves it out).  A file that cannot
be read (missing, damaged) holds no identities.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

FILE_NAME = "identity.json"
ENV_DIR = "ECHORIDGE_CONFIG_DIR"  # overrides the directory (tests, several profiles)


def config_dir() -> Path:
    """The directory of the file: ``$ECHORIDGE_CONFIG_DIR``, ``$XDG_CONFIG_HOME/echo-ridge``
    or ``~/.config/echo-ridge``."""
    chosen = os.environ.get(ENV_DIR)
    if chosen:
        return Path(chosen).expanduser()
    xdg = os.environ.get("XDG_CONFIG_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".config"
    return base / "echo-ridge"


@dataclass(frozen=True)
class Stored:
    """One server's identity: its ``secret`` (never shown), ``id`` and ``handle``."""

    secret: str = field(repr=False)
    id: str = ""
    handle: str = ""


class IdentityStore:
    """The identities kept for each server URL, in ``directory``/identity.json."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory if directory is not None else config_dir()
        self.path = self.directory / FILE_NAME

    def _read(self) -> dict[str, dict[str, str]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        servers = data.get("servers") if isinstance(data, dict) else None
        if not isinstance(servers, dict):
            return {}
        return {u: e for u, e in servers.items() if isinstance(e, dict)}

    def _write(self, servers: dict[str, dict[str, str]]) -> None:
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        temporary = self.path.with_name(f".{FILE_NAME}.{os.getpid()}")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump({"servers": servers}, out, indent=2, sort_keys=True)
            os.chmod(temporary, 0o600)  # (a umask cannot widen it; an old file's mode is not kept)
            os.replace(temporary, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise

    def get(self, url: str) -> Stored | None:
        """The identity kept for the server at ``url`` (None: none)."""
        entry = self._read().get(url)
        secret = entry.get("secret") if entry else None
        if not isinstance(secret, str) or not secret:
            return None
        assert entry is not None
        return Stored(secret, str(entry.get("id") or ""), str(entry.get("handle") or ""))

    def put(self, url: str, stored: Stored) -> None:
        """Keep ``stored`` as the identity for ``url`` (replacing the one before)."""
        servers = self._read()
        servers[url] = {"secret": stored.secret, "id": stored.id, "handle": stored.handle}
        self._write(servers)

    def forget(self, url: str) -> None:
        """No identity for ``url`` any more."""
        servers = self._read()
        if servers.pop(url, None) is not None:
            self._write(servers)
