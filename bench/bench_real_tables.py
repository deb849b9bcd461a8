"""Print how the camera reads the published designs on real table surfaces.

    python bench/bench_real_tables.py [--scenes N] [--seed S] [--conditions a,b] [--cards]
                                      [--deck published-taught]

The renderer's own tables are drawn by this project; these are photographs of real
surfaces (GIMP's patterns: burlap, a printed cloth, leather, paper, cork, wood, parquet,
marble, granite, slate; :mod:`vision.real_tables`, installed by
``scripts/ensure-table-surfaces.sh``), tiled under the held-out published designs in the
benchmark's conditions. Each condition is scored over every surface (``--scenes`` seeded
scenes each) as ``bench/bench_vision.py`` scores a row: cards in view, found, read right,
unknown by reason, wrong, phantoms, CPU ms per 1280 x 720 frame on one core. Then each
surface's share read right, condition by condition. ``--cards`` lists every card in view
not read right. ``--deck published-taught``: the first held-out design's 24 cards taught
from their faces (as ``bench/bench_vision.py``'s row of that name) instead of the standard
reader. One line saying why where the surfaces or the designs are absent.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core, honestly: set before numpy loads
os.environ.setdefault("OMP_NUM_THREADS", "1")
import argparse
import sys
from dataclasses import replace

import cv2

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from vision.bench import (
    PUBLISHED,
    TAUGHT_PUBLISHED,
    VISIBLE,
    Tally,
    _owner,
    bench_designs,
    conditions_for,
    reason_key,
    recognizer_for,
    report,
    timed_detect,
)
from vision.pipeline import Detection
from vision.real_tables import SURFACE, installed_surfaces
from vision.render import Scene, render_scene

CONDITIONS = ("upright", "rotation", "tilt35", "lighting", "small", "overlap", "hand", "empty")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=3, help="scenes a surface and condition")
    parser.add_argument("--seed", type=int, default=120000)
    parser.add_argument("--conditions", default=",".join(CONDITIONS))
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--cards", action="store_true", help="list the cards not read right")
    parser.add_argument("--deck", default=PUBLISHED, choices=(PUBLISHED, TAUGHT_PUBLISHED),
                        help="the standard reader, or a held-out design taught from its faces")
    parser.add_argument("--designs", default="",
                        help="comma-separated published designs (default the held-out ones; "
                             "e.g. npm-cardsjs, never tuned on)")
    args = parser.parse_args()
    designs = [d for d in args.designs.split(",") if d]
    surfaces = installed_surfaces()
    if not surfaces:
        print("skipped: no real table surface installed (scripts/ensure-table-surfaces.sh)")
        return 0
    if not bench_designs():
        print("skipped: no published deck design installed (scripts/ensure-card-designs.sh)")
        return 0
    cv2.setNumThreads(1)  # one core, as on the Pi
    rec = recognizer_for(args.deck, designs)
    warm_up = render_scene(conditions_for(args.deck, "upright", designs), 999_999)
    rec.detect(warm_up.image)
    rows: list[tuple[str, str, Tally]] = []
    by_surface: dict[tuple[str, str], Tally] = {}
    misses: list[str] = []
    for name in args.conditions.split(","):
        pooled = Tally()
        for surface in surfaces:
            cond = replace(conditions_for(args.deck, name, designs), table=SURFACE + surface)
            alone = by_surface.setdefault((surface, name), Tally())
            for k in range(args.scenes):
                scene = render_scene(cond, args.seed + k)
                dets, wall, cpu = timed_detect(rec, scene.image, args.repeat)
                pooled.add(scene, dets, wall, cpu)
                alone.add(scene, dets, wall, cpu)
                if args.cards:
                    misses += _misses(f"{name} {surface} {args.seed + k}", scene, dets)
        rows.append((f"{args.deck} on real", name, pooled))
    print(report(rows))
    print()
    names = args.conditions.split(",")
    print(f"{'surface':14s} " + " ".join(f"{n:>9s}" for n in names))
    for surface in surfaces:
        cells = []
        for n in names:
            t = by_surface[(surface, n)]
            cells.append(f"{t.right}/{t.findable}" if t.findable else f"{t.phantoms} ph")
        print(f"{surface:14s} " + " ".join(f"{c:>9s}" for c in cells))
    print("(right of the cards in view; an empty table's cell counts its phantoms)")
    for line in misses:
        print(line)
    return 0


def _misses(where: str, scene: Scene, dets: list[Detection]) -> list[str]:
    """One line per card in view of ``scene`` not read right, and per phantom."""
    lines: list[str] = []
    on: dict[int, list[str]] = {}
    for d in dets:
        owner = _owner(d, scene.cards)
        if owner is None:
            lines.append(f"{where}: phantom {d.card or '?'}")
        else:
            on.setdefault(owner[0], []).append(d.card or f"? ({reason_key(d)})")
    for i, card in enumerate(scene.cards):
        seen = on.get(i, [])
        if card.visible >= VISIBLE and seen != [card.card]:
            lines.append(f"{where}: {card.card} seen as {seen or 'nothing'}")
    return lines


if __name__ == "__main__":
    sys.exit(main())
