"""The ``companion`` command.

``companion replay LOG`` follows the table-log contract: one JSON object on
standard output, or exit status 2 and one ``line N: ...`` line on standard
error. No input ever produces a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from companion import __version__, strictjson
from companion.games.match import Match
from companion.tablelog import LogError, apply_line, no_events, parse_lines, replay

EXIT_BAD_INPUT = 2


MAX_LOG_BYTES = strictjson.MAX_BYTES
"""The largest table log read; a long match's log is well under a tenth of it."""


class LogTooLarge(ValueError):
    pass


def _read_lines(path: str) -> list[bytes]:
    """The log's lines, read up to :data:`MAX_LOG_BYTES` (``/dev/zero`` never ends)."""
    if path == "-":
        data = sys.stdin.buffer.read(MAX_LOG_BYTES + 1)
    else:
        with Path(path).open("rb") as file:
            data = file.read(MAX_LOG_BYTES + 1)
    if len(data) > MAX_LOG_BYTES:
        raise LogTooLarge(
            f"{path} is larger than {MAX_LOG_BYTES // 1_000_000} MB; a table log is one "
            "match's events, one JSON object per line"
        )
    return data.split(b"\n")


def _human_totals(totals: dict[str, int]) -> str:
    return ", ".join(f"{player} {points}" for player, points in totals.items())


def cmd_replay(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        lines = _read_lines(args.log)
    except OSError as error:
        print(f"companion replay: cannot read {args.log}: {error.strerror or error}", file=err)
        return EXIT_BAD_INPUT
    except LogTooLarge as error:
        print(f"companion replay: {error}", file=err)
        return EXIT_BAD_INPUT
    if not args.trace:
        try:
            match = replay(lines)
        except LogError as error:
            print(error, file=err)
            return EXIT_BAD_INPUT
        print(json.dumps(match.summary(), ensure_ascii=False), file=out)
        return 0
    return _trace(lines, out, err)


def _trace(lines: list[bytes], out: TextIO, err: TextIO) -> int:
    """Replay event by event, printing each as it is applied, so the line where
    a score went wrong (or the log broke) is plain to see."""
    match: Match | None = None
    try:
        for entry in parse_lines(lines):
            started = match is None
            match = apply_line(match, entry)
            line = (
                f"{match.rules.title} for {', '.join(match.players)} (clockwise)"
                if started
                else match.describe_last()
            )
            print(f"line {entry.number}: {line}", file=out)
        if match is None:
            raise no_events()
    except LogError as error:
        print(error, file=err)
        return EXIT_BAD_INPUT
    summary = match.summary()
    state = "finished" if summary["finished"] else f"next: {summary['turn'] or 'no turn'}"
    result = f"round {summary['round']}, {state}; totals {_human_totals(summary['totals'])}"
    if summary["winners"]:
        result += f"; won by {', '.join(summary['winners'])}"
    print(f"Result: {result}", file=out)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="Table Companion: scores and turn order for a real game table.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    replay_cmd = commands.add_parser(
        "replay",
        help="replay a table log and print the result as JSON",
        description="Replay a table log (JSON Lines) and print one JSON object: game, players, "
        "round, turn, totals, finished, winners and the game's own state. Exit 2 with "
        "'line N: ...' on the first bad event.",
    )
    replay_cmd.add_argument("log", metavar="LOG", help="the table log file, or - for stdin")
    replay_cmd.add_argument(
        "--trace",
        action="store_true",
        help="print one human line per event (who did what, what it scored) instead of JSON",
    )
    replay_cmd.set_defaults(handler=cmd_replay)

    # Commands with their own option parsers, imported only when used (so `replay`
    # never loads the web service or OpenCV).
    for name, summary in DELEGATED.items():
        delegated = commands.add_parser(name, help=summary[1], add_help=False)
        delegated.add_argument("rest", nargs=argparse.REMAINDER)
    return parser


DELEGATED: dict[str, tuple[str, str]] = {
    "serve": ("companion.serve", "run the table: live scoreboard and entry for every phone"),
    "pin": ("companion.service.pin_command", "print the table PIN phones enter, or set a new one"),
    "doctor": ("companion.doctor", "check this machine, the configuration and the Catch Mag board"),
    "vision": ("vision.cli", "cards and the camera: enroll a deck, detect cards in images, bench"),
    "backup": ("companion.service.backup", "copy the table's history now into its backups folder"),
    "restore": ("companion.service.restore",
                "put a backup of the table's history back (the damaged files are kept aside)"),
}


def _delegate(name: str, argv: list[str]) -> int:
    module = importlib.import_module(DELEGATED[name][0])
    code: int = module.main(argv)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        if arguments and arguments[0] in DELEGATED:
            return _delegate(arguments[0], arguments[1:])
        args = parser.parse_args(arguments)
        code: int = args.handler(args, sys.stdout, sys.stderr)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`companion replay --trace log | head`): not an error worth a
        # traceback. Point stdout at devnull so the interpreter's final flush stays quiet.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    return code


if __name__ == "__main__":
    sys.exit(main())
