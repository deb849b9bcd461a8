"""Table calibration from rendered ArUco markers, zones, and the printable sheet."""

from __future__ import annotations

import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.calibration import CalibrationError, TableGeometry, detect_markers, marker_sheet_svg
from vision.detect import DetectorSettings, find_cards
from vision.render import Conditions, Placement, compose_scene, marker_centres

PLACES = [Placement("D3", 640, 360, 20), Placement("M", 860, 260, -35),
          Placement("C7*", 420, 470, 80)]


def _scene(tilt: float, seed: int = 4):  # type: ignore[no-untyped-def]
    cond = Conditions(deck="star-catcher", tilt=tilt, table="wood", markers=True)
    return compose_scene(PLACES, "star-catcher", seed, cond)


def _geometry(scene, seats: tuple[str, ...] = ()) -> TableGeometry:  # type: ignore[no-untyped-def]
    c = marker_centres()
    size = (float(c[1][0] - c[0][0]), float(c[3][1] - c[0][1]))
    return TableGeometry.from_markers(scene.image, size, seats)


@pytest.mark.parametrize("tilt", [0.0, 20.0, 35.0])
def test_markers_map_the_image_onto_the_table(tilt: float) -> None:
    scene = _scene(tilt)
    geo = _geometry(scene)
    origin = marker_centres()[0]
    for place, truth in zip(PLACES, scene.cards, strict=True):
        x, y = geo.to_table(tuple(truth.quad.mean(axis=0)))
        assert abs(x + origin[0] - place.x) < 3 and abs(y + origin[1] - place.y) < 3


def test_card_size_in_pixels_is_known_from_the_calibration() -> None:
    scene = _scene(30.0)
    geo = _geometry(scene)
    # in the rendered plane a card is 110 x 154 units; the calibration is in those units
    geo = TableGeometry(geo.image_to_table, geo.size_mm)
    origin = marker_centres()[0]
    truth = scene.cards[0]
    want = cv2.contourArea(truth.quad.astype(np.float32))
    at = (PLACES[0].x - origin[0], PLACES[0].y - origin[1])
    got = geo.card_area_px(at) * (110 * 154) / (63 * 88)
    assert abs(got - want) / want < 0.05
    quads = find_cards(scene.image, DetectorSettings(card_area=got))
    assert len(quads) == 3  # the markers are not cards


def test_zones_centre_and_seats() -> None:
    geo = _geometry(_scene(0.0), seats=("Ann", "Ben", "Cy", "Dee"))
    w, h = geo.size_mm
    to_img = geo.to_image
    assert geo.zone_of(to_img((w / 2, h / 2))) == "centre"
    assert geo.zone_of(to_img((w / 2, h - 20))) == "seat:Ann"  # bottom edge
    assert geo.zone_of(to_img((20, h / 2))) == "seat:Ben"  # clockwise: left edge
    assert geo.zone_of(to_img((w / 2, 20))) == "seat:Cy"
    assert geo.zone_of(to_img((w - 20, h / 2))) == "seat:Dee"
    assert geo.zone_of(to_img((-30, -30))) is None


def test_bad_calibrations_are_refused_in_plain_words() -> None:
    blank = np.full((720, 1280, 3), 90, np.uint8)
    with pytest.raises(CalibrationError, match=r"markers \[0, 1, 2, 3\] not seen"):
        TableGeometry.from_markers(blank, (800, 600))
    with pytest.raises(CalibrationError, match="exactly 4"):
        TableGeometry.from_points([(0, 0), (10, 0), (10, 10)], (800, 600))
    with pytest.raises(CalibrationError, match="convex"):
        TableGeometry.from_points([(0, 0), (100, 100), (100, 0), (0, 100)], (800, 600))


def test_the_printable_sheet_holds_markers_0_to_3() -> None:
    svg = marker_sheet_svg()
    scale = 4  # px per mm
    page = np.full((297 * scale, 210 * scale), 255, np.uint8)
    for x, y, w, h in re.findall(
            r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="black"',
            svg):
        x0, y0 = round(float(x) * scale), round(float(y) * scale)
        x1, y1 = round((float(x) + float(w)) * scale), round((float(y) + float(h)) * scale)
        page[y0:y1, x0:x1] = 0
    bgr = np.asarray(cv2.cvtColor(page, cv2.COLOR_GRAY2BGR), np.uint8)
    assert sorted(detect_markers(bgr)) == [0, 1, 2, 3]


def test_the_committed_sheet_is_the_generated_one() -> None:
    committed = Path(__file__).parents[2] / "docs" / "aruco-markers.svg"
    assert committed.read_text(encoding="utf-8") == marker_sheet_svg()
