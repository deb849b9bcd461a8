#!/usr/bin/env python3
"""Keep the service's venv from shadowing the system's camera stack.

The service venv is made with ``--system-site-packages`` so that Raspberry Pi OS's
picamera2 (and lgpio) are visible in it. Left alone, pip would install the newest numpy into
the venv; the venv's copy then comes first on ``sys.path``, and the system's compiled modules
built against the system's numpy (simplejpeg, which picamera2 imports) fail with
"numpy.dtype size changed, may indicate binary incompatibility".

Two modes; deploy/install.sh runs both:

    python3 deploy/system_constraints.py > constraints.txt     # with the system's python3
    pip install -c constraints.txt -e /opt/table-companion     # pip keeps the system's copies
    .venv/bin/python deploy/system_constraints.py --check constraints.txt   # inside the venv

The constraints pin each of these to the version the system has installed:

- numpy, whenever the system has it: every compiled Python module of the distribution is
  built against it (python3-pywt on Debian, simplejpeg on Raspberry Pi OS);
- every compiled distribution (one that ships extension modules) that importing the camera
  stack (``picamera2``) loads from the system's site directories.

A pure-Python package is not pinned: a newer copy in the venv cannot break a compiled system
module, and pinning one could make the companion's own requirements unsatisfiable (Debian 12's
typing_extensions is older than pydantic 2 needs).

``--check`` runs inside the venv: every pinned distribution must be the system's copy (not
one inside the venv) at the pinned version, and the camera stack must import. Standard
library only: it runs before anything is installed.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import re
import site
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

CAMERA_STACK = ("picamera2",)
"""The system modules the companion uses through --system-site-packages for the camera."""
ABI_ROOTS = ("numpy",)
"""Pinned whenever the system has them: compiled system modules are built against them."""
VERSION = re.compile(r"^[0-9]+(\.[0-9]+)*((a|b|rc)[0-9]+)?(\.post[0-9]+)?(\.dev[0-9]+)?$")
"""A plain public PEP 440 version; anything else (a Debian-mangled string) is left unpinned."""

PROBE = """
import importlib, json, sys
args = json.loads(sys.argv[1])
sys.path[:0] = [d for d in args["sites"] if d not in sys.path]
errors = {}
for name in args["modules"]:
    try:
        importlib.import_module(name)
    except Exception as exc:
        errors[name] = f"{type(exc).__name__}: {exc}"
files = {n: getattr(m, "__file__", None) for n, m in list(sys.modules.items())}
with open(args["out"], "w", encoding="utf-8") as out:
    json.dump({"errors": errors, "files": {n: f for n, f in files.items() if f}}, out)
"""


def system_site_dirs() -> list[str]:
    """The system interpreter's site directories that exist (Debian: the dist-packages)."""
    return [d for d in site.getsitepackages() if os.path.isdir(d)]


def import_probe(modules: Sequence[str], sites: Sequence[str]) -> tuple[set[str], dict[str, str]]:
    """Import ``modules`` in a fresh interpreter; the top-level names it loaded from ``sites``,
    and the modules that failed to import (name -> "Error: message")."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "probe.json"
        args = json.dumps({"sites": list(sites), "modules": list(modules), "out": str(out)})
        subprocess.run([sys.executable, "-I", "-c", PROBE, args], check=True, timeout=120,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        found = json.loads(out.read_text(encoding="utf-8"))
    roots = tuple(str(Path(s).resolve()) + os.sep for s in sites)
    loaded = {name.partition(".")[0] for name, path in found["files"].items()
              if str(Path(path).resolve()).startswith(roots)}
    return loaded, dict(found["errors"])


def top_level_names(dist: importlib.metadata.Distribution) -> set[str]:
    """The importable top-level names a distribution provides."""
    listed = dist.read_text("top_level.txt")
    if listed:
        return {line.strip() for line in listed.splitlines() if line.strip()}
    names = set()
    for file in dist.files or ():
        first = file.parts[0]
        if first.endswith((".dist-info", ".egg-info", ".data")) or first in ("..", "__pycache__"):
            continue
        names.add(first.split(".")[0])
    return names


def is_compiled(site_dir: Path, names: Iterable[str]) -> bool:
    """Whether any of the top-level names ships an extension module in ``site_dir``."""
    for name in names:
        if any(site_dir.glob(f"{name}.*.so")) or any(site_dir.glob(f"{name}.so")):
            return True
        package = site_dir / name
        if package.is_dir() and any(package.rglob("*.so")):
            return True
    return False


def constraints(sites: Sequence[str], modules: Sequence[str] = CAMERA_STACK,
                warn: list[str] | None = None) -> list[str]:
    """``name==version`` for every system distribution the venv must not shadow."""
    loaded, errors = import_probe(modules, sites)
    for module, error in errors.items():
        absent = error.startswith(f"ModuleNotFoundError: No module named '{module}'")
        if not absent and warn is not None:
            warn.append(f"importing {module} with the system's python failed: {error}")
    pins: dict[str, str] = {}
    for dist in importlib.metadata.distributions(path=list(sites)):
        name, version = dist.metadata["Name"], dist.version
        if not name or name.lower() in (p.lower() for p in pins):
            continue
        names = top_level_names(dist)
        site_dir = Path(str(dist.locate_file("")))
        wanted = (name.lower() in ABI_ROOTS or bool(names & set(ABI_ROOTS))
                  or (bool(names & loaded) and is_compiled(site_dir, names)))
        if not wanted:
            continue
        if VERSION.match(version):
            pins[name] = version
        elif warn is not None:
            warn.append(f"{name} {version}: not a version pip understands; left unpinned")
    return [f"{name}=={pins[name]}" for name in sorted(pins, key=str.lower)]


def read_pins(path: Path) -> list[tuple[str, str]]:
    pins = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins.append((name.strip(), version.strip()))
    return pins


def check(path: Path, modules: Sequence[str] = CAMERA_STACK) -> list[str]:
    """Problems in the running (venv) interpreter: a pinned distribution shadowed or at another
    version, or a camera-stack module that the system has but that does not import."""
    problems = []
    venv = str(Path(sys.prefix).resolve()) + os.sep
    for name, version in read_pins(path):
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            problems.append(f"{name} is pinned but not installed")
            continue
        where = str(Path(str(dist.locate_file(""))).resolve()) + os.sep
        if sys.prefix != sys.base_prefix and where.startswith(venv):
            problems.append(f"the venv has its own {name} {dist.version} in {where}, which "
                            f"shadows the system's {name} {version}")
        elif dist.version != version:
            problems.append(f"{name} is {dist.version} here; the system's is {version}")
    for module in modules:
        try:
            __import__(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                problems.append(f"import {module}: {exc}")
        except Exception as exc:  # an ABI mismatch raises ValueError, others ImportError
            problems.append(f"import {module}: {type(exc).__name__}: {exc}")
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", action="append", metavar="DIR",
                        help="a system site directory (default: this python's own)")
    parser.add_argument("--module", action="append", metavar="NAME",
                        help="a camera-stack module to import (default: "
                        f"{', '.join(CAMERA_STACK)})")
    parser.add_argument("--check", type=Path, metavar="CONSTRAINTS",
                        help="inside the venv: verify that nothing pinned in CONSTRAINTS is "
                        "shadowed")
    args = parser.parse_args(argv)
    modules = tuple(args.module or CAMERA_STACK)
    if args.check is not None:
        problems = check(args.check, modules)
        for problem in problems:
            print(f"camera stack: problem: {problem}", file=sys.stderr)
        if problems:
            print("  fix: run deploy/install.sh again (it pins the system's numpy); see "
                  "docs/raspberry-pi.md, 'The camera stack'", file=sys.stderr)
            return 1
        print("camera stack: ok (nothing the system's camera modules need is shadowed)")
        return 0
    warnings: list[str] = []
    lines = constraints(args.site or system_site_dirs(), modules, warnings)
    for warning in warnings:
        print(f"system_constraints: {warning}", file=sys.stderr)
    print("# The system's own versions of what its camera stack is built against "
          "(deploy/system_constraints.py)")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
