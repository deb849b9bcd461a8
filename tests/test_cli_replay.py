"""``companion replay`` as a user runs it: a real process, real files."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.games import GAME_IDS
from companion.tablelog import dump
from tests.playouts import random_match

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", *args],
        input=stdin.decode() if stdin is not None else None,
        capture_output=True,
        text=True,
        timeout=60,
    )


def assert_contract_error(result: subprocess.CompletedProcess[str], line: int) -> None:
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"line {line}: "), lines[0]
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_replay_prints_one_json_object(game_id: str) -> None:
    result = run("replay", str(EXAMPLES / f"{game_id}.jsonl"))
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    summary = json.loads(result.stdout)
    assert summary["game"] == game_id
    assert summary["finished"] is True
    assert summary["turn"] is None
    assert set(summary["winners"]) <= set(summary["players"])
    assert set(summary["totals"]) == set(summary["players"])


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_trace_prints_a_line_per_event(game_id: str, tmp_path: Path) -> None:
    _, log = random_match(game_id, 5)
    path = tmp_path / "match.jsonl"
    path.write_text("# a comment\n\n" + dump(log))
    result = run("replay", "--trace", str(path))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    # Two leading lines are skipped; every event is reported with its own line number.
    assert [ln.split(":")[0] for ln in lines[:-1]] == [f"line {n}" for n in range(3, 3 + len(log))]
    assert lines[-1].startswith("Result: ")
    assert "won by" in lines[-1]


def test_illegal_event_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(
        '{"type": "setup", "game": "catch-mag", "players": ["Ann", "Ben"]}\n'
        "\n"
        '{"type": "roll", "player": "Ben", "value": 3}\n'
    )
    result = run("replay", str(path))
    assert_contract_error(result, 3)
    assert "Ann" in result.stderr  # it says whose turn it was


def test_trace_shows_what_went_right_before_the_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(
        '{"type": "setup", "game": "catch-mag", "players": ["Ann", "Ben"]}\n'
        '{"type": "roll", "player": "Ann", "value": 9}\n'
    )
    result = run("replay", "--trace", str(path))
    assert result.returncode == 2
    assert result.stdout.startswith("line 1: Catch Mag for Ann, Ben")
    assert result.stderr.startswith("line 2: ")


@pytest.mark.parametrize(
    ("content", "line"),
    [
        (b"", 1),
        (b"# only a comment\n\n", 1),
        (b'{"type": "setup", "game": "chess", "players": ["A", "B"]}\n', 1),
        (b'{"type": "setup", "game": "collector"', 1),
        (b"\n[1, 2]\n", 2),
        (b'{"type": "setup", "game": "star-plus", "players": ["A", "B"]}\n\xff\xfe\n', 2),
        (b'{"type": "setup", "game": "star-plus", "players": ["A", "B"]}\n{"type": "nap"}\n', 2),
        (b'{"type": "setup", "game": "star-plus", "players": ["A", "B"], "first": NaN}\n', 1),
    ],
)
def test_unreadable_logs(tmp_path: Path, content: bytes, line: int) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(content)
    assert_contract_error(run("replay", str(path)), line)


def test_missing_file_is_a_plain_error(tmp_path: Path) -> None:
    result = run("replay", str(tmp_path / "nope.jsonl"))
    assert result.returncode == 2
    assert "cannot read" in result.stderr and "Traceback" not in result.stderr


def test_stdin() -> None:
    data = (EXAMPLES / "catch-mag.jsonl").read_bytes()
    result = run("replay", "-", stdin=data)
    assert result.returncode == 0 and json.loads(result.stdout)["game"] == "catch-mag"


def test_a_closed_pipe_is_not_a_traceback() -> None:
    # `companion replay --trace log | head -1`: the reader leaves early. The pipe is
    # shrunk to one page so the trace cannot fit in it and the writer must meet the close.
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 4096)
    command = [sys.executable, "-m", "companion.cli", "replay", "--trace"]
    with subprocess.Popen(
        [*command, str(EXAMPLES / "star-catcher.jsonl")],
        stdout=write_end,
        stderr=subprocess.PIPE,
    ) as proc:
        os.close(write_end)
        os.read(read_end, 10)
        os.close(read_end)
        assert proc.stderr is not None
        stderr = proc.stderr.read().decode()
        proc.wait(timeout=60)
    assert "Traceback" not in stderr
    assert proc.returncode == 141


@pytest.mark.parametrize("source", ["/dev/zero", "-"])
def test_an_endless_or_huge_log_is_a_plain_error(source: str) -> None:
    stdin = b"\n" * 2_500_000 if source == "-" else None
    result = run("replay", source, stdin=stdin)
    assert result.returncode == 2
    assert result.stdout == ""
    assert "larger than 2 MB" in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


@pytest.mark.parametrize("value", ["NaN", "Infinity", "1e999", "[" * 100 + "]" * 100])
def test_replay_refuses_what_the_api_refuses(tmp_path: Path, value: str) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text('{"type": "setup", "game": "catch-mag", "players": ["A", "B"]}\n'
                    f'{{"type": "roll", "player": "A", "value": 2, "note": {value}}}\n')
    assert_contract_error(run("replay", str(path)), 2)
