"""axe-core (the copy bundled by the axe-playwright-python package) run on a page: no critical
or serious violation is allowed. The page's Content-Security-Policy does not apply to
Playwright's evaluate, so axe is injected as it is."""

from __future__ import annotations

from typing import Any

BLOCKING = {"critical", "serious"}
# Besides axe's default rules: a control's accessible name starts with (contains) the words it
# shows (WCAG 2.5.3, an experimental rule of axe's, off by default).
OPTIONS = {
    "resultTypes": ["violations"],
    "rules": {"label-content-name-mismatch": {"enabled": True}},
}


def violations(page: Any, context: Any = None) -> list[dict[str, Any]]:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page, context=context, options=OPTIONS)
    return [v for v in results.response["violations"] if v.get("impact") in BLOCKING]


def summary(found: list[dict[str, Any]]) -> str:
    lines = []
    for v in found:
        lines.append(f"{v['impact']} {v['id']}: {v['help']}")
        for node in v["nodes"][:5]:
            lines.append(f"    {node['target']}: {node.get('failureSummary', '')[:300]}")
    return "\n".join(lines)


def assert_accessible(page: Any, what: str) -> None:
    found = violations(page)
    assert not found, f"axe on {what}:\n{summary(found)}"
