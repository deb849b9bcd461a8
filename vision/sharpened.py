"""A card read sharpened: the reader's last try at a blurred index.

A blurred index's thin strokes (a red J or 2 under uneven light) fade into the paper while
its solid suit stays, and a blurred rank runs into the suit under it: an unsharp mask
parts and darkens them. The pipeline asks this only once nothing else has named a card
(:meth:`vision.pipeline.Recognizer._read_quad`).
"""

from __future__ import annotations

from vision.blurred_suits import unsharp_masked
from vision.readings import Reading
from vision.standard import _FAINT_RETRY, Image, _identify, _looks_of
from vision.thresholds import Thresholds

SHARPENING = (1.5, 2.0)
"""How much of the card, and over what blur (canonical pixels), is added back unblurred to
read it sharpened (:func:`read_sharpened`). Published designs under uneven light, blur,
noise and JPEG (550 cards): 522 -> 537 read, none wrong; blurred 3 px, 3 wrong."""


def read_sharpened(first: Reading, card: Image, card_px: float | None = None,
                   overlapped: bool = False, th: Thresholds | None = None) -> Reading:
    """``first`` (:func:`vision.standard.identify_standard`'s reading of ``card``), or
    where it refuses a card not small for its index (:data:`vision.standard._FAINT_RETRY`),
    the card read again sharpened (an unsharp mask): named where both corners read it. The
    last try at a card: sharpened, a court's letter is read surely less often right (a JD
    that an outline a little larger reads was named KD). Not a small card: its index is a
    few pixels, and the mask makes its blots into other glyphs (two more named wrongly in
    89)."""
    th = th or Thresholds()
    if first.card is not None or first.reason not in _FAINT_RETRY or (
            card_px is not None and card_px < th.small_card_px):
        return first
    sharp = unsharp_masked(card, *SHARPENING)
    again = _identify(sharp, th, _looks_of(sharp, th), both_corners=True, overlapped=overlapped)
    return again if again.card is not None else first
