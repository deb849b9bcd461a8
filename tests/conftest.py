"""Markers by where a test lives, so part of the suite can be run by kind.

``browser`` (real Chromium or WebKit), ``firmware`` (real MicroPython under
node), ``camera`` (OpenCV on rendered or photographed cards) and ``slow`` (a
whole match or a process run end to end, seconds each) are given here, by
directory or file, rather than in each test; they are registered in
pyproject.toml. ``make test-fast`` runs what none of them marks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

MARKED: dict[str, tuple[str, ...]] = {
    "browser/": ("browser",),
    "browser/test_camera_": ("camera",),
    "firmware/": ("firmware",),
    "camera/": ("camera",),
    "vision/": ("camera",),
    "test_doctor_camera.py": ("camera",),
    "camera/test_card_games.py": ("slow",),
    "camera/test_collector.py": ("slow",),
    "vision/test_designs.py": ("slow",),
    "vision/test_photobench.py": ("slow",),
    "vision/test_bench.py": ("slow",),
    "test_fault_run.py": ("slow",),
    "test_replay_fuzz.py": ("slow",),
    "test_demo.py": ("slow",),
    "service/test_durability.py": ("slow",),
    "service/test_cli.py": ("slow",),
    "inputs/test_doctor.py": ("slow",),
}
"""Markers for every test whose path under tests/ starts with the key."""


def markers_for(relative: str) -> set[str]:
    """The markers a test file at ``relative`` (to tests/, with slashes) gets.

    >>> sorted(markers_for("browser/test_camera_setup_page.py"))
    ['browser', 'camera']
    >>> sorted(markers_for("games/test_star_catcher.py"))
    []
    """
    return {m for prefix, marks in MARKED.items() if relative.startswith(prefix) for m in marks}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        try:
            relative = item.path.resolve().relative_to(TESTS).as_posix()
        except ValueError:  # a doctest in companion/ or vision/
            continue
        for marker in sorted(markers_for(relative)):
            item.add_marker(marker)
