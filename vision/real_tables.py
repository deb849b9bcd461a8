"""Table surfaces photographed by others: GIMP's patterns, for scenes on real tables.

The renderer's own tables (:mod:`vision.render`: felt, wood grain, a light cloth) are
drawn by this project, so a benchmark over them says little of a real table's texture.
Debian's ``gimp-data`` ships photographs of real surfaces as GIMP patterns: burlap, wood
and parquet, cork, leather, marble, granite, slate, paper, a printed cloth. Laid under the
published card designs (``Conditions(table="surface:burlap")``), they measure the camera
on textures nobody here made. ``scripts/ensure-table-surfaces.sh`` installs them.

A pattern file (``.pat``) is a big-endian header (its size, version 1, width, height,
bytes a pixel, the magic ``GPAT``, a name) followed by the pixels, row by row.
"""

from __future__ import annotations

import struct
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

Image = NDArray[np.uint8]

PATTERNS = Path("/usr/share/gimp/2.0/patterns")
"""Where Debian's ``gimp-data`` puts GIMP's patterns."""

SURFACES: dict[str, str] = {
    "burlap": "Fabric/burlap.pat",
    "fibers": "Legacy/fibers.pat",
    "leather": "Animal/leather.pat",
    "paper": "Paper/paper.pat",
    "crinklepaper": "Paper/crinklepaper.pat",
    "corkboard": "Wood/corkboard.pat",
    "burlwood": "Wood/burlwood.pat",
    "parque1": "Wood/parque1.pat",
    "pine": "Wood/pine.pat",
    "walnut": "Wood/walnut.pat",
    "wood1": "Wood/wood1.pat",
    "wood2": "Wood/wood2.pat",
    "wood3": "Wood/wood3.pat",
    "wood5": "Wood/wood5.pat",
    "marble1": "Stone/marble1.pat",
    "granite1": "Stone/granite1.pat",
    "slate": "Stone/slate.pat",
    "terra": "Stone/terra.pat",
}
"""The patterns a card table could be (surface name: file under :data:`PATTERNS`): cloth,
leather, paper, cork, wood, stone. Not the skies, waters, foods and plants, nor the drawn
patterns of ``Legacy`` but its fibres, a printed cloth's busy pattern."""

SURFACE = "surface:"
"""The prefix of a table kind (:attr:`vision.conditions.Conditions.table`) that is one of
:data:`SURFACES`."""

MAGIC = b"GPAT"


class PatternError(ValueError):
    """A file that is not a GIMP pattern this module reads."""


def read_pattern(data: bytes) -> Image:
    """The pixels of a GIMP pattern file's ``data`` (BGR, grey and alpha dropped to it).

    >>> header = struct.pack(">5I", 28, 1, 2, 1, 3) + MAGIC + b"x\\0\\0\\0"
    >>> read_pattern(header + bytes([255, 0, 0, 0, 0, 255])).tolist()
    [[[0, 0, 255], [255, 0, 0]]]
    >>> read_pattern(b"GPAT")
    Traceback (most recent call last):
    ...
    vision.real_tables.PatternError: a GIMP pattern starts with a 24-byte header, this has 4 bytes
    """
    if len(data) < 24:
        raise PatternError(f"a GIMP pattern starts with a 24-byte header, this has "
                           f"{len(data)} bytes")
    size, version, width, height, depth = struct.unpack(">5I", data[:20])
    if data[20:24] != MAGIC or version != 1:
        raise PatternError(f"not a GIMP pattern of version 1 (magic {data[20:24]!r}, "
                           f"version {version}); expected {MAGIC!r}, version 1")
    if not 24 <= size <= len(data):
        raise PatternError(f"the pattern's header says it is {size} bytes long: expected "
                           f"24 bytes or more, within the file's {len(data)}")
    if depth not in (1, 2, 3, 4) or width < 1 or height < 1:
        raise PatternError(f"a pattern of {width} x {height} pixels, {depth} bytes each: "
                           "expected 1 to 4 bytes a pixel and at least one pixel")
    pixels = data[size:size + width * height * depth]
    if len(pixels) != width * height * depth:
        raise PatternError(f"the pattern's pixels are cut short: {len(pixels)} bytes of "
                           f"{width * height * depth}")
    laid = np.frombuffer(pixels, np.uint8).reshape(height, width, depth)
    # (1: grey; 2: grey and alpha; 3: RGB; 4: RGB and alpha)
    rgb = np.repeat(laid[:, :, :1], 3, axis=2) if depth <= 2 else laid[:, :, :3]
    return np.asarray(cv2.cvtColor(np.ascontiguousarray(rgb), cv2.COLOR_RGB2BGR), np.uint8)


def installed_surfaces(patterns: Path = PATTERNS) -> tuple[str, ...]:
    """The :data:`SURFACES` installed under ``patterns``.

    >>> installed_surfaces(Path("/nowhere"))
    ()
    """
    return tuple(name for name, file in SURFACES.items() if (patterns / file).is_file())


@lru_cache(maxsize=len(SURFACES))
def surface(name: str) -> Image:
    """The pattern of surface ``name`` (one of :data:`SURFACES`), read once."""
    if name not in SURFACES:
        raise PatternError(f"no table surface {name!r}; expected one of "
                           f"{', '.join(sorted(SURFACES))}")
    path = PATTERNS / SURFACES[name]
    try:
        data = path.read_bytes()
    except OSError as e:
        raise PatternError(f"{path} cannot be read ({e.strerror}); "
                           "scripts/ensure-table-surfaces.sh installs it") from e
    return read_pattern(data)


def table_of(name: str, size: tuple[int, int], scale: float) -> Image:
    """A table ``size`` (width, height) covered with surface ``name``'s pattern, tiled, each
    of its pixels ``scale`` pixels wide (a pattern is a few hundred pixels; the camera's
    table, more)."""
    w, h = size
    tile = np.asarray(cv2.resize(surface(name), None, fx=scale, fy=scale,
                                 interpolation=cv2.INTER_CUBIC), np.uint8)
    reps = (h // tile.shape[0] + 1, w // tile.shape[1] + 1, 1)
    return np.ascontiguousarray(np.tile(tile, reps)[:h, :w])
