"""The reverse proxies of deploy/: ``nginx -t`` accepts deploy/nginx.conf and ``caddy validate``
deploy/Caddyfile (a broken copy of each is refused), and, live, what deploy/compose.yaml
describes started natively: Redis with its settings, two servers, Caddy with that Caddyfile and
its local CA in front.  Two players play a whole game over ``wss://`` through Caddy; the server
that runs their table is stopped with SIGTERM mid-game, they move to the other one, and the
game finishes and its transcript verifies.  nginx and Caddy are Debian packages (`.ci/run`
installs them); without them these tests skip, saying so."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from echoridge.store.embedded import free_port
from echoridge.transcript import replay
from echoridge_client.lobby import Lobby
from echoridge_client.policies import RandomPolicy
from echoridge_client.session import Seat
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerProcess, start_server, started_game
from tests.e2e.hostile import metrics
from tests.e2e.test_drain import paced

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
CADDY = shutil.which("caddy")
OPENSSL = shutil.which("openssl")

needs_nginx = pytest.mark.skipif(
    NGINX is None or OPENSSL is None, reason="needs nginx and openssl (apt-get install nginx)"
)
needs_caddy = pytest.mark.skipif(CADDY is None, reason="needs caddy (apt-get install caddy)")


def nginx_test(conf: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``nginx -t`` of ``conf`` with a throwaway certificate in place of the operator's."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    if not cert.exists():
        subprocess.run([OPENSSL, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                        "-subj", "/CN=localhost", "-keyout", key, "-out", cert],
                       check=True, capture_output=True)  # fmt: skip
    text = conf.read_text()
    text = text.replace("/etc/echo-ridge/tls/fullchain.pem", str(cert))
    text = text.replace("/etc/echo-ridge/tls/privkey.pem", str(key))
    copy = tmp_path / "nginx.conf"
    copy.write_text(text)
    return subprocess.run(
        [NGINX, "-t", "-c", copy, "-p", tmp_path, "-g", f"pid {tmp_path / 'nginx.pid'};"],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip


@needs_nginx
def test_nginx_accepts_the_config_and_refuses_a_broken_one(tmp_path: Path) -> None:
    good = nginx_test(DEPLOY / "nginx.conf", tmp_path)
    assert good.returncode == 0, good.stderr
    text = (DEPLOY / "nginx.conf").read_text()
    for needed in ("proxy_set_header Upgrade $http_upgrade", "proxy_read_timeout 3600s",
                   "X-Forwarded-For", "hash $arg_table consistent", "listen 443 ssl"):  # fmt: skip
        assert needed in text
    broken = tmp_path / "broken.conf"
    broken.write_text(text.replace("proxy_http_version 1.1;", "proxy_http_version 1.1"))
    assert nginx_test(broken, tmp_path).returncode != 0


def caddy_validate(caddyfile: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SITE_ADDRESS": "play.example.org", "XDG_DATA_HOME": str(tmp_path),
           "XDG_CONFIG_HOME": str(tmp_path)}  # fmt: skip
    return subprocess.run(
        [CADDY, "validate", "--config", caddyfile, "--adapter", "caddyfile"],
        capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip


@needs_caddy
def test_caddy_accepts_the_caddyfile_and_refuses_a_broken_one(tmp_path: Path) -> None:
    good = caddy_validate(DEPLOY / "Caddyfile", tmp_path)
    assert good.returncode == 0, good.stderr[-2000:]
    broken = tmp_path / "Caddyfile"
    text = (DEPLOY / "Caddyfile").read_text()
    broken.write_text(text.replace("lb_try_duration 5s", "lb_try_duration"))
    assert caddy_validate(broken, tmp_path).returncode != 0


@pytest.fixture
def caddy(tmp_path: Path) -> Iterator[Callable[[list[ServerProcess]], tuple[str, Path]]]:
    """Start Caddy with deploy/Caddyfile in front of servers: (its wss:// URL, its local CA)."""
    started: list[subprocess.Popen[bytes]] = []

    def start(upstreams: list[ServerProcess]) -> tuple[str, Path]:
        https = free_port()
        env = {**os.environ,
               "SITE_ADDRESS": f"127.0.0.1:{https}",
               "UPSTREAMS": " ".join(f"127.0.0.1:{s.port}" for s in upstreams),
               "HTTP_PORT": str(free_port()), "HTTPS_PORT": str(https),
               "CADDY_ADMIN": f"localhost:{free_port()}",
               "XDG_DATA_HOME": str(tmp_path / "data"),
               "XDG_CONFIG_HOME": str(tmp_path / "config")}  # fmt: skip
        log = open(tmp_path / "caddy.log", "wb")  # noqa: SIM115 (closed with the process)
        process = subprocess.Popen(
            [CADDY, "run", "--config", DEPLOY / "Caddyfile", "--adapter", "caddyfile"],
            env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        log.close()
        started.append(process)
        root = tmp_path / "data" / "caddy" / "pki" / "authorities" / "local" / "root.crt"
        deadline = time.monotonic() + 30
        while not (root.exists() and _listening(https)):
            assert process.poll() is None, (tmp_path / "caddy.log").read_text()[-3000:]
            assert time.monotonic() < deadline, (tmp_path / "caddy.log").read_text()[-3000:]
            time.sleep(0.1)
        return f"wss://127.0.0.1:{https}/ws", root

    yield start
    for process in started:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


@needs_caddy
async def test_a_game_over_wss_through_caddy_survives_a_server_stopped_mid_game(
    start_redis: Callable[..., RedisServer],
    tmp_path: Path,
    caddy: Callable[[list[ServerProcess]], tuple[str, Path]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    redis = start_redis("--appendfsync", "always")  # (appendonly yes, noeviction: as compose)
    extra = ("--bot-delay", "0", "--trusted-proxies", "127.0.0.1")
    servers = [start_server(redis.url, tmp_path / f"server-{i}.log", *extra) for i in range(2)]
    try:
        url, root = caddy(servers)
        monkeypatch.setenv("SSL_CERT_FILE", str(root))  # (the client trusts Caddy's local CA)
        table, tokens = await started_game(url, 2)
        seats = [Seat(url, table, token=t) for t in tokens]
        for seat in seats:
            await seat.start()
        try:
            plays = [asyncio.create_task(paced(s, RandomPolicy(bytes([i]))))
                     for i, s in enumerate(seats)]  # fmt: skip
            await asyncio.sleep(1.0)
            # The server the proxy gave the table to (both seats' URLs hash alike):
            seated = [await seat_connections(s) for s in servers]
            assert sorted(seated) == [0, 2], seated
            runs, other = (servers[0], servers[1]) if seated[0] else (servers[1], servers[0])
            runs.process.send_signal(signal.SIGTERM)
            assert runs.process.wait(30) == 0
            async with asyncio.timeout(180):
                await asyncio.gather(*plays)
            assert all(s.over for s in seats)
            assert all(s.reconnects >= 1 for s in seats)
            assert await seat_connections(other) == 2
        finally:
            for seat in seats:
                await seat.close()
        lobby = await Lobby.connect(url)
        try:
            transcript = await lobby.transcript(table)
        finally:
            await lobby.close()
        assert replay(transcript).ok
    finally:
        for server in servers:
            server.stop()


async def seat_connections(server: ServerProcess) -> int:
    """How many seat sessions ``server`` holds (its own /metrics, not through the proxy)."""
    seen = await metrics(server)
    return int(seen.get('echoridge_connections{session="seat"}', 0))
