"""The real photos of standard cards that tests and benches use (never copied here).

They live outside the repository (their licences are listed in their own
README): ``$TABLE_COMPANION_PHOTOS``, else ``<repository>/../shared/photos``.
``labels.jsonl`` there has one line per image::

    {"image": "guillex7/query/q1.jpg", "source": "GuilleX7/PlayingCardDetection",
     "cards": [{"card": "QS", "box": [x0, y0, x1, y1]}]}

Paths are relative to the folder; boxes are axis-aligned, in pixels of the stored
image, drawn by hand (about 10-20 px out on tilted cards). A card counts as found
when the centre of its detected quad lies inside its box.

>>> photo = parse_labels('{"image": "wmcnicho/t1.jpg", "source": "wmcnicho/Card-Detection", '
...                      '"cards": [{"card": "7H", "box": [10, 20, 110, 160]}]}', Path("/p"))[0]
>>> photo.folder, photo.cards[0].card, photo.cards[0].contains(60.0, 90.0)
('wmcnicho', '7H', True)
>>> missing_reason(Path("/nowhere"))
'no real photos: /nowhere/labels.jsonl is absent (set TABLE_COMPANION_PHOTOS)'
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.decks import STANDARD

ENV = "TABLE_COMPANION_PHOTOS"
LABELS = "labels.jsonl"
FOLDERS: tuple[str, ...] = ("guillex7/template", "guillex7/query", "alkenderesi", "wmcnicho")
"""The photo collections in the order they are reported (each one deck and camera)."""


@dataclass(frozen=True)
class LabelledCard:
    """One card that could be named with certainty, and its hand-drawn box."""

    card: str  # a standard id: "QS", "10H"
    box: tuple[int, int, int, int]  # x0, y0, x1, y1 in image pixels

    def contains(self, x: float, y: float) -> bool:
        """Whether image point (x, y) lies in the box (edges included)."""
        x0, y0, x1, y1 = self.box
        return x0 <= x <= x1 and y0 <= y <= y1


@dataclass(frozen=True)
class Photo:
    """One labelled photo."""

    image: Path  # absolute path of the image file
    name: str  # as in labels.jsonl, relative to the photos folder: "guillex7/query/q1.jpg"
    source: str  # where it was published, as labels.jsonl says: "GuilleX7/PlayingCardDetection"
    cards: tuple[LabelledCard, ...]

    @property
    def folder(self) -> str:
        """The collection it belongs to (one of :data:`FOLDERS` for the shared photos)."""
        return str(PurePosixPath(self.name).parent)

    def read(self) -> NDArray[np.uint8]:
        """The photo as BGR; ``ValueError`` when the file is missing or not an image."""
        image = cv2.imread(str(self.image), cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError(f"{self.image}: not a readable image")
        return np.asarray(image, np.uint8)


def photos_dir() -> Path:
    """Where the real photos are looked for (whether or not they are there)."""
    env = os.environ.get(ENV)
    if env:
        return Path(env)
    return Path(__file__).resolve().parent.parent.parent / "shared" / "photos"


def missing_reason(folder: Path | None = None) -> str | None:
    """One line saying why the photos cannot be used (a pytest skip, the bench), or
    ``None`` when their labels are there."""
    folder = folder or photos_dir()
    if not (folder / LABELS).is_file():
        return f"no real photos: {folder / LABELS} is absent (set {ENV})"
    return None


def parse_labels(text: str, folder: Path) -> tuple[Photo, ...]:
    """The photos that the lines of a ``labels.jsonl`` describe, images under ``folder``.

    Blank lines are skipped; a malformed line or an id that is not a standard card
    raises ``ValueError`` naming the line (a silent skip would change the score)."""
    photos = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            cards = []
            for c in entry["cards"]:
                if c["card"] not in STANDARD:
                    raise ValueError(f"{c['card']!r} is not a standard card id")
                x0, y0, x1, y1 = (int(v) for v in c["box"])
                cards.append(LabelledCard(c["card"], (x0, y0, x1, y1)))
            photos.append(Photo(folder / entry["image"], str(entry["image"]),
                                str(entry["source"]), tuple(cards)))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{LABELS} line {n}: {exc}") from None
    return tuple(photos)


def load_photos(folder: Path | None = None) -> tuple[Photo, ...]:
    """Every labelled photo; ``FileNotFoundError`` (with :func:`missing_reason`'s line)
    when the labels are absent."""
    folder = folder or photos_dir()
    reason = missing_reason(folder)
    if reason is not None:
        raise FileNotFoundError(reason)
    return parse_labels((folder / LABELS).read_text(encoding="utf-8"), folder)
