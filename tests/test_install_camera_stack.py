"""The Pi install keeps the system's camera stack working and installs the runtime only.

The service venv sees the system's packages (--system-site-packages) for picamera2 and
lgpio; deploy/system_constraints.py pins the system's numpy (and any compiled module the
camera stack loads) so that pip never puts a second copy in the venv that would shadow it.
A stand-in system site (Debian's numpy 1.24.2 as an egg-info, a compiled simplejpeg, a pure
picamera2) plays the Pi's /usr/lib/python3/dist-packages; pip's resolver is the real one.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
DEV_TOOLS = ("pytest", "hypothesis", "mypy", "ruff", "playwright", "httpx", "pytest-timeout")
"""Development tools that must never reach the venv that runs the table."""
DEBIAN_12_NUMPY = "1.24.2"
"""python3-numpy in Debian 12 and Raspberry Pi OS Bookworm, which picamera2 is built with."""


def load_constraints_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("system_constraints",
                                                  DEPLOY / "system_constraints.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


system_constraints = load_constraints_module()


def dist(site: Path, name: str, version: str, files: dict[str, str], *,
         egg_info: bool = False, requires: tuple[str, ...] = ()) -> None:
    """A distribution installed in ``site``; ``.so`` files stand for extension modules."""
    for relative, text in files.items():
        path = site / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    top = sorted({relative.split("/")[0].split(".")[0] for relative in files})
    if egg_info:  # how Debian ships numpy: an egg-info with top_level.txt, no file list
        info = site / f"{name}-{version}.egg-info"
        info.mkdir()
        (info / "PKG-INFO").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    else:
        info = site / f"{name}-{version}.dist-info"
        info.mkdir()
        metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        metadata += "".join(f"Requires-Dist: {r}\n" for r in requires)
        (info / "METADATA").write_text(metadata)
    (info / "top_level.txt").write_text("\n".join(top) + "\n")


@pytest.fixture
def pi_site(tmp_path: Path) -> Path:
    """Raspberry Pi OS Bookworm's dist-packages, as far as the camera stack goes."""
    site = tmp_path / "dist-packages"
    dist(site, "numpy", DEBIAN_12_NUMPY, {
        "numpy/__init__.py": "__version__ = '1.24.2'\n",
        "numpy/core/_multiarray_umath.cpython-311-aarch64-linux-gnu.so": "",
    }, egg_info=True)
    dist(site, "simplejpeg", "1.6.6", {
        "simplejpeg/__init__.py": "import numpy\n",
        "simplejpeg/_jpeg.cpython-311-aarch64-linux-gnu.so": "",
    }, requires=("numpy",))
    dist(site, "typing_extensions", "4.4.0", {"typing_extensions.py": ""})
    dist(site, "picamera2", "0.3.25", {
        "picamera2/__init__.py": "import simplejpeg\nimport typing_extensions\n",
    }, requires=("numpy", "simplejpeg"))
    # installed but not part of the camera stack, and older than the companion needs
    dist(site, "pydantic", "1.10.4", {"pydantic/__init__.py": "", "pydantic/main.so": ""})
    return site


def pins_for(site: Path) -> list[str]:
    warnings: list[str] = []
    pins: list[str] = system_constraints.constraints([str(site)], warn=warnings)
    assert warnings == []
    return pins


def test_the_system_numpy_and_compiled_camera_modules_are_pinned(pi_site: Path) -> None:
    # numpy (every compiled system module is built against it) and simplejpeg (compiled,
    # loaded by picamera2); not picamera2 or typing_extensions (pure Python, no ABI to
    # break), nor pydantic 1 (not the camera stack's, and the companion needs pydantic 2)
    assert pins_for(pi_site) == [f"numpy=={DEBIAN_12_NUMPY}", "simplejpeg==1.6.6"]


def test_without_picamera2_the_system_numpy_is_still_kept(tmp_path: Path) -> None:
    # plain Debian: python3-pywt and friends are built against the system's numpy too
    site = tmp_path / "dist-packages"
    dist(site, "numpy", DEBIAN_12_NUMPY, {"numpy/__init__.py": "", "numpy/core/x.so": ""},
         egg_info=True)
    assert pins_for(site) == [f"numpy=={DEBIAN_12_NUMPY}"]


def test_a_system_without_numpy_pins_nothing(tmp_path: Path) -> None:
    site = tmp_path / "dist-packages"
    site.mkdir()
    assert pins_for(site) == []


def test_the_runtime_requirements_accept_the_system_numpy() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    numpy = next(Requirement(r) for r in project["dependencies"] if r.startswith("numpy"))
    assert numpy.specifier.contains(DEBIAN_12_NUMPY), (
        f"{numpy} cannot use Debian 12's numpy: pip would shadow it in the Pi's service venv")


def test_the_service_venv_would_not_shadow_the_system_camera_stack(
    pi_site: Path, tmp_path: Path
) -> None:
    """pip's own resolver, given the pins: the runtime it would install keeps the system's
    numpy (so nothing shadows it) and carries no development tools."""
    constraints = tmp_path / "system-constraints.txt"
    constraints.write_text("\n".join(pins_for(pi_site)) + "\n")
    report = tmp_path / "report.json"
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
         "--report", str(report), "-c", str(constraints), f"{ROOT}[pi]"],
        capture_output=True, text=True, timeout=600, check=False,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    chosen = {item["metadata"]["name"].lower(): item["metadata"]["version"]
              for item in json.loads(report.read_text())["install"]}
    # --ignore-installed lists numpy; in the venv the system's copy already satisfies it
    assert chosen["numpy"] == DEBIAN_12_NUMPY
    assert "opencv-python-headless" in chosen and "lgpio" in chosen
    assert not set(DEV_TOOLS) & set(chosen), sorted(set(DEV_TOOLS) & set(chosen))


def test_check_finds_a_venv_copy_that_shadows_the_system(tmp_path: Path) -> None:
    # the test suite's own venv has its own numpy: exactly what the service venv must not
    import numpy

    constraints = tmp_path / "c.txt"
    constraints.write_text(f"numpy=={numpy.__version__}\n")
    problems = system_constraints.check(constraints, modules=())
    if sys.prefix == sys.base_prefix:
        pytest.skip("the suite runs outside a venv")
    assert len(problems) == 1 and "the venv has its own numpy" in problems[0]


def test_check_accepts_the_system_copy_and_reports_a_camera_stack_that_breaks(
    pi_site: Path, tmp_path: Path
) -> None:
    constraints = tmp_path / "c.txt"
    constraints.write_text("simplejpeg==1.6.6\n")
    (pi_site / "broken_camera").mkdir()
    (pi_site / "broken_camera/__init__.py").write_text(
        "raise ValueError('numpy.dtype size changed, may indicate binary incompatibility')\n")
    result = subprocess.run(
        [sys.executable, str(DEPLOY / "system_constraints.py"), "--check", str(constraints),
         "--module", "broken_camera", "--module", "absent_camera"],
        capture_output=True, text=True, timeout=60, check=False,
        env={**os.environ, "PYTHONPATH": str(pi_site)},
    )
    assert result.returncode == 1
    # simplejpeg comes from the system site: fine; a module the system lacks is no problem
    assert result.stderr.count("camera stack: problem:") == 1
    assert "import broken_camera: ValueError: numpy.dtype size changed" in result.stderr
    assert "fix: run deploy/install.sh again" in result.stderr
