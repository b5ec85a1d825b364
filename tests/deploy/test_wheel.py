"""The wheel as an operator installs it: built from this checkout, installed into a fresh venv
(its dependencies from the package index, as `pip install` does, but for the protocol, the
rules and the SDK: their wheels are built beside it), it serves the browser client
at ``/`` and the documents published beside the protocol under ``/protocol/`` with no source
tree and no ``ECHORIDGE_WEB_DIR`` (setup.py copies ``clients/web`` into the package as
``echoridge/web``, and the documents as ``echoridge/published``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

from echoridge.net.published import CARRIED, DOCUMENT_TYPES, DOCUMENTS, EXAMPLES
from echoridge.store.embedded import free_port

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "clients" / "web"


def run(*args: str | Path, cwd: Path) -> None:
    subprocess.run([str(a) for a in args], cwd=cwd, check=True, timeout=600,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip


def test_a_wheel_in_a_fresh_venv_serves_the_page(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    # The protocol, the rules and the SDK are distributions of their own, built here too (they
    # are not on PyPI): the install finds them with --find-links.  (From copies: an in-tree
    # build leaves build/ beside their sources.)
    ignore = shutil.ignore_patterns("__pycache__", "build", "dist", "*.egg-info")
    projects = [
        Path(shutil.copytree(ROOT / name, tmp_path / "sources" / name, ignore=ignore))
        for name in ("protocol", "engine", "clients/python")
    ] + [ROOT]
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", wheels, *projects,
        cwd=tmp_path)  # fmt: skip
    (wheel,) = wheels.glob("echo_ridge-*.whl")
    examples = ROOT / EXAMPLES
    carried = {f"echoridge/{CARRIED}/{name}": ROOT / source for name, source in DOCUMENTS.items()}
    carried |= {
        f"echoridge/{CARRIED}/examples/{f.relative_to(examples).as_posix()}": f
        for f in (examples.rglob("*") if examples.is_dir() else ())
        if f.is_file() and f.suffix in DOCUMENT_TYPES
    }
    with zipfile.ZipFile(wheel) as archive:
        # the server and the terminal client; the protocol, rules and SDK are their own wheels
        packages = {n.split("/")[0] for n in archive.namelist() if ".dist-info/" not in n}
        assert packages == {"echoridge", "echoridge_terminal"}, packages
        for name, file in carried.items():
            assert archive.read(name) == file.read_bytes(), name
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", venv, cwd=tmp_path)
    run(venv / "bin" / "python", "-m", "pip", "install", "-q", "--find-links", wheels, wheel,
        cwd=tmp_path)  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k not in ("ECHORIDGE_WEB_DIR", "PYTHONPATH")}
    installed = subprocess.run(
        [venv / "bin" / "python", "-c", "import echoridge; print(echoridge.__file__)"],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    assert installed.startswith(str(venv)), installed  # (not this checkout)
    port = free_port()
    log = tmp_path / "serve.log"
    with open(log, "wb") as out:
        server = subprocess.Popen(
            [venv / "bin" / "echo-ridge", "serve", "--port", str(port), "--data-dir",
             tmp_path / "redis"],
            cwd=tmp_path, env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while "serving on" not in log.read_text(errors="replace"):
            assert server.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        for path, file in (("/", "index.html"), ("/js/app.js", "js/app.js")):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
                assert r.status == 200
                assert r.read() == (WEB / file).read_bytes()
        for name, file in carried.items():  # served from the installed package
            path = "/protocol/" + name.removeprefix(f"echoridge/{CARRIED}/")
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
                assert r.headers["Content-Type"] == DOCUMENT_TYPES[file.suffix], path
                assert r.read() == file.read_bytes(), path
    finally:
        server.terminate()
        server.wait(30)
