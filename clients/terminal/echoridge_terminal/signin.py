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
from echoridge_client.words import duration
from echoridge_protocol import messages as m
from echoridge_protocol.codes import ALL_CODES
from echoridge_terminal.context import Context
from echoridge_terminal.idstore import Stored


class Banned(ClientError):
    """The server refuses this player (``auth/banned``); ``words``: what to tell them."""

    def __init__(self, words: str) -> None:
        super().__init__(words)
        self.words = words


def banned_words(url: str, exc: Refused) -> str:
    """``auth/banned`` in words: for how long from its ``retry_in`` (none: until lifted)."""
    if exc.retry_in:
        return f"You are banned from the server at {url} for {duration(exc.retry_in)}."
    return f"You are banned from the server at {url} until its operators lift the ban."


def code_words(code: str) -> str:
    """A refusal's code in the players' words (the protocol's wording of it)."""
    return ALL_CODES.get(code, f"The server refused ({code}).")


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
                    who = f" ({stored.handle})" if stored.handle else ""
                    ctx.notice = (
                        f"This server no longer knows the identity kept for it{who}: it was "
                        "forgotten here. A new one is made with the name you choose."
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
            ctx.notice = (
                "That transfer code is unknown, used already or expired: show a new one on "
                "your other device (F4 in its lobby) and try again."
            )
        else:
            ctx.notice = f"The transfer code was not taken: {code_words(exc.code)}"
        return
    except (ClientError, TimeoutError):
        ctx.notice = "The transfer code could not be sent: the connection was lost."
        return
    keep(ctx, lobby)
    ctx.notice = (
        f"This device now plays as {reply.identity.handle}; your other devices keep playing as "
        "you too."
    )


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
            return (
                f"The name “{name}” is already taken by another player on this server. "
                "Type another name, then create or join a table again."
            )
        if exc.code == "protocol/bad_field":
            return f"“{name}” cannot be used as a name: type another one."
        if exc.code == "identity/signed_in":
            return None
        ctx.guest = True  # a server that keeps no identities: play as before
        ctx.notice = "This server keeps no identities: you play as a guest."
        return None
    keep(ctx, lobby)
    ctx.notice = (
        f"You are {reply.identity.handle} on this server from now on: your identity is kept in "
        f"{ctx.store.path} (F4: rename, or move it to another device)."
    )
    return None


def refused_words(exc: Refused, name: str = "") -> str:
    """A refused rename, transfer code, report or block in the players' words (by its code)."""
    code = exc.code
    if code == "identity/handle_taken":
        return f"The name “{name}” is already taken by another player: choose another."
    if code == "protocol/bad_field" and name:
        return f"“{name}” cannot be used as a name: type another one."
    if code == "identity/required":
        return "Only a player with an identity can do that: you play as a guest."
    return code_words(code)


def signed_in(me: m.IdentityInfo | None) -> str:
    """Who the player is, for the lobby's status line."""
    return f"signed in as {me.handle}" if me is not None else "playing as a guest"
