"""The camera view for the dashboard: each detected card outlined and labelled
(its name in green, or an orange "?" with the reason it is unknown: "? glare").

The service serves :func:`jpeg` output as a periodically refreshed image (or
an MJPEG stream built from :func:`mjpeg_part`) while the camera is set up.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.calibration import TableGeometry
from vision.pipeline import Detection

Image = NDArray[np.uint8]

KNOWN = (60, 200, 60)
UNKNOWN = (0, 160, 255)
AREA = (255, 200, 80)
"""The calibrated play area and its zone borders (light blue)."""


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


def label(d: Detection) -> str:
    """What the view writes beside a card: its name, or "?" and why it is unknown.

    >>> from vision.refusal import Refusal
    >>> q = np.zeros((4, 2), np.float32)
    >>> label(Detection("QS", q, 0.9)), label(Detection(None, q, 0.0, Refusal.GLARE))
    ('QS', '? glare')
    >>> label(Detection(None, q, 0.0))
    '?'
    """
    if d.card:
        return d.card
    return "?" if d.reason is None else f"? {d.reason.value}"


def annotate(frame: Image, detections: list[Detection], width: int = 960,
             geometry: TableGeometry | None = None) -> Image:
    """A copy of ``frame`` scaled to ``width``, every card outlined and named ("?" unknown);
    with ``geometry``, the calibrated play area and its zones drawn under them."""
    h, w = frame.shape[:2]
    scale = width / w
    out = np.asarray(cv2.resize(frame, (width, round(h * scale)),
                                interpolation=cv2.INTER_AREA), np.uint8)
    if geometry is not None:
        draw_zones(out, geometry, scale)
    for d in detections:
        quad = np.round(d.quad * scale).astype(np.int32)
        colour = KNOWN if d.card else UNKNOWN
        cv2.polylines(out, [quad], True, colour, 2, cv2.LINE_AA)
        text = label(d)
        x, y = int(quad[:, 0].min()), int(quad[:, 1].min()) - 6
        x, y = max(x, 0), max(y, 14)
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.55, 2)
        cv2.rectangle(out, (x - 2, y - th - 4), (x + tw + 2, y + 4), (20, 20, 20), -1)
        cv2.putText(out, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.55, colour, 2, cv2.LINE_AA)
    return out


def jpeg(frame: Image, detections: list[Detection], width: int = 960, quality: int = 70,
         geometry: TableGeometry | None = None) -> bytes:
    """The annotated view as JPEG bytes."""
    ok, buf = cv2.imencode(".jpg", annotate(frame, detections, width, geometry),
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
