"""The rules engine stays pure: no I/O, clock, randomness or network modules anywhere in it."""

from __future__ import annotations

import ast
import pathlib

import echoridge_rules

FORBIDDEN = {"asyncio", "websockets", "redis", "structlog", "time", "random", "os", "socket"}
RULES = pathlib.Path(echoridge_rules.__file__).parent


def imported_modules(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "__import__":
            found.add("__import__")
    return found


def forbidden_in(path: pathlib.Path) -> set[str]:
    return {
        name
        for name in imported_modules(path)
        if name.split(".")[0] in FORBIDDEN or name in ("__import__", "importlib")
    }


def test_rules_package_imports_nothing_impure() -> None:
    files = sorted(RULES.rglob("*.py"))
    assert files, "no rules modules found"
    offenders = {str(f.relative_to(RULES)): forbidden_in(f) for f in files}
    assert {f: names for f, names in offenders.items() if names} == {}


def test_the_check_catches_a_forbidden_import(tmp_path: pathlib.Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import os.path\nfrom time import monotonic\nimport json\n")
    assert forbidden_in(bad) == {"os.path", "time"}


def test_transitive_imports_of_the_engine_are_pure() -> None:
    """Everything the engine imports from this project (the protocol primitives) is pure too."""
    import echoridge_protocol.fairness as fairness

    assert forbidden_in(pathlib.Path(fairness.__file__)) == set()
