"""The JavaScript package (clients/js): Node's test runner over clients/js/test (the codec
against the golden frames, deltas, the fairness vectors, and a whole game against a real server
started here), and ``tsc --noEmit`` over its typed example against the declarations.

Node and npm are Debian's (``apt-get install nodejs npm``; ``.ci/run`` installs them as it does
Chromium); TypeScript comes from the npm registry at the version clients/js/package-lock.json
pins (``npm ci``, run again only when the lockfile changed). Without node or npm, or without the
registry, these tests skip and say why.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.conftest import ServerProcess, servers  # noqa: F401  (fixtures)

PACKAGE = Path(__file__).resolve().parents[2] / "clients" / "js"
INSTALL = "install Debian's nodejs and npm: apt-get install nodejs npm"
NODE = shutil.which("node")
NPM = shutil.which("npm")


def _node_major() -> int:
    """Node's major version (0: none, or unreadable)."""
    if NODE is None:
        return 0
    out = subprocess.run([NODE, "--version"], capture_output=True, text=True, timeout=30).stdout
    try:
        return int(out.strip().lstrip("v").split(".")[0])
    except ValueError:
        return 0


NODE_MAJOR = _node_major()
OLD_NODE = f"node {NODE_MAJOR} is older than the package's Node 20 (WebSocket, node --test)"


def _run(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``args`` in clients/js; the callers check the exit code and report the output."""
    return subprocess.run(args, cwd=PACKAGE, capture_output=True, text=True, timeout=600, env=env)


@pytest.mark.skipif(NODE is None, reason=f"no node: {INSTALL}")
@pytest.mark.skipif(NODE is not None and NODE_MAJOR < 20, reason=OLD_NODE)
def test_node_test_runner_plays_a_whole_game(servers: Callable[..., ServerProcess]) -> None:  # noqa: F811
    server = servers("--bot-delay", "0")
    env = {**os.environ, "ECHORIDGE_URL": server.url}
    run = _run([str(NODE), "--experimental-websocket", "--test", "test/"], env=env)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-6000:]
    assert "# fail 0" in output and "# skipped 0" in output, output[-3000:]


def _npm_ci() -> None:
    """``npm ci`` in clients/js unless node_modules was installed from this very lockfile."""
    lock = (PACKAGE / "package-lock.json").read_bytes()
    stamp = PACKAGE / "node_modules" / ".echoridge-lock.sha256"
    digest = hashlib.sha256(lock).hexdigest()
    if stamp.is_file() and stamp.read_text() == digest:
        return
    run = _run([str(NPM), "ci", "--no-audit", "--no-fund"])
    if run.returncode != 0:
        pytest.skip(f"npm ci failed (is the npm registry reachable?): {run.stderr[-1500:]}")
    stamp.write_text(digest)


@pytest.mark.skipif(NODE is None or NPM is None, reason=f"no node or npm: {INSTALL}")
def test_tsc_checks_the_typed_example_against_the_declarations() -> None:
    _npm_ci()
    run = _run([str(PACKAGE / "node_modules" / ".bin" / "tsc"), "--noEmit", "-p", "."])
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.skipif(NODE is None, reason=f"no node: {INSTALL}")
@pytest.mark.skipif(NODE is not None and NODE_MAJOR < 20, reason=OLD_NODE)
def test_the_readmes_bot_in_ten_lines_plays_a_game_and_verifies_it(
    servers: Callable[..., ServerProcess],  # noqa: F811
) -> None:
    """The README's bot, as written (only its server's address changed), run inside the package
    (so ``@echoridge/client`` resolves by the package's own name): it plays a whole game and
    prints the transcript's checks; docs/clients.md shows the same bot."""
    readme = (PACKAGE / "README.md").read_text()
    [code] = re.findall(r"## A bot in ten lines\n\n```js\n(.*?)```", readme, re.S)
    lines = [x for x in code.splitlines() if x.strip() and not x.startswith("import ")]
    assert len(lines) <= 11  # (ten lines and the one that closes the connections)
    docs = (PACKAGE.parents[1] / "docs" / "clients.md").read_text()
    assert code.strip() in docs, "docs/clients.md shows another JavaScript bot than the README"
    # (at 5 commands a second the bot outruns the rate: its refused commands are sent again)
    server = servers("--bot-delay", "0", "--commands-per-second", "5")
    script = PACKAGE / f".readme-bot-{os.getpid()}.mjs"
    script.write_text(code.replace("ws://127.0.0.1:8765/ws", server.url))
    try:
        run = _run([str(NODE), "--experimental-websocket", str(script)])
    finally:
        script.unlink()
    assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]
    for check in ("the server seed opens the commitment", "random draws are the generator's"):
        assert check in run.stdout, run.stdout[-2000:]
