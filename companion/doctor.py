"""``companion doctor``: is this Pi ready to run the table? One line per check, and a fix.

Each check prints ``NAME: ok`` or ``NAME: problem: WHAT`` followed by
``fix: WHAT TO DO``; the exit status is 0 when everything is ok and 1 when
anything is not. The checks are plain functions grouped by part, one module
each in :mod:`companion.checks` (the machine, the board, the camera); a group
takes a :class:`DoctorContext` and yields :class:`Check` results as it goes, so
a slow or interactive check shows progress. This module is the command: its
options, the groups it runs (:data:`CHECK_GROUPS`) and the summary.

>>> [group.__name__ for group in CHECK_GROUPS]
['python_checks', 'config_checks', 'board_checks', 'camera_checks']
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from companion.checks import Check, CheckGroup, DoctorContext
from companion.checks.board import INTERACTIVE_SENSORS, board_checks, check_firmware
from companion.checks.camera import camera_checks
from companion.checks.system import check_modules, config_checks, python_checks
from companion.config import (
    BOARD_SOURCES,
    CAMERA_SOURCES,
    CompanionConfig,
    ConfigError,
    add_config_option,
    find_config,
    load_config,
)
from companion.inputs import input_overrides

CHECK_GROUPS: tuple[CheckGroup, ...] = (python_checks, config_checks, board_checks, camera_checks)
"""Every group ``companion doctor`` runs, in order."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion doctor",
        description="Check that this machine is ready to run the table: Python and packages, "
                    "the configuration, the data folder, the port, and the Catch Mag board "
                    "(device, link, firmware, set-up). Exit 0 when all is ok, 1 otherwise.",
    )
    add_config_option(parser)
    parser.add_argument("--board", default=None, metavar="SOURCE",
                        help=f"the board to check instead of the configured one: {BOARD_SOURCES}")
    parser.add_argument("--camera", default=None, metavar="SOURCE",
                        help="the camera to check instead of the configured one: "
                             f"{CAMERA_SOURCES}")
    parser.add_argument("--interactive", action="store_true",
                        help="also test sensors by hand: you are asked to lift and put back "
                             "a magnet on each one named by --sensors")
    parser.add_argument("--sensors", default=",".join(INTERACTIVE_SENSORS),
                        help="with --interactive: comma-separated sensor ids, or 'all' "
                             f"(default: {','.join(INTERACTIVE_SENSORS)})")
    parser.add_argument("--seconds", type=float, default=10.0,
                        help="how long to wait for the board to answer, and for each move "
                             "asked for with --interactive (default 10)")
    return parser


def context_from(args: argparse.Namespace, out: TextIO) -> DoctorContext:
    path = find_config(args.config)
    config, error = _load_config(path, input_overrides(args.board, args.camera))
    sensors = tuple(s.strip() for s in args.sensors.split(",") if s.strip())
    return DoctorContext(config=config, config_path=path, config_error=error,
                         seconds=args.seconds, interactive=args.interactive, sensors=sensors,
                         out=out)


def _load_config(path: Path | None, overrides: dict[str, dict[str, object]]
                 ) -> tuple[CompanionConfig, str | None]:
    """The configuration in ``path``; the defaults and what is wrong with the file when it
    cannot be used (the checks go on with the defaults)."""
    try:
        return load_config(path, **overrides), None
    except ConfigError as exc:
        return load_config(None, **overrides), str(exc)


def run(context: DoctorContext, groups: Sequence[CheckGroup] = CHECK_GROUPS) -> int:
    """Run every group, printing each result as it comes; 0 if all are ok, else 1."""
    problems = 0
    for group in groups:
        try:
            for check in group(context):
                print(check.line(), file=context.out, flush=True)
                problems += not check.ok
        except Exception as exc:  # a broken check is itself a problem, never a traceback
            problems += 1
            print(Check(group.__name__, False, f"the check failed: {type(exc).__name__}: {exc}",
                        "report this with the output above").line(),
                  file=context.out, flush=True)
    for note in context.notes:
        print(f"note: {note}", file=context.out)
    summary = "all checks ok" if not problems else f"{problems} problem(s) found"
    print(summary, file=context.out, flush=True)
    return 1 if problems else 0


def main(argv: list[str], out: TextIO | None = None) -> int:
    """``companion doctor [--config FILE] [--board SOURCE] [--camera SOURCE] [--interactive]
    [--seconds N]``."""
    args = build_parser().parse_args(argv)
    stream = out or sys.stdout
    if args.seconds <= 0:
        print("companion doctor: --seconds must be a positive number, e.g. 10", file=sys.stderr)
        return 2
    try:
        context = context_from(args, stream)
    except ConfigError as exc:  # the environment itself is bad (TABLE_COMPANION_...)
        print(f"companion doctor: {exc}", file=sys.stderr)
        return 2
    return run(context)


__all__ = [  # what the checks' callers and tests import from here
    "CHECK_GROUPS",
    "Check",
    "CheckGroup",
    "DoctorContext",
    "build_parser",
    "check_firmware",
    "check_modules",
    "context_from",
    "main",
    "run",
]


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
