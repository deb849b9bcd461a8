"""Following the table's match with the camera: what it sees becomes table events.

:class:`MatchFollower` holds the recognizer of the current match's deck, the
tracker, and the game's adapter (:mod:`vision.adapters`). Every stable change
the tracker reports goes to the adapter, whose events are entered with
``actor="camera"`` through the same rules check as a phone's entry.

The table's match is the authority. The adapter proposes events to its own
copy of the match; whenever that copy and the table's match differ (a phone
entered or corrected something, the table refused a reading), the adapter is
rebuilt from the table's events and what the camera sees now.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.games.match import Match
from companion.inputs.camera.corners import TableCorners
from companion.inputs.camera.errors import CameraFeedError, CameraNotReady
from companion.inputs.camera.teaching import DeckTeacher
from companion.inputs.feed import CurrentMatch, Notices, TableLink
from vision import standard as standard_deck
from vision.adapters import (
    CollectorAdapter,
    HarryAdapter,
    StarCatcherAdapter,
    StarPlusAdapter,
    read_seats,
)
from vision.enrolled import EnrollmentError, Gallery
from vision.pipeline import Detection, Recognizer
from vision.simtable import SimTable, rendered_gallery
from vision.tracker import TableState, Tracker

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Image = NDArray[np.uint8]

ACTOR = "camera"
DECKS: Mapping[str, str] = {
    "star-catcher": "star-catcher",
    "star-plus": "star-plus",
    "cant-catch-harry": "cant-catch-harry",
    "collector": "standard",
}
"""The deck each card game is played with."""
SEATED_GAMES = frozenset({"star-plus", "cant-catch-harry"})
"""Games whose cards lie in front of the seats (the camera needs calibration markers)."""
SHOWN_HANDS_GAMES = frozenset({"cant-catch-harry", "collector"})
"""Games whose hands are shown in front of the seats (a Harry round, the Collector reveal)."""
FLUSH_AFTER = 2.0
"""Seconds a Star Plus pile must stay still before its cards are sent as one play."""
QUIET_FRAMES = 8
"""Frames without a change or motion before a play counts as over (with ``flush_after``)."""
UNREAD_PATIENCE = 4.0
"""A play with a card not read yet waits this many times ``flush_after`` for a better read."""
SYNC_SECONDS = 0.25
"""How often the feed checks the table's match when nothing changes on camera."""

Adapter = StarCatcherAdapter | StarPlusAdapter | HarryAdapter | CollectorAdapter


class MatchFollower:
    """The current match as the camera follows it (on the camera's worker thread)."""

    def __init__(self, table: TableLink, notices: Notices, corners: TableCorners,
                 teacher: DeckTeacher, *, store: Path, sim: SimTable | None,
                 flush_after: float, held: Callable[[], bool],
                 shown: Callable[[list[Detection]], None]) -> None:
        self.table, self.notices, self.corners, self.teacher = table, notices, corners, teacher
        self.store, self.sim, self.flush_after = store, sim, flush_after
        self.held = held
        """Whether a hand is over the table now (a play is not over, however still)."""
        self.shown = shown
        """Where the cards found in a frame go (the live view)."""
        self.match_id: int | None = None
        self.game: str | None = None
        self.deck: str | None = None
        self.adapter: Adapter | None = None
        self.recognizer: Recognizer | None = None
        self.tracker = Tracker(zone_of=corners.zone_of)
        self.problem = ""
        """Why the match is not followed (a deck not enrolled), for the status."""
        self._last_change_at = time.monotonic()
        self._quiet_frames = 0
        self._last_sync = 0.0

    # -- the frames --------------------------------------------------------------------

    def on_frame(self, frame: Image) -> None:
        """Track the cards in ``frame``; enter what a stable change means for the game."""
        if self.recognizer is None:
            self.shown([])
            return
        before, skipped = self.tracker.state, self.tracker.skipped
        change = self.tracker.update(frame, self._detect)
        self._quiet_frames += 1
        if self.tracker.skipped != skipped:  # a hand is moving: a play may not be over yet
            self._last_change_at = time.monotonic()
            self._quiet_frames = 0
        if change is None:
            return
        self._quiet_frames = 0
        self._last_change_at = time.monotonic()
        self.sync(before)  # a rebuilt adapter must still see this change as new
        adapter = self.adapter
        if adapter is None or isinstance(adapter, HarryAdapter):
            return
        self._enter(adapter.on_change(change), adapter)

    def _detect(self, frame: Image) -> list[Detection]:
        recognizer = self.recognizer
        if recognizer is None:
            return []
        # off the play area (a marker, a cup, a sleeve) nothing is read or guessed at
        found = recognizer.detect(frame, self.corners.on_play_area)
        self.shown(found)
        return found

    def tick(self, now: float) -> None:
        """Between frames: check the table's match now and then, settle a still play."""
        if now - self._last_sync >= SYNC_SECONDS:
            self.sync()
        self._flush_if_still(now)

    # -- the table's match -------------------------------------------------------------

    def sync(self, seen: TableState | None = None) -> None:
        """Follow the table's current match; rebuild the adapter when it and the table differ.

        ``seen``: the table as the adapter should believe it is (default: the tracker's).
        """
        self._last_sync = time.monotonic()
        current = self.table.current()
        if current is None or current.game not in DECKS or not current.log:
            if self.adapter is not None:
                self.adapter, self.match_id, self.game = None, None, None
            if self.recognizer is None and self.sim is not None:
                # nothing to follow: the simulated table's cards are read all the same (the
                # camera page names them); nothing is entered without an adapter
                self.recognizer, self.deck = Recognizer(rendered_gallery(self.sim.deck)), None
            return
        if current.match_id != self.match_id or current.game != self.game:
            self._follow(current)
            return
        adapter = self.adapter
        if adapter is not None and adapter.match.events != list(current.log[1:]):
            self._rebuild(current, seen)

    def _follow(self, current: CurrentMatch) -> None:
        assert current.game is not None
        self.match_id, self.game = current.match_id, current.game
        deck = DECKS[current.game]
        self.problem = ""
        players = tuple(str(p) for p in current.log[0].get("players", ()))
        if self.sim is not None:
            # seat areas need calibration markers; a centre-only game shows the other way
            # the camera works: uncalibrated, the whole picture is the centre
            self.sim.reset(deck, players, markers=current.game in SEATED_GAMES)
        if deck != self.deck or self.recognizer is None:
            self.recognizer = self._recognizer(deck)
            self.deck = deck if self.recognizer is not None else None
        self.corners.forget()  # the seats changed: calibrate again on the next frame
        self.tracker = Tracker(zone_of=self.corners.zone_of)
        self._rebuild(current)

    def _recognizer(self, deck: str) -> Recognizer | None:
        if deck == "standard":
            standard_deck.prepare()
            return Recognizer("standard")
        if deck in self.teacher.taught:
            return Recognizer(self.teacher.taught[deck])
        if self.sim is not None:
            return Recognizer(rendered_gallery(deck))
        try:
            return Recognizer(Gallery.load(self.store, deck))
        except EnrollmentError as exc:
            if self.teacher.enrolled(deck):
                # taught once, but not readable now (by an older version, or damaged): say
                # so, not that it was never taught
                self.problem = str(exc)
                return None
            self.problem = (f"deck {deck} is not enrolled: run companion vision enroll "
                            f"--deck {deck} --from PHOTOS (or --camera), or tap 'Teach a "
                            "deck' on the camera page (/camera), to teach it the cards")
            return None

    def _rebuild(self, current: CurrentMatch, seen: TableState | None = None) -> None:
        """A fresh adapter on the table's match, knowing what the camera sees."""
        if self.recognizer is None:
            self.adapter = None
            return
        match = Match.from_events(current.log)
        seen = seen or self.tracker.state
        centre = {c.track: c for c in seen.in_zone("centre")}
        adapter: Adapter
        if current.game == "star-catcher":
            sc = StarCatcherAdapter(match)
            sc.centre = dict(centre)
            if not match.finished and not match.summary().get("table_dealt", True):
                sc._stale = set(centre)  # left from the last round: cleared before the deal
            adapter = sc
        elif current.game == "star-plus":
            adapter = StarPlusAdapter(match)
        elif current.game == "cant-catch-harry":
            adapter = HarryAdapter(match)
        else:
            co = CollectorAdapter(match)
            co.centre = dict(centre)
            adapter = co
        self.adapter = adapter

    def use_taught(self, gallery: Gallery) -> None:
        """Read ``gallery``'s deck with it from now on (it was just taught)."""
        if self.deck != gallery.deck and not (self.game and DECKS.get(self.game) == gallery.deck):
            return
        self.recognizer = Recognizer(gallery)
        self.deck, self.problem = gallery.deck, ""
        if self.adapter is None:
            self.match_id = None  # not followed for want of the deck: follow it afresh

    # -- events ------------------------------------------------------------------------

    def _enter(self, events: list[dict[str, Any]], adapter: Adapter) -> list[dict[str, Any]]:
        entered = []
        for event in events:
            if not self.table.enter(event, ACTOR, self.notices):
                break  # the adapter is out of step now: the next sync rebuilds it
            entered.append(event)
        for text in adapter.warnings:
            self.notices.add(f"camera: {text}")
        adapter.warnings.clear()
        if len(entered) != len(events):
            self.sync()
        return entered

    def _flush_if_still(self, now: float) -> None:
        """A play the table has been still after is settled: a Star Plus pile is complete,
        a Star Catcher or Collector card that nobody took with it caught nothing."""
        adapter = self.adapter
        if self.teacher.active:
            return  # paused while a deck is taught
        still = now - self._last_change_at
        # still for long enough, and for enough frames: a slow machine is not a still table
        if still < self.flush_after or self._quiet_frames < QUIET_FRAMES or self.held():
            return
        if isinstance(adapter, StarPlusAdapter):
            pending = list(adapter.pending)
        elif isinstance(adapter, StarCatcherAdapter):
            pending = [] if adapter.pending is None else [adapter.pending]
        elif isinstance(adapter, CollectorAdapter):
            # a card whose target stayed caught nothing (no match: the card stays a target)
            pending = [] if adapter.equal is not None else [c for c, _ in adapter.pending]
        else:
            return
        if not pending:
            return
        if any(c.card is None for c in pending) and still < UNREAD_PATIENCE * self.flush_after:
            return  # more quiet frames may settle the vote on an unread card
        self._enter(adapter.flush(), adapter)

    # -- what a phone asks -------------------------------------------------------------

    def enter_round(self, moths: dict[str, str]) -> list[dict[str, Any]]:
        """Can't Catch Harry: enter the round the shown hands and ``moths`` make."""
        self.sync()
        if self.teacher.active:  # the tracker is paused: what it holds is stale
            raise CameraFeedError("the camera is learning a deck now; finish or cancel that "
                                  "first, or enter the round on the phone")
        adapter = self.adapter
        if not isinstance(adapter, HarryAdapter):
            raise CameraFeedError("the current match is not a Can't Catch Harry match the "
                                  "camera follows")
        events = adapter.round_shown(self.tracker.state, moths)
        problems = list(adapter.warnings)
        entered = self._enter(events, adapter)
        if not entered:
            raise CameraFeedError("; ".join(problems) or "the table refused the shown round")
        return entered

    def shown_hands(self, link: tuple[str, str]) -> dict[str, Any]:
        """The hands shown in front of each seat now (see ``CameraFeed.shown_hands``)."""
        self.sync()
        if link[0] != "connected":
            raise CameraNotReady(f"the camera is not delivering frames ({link[1] or 'lost'})"
                                 "; check its cable or power, or tap the hands in")
        if self.teacher.active:  # the tracker is paused meanwhile: it would show stale cards
            raise CameraFeedError("the camera is learning a deck now; finish or cancel that "
                                  "first, or tap the hands in")
        adapter, game = self.adapter, self.game
        if game not in SHOWN_HANDS_GAMES or adapter is None:
            raise CameraFeedError(self.problem or "the camera reads shown hands only in a "
                                  "Can't Catch Harry or Collector match; start one first")
        geometry = self.corners.geometry
        if geometry is None:
            if not self.corners.looked:  # a new match: its first frame looks for the markers
                raise CameraNotReady("the camera is still looking for the table's markers")
            raise CameraFeedError("the camera does not know where each seat's area is: lay the "
                                  "four ArUco markers at the play area's corners (first player "
                                  "along the bottom edge) or tap the corners on the camera page, "
                                  "or tap the hands in")
        seats = read_seats(self.tracker.state, adapter.match.players, geometry.zone_of)
        notes = [note for player, seat in seats.items() for note in seat.notes(player)]
        return {"match": self.match_id, "game": game,
                "hands": {p: list(s.cards) for p, s in seats.items()},
                "unread": {p: s.unread for p, s in seats.items()},
                "face_down": {p: s.face_down for p, s in seats.items()}, "notes": notes}
