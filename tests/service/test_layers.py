"""The service's layering: nothing in ``companion/service/`` imports an input, the
hardware or the vision code, so the web service runs (and is tested) without a
serial port or OpenCV. The command that starts it (``companion/serve.py``) is the one
place that builds inputs and hands them in."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import companion

COMPANION = Path(companion.__file__).parent
SERVICE = COMPANION / "service"

KEPT_OUT = ("companion.inputs", "hardware", "vision", "cv2", "numpy", "serial", "gpiozero")
"""What the service must not import, at the top of a module or inside a function."""


def imported_modules(path: Path) -> set[str]:
    """Every module the file at ``path`` (inside ``companion/``) imports."""
    package = ".".join(path.relative_to(COMPANION.parent).with_suffix("").parts[:-1])
    return modules_in(path.read_text(encoding="utf-8"), package)


def modules_in(source: str, package: str) -> set[str]:
    """Every module ``source`` imports, relative imports resolved against ``package``;
    for ``from a import b`` both ``a`` and ``a.b`` (``b`` may be a module)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parent = parts[: len(parts) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def forbidden(path: Path) -> list[str]:
    return sorted(name for name in imported_modules(path)
                  if any(name == kept or name.startswith(kept + ".") for kept in KEPT_OUT))


SERVICE_MODULES = sorted(SERVICE.rglob("*.py"))


def test_the_service_has_modules_to_check() -> None:
    names = {p.relative_to(SERVICE).as_posix() for p in SERVICE_MODULES}
    assert {"app.py", "routes/camera.py", "controls.py"} <= names


@pytest.mark.parametrize("path", SERVICE_MODULES,
                         ids=[p.relative_to(SERVICE).as_posix() for p in SERVICE_MODULES])
def test_no_service_module_imports_an_input_hardware_or_vision(path: Path) -> None:
    assert forbidden(path) == [], (
        f"{path.relative_to(COMPANION.parent)} imports {forbidden(path)}: the service is "
        "given its inputs by companion/serve.py (see docs/architecture.md)")


def test_the_check_sees_the_composition_roots_imports() -> None:
    # The serve command builds the inputs: the same check finds that import there, and
    # the camera input's lazy OpenCV-side imports inside functions.
    assert "companion.inputs" in forbidden(COMPANION / "serve.py")
    assert any(name.startswith("vision") for name in
               forbidden(COMPANION / "inputs" / "camera" / "__init__.py"))


def test_imports_in_functions_and_relative_ones_count() -> None:
    source = ("from .. import inputs\n"
              "def later() -> None:\n"
              "    from ..inputs.camera import CameraFeed\n"
              "    import cv2\n")
    found = modules_in(source, "companion.service")
    assert {"companion.inputs", "companion.inputs.camera", "cv2"} <= found


TABLE_INTERNALS = frozenset({"session", "store", "loop", "hub", "_publish", "_commit"})
"""What an input must not reach into: it goes through ``TableService``'s methods (the
current match, the data directory, running) and ``companion.inputs.feed.TableLink``."""


def internals_read(source: str) -> list[str]:
    """``x.session``, ``table.store``... read on anything but ``self`` (an input may have a
    store of its own)."""
    return sorted(
        f"{ast.unparse(node.value)}.{node.attr}" for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute) and node.attr in TABLE_INTERNALS
        and not (isinstance(node.value, ast.Name) and node.value.id == "self"))


@pytest.mark.parametrize("path", sorted((COMPANION / "inputs").rglob("*.py")),
                         ids=lambda p: str(p.relative_to(COMPANION)))
def test_no_input_reaches_into_the_table_service(path: Path) -> None:
    assert internals_read(path.read_text(encoding="utf-8")) == []


def test_the_internals_check_sees_a_session_read() -> None:
    source = "def f(table):\n    return len(table.session.match().entries), self.store\n"
    assert internals_read(source) == ["table.session"]
