"""Driving the browser client like a person, and watching what its page received.

A ``Person`` is one browser context (its own localStorage and sessionStorage) with one page. It
records every websocket frame its page sends and receives (Playwright's ``websocket`` events),
fails on uncaught page errors and console errors, and keeps ``mirror()``: the view the server
sent to its seat or spectator session, rebuilt in Python from those frames with the reference
``echoridge_protocol.delta.apply`` — the server's view, to compare with what the page shows.

``play_turn`` looks at the mirror's ``you.legal``, chooses like a hurried player (see ``choose``)
and does it through the page: clicks a highlighted block to drive, a risk button, an action
button, or the buttons of the decision dialog.
"""

from __future__ import annotations

import dataclasses
import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Browser, Page, WebSocket

from echoridge_protocol import codec
from echoridge_protocol import messages as m
from echoridge_protocol.delta import apply

JSON = m.SUBPROTOCOL_JSON
ACTIONS = {"your-turn", "decide"}
# Chromium logs these itself when a websocket or a fetch fails while a server restarts.
NETWORK_NOISE = re.compile(
    r"WebSocket connection to .* failed|Failed to load resource|ERR_CONNECTION_REFUSED"
)


@dataclass
class Socket:
    url: str
    sent: list[str] = field(default_factory=list)
    received: list[str] = field(default_factory=list)
    closed: bool = False

    def hello(self) -> dict[str, Any] | None:
        for frame in self.sent:
            message = json.loads(frame)
            if message.get("type") == "hello":
                return dict(message)
        return None

    @property
    def kind(self) -> str:
        """lobby, seat or spectator (from the hello it sent)."""
        hello = self.hello() or {}
        if "token" in hello:
            return "seat"
        if hello.get("spectate"):
            return "spectator"
        return "lobby" if hello else "unknown"


@dataclass
class Mirror:
    epoch: int = -1
    version: int = -1
    view: dict[str, Any] | None = None
    welcomes: list[dict[str, Any]] = field(default_factory=list)
    deals: set[int] = field(default_factory=set)  # looks whose slots this seat was shown

    def note(self) -> None:
        you = (self.view or {}).get("you") or {}
        decision = you.get("decision") or {}
        if decision.get("kind") == "slot":
            self.deals.add(int(decision["deal"]))


def command_key(cmd: dict[str, Any]) -> str:
    """The page's ``commandKey`` (clients/web/js/describe.js): the control's data-cmd."""
    key = str(cmd["type"])
    for k in sorted(k for k in cmd if k not in ("type", "seat")):
        v = cmd[k]
        if k == "path":
            key += ":to=" + (",".join(str(x) for x in v[-1]) if v else "")
            continue
        if isinstance(v, list):
            v = ",".join(str(x) for x in v)
        text = "none" if v is None else str(v).lower() if isinstance(v, bool) else str(v)
        key += f":{k}={text}"
    return key


class Person:
    def __init__(
        self,
        browser: Browser,
        base_url: str,
        name: str,
        *,
        viewport: dict[str, int] | None = None,
        allow_network_errors: bool = False,
        locale: str = "en-US",
    ) -> None:
        self.name = name
        self.base_url = base_url.rstrip("/")
        # the browser's language (navigator.languages): the page speaks it (i18n.js)
        self.language = locale.split("-")[0]
        self.context = browser.new_context(
            viewport=viewport or {"width": 1280, "height": 900}, locale=locale
        )
        self.page: Page = self.context.new_page()
        self.page.set_default_timeout(15_000)
        self.errors: list[str] = []
        self.sockets: list[Socket] = []
        self.allow_network_errors = allow_network_errors
        self.decisions: list[str] = []  # kinds of the decisions answered through the dialog
        self.sent: list[str] = []  # command keys sent through the page
        self.page.on("pageerror", lambda exc: self.errors.append(f"uncaught: {exc}"))
        self.page.on("console", self._console)
        self.page.on("websocket", self._websocket)
        self._built = Mirror()  # mirror(): the view so far, the sessions and frames it used
        self._mirrored: list[Socket] = []
        self._consumed: list[int] = []

    # --- recording ------------------------------------------------------------------------------

    def _console(self, message: Any) -> None:
        if message.type != "error":
            return
        if self.allow_network_errors and NETWORK_NOISE.search(message.text):
            return
        self.errors.append(f"console error: {message.text}")

    def _websocket(self, ws: WebSocket) -> None:
        socket = Socket(ws.url)
        self.sockets.append(socket)
        ws.on("framesent", lambda payload: socket.sent.append(_text(payload)))
        ws.on("framereceived", lambda payload: socket.received.append(_text(payload)))
        ws.on("close", lambda _ws: setattr(socket, "closed", True))

    def table_sockets(self) -> list[Socket]:
        return [s for s in self.sockets if s.kind in ("seat", "spectator")]

    def mirror(self) -> Mirror:
        """The seat's or spectator's view, from every frame its sessions received, in order
        (a resumed welcome continues the view of the connection before).

        Kept between calls: only the frames received since the last call are decoded and
        applied (a whole game's frames decoded again on every call took a third of a game's
        test). Built again from the start when a frame came to any session but the newest."""
        sockets = self.table_sockets()
        known = self._mirrored
        if (
            any(a is not b for a, b in zip(sockets, known, strict=False))
            or len(sockets) < len(known)
            or any(len(s.received) != n for s, n in zip(known[:-1], self._consumed, strict=False))
        ):
            self._built, self._mirrored, self._consumed = Mirror(), [], []
        mirror = self._built
        for index, socket in enumerate(sockets):
            if index == len(self._mirrored):
                self._mirrored.append(socket)
                self._consumed.append(0)
            for frame in socket.received[self._consumed[index] :]:
                self._follow(mirror, codec.decode_server(frame, JSON))
                self._consumed[index] += 1  # (after: a frame that fails fails every call)
        return dataclasses.replace(mirror, welcomes=list(mirror.welcomes), deals=set(mirror.deals))

    @staticmethod
    def _follow(mirror: Mirror, message: m.ServerMessage) -> None:
        if isinstance(message, m.Welcome):
            mirror.welcomes.append({"resumed": message.resumed, "version": message.version})
            if message.view is not None:
                mirror.view = dict(message.view)
            else:
                assert message.resumed and mirror.view is not None, "resumed, no view"
                assert message.version == mirror.version, "resumed at another version"
            mirror.epoch, mirror.version = message.epoch or 0, message.version or 0
            mirror.note()
        elif isinstance(message, m.Delta):
            assert message.version == mirror.version + 1, "a delta out of order"
            mirror.view = apply(mirror.view, list(message.ops))
            mirror.version = message.version
            mirror.note()

    def check_errors(self) -> None:
        assert not self.errors, f"{self.name}'s page: {self.errors}"

    # --- the page -------------------------------------------------------------------------------

    def goto(self, path: str = "/") -> None:
        self.page.goto(self.base_url + path)

    def game_attr(self, name: str) -> str | None:
        return self.page.get_attribute("#game", f"data-{name}")

    @property
    def state(self) -> str | None:
        return self.game_attr("state")

    @property
    def version(self) -> int:
        return int(self.game_attr("version") or -1)

    def wait_state(self, *states: str, timeout: float = 15.0) -> str:
        """Waits until the page shows one of ``states`` with no command on its way."""
        wanted = json.dumps(list(states))
        self.page.wait_for_function(
            f"""() => {{
                const g = document.querySelector('#game');
                return g && g.dataset.busy === '0' && {wanted}.includes(g.dataset.state);
            }}""",
            timeout=timeout * 1000,
        )
        return str(self.state)

    def wait_version(self, version: int, timeout: float = 15.0) -> None:
        self.page.wait_for_function(
            f"() => +(document.querySelector('#game')?.dataset.version ?? -1) >= {version}",
            timeout=timeout * 1000,
        )

    def synced_mirror(self, timeout: float = 10.0) -> Mirror:
        """The mirror, once it has caught up with the version the page shows."""
        deadline = time.monotonic() + timeout
        while True:
            mirror = self.mirror()
            if mirror.version == self.version:
                return mirror
            if time.monotonic() > deadline:
                raise AssertionError(f"mirror at {mirror.version}, page at {self.version}")
            self.page.wait_for_timeout(20)

    def page_view(self) -> Any:
        return self.page.evaluate("() => window.echoridge.session && window.echoridge.session.view")

    def notice(self) -> str:
        return self.page.inner_text(".notice") if self.page.query_selector(".notice") else ""

    # --- acting through the page ----------------------------------------------------------------

    def do(self, cmd: dict[str, Any], view: dict[str, Any]) -> None:
        """Send ``cmd`` by using the page's controls, and wait for the page to settle."""
        page = self.page
        key = command_key(cmd)
        kind = cmd["type"]
        decision = (view.get("you") or {}).get("decision")
        if decision:
            dialog = page.locator("dialog#decision")
            if not dialog.is_visible():
                page.click("#open-decision")
            if kind == "accuse":
                dialog.locator(f'.suspect-choice[data-suspect="{cmd["suspect"]}"]').click()
                dialog.locator('[data-key="accuse-confirm"]').click()
            else:
                dialog.locator(f'[data-cmd="{key}"]').click()
            self.decisions.append(str(decision["kind"]))
        elif kind == "drive":
            end = cmd["path"][-1]
            page.locator(f'.board [data-block="{end[0]},{end[1]}"].target').click()
        else:
            page.locator(f'#controls [data-cmd="{key}"]').click()
        self.sent.append(key)
        page.wait_for_function("() => document.querySelector('#game').dataset.busy === '0'")
        notice = self.notice()
        assert "Refused" not in notice and "Could not send" not in notice, notice


def choose(view: dict[str, Any], legal: list[dict[str, Any]], drove: bool) -> dict[str, Any]:
    """A hurried player: answers decisions (looking at cards when it can, resting its case),
    drives once early on, then takes the longest actions so the game ends soon — risk actions
    at their highest risk first."""
    you = view["you"]
    me = you["seat"]
    players = view["players"]
    by_type: dict[str, list[dict[str, Any]]] = {}
    for cmd in legal:
        by_type.setdefault(cmd["type"], []).append(cmd)
    decision = you.get("decision")
    if decision:
        kind = decision["kind"]
        if kind == "accusation":
            innocent = set(you.get("suspects") or []) | set(you.get("seen") or [])
            options = [c for c in legal if c["suspect"] not in innocent]
            return (options or legal)[0]
        if kind == "suspect_gain":
            looks = [c for c in legal if c.get("look_at") is not None
                     and players[c["look_at"]]["suspects"] >= 2]  # fmt: skip
            return looks[0] if looks else legal[0]
        if kind == "interrogate":
            targets = [c for c in legal if c.get("target") is not None
                       and players[c["target"]]["suspects"] >= 1]  # fmt: skip
            return targets[0] if targets else legal[0]
        if kind == "rest":
            return next(c for c in legal if c["rest"])
        return legal[0]
    if "proceed" in by_type:
        return by_type["proceed"][0]
    if "drive" in by_type and not drove:
        drives = by_type["drive"]
        mobbed = [d for d in drives if _block(view, d["path"][-1]).get("mobster")]
        return min(mobbed or drives, key=lambda d: len(d["path"]))
    for kind in ("call_for_backup", "stakeout"):
        if kind in by_type:
            return max(by_type[kind], key=lambda c: c["risk"])
    for kind in ("catch_informant", "catch_witness", "search_scene", "book_mobster",
                 "hold_mobster", "resolve_event", "arrest", "coffee_break"):  # fmt: skip
        if kind in by_type:
            return by_type[kind][0]
    assert me is not None
    return legal[0]


def _block(view: dict[str, Any], block: list[int]) -> dict[str, Any]:
    c, r = block
    return dict(view["city"]["blocks"][(r - 1) * 5 + c - 1])


def play_turn(person: Person, drove: bool) -> dict[str, Any] | None:
    """If the page shows a move to make, make one; the command sent (or None)."""
    state = person.state
    if state not in ACTIONS or person.game_attr("busy") != "0":
        return None
    mirror = person.synced_mirror()
    view = mirror.view
    assert view is not None
    legal = list((view.get("you") or {}).get("legal") or [])
    if not legal:
        return None
    cmd = choose(view, legal, drove)
    person.do(cmd, view)
    return cmd


def _text(payload: str | bytes) -> str:
    return payload if isinstance(payload, str) else payload.decode("utf-8")
