"""The rematch from the result screen (SPEC.md §4.6): a seat asks for it (``rematch`` ->
``created``: a new table with the same seats, settings and bots), takes a seat there under the
same name and goes to its waiting room; a player whose table already has one (the session's
``rematch_table``, from the server's ``rematch`` message) joins it, and a spectator watches it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from echoridge_client.lobby import Lobby
from echoridge_client.session import Seat, Spectator, TableSession

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

    from echoridge_terminal.context import Context


def can_ask(ctx: Context | None, session: TableSession) -> bool:
    """This app holds a seat of the finished table (spectators cannot ask for a rematch)."""
    return (
        ctx is not None
        and isinstance(session, Seat)
        and ctx.token is not None
        and ctx.table == session.table
    )


async def _lobby(ctx: Context) -> Lobby:
    if ctx.lobby is None:
        ctx.lobby = await Lobby.connect(ctx.url)
    return ctx.lobby


async def ask(ctx: Context, session: TableSession) -> str:
    """Ask for the finished table's rematch (the same table whoever asks): its id."""
    assert ctx.token is not None
    return (await (await _lobby(ctx)).rematch(session.table, ctx.token)).table


async def join(app: App[None], ctx: Context, old: TableSession, table: str) -> None:
    """Take a seat at the rematch ``table`` under the same name and open its waiting room
    (the game screen, should it have started already) in place of the finished game."""
    from echoridge_terminal.game import GameScreen  # (game.py imports result.py)
    from echoridge_terminal.waiting import WaitingScreen

    joined = await (await _lobby(ctx)).join(table, ctx.name)
    seat = await Seat.sit(ctx.url, table, joined.token)
    ctx.table, ctx.token, ctx.seat, ctx.seats = table, joined.token, joined.seat, None
    await _replace(ctx, old, seat)
    started = seat.status != "new"
    _show(app, GameScreen(seat, read_only=False) if started else WaitingScreen(ctx))


async def watch(app: App[None], ctx: Context, old: TableSession, table: str) -> None:
    """Watch the rematch ``table`` in place of the finished game."""
    from echoridge_terminal.game import GameScreen

    spectator = await Spectator.watch(ctx.url, table)
    ctx.table = table
    await _replace(ctx, old, spectator)
    _show(app, GameScreen(spectator, read_only=True))


def _show(app: App[None], screen: Screen[None]) -> None:
    """In place of the result and the finished game's screen: ``screen``.  Done by the app,
    after the result screen's worker (which the pop cancels) has returned."""

    async def swap() -> None:
        await app.pop_screen()  # the result
        await app.switch_screen(screen)  # the finished game's

    app.call_later(swap)


async def _replace(ctx: Context, old: TableSession, new: TableSession) -> None:
    old.on_update = None
    ctx.session = new
    await old.close()
