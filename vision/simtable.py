"""A simulated card table seen by a simulated overhead camera.

:class:`SimTable` is a virtual table: which card lies where (the centre, or
the area in front of each seat), rendered into camera frames with
:func:`vision.render.compose_scene` and four ArUco calibration markers at the
play area's corners, so the real calibration, detection, identification and
tracking run on it. :class:`SimCameraSource` reads it like a camera and can
be unplugged and plugged back in (fault tests).

The camera looks straight down (no tilt), so table-plane pixels are image
pixels; every new layout gets a slightly different light level, as a real
room does when someone leans over the table.

:meth:`SimTable.show` changes the layout and waits until the camera has
delivered enough frames of it for the tracker to settle (``settle_frames``).

>>> table = SimTable("star-plus", ("Ann", "Ben"), size=(640, 360))
>>> table.zone_point("centre")
(320.0, 180.0)
>>> table.render().shape
(360, 640, 3)
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.decks import deck_ids
from vision.enrolled import Gallery
from vision.render import Conditions, Placement, compose_scene, render_card
from vision.sources import FrameSource

Image = NDArray[np.uint8]

SETTLE_FRAMES = 6
"""Frames of one layout the tracker needs: one with motion, three quiet, and a margin."""
CENTRE = "centre"


class SimTableError(ValueError):
    """A move the virtual table cannot make (no room left, a card that is not there)."""


@lru_cache(maxsize=4)
def rendered_gallery(deck: str) -> Gallery:
    """The gallery of ``deck`` enrolled from the renderer's own faces (the sim camera's deck)."""
    return Gallery.from_faces(deck, {card: render_card(deck, card) for card in deck_ids(deck)})


@dataclass(frozen=True)
class Laid:
    """One physical card on the virtual table."""

    card: str
    zone: str  # "centre" or "seat:NAME"
    x: float
    y: float


class SimTable:
    """Cards on a virtual table, and the camera frames that show them."""

    def __init__(self, deck: str, players: Sequence[str] = (), *,
                 size: tuple[int, int] = (1280, 720), seed: int = 0,
                 settle_frames: int = SETTLE_FRAMES, settle_timeout: float = 10.0,
                 markers: bool = True) -> None:
        deck_ids(deck)  # an unknown deck fails here, with the list of decks
        self.deck = deck
        self.players = tuple(players)
        self.markers = markers
        self.size = size
        self.seed = seed
        self.settle_frames = settle_frames
        self.settle_timeout = settle_timeout
        w, h = size
        self.marker_side = max(24, round(h / 12))
        inset = 1.5 * self.marker_side  # ArUco misses markers hard against the image edge
        self.rect = (float(inset), float(inset), float(w - inset), float(h - inset))
        self.cards: list[Laid] = []
        self._lock = threading.Condition()
        self._version = 0
        self._frames_of_version = 0
        self._cache: tuple[int, Image] | None = None

    def reset(self, deck: str, players: Sequence[str], markers: bool = True) -> None:
        """A new game at the table: another deck, other seats, nothing laid out.

        Without ``markers`` the camera cannot calibrate: the whole picture is the centre,
        and the centre's places fill the whole picture.
        """
        deck_ids(deck)
        with self._lock:
            self.deck, self.players, self.markers = deck, tuple(players), markers
            self.cards = []
            self._version += 1
            self._frames_of_version = 0

    # -- geometry -------------------------------------------------------------------

    @property
    def card_width(self) -> float:
        """Cards look larger when there are no seat areas to fit round the centre."""
        return (0.15 if self.markers else 0.16) * self.size[1]

    @property
    def card_height(self) -> float:
        return self.card_width * 350 / 250

    def zone_point(self, zone: str) -> tuple[float, float]:
        """The middle of a zone on the image (a seat's area lies towards its table edge)."""
        x0, y0, x1, y1 = self.rect
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        if zone == CENTRE:
            return cx, cy
        seat = zone.removeprefix("seat:")
        if seat not in self.players:
            raise SimTableError(f"no seat {seat!r}; the seats are {', '.join(self.players)}")
        # seats clockwise from the bottom edge, as TableGeometry.zone_of counts them
        angle = math.radians(360 / len(self.players) * self.players.index(seat))
        return (cx - math.sin(angle) * 0.40 * (x1 - x0),
                cy + math.cos(angle) * 0.41 * (y1 - y0))

    def _slots(self, zone: str) -> list[tuple[float, float]]:
        """Free-standing places for cards in a zone, in filling order."""
        step_x, step_y = self.card_width * 1.35, self.card_height * 1.12
        cx, cy = self.zone_point(zone)
        if zone == CENTRE:
            x0, y0, x1, y1 = self.rect
            # with markers, TableGeometry's centre zone; without, the whole picture
            share = 0.3 if self.markers else 0.5
            half_w, half_h = share * (x1 - x0), share * (y1 - y0)
            cols = max(1, int((2 * half_w - self.card_width) // step_x) + 1)
            rows = max(1, int((2 * half_h - self.card_height) // step_y) + 1)
            return [(cx + (c - (cols - 1) / 2) * step_x, cy + (r - (rows - 1) / 2) * step_y)
                    for r in range(rows) for c in range(cols)]
        # a seat: one row along its table edge, from the middle outwards, with clear gaps
        step_x = self.card_width * 1.3
        return [(cx + k * step_x, cy) for k in (0, 1, -1, 2, -2, 3, -3)]

    def spread(self, zone: str = CENTRE) -> list[Laid]:
        """The table now with the cards of ``zone`` pushed apart into every other column of
        its places (cards already in one stay), so that each has room beside it."""
        slots = self._slots(zone)
        xs = sorted({round(x, 3) for x, _ in slots})
        roomy = [(x, y) for x, y in slots if xs.index(round(x, 3)) % 2 == 0]
        roomy += [p for p in slots if p not in roomy]
        cards = self.in_zone(zone)
        keep = [c for c in cards if any(abs(c.x - x) <= 1 and abs(c.y - y) <= 1
                                        for x, y in roomy[:len(cards)])]
        layout = [c for c in self.cards if c.zone != zone] + keep
        for c in cards:
            if c in keep:
                continue
            x, y = next(p for p in roomy if all(abs(p[0] - k.x) > 1 or abs(p[1] - k.y) > 1
                                                 for k in layout))
            layout.append(Laid(c.card, zone, x, y))
        return layout

    def _free(self, x: float, y: float, layout: list[Laid]) -> bool:
        """A card at (x, y) would overlap none in ``layout`` (and keep a small gap)."""
        w, h = self.card_width * 1.15, self.card_height * 1.1
        return all(abs(x - c.x) >= w or abs(y - c.y) >= h for c in layout)

    def in_zone(self, zone: str) -> list[Laid]:
        return [c for c in self.cards if c.zone == zone]

    # -- moves ------------------------------------------------------------------------------

    def with_added(self, cards: Iterable[str], zone: str,
                   base: list[Laid] | None = None) -> list[Laid]:
        """``base`` (default: the table now) with ``cards`` laid in free places of ``zone``;
        raises :class:`SimTableError` when the zone is full."""
        layout = list(self.cards if base is None else base)
        for card in cards:
            for x, y in self._slots(zone):
                if self._free(x, y, layout):
                    layout.append(Laid(card, zone, x, y))
                    break
            else:
                raise SimTableError(f"no room left in {zone} for {card}")
        return layout

    def showcase(self, count: int = 5, seed: int = 0) -> list[Laid]:
        """A few cards of the table's deck spread over the centre (the same ones for the
        same ``seed``): what lies on a table nobody is playing at yet.

        >>> table = SimTable("star-catcher", size=(640, 360))
        >>> shown = table.showcase(5)
        >>> len(shown), {c.zone for c in shown}, len({c.card for c in shown})
        (5, {'centre'}, 5)
        """
        cards = random.Random(seed).sample(sorted(deck_ids(self.deck)), count)
        return self.with_added(cards, CENTRE, [])

    def with_beside(self, card: str, target: str, zone: str = CENTRE,
                    ignore: Iterable[str] = (), base: list[Laid] | None = None) -> list[Laid]:
        """``base`` (default: the table now) with ``card`` in the free place of ``zone``
        nearest ``target``, where ``target`` is clearly the closest card (but those in
        ``ignore``): a card played *next to* a target. Raises :class:`SimTableError` when
        the target is not there or no such place is free."""
        layout = list(self.cards if base is None else base)
        beside = next((c for c in layout if c.card == target and c.zone == zone), None)
        if beside is None:
            raise SimTableError(f"{target} is not on the table")
        others = [c for c in layout if c.card not in set(ignore) and c is not beside]
        margin = 0.15 * self.card_width

        def dist(x: float, y: float, c: Laid) -> float:
            return math.hypot(c.x - x, c.y - y)

        # any place clear of the other cards, not only the zone's slots (an eighth card apart)
        slots = self._slots(zone)
        w, h = self.size
        cw, ch = self.card_width, self.card_height
        x0 = max(min(x for x, _ in slots) - cw / 2, cw / 2 + 8)
        x1 = min(max(x for x, _ in slots) + cw / 2, w - cw / 2 - 8)
        y0 = max(min(y for _, y in slots) - ch / 4, ch / 2 + 8)
        y1 = min(max(y for _, y in slots) + ch / 4, h - ch / 2 - 8)
        step = self.card_width / 8
        places = [(x0 + i * step, y0 + j * step)
                  for i in range(int((x1 - x0) / step) + 1)
                  for j in range(int((y1 - y0) / step) + 1)]
        free = [(x, y) for x, y in places if self._free(x, y, layout)]
        for x, y in sorted(free, key=lambda p: dist(p[0], p[1], beside)):
            if all(dist(x, y, c) > dist(x, y, beside) + margin for c in others):
                return [*layout, Laid(card, zone, x, y)]
        raise SimTableError(f"no free place next to {target} for {card}")

    def with_removed(self, cards: Iterable[str], zone: str | None = None) -> list[Laid]:
        """The layout without one card of each id in ``cards``; raises when one is missing."""
        layout = list(self.cards)
        for card in cards:
            found = next((c for c in layout if c.card == card
                          and (zone is None or c.zone == zone)), None)
            if found is None:
                raise SimTableError(f"{card} is not on the table")
            layout.remove(found)
        return layout

    def show(self, layout: list[Laid], wait: bool = True) -> bool:
        """Lay the table out as ``layout``; with ``wait``, until the camera has settled on it.

        Returns ``False`` if the camera did not deliver enough frames in time.
        """
        with self._lock:
            self.cards = list(layout)
            self._version += 1
            self._frames_of_version = 0
            version = self._version
        return self.wait_settled(version) if wait else True

    def wait_settled(self, version: int | None = None) -> bool:
        deadline = time.monotonic() + self.settle_timeout
        with self._lock:
            version = self._version if version is None else version
            while self._version == version and self._frames_of_version < self.settle_frames:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(left)
            return True

    def clear(self, wait: bool = True) -> bool:
        return self.show([], wait)

    # -- frames -------------------------------------------------------------------------

    def render(self) -> Image:
        """The camera frame of the table as it lies now (cached until the layout changes)."""
        with self._lock:
            version, cards = self._version, list(self.cards)
            cached = self._cache
        if cached is not None and cached[0] == version:
            frame = cached[1]
        else:
            frame = self._draw(cards, version)
            with self._lock:
                self._cache = (version, frame)
        with self._lock:
            if self._version == version:
                self._frames_of_version += 1
                self._lock.notify_all()
        return frame

    def _draw(self, cards: list[Laid], version: int) -> Image:
        placements = [Placement(c.card, c.x, c.y, 0.0, self.card_width) for c in cards]
        conditions = Conditions(deck=self.deck, table="dark", designs=(0,), size=self.size,
                                gradient=False, print_variation=False)
        scene = compose_scene(placements, self.deck, self.seed, conditions)
        image = scene.image
        if self.markers:
            self._draw_markers(image)
        # the room's light drifts a little between layouts
        gain = random.Random(self.seed * 7919 + version).uniform(0.94, 1.04)
        lit: Image = np.clip(image.astype(np.float32) * gain, 0, 255).astype(np.uint8)
        lit.setflags(write=False)
        return lit

    def _draw_markers(self, image: Image) -> None:
        """ArUco markers 0-3 (DICT_4X4_50) centred on the play area's corners."""
        dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
        side = self.marker_side
        x0, y0, x1, y1 = self.rect
        pad = max(4, side // 4)
        for i, (cx, cy) in enumerate([(x0, y0), (x1, y0), (x1, y1), (x0, y1)]):
            marker = cv2.aruco.generateImageMarker(dictionary, i, side)
            left, top = round(cx - side / 2), round(cy - side / 2)
            image[max(top - pad, 0):top + side + pad, max(left - pad, 0):left + side + pad] = 245
            image[top:top + side, left:left + side] = marker[:, :, None]


class SimCameraSource(FrameSource):
    """The simulated camera over a :class:`SimTable`; ``unplug()`` stops its frames."""

    def __init__(self, table: SimTable) -> None:
        super().__init__()
        self.table = table
        self.plugged = threading.Event()
        self.plugged.set()

    def unplug(self) -> None:
        self.plugged.clear()

    def replug(self) -> None:
        self.plugged.set()

    def _read(self) -> Image | None:
        if not self.plugged.is_set():
            return None
        return self.table.render()
