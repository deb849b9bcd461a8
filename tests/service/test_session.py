"""The table as the fold of its journal: undo, corrections, flagging, import."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.games.errors import IllegalEvent, MalformedEvent
from companion.service.live import Hub
from companion.service.session import Conflict, NotFound, TableSession, check_log
from companion.service.store import EventStore, JournalRecord
from companion.service.table import TableService

SETUP = {"type": "setup", "game": "catch-mag", "players": ["Ann", "Ben"]}
ROLL_ANN_2 = {"type": "roll", "player": "Ann", "value": 2}
FAIL_ANN = {"type": "catch", "player": "Ann", "success": False}
ROLL_BEN_1 = {"type": "roll", "player": "Ben", "value": 1}
CATCH_BEN_RED = {"type": "catch", "player": "Ben", "success": True, "color": "red"}


@pytest.fixture
def table(tmp_path: Path) -> TableService:
    return TableService(EventStore(tmp_path / "t.db"), Hub(), clock=lambda: 1_800_000_000.0)


def play(table: TableService, *events: dict[str, object]) -> None:
    for event in events:
        table.add_event(event, "Ann's phone")


def test_events_fold_into_the_match_and_undo_takes_back_exactly_the_last(
    table: TableService,
) -> None:
    table.start_match(SETUP, "host")
    play(table, ROLL_ANN_2, FAIL_ANN, ROLL_BEN_1, CATCH_BEN_RED)
    assert table.session.match().summary()["totals"] == {"Ann": 0, "Ben": 1}
    table.undo("Ben's phone")
    summary = table.session.match().summary()
    assert summary["totals"] == {"Ann": 0, "Ben": 0}
    assert summary["turn"] == "Ben"
    assert [e.event for e in table.session.match().entries] == [ROLL_ANN_2, FAIL_ANN, ROLL_BEN_1]


def test_an_illegal_event_is_refused_and_nothing_is_recorded(table: TableService) -> None:
    table.start_match(SETUP, "host")
    play(table, ROLL_ANN_2)
    seq = table.session.seq
    with pytest.raises(IllegalEvent, match="Ann"):
        table.add_event({"type": "roll", "player": "Ann", "value": 3}, "x")
    with pytest.raises(MalformedEvent, match="value"):
        table.add_event({"type": "roll", "player": "Ann", "value": 9}, "x")
    assert table.session.seq == seq
    assert table.store.last_seq() == seq


def test_editing_an_early_event_refolds_and_flags_what_became_illegal(
    table: TableService,
) -> None:
    table.start_match(SETUP, "host")
    play(table, ROLL_ANN_2, FAIL_ANN, ROLL_BEN_1, CATCH_BEN_RED)
    first = table.session.match().entries[0].id
    # A 6 lands Ann on the joker space: her 'catch' no longer fits and is flagged.
    result = table.edit(table.session.current or 0, first, {**ROLL_ANN_2, "value": 6}, "Cy")
    entries = table.session.match().entries
    assert result["flagged"] == [entries[1].id, entries[2].id, entries[3].id]
    assert entries[0].error is None
    assert all(e.error for e in entries[1:])
    assert len(entries) == 4, "flagged events are kept, not dropped"
    # Deleting the flagged catch and fixing the rest brings the match back.
    table.edit(table.session.current or 0, first, ROLL_ANN_2, "Cy")
    assert [e.error for e in table.session.match().entries] == [None] * 4
    assert table.session.match().summary()["totals"] == {"Ann": 0, "Ben": 1}


def test_an_illegal_correction_is_refused(table: TableService) -> None:
    table.start_match(SETUP, "host")
    play(table, ROLL_ANN_2)
    first = table.session.match().entries[0].id
    with pytest.raises(IllegalEvent, match="corrected event is refused"):
        table.edit(table.session.current or 0, first, {**ROLL_ANN_2, "player": "Ben"}, "x")
    with pytest.raises(NotFound):
        table.delete(table.session.current or 0, 999, "x")


def test_deleting_an_event_flags_the_ones_that_depended_on_it(table: TableService) -> None:
    table.start_match(SETUP, "host")
    play(table, ROLL_ANN_2, FAIL_ANN)
    match_id = table.session.current or 0
    flagged = table.delete(match_id, table.session.match().entries[0].id, "x")["flagged"]
    assert flagged == [table.session.match().entries[0].id]
    assert table.session.match().summary()["turn"] == "Ann"


def test_a_restarted_service_resumes_the_exact_table(tmp_path: Path) -> None:
    with EventStore(tmp_path / "t.db") as store:
        table = TableService(store, Hub())
        table.start_match(SETUP, "host")
        play(table, ROLL_ANN_2, FAIL_ANN, ROLL_BEN_1)
        table.edit(table.session.current or 0, table.session.match().entries[2].id,
                   {**ROLL_BEN_1, "value": 2}, "x")
        table.undo("x")
        table.start_match({"game": "catch-mag"}, "host")
        play(table, ROLL_ANN_2)
        before = table.snapshot()
    with EventStore(tmp_path / "t.db") as store:
        after = TableService(store, Hub()).snapshot()
    assert after == before
    assert after["matches"][0]["players"] == ["Ann", "Ben"], "the next match keeps the seats"


def test_undo_with_nothing_to_undo_is_a_plain_conflict(table: TableService) -> None:
    with pytest.raises(Conflict, match="no match"):
        table.undo("x")
    table.start_match(SETUP, "host")
    with pytest.raises(Conflict, match="nothing to undo"):
        table.undo("x")


def test_import_names_the_bad_line_and_imports_nothing(table: TableService) -> None:
    log = "\n".join([
        '{"type": "setup", "game": "catch-mag", "players": ["Ann", "Ben"]}',
        "# a comment",
        '{"type": "roll", "player": "Ann", "value": 2}',
        '{"type": "roll", "player": "Ann", "value": 2}',
    ])
    with pytest.raises(IllegalEvent, match=r"^line 4: "):
        table.import_log(log, "x")
    assert table.session.matches == {}
    view = table.import_log("\n".join(log.splitlines()[:3]), "x")
    assert view["imported"] and view["events"] == 1


def test_check_log_reports_json_errors_by_line() -> None:
    with pytest.raises(MalformedEvent, match=r"^line 2: "):
        check_log('{"type": "setup", "game": "catch-mag", "players": ["A", "B"]}\n{oops')
    with pytest.raises(MalformedEvent, match=r"^line 1: unknown game"):
        check_log('{"type": "setup", "game": "chess", "players": ["A", "B"]}')


def test_records_that_no_longer_fit_are_flagged_not_dropped() -> None:
    session = TableSession()
    session.apply(JournalRecord(1, "t", "host", "match", {"setup": SETUP}))
    session.apply(JournalRecord(2, "t", "host", "event", {"match": 1, "event": ROLL_ANN_2}))
    session.apply(JournalRecord(3, "t", "host", "event", {"match": 1, "event": ROLL_BEN_1}))
    session.apply(JournalRecord(4, "t", "host", "nonsense", {"match": "x"}))
    entries = session.match().entries
    assert [e.error is None for e in entries] == [True, False]
    assert session.seq == 4
