"""Who may open a websocket: the Origin check and the connection caps, decided on the HTTP
upgrade request before any session exists.

- **Origin** (cross-site websocket hijacking): a browser sends the page's origin with every
  websocket handshake, and any web page may open a websocket to any server from a visitor's
  browser.  A handshake with an ``Origin`` is admitted only if that origin is this server's own
  (the host the request is addressed to, ``Host``, or ``X-Forwarded-Host`` from a trusted
  proxy) or one of ``allowed_origins`` (``*``: any).  A handshake without one (a program, not a
  browser) is admitted.  Refused: HTTP 403.
- **Caps**: at most ``max_per_address`` connections from one client address (IPv6 addresses
  count by their /64 network: one customer's allocation), HTTP 429; at most ``max_connections``
  in all, HTTP 503.  0 turns a cap off.  The client address is the peer's, or, when the peer is
  one of ``trusted_proxies``, the rightmost address of ``X-Forwarded-For`` that is not itself a
  trusted proxy.  Under ``serve --workers N`` both caps are the host's: the counts of every
  worker are in memory they share (hostcounts.py); ``room`` is this process's own cap (what its
  open-file limit leaves), HTTP 503 too.
"""

from __future__ import annotations

import http
import ipaddress
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from echoridge.logs import get_logger
from echoridge.net.hostcounts import Buckets, HostCounts

log = get_logger("echoridge.net")

DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Origin = tuple[str, str, int]  # scheme, host (lowercase), port


@dataclass(frozen=True)
class Admission:
    """The gate's settings (``echo-ridge serve --allowed-origins ... --max-connections ...``)."""

    allowed_origins: tuple[str, ...] = ()  # origins admitted besides the server's own; "*": any
    max_per_address: int = 64
    max_connections: int = 10_000
    trusted_proxies: tuple[str, ...] = ()  # addresses or networks (CIDR) of reverse proxies

    def networks(self) -> tuple[Network, ...]:
        return tuple(ipaddress.ip_network(p.strip(), strict=False) for p in self.trusted_proxies)

    def check(self) -> None:
        """ValueError for a setting that cannot be used."""
        if self.max_per_address < 0 or self.max_connections < 0:
            raise ValueError("connection caps are 0 (none) or more")
        try:
            self.networks()
        except ValueError as exc:
            raise ValueError(f"--trusted-proxies: {exc}") from None
        for origin in self.allowed_origins:
            if origin not in ("*", "null") and parse_origin(origin) is None:
                raise ValueError(f"--allowed-origins: {origin!r} is not scheme://host[:port]")


def parse_origin(text: str) -> Origin | None:
    """``scheme://host[:port]`` as (scheme, host, port), the port defaulted by the scheme."""
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname or parts.path not in ("", "/"):
        return None
    return scheme, parts.hostname.lower(), port if port is not None else DEFAULT_PORTS[scheme]


def parse_host(text: str, scheme: str) -> tuple[str, int] | None:
    """A ``Host`` header value (``host``, ``host:port``, ``[v6]:port``) as (host, port)."""
    return _host_port(parse_origin(f"{scheme}://{text.strip()}"))


def _host_port(origin: Origin | None) -> tuple[str, int] | None:
    return None if origin is None else (origin[1], origin[2])


class Gate:
    """Admission of websocket handshakes, and the count of open connections by address."""

    def __init__(
        self,
        settings: Admission,
        metrics: Any = None,
        host: HostCounts | None = None,
        room: int = 0,
    ) -> None:
        settings.check()
        self.settings = settings
        self.metrics = metrics
        self.host = host  # the counts of every worker of the host (serve --workers)
        self.room = room  # this process's own cap on connections (0: none)
        self._any_origin = "*" in settings.allowed_origins
        self._null = "null" in settings.allowed_origins  # (sandboxed frames, file: pages)
        self._parsed = {
            p for p in (parse_origin(o) for o in settings.allowed_origins) if p is not None
        }
        self._proxies = settings.networks()
        self.open = 0
        self.by_address: Counter[str] = Counter()
        self._addresses: dict[ServerConnection, str] = {}

    # --- the client's address -------------------------------------------------------------------

    def _trusted(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self._proxies)

    def client_address(self, peer: str, headers: Any) -> str:
        """The peer, or what a trusted proxy says the client is (X-Forwarded-For)."""
        if not self._proxies or not self._trusted(peer):
            return peer
        forwarded = [
            a.strip() for h in headers.get_all("X-Forwarded-For") for a in h.split(",")
        ]
        for address in reversed(forwarded):
            if not self._trusted(address):
                return address if _is_ip(address) else peer
        return peer

    def address(self, connection: ServerConnection) -> str | None:
        """The client address a connection was admitted under."""
        return self._addresses.get(connection)

    # --- origins --------------------------------------------------------------------------------

    def origin_allowed(self, request: Request, peer: str) -> bool:
        origins = request.headers.get_all("Origin")
        if not origins:
            return True  # not a browser
        if len(origins) > 1:
            return False
        origin = origins[0].strip()
        if self._any_origin or (self._null and origin == "null"):
            return True
        parsed = parse_origin(origin)
        if parsed is None:
            return False
        if parsed in self._parsed:
            return True
        hosts: Iterable[str] = request.headers.get_all("Host")
        if self._proxies and self._trusted(peer):
            forwarded = request.headers.get_all("X-Forwarded-Host")
            if forwarded:
                hosts = [forwarded[-1].split(",")[-1]]
        own = {parse_host(h, parsed[0]) for h in hosts}
        return _host_port(parsed) in own

    # --- admission ------------------------------------------------------------------------------

    def admit(self, connection: ServerConnection, request: Request) -> Response | None:
        """None to let the handshake go on (the connection is counted until it closes), or the
        refusal to send."""
        peer = _peer_host(connection)
        address = self.client_address(peer, request.headers)
        if not self.origin_allowed(request, peer):
            return self._refuse(
                connection, "origin", http.HTTPStatus.FORBIDDEN, "origin not allowed", address
            )
        settings = self.settings
        key = address_key(address)
        host = self.host
        buckets: Buckets = host.buckets(key) if host is not None else ()
        held = host.from_address(buckets) if host is not None else self.by_address[key]
        if settings.max_per_address and held >= settings.max_per_address:
            return self._refuse(
                connection,
                "per_ip",
                http.HTTPStatus.TOO_MANY_REQUESTS,
                "too many connections from your address",
                address,
            )
        total = host.connections() if host is not None else self.open
        if (settings.max_connections and total >= settings.max_connections) or (
            self.room and self.open >= self.room
        ):
            return self._refuse(
                connection,
                "global",
                http.HTTPStatus.SERVICE_UNAVAILABLE,
                "the server is full; try again later",
                address,
            )
        self.open += 1
        self.by_address[key] += 1
        if host is not None:
            host.add(buckets, 1)
        self._addresses[connection] = address
        connection.connection_lost_waiter.add_done_callback(
            lambda _: self._release(connection, key, buckets)
        )
        return None

    def _release(self, connection: ServerConnection, key: str, buckets: Buckets) -> None:
        if self.host is not None:
            self.host.add(buckets, -1)
        self.open -= 1
        self.by_address[key] -= 1
        if self.by_address[key] <= 0:
            del self.by_address[key]
        self._addresses.pop(connection, None)

    def _refuse(
        self,
        connection: ServerConnection,
        reason: str,
        status: http.HTTPStatus,
        text: str,
        address: str,
    ) -> Response:
        if self.metrics is not None:
            self.metrics.refused.labels(reason=reason).inc()
        log.info("handshake refused", peer=address, reason=reason, status=int(status))
        response = connection.respond(status, text + "\n")
        if status is not http.HTTPStatus.FORBIDDEN:
            response.headers["Retry-After"] = "5"
        return response


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def address_key(address: str) -> str:
    """What the per-address caps count (here, and the lobby's limits: tables/quota.py): the
    address, or an IPv6 address's /64 network."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def _peer_host(connection: ServerConnection) -> str:
    address = connection.remote_address
    if isinstance(address, tuple) and address:
        return str(address[0])
    return str(address)
