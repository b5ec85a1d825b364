"""The one build step pyproject.toml cannot say: the wheel carries the browser client.

``clients/web`` (static files, no build of their own) is copied into the built package as
``echoridge/web``, where ``net/server.py``'s ``find_web_root`` looks in an installed server.  A
source checkout and an editable install serve ``clients/web`` itself.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

WEB = Path(__file__).resolve().parent / "clients" / "web"
SERVED = {".html", ".js", ".css", ".svg", ".png", ".ico", ".json", ".txt", ".webmanifest"}


class BuildWithWeb(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "echoridge" / "web"
        for source in WEB.rglob("*"):
            if source.is_file() and source.suffix in SERVED:
                copy = target / source.relative_to(WEB)
                copy.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, copy)


setup(cmdclass={"build_py": BuildWithWeb})
