"""Game adapters: scripted camera footage in, the right table events out."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

import numpy as np

from companion.games.match import Match
from tests.vision.scripted import Table, two_seats
from vision.adapters import CollectorAdapter, HarryAdapter, StarCatcherAdapter, StarPlusAdapter
from vision.enrolled import Gallery
from vision.pipeline import Detection, Recognizer
from vision.render import TEST_DESIGNS, Conditions
from vision.tracker import Tracker


class _Adapter(Protocol):
    def on_change(self, change: Any) -> list[dict[str, object]]: ...


A = TypeVar("A", bound=_Adapter)


def _memo(detect: Callable[[np.ndarray], list[Detection]]
          ) -> Callable[[np.ndarray], list[Detection]]:
    """Still footage repeats one frame object: detect it once (same answer anyway)."""
    seen: dict[int, tuple[np.ndarray, list[Detection]]] = {}

    def run(frame: np.ndarray) -> list[Detection]:
        if id(frame) not in seen or seen[id(frame)][0] is not frame:
            seen.clear()
            seen[id(frame)] = (frame, detect(frame))
        return seen[id(frame)][1]

    return run


class Camera(Generic[A]):
    """Footage of a scripted table, fed through the real pipeline, tracker and adapter."""

    def __init__(self, table: Table, recognizer: Recognizer, adapter: A,
                 tracker: Tracker | None = None) -> None:
        self.table = table
        self.detect = _memo(recognizer.detect)
        self.tracker = tracker or Tracker()
        self.adapter = adapter
        self.events: list[dict[str, object]] = []

    def film(self) -> None:
        for frame in self.table.footage():
            change = self.tracker.update(frame, self.detect)
            if change is not None:
                self.events += self.adapter.on_change(change)


def _star_catcher(gallery: Gallery, match: Match) -> Camera[StarCatcherAdapter]:
    return Camera(Table("star-catcher", seed=11), Recognizer(gallery),
                  StarCatcherAdapter(match))


def _setup() -> dict[str, object]:
    return {"type": "setup", "game": "star-catcher", "players": ["Ann", "Ben"]}


def test_a_scripted_sequence_gives_table_and_play_events(galleries: dict[str, Gallery]) -> None:
    cam = _star_catcher(galleries["star-catcher"], Match(_setup()))
    for card in ("D4", "D8", "C1", "D5**"):
        cam.table.put(card)
    cam.film()
    assert len(cam.events) == 1 and cam.events[0]["type"] == "table"
    assert sorted(cam.events[0]["cards"]) == ["C1", "D4", "D5**", "D8"]  # type: ignore[call-overload]
    cam.table.put("C9**")  # Ann plays 9 = 4 + 5 (or 8 + 1)
    cam.film()
    assert cam.events[1:] == []  # not known yet whether it catches
    for card in ("C9**", "D4", "D5**"):
        cam.table.take(card)
    cam.film()
    assert cam.events[1:] == [{"type": "play", "player": "Ann", "card": "C9**",
                               "take": ["D4", "D5**"]}]
    cam.table.put("C3")  # Ben: nothing sums to 3 with D8, C1 ... C1 + ... no: stays
    cam.film()
    cam.table.put("M")  # Ann's Magnet arrives: Ben's 3 stayed on the table
    cam.film()
    assert cam.events[2:] == [{"type": "play", "player": "Ben", "card": "C3", "take": []}]
    for card in ("M", "D8"):
        cam.table.take(card)
    cam.film()
    assert cam.events[3:] == [{"type": "play", "player": "Ann", "card": "M", "take": ["D8"]}]
    assert cam.adapter.warnings == []


def test_an_illegal_reading_is_a_warning_not_a_score(galleries: dict[str, Gallery]) -> None:
    match = Match(_setup())
    cam = _star_catcher(galleries["star-catcher"], match)
    for card in ("D4", "D8", "C1", "D5**"):
        cam.table.put(card)
    cam.film()
    cam.table.put("D2")
    cam.film()
    for card in ("D2", "D8"):  # 2 does not catch an 8
        cam.table.take(card)
    cam.film()
    assert len(match) == 1  # only the table deal was accepted
    assert len(cam.adapter.warnings) == 1
    assert "Ann play D2 taking D8" in cam.adapter.warnings[0]
    assert match.summary()["totals"] == {"Ann": 0, "Ben": 0}


def test_a_full_round_on_camera_scores_as_its_table_log(galleries: dict[str, Gallery]) -> None:
    truth = Match(_setup())
    rng = random.Random(3)
    while truth.summary()["round"] == 1:
        truth.push(truth.random_event(rng))
    seen = Match(_setup())
    cam = _star_catcher(galleries["star-catcher"], seen)
    for event in truth.events:
        if event["type"] == "table":
            for card in event["cards"]:
                cam.table.put(str(card))
            cam.film()
            continue
        card = str(event["card"])
        take = [str(c) for c in event.get("take") or []]
        cam.table.put(card)
        cam.film()
        if card == "M":
            take = [c for c in cam.table.slots.values() if c.startswith("D")]
        if take or card == "M":
            for c in (card, *take):
                cam.table.take(c)
            cam.film()
    cam.events += cam.adapter.flush()
    assert cam.adapter.warnings == []
    assert len(seen) == len(truth)
    assert seen.summary()["rounds"] == truth.summary()["rounds"]
    assert seen.summary()["totals"] == truth.summary()["totals"]


def test_star_plus_cards_put_on_a_pile_are_that_players_play(
        galleries: dict[str, Gallery]) -> None:
    match = Match({"type": "setup", "game": "star-plus", "players": ["Ann", "Ben"]})
    cam = Camera(Table("star-plus", seed=5), Recognizer(galleries["star-plus"]),
                 StarPlusAdapter(match), Tracker(zone_of=two_seats))
    table, adapter, events = cam.table, cam.adapter, cam.events

    table.put_at(0, "1")  # Ann: target 1
    cam.film()
    table.put_at(5, "2")  # Ben: target 2; Ann's play is complete
    cam.film()
    assert events == [{"type": "play", "player": "Ann", "cards": ["1"]}]
    # Ann: target 3 as 2 + 1, one on top of the other (a 1 straight onto her 1
    # would not change what the camera sees)
    table.put_at(0, "2")
    cam.film()
    table.put_at(0, "1")
    cam.film()
    events.extend(adapter.flush())
    assert events[1:] == [{"type": "play", "player": "Ben", "cards": ["2"]},
                          {"type": "play", "player": "Ann", "cards": ["2", "1"]}]
    assert adapter.warnings == []
    assert match.summary()["turn"] == "Ben"


def test_harry_hands_shown_at_the_round_end_make_the_round_event(
        galleries: dict[str, Gallery]) -> None:
    match = Match({"type": "setup", "game": "cant-catch-harry", "players": ["Ann", "Ben"]})
    table = Table("cant-catch-harry", seed=9)
    for slot, card in zip((0, 1, 6, 7), ("fox", "fox", "fox", "everyone"), strict=True):
        table.put_at(slot, card)
    for slot, card in zip((4, 5, 10, 11), ("devil", "lamp", "mom", "twin"), strict=True):
        table.put_at(slot, card)
    tracker = Tracker(zone_of=two_seats)
    detect = _memo(Recognizer(galleries["cant-catch-harry"]).detect)
    for frame in table.footage():
        tracker.update(frame, detect)
    adapter = HarryAdapter(match)
    events = adapter.round_shown(tracker.state, {"Ann": "harry", "Ben": "lamp"})
    assert events == [{"type": "round",
                       "hands": {"Ann": ["everyone", "fox", "fox", "fox"],
                                 "Ben": ["devil", "lamp", "mom", "twin"]},
                       "moths": {"Ann": "harry", "Ben": "lamp"}}]
    # Ann: harry moth 3; Ben: lamp moth -1, a devil -1, a lamp card -1
    assert match.summary()["totals"] == {"Ann": 3, "Ben": -3}
    assert adapter.warnings == []


def test_collector_plays_are_settled_by_what_leaves_the_table() -> None:
    """Scripted standard-deck footage: targets, collected cards, a second card, an equal."""
    setup = {"type": "setup", "game": "collector", "players": ["Ann", "Ben"],
             "targets": ["7H", "QS", "2D", "9C"]}
    match = Match(setup)
    table = Table("standard", seed=21,
                  conditions=Conditions(deck="standard", table="dark", designs=TEST_DESIGNS))
    for slot, card in zip((0, 2, 4, 13), ("7H", "QS", "2D", "9C"), strict=True):
        table.put_at(slot, card)
    cam = Camera(table, Recognizer("standard"), CollectorAdapter(match))
    events = cam.events

    cam.film()  # the four targets
    assert events == []
    table.put_at(1, "8H", at=(447, 170))  # Ann: one higher, same suit, beside the 7H
    cam.film()
    del table.slots[0]  # she takes the 7H
    cam.film()
    table.put_at(14, "JS")  # Ben: 11 beside the 9C: neither rule applies (he draws)
    cam.film()
    table.put_at(3, "2H", at=(760, 330))  # Ann: equal to the 2D beside it; settles Ben's
    cam.film()
    del table.slots[3], table.slots[4]  # both go to her collection; 4 targets remain
    cam.film()
    table.put_at(12, "3S")  # Ben: lower than the 9C beside it, no second: collects it
    cam.film()
    del table.slots[13]
    cam.film()
    assert events == [
        {"type": "play", "player": "Ann", "target": "7H", "card": "8H"},
        {"type": "play", "player": "Ben", "target": "9C", "card": "JS"},
        {"type": "play", "player": "Ann", "target": "2D", "card": "2H"},
        {"type": "play", "player": "Ben", "target": "9C", "card": "3S"},
    ]
    assert cam.adapter.warnings == []
    summary = match.summary()
    assert summary["collections"]["Ann"]["up"] == ["7H", "2D", "2H"]
    assert summary["collections"]["Ben"]["down"] == ["9C"]
    assert sorted(summary["targets"]) == ["3S", "8H", "JS", "QS"]
