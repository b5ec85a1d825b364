"""The browser client's files over plain HTTP on the websocket port: content types, the
Content-Security-Policy, 404s, no way out of clients/web, the spectator count; and the
websocket endpoint still answering at /ws and /."""

from __future__ import annotations

import http.client
import json
from pathlib import Path

import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Subprotocol

from echoridge.net.server import CONTENT_TYPES, StaticFiles, content_security_policy
from echoridge_protocol import messages as m
from tests.e2e.conftest import ServerProcess, server, servers  # noqa: F401  (fixtures)
from tests.net.wsclient import Client

WEB = Path(__file__).resolve().parents[2] / "clients" / "web"
SDK = Path(__file__).resolve().parents[2] / "clients" / "js" / "src"
SUBS = [Subprotocol(m.SUBPROTOCOL_JSON)]


def get(server: ServerProcess, path: str, host: str | None = None) -> http.client.HTTPResponse:  # noqa: F811
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    headers = {"Host": host} if host else {}
    conn.request("GET", path, headers=headers)  # the path goes out exactly as given
    response = conn.getresponse()
    response.read()
    conn.close()
    return response


def body(server: ServerProcess, path: str) -> tuple[int, str, bytes]:  # noqa: F811
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request("GET", path)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, response.getheader("Content-Type") or "", data


def test_the_page_and_its_files_have_their_content_types(server: ServerProcess) -> None:  # noqa: F811
    status, kind, data = body(server, "/")
    assert status == 200 and kind == "text/html; charset=utf-8"
    assert data == (WEB / "index.html").read_bytes()
    for path, expected in (
        ("/index.html", "text/html; charset=utf-8"),
        ("/js/app.js", "text/javascript; charset=utf-8"),
        ("/style.css", "text/css; charset=utf-8"),
        ("/favicon.svg", "image/svg+xml"),
    ):
        status, kind, data = body(server, path)
        assert (status, kind) == (200, expected), path
        assert data == (WEB / path[1:]).read_bytes()
    # every module the page imports is served as JavaScript
    for module in sorted((WEB / "js").glob("*.js")):
        status, kind, _ = body(server, f"/js/{module.name}")
        assert (status, kind) == (200, "text/javascript; charset=utf-8"), module.name
    # and the JavaScript SDK's modules it imports (clients/js/src) under /sdk/, not their .d.ts
    for module in sorted(SDK.glob("*.js")):
        status, kind, data = body(server, f"/sdk/{module.name}")
        assert (status, kind) == (200, "text/javascript; charset=utf-8"), module.name
        assert data == module.read_bytes()
    for path in ("/sdk/", "/sdk/index.d.ts", "/sdk/../js/app.js", "/sdk/%2e%2e/package.json"):
        assert body(server, path)[0] == 404, path


def test_security_headers(server: ServerProcess) -> None:  # noqa: F811
    response = get(server, "/", host=f"127.0.0.1:{server.port}")
    csp = response.getheader("Content-Security-Policy") or ""
    assert "default-src 'self'" in csp
    assert f"connect-src 'self' ws://127.0.0.1:{server.port} wss://127.0.0.1:{server.port}" in csp
    assert "'unsafe-inline'" not in csp and "'unsafe-eval'" not in csp and "*" not in csp
    assert response.getheader("X-Content-Type-Options") == "nosniff"
    assert response.getheader("Content-Type", "").count(";") == 1  # exactly one Content-Type
    assert len(response.headers.get_all("Content-Type") or []) == 1
    # a Host header that is not a host stays out of the policy
    odd = get(server, "/", host="evil.example; script-src *")
    assert odd.getheader("Content-Security-Policy") == content_security_policy(None)
    assert "evil" not in (odd.getheader("Content-Security-Policy") or "")


@pytest.mark.parametrize(
    "path",
    [
        "/nope.html",
        "/js/nope.js",
        "/js/",
        "/js",
        "/../pyproject.toml",
        "/js/../../README.md",
        "/%2e%2e/pyproject.toml",
        "/js/%2e%2e/%2e%2e/README.md",
        "/js/..%2f..%2fREADME.md",
        "/..%5c..%5cREADME.md",
        "//etc/passwd",
        "/.hidden",
        "/js/%00.js",
        "/%ff.js",
        "/index.html/",
    ],
)
def test_anything_else_is_not_found(server: ServerProcess, path: str) -> None:  # noqa: F811
    status, _, data = body(server, path)
    assert status == 404, path
    assert data == b"not found\n"


def test_health_metrics_and_the_spectator_count_still_answer(server: ServerProcess) -> None:  # noqa: F811
    status, kind, data = body(server, "/healthz")
    assert (status, data) == (200, b"ok\n")
    status, kind, data = body(server, "/metrics")
    assert status == 200 and kind.startswith("text/plain; version=0.0.4")
    status, kind, data = body(server, "/api/spectators/t-nothing")
    assert (status, kind) == (200, "application/json")
    assert json.loads(data) == {"table": "t-nothing", "spectators": 0}
    assert body(server, "/api/spectators/not%20a%20table")[0] == 404


async def test_the_websocket_endpoint_is_unchanged(server: ServerProcess) -> None:  # noqa: F811
    for path in ("/ws", "/"):
        url = f"ws://127.0.0.1:{server.port}{path}"
        async with Client.connect(url, m.SUBPROTOCOL_JSON) as c:
            welcome = await c.hello()
            assert welcome.session == "lobby"
    # an upgrade anywhere else is refused, even where a file is served
    for path in ("/js/app.js", "/index.html", "/nope"):
        with pytest.raises(InvalidStatus) as info:
            async with ws_connect(f"ws://127.0.0.1:{server.port}{path}", subprotocols=SUBS):
                pass
        assert info.value.response.status_code == 404


def test_static_files_refuse_to_leave_their_folder(tmp_path: Path) -> None:
    root = tmp_path / "web"
    (root / "js").mkdir(parents=True)
    (root / "index.html").write_text("<!doctype html>")
    (root / "js" / "a.js").write_text("export {}")
    (root / "notes.md").write_text("not served: unknown suffix")
    (tmp_path / "secret.js").write_text("outside")
    (root / "js" / "link.js").symlink_to(tmp_path / "secret.js")
    files = StaticFiles(root)
    assert files.resolve("/") == (root / "index.html").resolve()
    assert files.resolve("/js/a.js") == (root / "js" / "a.js").resolve()
    assert files.resolve("/js/link.js") is None  # a symlink out of the folder
    assert files.resolve("/notes.md") is None
    assert files.resolve("/js/../../secret.js") is None
    assert files.resolve("/js/%2e%2e/%2e%2e/secret.js") is None
    assert StaticFiles(None).resolve("/") is None
    assert set(CONTENT_TYPES) >= {".html", ".js", ".css", ".svg"}
