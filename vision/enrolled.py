"""Learned decks: one reference image per distinct card, open-set matching.

A dewarped card is compared with every reference as a whole-card perceptual
descriptor (a small, blurred, contrast-normalised colour image, so lighting
gain and offset cancel out), in both 180-degree orientations. A match is
accepted only when it is good in absolute terms *and* clearly beats the best
other card; anything else is "unknown", because a wrong card is worse than
none.

Near-identical faces (``D7``, ``D7*``, ``D7**``) are settled by a second stage
that compares a larger view only where the close candidates differ. The card
is first shifted into place (phase correlation) and must then win by a wider
margin; only when that is not clear is it fitted onto the best candidate
(affine ECC, the costly part) and judged with the usual margin.

Galleries are stored as a folder per deck: ``references.npz`` (descriptors)
and ``deck.json`` (card ids, version).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detect import CARD_H, CARD_W, dewarp, find_cards, portrait
from vision.standard import matvec

Image = NDArray[np.uint8]

DESC_SIZE = (30, 42)
FINE_SIZE = (60, 84)
DESC_WEIGHTS = np.array([1.0, 0.7, 0.7])  # L, a, b: lightness carries the most
MARGIN = 0.09  # fraction of the card trimmed on each side: edges are where dewarps disagree
CARD_ID = re.compile(r"^[A-Za-z0-9*+\-]{1,32}$")
FORMAT_VERSION = 1


class EnrollmentError(ValueError):
    """An enrollment folder, image or deck name that cannot be used."""


def default_store() -> Path:
    """Where enrolled decks live: ``$TABLE_COMPANION_DATA/decks`` or the XDG data dir."""
    env = os.environ.get("TABLE_COMPANION_DATA")
    if env:
        return Path(env) / "decks"
    return Path.home() / ".local" / "share" / "table-companion" / "decks"


def _inner(card: Image, size: tuple[int, int]) -> Image:
    """The card without its margin, area-averaged to ``size``."""
    h, w = card.shape[:2]
    mx, my = round(w * MARGIN), round(h * MARGIN)
    return np.asarray(cv2.resize(card[my:h - my, mx:w - mx], size,
                                 interpolation=cv2.INTER_AREA), np.uint8)


def describe(card: Image) -> NDArray[np.float32]:
    """The perceptual descriptor of a canonical card (unit vector)."""
    return _descriptor(_inner(card, DESC_SIZE))


def _descriptor(small: Image) -> NDArray[np.float32]:
    """:func:`describe` from the card's inner part at ``DESC_SIZE``."""
    blurred = cv2.GaussianBlur(small, (3, 3), 0)
    lab = cv2.cvtColor(blurred, cv2.COLOR_BGR2LAB).astype(np.float32)
    # each channel centred and scaled to its weight; the norm of a centred channel is its
    # standard deviation times sqrt(pixels) (cv2's statistics: numpy's are slow on 3 channels)
    mean, std = cv2.meanStdDev(lab)
    norms = std.ravel() * np.sqrt(lab.shape[0] * lab.shape[1])
    scale = np.where(norms > 1e-3, DESC_WEIGHTS / np.maximum(norms, 1e-3), 0.0)
    out = ((lab - mean.ravel().astype(np.float32)) * scale.astype(np.float32))
    out = np.ascontiguousarray(out.transpose(2, 0, 1)).ravel()  # channel after channel
    n = float(np.sqrt(np.dot(out, out)))
    return (out / n if n > 1e-6 else out).astype(np.float32)


def canonical_from_photo(image: Image) -> Image:
    """The card in an enrollment image: a found card quad, else the whole image."""
    h, w = image.shape[:2]
    quads = find_cards(image)
    if quads:
        q = quads[0]
        if cv2.contourArea(q) > 0.15 * h * w:
            return dewarp(image, portrait(q))
    upright = cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE) if w > h else image
    return np.asarray(cv2.resize(upright, (CARD_W, CARD_H), interpolation=cv2.INTER_AREA),
                      np.uint8)


def fine_view(card: Image) -> NDArray[np.float32]:
    """A larger, per-channel standardised view for telling near-identical cards apart."""
    return _fine(_inner(card, FINE_SIZE))


def _fine(small: Image) -> NDArray[np.float32]:
    """:func:`fine_view` from the card's inner part at ``FINE_SIZE``."""
    f = cv2.GaussianBlur(small, (0, 0), 0.9).astype(np.float32)
    mean, std = cv2.meanStdDev(f)
    return np.asarray((f - mean.ravel().astype(np.float32))
                      / (std.ravel().astype(np.float32) + np.float32(1e-3)), np.float32)


def _grey(view: NDArray[np.float32]) -> NDArray[np.float32]:
    """The mean of a fine view's three channels."""
    return np.asarray(cv2.transform(view, _THIRDS), np.float32)


_THIRDS = np.full((1, 3), 1 / 3, np.float32)
_ONES = np.ones((1, 3), np.float32)


def _shift(query: NDArray[np.float32], ref: NDArray[np.float32],
           ) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """The grey ``query`` and the translation (2 x 3) that lays it onto the grey ``ref``
    (phase correlation; none when it is implausibly far)."""
    q = _grey(query)
    (dx, dy), _ = cv2.phaseCorrelate(ref, q)
    if abs(dx) > 8 or abs(dy) > 8:
        dx = dy = 0.0
    return q, np.array([[1, 0, dx], [0, 1, dy]], np.float32)


def _warped(query: NDArray[np.float32], warp: NDArray[np.float32]) -> NDArray[np.float32]:
    h, w = query.shape[:2]
    return np.asarray(cv2.warpAffine(query, warp, (w, h),
                                     flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                     borderMode=cv2.BORDER_REPLICATE), np.float32)


def aligned(query: NDArray[np.float32], ref: NDArray[np.float32],
             shift: tuple[NDArray[np.float32], NDArray[np.float32]] | None = None,
             ) -> NDArray[np.float32]:
    """``query`` warped onto ``ref`` (a fine view, or its grey): dewarps are off by a few
    pixels, a little scale or a degree or two (an affine ECC fit, started from a
    phase-correlation shift; ``shift`` is that :func:`_shift` when already known)."""
    r = _grey(ref) if ref.ndim == 3 else ref
    q, start = shift if shift is not None else _shift(query, r)
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 40, 1e-4)
    try:
        _, found = cv2.findTransformECC(r, q, start.copy(), cv2.MOTION_AFFINE, criteria,
                                        None, 5)  # type: ignore[call-overload]
        warp = np.asarray(found, np.float32)
    except cv2.error:
        warp = start  # no convergence: keep the shift
    if np.abs(warp[:, :2] - np.eye(2)).max() > 0.15 or np.abs(warp[:, 2]).max() > 12:
        return query  # implausible: a different card, not a misaligned one
    return _warped(query, warp)


@dataclass(frozen=True)
class Match:
    card: str | None
    score: float
    runner_up: float


@dataclass(frozen=True)
class Gallery:
    """The references of one deck."""

    deck: str
    cards: tuple[str, ...]
    descriptors: NDArray[np.float32]  # len(cards) x 2 orientations x D
    fine: NDArray[np.float32]  # len(cards) x 2 orientations x FINE_SIZE view
    min_score: float = 0.80
    min_margin: float = 0.07
    window: float = 0.12  # cards this close to the best go to the fine comparison
    min_clear: float = 0.4  # how clearly the aligned card must be one of the close cards
    quick_clear: float = 0.6  # the same after a shift only, before the affine fit
    # where two references differ, cached per pair and orientation: pixel indices
    _differ: dict[tuple[int, int, int, int], NDArray[np.intp]] = field(
        default_factory=dict, init=False, repr=False, compare=False)
    # the grey fine view of each reference the second stage aligned a card onto
    _grey: dict[tuple[int, int], NDArray[np.float32]] = field(
        default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def from_faces(cls, deck: str, faces: dict[str, Image]) -> Gallery:
        """Build a gallery from one canonical (or photographed) image per card id."""
        if not faces:
            raise EnrollmentError(f"deck {deck!r} needs at least one card image")
        cards = tuple(sorted(faces))
        rows = []
        fine = []
        for card in cards:
            c = canonical_from_photo(faces[card])
            turned = np.ascontiguousarray(c[::-1, ::-1])
            rows.append([describe(c), describe(turned)])
            fine.append([fine_view(c), fine_view(turned)])
        return cls(deck, cards, np.array(rows, np.float32), np.array(fine, np.float32))

    @cached_property
    def _alike(self) -> bool:
        """Whether most cards have a near-identical twin (and so usually need the second
        stage): then the fine view is made first and the descriptor from it (halving it
        gives the same up to rounding), not both from the card (area averaging at odd
        ratios is slow)."""
        if len(self.cards) < 2:
            return False
        scores = np.einsum("id,jkd->ijk", self.descriptors[:, 0], self.descriptors).max(axis=2)
        np.fill_diagonal(scores, -1.0)
        return bool(np.median(scores.max(axis=1)) >= 1.0 - 2 * self.min_margin)

    def identify(self, card: Image) -> Match:
        """The reference a canonical card shows, or ``card=None`` when not clearly one."""
        inner = _inner(card, FINE_SIZE) if self._alike else None
        d = describe(card) if inner is None else _descriptor(
            np.asarray(cv2.resize(inner, DESC_SIZE, interpolation=cv2.INTER_AREA), np.uint8))
        scores = matvec(self.descriptors, d)  # cards x orientations
        per_card = scores.max(axis=1)
        order = np.argsort(-per_card)
        best = float(per_card[order[0]])
        second = float(per_card[order[1]]) if len(order) > 1 else -1.0
        if best < self.min_score:
            return Match(None, best, second)
        if len(order) == 1 and best < self.min_score + self.min_margin:
            # nothing to beat (a one-card gallery, early in enrollment): a similar-looking
            # card of the same deck can score just above min_score, so ask for the margin too
            return Match(None, best, second)
        if best - second >= self.min_margin:
            return Match(self.cards[int(order[0])], best, second)
        # near-identical faces (D7, D7*, D7**): settle it where they differ
        close = [(int(i), int(np.argmax(scores[i]))) for i in order
                 if per_card[i] >= best - self.window]
        fine = fine_view(card) if inner is None else _fine(inner)
        ref = self._grey_reference(close[0])
        shift = _shift(fine, ref)
        # Most cards are clear once shifted into place: asking for a wider margin then
        # leaves the affine fit (the costly part) to the rest.
        found = self._winner(_warped(fine, shift[1]), close, self.quick_clear)
        if found is None:
            found = self._winner(aligned(fine, ref, shift), close, self.min_clear)
        return Match(None if found is None else self.cards[found], best, second)

    def _winner(self, query: NDArray[np.float32], close: list[tuple[int, int]],
                clear: float) -> int | None:
        """The one of the ``close`` references that the aligned fine ``query`` is clearly
        (by ``clear``) rather than each other one, if any."""
        distance: dict[tuple[int, int], NDArray[np.float32]] = {}

        def to(ref: tuple[int, int]) -> NDArray[np.float32]:
            """The query's per-pixel distance (summed over channels) to a reference."""
            if ref not in distance:
                diff = cv2.absdiff(query, self.fine[ref])
                distance[ref] = np.asarray(cv2.transform(diff, _ONES), np.float32).ravel()
            return distance[ref]

        for mine in close:
            if all(self._beats(to(mine), to(other), mine, other, clear)
                   for other in close if other != mine):
                return mine[0]
        return None

    def _grey_reference(self, ref: tuple[int, int]) -> NDArray[np.float32]:
        if ref not in self._grey:
            self._grey[ref] = _grey(self.fine[ref])
        return self._grey[ref]

    def _beats(self, to_mine: NDArray[np.float32], to_other: NDArray[np.float32],
               mine: tuple[int, int], other: tuple[int, int], clear: float) -> bool:
        """Whether the query (at per-pixel distances ``to_mine`` and ``to_other``) is clearly
        ``mine`` rather than ``other`` where those two references differ: by ``clear``, a
        fraction of the distance to ``other``."""
        key = (*mine, *other)
        if key not in self._differ:
            a, b = self.fine[mine].reshape(-1, 3), self.fine[other].reshape(-1, 3)
            self._differ[key] = np.flatnonzero(np.abs(a - b).sum(axis=1) > 1.5)
        where = self._differ[key]
        if len(where) < 12:
            return False  # the references are the same picture
        da = float(to_mine[where].sum())
        db = float(to_other[where].sum())
        return da < db and 1.0 - da / max(db, 1e-6) >= clear

    # -- storage ------------------------------------------------------------

    def save(self, store: Path) -> Path:
        folder = store / self.deck
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / "references.tmp.npz"
        np.savez_compressed(tmp, descriptors=self.descriptors, fine=self.fine)
        os.replace(tmp, folder / "references.npz")
        meta = {"version": FORMAT_VERSION, "deck": self.deck, "cards": list(self.cards)}
        (folder / "deck.json.tmp").write_text(json.dumps(meta, indent=1), encoding="utf-8")
        os.replace(folder / "deck.json.tmp", folder / "deck.json")
        return folder

    @classmethod
    def load(cls, store: Path, deck: str) -> Gallery:
        folder = store / deck
        try:
            meta = json.loads((folder / "deck.json").read_text(encoding="utf-8"))
            with np.load(folder / "references.npz") as data:
                desc = np.asarray(data["descriptors"], np.float32)
                fine = np.asarray(data["fine"], np.float32)
        except FileNotFoundError:
            raise EnrollmentError(
                f"no enrolled deck {deck!r} in {store}; enroll it first with "
                f"'companion vision enroll --deck {deck} --from DIR'") from None
        except (OSError, ValueError, KeyError) as exc:
            raise EnrollmentError(f"enrolled deck {deck!r} in {folder} is damaged ({exc}); "
                                  "enroll it again") from None
        cards = tuple(meta.get("cards", ()))
        if meta.get("version") != FORMAT_VERSION or desc.shape[:2] != (len(cards), 2) \
                or fine.shape[:2] != (len(cards), 2):
            raise EnrollmentError(f"enrolled deck {deck!r} in {folder} has an unknown format; "
                                  "enroll it again")
        return cls(deck, cards, desc, fine)


def valid_deck_name(name: str) -> str:
    """A deck name safe as a folder name.

    >>> valid_deck_name("star-catcher")
    'star-catcher'
    >>> valid_deck_name("../x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    vision.enrolled.EnrollmentError: deck name '../x' must be letters, digits, '-' or '_' ...
    """
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_\-]{0,40}", name) or name == "standard":
        raise EnrollmentError(f"deck name {name!r} must be letters, digits, '-' or '_' "
                              "(like 'star-catcher')" if name != "standard" else
                              "'standard' is built in and needs no enrollment")
    return name


def load_folder(folder: Path) -> dict[str, Image]:
    """One image per card id from ``<card id>.png|.jpg`` files in ``folder``."""
    if not folder.is_dir():
        raise EnrollmentError(f"{folder} is not a folder; expected a folder of "
                              "<card id>.png or .jpg images")
    faces: dict[str, Image] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in (".png", ".jpg", ".jpeg"):
            continue
        card = path.stem
        if not CARD_ID.match(card):
            raise EnrollmentError(f"{path.name}: {card!r} is not a card id (like D7*, C5, M, "
                                  "harry)")
        if card in faces:
            raise EnrollmentError(f"{path.name}: card {card!r} has two images; keep one")
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if img is None or min(img.shape[:2]) < 40:
            raise EnrollmentError(f"{path.name}: not a readable image at least 40 pixels wide")
        faces[card] = np.asarray(img, np.uint8)
    if len(faces) < 2:
        raise EnrollmentError(f"{folder} holds {len(faces)} card images; a deck needs at "
                              "least 2 (one clean, flat, upright image per distinct card)")
    return faces


def enroll_folder(deck: str, folder: Path, store: Path) -> Gallery:
    """Enroll a deck from a folder of card images and save it under ``store``."""
    gallery = Gallery.from_faces(valid_deck_name(deck), load_folder(folder))
    gallery.save(store)
    return gallery
