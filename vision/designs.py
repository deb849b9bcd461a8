"""Published French-suited 52-card designs installed on this machine, rendered to images.

Nobody here drew these: they are the card themes of Debian's ``gnome-cards-data``
(aisleriot, SVGZ files holding every card by element id) and SVG decks published
on npm (installed by ``scripts/ensure-card-designs.sh`` into
``tools/card-designs/node_modules``). A classifier learns from
:data:`TRAINING_DESIGNS`; :data:`BENCH_DESIGNS` are held out for the benchmark
and tests, :data:`FRESH_DESIGNS` too (never looked at while tuning). Themes whose
art is the same (a 4-colour or bitmap variant, the same court pictures under
another name) are on the same side of that split.

Faces are rendered with ``rsvg-convert`` (Debian ``librsvg2-bin``) and cached as
PNG under ``$XDG_CACHE_HOME/table-companion/designs/<design>/<source>/<card>.png``,
``<source>`` naming the design's file and this renderer's version.

>>> names = [d.name for d in published_designs()]   # empty where nothing is installed
>>> set(names) <= set(TRAINING_DESIGNS) | set(BENCH_DESIGNS) | set(FRESH_DESIGNS)
True
>>> set(TRAINING_DESIGNS) & set(BENCH_DESIGNS + FRESH_DESIGNS)
set()
>>> published_face("no-such-deck", "QS")
Traceback (most recent call last):
...
vision.designs.UnknownDesign: unknown card design 'no-such-deck'; expected one of aisleriot-...
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.decks import RANKS, STANDARD, SUITS
from vision.render import rounded_rectangle

AISLERIOT_DIR = Path("/usr/share/aisleriot/cards")
NPM_DIR = Path(__file__).resolve().parent.parent / "tools" / "card-designs" / "node_modules"
"""Where ``npm ci --prefix tools/card-designs`` installs the npm decks
(``TABLE_COMPANION_CARD_DESIGNS_NPM`` overrides it)."""

MASTER_HEIGHT = 700
"""Faces are rendered and cached at this height; smaller requests are resized from it."""

_PIPELINE = "4"  # bump when the rendering below changes: cached faces are then redrawn

BACK = "back"
"""The name :func:`published_back` renders and caches a design's back under."""


class DesignError(ValueError):
    """A published design or card that cannot be given (unknown, or not installed)."""


class UnknownDesign(DesignError):
    """A design name that this module does not know."""


class UnknownCard(DesignError):
    """A card id that is not one of the 52 standard cards."""


class DesignNotInstalled(DesignError):
    """A known design whose package (or ``rsvg-convert``) is missing here."""


@dataclass(frozen=True)
class PublishedDesign:
    """One published deck design."""

    name: str  # e.g. "aisleriot-anglo", "npm-svg-cards"
    source: str  # the Debian or npm package
    licence: str
    court_letters: str  # the index letters printed for J, Q, K in that order
    ace_letter: str  # "A" (or "1" where the deck prints 1)


@dataclass(frozen=True)
class _Spec:
    design: PublishedDesign
    path: Callable[[], Path]  # the SVG(Z) sheet, or the folder of one SVG per card
    element: Callable[[str], str]  # card id -> element id in the sheet, or file name
    sheet: bool  # one SVG holding every card (by element id), else one file per card
    back: str | None = "back"  # the back's element id or file name (None: not published)


_AISLERIOT_RANK = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}
_AISLERIOT_SUIT = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}


def _aisleriot_id(card: str) -> str:
    rank, suit = card[:-1], card[-1]
    return f"{_AISLERIOT_SUIT[suit]}_{_AISLERIOT_RANK.get(rank, rank)}"


def _younes_file(card: str) -> str:  # 1c.svg .. 13s.svg
    return f"{RANKS.index(card[:-1]) + 1}{card[-1].lower()}.svg"


def _kennard_file(card: str) -> str:  # AC.svg, TC.svg (ten), QS.svg
    rank = "T" if card[:-1] == "10" else card[:-1]
    return f"{rank}{card[-1]}.svg"


def _own_file(card: str) -> str:
    return f"{card}.svg"


def _npm_dir() -> Path:
    return Path(os.environ.get("TABLE_COMPANION_CARD_DESIGNS_NPM", str(NPM_DIR)))


def _aisleriot(name: str, file: str, courts: str = "JQK", ace: str = "A") -> _Spec:
    return _Spec(PublishedDesign(f"aisleriot-{name}", "gnome-cards-data (Debian)",
                                 "GPL-3.0-or-later (/usr/share/doc/gnome-cards-data/copyright)",
                                 courts, ace),
                 lambda: AISLERIOT_DIR / file, _aisleriot_id, sheet=True)


_CYRILLIC_COURTS = "\u0412\u0414\u041a"  # Cyrillic Ve, De, Ka (valet, dama, korol)
_CYRILLIC_ACE = "\u0422"  # Cyrillic Te (tuz)
_ATLASNYE_RU = "\u0410\u0442\u043b\u0430\u0441\u043d\u044b\u0435.svgz"

_SPECS: tuple[_Spec, ...] = (
    # -- Debian aisleriot themes (French suits, rank + suit in the corners). Left out:
    # swiss-xvii (Swiss suits), guyenne-classic (its court cards carry no rank index).
    _aisleriot("ancient-french", "ancient_french.svgz", "VDR", "1"),
    _aisleriot("anglo", "anglo.svgz"),
    _aisleriot("anglo-bitmap", "anglo_bitmap.svgz"),
    _aisleriot("anglo-modern", "anglo_modern.svgz"),
    _aisleriot("anglo-modern-4-color", "anglo_modern_4_color.svgz"),
    _aisleriot("anglo-poker", "anglo_poker.svgz"),
    _aisleriot("atlasnye", "atlasnye.svgz"),
    _aisleriot("atlasnye-skat", "atlasnye_skat.svgz", "BDK"),
    # the Russian edition (file name "Atlasnye" in Cyrillic), Cyrillic court letters
    _aisleriot("atlasnye-cyrillic", _ATLASNYE_RU, _CYRILLIC_COURTS, _CYRILLIC_ACE),
    _aisleriot("bellot", "bellot.svgz"),
    _aisleriot("berlin", "berlin.svgz", "BDK"),
    _aisleriot("bonded", "bonded.svgz"),
    _aisleriot("dondorf", "dondorf.svgz"),
    _aisleriot("gnomangelo", "gnomangelo.svgz"),
    _aisleriot("gnomangelo-bitmap", "gnomangelo_bitmap.svgz"),
    _aisleriot("lattmann", "lattmann.svgz", "BDK"),
    _aisleriot("neoclassical", "neoclassical.svgz"),
    _aisleriot("neoclassical-4-color", "neoclassical_4_color.svgz"),
    _aisleriot("orell", "orell.svgz"),
    _aisleriot("ornamental", "ornamental.svgz"),
    _aisleriot("paris", "paris.svgz"),
    _aisleriot("plastic", "plastic.svgz"),
    _aisleriot("rheinland", "rheinland.svgz", "BDK"),
    _aisleriot("simplistic", "simplistic.svgz"),
    _aisleriot("slavic-costumes", "slavic_costumes.svgz", _CYRILLIC_COURTS, _CYRILLIC_ACE),
    _aisleriot("tango", "tango.svgz"),
    _aisleriot("tango-nuevo", "tango_nuevo.svgz"),
    _aisleriot("tarocco", "tarocco.svgz", "FDR"),
    _aisleriot("tigullio", "tigullio.svgz"),
    # -- npm decks
    _Spec(PublishedDesign("npm-svg-cards", "svg-cards (npm)", "LGPL-2.1", "JQK", "A"),
          lambda: _npm_dir() / "svg-cards" / "svg-cards.svg", _aisleriot_id, sheet=True),
    _Spec(PublishedDesign("npm-younestouati", "@younestouati/playing-cards-standard-deck (npm)",
                          "LGPL-3.0", "JQK", "A"),
          lambda: _npm_dir() / "@younestouati" / "playing-cards-standard-deck" / "cards",
          _younes_file, sheet=False, back="back.svg"),
    _Spec(PublishedDesign("npm-heruka", "@heruka_urgyen/react-playing-cards (npm)", "MIT",
                          "JQK", "A"),
          lambda: _npm_dir() / "@heruka_urgyen" / "react-playing-cards" / "src" / "images"
          / "2color", _kennard_file, sheet=False, back="../back.svg"),
    _Spec(PublishedDesign("npm-heruka-jumbo", "@heruka_urgyen/react-playing-cards (npm)", "MIT",
                          "JQK", "A"),
          lambda: _npm_dir() / "@heruka_urgyen" / "react-playing-cards" / "src" / "images"
          / "2color-bf", _kennard_file, sheet=False, back="../back.svg"),
    _Spec(PublishedDesign("npm-letele", "@letele/playing-cards (npm)", "CC0-1.0", "JQK", "A"),
          lambda: _letele_svgs(), _own_file, sheet=False, back=None),
    # Chris Aguilar's Vector Playing Cards 1.3, as cardsJS ships them
    _Spec(PublishedDesign("npm-cardsjs", "cardsJS (npm)", "LGPL-3.0", "JQK", "A"),
          lambda: _npm_dir() / "cardsJS" / "cards", _own_file, sheet=False,
          back="Red_Back.svg"),
)
_BY_NAME: dict[str, _Spec] = {s.design.name: s for s in _SPECS}

BENCH_DESIGNS: tuple[str, ...] = (
    "npm-younestouati",
    "npm-heruka",
    "npm-heruka-jumbo",
    "npm-letele",  # the same artist's deck as npm-heruka, other renderings of it
    "aisleriot-tigullio",
    "aisleriot-anglo-poker",
    "aisleriot-ornamental",
)
"""Held out: never used to train; the benchmark's published designs."""

FRESH_DESIGNS: tuple[str, ...] = ("npm-cardsjs",)
"""Held out too, and first measured only once the reader was built (2026-12-07): never
looked at while tuning it. Not in the benchmark's mixed scenes (their figures stay
comparable from step to step); ``bench_vision.py --designs`` scores them."""

TRAINING_DESIGNS: tuple[str, ...] = tuple(
    s.design.name for s in _SPECS if s.design.name not in BENCH_DESIGNS + FRESH_DESIGNS)
"""Names a classifier may be trained on."""


# --------------------------------------------------------------------------- lookup


def _spec(design: str) -> _Spec:
    try:
        return _BY_NAME[design]
    except KeyError:
        raise UnknownDesign(f"unknown card design {design!r}; expected one of "
                            f"{', '.join(_BY_NAME)}") from None


def _installed(spec: _Spec) -> bool:
    if shutil.which("rsvg-convert") is None:
        return False
    try:
        path = spec.path()
    except DesignError:
        return False
    if spec.sheet:
        return path.is_file()
    return all((path / spec.element(c)).is_file() for c in STANDARD)


def published_designs() -> tuple[PublishedDesign, ...]:
    """Every known design that is installed here (empty where none is)."""
    return tuple(s.design for s in _SPECS if _installed(s))


def design_info(design: str) -> PublishedDesign:
    """The :class:`PublishedDesign` called ``design`` (installed or not)."""
    return _spec(design).design


# --------------------------------------------------------------------------- npm @letele


def _letele_svgs() -> Path:
    """@letele/playing-cards ships React components (SVG inside JS): write them out as SVG
    files once, with ``tools/card-designs/letele-svg.mjs`` under node."""
    module = _npm_dir() / "@letele" / "playing-cards" / "dist" / "index.esm.js"
    if not module.is_file():
        raise DesignNotInstalled("npm package @letele/playing-cards is not installed "
                                 "(sh scripts/ensure-card-designs.sh)")
    out = _cache_root() / "_svg" / f"letele-{_file_key(module)}"
    if all((out / f"{c}.svg").is_file() for c in STANDARD):
        return out
    node = shutil.which("node")
    if node is None:
        raise DesignNotInstalled("node is needed to read @letele/playing-cards")
    script = Path(__file__).resolve().parent.parent / "tools" / "card-designs" / "letele-svg.mjs"
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    tmp.mkdir(parents=True, exist_ok=True)
    try:
        subprocess.run([node, str(script), str(module), str(tmp)], check=True,
                       capture_output=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise DesignNotInstalled(f"could not read @letele/playing-cards: {exc}") from None
    try:
        tmp.rename(out)
    except OSError:  # another process wrote it first
        shutil.rmtree(tmp, ignore_errors=True)
    return out


# --------------------------------------------------------------------------- rendering


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "table-companion" / "designs"


def _file_key(path: Path) -> str:
    st = path.stat()
    return hashlib.sha1(f"{path}|{st.st_size}|{st.st_mtime_ns}".encode()).hexdigest()[:12]


_checked: dict[str, Path] = {}
"""Each design's cache folder, once set up in this process."""
_checked_lock = threading.Lock()


STALE_DAYS = 7
"""A design's cache of another source or renderer, unused this long, is removed."""


def _design_dir(spec: _Spec) -> Path:
    """The design's cache folder for its source and this renderer. Each source has its
    own: two processes of two checkouts (or of two versions) never empty the folder the
    other is writing to (they did, one failing half-way through a benchmark)."""
    name = spec.design.name
    with _checked_lock:
        if name in _checked:
            return _checked[name]
        path = spec.path()
        key = f"{_PIPELINE}|{_file_key(path) if spec.sheet else path}"
        folder = _cache_root() / name / hashlib.sha1(key.encode()).hexdigest()[:12]
        folder.mkdir(parents=True, exist_ok=True)
        os.utime(folder)  # (in use: see _drop_stale)
        _drop_stale(folder.parent, keep=folder)
        _checked[name] = folder
    return folder


def _drop_stale(design_root: Path, keep: Path) -> None:
    """Remove, as far as nobody else is using them, the caches of ``design_root`` other
    than ``keep`` unused for :data:`STALE_DAYS`, and the files of the older layout (one
    folder a design, its faces in it)."""
    old = time.time() - STALE_DAYS * 86400
    for entry in design_root.iterdir():
        try:
            if entry.is_dir() and entry != keep and entry.stat().st_mtime < old:
                shutil.rmtree(entry, ignore_errors=True)
            elif entry.is_file():
                entry.unlink()
        except OSError:
            pass  # (removed meanwhile by another process)


def _rsvg(spec: _Spec, card: str, zoom: float,
          window: tuple[float, float, float, float] | None = None) -> NDArray[np.uint8]:
    """BGRA render of one card's element (or file) at ``zoom``; ``window`` (x, y, w, h in
    output pixels) crops it while rendering (only that part is rasterised)."""
    path = spec.path()
    element = spec.back if card == BACK and spec.back is not None else spec.element(card)
    file = str(path / element) if not spec.sheet else None
    args = [file] if file is not None else ["-i", element, str(path)]
    if window is not None:
        x, y, w, h = window
        args = [f"--left={-x:.2f}px", f"--top={-y:.2f}px", f"--page-width={w:.0f}px",
                f"--page-height={h:.0f}px", *args]
    try:
        out = subprocess.run(["rsvg-convert", "-z", f"{zoom:.5f}", *args], check=True,
                             capture_output=True, timeout=120).stdout
    except FileNotFoundError:
        raise DesignNotInstalled("rsvg-convert is missing (Debian librsvg2-bin)") from None
    except subprocess.CalledProcessError as exc:
        raise DesignError(f"rsvg-convert failed on {spec.design.name} {card}: "
                          f"{exc.stderr.decode(errors='replace').strip()}") from None
    img = cv2.imdecode(np.frombuffer(out, np.uint8), cv2.IMREAD_UNCHANGED)
    if img is None or img.dtype != np.uint8:
        raise DesignError(f"rsvg-convert gave no image for {spec.design.name} {card}")
    if img.ndim == 2 or img.shape[2] == 3:  # written without alpha: nothing is transparent
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA if img.ndim == 2 else cv2.COLOR_BGR2BGRA)
    return np.asarray(img, np.uint8)


def _card_box(alpha: NDArray[np.uint8]) -> tuple[int, int, int, int]:
    """x, y, w, h of the card: the largest opaque region (a theme's element may also hold
    far-off or invisible parts, or a soft shadow)."""
    solid = (alpha >= 128).astype(np.uint8)
    n, _lab, stats, _c = cv2.connectedComponentsWithStats(solid, connectivity=8)
    if n < 2:
        raise DesignError("the rendered card is empty")
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, w, h = (int(v) for v in stats[best, :4])
    return x, y, w, h


def _corner_mask(h: int, w: int) -> NDArray[np.uint8]:
    """A rounded-rectangle alpha (corner radius about 2.5 mm on a 63 mm card)."""
    scale = 4  # drawn 4 times larger and shrunk: a smooth edge
    big = rounded_rectangle(h * scale, w * scale, max(2, round(0.04 * w)) * scale)
    return np.asarray(cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA), np.uint8)


def _render(spec: _Spec, card: str, height: int) -> NDArray[np.uint8]:
    """Render ``card`` so that its outline is ``height`` pixels tall, cropped to it."""
    probe = _rsvg(spec, card, 1.0)
    x0, y0, w0, h0 = _card_box(probe[:, :, 3])
    zoom = height / h0 * 1.04  # a little over, then resized down exactly
    m = 3  # probe pixels round the card
    img = _rsvg(spec, card, zoom, ((x0 - m) * zoom, (y0 - m) * zoom,
                                   (w0 + 2 * m) * zoom, (h0 + 2 * m) * zoom))
    x, y, w, h = _card_box(img[:, :, 3])
    crop = img[y:y + h, x:x + w]
    width = max(1, round(height * w / h))
    face = np.asarray(cv2.resize(crop, (width, height), interpolation=cv2.INTER_AREA),
                      np.uint8)
    return _opaque_card(face)


def _opaque_card(face: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The card as a solid piece of card stock: what lies inside its outline is laid on
    white and made opaque; outside the outline (and a shadow) alpha is 0."""
    alpha = face[:, :, 3]
    solid = (alpha >= 128).astype(np.uint8)
    n, lab, stats, _c = cv2.connectedComponentsWithStats(solid, connectivity=8)
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA])) if n > 1 else 0
    card = (lab == best).astype(np.uint8) * 255
    # fill holes: everything not reachable from the border through non-card pixels
    h, w = card.shape
    flood = np.pad(card, 1)
    mask = np.zeros((h + 4, w + 4), np.uint8)
    cv2.floodFill(flood, mask, (0, 0), 128)
    filled = np.where(flood[1:-1, 1:-1] == 128, 0, 255).astype(np.uint8)
    edge = cv2.dilate(filled, np.ones((3, 3), np.uint8))
    inner = cv2.erode(filled, np.ones((5, 5), np.uint8))
    a = alpha.astype(np.float32)[:, :, None] / 255.0
    bgr = face[:, :, :3].astype(np.float32)
    on_white = bgr * a + 255.0 * (1 - a)
    out = face.copy()
    out[:, :, :3] = np.where(inner[:, :, None] > 0, on_white, bgr).astype(np.uint8)
    new_alpha = np.minimum(np.where(inner > 0, 255, np.where(edge > 0, alpha, 0)),
                           _corner_mask(h, w)).astype(np.uint8)
    out[:, :, 3] = new_alpha
    # round the outline, the colour is the card's edge colour (not the black of empty
    # pixels): resizing or warping the face without its alpha then gives no dark fringe
    a2 = new_alpha.astype(np.float32) / 255.0
    num = cv2.boxFilter(out[:, :, :3].astype(np.float32) * a2[:, :, None], -1, (7, 7),
                        normalize=False)
    den = cv2.boxFilter(a2, -1, (7, 7), normalize=False)[:, :, None]
    spread = np.where(den > 1e-3, num / np.maximum(den, 1e-3), 255.0)
    out[:, :, :3] = np.where(new_alpha[:, :, None] < 255, np.clip(spread, 0, 255),
                             out[:, :, :3]).astype(np.uint8)
    return out


def _check_card(card: str) -> None:
    if card not in STANDARD:
        raise UnknownCard(f"unknown card {card!r}; expected a rank of "
                          f"{' '.join(RANKS)} and a suit of {' '.join(SUITS)}, e.g. 10H or QS")


@lru_cache(maxsize=512)
def _master(design: str, card: str, height: int) -> NDArray[np.uint8]:
    spec = _spec(design)
    if not _installed(spec):
        raise DesignNotInstalled(f"card design {design!r} is not installed here "
                                 "(sh scripts/ensure-card-designs.sh installs it)")
    folder = _design_dir(spec)
    file = folder / (f"{card}.png" if height == MASTER_HEIGHT else f"{card}@{height}.png")
    if file.is_file():
        img = cv2.imread(str(file), cv2.IMREAD_UNCHANGED)
        if img is not None and img.ndim == 3 and img.shape[2] == 4 and img.shape[0] == height:
            img.setflags(write=False)
            return np.asarray(img, np.uint8)
    img = _render(spec, card, height)
    tmp = file.with_name(f".{file.name}.{os.getpid()}.{threading.get_ident()}.png")
    cv2.imwrite(str(tmp), img)
    os.replace(tmp, file)
    img.setflags(write=False)
    return img


def published_face(design: str, card: str, height: int = MASTER_HEIGHT) -> NDArray[np.uint8]:
    """The face of ``card`` ("10H", "QS", ...) in ``design``: ``height`` x W x 4 BGRA,
    portrait, upright, cropped exactly to the card's outline, alpha 0 outside its
    rounded corners. A fresh array each call."""
    _spec(design)
    _check_card(card)
    return _sized(design, card, height)


def published_back(design: str, height: int = MASTER_HEIGHT) -> NDArray[np.uint8]:
    """The back of ``design``'s cards, as :func:`published_face` gives a face; a
    :class:`DesignError` where the design publishes none.

    >>> published_back("npm-letele")
    Traceback (most recent call last):
    ...
    vision.designs.DesignError: card design 'npm-letele' publishes no card back
    """
    if _spec(design).back is None:
        raise DesignError(f"card design {design!r} publishes no card back")
    return _sized(design, BACK, height)


def _sized(design: str, card: str, height: int) -> NDArray[np.uint8]:
    if not 16 <= height <= 4000:
        raise DesignError(f"height must be 16..4000 pixels, got {height}")
    if height > MASTER_HEIGHT:
        return _master(design, card, height).copy()
    master = _master(design, card, MASTER_HEIGHT)
    if height == MASTER_HEIGHT:
        return master.copy()
    width = max(1, round(master.shape[1] * height / MASTER_HEIGHT))
    return np.asarray(cv2.resize(master, (width, height), interpolation=cv2.INTER_AREA),
                      np.uint8)


def on_background(face: NDArray[np.uint8], background: float | NDArray[np.float32],
                  ) -> NDArray[np.uint8]:
    """A BGRA ``face`` (:func:`published_face`) laid on ``background`` (a grey level, or a
    BGR colour): BGR, the table or paper showing round its rounded corners.

    >>> on_background(np.zeros((2, 2, 4), np.uint8), 255.0)[0, 0].tolist()
    [255, 255, 255]
    """
    alpha = face[..., 3:].astype(np.float32) / 255
    return np.asarray(face[..., :3] * alpha + background * (1 - alpha), np.uint8)


def render_design(design: str, workers: int | None = None) -> None:
    """Render (and cache) all 52 faces of ``design`` in parallel: the first use is then quick."""
    from concurrent.futures import ThreadPoolExecutor

    _spec(design)
    with ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 2) as pool:
        list(pool.map(lambda c: _master(design, c, MASTER_HEIGHT), STANDARD))


def contact_sheet(design: str, card_height: int = 140) -> NDArray[np.uint8]:
    """All 52 faces of ``design`` on grey, a row per suit (for looking at a design)."""
    rows = []
    width = card_height  # wider than any card
    for suit in SUITS:
        faces = [published_face(design, r + suit, card_height) for r in RANKS]
        row = np.full((card_height + 8, (width + 8) * len(faces), 3), 128, np.uint8)
        for i, f in enumerate(faces):
            a = f[:, :, 3:].astype(np.float32) / 255
            x0 = i * (width + 8) + 4
            roi = row[4:4 + card_height, x0:x0 + f.shape[1]].astype(np.float32)
            row[4:4 + card_height, x0:x0 + f.shape[1]] = (f[:, :, :3] * a + roi * (1 - a)
                                                          ).astype(np.uint8)
        rows.append(row)
    return np.vstack(rows)


def _main(argv: list[str] | None = None) -> int:
    """``python -m vision.designs [--sheets DIR]``: list installed designs, render them."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m vision.designs", description=_main.__doc__)
    parser.add_argument("--sheets", type=Path, help="write a contact sheet PNG per design here")
    parser.add_argument("designs", nargs="*", help="only these designs")
    args = parser.parse_args(argv)
    for d in published_designs():
        if args.designs and d.name not in args.designs:
            continue
        split = "bench" if d.name in BENCH_DESIGNS else "train"
        render_design(d.name)
        print(f"{d.name:32} {split:5} {d.court_letters} {d.ace_letter}  {d.source}  {d.licence}")
        if args.sheets:
            args.sheets.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(args.sheets / f"{d.name}.png"), contact_sheet(d.name))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
