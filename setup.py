"""The one build step pyproject.toml cannot say: the wheel carries the browser client and the
documents published beside the protocol.

``clients/web`` (static files, no build of their own) is copied into the built package as
``echoridge/web``, where ``net/server.py``'s ``find_web_root`` looks in an installed server, and
the JavaScript SDK's modules it imports (``clients/js/src``, served at ``/sdk/``) as
``echoridge/sdk``, where ``find_sdk_root`` looks.
The published documents (SPEC.md, the schema, the players' rules and rulings, the log wording,
``protocol/examples``: the list is ``net/published.py``'s) are copied as
``echoridge/published/NAME``, where ``find_published`` looks; a missing one fails the build, so
no wheel serves a protocol without its documents.  A source checkout and an editable install
serve the repository's files themselves.
"""

from __future__ import annotations

import runpy
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
WEB = ROOT / "clients" / "web"
SDK = ROOT / "clients" / "js" / "src"  # (its .js modules only; the .d.ts stay in the npm package)
SERVED = {".html", ".js", ".css", ".svg", ".png", ".ico", ".json", ".txt", ".webmanifest"}
# (published.py imports only the standard library, so it runs here without the package)
PUBLISHED = runpy.run_path(str(ROOT / "server" / "echoridge" / "net" / "published.py"))


class BuildWithWeb(build_py):
    def run(self) -> None:
        super().run()
        package = Path(self.build_lib) / "echoridge"
        for source in WEB.rglob("*"):
            if source.is_file() and source.suffix in SERVED:
                _copy(source, package / "web" / source.relative_to(WEB))
        for source in SDK.glob("*.js"):
            _copy(source, package / "sdk" / source.name)
        published = package / PUBLISHED["CARRIED"]
        for name, source in PUBLISHED["DOCUMENTS"].items():
            if not (ROOT / source).is_file():
                raise FileNotFoundError(f"{source}: a published document (net/published.py)")
            _copy(ROOT / source, published / name)
        examples = ROOT / PUBLISHED["EXAMPLES"]
        for source in sorted(examples.rglob("*")):
            name = source.relative_to(examples)
            if (
                source.is_file()
                and source.suffix in PUBLISHED["DOCUMENT_TYPES"]
                and not any(part.startswith(".") for part in name.parts)  # (never served)
            ):
                _copy(source, published / "examples" / name)


def _copy(source: Path, copy: Path) -> None:
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, copy)


setup(cmdclass={"build_py": BuildWithWeb})
