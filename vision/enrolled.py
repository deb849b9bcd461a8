"""Learned decks: one reference image per distinct card, open-set matching.

A dewarped card is compared with every reference as a whole-card perceptual
descriptor (a small, blurred, contrast-normalised colour image, so lighting
gain and offset cancel out), in both 180-degree orientations. A match is
accepted only when it is good in absolute terms *and* clearly beats the best
other card; anything else is "unknown", because a wrong card is worse than
none.

Galleries are stored as a folder per deck: ``references.npz`` (descriptors)
and ``deck.json`` (card ids, version).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detect import CARD_H, CARD_W, dewarp, find_cards, portrait
from vision.standard import matvec

Image = NDArray[np.uint8]

DESC_SIZE = (30, 42)
FINE_SIZE = (60, 84)
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


def describe(card: Image) -> NDArray[np.float32]:
    """The perceptual descriptor of a canonical card (unit vector)."""
    h, w = card.shape[:2]
    mx, my = round(w * MARGIN), round(h * MARGIN)
    inner = card[my:h - my, mx:w - mx]
    small = cv2.resize(inner, DESC_SIZE, interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (3, 3), 0)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    parts = []
    for ch, weight in ((0, 1.0), (1, 0.7), (2, 0.7)):
        v = lab[:, :, ch].ravel()
        v = v - v.mean()
        n = float(np.linalg.norm(v))
        parts.append(weight * v / n if n > 1e-3 else v * 0)
    out = np.concatenate(parts)
    n = float(np.linalg.norm(out))
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
    h, w = card.shape[:2]
    mx, my = round(w * MARGIN), round(h * MARGIN)
    small = cv2.resize(card[my:h - my, mx:w - mx], FINE_SIZE, interpolation=cv2.INTER_AREA)
    f = cv2.GaussianBlur(small, (0, 0), 0.9).astype(np.float32)
    f -= f.mean(axis=(0, 1))
    f /= f.std(axis=(0, 1)) + 1e-3
    return f


def _aligned(query: NDArray[np.float32], ref: NDArray[np.float32]) -> NDArray[np.float32]:
    """``query`` warped onto ``ref``: dewarps are off by a few pixels, a little
    scale or a degree or two (an affine ECC fit, started from a phase-correlation shift)."""
    q, r = query.mean(axis=2), ref.mean(axis=2)
    (dx, dy), _ = cv2.phaseCorrelate(r, q)
    if abs(dx) > 8 or abs(dy) > 8:
        dx = dy = 0.0
    shift = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 40, 1e-4)
    try:
        _, found = cv2.findTransformECC(r, q, shift.copy(), cv2.MOTION_AFFINE, criteria,
                                        None, 5)  # type: ignore[call-overload]
        warp = np.asarray(found, np.float32)
    except cv2.error:
        warp = shift  # no convergence: keep the shift
    if np.abs(warp[:, :2] - np.eye(2)).max() > 0.15 or np.abs(warp[:, 2]).max() > 12:
        return query  # implausible: a different card, not a misaligned one
    h, w = query.shape[:2]
    return np.asarray(cv2.warpAffine(query, warp, (w, h),
                                     flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                     borderMode=cv2.BORDER_REPLICATE), np.float32)


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
    min_clear: float = 0.4
    # where two references differ, cached per pair and orientation: pixel indices and values
    _differ: dict[tuple[int, int, int, int], tuple[NDArray[np.intp], NDArray[np.float32],
                                                    NDArray[np.float32]]] = field(
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

    def identify(self, card: Image) -> Match:
        """The reference a canonical card shows, or ``card=None`` when not clearly one."""
        d = describe(card)
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
        query = _aligned(fine_view(card), self.fine[close[0]]).reshape(-1, 3)
        for mine in close:
            if all(self._beats(query, mine, other) for other in close if other != mine):
                return Match(self.cards[mine[0]], best, second)
        return Match(None, best, second)

    def _beats(self, query: NDArray[np.float32], mine: tuple[int, int],
               other: tuple[int, int]) -> bool:
        """Whether the query is clearly ``mine`` rather than ``other`` where they differ."""
        key = (*mine, *other)
        if key not in self._differ:
            a, b = self.fine[mine].reshape(-1, 3), self.fine[other].reshape(-1, 3)
            where = np.flatnonzero(np.abs(a - b).sum(axis=1) > 1.5)
            self._differ[key] = (where, a[where], b[where])
        where, a_px, b_px = self._differ[key]
        if len(where) < 12:
            return False  # the references are the same picture
        q = query[where]
        da = float(np.abs(q - a_px).mean())
        db = float(np.abs(q - b_px).mean())
        return da < db and 1.0 - da / max(db, 1e-6) >= self.min_clear

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
