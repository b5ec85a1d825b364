"""The documents published beside the protocol (SPEC.md §1), from a real server: each is served
under /protocol/ with its content type, readable from any origin, and is the repository's file
byte for byte; the log's wording is still at /logtext.en.json; nothing else is under /protocol/."""

from __future__ import annotations

import http.client
from collections.abc import Iterator
from pathlib import Path

import pytest

from echoridge.net.published import DOCUMENT_TYPES, DOCUMENTS, EXAMPLES, PREFIX
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerProcess, start_server

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def server(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    process = start_server(redis_server.url, tmp_path_factory.mktemp("published") / "server.log")
    yield process
    process.stop()


def get(server: ServerProcess, path: str) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def published_files() -> list[tuple[str, Path]]:
    """Every URL under /protocol/ and the repository file it must serve."""
    files = [(PREFIX + name, ROOT / source) for name, source in DOCUMENTS.items()]
    examples = ROOT / EXAMPLES
    if examples.is_dir():  # (another change adds them: served when present)
        files += [
            (f"{PREFIX}examples/{f.relative_to(examples).as_posix()}", f)
            for f in sorted(examples.rglob("*"))
            if f.is_file() and f.suffix in DOCUMENT_TYPES
        ]
    return files


def test_every_published_document_is_served_as_the_repository_has_it(
    server: ServerProcess,
) -> None:
    urls = [url for url, _ in published_files()]
    assert {
        "/protocol/SPEC.md",
        "/protocol/echoridge.v2.schema.json",
        "/protocol/rules.md",
        "/protocol/rules.es.md",
        "/protocol/rulings.md",
        "/protocol/logtext.en.json",
    } <= set(urls)
    for url, file in published_files():
        status, headers, body = get(server, url)
        assert status == 200, url
        assert headers["Content-Type"] == DOCUMENT_TYPES[file.suffix], url
        assert headers["Access-Control-Allow-Origin"] == "*", url
        assert headers["X-Content-Type-Options"] == "nosniff", url
        assert body == file.read_bytes(), url
    markdown = get(server, "/protocol/rules.md")[1]["Content-Type"]
    assert markdown == "text/markdown; charset=utf-8"
    assert get(server, "/protocol/SPEC.md")[2].startswith(b"# Echo Ridge protocol")
    status, headers, body = get(server, "/protocol/rules.es.md")  # the Spanish rules (issue 30)
    assert (status, headers["Content-Type"]) == (200, "text/markdown; charset=utf-8")
    assert body.decode("utf-8").startswith("# Echo Ridge — Cómo se juega\n")


@pytest.mark.parametrize("language", ["en", "es"])
def test_the_log_wording_keeps_its_old_path(server: ServerProcess, language: str) -> None:
    status, headers, body = get(server, f"/logtext.{language}.json")
    assert (status, headers["Content-Type"]) == (200, "application/json")
    assert body == get(server, f"/protocol/logtext.{language}.json")[2]


@pytest.mark.parametrize(
    "path",
    [
        "/protocol/",
        "/protocol/README.md",
        "/protocol/schema/echoridge.v2.schema.json",  # (its repository path: not a URL)
        "/protocol/docs/rules.md",
        "/protocol/../pyproject.toml",
        "/protocol/%2e%2e/pyproject.toml",
        "/protocol/examples/",
        "/protocol/examples/../SPEC.md",
        "/protocol/examples/%2e%2e/%2e%2e/pyproject.toml",
        "/protocol/examples/nope.json",
        "/protocol/echoridge_protocol/codec.py",
        "/rules.md",
    ],
)
def test_nothing_else_is_served_there(server: ServerProcess, path: str) -> None:
    status, _, body = get(server, path)
    assert (status, body) == (404, b"not found\n"), path
