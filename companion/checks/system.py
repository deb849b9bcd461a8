"""The machine's checks: Python and packages, the configuration, the data folder, the port."""

from __future__ import annotations

import importlib
import os
import socket
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from companion.checks import Check, DoctorContext

MIN_PYTHON = (3, 11)
REQUIRED_MODULES: tuple[tuple[str, str], ...] = (
    ("fastapi", "fastapi"), ("uvicorn", "uvicorn"), ("pydantic", "pydantic"),
    ("pydantic_settings", "pydantic-settings"), ("serial", "pyserial"),
    ("gpiozero", "gpiozero"), ("numpy", "numpy"), ("cv2", "opencv-python-headless"),
    ("segno", "segno"), ("zeroconf", "zeroconf"),
)
"""(module to import, package to install) for everything ``companion serve`` loads."""


def python_checks(context: DoctorContext) -> Iterator[Check]:
    yield check_python(sys.version_info[:3])
    yield check_modules(REQUIRED_MODULES)


def check_python(version: tuple[int, ...]) -> Check:
    """
    >>> check_python((3, 9, 2)).ok
    False
    """
    shown = ".".join(str(v) for v in version)
    if tuple(version[:2]) >= MIN_PYTHON:
        return Check("python", True, shown)
    need = ".".join(str(v) for v in MIN_PYTHON)
    return Check("python", False, f"Python {shown} is too old; the companion needs {need} or later",
                 f"install Python {need}+ (Raspberry Pi OS bookworm has 3.11) and recreate the "
                 "virtualenv with it")


def check_modules(modules: Iterable[tuple[str, str]]) -> Check:
    missing: list[str] = []
    broken: list[str] = []
    names: list[str] = []
    for module, package in modules:
        names.append(package)
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(package)
        except Exception as exc:  # a package that is there but fails to load (a missing .so)
            broken.append(f"{package} ({type(exc).__name__}: {exc})")
    if not missing and not broken:
        return Check("packages", True, ", ".join(names))
    parts = []
    if missing:
        parts.append("not installed: " + ", ".join(missing))
    if broken:
        parts.append("installed but failing to import: " + "; ".join(broken))
    return Check("packages", False, "; ".join(parts),
                 f".venv/bin/pip install {' '.join(missing or [b.split()[0] for b in broken])} "
                 "(or reinstall the companion: .venv/bin/pip install -e .)")


def config_checks(context: DoctorContext) -> Iterator[Check]:
    where = str(context.config_path) if context.config_path else "no file (defaults)"
    if context.config_error is not None:
        yield Check("configuration", False, context.config_error,
                    "correct the file (every key is in docs/configuration.md); the checks "
                    "below use the defaults meanwhile")
    else:
        yield Check("configuration", True, where)
    yield check_data_dir(context.config.table.data_dir)
    yield check_port(context.config.table.host, context.config.table.port)


def check_data_dir(path: Path) -> Check:
    """The table's SQLite file can be created and written in ``path``."""
    fix_owner = (f"create it and give it to the user the service runs as: sudo mkdir -p {path} "
                 f"&& sudo chown $USER {path} (or set [table] data_dir)")
    if path.exists() and not path.is_dir():
        return Check("data folder", False, f"{path} is a file, not a folder", fix_owner)
    if not path.exists():
        parent = next((p for p in path.parents if p.exists()), Path("/"))
        if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
            return Check("data folder", False,
                         f"{path} does not exist and cannot be created in {parent}", fix_owner)
        return Check("data folder", True,
                     f"{path.absolute()} will be created on the first start")
    try:
        with tempfile.NamedTemporaryFile(dir=path, prefix=".doctor-"):
            pass
    except OSError as exc:
        return Check("data folder", False, f"cannot write in {path} ({exc.strerror or exc})",
                     fix_owner)
    database = path / "table.sqlite3"
    if database.exists() and not os.access(database, os.R_OK | os.W_OK):
        return Check("data folder", False, f"{database} is not readable and writable",
                     f"sudo chown $USER {database}")
    return Check("data folder", True, str(path.absolute()))


def check_port(host: str, port: int) -> Check:
    """Whether ``companion serve`` could listen on ``host:port`` now."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
        with socket.socket(family, kind, proto) as sock:
            # as uvicorn does, so a connection in TIME_WAIT is no false alarm
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)
    except OSError as exc:
        return Check("port", False, f"cannot listen on {host}:{port} ({exc.strerror or exc})",
                     "stop the program using it (is companion serve already running? "
                     "systemctl status table-companion) or choose another [table] port")
    return Check("port", True, f"{host}:{port} is free")
