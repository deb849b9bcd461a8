"""The tracker on frame sequences: stability, voting, hands passing over."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from tests.vision.scripted import Table
from vision.enrolled import Gallery
from vision.pipeline import Detection, Recognizer
from vision.refusal import Refusal
from vision.tracker import Change, FaceDown, Tracker


def _run(tracker: Tracker, frames: Iterable[np.ndarray],
         detect: Callable[[np.ndarray], list[Detection]]) -> list[Change]:
    return [c for f in frames if (c := tracker.update(f, detect)) is not None]


def test_a_card_is_on_the_table_only_once_stable(galleries: dict[str, Gallery]) -> None:
    rec = Recognizer(galleries["star-plus"])
    table = Table("star-plus")
    table.put("5")
    still = table.frame()
    tracker = Tracker()
    changes = [tracker.update(still, rec.detect) for _ in range(5)]
    # frame 1 has nothing to compare with (counts as motion); then 3 quiet frames confirm
    assert changes[:3] == [None, None, None]
    assert changes[3] is not None and [c.card for c in changes[3].added] == ["5"]
    assert changes[4] is None
    assert [c.card for c in tracker.state.cards] == ["5"]


def test_frames_with_a_moving_hand_are_skipped(galleries: dict[str, Gallery]) -> None:
    rec = Recognizer(galleries["star-plus"])
    table = Table("star-plus")
    table.put("Z")
    calls = []

    def detect(frame: np.ndarray) -> list[Detection]:
        calls.append(1)
        return rec.detect(frame)

    tracker = Tracker()
    frames = [table.frame(hand_at=(300.0 + 60 * k, 300.0)) for k in range(4)]
    assert _run(tracker, frames, detect) == []
    assert calls == []  # no detection work while the hand moves
    assert tracker.skipped == 4


def test_a_hand_resting_over_a_card_does_not_remove_it(
        galleries: dict[str, Gallery]) -> None:
    rec = Recognizer(galleries["cant-catch-harry"])
    table = Table("cant-catch-harry")
    table.put("harry")
    table.put("lamp")
    tracker = Tracker()
    changes = _run(tracker, table.footage(), rec.detect)
    assert sorted(str(c.card) for ch in changes for c in ch.added) == ["harry", "lamp"]
    # learn the bare table round the cards, then a hand comes to rest on "harry"
    covered = table.frame(hand_at=(330.0, 170.0))
    assert _run(tracker, [covered] * 8, rec.detect) == []
    assert sorted(str(c.card) for c in tracker.state.cards) == ["harry", "lamp"]


def test_a_card_taken_away_is_removed_after_quiet_frames(
        galleries: dict[str, Gallery]) -> None:
    rec = Recognizer(galleries["star-catcher"])
    table = Table("star-catcher")
    for card in ("D3", "C5*", "M"):
        table.put(card)
    tracker = Tracker()
    _run(tracker, table.footage(), rec.detect)
    table.take("C5*")
    changes = _run(tracker, table.footage(), rec.detect)
    assert len(changes) == 1
    assert [c.card for c in changes[0].removed] == ["C5*"]
    assert changes[0].added == ()
    assert sorted(str(c.card) for c in tracker.state.cards) == ["D3", "M"]


def test_identity_is_the_vote_over_frames() -> None:
    quad = np.array([[100, 100], [200, 100], [200, 240], [100, 240]], np.float32)
    reads = iter(["D7", None, "D7*", "D7", "D7", "D7"])
    frame = np.zeros((720, 1280, 3), np.uint8)
    tracker = Tracker()
    out = [tracker.update(frame, lambda _f: [Detection(next(reads), quad, 0.9)])
           for _ in range(6)]
    firsts = [c for c in out if c is not None]
    # frame 1 is motion (no history); frames 2-4 confirm with votes None, D7*, D7: no majority
    assert [c.card for c in firsts[0].added] == [None]
    # two more D7 reads give D7 the majority: reported as a better read of the same card
    assert [c.card for c in firsts[-1].added] == ["D7"]
    assert firsts[-1].added[0].track == firsts[0].added[0].track


def test_a_card_put_on_top_of_another_replaces_it(galleries: dict[str, Gallery]) -> None:
    rec = Recognizer(galleries["star-plus"])
    table = Table("star-plus")
    table.put("5")
    tracker = Tracker()
    first = _run(tracker, table.footage(), rec.detect)
    assert [c.card for c in first[0].added] == ["5"]
    table.slots[0] = "7"  # same place: put on the pile
    changes = _run(tracker, table.footage(), rec.detect)
    assert len(changes) == 1
    assert [c.card for c in changes[0].removed] == ["5"]
    assert [c.card for c in changes[0].added] == ["7"]
    assert changes[0].added[0].track != first[0].added[0].track


STILL_QUAD = np.array([[100, 100], [200, 100], [200, 240], [100, 240]], np.float32)
STILL_FRAME = np.zeros((720, 1280, 3), np.uint8)
"""A blank table and where a scripted detector finds its one card, frame after frame."""


def _counting(detect: Callable[[np.ndarray], list[Detection]],
              calls: list[int]) -> Callable[[np.ndarray], list[Detection]]:
    def counted(frame: np.ndarray) -> list[Detection]:
        calls.append(1)
        return detect(frame)
    return counted


def test_a_settled_table_is_not_looked_at_again_until_it_changes(
        galleries: dict[str, Gallery]) -> None:
    rec = Recognizer(galleries["star-catcher"])
    table = Table("star-catcher")
    for card in ("D3", "M"):
        table.put(card)
    calls: list[int] = []
    tracker = Tracker()
    detect = _counting(rec.detect, calls)
    changes = _run(tracker, table.footage(quiet=9), detect)
    assert sorted(str(c.card) for ch in changes for c in ch.added) == ["D3", "M"]
    # the hand's frames and the first still one are motion; of the 8 quiet frames after,
    # the third look confirms the cards, it and 2 more find them as they were (settled),
    # and the last 3 frames are not looked at
    assert (len(calls), tracker.rested) == (5, 3)
    # a card taken away with no hand in sight (the frame differs from the last one looked
    # at): the tracker looks again and the card leaves after its removal frames
    table.take("M")
    gone = table.frame()
    changes = _run(tracker, [gone] * 5, detect)
    assert [c.card for ch in changes for c in ch.removed] == ["M"]
    assert [c.card for c in tracker.state.cards] == ["D3"]


def test_a_resting_tracker_still_looks_now_and_then() -> None:
    calls: list[int] = []
    tracker = Tracker()
    detect = _counting(lambda _f: [Detection("D7", STILL_QUAD, 0.9)], calls)
    _run(tracker, [STILL_FRAME] * 40, detect)
    # frame 1 is motion; 5 looks settle the table; then one look in every 10 frames
    assert len(calls) == 5 + 3
    assert tracker.rested == 40 - 1 - len(calls)


def test_a_card_not_read_yet_is_looked_at_in_every_still_frame() -> None:
    calls: list[int] = []
    tracker = Tracker()
    # each new still frame is another chance to read it (camera noise, a better angle)
    _run(tracker, [STILL_FRAME] * 20,
         _counting(lambda _f: [Detection(None, STILL_QUAD, 0.0)], calls))
    assert (len(calls), tracker.rested) == (19, 0)


def test_a_card_lying_face_down_is_not_tracked() -> None:
    # a draw pile beside the played card: it neither joins the table's cards as an
    # unread one nor keeps the table from settling (the detector rests as without it)
    calls: list[int] = []
    tracker = Tracker()
    pile = STILL_QUAD + np.float32(300)
    detect = _counting(lambda _f: [Detection("D7", STILL_QUAD, 0.9),
                                   Detection(None, pile, 0.0, Refusal.CARD_BACK)], calls)
    _run(tracker, [STILL_FRAME] * 40, detect)
    assert [c.card for c in tracker.state.cards] == ["D7"]
    assert len(calls) == 5 + 3
    # ... yet where it lies is known (a shown hand with a card not turned up)
    x, y = pile.mean(axis=0)
    assert tracker.state.face_down == (FaceDown((float(x), float(y)), "centre"),)
