"""The camera view for the dashboard: each detected card outlined and labelled as a
player reads it: a standard card by its rank and a drawn suit symbol in the suit's colour
(as on the card's corner), any other card by its printed name in green ("Mr. Poe",
"Circle 9, 2 stars"), an unknown card by an orange "?" with the reason ("? glare").

The service serves :func:`jpeg` output as a periodically refreshed image (or
an MJPEG stream built from :func:`mjpeg_part`) while the camera is set up.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.calibration import TableGeometry
from vision.card_faces import STANDARD_DESIGNS, draw_suit
from vision.decks import STANDARD, deck_of, display_name, is_red
from vision.pipeline import Detection
from vision.refusal import Refusal

Image = NDArray[np.uint8]

KNOWN = (60, 200, 60)
UNKNOWN = (0, 160, 255)
FACE_DOWN = (200, 200, 200)
"""A card's back: no "?" to fix (a draw pile is in no play), light grey."""
AREA = (255, 200, 80)
"""The calibrated play area and its zone borders (light blue)."""
CHIP = (20, 20, 20)
"""Behind a name or a "?": dark, so the green and orange read on any table."""
PAPER = (245, 245, 245)
"""Behind a standard card's rank and suit: light, like the card's own corner."""
INK_RED = (40, 40, 210)
INK_BLACK = (20, 20, 20)
FONT = cv2.FONT_HERSHEY_SIMPLEX


def draw_zones(out: Image, geometry: TableGeometry, scale: float) -> None:
    """The play area, the centre and the seat borders, each seat's area named."""
    for points, kind in geometry.outline():
        pts = np.round(np.array(points, np.float64) * scale).astype(np.int32)
        if kind.startswith("seat:"):
            label = kind.removeprefix("seat:")
            (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, 0.5, 1)
            x, y = int(pts[0, 0]) - tw // 2, int(pts[0, 1]) + th // 2
            cv2.putText(out, label, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.5, AREA, 1, cv2.LINE_AA)
            continue
        closed = kind in ("table", "centre")
        cv2.polylines(out, [pts], closed, AREA, 2 if kind == "table" else 1, cv2.LINE_AA)


def label(d: Detection, deck: str | None = None) -> str:
    """The words for a card in the view: its name as the dashboard prints it, or "?" and
    why it is unknown (``deck``: found from the card id when not given).

    >>> from vision.refusal import Refusal
    >>> q = np.zeros((4, 2), np.float32)
    >>> label(Detection("QS", q, 0.9)), label(Detection(None, q, 0.0, Refusal.GLARE))
    ('Queen of spades', '? glare')
    >>> label(Detection("baby-james", q, 0.9)), label(Detection(None, q, 0.0))
    ('Baby James', '?')
    >>> label(Detection(None, q, 0.0, Refusal.CARD_BACK))
    'face down'
    """
    if d.card:
        return display_name(d.card, deck)
    if d.reason is Refusal.CARD_BACK:
        return "face down"
    return "?" if d.reason is None else f"? {d.reason.value}"


def _draw_index(out: Image, card: str, x: int, y: int) -> None:
    """A standard card's rank and its suit drawn as a symbol, in the card's ink on a light
    chip, the baseline at ``y`` (Hershey fonts have no suit glyphs)."""
    rank, suit = card[:-1], card[-1]
    ink = INK_RED if is_red(card) else INK_BLACK
    (tw, th), _ = cv2.getTextSize(rank, FONT, 0.6, 2)
    size = th + 4
    width = tw + 4 + size
    cv2.rectangle(out, (x - 3, y - th - 5), (x + width + 3, y + 5), PAPER, -1)
    cv2.putText(out, rank, (x, y), FONT, 0.6, ink, 2, cv2.LINE_AA)
    draw_suit(out, suit, (x + tw + 4 + size / 2, y - th / 2), size, ink, STANDARD_DESIGNS[0])


def _draw_words(out: Image, text: str, colour: tuple[int, int, int], x: int, y: int) -> None:
    (tw, th), _ = cv2.getTextSize(text, FONT, 0.55, 2)
    cv2.rectangle(out, (x - 2, y - th - 4), (x + tw + 2, y + 4), CHIP, -1)
    cv2.putText(out, text, (x, y), FONT, 0.55, colour, 2, cv2.LINE_AA)


def annotate(frame: Image, detections: list[Detection], width: int = 960,
             geometry: TableGeometry | None = None, deck: str | None = None) -> Image:
    """A copy of ``frame`` scaled to ``width``, every card outlined and named ("?" unknown);
    with ``geometry``, the calibrated play area and its zones drawn under them. ``deck``:
    the deck being read (found from each card id when not given)."""
    h, w = frame.shape[:2]
    scale = width / w
    out = np.asarray(cv2.resize(frame, (width, round(h * scale)),
                                interpolation=cv2.INTER_AREA), np.uint8)
    if geometry is not None:
        draw_zones(out, geometry, scale)
    for d in detections:
        quad = np.round(d.quad * scale).astype(np.int32)
        colour = (KNOWN if d.card else FACE_DOWN if d.reason is Refusal.CARD_BACK
                  else UNKNOWN)
        cv2.polylines(out, [quad], True, colour, 2, cv2.LINE_AA)
        x, y = int(quad[:, 0].min()), int(quad[:, 1].min()) - 6
        x, y = max(x, 3), max(y, 16)
        if d.card and d.card in STANDARD and (deck or deck_of(d.card)) == "standard":
            _draw_index(out, d.card, x, y)
        else:
            _draw_words(out, label(d, deck), colour, x, y)
    return out


def jpeg(frame: Image, detections: list[Detection], width: int = 960, quality: int = 70,
         geometry: TableGeometry | None = None, deck: str | None = None) -> bytes:
    """The annotated view as JPEG bytes."""
    ok, buf = cv2.imencode(".jpg", annotate(frame, detections, width, geometry, deck),
                           [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("the frame could not be encoded as JPEG")
    return bytes(buf)


def mjpeg_part(data: bytes, boundary: str = "frame") -> bytes:
    """One part of a ``multipart/x-mixed-replace; boundary=frame`` MJPEG stream.

    >>> mjpeg_part(b"abc")[:40]
    b'--frame\\r\\nContent-Type: image/jpeg\\r\\nConte'
    """
    return (f"--{boundary}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(data)}\r\n\r\n"
            .encode() + data + b"\r\n")
