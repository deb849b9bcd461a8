"""Teaching a deck and keeping it: the folder a user teaches from, and the deck store.

A deck is taught from one image per distinct card: a face already cut out (a
dewarped camera view, a scan, a rendered face) or a photo of the card on a table.
Taught decks are stored as a folder per deck: ``references.npz`` (each card's
canonical face; everything else is derived from them when loaded) and ``deck.json``
(card ids, format version).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detect import CARD_H, CARD_W, DetectorSettings, dewarp, find_cards, portrait

Image = NDArray[np.uint8]

CARD_ID = re.compile(r"^[A-Za-z0-9*+\-]{1,32}$")
BACK = "back"
"""The id a taught deck's back is kept under beside its cards' faces (taught as one more
card, laid face down; ``back.png`` in a folder): a card the camera matches to it is said
to lie face down (:attr:`vision.refusal.Refusal.CARD_BACK`), never named."""
FORMAT_VERSION = 2
"""2: the canonical faces are stored (1: descriptors only, before keypoints)."""


class EnrollmentError(ValueError):
    """An enrollment folder, image or deck name that cannot be used."""


def default_store() -> Path:
    """Where enrolled decks live: ``$TABLE_COMPANION_DATA/decks`` or the XDG data dir."""
    env = os.environ.get("TABLE_COMPANION_DATA")
    if env:
        return Path(env) / "decks"
    return Path.home() / ".local" / "share" / "table-companion" / "decks"


def canonical_from_photo(image: Image) -> Image:
    """The card in an enrollment image, upright (portrait) at the canonical size.

    An image in a card's proportions is taken as the card itself (a face already cut out:
    a dewarped camera view, a scan, a rendered face); any other image may be a photo of
    the card on a table, and the largest card found in it is the card (it may fill most
    of the photo) when it stands out from what lies round it. Otherwise the whole image
    is taken: a face cut out in other proportions (a bridge-size card, a published
    design), whose own print can look like a smaller card's outline.
    """
    h, w = image.shape[:2]
    upright = cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE) if w > h else image
    ratio = max(h, w) / max(min(h, w), 1)
    if abs(ratio / (CARD_H / CARD_W) - 1) > CARD_SHAPED:
        quads = find_cards(image, PHOTO_SETTINGS)
        if quads:
            q = max(quads, key=cv2.contourArea)
            if cv2.contourArea(q) > 0.08 * h * w and stands_out(image, q):
                return dewarp(image, portrait(q))
    return np.asarray(cv2.resize(upright, (CARD_W, CARD_H), interpolation=cv2.INTER_AREA),
                      np.uint8)


OUTLINE_STEP = 30.0
"""Grey levels (summed over channels) between the two sides of a card's outline."""
OUTLINE_SHOWN = 0.6
"""Fraction of a card's outline that must stand out from what lies beyond it."""


def stands_out(image: Image, quad: NDArray[np.float32]) -> bool:
    """Whether ``quad`` is a card's outline in ``image``: along most of it, what lies
    just inside differs from what lies just outside (a card on a table; not a line of
    a card's own print that the detector closed into a quad, with paper on both sides).

    >>> photo = np.full((300, 400, 3), (40, 90, 150), np.uint8)
    >>> photo[50:250, 130:270] = 230
    >>> card = np.float32([[130, 50], [270, 50], [270, 250], [130, 250]])
    >>> stands_out(photo, card), stands_out(np.full((300, 400, 3), 230, np.uint8), card)
    (True, False)
    """
    blurred = cv2.GaussianBlur(image, (5, 5), 0).astype(np.float32)
    h, w = image.shape[:2]
    q = np.asarray(quad, np.float32).reshape(4, 2)
    centre = q.mean(axis=0)
    offset = max(3.0, 0.03 * float(np.min(np.linalg.norm(np.roll(q, -1, axis=0) - q,
                                                         axis=1))))
    shown = total = 0
    for a, b in zip(q, np.roll(q, -1, axis=0), strict=True):
        for t in np.linspace(0.1, 0.9, 24):  # not the corners, which may be rounded
            point = a + t * (b - a)
            out = point - centre
            out /= max(float(np.linalg.norm(out)), 1e-6)
            xi, yi = np.round(point - offset * out).astype(int)
            xo, yo = np.round(point + offset * out).astype(int)
            if not (0 <= xo < w and 0 <= yo < h and 0 <= xi < w and 0 <= yi < h):
                continue  # beyond the image: no evidence either way
            total += 1
            shown += float(np.abs(blurred[yi, xi] - blurred[yo, xo]).sum()) > OUTLINE_STEP
    return total > 0 and shown >= OUTLINE_SHOWN * total


CARD_SHAPED = 0.03
"""How far (a fraction) an image's proportions may be from a card's for it to be a card
already cut out (a photo is 4:3 or 16:9; a card 7:5)."""
PHOTO_SETTINGS = DetectorSettings(max_area_fraction=0.95)
"""The detector's limits for a photo of one card to teach: the card may fill the photo."""


def save_faces(store: Path, deck: str, cards: tuple[str, ...], faces: NDArray[np.uint8],
               ) -> Path:
    """Write a deck's faces (one per card, in ``cards`` order) to ``store/<deck>/``; each
    file is replaced whole, so a crash leaves the old deck or the new one."""
    folder = store / deck
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / "references.tmp.npz"
    np.savez_compressed(tmp, faces=faces)
    os.replace(tmp, folder / "references.npz")
    meta = {"version": FORMAT_VERSION, "deck": deck, "cards": list(cards)}
    (folder / "deck.json.tmp").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    os.replace(folder / "deck.json.tmp", folder / "deck.json")
    return folder


def load_faces(store: Path, deck: str) -> tuple[tuple[str, ...], NDArray[np.uint8]]:
    """The card ids and faces saved under ``store/<deck>/``; :class:`EnrollmentError`
    saying what to do when they are absent, damaged or of another format."""
    folder = store / deck
    again = (f"teach it again with 'companion vision enroll --deck {deck}' "
             "(or on the phone's camera page)")
    try:
        meta = json.loads((folder / "deck.json").read_text(encoding="utf-8"))
        if meta.get("version") == 1:
            raise EnrollmentError(
                f"enrolled deck {deck!r} in {folder} was taught by an older version "
                f"that kept no card images; {again}")
        with np.load(folder / "references.npz") as data:
            faces = np.asarray(data["faces"], np.uint8)
    except FileNotFoundError:
        raise EnrollmentError(
            f"no enrolled deck {deck!r} in {store}; enroll it first with "
            f"'companion vision enroll --deck {deck} --from DIR'") from None
    except (OSError, ValueError, KeyError) as exc:
        if isinstance(exc, EnrollmentError):
            raise
        raise EnrollmentError(f"enrolled deck {deck!r} in {folder} is damaged ({exc}); "
                              f"enroll it again: {again}") from None
    cards = tuple(meta.get("cards", ()))
    if meta.get("version") != FORMAT_VERSION or faces.shape != (
            len(cards), CARD_H, CARD_W, 3) or not cards:
        raise EnrollmentError(f"enrolled deck {deck!r} in {folder} has an unknown format; "
                              f"enroll it again: {again}")
    return cards, faces


def valid_deck_name(name: str) -> str:
    """A deck name safe as a folder name.

    >>> valid_deck_name("star-catcher")
    'star-catcher'
    >>> valid_deck_name("../x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    vision.taught_store.EnrollmentError: deck name '../x' must be letters, digits, '-' or '_' ...
    """
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_\-]{0,40}", name) or name == "standard":
        raise EnrollmentError(f"deck name {name!r} must be letters, digits, '-' or '_' "
                              "(like 'star-catcher')" if name != "standard" else
                              "'standard' is built in and needs no enrollment")
    return name


def load_folder(folder: Path) -> dict[str, Image]:
    """One image per card id from ``<card id>.png|.jpg`` files in ``folder`` (``back``: the
    deck's back, :data:`BACK`)."""
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

