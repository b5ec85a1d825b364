"""Players' commands and settings (issue 28): ``echo-ridge ratings rebuild|show`` and the
``serve`` flags that accept an operator's signed tokens (``--auth-jwt-key``).

``ratings rebuild`` computes every rating again from the archive's finished games, in end order
(echoridge.ratings), and puts the result in place of the projection the server keeps
(store/ratingstore.py): it gives the numbers the server computed game by game, so it is safe
to run at any time, also beside a running server that shares its Redis (``--redis-url``;
an embedded Redis is its server's own while that runs).  ``ratings show`` prints the leaderboard.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from echoridge.archivecli import add_store_arguments, opened


def add_serve_arguments(srv: Any) -> None:
    """``serve --auth-jwt-key FILE --auth-jwt-audience AUD [--auth-jwt-issuer ISS]``."""
    srv.add_argument(
        "--auth-jwt-key",
        metavar="FILE",
        default=None,
        help="accept signed tokens (JWT) in hello from your own login system, checked with the "
        "key in FILE: a PEM public key, a JWKS document, or a shared secret (32 bytes or more); "
        "the token's subject is the player's identity (docs/server.md)",
    )
    srv.add_argument(
        "--auth-jwt-audience",
        metavar="AUD",
        default=None,
        help="the audience (aud) a token must name: this server (needed with --auth-jwt-key)",
    )
    srv.add_argument(
        "--auth-jwt-issuer", metavar="ISS", default=None, help="the issuer (iss) a token must name"
    )


def jwt_settings(
    args: argparse.Namespace, parser: argparse.ArgumentParser
) -> tuple[str, str, str | None] | None:
    """The signed tokens' settings the serve flags ask for (key file, audience, issuer), or
    None; a key that cannot be used is an error of the command line (loaded once here to see)."""
    if args.auth_jwt_key is None:
        if args.auth_jwt_audience or args.auth_jwt_issuer:
            parser.error("--auth-jwt-audience and --auth-jwt-issuer go with --auth-jwt-key")
        return None
    if not args.auth_jwt_audience:
        parser.error("--auth-jwt-key needs --auth-jwt-audience (the name tokens give this server)")
    from echoridge.net import jwtauth

    settings = (args.auth_jwt_key, args.auth_jwt_audience, args.auth_jwt_issuer)
    try:
        jwtauth.load(settings[0], audience=settings[1], issuer=settings[2])
    except (OSError, ValueError) as exc:
        parser.error(f"--auth-jwt-key: {exc}")
    return settings


def add_parser(sub: Any) -> None:
    rat = sub.add_parser("ratings", help="compute ratings again from finished games, or show them")
    what = rat.add_subparsers(dest="ratings_command", required=True)
    p = what.add_parser("rebuild", help="compute every rating again from the archived games")
    add_store_arguments(p)
    p = what.add_parser("show", help="print the leaderboard")
    p.add_argument("--limit", type=int, default=20)
    add_store_arguments(p)


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_run(args))


async def _run(args: argparse.Namespace) -> int:
    async with opened(args.redis_url, args.data_dir) as storage:
        if args.ratings_command == "rebuild":
            began = time.monotonic()
            ratings = await storage.ratings.rebuild(storage.archive.every_record())
            players = sum(len(p) for p in ratings.by_mode.values())
            seconds = time.monotonic() - began
            games = len(ratings.counted)
            print(f"ratings rebuilt: {games} games, {players} players, {seconds:.2f} s")
            return 0
        rows = await storage.ratings.top("competitive", 0, max(1, args.limit))
        handles = await storage.identities.handles([who for who, _ in rows])
        for rank, (who, r) in enumerate(rows, start=1):
            mark = "?" if r.provisional else " "
            print(f"{rank:4} {r.shown:6}{mark} {r.games:5} games  {handles.get(who, who)}")
        return 0
