"""``echo-ridge admin``: the operators' command against abuse (issue 28), a client of the admin
API that ``echo-ridge serve --admin-port`` opens (net/admin.py); and those ``serve`` flags.

What an operator configures: a token of 32 characters or more in ``ECHORIDGE_ADMIN_TOKEN`` for
the server and for this command (or ``--token-file FILE`` here: a file holding it), ``serve
--admin-port PORT`` (``--admin-host``: 127.0.0.1 by default; the API must never be reachable
from the internet), and here ``--url http://127.0.0.1:PORT`` (default ``$ECHORIDGE_ADMIN_URL``,
else port 8766) and ``--as NAME``, the name the audit log keeps (default ``$USER``).

    echo-ridge admin tables                                   tables listed or run by the node
    echo-ridge admin close TABLE                              close a table; stop its game
    echo-ridge admin ban identity ID [--for 7d] --reason TEXT ban a player (--for: else until
    echo-ridge admin ban network CIDR [--for 12h] --reason TEXT          lifted) or a network
    echo-ridge admin lift BAN_ID                              lift a ban
    echo-ridge admin bans                                     the bans in force
    echo-ridge admin reports [--target ID]                    players' reports, newest first
    echo-ridge admin audit [--limit N]                        what the admins did, newest first

It prints aligned text (``--json``: the API's JSON).  A refusal prints the API's code and
message and exits 1; so does a server that cannot be reached.  No proxy from the environment
is used: the token goes to the URL given and nowhere else.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

TOKEN_ENV = "ECHORIDGE_ADMIN_TOKEN"
URL_ENV = "ECHORIDGE_ADMIN_URL"
DEFAULT_URL = "http://127.0.0.1:8766"
MIN_TOKEN = 32  # characters of the admin token
TIMEOUT = 15.0  # seconds for an answer (the API gives up on a request after 10)

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def duration(value: str) -> int:
    """A duration in seconds, from a whole number of seconds, minutes, hours or days (``30d``:
    ``serve --keep-finished``, ``admin ban --for``)."""
    text = value.strip().lower()
    unit = _UNITS.get(text[-1:], 0) if text else 0
    if not unit or not text[:-1].isdigit() or int(text[:-1]) < 1:
        raise argparse.ArgumentTypeError("a duration is a whole number and s, m, h or d: 30d")
    return int(text[:-1]) * unit


# --- serve --admin-port ----------------------------------------------------------------------


def add_serve_arguments(srv: Any) -> None:
    """``serve --admin-port PORT [--admin-host HOST]``."""
    srv.add_argument(
        "--admin-port",
        type=int,
        default=None,
        metavar="PORT",
        help="serve the admin API (tables, bans, reports, audit log: `echo-ridge admin`) on this "
        f"port of its own, with the token in ${TOKEN_ENV} (32 characters or more); never "
        "expose it publicly (default: no admin API)",
    )
    srv.add_argument(
        "--admin-host",
        default=None,
        metavar="HOST",
        help="the address the admin API listens on (default 127.0.0.1: this host only)",
    )


def serve_options(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict[str, Any]:
    """The admin API's ``Options`` fields (serve.py) that the flags and the environment ask
    for: none without ``--admin-port``."""
    if args.admin_port is None:
        if args.admin_host is not None:
            parser.error("--admin-host goes with --admin-port")
        return {}
    if not 0 <= args.admin_port <= 65535:
        parser.error("--admin-port is a port: 1 to 65535 (0: any free one)")
    if args.admin_port and args.admin_port == args.port:
        parser.error("--admin-port is a port of its own, never the game's public --port")
    token = os.environ.get(TOKEN_ENV, "")
    if len(token) < MIN_TOKEN:
        parser.error(
            f"--admin-port needs a token of {MIN_TOKEN} characters or more in ${TOKEN_ENV} "
            "(make one with: python3 -c 'import secrets; print(secrets.token_urlsafe(32))')"
        )
    if not (token.isascii() and token.isprintable()) or " " in token:
        parser.error(f"${TOKEN_ENV}: printable ASCII characters without spaces")
    return {
        "admin_port": args.admin_port,
        "admin_host": args.admin_host or "127.0.0.1",
        "admin_token": token,
    }


# --- echo-ridge admin ------------------------------------------------------------------------


def add_parser(sub: Any) -> None:
    adm = sub.add_parser(
        "admin",
        help="moderate a running server through its admin API: tables, bans, reports, audit",
        description="The client of a server's admin API (serve --admin-port). The token is "
        f"${TOKEN_ENV}, or --token-file.",
    )
    adm.add_argument(
        "--url",
        default=os.environ.get(URL_ENV) or DEFAULT_URL,
        help=f"the admin API (default: ${URL_ENV}, else {DEFAULT_URL})",
    )
    adm.add_argument(
        "--token-file", metavar="FILE", help=f"read the token from FILE instead of ${TOKEN_ENV}"
    )
    adm.add_argument(
        "--as",
        dest="as_name",
        metavar="NAME",
        default=os.environ.get("USER") or "admin",
        help="your name in the audit log (default: $USER)",
    )
    adm.add_argument("--json", action="store_true", help="print the API's JSON as it comes")
    what = adm.add_subparsers(dest="admin_command", required=True, metavar="COMMAND")
    what.add_parser("tables", help="the lobby's tables and those the server runs, with players")
    p = what.add_parser(
        "close", help="close a table (a game being played is stopped: no winner, not rated)"
    )
    p.add_argument("table", metavar="TABLE")
    p = what.add_parser("ban", help="ban an identity or a network (an address or CIDR)")
    p.add_argument("kind", choices=("identity", "network"))
    p.add_argument("target", metavar="TARGET", help="the identity's id, or the network")
    p.add_argument(
        "--for",
        dest="seconds",
        type=duration,
        default=None,
        metavar="DURATION",
        help="how long: 30d, 12h, 90m, 3600s (default: until lifted)",
    )
    p.add_argument("--reason", required=True, help="why (kept with the ban and in the audit)")
    p = what.add_parser("lift", help="lift a ban")
    p.add_argument("ban", metavar="BAN_ID")
    what.add_parser("bans", help="the bans in force")
    p = what.add_parser("reports", help="players' reports, newest first, with replay links")
    p.add_argument("--target", metavar="ID", help="only those against this identity")
    p.add_argument("--before", type=int, metavar="MS", help="older than this time (ms)")
    p.add_argument("--limit", type=int, default=50, metavar="N")
    p = what.add_parser("audit", help="the audit log of admin actions, newest first")
    p.add_argument("--limit", type=int, default=50, metavar="N")


class Failure(Exception):
    """What to print before exiting 1."""


def run(args: argparse.Namespace) -> int:
    try:
        token = _token(args.token_file)
    except Failure as exc:
        print(f"echo-ridge admin: {exc}", file=sys.stderr)
        return 2
    if not args.url.startswith(("http://", "https://")):
        print("echo-ridge admin: --url is http://HOST:PORT", file=sys.stderr)
        return 2
    import httpx

    headers = {"authorization": f"Bearer {token}".encode(), "x-admin-name": args.as_name.encode()}
    try:
        with httpx.Client(
            base_url=args.url.rstrip("/"), headers=headers, timeout=TIMEOUT, trust_env=False
        ) as client:
            _command(Api(client, args.url), args)
    except Failure as exc:
        print(f"echo-ridge admin: {_clean(str(exc))}", file=sys.stderr)
        return 1
    return 0


def _token(file: str | None) -> str:
    if file is not None:
        try:
            token = Path(file).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise Failure(f"cannot read the token file {file}: {exc}") from None
    else:
        token = os.environ.get(TOKEN_ENV, "").strip()
    if not token:
        raise Failure(f"no token: set {TOKEN_ENV} or give --token-file FILE")
    return token


class Api:
    """The admin API at ``url``: each call is the JSON of its answer (None: 204), or Failure."""

    def __init__(self, client: httpx.Client, url: str) -> None:
        self.client = client
        self.url = url

    def call(self, method: str, path: str, **kwargs: Any) -> Any:
        import httpx

        try:
            response = self.client.request(method, path, **kwargs)
        except httpx.ConnectError:
            raise Failure(
                f"the admin API is not reachable at {self.url} (is the server running, with "
                "--admin-port?)"
            ) from None
        except httpx.TimeoutException:
            raise Failure(f"the admin API at {self.url} did not answer in {TIMEOUT:g} s") from None
        except httpx.HTTPError as exc:
            raise Failure(f"the admin API at {self.url} failed: {exc}") from None
        try:
            data = response.json() if response.content else None
        except ValueError:
            data = None
        if response.status_code >= 400:
            if isinstance(data, dict) and "code" in data:
                raise Failure(f"{data['code']}: {data.get('message', '')}")
            raise Failure(
                f"HTTP {response.status_code} from {self.url}: not the admin API's answer"
            )
        if response.status_code != 204 and data is None:
            raise Failure(f"{self.url} did not answer as the admin API does (is it its port?)")
        return data


def _command(api: Api, args: argparse.Namespace) -> None:
    command = args.admin_command
    if command == "tables":
        data = api.call("GET", "/admin/tables")
        _show(args, data, lambda: _print_tables(data))
    elif command == "close":
        data = api.call("POST", f"/admin/tables/{_segment(args.table)}/close")
        _show(args, data, lambda: print(f"{data['status']} {data['table']}"))
    elif command == "ban":
        body: dict[str, Any] = {"kind": args.kind, "target": args.target, "reason": args.reason}
        if args.seconds is not None:
            body["seconds"] = args.seconds
        data = api.call("POST", "/admin/bans", json=body)
        _show(
            args, data, lambda: print(f"banned {_who(data)} {_until(data['until'])}: {data['id']}")
        )
    elif command == "lift":
        api.call("DELETE", f"/admin/bans/{_segment(args.ban)}")
        _show(args, {"lifted": args.ban}, lambda: print(f"lifted {args.ban}"))
    elif command == "bans":
        data = api.call("GET", "/admin/bans")
        _show(args, data, lambda: _print_bans(data["bans"]))
    elif command == "reports":
        query = {"limit": args.limit, "target": args.target, "before": args.before}
        data = api.call(
            "GET", "/admin/reports", params={k: v for k, v in query.items() if v is not None}
        )
        _show(args, data, lambda: _print_reports(data))
    else:
        data = api.call("GET", "/admin/audit", params={"limit": args.limit})
        _show(args, data, lambda: _print_audit(data["entries"]))


def _show(args: argparse.Namespace, data: Any, text: Any) -> None:
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        text()


def _segment(value: str) -> str:
    from urllib.parse import quote

    return quote(value, safe="")


# --- text ------------------------------------------------------------------------------------


def _clean(value: object) -> str:
    """Text for a terminal: every control character (an escape sequence in a player's name or a
    report's text) shown as ``?``."""
    return "".join(c if c.isprintable() else "?" for c in str(value))


def _time(ms: object) -> str:
    if not isinstance(ms, int):
        return "-"
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%SZ")


def _until(until: object) -> str:
    return "until lifted" if until is None else f"until {_time(until)}"


def _who(ban: dict[str, Any]) -> str:
    target = str(ban["target"])
    if ban.get("handle"):
        target += f" ({ban['handle']})"
    return f"{ban['kind']} {target}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _columns(header: Sequence[str], rows: list[list[str]]) -> None:
    """Rows under their header, columns aligned (the last one as it is)."""
    lines = [[_clean(c) for c in row] for row in [list(header), *rows]]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header) - 1)]
    for line in lines:
        cells = [cell.ljust(width) for cell, width in zip(line, widths, strict=False)]
        print("  ".join([*cells, line[-1]]).rstrip())


def _print_tables(data: dict[str, Any]) -> None:
    rows = []
    for t in data["tables"]:
        players = ", ".join(
            f"{p['seat']}:{p['name']}"
            + (f" [{p['bot']}]" if p.get("bot") else "")
            + (f" ({p['identity']})" if p.get("identity") else "")
            for p in t["players"]
        )
        rows.append(
            [
                t["table"],
                t["status"],
                t["mode"],
                f"{t['taken']}/{t['seats']}",
                "yes" if t["public"] else "no",
                "yes" if t["here"] else "no",
                players or "-",
            ]
        )
    _columns(("TABLE", "STATUS", "MODE", "SEATS", "PUBLIC", "HERE", "PLAYERS"), rows)
    more = " (more not shown)" if data.get("more") else ""
    print(f"{_count(len(rows), 'table')}{more}")


def _print_bans(bans: list[dict[str, Any]]) -> None:
    rows = [
        [
            b["id"],
            b["kind"],
            b["target"] + (f" ({b['handle']})" if b.get("handle") else ""),
            _time(b["at"]),
            "until lifted" if b["until"] is None else _time(b["until"]),
            b["by"],
            b["reason"],
        ]
        for b in bans
    ]
    _columns(("BAN", "KIND", "TARGET", "SINCE", "UNTIL", "BY", "REASON"), rows)
    print(f"{_count(len(rows), 'ban')} in force")


def _print_reports(data: dict[str, Any]) -> None:
    rows = []
    for r in data["reports"]:
        target = r["target"] + (f" ({r['target_handle']})" if r.get("target_handle") else "")
        reporter = r["reporter"] + (
            f" ({r['reporter_handle']})" if r.get("reporter_handle") else ""
        )
        text = r["reason"] + (f": {r['text']}" if r.get("text") else "")
        rows.append([_time(r["at"]), target, reporter, r["replay"], text])
    _columns(("AT", "AGAINST", "BY", "REPLAY", "REASON"), rows)
    after = f"; older: --before {data['next']}" if data.get("next") is not None else ""
    print(f"{_count(len(rows), 'report')}{after}")


def _print_audit(entries: list[dict[str, Any]]) -> None:
    rows = []
    for e in entries:
        details = " ".join(
            f"{k}={_time(v) if k == 'until' else v}"
            for k, v in e.items()
            if k not in ("at", "by", "action")
        )
        rows.append([_time(e.get("at")), str(e.get("by", "")), str(e.get("action", "")), details])
    _columns(("AT", "BY", "ACTION", "DETAILS"), rows)
