"""Print how a deck taught from real photos reads real photos of it.

    python bench/bench_taught_photos.py [--repeat N] [--cards] [--change NAME]

Two sets from ``../shared/photos/`` (one line saying why where they are absent):

* ``guillex7``: the deck taught the way a user teaches it (``enroll_folder``: one photo
  per card, named by the card, saved and loaded again), then the scenes in
  ``guillex7/query`` read through the whole recognizer;
* ``wmcnicho``: 32 cards photographed twice by an overhead webcam, taught from one
  photo of each and read in the other, both ways round.

Each is scored as ``companion vision bench --photos`` scores the standard deck (see
vision/photobench.py): right, unknown by reason, not found, wrong (a labelled card named
as another), off-box (a named quad in no labelled box), CPU ms per image on one core.
``--cards`` lists every labelled card that was not read right, and why. ``--change``
reads the photos changed as another set-up would change them (vision/photo_changes.py;
the cards are taught from the photos as taken): ``--change "shadow across"``.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core, honestly: set before numpy loads
os.environ.setdefault("OMP_NUM_THREADS", "1")
import argparse
import sys
import tempfile
from functools import partial
from pathlib import Path

import cv2

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from vision.bench import reason_key
from vision.enrolled import Gallery, enroll_folder
from vision.photo_changes import CHANGES, changed
from vision.photobench import PhotoChange, _box_for, report_photos, run_photos
from vision.photos import Photo, load_photos, missing_reason
from vision.pipeline import Recognizer

_RANK = {"1": "A", "11": "J", "12": "Q", "13": "K"}
_SUIT = {"clubs": "C", "diamonds": "D", "hearts": "H", "spades": "S"}


def _misses(rec: Recognizer, photos: list[Photo]) -> list[str]:
    """One line per labelled card not read right: the photo, the card, what was seen."""
    lines = []
    for photo in photos:
        dets = rec.detect(photo.read())
        on: dict[int, list[str]] = {}
        for d in dets:
            i = _box_for(d, photo.cards)
            if i is not None:
                on.setdefault(i, []).append(d.card or f"? ({reason_key(d)})")
        for i, card in enumerate(photo.cards):
            seen = on.get(i, [])
            if (seen != [card.card] and card.card not in seen) or any(
                    s != card.card and not s.startswith("?") for s in seen):
                lines.append(f"  {photo.name} {card.card}: {', '.join(seen) or 'not found'}")
    return lines


def guillex7(photos: tuple[Photo, ...], repeat: int, cards: bool,
             change: PhotoChange | None = None) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "photos"
        folder.mkdir()
        for p in photos:
            if p.folder == "guillex7/template":
                suit, rank = p.image.stem.split("_")
                (folder / f"{_RANK.get(rank, rank)}{_SUIT[suit]}.jpg").symlink_to(p.image)
        enroll_folder("real-deck", folder, Path(tmp) / "decks")
        rec = Recognizer("real-deck", store=Path(tmp) / "decks")
        scenes = [p for p in photos if p.folder == "guillex7/query"]
        out = report_photos(run_photos(scenes, rec, repeat, change))
        if cards and change is None:
            out += "\n" + "\n".join(_misses(rec, scenes))
        return out


def wmcnicho(photos: tuple[Photo, ...], repeat: int, cards: bool,
             change: PhotoChange | None = None) -> str:
    by_card: dict[str, list[Photo]] = {}
    for p in photos:
        if p.folder == "wmcnicho":
            by_card.setdefault(p.cards[0].card, []).append(p)
    pairs = [ps for ps in by_card.values() if len(ps) == 2]
    out = []
    for teach, read in ((0, 1), (1, 0)):
        gallery = Gallery.from_faces("webcam", {ps[teach].cards[0].card: ps[teach].read()
                                                for ps in pairs})
        rec = Recognizer(gallery)
        scenes = [ps[read] for ps in pairs]
        out.append(f"taught from photo {teach + 1}, read in photo {read + 1}:")
        out.append(report_photos(run_photos(scenes, rec, repeat, change)))
        if cards and change is None:
            out.extend(_misses(rec, scenes))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="times each image is read")
    parser.add_argument("--cards", action="store_true",
                        help="list the cards not read right (photos as taken)")
    parser.add_argument("--change", choices=list(CHANGES),
                        help="read the photos so changed (taught from them as taken)")
    args = parser.parse_args(argv)
    reason = missing_reason()
    if reason is not None:
        print(reason)
        return 0
    cv2.setNumThreads(1)
    photos = load_photos()
    change = None if args.change is None else partial(changed, change=args.change)
    seen = "" if args.change is None else f" ({args.change})"
    print(f"== guillex7: taught from one photo per card (template), read in query{seen} ==")
    print(guillex7(photos, args.repeat, args.cards, change))
    print()
    print(f"== wmcnicho: taught from one webcam photo per card, read in the other{seen} ==")
    print(wmcnicho(photos, args.repeat, args.cards, change))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
