"""net/published.py: which file each URL under /protocol/ names, in a source checkout and in a
wheel's layout, and that nothing outside the published documents and the examples' folder can be
reached (the web client's path safety: tests/web/test_static.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from echoridge.net.published import (
    DOCUMENT_TYPES,
    DOCUMENTS,
    PREFIX,
    Published,
    StaticFiles,
    find_published,
)

ROOT = Path(__file__).resolve().parents[2]


def test_a_checkout_serves_the_repository_files_themselves() -> None:
    published = find_published()
    for name, source in DOCUMENTS.items():
        assert published.resolve(PREFIX + name) == ROOT / source, name
        assert (ROOT / source).suffix in DOCUMENT_TYPES
    assert published.examples.root == (ROOT / "protocol" / "examples").resolve()


@pytest.fixture
def carried(tmp_path: Path) -> Published:
    """A wheel's layout (setup.py): the documents under their names, examples/ beside them."""
    folder = tmp_path / "published"
    (folder / "examples" / "games").mkdir(parents=True)
    for name in DOCUMENTS:
        (folder / name).write_text(name)
    (folder / "examples" / "transcript.json").write_text("{}")
    (folder / "examples" / "games" / "solo.md").write_text("# solo")
    (folder / "examples" / "notes.txt").write_text("not a published type")
    (folder / "examples" / ".hidden.json").write_text("{}")
    (tmp_path / "secret.json").write_text("outside")
    (folder / "examples" / "link.json").symlink_to(tmp_path / "secret.json")
    (folder / "stray.md").write_text("beside the documents, but not one of them")
    return Published.carried(folder)


def test_a_wheel_layout_serves_the_documents_and_the_examples(carried: Published) -> None:
    folder = carried.examples.root
    assert folder is not None
    for name in DOCUMENTS:
        file = carried.resolve(PREFIX + name)
        assert file is not None and file.read_text() == name
    assert carried.resolve("/protocol/examples/transcript.json") == folder / "transcript.json"
    assert carried.resolve("/protocol/examples/games/solo.md") == folder / "games" / "solo.md"


@pytest.mark.parametrize(
    "path",
    [
        "/protocol/",
        "/protocol",
        "/protocol/stray.md",  # a file in the folder that is not a published document
        "/protocol/SPEC.md/",
        "/protocol/spec.md",
        "/protocol/SPEC%2Emd",
        "/protocol/./SPEC.md",
        "/protocol/../protocol/SPEC.md",
        "/protocol//SPEC.md",
        "/protocol/examples",
        "/protocol/examples/",
        "/protocol/examples/nope.json",
        "/protocol/examples/notes.txt",
        "/protocol/examples/.hidden.json",
        "/protocol/examples/link.json",  # a symlink out of the folder
        "/protocol/examples/../SPEC.md",
        "/protocol/examples/%2e%2e/SPEC.md",
        "/protocol/examples/..%2f..%2fsecret.json",
        "/protocol/examples/games/../transcript.json",
        "/protocol/examples//transcript.json",
        "/protocol/examples/%00.json",
        "/protocol/examples/%ff.json",
        "/SPEC.md",
        "/rules.md",
    ],
)
def test_nothing_else_is_published(carried: Published, path: str) -> None:
    assert carried.resolve(path) is None, path


def test_no_examples_folder_publishes_no_examples(tmp_path: Path) -> None:
    published = Published.checkout(tmp_path)  # (nothing there at all)
    assert published.resolve("/protocol/examples/transcript.json") is None
    assert published.resolve("/protocol/SPEC.md") is None


def test_static_files_take_their_types_and_index() -> None:
    web = StaticFiles(ROOT / "clients" / "web")
    assert web.resolve("/") == (ROOT / "clients" / "web" / "index.html").resolve()
    docs = StaticFiles(ROOT / "docs", DOCUMENT_TYPES, index=None)
    assert docs.resolve("/") is None
    assert docs.resolve("/rules.md") == (ROOT / "docs" / "rules.md").resolve()
    assert web.resolve("/../docs/rules.md") is None
