"""A Pi camera whose picamera2 does not import says why, and the fix fits the cause.

picamera2 exists only in Raspberry Pi OS, so these tests put a stand-in ``picamera2``
package on ``sys.path`` that fails to import the way the real one does on a Pi (the camera
library is the hardware edge); the import machinery, the source and the doctor are real.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.doctor import main as doctor
from vision import sources
from vision.sources import CameraUnavailable, PiCameraSource

# What simplejpeg (built against numpy 1.x) raises on import under numpy 2.x.
ABI_MISMATCH = (
    "numpy.dtype size changed, may indicate binary incompatibility. "
    "Expected 96 from C header, got 88 from PyObject"
)


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder first on sys.path for stand-in camera packages; none leaks into other tests."""
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    names = ("picamera2", "simplejpeg")
    for name in names:
        monkeypatch.delitem(sys.modules, name, raising=False)
    yield folder
    for name in names:
        sys.modules.pop(name, None)


def package(site: Path, name: str, body: str) -> None:
    (site / name).mkdir()
    (site / name / "__init__.py").write_text(body, encoding="utf-8")


def open_failure() -> CameraUnavailable:
    with pytest.raises(CameraUnavailable) as caught:
        PiCameraSource()
    return caught.value


def test_a_numpy_abi_mismatch_is_not_called_a_cable_fault(site: Path) -> None:
    # picamera2 imports simplejpeg, compiled against the system's numpy
    package(site, "simplejpeg", f"raise ValueError({ABI_MISMATCH!r})\n")
    package(site, "picamera2", "import simplejpeg\n")
    error = open_failure()
    assert "do not fit the numpy this venv loads" in error.cause
    assert f"numpy {__import__('numpy').__version__} from" in error.cause
    assert "numpy.dtype size changed" in error.cause
    assert "deploy/install.sh" in error.fix and "pip uninstall numpy" in error.fix
    assert "ribbon" not in str(error)


def test_a_missing_dependency_of_picamera2_is_named(site: Path) -> None:
    package(site, "picamera2", "import libcamera_not_here\n")
    error = open_failure()
    assert error.cause.startswith("picamera2 is installed but needs libcamera_not_here")
    assert "apt install --reinstall python3-picamera2" in error.fix


def test_picamera2_absent_everywhere_points_to_raspberry_pi_os_or_a_webcam(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sources, "SYSTEM_DIST_PACKAGES", tmp_path / "no-system-packages")
    error = open_failure()
    assert error.cause == "picamera2 is not installed"
    assert "sudo apt install python3-picamera2" in error.fix
    assert 'source = "webcam"' in error.fix


@pytest.mark.skipif(sys.prefix == sys.base_prefix, reason="the suite runs outside a venv")
def test_a_venv_that_cannot_see_the_system_picamera2_says_so(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    system = tmp_path / "dist-packages"
    (system / "picamera2").mkdir(parents=True)
    monkeypatch.setattr(sources, "SYSTEM_DIST_PACKAGES", system)
    error = open_failure()
    assert "does not see it" in error.cause
    assert "--system-site-packages" in error.fix


def test_any_other_import_failure_keeps_its_real_message(site: Path) -> None:
    package(site, "picamera2", "raise OSError('libcamera.so.0.3: cannot open shared object')\n")
    error = open_failure()
    assert "OSError: libcamera.so.0.3: cannot open shared object" in error.cause
    assert "python3 -c 'import picamera2'" in error.fix


def test_a_camera_that_does_not_start_is_the_cable_or_another_program(site: Path) -> None:
    package(site, "picamera2", "class Picamera2:\n"
                               "    def __init__(self):\n"
                               "        raise RuntimeError('Camera __init__ sequence did not "
                               "complete.')\n")
    error = open_failure()
    assert error.cause == "the Pi camera did not start (Camera __init__ sequence did not complete.)"
    assert "ribbon cable" in error.fix and "rpicam-hello" in error.fix


def test_doctor_gives_the_fix_for_the_cause(site: Path) -> None:
    package(site, "simplejpeg", f"raise ValueError({ABI_MISMATCH!r})\n")
    package(site, "picamera2", "import simplejpeg\n")
    out = io.StringIO()
    code = doctor(["--board", "none", "--camera", "picamera2"], out=out)
    text = out.getvalue()
    assert code == 1
    camera = text[text.index("camera: problem:"):]
    assert "picamera2: picamera2's compiled modules do not fit the numpy" in camera
    assert "fix: run deploy/install.sh again" in camera
    assert "ribbon" not in camera
