"""``companion vision enroll|detect|bench``: the command-line contract.

``detect`` prints one JSON object per image on standard output:
``{"image": PATH, "cards": [{"card": "QS", "quad": [[x, y], ...], "score": 0.97,
"reason": null}]}`` (``reason``: why an unknown card, ``"card": null``, was not named).
``bench --photos`` scores the standard deck on the real photos instead of rendered scenes.
Errors go to standard error as one plain line, with exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from vision.decks import DECKS

if TYPE_CHECKING:
    from vision.enrolled import Gallery


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="companion vision",
                                description="Recognize cards with the overhead camera.")
    sub = p.add_subparsers(dest="command", required=True)
    e = sub.add_parser("enroll", help="learn a deck from one image per distinct card")
    e.add_argument("--deck", required=True, help="name for the deck, like star-catcher")
    source = e.add_mutually_exclusive_group(required=True)
    source.add_argument("--from", dest="folder", type=Path,
                        help="folder of <card id>.png or .jpg images, one per distinct card "
                        "(and back.png, optional: the deck's back, so a card face down is "
                        "said to be one)")
    source.add_argument("--camera", help="guided: show each card to this camera "
                        "(webcam:0, picamera, replay:PATH)")
    e.add_argument("--cards", help="comma-separated card ids to show (default: the deck "
                   "named by --deck when it is a built-in one)")
    e.add_argument("--store", type=Path, help="where decks are kept (default: data dir)")
    d = sub.add_parser("detect", help="find and identify cards in still images (JSON lines)")
    d.add_argument("--deck", required=True, help="'standard' or an enrolled deck name")
    d.add_argument("--store", type=Path, help="where enrolled decks are kept")
    d.add_argument("images", nargs="+", type=Path)
    b = sub.add_parser("bench", help="score the pipeline on rendered scenes")
    b.add_argument("--decks", default="",
                   help=f"comma-separated decks, 'published' (the standard deck in "
                        f"published designs) and 'published-taught' (24 cards of one, taught "
                        f"from their faces) (default {','.join(DECKS)}, and both published "
                        "rows where those designs are installed)")
    b.add_argument("--designs", default="",
                   help="comma-separated published designs for the published rows (default "
                        "the held-out ones installed; e.g. npm-cardsjs, held out and never "
                        "tuned on)")
    b.add_argument("--conditions", default="", help="comma-separated conditions (default all)")
    b.add_argument("--scenes", type=int, default=20, help="scenes per deck and condition")
    b.add_argument("--seed", type=int, default=0, help="first scene seed")
    b.add_argument("--repeat", type=int, default=1,
                   help="recognise each frame this many times and keep its least time "
                        "(steadier figures on a shared machine)")
    b.add_argument("--photos", action="store_true",
                   help="score the standard deck on the real photos ($TABLE_COMPANION_PHOTOS, "
                        "else ../shared/photos beside the repository) instead")
    return p


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "enroll":
            return _enroll(args)
        if args.command == "detect":
            return _detect(args)
        return _bench(args)
    except ValueError as exc:  # every validated entry point raises a ValueError subclass
        print(f"companion vision {args.command}: {exc}", file=sys.stderr)
        return 2


def _enroll(args: argparse.Namespace) -> int:
    from vision.enrolled import default_store, enroll_folder

    store = args.store or default_store()
    if args.folder is not None:
        gallery = enroll_folder(args.deck, args.folder, store)
    else:
        gallery = _guided(args)
        gallery.save(store)
    back = " and their back" if gallery.has_back else ""
    print(f"enrolled {gallery.card_count} cards{back} as deck {gallery.deck!r} in {store}")
    return 0


def _guided(args: argparse.Namespace) -> Gallery:
    from vision.decks import deck_ids
    from vision.enroll import Enroller, guided
    from vision.sources import open_source

    if args.cards:
        cards = tuple(c.strip() for c in args.cards.split(",") if c.strip())
    elif args.deck in DECKS:
        cards = deck_ids(args.deck)
    else:
        raise ValueError(f"which cards does deck {args.deck!r} have? list them with --cards "
                         "(like --cards D1,D1*,C5,M), or name a built-in deck: "
                         + ", ".join(d for d in DECKS if d != "standard"))
    enroller = Enroller(args.deck, cards)
    try:
        camera = open_source(args.camera)
    except OSError as exc:  # CameraUnavailable: say what to check, no traceback
        raise ValueError(str(exc)) from None
    with camera:
        return guided(enroller, camera, input, print)


def _detect(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    from vision.pipeline import Recognizer

    rec = Recognizer(args.deck, args.store)
    status = 0
    for path in args.images:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            print(f"companion vision detect: {path}: not a readable image", file=sys.stderr)
            status = 2
            continue
        cards = [d.to_json() for d in rec.detect(np.asarray(image, np.uint8))]
        print(json.dumps({"image": str(path), "cards": cards}), flush=True)
    return status


def _bench(args: argparse.Namespace) -> int:
    from vision.bench import PUBLISHED, TAUGHT_PUBLISHED, bench_designs, report, run
    from vision.render import CONDITIONS

    if args.photos:
        from vision.photobench import bench_photos

        if args.repeat < 1:
            raise ValueError(f"repeat must be at least 1, not {args.repeat}")
        print(bench_photos(args.repeat), flush=True)  # or the one line saying why not
        return 0
    decks = [d for d in args.decks.split(",") if d]
    if not decks:
        decks = [*DECKS, *([PUBLISHED, TAUGHT_PUBLISHED] if bench_designs() else [])]
    for d in decks:
        if d not in DECKS and d not in (PUBLISHED, TAUGHT_PUBLISHED):
            raise ValueError(f"unknown deck {d!r}; expected some of {', '.join(DECKS)}, "
                             f"{PUBLISHED}, {TAUGHT_PUBLISHED}")
    conditions = [c for c in args.conditions.split(",") if c] or list(CONDITIONS)
    for c in conditions:
        if c not in CONDITIONS:
            raise ValueError(f"unknown condition {c!r}; expected some of {', '.join(CONDITIONS)}")
    designs = [d for d in args.designs.split(",") if d]
    print(report(run(decks, conditions, args.scenes, args.seed, args.repeat, designs)),
          flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
