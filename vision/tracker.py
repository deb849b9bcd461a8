"""From noisy per-frame detections to a stable table state and its changes.

* Frames with motion (a hand moving, a card sliding) are skipped: nothing
  is learned from them.
* A card is on the table only after it has been seen in ``stable_frames``
  quiet frames at the same place; its identity is the vote over frames.
* Once the table has settled (the same cards, every one named, found in
  ``rest_after`` looks in a row), the tracker rests: it does not detect again
  until the frame differs from the last one it looked at, a hand has moved, or
  ``look_every`` frames have gone by. A table between plays costs a Pi only
  the motion check.
* A confirmed card that is no longer detected is *removed* only when its
  place shows the bare table again for ``removal_frames`` quiet frames. If
  something else covers it (a resting hand, another card's shadow), it is
  *occluded* and stays, so a hand held still over a card does not take it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.pipeline import Detection
from vision.refusal import Refusal

Image = NDArray[np.uint8]
Point = tuple[float, float]
ZoneOf = Callable[[Point], str | None]

SCALE = 4  # the motion and background models work on quarter-size grey images


@dataclass(frozen=True)
class TableCard:
    """A card lying on the table: its identity (``None``: not sure), place and zone."""

    card: str | None
    centre: Point
    quad: tuple[Point, Point, Point, Point]
    zone: str | None
    track: int  # stable number of this physical card while it stays on the table


@dataclass(frozen=True)
class FaceDown:
    """A card lying face down in the last look (a draw pile, a card to turn up later): in
    no play, never tracked, but where it lies (a shown hand with a card not turned up)."""

    centre: Point
    zone: str | None


@dataclass(frozen=True)
class TableState:
    cards: tuple[TableCard, ...] = ()
    face_down: tuple[FaceDown, ...] = ()

    def in_zone(self, zone: str) -> tuple[TableCard, ...]:
        return tuple(c for c in self.cards if c.zone == zone)


@dataclass(frozen=True)
class Change:
    """What changed between two stable states."""

    added: tuple[TableCard, ...]
    removed: tuple[TableCard, ...]
    state: TableState


@dataclass(frozen=True)
class TrackerSettings:
    stable_frames: int = 3
    removal_frames: int = 3
    min_votes: int = 2
    vote_share: float = 0.6  # the winning identity's share of the labelled votes
    motion_level: float = 12.0  # grey levels of change that count as motion
    motion_fraction: float = 0.002  # of the image
    background_level: float = 18.0  # mean grey difference still "bare table"
    rest_after: int = 3  # settled looks in a row before detection rests
    look_every: int = 10  # while resting, still look at every this-many-th frame


@dataclass
class _Track:
    number: int
    quad: NDArray[np.float32]
    votes: Counter[str] = field(default_factory=Counter)
    unknown_votes: int = 0
    seen: int = 0
    missing: int = 0
    confirmed: bool = False
    streak: tuple[str | None, int] = (None, 0)  # a different card read again and again

    @property
    def centre(self) -> NDArray[np.float32]:
        c: NDArray[np.float32] = self.quad.mean(axis=0)
        return c

    def identity(self, s: TrackerSettings) -> str | None:
        if not self.votes:
            return None
        card, n = self.votes.most_common(1)[0]
        total = sum(self.votes.values()) + self.unknown_votes
        if n >= s.min_votes and n >= s.vote_share * total:
            return card
        return None


def _small_grey(frame: Image) -> NDArray[np.float32]:
    grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    h, w = grey.shape
    small = cv2.resize(grey, (w // SCALE, h // SCALE), interpolation=cv2.INTER_AREA)
    out: NDArray[np.float32] = cv2.GaussianBlur(small, (5, 5), 0).astype(np.float32)
    return out


class Tracker:
    """Feed it every frame with that frame's detections; it reports stable changes."""

    def __init__(self, settings: TrackerSettings | None = None,
                 zone_of: ZoneOf | None = None) -> None:
        self.settings = settings or TrackerSettings()
        self.zone_of: ZoneOf = zone_of or (lambda _p: "centre")
        self._tracks: list[_Track] = []
        self._next = 1
        self._previous: NDArray[np.float32] | None = None
        self._background: NDArray[np.float32] | None = None
        self._known: NDArray[np.bool_] | None = None  # background pixels seen bare
        self._emitted: dict[int, TableCard] = {}
        self._face_down: tuple[FaceDown, ...] = ()
        self.skipped = 0
        """Frames with motion, not looked at."""
        self.rested = 0
        """Still frames of a settled table, not looked at."""
        self._looked_at: NDArray[np.float32] | None = None  # the last frame detected on
        self._moved_since_look = True
        self._settled_looks = 0
        self._since_look = 0

    @property
    def state(self) -> TableState:
        """The last stable table state reported, and the cards face down in the last look."""
        return TableState(tuple(self._emitted.values()), self._face_down)

    def moving(self, small: NDArray[np.float32]) -> bool:
        prev, self._previous = self._previous, small
        return prev is None or self._differs(small, prev)

    def _differs(self, small: NDArray[np.float32], other: NDArray[np.float32]) -> bool:
        """Whether two quarter-size grey frames differ by motion's measure."""
        if other.shape != small.shape:
            return True
        changed = np.abs(small - other) > self.settings.motion_level
        return bool(changed.mean() > self.settings.motion_fraction)

    def update(self, frame: Image,
               detect: Callable[[Image], list[Detection]]) -> Change | None:
        """Take one frame; return the change in the stable state, if there is one.

        ``detect`` (usually ``Recognizer.detect``) runs only on quiet frames,
        which saves the Pi the work while hands move.
        """
        small = _small_grey(frame)
        if self.moving(small):
            self.skipped += 1
            self._moved_since_look = True
            return None
        if self._resting(small):
            self.rested += 1
            return None
        s = self.settings
        before = self._looked()
        # a card lying face down (a draw pile, a card to turn up later) is in no play: not
        # tracked, it neither waits for a read nor keeps the table from settling
        seen = detect(frame)
        unmatched = [d for d in seen if d.reason is not Refusal.CARD_BACK]
        self._face_down = tuple(self._face_down_of(d) for d in seen
                                if d.reason is Refusal.CARD_BACK)
        self._looked_at, self._moved_since_look, self._since_look = small, False, 0
        settled = True  # every card found where it was, read as it was; nothing new
        for track in list(self._tracks):  # a card put on top appends a track
            best = None
            best_d = float("inf")
            size = float(np.linalg.norm(track.quad[1] - track.quad[0]))
            for d in unmatched:
                dist = float(np.linalg.norm(d.quad.mean(axis=0) - track.centre))
                if dist < 0.35 * size and dist < best_d:
                    best, best_d = d, dist
            if best is not None:
                unmatched = [d for d in unmatched if d is not best]
                settled &= best.card is not None and best.card == track.identity(s)
                if self._covered_by_another(track, best):
                    continue
                track.quad = best.quad.astype(np.float32)
                track.seen += 1
                track.missing = 0
                if best.card is None:
                    track.unknown_votes += 1
                else:
                    track.votes[best.card] += 1
                if track.seen >= s.stable_frames:
                    track.confirmed = True
            else:
                settled = False
                if not track.confirmed or self._looks_bare(small, track):
                    track.missing += 1
                # else: covered by something that is not the table; keep the card
        settled &= not unmatched
        for d in unmatched:
            t = _Track(self._next, d.quad.astype(np.float32), seen=1)
            if d.card is None:
                t.unknown_votes = 1
            else:
                t.votes[d.card] = 1
            self._next += 1
            self._tracks.append(t)
        self._tracks = [t for t in self._tracks
                        if t.missing < (s.removal_frames if t.confirmed else 2)]
        self._learn_background(small)
        settled &= self._looked() == before and all(t.confirmed for t in self._tracks)
        self._settled_looks = self._settled_looks + 1 if settled else 0
        return self._report()

    def _face_down_of(self, d: Detection) -> FaceDown:
        x, y = d.quad.mean(axis=0)
        centre = (float(x), float(y))
        return FaceDown(centre, self.zone_of(centre))

    def _looked(self) -> tuple[tuple[int, str | None], ...]:
        return tuple((t.number, t.identity(self.settings)) for t in self._tracks)

    def _resting(self, small: NDArray[np.float32]) -> bool:
        """Whether this still frame need not be looked at: the table has settled and
        nothing differs from the frame last looked at (a slow change adds up there)."""
        s, last = self.settings, self._looked_at
        if (self._settled_looks < s.rest_after or self._moved_since_look or last is None
                or self._since_look + 1 >= s.look_every or self._differs(small, last)):
            return False
        self._since_look += 1
        return True

    def _covered_by_another(self, track: _Track, d: Detection) -> bool:
        """A confirmed card read as another card in several quiet frames in a row: a card
        was put on top of it (a pile). The old card leaves, the new one is confirmed."""
        s = self.settings
        current = track.identity(s)
        if not track.confirmed or current is None or d.card is None or d.card == current:
            track.streak = (None, 0)
            return False
        card, n = track.streak
        n = n + 1 if card == d.card else 1
        track.streak = (d.card, n)
        if n < s.stable_frames:
            return False
        track.missing = s.removal_frames  # dropped below
        top = _Track(self._next, d.quad.astype(np.float32), seen=n, confirmed=True)
        top.votes[d.card] = n
        self._next += 1
        self._tracks.append(top)
        return True

    def _mask(self, shape: tuple[int, ...], tracks: list[_Track]) -> NDArray[np.uint8]:
        mask = np.zeros(shape[:2], np.uint8)
        for t in tracks:
            cv2.fillConvexPoly(mask, np.round(t.quad / SCALE).astype(np.int32), 1)
        return mask

    def _looks_bare(self, small: NDArray[np.float32], track: _Track) -> bool:
        """Whether the place of a missing card shows bare table (else: covered)."""
        region = self._mask(small.shape, [track]).astype(bool)
        if region.sum() < 8:
            return True
        level = self.settings.background_level
        if self._background is not None and self._known is not None:
            known = region & self._known
            if known.sum() >= 0.5 * region.sum():
                return float(np.abs(small[known] - self._background[known]).mean()) < level
        # never saw the table there: compare with the table just round the card
        mask8 = region.astype(np.uint8)
        ring = cv2.dilate(mask8, np.ones((9, 9), np.uint8)) - cv2.dilate(
            mask8, np.ones((3, 3), np.uint8))
        ring_px = small[ring.astype(bool)]
        inside = small[region]
        if ring_px.size < 8:
            return True
        # medians and quartile spreads: a neighbouring card may lie in part of the ring
        ring_lo, ring_mid, ring_hi = np.percentile(ring_px, (25, 50, 75))
        in_lo, in_mid, in_hi = np.percentile(inside, (25, 50, 75))
        return bool(abs(float(in_mid - ring_mid)) < level
                    and float(in_hi - in_lo) < float(ring_hi - ring_lo) + level / 2)

    def _learn_background(self, small: NDArray[np.float32]) -> None:
        # keep a margin round every card: shadows and detection jitter
        covered = cv2.dilate(self._mask(small.shape, self._tracks), np.ones((5, 5), np.uint8))
        bare: NDArray[np.bool_] = np.asarray(covered, np.uint8) == 0
        if self._background is None or self._known is None \
                or self._background.shape != small.shape:
            self._background = small.copy()
            self._known = bare.astype(bool)
            return
        fresh = bare & ~self._known
        self._background[fresh] = small[fresh]
        self._known |= bare
        rate = 0.3
        self._background[bare] += rate * (small[bare] - self._background[bare])

    def _report(self) -> Change | None:
        current: dict[int, TableCard] = {}
        for t in self._tracks:
            if not t.confirmed:
                continue
            c = t.centre
            centre = (float(c[0]), float(c[1]))
            quad = tuple((float(x), float(y)) for x, y in t.quad)
            current[t.number] = TableCard(t.identity(self.settings), centre,
                                          quad, self.zone_of(centre), t.number)  # type: ignore[arg-type]
        before = self._emitted
        added = tuple(c for n, c in current.items()
                      if n not in before or before[n].card != c.card)
        removed = tuple(c for n, c in before.items()
                        if n not in current or current[n].card != c.card)
        # identity or position refinements of a card already reported keep it as it was
        self._emitted = {n: (before[n] if n in before and before[n].card == c.card else c)
                         for n, c in current.items()}
        if not added and not removed:
            return None
        return Change(added, removed, self.state)
