"""Camera sources behind one interface: webcam, Pi camera, replay, synthetic.

Every source is a context manager; ``read()`` returns a BGR ``uint8`` frame,
or ``None`` when no frame is available right now (a pulled cable, the end of
a replay). A source never raises on a bad frame; it raises
:class:`CameraUnavailable` only when it cannot be opened at all.

>>> from vision.render import CONDITIONS
>>> with SyntheticSource(CONDITIONS["upright"], seeds=range(2)) as cam:
...     [None if f is None else f.shape for f in (cam.read(), cam.read(), cam.read())]
[(720, 1280, 3), (720, 1280, 3), None]
"""

from __future__ import annotations

import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.render import Conditions, render_scene

Image = NDArray[np.uint8]

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp")


class CameraUnavailable(OSError):
    """A camera or replay that cannot be opened; the message says what to check.

    ``cause`` is what went wrong and ``fix`` (when the source knows it) what to do about it;
    the message carries both.
    """

    def __init__(self, cause: str, fix: str = "") -> None:
        super().__init__(f"{cause}; {fix}" if fix else cause)
        self.cause, self.fix = cause, fix


class SourceClosed(ValueError):
    """``read()`` on a source that was closed."""


class FrameSource(ABC):
    """One camera-like source of frames."""

    def __init__(self) -> None:
        self._closed = False

    @abstractmethod
    def _read(self) -> Image | None: ...

    def _release(self) -> None:  # noqa: B027 - most sources have nothing to free
        """Free the device; called once."""

    def read(self) -> Image | None:
        """The next frame (BGR uint8), or ``None`` when there is none now."""
        if self._closed:
            raise SourceClosed(f"{type(self).__name__} is closed; open a new one to read")
        frame = self._read()
        if frame is None or frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            return None
        return frame

    def frames(self) -> Iterator[Image]:
        """Frames until the source has no more (a replay's end, or ``None``)."""
        while (frame := self.read()) is not None:
            yield frame

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._release()

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


class WebcamSource(FrameSource):
    """A USB webcam through ``cv2.VideoCapture``; exposure and white balance locked.

    A failed read (cable pulled) returns ``None``; after ``reopen_after``
    failures in a row the device is opened again, at most every 2 seconds.
    """

    def __init__(self, device: int | str = 0, size: tuple[int, int] = (1280, 720),
                 reopen_after: int = 10) -> None:
        super().__init__()
        self.device, self.size, self.reopen_after = device, size, reopen_after
        self._failures = 0
        self._last_open = 0.0
        self._cap = self._open()
        if self._cap is None:
            raise CameraUnavailable(
                f"no webcam at {device!r}; check the USB cable, or name another device "
                "(0, 1, ... or /dev/video0)")

    def _open(self) -> cv2.VideoCapture | None:
        self._last_open = time.monotonic()
        cap = cv2.VideoCapture(self.device)
        if not cap.isOpened():
            cap.release()
            return None
        w, h = self.size
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, w)
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, h)
        # V4L2: 0.25 is "manual" exposure; auto white balance off. Ignored where unsupported.
        cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, 0.25)
        cap.set(cv2.CAP_PROP_AUTO_WB, 0)
        return cap

    def _read(self) -> Image | None:
        if self._cap is not None:
            ok, frame = self._cap.read()
            if ok:
                self._failures = 0
                return np.asarray(frame, np.uint8)
        self._failures += 1
        if self._failures >= self.reopen_after and time.monotonic() - self._last_open > 2.0:
            if self._cap is not None:
                self._cap.release()
            self._cap = self._open()
        return None

    def _release(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


SYSTEM_DIST_PACKAGES = Path("/usr/lib/python3/dist-packages")
"""Where Debian and Raspberry Pi OS put python3-picamera2 (and the numpy it is built with)."""

NUMPY_ABI_SIGNS = (
    "numpy.dtype size changed",  # a module built against numpy 1.x, running on 2.x
    "compiled using NumPy 1.x cannot be run in",
    "numpy.core.multiarray failed to import",
    "_ARRAY_API not found",
    "numpy.core._multiarray_umath",
)
"""What an extension module built against another numpy says when it is imported."""


def picamera2_import_problem(exc: BaseException) -> tuple[str, str]:
    """What a failed ``import picamera2`` means, and its fix: (cause, fix).

    >>> cause, fix = picamera2_import_problem(ValueError(
    ...     "numpy.dtype size changed, may indicate binary incompatibility. "
    ...     "Expected 96 from C header, got 88 from PyObject"))
    >>> cause  # doctest: +ELLIPSIS
    "picamera2's compiled modules do not fit the numpy this venv loads (numpy ...)..."
    >>> "install.sh" in fix and "ribbon" not in fix
    True
    """
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, ModuleNotFoundError) and exc.name == "picamera2":
        if (SYSTEM_DIST_PACKAGES / "picamera2").is_dir() and sys.prefix != sys.base_prefix:
            return ("the system has picamera2, but this virtualenv does not see it (it was made "
                    "without --system-site-packages)",
                    "install the service with deploy/install.sh, whose venv sees the system's "
                    "packages, or recreate this one with python3 -m venv "
                    "--system-site-packages")
        return ("picamera2 is not installed",
                "on Raspberry Pi OS: sudo apt install python3-picamera2, then run "
                "deploy/install.sh again; picamera2 exists only in Raspberry Pi OS, so "
                "elsewhere use a USB webcam ([camera] source = \"webcam\")")
    if any(sign in str(exc) for sign in NUMPY_ABI_SIGNS):
        numpy = sys.modules.get("numpy")
        where = (f"numpy {numpy.__version__} from {Path(numpy.__file__ or '').parent.parent}"
                 if numpy is not None else "another numpy")
        return (f"picamera2's compiled modules do not fit the numpy this venv loads ({where}); "
                f"they are built against the system's numpy ({text})",
                "run deploy/install.sh again: it keeps the system's numpy and lets no newer "
                "one into the service's venv (docs/raspberry-pi.md, 'The camera stack'); or "
                "remove the venv's own copy: pip uninstall numpy inside the venv")
    if isinstance(exc, ModuleNotFoundError):
        return (f"picamera2 is installed but needs {exc.name or 'a module'} ({text})",
                f"sudo apt install --reinstall python3-picamera2 (it brings "
                f"{exc.name or 'its dependencies'} with it)")
    return (f"picamera2 does not import ({text})",
            "see whether the system's own python3 can: python3 -c 'import picamera2'; if "
            "not, sudo apt install --reinstall python3-picamera2; if it can, run "
            "deploy/install.sh again")


class PiCameraSource(FrameSource):
    """A Raspberry Pi ribbon camera through picamera2 (imported only here).

    picamera2 comes from Raspberry Pi OS, not PyPI: a failed import is reported with what
    caused it and the matching fix (:func:`picamera2_import_problem`), not as a cable fault.
    """

    def __init__(self, size: tuple[int, int] = (1280, 720), settle_frames: int = 10) -> None:
        super().__init__()
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except Exception as exc:  # an ABI mismatch raises ValueError, not ImportError
            raise CameraUnavailable(*picamera2_import_problem(exc)) from None
        try:
            self._cam: Any = Picamera2()
            config = self._cam.create_video_configuration(
                main={"size": size, "format": "RGB888"})
            self._cam.configure(config)
            self._cam.start()
            for _ in range(settle_frames):  # let auto exposure settle, then lock it
                self._cam.capture_array()
            meta = self._cam.capture_metadata()
            self._cam.set_controls({
                "AeEnable": False, "AwbEnable": False,
                "ExposureTime": meta.get("ExposureTime", 10000),
                "AnalogueGain": meta.get("AnalogueGain", 1.0),
                "ColourGains": meta.get("ColourGains", (1.5, 1.5)),
            })
        except Exception as exc:  # libcamera raises many kinds; all mean "no camera"
            raise CameraUnavailable(f"the Pi camera did not start ({exc})",
                                    "check the ribbon cable, that `rpicam-hello` shows a "
                                    "picture, and that no other program uses the camera"
                                    ) from None

    def _read(self) -> Image | None:
        try:
            # picamera2's "RGB888" is BGR in memory, as OpenCV wants it
            return np.asarray(self._cam.capture_array(), np.uint8)[:, :, :3].copy()
        except Exception:
            return None

    def _release(self) -> None:
        try:
            self._cam.stop()
            self._cam.close()
        except Exception:
            pass  # already gone with the camera


class ReplaySource(FrameSource):
    """Frames from a video file or a folder of images (sorted by name)."""

    def __init__(self, path: Path | str, loop: bool = False) -> None:
        super().__init__()
        self.path, self.loop = Path(path), loop
        self._files: list[Path] = []
        self._index = 0
        self._cap: cv2.VideoCapture | None = None
        if self.path.is_dir():
            self._files = sorted(p for p in self.path.iterdir()
                                 if p.suffix.lower() in IMAGE_SUFFIXES)
            if not self._files:
                raise CameraUnavailable(f"{self.path} holds no images "
                                        f"({', '.join(IMAGE_SUFFIXES)})")
        elif self.path.is_file():
            self._cap = cv2.VideoCapture(str(self.path))
            if not self._cap.isOpened():
                self._cap.release()
                raise CameraUnavailable(f"{self.path} is not a video OpenCV can read")
        else:
            raise CameraUnavailable(f"{self.path} does not exist; expected a video file or "
                                    "a folder of images")

    def _read(self) -> Image | None:
        if self._cap is not None:
            ok, frame = self._cap.read()
            if not ok and self.loop:
                self._cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
                ok, frame = self._cap.read()
            return np.asarray(frame, np.uint8) if ok else None
        while self._index < len(self._files) or (self.loop and self._files):
            if self._index >= len(self._files):
                self._index = 0
            path = self._files[self._index]
            self._index += 1
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is not None:
                return np.asarray(image, np.uint8)
            # an unreadable file in the folder is skipped, not fatal
        return None

    def _release(self) -> None:
        if self._cap is not None:
            self._cap.release()


class SyntheticSource(FrameSource):
    """Rendered scenes (one per seed), or any given frames: the camera for tests and demos."""

    def __init__(self, conditions: Conditions | None = None, seeds: Iterable[int] = (),
                 frames: Iterable[Image] | None = None) -> None:
        super().__init__()
        if frames is not None:
            self._frames: Iterator[Image] = iter(frames)
        else:
            cond = conditions or Conditions()
            self._frames = (render_scene(cond, s).image for s in seeds)

    def _read(self) -> Image | None:
        return next(self._frames, None)


def open_source(spec: str) -> FrameSource:
    """A source from a short spec: ``webcam:0``, ``picamera``, ``replay:PATH``,
    ``synthetic:DECK``.

    >>> open_source("telescope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    vision.sources.UnknownSource: unknown camera 'telescope'; expected webcam[:N], picamera, ...
    """
    kind, _, arg = spec.partition(":")
    if kind == "webcam":
        return WebcamSource(int(arg) if arg.isdigit() else (arg or 0))
    if kind == "picamera":
        return PiCameraSource()
    if kind == "replay" and arg:
        return ReplaySource(arg)
    if kind == "synthetic":
        from itertools import count

        return SyntheticSource(Conditions(deck=arg or "standard"), count())
    raise UnknownSource(f"unknown camera {spec!r}; expected webcam[:N], picamera, "
                        "replay:PATH or synthetic:DECK")


class UnknownSource(ValueError):
    """A camera spec that names no kind of source."""
