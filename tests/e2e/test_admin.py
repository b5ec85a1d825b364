"""The admin API (issue 28, net/admin.py) and ``echo-ridge admin`` against real servers.

Servers run with ``--admin-port`` (a port picked here) and the token in
``ECHORIDGE_ADMIN_TOKEN``, passed on through the environment ``start_server`` copies; behind
``--trusted-proxies 127.0.0.1`` so that a client's address can be chosen (X-Forwarded-For) to
test network bans.  The token guards every route and never shows in the server's log; the
game's public port serves no admin route.  The tables list shows who sits where; an admin
closes a table not started (its sessions are closed, the table says table/closed) and cannot
close a started one.  Bans refuse players at hello until lifted or over, and the audit log
says who did what.  Reports come with the path of their moment's replay.  The CLI prints the
bans and exits 1 with the API's code.  Bans and reports live in the session's one Redis, so
every test bans identities and networks of its own (100.64.0.0/10 addresses) and looks only
at what it made.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import re
import secrets
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from echoridge.store import Storage
from echoridge.store.embedded import free_port
from echoridge_client.errors import Refused
from echoridge_client.lobby import Lobby
from echoridge_client.session import Seat
from echoridge_protocol import messages as m
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerProcess, started_game
from tests.net.wsclient import Client
from tests.net.wsclient import Refused as WsRefused

TOKEN_ENV = "ECHORIDGE_ADMIN_TOKEN"
TOKEN = "adm-" + secrets.token_urlsafe(32)
WRONG = TOKEN[:-1] + ("A" if TOKEN[-1] != "A" else "B")  # as long, one character apart


@dataclass
class Admin:
    server: ServerProcess
    url: str

    async def call(
        self,
        method: str,
        path: str,
        *,
        token: str | None = TOKEN,
        name: str | None = None,
        **kwargs: Any,
    ) -> httpx.Response:
        headers = dict(kwargs.pop("headers", {}))
        if token is not None:
            headers["authorization"] = f"Bearer {token}"
        if name is not None:
            headers["x-admin-name"] = name
        async with httpx.AsyncClient(base_url=self.url, timeout=15, trust_env=False) as client:
            return await client.request(method, path, headers=headers, **kwargs)


@pytest.fixture
def admin(servers: Callable[..., ServerProcess], monkeypatch: pytest.MonkeyPatch) -> Admin:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)  # (start_server passes the environment on)
    port = free_port()
    server = servers("--admin-port", str(port), "--trusted-proxies", "127.0.0.1")
    return Admin(server, f"http://127.0.0.1:{port}")


def refusal(response: httpx.Response, status: int, code: str) -> str:
    """Check an error answer: its status, JSON ``code`` and ``message`` and nothing else; the
    message."""
    assert response.status_code == status, (response.status_code, response.text)
    body = response.json()
    assert set(body) == {"code", "message"} and body["code"] == code, body
    assert body["message"] and "Traceback" not in response.text
    return str(body["message"])


def handle(prefix: str) -> str:
    return prefix + uuid.uuid4().hex[:6]


def address() -> str:
    """An address of its own (100.64.0.0/10), for one client of one test."""
    return str(ipaddress.ip_address(0x64400000 + int.from_bytes(os.urandom(3)) % (1 << 22)))


async def refused_hello(url: str, **options: Any) -> str:
    """The code a lobby ``hello`` is refused with."""
    with pytest.raises(Refused) as caught:
        lobby = await Lobby.connect(url, **options)
        await lobby.close()
    return caught.value.code


async def welcomed(url: str, **options: Any) -> bool:
    lobby = await Lobby.connect(url, **options)
    await lobby.close()
    return True


# --- the token --------------------------------------------------------------------------------


async def test_the_token_guards_every_route_and_never_shows_in_the_log(admin: Admin) -> None:
    for method, path in (
        ("GET", "/admin/tables"),
        ("POST", "/admin/tables/t-0123456789/close"),
        ("GET", "/admin/bans"),
        ("DELETE", "/admin/bans/b-0123456789abcdef"),
        ("GET", "/admin/reports"),
        ("GET", "/admin/audit"),
        ("GET", "/admin/no-such-route"),
    ):
        refusal(await admin.call(method, path, token=None), 401, "admin/unauthorized")
        refusal(await admin.call(method, path, token=WRONG), 401, "admin/unauthorized")
    basic = await admin.call("GET", "/admin/bans", token=None, headers={"authorization": TOKEN})
    refusal(basic, 401, "admin/unauthorized")
    refused_ban = await admin.call(
        "POST",
        "/admin/bans",
        token=WRONG,
        json={"kind": "network", "target": address(), "reason": "never made"},
    )
    refusal(refused_ban, 401, "admin/unauthorized")
    assert (await admin.call("GET", "/admin/bans")).status_code == 200

    # The right token, and requests the API refuses, each with its JSON error.
    refusal(await admin.call("GET", "/admin/nothing"), 404, "admin/not_found")
    wrong_method = await admin.call("DELETE", "/admin/tables")
    refusal(wrong_method, 405, "admin/method_not_allowed")
    assert wrong_method.headers["allow"] == "GET"
    refusal(await admin.call("POST", "/admin/bans", content=b"{not json"), 400, "admin/bad_request")
    big = await admin.call("POST", "/admin/bans", content=b"x" * (64 * 1024 + 1))
    refusal(big, 413, "admin/too_large")
    long_head = await admin.call("GET", "/admin/bans", headers={"x-pad": "p" * 17_000})
    refusal(long_head, 431, "admin/too_large")
    named = await admin.call("GET", "/admin/audit", name="n" * 65)
    refusal(named, 400, "admin/bad_request")
    refusal(await admin.call("GET", "/admin/audit?limit=0"), 400, "admin/bad_request")
    reader, writer = await asyncio.open_connection("127.0.0.1", int(admin.url.rsplit(":", 1)[1]))
    writer.write(b"NOT HTTP AT ALL\r\n\r\n")
    await writer.drain()
    async with asyncio.timeout(10):
        raw = await reader.read()
    writer.close()
    assert raw.startswith(b"HTTP/1.1 400 ") and b'"admin/bad_request"' in raw, raw

    # The game's public port serves no admin route, whatever the token.
    async with httpx.AsyncClient(timeout=10, trust_env=False) as client:
        public = await client.get(
            f"http://127.0.0.1:{admin.server.port}/admin/bans",
            headers={"authorization": f"Bearer {TOKEN}"},
        )
    assert public.status_code != 200 and "bans" not in public.text

    log = admin.server.output()
    assert "admin request" in log  # (the API logs its requests, and no token)
    assert TOKEN not in log and WRONG not in log and TOKEN[4:20] not in log


# --- tables -----------------------------------------------------------------------------------


async def test_tables_show_their_players_and_an_admin_closes_only_unstarted_ones(
    admin: Admin,
) -> None:
    url, name = admin.server.url, handle("ops-")
    ada = await Lobby.connect(url)
    await ada.create_identity(handle("Ada"))
    assert ada.identity is not None
    try:
        public = (await ada.create(3)).table
        token = (await ada.join(public, "ignored")).token
        await ada.add_bot(public, token, "greedy")
        private = (await ada.create(2, public=False)).table
        pia = (await ada.join(private, "ignored")).token
        async with Client.connect(url) as seat, Client.connect(url) as lobby:
            await seat.hello(table=private, token=pia)  # (the node runs the private table)
            await lobby.hello()
            rows = {
                t["table"]: t for t in (await admin.call("GET", "/admin/tables")).json()["tables"]
            }
            assert rows[public]["status"] == "waiting" and rows[public]["public"] is True
            assert rows[public]["mode"] == "competitive" and rows[public]["seats"] == 3
            assert rows[public]["players"] == [
                {"seat": 0, "name": ada.identity.handle, "bot": None, "identity": ada.identity.id},
                {"seat": 1, "name": "Greedy 2", "bot": "greedy", "identity": None},
            ]
            assert rows[private]["public"] is False and rows[private]["here"] is True
            assert [p["identity"] for p in rows[private]["players"]] == [ada.identity.id]

            closed = await admin.call("POST", f"/admin/tables/{public}/close", name=name)
            assert closed.status_code == 200 and closed.json() == {
                "table": public,
                "status": "closed",
            }
            listed = await lobby.request(m.ListTables(lobby.next_id(), public))
            assert isinstance(listed, m.ErrorMessage) and listed.code == "table/closed"
            async with Client.connect(url) as late:
                with pytest.raises(WsRefused) as caught:
                    await late.hello(table=public, token=token)
                assert caught.value.error.code == "table/closed"
            # The private table's seat session here is closed with it.
            closing = await admin.call("POST", f"/admin/tables/{private}/close", name=name)
            assert closing.status_code == 200
            assert await seat.closed(timeout=10) == 4004
        again = await admin.call("POST", f"/admin/tables/{public}/close", name=name)
        refusal(again, 409, "admin/conflict")
        unknown = await admin.call("POST", "/admin/tables/t-nothing0000/close")
        refusal(unknown, 404, "admin/not_found")
        refusal(await admin.call("POST", "/admin/tables/t%2Fx/close"), 404, "admin/not_found")
        refusal(
            await admin.call("GET", f"/admin/tables/{public}/close"),
            405,
            "admin/method_not_allowed",
        )
    finally:
        await ada.close()

    # A game being played is stopped: over with no winner, said in every viewer's log.
    started, tokens = await started_game(url, 2)
    seat = await Seat.sit(url, started, tokens[1])
    try:
        late_close = await admin.call("POST", f"/admin/tables/{started}/close", name=name)
        assert late_close.status_code == 200, late_close.text
        stopped = late_close.json()
        assert stopped["table"] == started and stopped["status"] == "stopped"
        await seat.wait(lambda: seat.over, timeout=10)
        assert seat.view["result"]["winners"] == []
        assert seat.view["result"]["decided_by"] == "stopped"
        assert seat.log[-1] == {"kind": "game_stopped", "reason": "operator"}
        assert seat.version == stopped["version"]
    finally:
        await seat.close()
    refusal(await admin.call("POST", f"/admin/tables/{started}/close"), 409, "admin/over")
    check = await Lobby.connect(url)
    try:
        for _ in range(100):  # archived, and listed as stopped (not rated)
            games = (await check.games(tables=[started])).games
            if games:
                break
            await asyncio.sleep(0.1)
        assert [g.stopped for g in games] == ["operator"] and games[0].winners == ()
    finally:
        await check.close()

    entries = (await admin.call("GET", "/admin/audit?limit=1000")).json()["entries"]
    mine = [e for e in entries if e["by"] == name]
    assert [(e["action"], e["table"]) for e in mine] == [
        ("stop_game", started),
        ("close_table", private),
        ("close_table", public),
    ]
    assert all(isinstance(e["at"], int) for e in mine)


# --- bans and the audit log -------------------------------------------------------------------


async def test_bans_refuse_players_until_lifted_or_over_and_are_audited(admin: Admin) -> None:
    url, name = admin.server.url, handle("ops-")
    ada = await Lobby.connect(url)
    await ada.create_identity(handle("Ada"))
    assert ada.identity is not None and ada.secret is not None
    who, secret = ada.identity, ada.secret
    await ada.close()
    client = address()
    network = str(ipaddress.ip_network(f"{client}/30", strict=False))
    outside = str(ipaddress.ip_network(network).network_address + 4)

    made = await admin.call(
        "POST",
        "/admin/bans",
        name=name,
        json={"kind": "identity", "target": who.id, "seconds": 1, "reason": "abuse in chat"},
    )
    assert made.status_code == 201, made.text
    by_id = made.json()
    assert by_id["kind"] == "identity" and by_id["target"] == who.id
    assert by_id["handle"] == who.handle and by_id["by"] == name
    assert by_id["until"] == by_id["at"] + 1000
    assert made.headers["location"] == f"/admin/bans/{by_id['id']}"
    by_net = (
        await admin.call(
            "POST",
            "/admin/bans",
            name=name,
            json={"kind": "network", "target": network, "reason": "a flood of tables"},
        )
    ).json()
    assert by_net["target"] == network and by_net["until"] is None

    bans = {b["id"]: b for b in (await admin.call("GET", "/admin/bans")).json()["bans"]}
    assert by_id["id"] in bans and bans[by_net["id"]] == by_net

    # Refused at hello: the identity, and any client of the network.
    assert await refused_hello(url, identity=secret) == "auth/banned"
    assert await refused_hello(url, headers={"X-Forwarded-For": client}) == "auth/banned"
    assert await welcomed(url, headers={"X-Forwarded-For": outside})

    # The identity's ban is over after its second; the network's holds until lifted.
    await asyncio.sleep(max(0.0, (by_id["until"] - time.time() * 1000) / 1000) + 0.2)
    assert await welcomed(url, identity=secret)
    bans = {b["id"] for b in (await admin.call("GET", "/admin/bans")).json()["bans"]}
    assert by_id["id"] not in bans and by_net["id"] in bans
    refusal(await admin.call("DELETE", f"/admin/bans/{by_id['id']}"), 404, "admin/not_found")
    assert await refused_hello(url, headers={"X-Forwarded-For": client}) == "auth/banned"
    lifted = await admin.call("DELETE", f"/admin/bans/{by_net['id']}", name=name)
    assert lifted.status_code == 204 and lifted.content == b""
    refusal(await admin.call("DELETE", f"/admin/bans/{by_net['id']}"), 404, "admin/not_found")
    assert await welcomed(url, headers={"X-Forwarded-For": client})

    # Bad input, each refused with why.
    for body, words in (
        ({"kind": "person", "target": who.id, "reason": "x"}, "identity"),
        ({"kind": "network", "target": "10.0.0.0/4", "reason": "x"}, "too wide"),
        ({"kind": "network", "target": "not a network", "reason": "x"}, "not"),
        ({"kind": "identity", "target": who.id, "reason": "x", "seconds": 0}, "seconds"),
        ({"kind": "identity", "target": who.id, "reason": "x", "seconds": "1"}, "seconds"),
        ({"kind": "identity", "target": who.id}, "reason"),
        ({"kind": "identity", "target": "i-nobody-" + uuid.uuid4().hex, "reason": "x"}, "no"),
        ({"kind": "identity", "target": who.id, "reason": "x", "sconds": 5}, "sconds"),
    ):
        bad = await admin.call("POST", "/admin/bans", json=body)
        assert words in refusal(bad, 400, "admin/bad_request"), (body, bad.text)
    refusal(await admin.call("POST", "/admin/bans", json=[1]), 400, "admin/bad_request")

    entries = (await admin.call("GET", "/admin/audit?limit=1000")).json()["entries"]
    mine = [(e["action"], e.get("target"), e.get("ban")) for e in entries if e["by"] == name]
    assert mine == [
        ("lift", network, by_net["id"]),
        ("ban", network, by_net["id"]),
        ("ban", who.id, by_id["id"]),
    ]
    [ban_entry] = [e for e in entries if e.get("ban") == by_id["id"]]
    assert ban_entry["until"] == by_id["until"] and ban_entry["reason"] == "abuse in chat"


# --- reports ----------------------------------------------------------------------------------


async def test_reports_come_newest_first_with_the_replay_path_of_their_moment(
    admin: Admin, redis_server: RedisServer
) -> None:
    url = admin.server.url
    ada, ben = await Lobby.connect(url), await Lobby.connect(url)
    await ada.create_identity(handle("Ada"))
    await ben.create_identity(handle("Ben"))
    assert ada.identity is not None and ben.identity is not None
    storage = await Storage.open(redis_server.url, check=False)
    try:
        table = (await ben.create(2)).table
        await ben.join(table, "ignored")  # seat 0: Ben
        await ada.join(table, "ignored")  # seat 1: Ada
        elsewhere = "t-" + uuid.uuid4().hex[:10]  # no such table: no seat to give
        now = int(time.time() * 1000)
        moderation = storage.moderation
        first = await moderation.report(
            ada.identity.id, ben.identity.id, table, 0, "abuse", "rude", now - 2000
        )
        second = await moderation.report(
            ada.identity.id, ben.identity.id, elsewhere, 7, "spam", None, now - 1000
        )
        third = await moderation.report(
            ben.identity.id, ada.identity.id, table, 3, "name", None, now
        )
        assert first and second and third

        listed = await admin.call("GET", f"/admin/reports?target={ben.identity.id}")
        assert listed.status_code == 200
        reports = listed.json()["reports"]
        assert [r["id"] for r in reports] == [second.id, first.id]
        assert [r["replay"] for r in reports] == [
            f"/#/replay/{elsewhere}?v=7",
            f"/#/replay/{table}?v=0&seat=0",
        ]
        assert reports[1]["reporter"] == ada.identity.id
        assert reports[1]["target_handle"] == ben.identity.handle
        assert reports[1]["text"] == "rude" and reports[1]["at"] == now - 2000
        against_ada = await admin.call("GET", f"/admin/reports?target={ada.identity.id}")
        assert [r["replay"] for r in against_ada.json()["reports"]] == [
            f"/#/replay/{table}?v=3&seat=1"
        ]

        page = (await admin.call("GET", f"/admin/reports?target={ben.identity.id}&limit=1")).json()
        assert [r["id"] for r in page["reports"]] == [second.id] and page["next"] == now - 1000
        rest = await admin.call(
            "GET", f"/admin/reports?target={ben.identity.id}&limit=1&before={page['next']}"
        )
        assert [r["id"] for r in rest.json()["reports"]] == [first.id]
        refusal(await admin.call("GET", "/admin/reports?limit=x"), 400, "admin/bad_request")
    finally:
        await storage.close()
        await ada.close()
        await ben.close()


# --- the command line -------------------------------------------------------------------------


def echo_ridge(*args: str, token: str | None = TOKEN) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != TOKEN_ENV}
    if token is not None:
        env[TOKEN_ENV] = token
    return subprocess.run(
        [sys.executable, "-m", "echoridge.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def test_the_cli_bans_lists_lifts_and_exits_1_with_the_api_s_code(admin: Admin) -> None:
    where = ("admin", "--url", admin.url, "--as", "cli-ops")
    network = f"{address()}/32"
    banned = echo_ridge(*where, "ban", "network", network, "--for", "1h", "--reason", "spam")
    assert banned.returncode == 0, banned.stderr
    assert banned.stdout.startswith(f"banned network {network} until ")
    ban = banned.stdout.split()[-1]
    assert ban.startswith("b-")

    shown = echo_ridge(*where, "bans")
    assert shown.returncode == 0, shown.stderr
    [header] = [line for line in shown.stdout.splitlines() if line.startswith("BAN ")]
    assert header.split() == ["BAN", "KIND", "TARGET", "SINCE", "UNTIL", "BY", "REASON"]
    [row] = [line for line in shown.stdout.splitlines() if line.startswith(ban)]
    assert row.split()[:3] == [ban, "network", network] and "cli-ops" in row
    assert row.index("network") == header.index("KIND")  # aligned

    tables = echo_ridge(*where, "tables").stdout.splitlines()
    assert tables[0].split()[:3] == ["TABLE", "STATUS", "MODE"]
    assert re.fullmatch(r"\d+ tables?( \(more not shown\))?", tables[-1]), tables
    lifted = echo_ridge(*where, "lift", ban)
    assert lifted.returncode == 0 and lifted.stdout.strip() == f"lifted {ban}"
    again = echo_ridge(*where, "lift", ban)
    assert again.returncode == 1 and "admin/not_found" in again.stderr
    audit = echo_ridge(*where, "audit", "--limit", "50")
    assert any(
        " cli-ops " in line and " lift " in line and f"ban={ban}" in line
        for line in audit.stdout.splitlines()
    ), audit.stdout
    unknown = echo_ridge(*where, "ban", "identity", "i-nobody", "--reason", "x")
    assert unknown.returncode == 1 and "admin/bad_request" in unknown.stderr

    wrong = echo_ridge(*where, "bans", token=WRONG)
    assert wrong.returncode == 1 and "admin/unauthorized" in wrong.stderr
    assert wrong.stdout == ""
    assert echo_ridge(*where, "bans", token=None).returncode == 2
    with socket.socket() as nobody:
        nobody.bind(("127.0.0.1", 0))  # (bound, not listening: refused)
        port = nobody.getsockname()[1]
        away = echo_ridge("admin", "--url", f"http://127.0.0.1:{port}", "bans")
    assert away.returncode == 1 and "not reachable" in away.stderr


def test_serve_refuses_an_admin_port_without_a_long_token() -> None:
    for token in (None, "short"):
        refused = echo_ridge("serve", "--admin-port", "9", "--port", "0", token=token)
        assert refused.returncode == 2 and TOKEN_ENV in refused.stderr
    same = echo_ridge("serve", "--admin-port", "8765", "--port", "8765")
    assert same.returncode == 2 and "--admin-port" in same.stderr
