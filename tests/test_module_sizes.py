"""The house keeps its rooms small: no function over 80 lines, no module over 600.

A function's lines run from its ``def`` to its last line, without its
docstring (a long explanation is not a long function). The five rules engines
in ``companion/games/`` may each stay one readable file over 600 lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("companion", "hardware", "vision")
MAX_FUNCTION_LINES = 80
MAX_MODULE_LINES = 600
SIZED_PACKAGES = ("companion", "vision")
"""Where the module limit holds (``hardware/``'s interpreter is one state machine)."""
ENGINES = frozenset(f"companion/games/{name}.py" for name in (
    "catch_mag", "star_catcher", "star_plus", "cant_catch_harry", "collector"))
BEING_SPLIT: frozenset[str] = frozenset()
"""Modules another change of issue 14 splits; drop each name once that change is in."""


def sources(packages: tuple[str, ...]) -> list[tuple[str, Path]]:
    return [(path.relative_to(ROOT).as_posix(), path)
            for package in packages for path in sorted((ROOT / package).rglob("*.py"))]


def function_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """
    >>> tree = ast.parse('def f():\\n    "Why."\\n    return 1\\n')
    >>> function_lines(tree.body[0])
    2
    """
    assert node.end_lineno is not None
    lines = node.end_lineno - node.lineno + 1
    first = node.body[0]
    if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str) and first.end_lineno is not None):
        lines -= first.end_lineno - first.lineno + 1
    return lines


def long_functions(tree: ast.AST) -> list[str]:
    return [f"{node.name} (line {node.lineno}): {function_lines(node)} lines"
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and function_lines(node) > MAX_FUNCTION_LINES]


def test_no_function_is_over_80_lines() -> None:
    found = {name: long for name, path in sources(PACKAGES)
             if name not in BEING_SPLIT
             and (long := long_functions(ast.parse(path.read_text(encoding="utf-8"))))}
    assert found == {}


def test_no_module_is_over_600_lines_but_the_rules_engines() -> None:
    found = {name: lines for name, path in sources(SIZED_PACKAGES)
             if name not in ENGINES | BEING_SPLIT
             and (lines := len(path.read_text(encoding="utf-8").splitlines()))
             > MAX_MODULE_LINES}
    assert found == {}


def test_the_checks_see_a_long_function() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    tree = ast.parse(f'def f():\n    """Why."""\n{body}\n')
    assert long_functions(tree) == ["f (line 1): 81 lines"]
