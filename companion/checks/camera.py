"""The camera's checks: a picture, the calibration markers or tapped corners, and the
decks the camera learns from the user's own cards."""

from __future__ import annotations

import time
from collections.abc import Iterator

from companion.checks import Check, DoctorContext

ENROLLED_DECKS = ("star-catcher", "star-plus", "cant-catch-harry")
"""Decks the camera learns from the user's own cards (the standard deck needs no enrollment)."""

CAMERA_FIXES = {
    "webcam": "plug the USB camera in, check `ls /dev/video*`, and that the service's user is "
              "in the video group; set [camera] index if it is not the first camera",
    "picamera2": "check the ribbon cable, that `rpicam-hello` shows a picture, and that "
                 "no other program uses the camera",
    "file": "set [camera] path to a video file or a folder of images that exists",
}


def camera_checks(context: DoctorContext) -> Iterator[Check]:
    settings = context.config.camera
    if settings.source == "none":
        context.not_configured("camera", "the cards")
        return
    try:
        from companion.inputs.camera import CORNERS_FILE, load_corners, open_camera
        from vision.calibration import detect_markers
        from vision.enrolled import EnrollmentError, Gallery, default_store
        from vision.simtable import SimTable
        from vision.sources import CameraUnavailable
    except ImportError as exc:
        yield Check("camera", False, f"the vision packages do not load ({exc})",
                    "reinstall the companion (pip install -e .) so opencv-python-headless "
                    "and numpy are present")
        return
    sim = SimTable("standard") if settings.source == "sim" else None
    fix = CAMERA_FIXES.get(settings.source, "check the camera and its configuration")
    try:
        source = open_camera(settings, sim)
    except CameraUnavailable as exc:
        # the source knows the cause best: picamera2 that does not import (a numpy that
        # does not fit, a venv that cannot see it) is no cable fault
        yield Check("camera", False, f"{settings.source}: {exc.cause}", exc.fix or fix)
        return
    except (OSError, ValueError) as exc:
        yield Check("camera", False, f"{settings.source}: {exc}", fix)
        return
    frame = None
    with source:
        deadline = time.monotonic() + min(context.seconds, 5.0)
        while frame is None and time.monotonic() < deadline:
            frame = source.read()
            if frame is None:
                time.sleep(0.05)
    if frame is None:
        yield Check("camera", False, f"{settings.source}: no picture within 5 s", fix)
        return
    height, width = frame.shape[:2]
    yield Check("camera", True, f"{settings.source}: {width}x{height} frames")
    if sim is not None:
        context.notes.append("simulated camera: no markers or enrolled decks needed")
        return
    if load_corners(context.config.table.data_dir / CORNERS_FILE) is not None:
        # tapped corners win over the markers in the running camera feed
        yield Check("table corners", True, "tapped on the phone's camera page (/camera; "
                    "'Clear corners' there to use the printed markers instead)")
    else:
        markers = sorted(detect_markers(frame))
        yield Check(
            "calibration markers", markers == [0, 1, 2, 3],
            f"markers seen: {', '.join(map(str, markers)) or 'none'}",
            "print docs/aruco-markers.svg at 100 % and lay markers 0-3 at the corners of the "
            "play area (0 top-left, clockwise, the first player's seat along the bottom edge), "
            "or tap the four corners on the phone's camera page (/camera); without either the "
            "whole picture counts as the centre and seats cannot be told apart",
        )
    store = default_store()
    for deck in ENROLLED_DECKS:
        try:
            gallery = Gallery.load(store, deck)
        except EnrollmentError as exc:
            yield Check(f"deck {deck}", False, str(exc),
                        f"tap 'Teach a deck' on the phone's camera page (/camera), or run "
                        f"companion vision enroll --deck {deck} --from PHOTOS (one flat, "
                        "upright photo per distinct card), or --camera to show each card")
        else:
            back = " and their back" if gallery.has_back else ""
            yield Check(f"deck {deck}", True,
                        f"{gallery.card_count} cards{back} enrolled in {store}")
