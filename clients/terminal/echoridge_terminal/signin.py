"""Signing ``echo-ridge play`` in (SPEC.md §4.9): the lobby connection opened with the identity
kept for the server (idstore.py), an identity made the first time the player chooses a name, a
transfer code redeemed (``play --claim CODE``), and the words for every refusal on the way.

Refusals are told apart by their code, never by the server's text: ``auth/bad_identity`` (the
secret kept signs nobody in any more: it is forgotten, and a new identity is made with the next
name chosen), ``auth/banned`` (``Banned``: the app says so and stops), ``identity/handle_taken``
(the player is asked for another name), ``identity/bad_code``.  With ``--guest`` nothing is
read, made or kept.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from echoridge_client.errors import Busy, ClientError, Refused
from echoridge_client.lobby import Lobby
from echoridge_client.words import duration_parts
from echoridge_terminal.context import Context
from echoridge_terminal.i18n import error_words, isolate, t
from echoridge_terminal.idstore import Stored


class Banned(ClientError):
    """The server refuses this player (``auth/banned``); ``words``: what to tell them."""

    def __init__(self, words: str) -> None:
        super().__init__(words)
        self.words = words


def duration_words(ms: int) -> str:
    """A duration in its two largest units, rounded up to the second (``3 days 5 hours``,
    ``40 seconds``; ``echoridge_client.words.duration`` in the current language)."""
    parts = [t(f"time.{unit}", n=n) for unit, n in duration_parts(ms)]
    return t("time.two", a=parts[0], b=parts[1]) if len(parts) == 2 else parts[0]


def banned_words(url: str, exc: Refused) -> str:
    """``auth/banned`` in words: for how long from its ``retry_in`` (none: until lifted)."""
    if exc.retry_in:
        return t("signin.banned.for", url=url, duration=duration_words(exc.retry_in))
    return t("signin.banned", url=url)


def code_words(code: str) -> str:
    """A refusal's code in the players' words (``error.<code>`` of the catalogue)."""
    return error_words(code)


async def sign_in(
    ctx: Context, on_busy: Callable[[Busy], None] | None = None, *, play: bool = True
) -> Lobby:
    """Open ``ctx.lobby``: signed in with the identity kept for ``ctx.url`` (not as a guest),
    then moved to the identity of ``ctx.claim`` when there is one; what the player should be
    told goes to ``ctx.notice``.  ``play`` (``echo-ridge play``): an identity the server no
    longer knows is forgotten (watching and replaying only go on without it).  ``Banned`` when
    the server refuses the player."""
    stored = None if ctx.guest else ctx.store.get(ctx.url)
    lobby: Lobby | None = None
    try:
        if stored is not None:
            try:
                lobby = await Lobby.connect(ctx.url, on_busy=on_busy, identity=stored.secret)
            except Refused as exc:
                if exc.code != "auth/bad_identity":
                    raise
                if play:
                    ctx.store.forget(ctx.url)
                    ctx.notice = t(
                        "signin.forgotten",
                        known="yes" if stored.handle else "no",
                        name=isolate(stored.handle or ""),
                    )
        if lobby is None:
            lobby = await Lobby.connect(ctx.url, on_busy=on_busy)
    except Refused as exc:
        if exc.code == "auth/banned":
            raise Banned(banned_words(ctx.url, exc)) from None
        raise
    ctx.lobby = lobby
    if ctx.claim and not ctx.guest:
        await _redeem(ctx, lobby, ctx.claim)
        ctx.claim = None
    if lobby.identity is not None:
        if stored is not None and (lobby.secret, lobby.identity.handle) != (
            stored.secret,
            stored.handle,
        ):  # renamed on another device (or a claim moved it here): keep it as it is now
            keep(ctx, lobby)
        await load_blocked(ctx)
    return lobby


def keep(ctx: Context, lobby: Lobby) -> None:
    """Keep the lobby's identity and secret as this server's (``play`` only, never a guest's)."""
    if ctx.guest or lobby.identity is None or not lobby.secret:
        return
    ctx.store.put(ctx.url, Stored(lobby.secret, lobby.identity.id, lobby.identity.handle))


async def load_blocked(ctx: Context) -> None:
    """The players the signed-in player blocks (kept by the server for all their devices)."""
    if ctx.lobby is None or ctx.lobby.identity is None:
        ctx.blocked = {}
        return
    with contextlib.suppress(ClientError, TimeoutError):
        ctx.blocked = {p.id: p.handle for p in await ctx.lobby.blocked()}


async def _redeem(ctx: Context, lobby: Lobby, code: str) -> None:
    try:
        reply = await lobby.redeem_code(code)
    except Refused as exc:
        if exc.code in ("identity/bad_code", "protocol/bad_field"):
            ctx.notice = t("signin.bad_code")
        else:
            ctx.notice = t("signin.code_refused", problem=code_words(exc.code))
        return
    except (ClientError, TimeoutError):
        ctx.notice = t("signin.code_lost")
        return
    keep(ctx, lobby)
    ctx.notice = t("signin.claimed", name=isolate(reply.identity.handle))


async def make_identity(ctx: Context, name: str) -> str | None:
    """Make an identity named ``name`` the first time a name is chosen (not as a guest, not
    when signed in already), and keep it: None when done (or nothing to do), else what to tell
    the player (the name is taken: choose another)."""
    lobby = ctx.lobby
    if ctx.guest or lobby is None or lobby.identity is not None:
        return None
    try:
        reply = await lobby.create_identity(name)
    except Refused as exc:
        if exc.code == "identity/handle_taken":
            return t("signin.name_taken", name=isolate(name))
        if exc.code == "protocol/bad_field":
            return t("signin.bad_name", name=isolate(name))
        if exc.code == "identity/signed_in":
            return None
        ctx.guest = True  # a server that keeps no identities: play as before
        ctx.notice = t("signin.no_identities")
        return None
    keep(ctx, lobby)
    ctx.notice = t("signin.made", name=isolate(reply.identity.handle), path=str(ctx.store.path))
    return None


def refused_words(exc: Refused, name: str = "") -> str:
    """A refused rename, transfer code, report or block in the players' words (by its code)."""
    code = exc.code
    if code == "identity/handle_taken":
        return t("signin.name_taken.short", name=isolate(name))
    if code == "protocol/bad_field" and name:
        return t("signin.bad_name", name=isolate(name))
    if code == "identity/required":
        return t("signin.guest_cannot")
    return code_words(code)
