"""axe-core (npm, tests/browser/js) run inside a real page: the serious and critical
accessibility violations it finds, as short readable lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

AXE_JS = Path(__file__).parent / "js" / "node_modules" / "axe-core" / "axe.min.js"
SERIOUS = ("serious", "critical")

# Run on the whole document; everything axe checks by default (WCAG 2.x A/AA and best practice).
RUN_AXE = """async () => {
  const result = await window.axe.run(document, {resultTypes: ["violations"]});
  return result.violations.map((v) => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({target: n.target.join(" "), summary: n.failureSummary}))}));
}"""


def axe_source() -> str:
    if not AXE_JS.exists():
        raise FileNotFoundError(
            f"{AXE_JS} is missing: run npm ci --prefix tests/browser/js (make pytest does)")
    return AXE_JS.read_text(encoding="utf-8")


def serious(violations: list[dict[str, Any]]) -> list[str]:
    """One line per serious or critical violation node: rule, element, what failed."""
    lines = []
    for v in violations:
        if v["impact"] in SERIOUS:
            for node in v["nodes"]:
                summary = " ".join(str(node["summary"]).split())[:200]
                lines.append(f"{v['id']} ({v['impact']}) at {node['target']}: {summary}")
    return lines


def axe_violations(page: Any) -> list[str]:
    """The serious/critical violations on a Playwright page as it is now."""
    if not page.evaluate("() => !!window.axe"):
        page.add_script_tag(content=axe_source())
    result: list[dict[str, Any]] = page.evaluate(RUN_AXE)
    return serious(result)
